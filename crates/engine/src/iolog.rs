//! fio's per-IO logs (`write_bw_log`, `write_iops_log`, `write_lat_log` without
//! `log_avg_msec`): one line per completed IO, written as the run goes through a small buffer,
//! so a long run never holds its log in memory. Lines are fio 3.33's (`flush_samples`,
//! iolog.c): `TIME_MS, VALUE, DDIR, BS, PRIO`, with `log_offset=1` an `OFFSET` column before
//! the priority, and with `log_prio=1` the priority as fio's `0x%04x` ioprio value. Values as
//! fio's `account_io_completion` (io_u.c) logs them: total latency (`lat`), completion latency
//! (`clat`), submission latency (`slat`, asynchronous engines only), 1 (`iops`), and
//! `bytes x 1,000,000 / completion-latency-ns` (`bw`).

use crate::error::LogError;
use iofit_model::units::{Millis, Nanos};
use iofit_safefs::output::{OutputFile, OutputKind};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Which per-IO log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IoLogKind {
    Bandwidth,
    Iops,
    Latency,
    CompletionLatency,
    SubmissionLatency,
}

impl IoLogKind {
    /// fio's file-name part: `PREFIX_bw.N.log`.
    pub fn suffix(self) -> &'static str {
        match self {
            IoLogKind::Bandwidth => "bw",
            IoLogKind::Iops => "iops",
            IoLogKind::Latency => "lat",
            IoLogKind::CompletionLatency => "clat",
            IoLogKind::SubmissionLatency => "slat",
        }
    }
}

/// One open log file, shared by the clones that write it (`per_job_logs=0`).
#[derive(Debug)]
pub struct LogSink {
    path: PathBuf,
    writer: BufWriter<OutputFile>,
}

pub type SharedSink = Arc<Mutex<LogSink>>;

impl LogSink {
    /// Starts the log file at `path` through safefs's door: a new file, or an earlier iofit
    /// log replaced as fio does; never a device, a link or a user's file (unless
    /// `allow_overwrite`). What was written is published when the last clone drops it, also
    /// when the run stopped early.
    pub fn create(
        path: &Path,
        allow_overwrite: bool,
    ) -> Result<SharedSink, iofit_safefs::SafeFsError> {
        let file = OutputFile::create(path, OutputKind::StatsLog, allow_overwrite)?.keep_on_drop();
        Ok(Arc::new(Mutex::new(LogSink {
            path: path.to_path_buf(),
            writer: BufWriter::with_capacity(64 << 10, file),
        })))
    }
}

/// One completed IO, as the logs see it.
#[derive(Clone, Copy, Debug)]
pub struct IoRecord {
    /// The log's time column: ms since measuring began, or since the Unix epoch with
    /// `log_unix_epoch=1` (the log's origin, as fio's, differs by option, not by type).
    pub time_ms: Millis<u64>,
    pub is_read: bool,
    /// A trim: fio's ddir 2 in the log's third column.
    pub is_trim: bool,
    pub len: u32,
    pub offset: u64,
    pub total_ns: Nanos<u64>,
    pub completion_ns: Nanos<u64>,
    /// `None` for synchronous engines (no submission step).
    pub submission_ns: Option<Nanos<u64>>,
    /// The IO's ioprio value (class << 13 | level), 0: none set.
    pub ioprio: u16,
}

/// A clone's per-IO logs.
#[derive(Clone, Debug)]
pub struct IoLogPlan {
    pub sinks: Vec<(IoLogKind, SharedSink)>,
    pub with_offset: bool,
    /// fio `log_prio=1`: the priority column is the ioprio value in hex, not 0/1 (realtime).
    pub with_prio: bool,
    /// fio `log_unix_epoch=1`: times from the Unix epoch, not from the job's start.
    pub unix_epoch: bool,
}

impl IoLogPlan {
    /// Appends `io`'s line to every log; the first write error, naming the file.
    pub fn record(&self, io: &IoRecord) -> Result<(), LogError> {
        let mut line = String::with_capacity(64);
        for (kind, sink) in &self.sinks {
            let value = match kind {
                IoLogKind::Bandwidth => (io.len as u64 * 1_000_000)
                    .checked_div(io.completion_ns.get())
                    .unwrap_or(0),
                IoLogKind::Iops => 1,
                IoLogKind::Latency => io.total_ns.get(),
                IoLogKind::CompletionLatency => io.completion_ns.get(),
                IoLogKind::SubmissionLatency => match io.submission_ns {
                    Some(ns) => ns.get(),
                    None => continue,
                },
            };
            line.clear();
            format_line(&mut line, io, value, self.with_offset, self.with_prio);
            let mut sink = sink.lock().expect("log lock");
            if let Err(error) = sink.writer.write_all(line.as_bytes()) {
                return Err(write_failed(&sink.path, error));
            }
        }
        Ok(())
    }

    /// Writes out what is buffered.
    pub fn flush(&self) -> Result<(), LogError> {
        for (_, sink) in &self.sinks {
            let mut sink = sink.lock().expect("log lock");
            if let Err(error) = sink.writer.flush() {
                return Err(write_failed(&sink.path, error));
            }
        }
        Ok(())
    }
}

fn write_failed(path: &std::path::Path, error: std::io::Error) -> LogError {
    LogError::Write {
        what: "log",
        path: path.to_path_buf(),
        error,
    }
}

/// fio 3.33's line (`flush_samples`): without log_prio the last column is 1 for a realtime-class
/// IO, else 0 (`ioprio_value_is_class_rt`).
fn format_line(out: &mut String, io: &IoRecord, value: u64, with_offset: bool, with_prio: bool) {
    use std::fmt::Write as _;
    let ddir = if io.is_trim { 2 } else { u8::from(!io.is_read) };
    let _ = write!(out, "{}, {value}, {ddir}, {}, ", io.time_ms.get(), io.len);
    if with_offset {
        let _ = write!(out, "{}, ", io.offset);
    }
    if with_prio {
        let _ = writeln!(out, "0x{:04x}", io.ioprio);
    } else {
        let _ = writeln!(out, "{}", u8::from(io.ioprio >> 13 == 1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_fio_3_33s() {
        let io = IoRecord {
            time_ms: Millis(12),
            is_read: false,
            is_trim: false,
            len: 4096,
            offset: 8192,
            total_ns: Nanos(50_000),
            completion_ns: Nanos(40_000),
            submission_ns: Some(Nanos(10_000)),
            ioprio: (1 << 13) | 2,
        };
        let mut line = String::new();
        format_line(&mut line, &io, 102_400, false, false);
        assert_eq!(line, "12, 102400, 1, 4096, 1\n");
        line.clear();
        format_line(&mut line, &io, 1, true, true);
        assert_eq!(line, "12, 1, 1, 4096, 8192, 0x2002\n");
    }
}
