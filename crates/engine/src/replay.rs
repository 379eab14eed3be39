//! fio's IO logs (`write_iolog`, `read_iolog`): recording every IO a clone issues, and
//! replaying a log's IOs in its order and at its times.
//!
//! The format is fio 3.33's (iolog.c). `write_iolog` writes version 3: a first line
//! `fio version 3 iolog`, then `TIME FILE add` for every file, `TIME FILE open` when the clone
//! starts, one `TIME FILE read|write OFFSET LENGTH` per IO as it is issued (`sync`/`datasync`
//! lines for syncs), and `TIME FILE close` at the end; TIME is microseconds since the log began.
//! Each clone writes its own such section (version line included) into the one file, as fio's
//! clones do ([`IoLogFile`]); the reader takes the sections one after the other.
//! `read_iolog` reads version 2 (the same lines without TIME; a `FILE wait MS 0` line holds
//! the next IOs until MS milliseconds after the start, as fio 3.33's `read_iolog_get` compares
//! it with `mtime_since_genesis`) and version 3, where the gap between two lines' times is the
//! gap between their IOs (fio `delay_since_ttime`: counted from the first non-zero time, scaled
//! by `replay_time_scale`, none with `replay_no_stall`). A blktrace binary log is refused.
//!
//! The log is read twice: once when the run is planned ([`scan`]: every line checked, the files
//! and their extents found, so bad input fails before any IO), then streamed by each clone
//! ([`ReplayReader`]), so a long log is never held in memory.
//!
//! A `trim` line is replayed as a trim (a hole punched in a file, `BLKDISCARD` on a block
//! device), which destroys data as a write does: the same `--allow-overwrite` rule applies.
//! fio replays trims since 3.34 (commit dd6500e9, "iolog: handle trim commands when reading
//! iologs"); fio 3.33 drops them with "bad ddir: 2".

use crate::error::EngineError;
use iofit_model::job::{BlockSizeSpec, JobSpec, PerDirection, RwMode, SizeSpec, Target};
use iofit_model::replay::ReplaySpec;
use iofit_model::units::{Bytes, Nanos};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const VERSION_2: &str = "fio version 2 iolog";
const VERSION_3: &str = "fio version 3 iolog";
/// The longest line read (fio reads 4096 bytes per line; file names may make them long).
const MAX_LINE_BYTES: u64 = 8192;
/// fio's BLK_IO_TRACE_MAGIC (blktrace_api.h): the top 24 bits of a trace's first word.
const BLKTRACE_MAGIC: u32 = 0x6561_7400;

/// What one line of a log asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayOp {
    Read,
    Write,
    /// Discard the range (fio's `trim` action, `DDIR_TRIM`).
    Trim,
    /// fsync (`sync`) or fdatasync (`datasync`) of the file.
    Sync {
        data_only: bool,
    },
}

/// One IO (or sync) of a replayed log, ready to issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayIo {
    pub op: ReplayOp,
    /// Index into the files of [`LogSummary::files`].
    pub file: u32,
    pub offset: u64,
    pub len: u32,
    /// When it is due, in ns after the replay started (0: at once).
    pub due_ns: Nanos<u64>,
}

/// What [`scan`] found in a log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogSummary {
    pub version: u8,
    /// The files the IOs go to, in the order the log names them (one: the redirect target).
    pub files: Vec<PathBuf>,
    /// Per file, the end of the furthest IO (offset + length).
    pub extents: Vec<u64>,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub syncs: u64,
    pub read_bytes: Bytes,
    pub write_bytes: Bytes,
    pub trim_bytes: Bytes,
    pub max_read_len: u32,
    pub max_write_len: u32,
    pub max_trim_len: u32,
}

/// A log that cannot be replayed: the file, the line (0: the file as a whole), why, and a fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {what}; {fix}", path.display(), if *line > 0 { format!(":{line}") } else { String::new() })]
pub struct ReplayError {
    pub path: PathBuf,
    pub line: u64,
    pub what: String,
    pub fix: String,
}

fn error(path: &Path, line: u64, what: impl Into<String>, fix: impl Into<String>) -> ReplayError {
    ReplayError {
        path: path.to_path_buf(),
        line,
        what: what.into(),
        fix: fix.into(),
    }
}

/// Reads `spec`'s log for clone `clone` through, checking every line.
pub fn scan(spec: &ReplaySpec, clone: u32) -> Result<LogSummary, ReplayError> {
    let mut reader = ReplayReader::open(spec, clone)?;
    let mut summary = LogSummary {
        version: reader.version,
        ..LogSummary::default()
    };
    while let Some(io) = reader.next_io()? {
        let file = io.file as usize;
        if summary.extents.len() <= file {
            summary.extents.resize(file + 1, 0);
        }
        summary.extents[file] = summary.extents[file].max(io.offset + u64::from(io.len));
        match io.op {
            ReplayOp::Read => {
                summary.reads += 1;
                summary.read_bytes += Bytes(u64::from(io.len));
                summary.max_read_len = summary.max_read_len.max(io.len);
            }
            ReplayOp::Write => {
                summary.writes += 1;
                summary.write_bytes += Bytes(u64::from(io.len));
                summary.max_write_len = summary.max_write_len.max(io.len);
            }
            ReplayOp::Trim => {
                summary.trims += 1;
                summary.trim_bytes += Bytes(u64::from(io.len));
                summary.max_trim_len = summary.max_trim_len.max(io.len);
            }
            ReplayOp::Sync { .. } => summary.syncs += 1,
        }
    }
    summary.files = reader.files;
    summary.extents.resize(summary.files.len(), 0);
    Ok(summary)
}

/// A log read line by line as the replay goes.
pub struct ReplayReader {
    path: PathBuf,
    lines: BufReader<File>,
    line_no: u64,
    buf: String,
    version: u8,
    files: Vec<PathBuf>,
    index: HashMap<String, u32>,
    redirect: bool,
    no_stall: bool,
    /// ns of replay per microsecond of the log (1000 at replay_time_scale=100).
    ns_per_log_us: f64,
    align: u64,
    scale: u64,
    skip: iofit_model::replay::ReplaySkip,
    /// Version 3: the time of the line before, and the log time the schedule has reached.
    last_us: Option<u64>,
    elapsed_us: u64,
    /// Version 2: no IO before this (a `wait` line).
    floor_ns: u64,
}

impl ReplayReader {
    /// Opens clone `clone`'s log and reads its version line.
    pub fn open(spec: &ReplaySpec, clone: u32) -> Result<ReplayReader, ReplayError> {
        let path = spec.log_for_clone(clone).clone();
        let mut file = File::open(&path).map_err(|e| {
            error(
                &path,
                0,
                format!("cannot open the IO log: {e}"),
                "check read_iolog= (a log fio's or iofit's write_iolog= wrote)",
            )
        })?;
        // An input of the run: no output (write_iolog, --output, a log) may replace it.
        iofit_safefs::input::note_input(&file, &path);
        let mut head = [0u8; 4];
        let got = file.read(&mut head).unwrap_or(0);
        let word = u32::from_le_bytes(head);
        if got == 4
            && (word & 0xffff_ff00 == BLKTRACE_MAGIC
                || word.swap_bytes() & 0xffff_ff00 == BLKTRACE_MAGIC)
        {
            return Err(error(
                &path,
                0,
                "this is a blktrace binary log, and iofit replays only fio's text IO logs (versions 2 and 3)",
                "replay it with fio, or record the workload with fio's or iofit's write_iolog=",
            ));
        }
        drop(file);
        let file = File::open(&path).map_err(|e| {
            error(
                &path,
                0,
                format!("cannot open the IO log: {e}"),
                "check read_iolog=",
            )
        })?;
        let mut reader = ReplayReader {
            lines: BufReader::with_capacity(64 << 10, file),
            line_no: 0,
            buf: String::new(),
            version: 0,
            files: Vec::new(),
            index: HashMap::new(),
            redirect: spec.redirect.is_some(),
            no_stall: spec.no_stall,
            ns_per_log_us: 1000.0 * 100.0 / f64::from(spec.time_scale_pct.max(1)),
            align: spec.align.map_or(0, |a| a.as_u64()),
            scale: spec.scale.max(1),
            skip: spec.skip,
            last_us: None,
            elapsed_us: 0,
            floor_ns: 0,
            path,
        };
        if let Some(redirect) = &spec.redirect {
            reader.files.push(redirect.clone());
        }
        let first = reader.read_line()?.unwrap_or_default();
        reader.version = if first.starts_with(VERSION_2) {
            2
        } else if first.starts_with(VERSION_3) {
            3
        } else {
            return Err(error(
                &reader.path,
                1,
                format!("the first line is {first:?}, not fio's \"{VERSION_3}\" or \"{VERSION_2}\" (fio 3.33 refuses version 1 logs too)"),
                "give a log written by fio's or iofit's write_iolog=",
            ));
        };
        Ok(reader)
    }

    /// The log's version (2 or 3).
    pub fn version(&self) -> u8 {
        self.version
    }

    fn read_line(&mut self) -> Result<Option<String>, ReplayError> {
        self.buf.clear();
        self.line_no += 1;
        // A line is read through a cap, so a file without newlines cannot fill memory.
        match (&mut self.lines)
            .take(MAX_LINE_BYTES)
            .read_line(&mut self.buf)
        {
            Ok(0) => Ok(None),
            Ok(n) if n as u64 == MAX_LINE_BYTES && !self.buf.ends_with('\n') => Err(error(
                &self.path,
                self.line_no,
                format!("a line longer than {MAX_LINE_BYTES} bytes"),
                "give a text log written by write_iolog= (fio reads lines of up to 4096 bytes)",
            )),
            Ok(_) => Ok(Some(self.buf.trim_end().to_string())),
            Err(e) => Err(error(
                &self.path,
                self.line_no,
                format!("cannot read the IO log: {e}"),
                "give a text log written by write_iolog=",
            )),
        }
    }

    fn file_index(&mut self, name: &str) -> u32 {
        if self.redirect {
            return 0;
        }
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.files.len() as u32;
        self.files.push(PathBuf::from(name));
        self.index.insert(name.to_string(), i);
        i
    }

    /// The next read, write or sync of the log; `None` at its end.
    pub fn next_io(&mut self) -> Result<Option<ReplayIo>, ReplayError> {
        loop {
            let Some(line) = self.read_line()? else {
                return Ok(None);
            };
            if let Some(io) = self.parse(&line)? {
                return Ok(Some(io));
            }
        }
    }

    fn bad(&self, what: impl Into<String>) -> ReplayError {
        let fix = if self.version == 3 {
            "lines are \"TIME FILE read|write|trim|sync|datasync OFFSET LENGTH\" or \"TIME FILE add|open|close\""
        } else {
            "lines are \"FILE read|write|trim|sync|datasync|wait OFFSET LENGTH\" or \"FILE add|open|close\""
        };
        error(&self.path, self.line_no, what, fix)
    }

    /// One line: `Some` for an IO to issue, `None` for a line that issues nothing.
    fn parse(&mut self, line: &str) -> Result<Option<ReplayIo>, ReplayError> {
        let mut fields = line.split_whitespace();
        if line.trim().is_empty() {
            return Ok(None);
        }
        let version_line = if self.version == 3 {
            VERSION_3
        } else {
            VERSION_2
        };
        if line.trim_end() == version_line {
            // The next clone's section of a log several clones wrote (fio appends one per
            // clone); fio's reader skips the line, and the times start again after it.
            return Ok(None);
        }
        let time_us = if self.version == 3 {
            let t = fields.next().unwrap_or_default();
            Some(
                t.parse::<u64>()
                    .map_err(|_| self.bad(format!("{t:?} is not a time in microseconds")))?,
            )
        } else {
            None
        };
        let rest: Vec<&str> = fields.collect();
        let (name, action) = match rest.as_slice() {
            [name, action] | [name, action, _, _] => (*name, *action),
            _ => return Err(self.bad(format!("{line:?} has {} fields", rest.len()))),
        };
        let numbers = if rest.len() == 4 {
            let number = |s: &str| {
                s.parse::<u64>()
                    .map_err(|_| self.bad(format!("{s:?} is not a whole number")))
            };
            Some((number(rest[2])?, number(rest[3])?))
        } else {
            None
        };
        let due_ns = Nanos(self.due_ns(time_us));
        let op = match (action, numbers) {
            ("add" | "open" | "close", None) => {
                self.file_index(name);
                return Ok(None);
            }
            ("read", Some(_)) => ReplayOp::Read,
            ("write", Some(_)) => ReplayOp::Write,
            ("sync", Some(_)) => ReplayOp::Sync { data_only: false },
            ("datasync", Some(_)) => ReplayOp::Sync { data_only: true },
            ("wait", Some((ms, _))) => {
                // fio ignores wait in version 3 logs, and drops waits with replay_no_stall.
                if self.version == 2 && !self.no_stall {
                    self.floor_ns = self.floor_ns.max(ms.saturating_mul(1_000_000));
                }
                return Ok(None);
            }
            ("trim", Some(_)) => ReplayOp::Trim,
            _ => {
                return Err(self.bad(format!(
                    "{action:?} with {} fields is not an IO log action",
                    rest.len()
                )))
            }
        };
        let skipped = match op {
            ReplayOp::Read => self.skip.read,
            ReplayOp::Write => self.skip.write,
            ReplayOp::Trim => self.skip.trim,
            ReplayOp::Sync { .. } => self.skip.sync,
        };
        let file = self.file_index(name);
        if skipped {
            return Ok(None);
        }
        let (offset, len) = numbers.unwrap_or_default();
        if matches!(op, ReplayOp::Sync { .. }) {
            return Ok(Some(ReplayIo {
                op,
                file,
                offset: 0,
                len: 0,
                due_ns,
            }));
        }
        // A read or write needs a buffer of its length; a trim needs none (fio's t/jobs
        // t0038 trims 2 GiB at once).
        let max_len = if op == ReplayOp::Trim {
            u64::from(u32::MAX)
        } else {
            u64::from(u32::MAX / 2)
        };
        if len == 0 || len > max_len {
            return Err(self.bad(format!(
                "length {len} is not between 1 byte and {max_len} bytes"
            )));
        }
        // fio: the offset divided by replay_scale, then rounded down to replay_align.
        let mut offset = offset / self.scale;
        if self.align > 0 {
            offset &= !(self.align - 1);
        }
        Ok(Some(ReplayIo {
            op,
            file,
            offset,
            len: len as u32,
            due_ns,
        }))
    }

    fn due_ns(&mut self, time_us: Option<u64>) -> u64 {
        if self.no_stall {
            return 0;
        }
        match time_us {
            None => self.floor_ns,
            Some(t) => {
                // fio's delay_since_ttime: the gap since the line before, none after a line
                // at time 0 or when the time goes back (the next clone's section).
                let last = self.last_us.replace(t).unwrap_or(0);
                if last != 0 && t > last {
                    self.elapsed_us += t - last;
                }
                (self.elapsed_us as f64 * self.ns_per_log_us) as u64
            }
        }
    }
}

/// A `write_iolog` file: the sections of the clones that write it, appended whole as each
/// clone (or, with `unlink_each_loop`, each loop) ends.
///
/// fio 3.33's `init_iolog_write` has every clone open the file for appending and write its
/// own version line, `add` lines and IOs through its own 8 KiB stdio buffer, so the file holds
/// one section per clone (interleaved in 8 KiB pieces once a section outgrows its buffer,
/// which can cut a line in two). iofit spools each section in an unnamed temporary file next
/// to the log and appends it whole, so every line stays intact. fio's `read_iolog` reads such
/// a file back (it skips the extra version lines as bad lines), and so does iofit's.
#[derive(Debug)]
pub struct IoLogFile {
    path: PathBuf,
    out: Mutex<iofit_safefs::output::OutputFile>,
}

impl IoLogFile {
    /// Starts the log through safefs's door: a new file or an earlier iofit `write_iolog`
    /// file; never a device, a link, an input of the run or a user's file (unless
    /// `allow_overwrite`). Published when the last section drops it, also after a stop.
    pub fn create(
        path: &Path,
        allow_overwrite: bool,
    ) -> Result<Arc<IoLogFile>, iofit_safefs::SafeFsError> {
        use iofit_safefs::output::{OutputFile, OutputKind};
        let out = OutputFile::create(path, OutputKind::IoLog, allow_overwrite)?.keep_on_drop();
        Ok(Arc::new(IoLogFile {
            path: path.to_path_buf(),
            out: Mutex::new(out),
        }))
    }
}

/// One clone's section of a `write_iolog` file.
#[derive(Debug)]
pub struct IoLogWriter {
    log: Arc<IoLogFile>,
    /// The clone's files, for the section's `add` lines.
    files: Vec<PathBuf>,
    /// The section so far; started at its first line, appended to the log at `flush`.
    spool: Mutex<Option<BufWriter<File>>>,
}

impl IoLogWriter {
    /// The section of a clone whose files are `files`, in `log`.
    pub fn section(log: &Arc<IoLogFile>, files: Vec<PathBuf>) -> Arc<IoLogWriter> {
        Arc::new(IoLogWriter {
            log: Arc::clone(log),
            files,
            spool: Mutex::new(None),
        })
    }

    fn failed(&self, error: std::io::Error) -> crate::error::LogError {
        crate::error::LogError::Write {
            what: "IO log",
            path: self.log.path.clone(),
            error,
        }
    }

    /// Appends one line: `TIME FILE ACTION` or `TIME FILE ACTION OFFSET LENGTH`. The first
    /// line of a section comes after its version line and an `add` line per file.
    pub fn line(
        &self,
        time_us: u64,
        file: &Path,
        action: &str,
        io: Option<(u64, u32)>,
    ) -> Result<(), crate::error::LogError> {
        let mut spool = self.spool.lock().expect("iolog lock");
        if spool.is_none() {
            let dir = match self.log.path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            let mut out = BufWriter::with_capacity(
                64 << 10,
                iofit_safefs::scratch::unnamed_in(dir).map_err(|e| self.failed(e))?,
            );
            writeln!(out, "{VERSION_3}").map_err(|e| self.failed(e))?;
            for file in &self.files {
                writeln!(out, "0 {} add", file.display()).map_err(|e| self.failed(e))?;
            }
            *spool = Some(out);
        }
        let out = spool.as_mut().expect("started above");
        let written = match io {
            Some((offset, len)) => {
                writeln!(out, "{time_us} {} {action} {offset} {len}", file.display())
            }
            None => writeln!(out, "{time_us} {} {action}", file.display()),
        };
        written.map_err(|e| self.failed(e))
    }

    /// Appends the section so far to the log, whole; the next line starts a new section.
    pub fn flush(&self) -> Result<(), crate::error::LogError> {
        use std::io::{Seek, SeekFrom};
        let Some(out) = self.spool.lock().expect("iolog lock").take() else {
            return Ok(());
        };
        let mut spooled = out.into_inner().map_err(|e| self.failed(e.into_error()))?;
        spooled
            .seek(SeekFrom::Start(0))
            .map_err(|e| self.failed(e))?;
        let mut log = self.log.out.lock().expect("iolog lock");
        std::io::copy(&mut spooled, &mut *log).map_err(|e| self.failed(e))?;
        Ok(())
    }
}

/// The jobs as they run: a job that replays a log gets the log's files as its target, a size
/// that covers its furthest IO, the log's directions, and block sizes as large as its largest
/// IO (buffers are sized by them). The log is read through here, so a bad line fails the run
/// before anything is written.
pub fn resolve_jobs(jobs: &[JobSpec]) -> Result<Vec<JobSpec>, EngineError> {
    jobs.iter().map(resolve_job).collect()
}

fn resolve_job(job: &JobSpec) -> Result<JobSpec, EngineError> {
    let Some(spec) = &job.replay else {
        return Ok(job.clone());
    };
    let invalid = |e: ReplayError| EngineError::invalid(&job.name, format!("read_iolog: {e}"));
    let summary = scan(spec, 0).map_err(invalid)?;
    for clone in 1..job.numjobs.max(1).min(spec.logs.len() as u32) {
        let other = scan(spec, clone).map_err(invalid)?;
        if other.files != summary.files {
            return Err(EngineError::invalid(
                &job.name,
                format!(
                    "read_iolog: {} and {} name different files; iofit replays logs of the same files in one job (give each its own job)",
                    spec.logs[0].display(),
                    spec.log_for_clone(clone).display()
                ),
            ));
        }
    }
    if summary.reads + summary.writes + summary.trims == 0 {
        return Err(EngineError::invalid(
            &job.name,
            format!(
                "read_iolog: {} has no read, write or trim to replay (as fio, which then fails the job); check replay_skip and the log",
                spec.logs[0].display()
            ),
        ));
    }
    let mut job = job.clone();
    let extent = summary.extents.iter().copied().max().unwrap_or(0).max(1);
    // Buffers are sized by the reads and writes (a trim moves no data); a log of trims alone
    // gets fio's default block size.
    let longest = match summary.max_read_len.max(summary.max_write_len) {
        0 => 4096,
        len => len,
    };
    let (read_len, write_len) = (longest, longest);
    // A trim changes what the target holds as a write does: a log with trims is a writing job
    // (the layout's --allow-overwrite rule), and one with trims alone is a trim job.
    let changes = summary.writes + summary.trims;
    let rw = match (summary.reads > 0, summary.writes > 0, summary.trims > 0) {
        (true, false, false) => RwMode::Read,
        (false, false, true) => RwMode::Trim,
        (false, _, _) => RwMode::Write,
        (true, _, _) => RwMode::ReadWrite,
    };
    job = job.with_rw(rw);
    job.rwmix_read_pct = summary.reads as f64 * 100.0 / (summary.reads + changes) as f64;
    job.target = Target::Files(summary.files.clone());
    job.size = Some(SizeSpec::Bytes(Bytes(extent)));
    job.offset = Bytes::ZERO;
    job.start = Default::default();
    job.io_limit = None;
    job.block_size = BlockSizeSpec::Fixed(PerDirection {
        read: Bytes(u64::from(read_len)),
        write: Bytes(u64::from(write_len)),
    });
    Ok(job)
}

/// Creates each job's `write_iolog` file (one per path, shared by the jobs that name it, as
/// fio's clones append to the same file): one entry per job, `None` for a job without one.
/// Each clone then writes its own [`IoLogWriter::section`] of its job's file.
pub fn open_write_logs(
    jobs: &[JobSpec],
    allow_overwrite: bool,
) -> Result<Vec<Option<Arc<IoLogFile>>>, EngineError> {
    // The logs being replayed are inputs: a write_iolog naming one is refused.
    for spec in jobs.iter().filter_map(|job| job.replay.as_ref()) {
        spec.logs
            .iter()
            .for_each(|log| iofit_safefs::input::note_input_path(log));
    }
    let mut open: HashMap<PathBuf, Arc<IoLogFile>> = HashMap::new();
    let mut logs = Vec::with_capacity(jobs.len());
    for job in jobs {
        let Some(path) = &job.write_iolog else {
            logs.push(None);
            continue;
        };
        let log = match open.get(path) {
            Some(log) => Arc::clone(log),
            None => {
                let log = IoLogFile::create(path, allow_overwrite)
                    .map_err(|e| EngineError::invalid(&job.name, format!("write_iolog: {e}")))?;
                open.insert(path.clone(), Arc::clone(&log));
                log
            }
        };
        logs.push(Some(log));
    }
    Ok(logs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec_for(text: &str) -> (tempfile::TempDir, ReplaySpec) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, text).unwrap();
        (dir, ReplaySpec::new(path))
    }

    fn all(spec: &ReplaySpec) -> Result<Vec<ReplayIo>, ReplayError> {
        let mut reader = ReplayReader::open(spec, 0)?;
        let mut ios = Vec::new();
        while let Some(io) = reader.next_io()? {
            ios.push(io);
        }
        Ok(ios)
    }

    #[test]
    fn version_3_times_become_gaps_from_the_first_nonzero_time() {
        let (_d, mut spec) = spec_for(
            "fio version 3 iolog\n0 /f add\n100 /f open\n150 /f write 0 4096\n1150 /f read 8192 512\n1200 /f sync 0 0\n1300 /f close\n",
        );
        let ios = all(&spec).unwrap();
        assert_eq!(ios.len(), 3);
        assert_eq!(
            (ios[0].op, ios[0].offset, ios[0].len),
            (ReplayOp::Write, 0, 4096)
        );
        assert_eq!(ios[0].due_ns, Nanos(50_000));
        assert_eq!(
            (ios[1].op, ios[1].offset, ios[1].due_ns),
            (ReplayOp::Read, 8192, Nanos(1_050_000))
        );
        assert_eq!(ios[2].op, ReplayOp::Sync { data_only: false });
        spec.time_scale_pct = 200;
        assert_eq!(all(&spec).unwrap()[1].due_ns, Nanos(525_000));
        spec.no_stall = true;
        assert!(all(&spec).unwrap().iter().all(|io| io.due_ns == Nanos(0)));
    }

    #[test]
    fn version_2_waits_hold_later_ios_and_scale_align_redirect_apply() {
        let (_d, mut spec) = spec_for(
            "fio version 2 iolog\n/a add\n/b add\n/a write 12288 4096\n/b wait 20 0\n/b read 1000000 4096\n",
        );
        let summary = scan(&spec, 0).unwrap();
        assert_eq!(
            summary.files,
            vec![PathBuf::from("/a"), PathBuf::from("/b")]
        );
        assert_eq!(summary.extents, vec![16384, 1_004_096]);
        let ios = all(&spec).unwrap();
        assert_eq!(
            (ios[0].due_ns, ios[1].due_ns, ios[1].file),
            (Nanos(0), Nanos(20_000_000), 1)
        );
        spec.scale = 2;
        spec.align = Some(iofit_model::units::Bytes(4096));
        spec.redirect = Some("/c".into());
        let ios = all(&spec).unwrap();
        // 12288 / 2 = 6144, aligned down to 4096; 1000000 / 2 = 500000 -> 499712.
        assert_eq!((ios[0].offset, ios[1].offset), (4096, 499_712));
        assert!(ios.iter().all(|io| io.file == 0));
        assert_eq!(scan(&spec, 0).unwrap().files, vec![PathBuf::from("/c")]);
    }

    #[test]
    fn sections_of_several_clones_are_read_one_after_the_other_as_fio_does() {
        let (_d, spec) = spec_for(
            "fio version 3 iolog\n0 /a add\n10 /a open\n20 /a write 0 4096\n70 /a write 4096 4096\n80 /a close\n\
             fio version 3 iolog\n0 /b add\n5 /b open\n15 /b write 0 4096\n40 /b read 4096 4096\n",
        );
        let summary = scan(&spec, 0).unwrap();
        assert_eq!((summary.writes, summary.reads), (3, 1));
        assert_eq!(summary.files, [PathBuf::from("/a"), PathBuf::from("/b")]);
        // fio's delay_since_ttime: gaps within a section, none where the times start again.
        let due: Vec<u64> = all(&spec)
            .unwrap()
            .iter()
            .map(|io| io.due_ns.get() / 1000)
            .collect();
        assert_eq!(due, [10, 60, 80, 105]);
    }

    #[test]
    fn each_clone_writes_its_own_whole_section() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.log");
        let log = IoLogFile::create(&path, false).unwrap();
        let a = IoLogWriter::section(&log, vec!["/a".into()]);
        let b = IoLogWriter::section(&log, vec!["/b".into()]);
        for i in 0..3u64 {
            a.line(i, Path::new("/a"), "write", Some((i * 4096, 4096)))
                .unwrap();
            b.line(i, Path::new("/b"), "read", Some((i * 4096, 4096)))
                .unwrap();
        }
        b.flush().unwrap();
        a.flush().unwrap();
        a.line(9, Path::new("/a"), "close", None).unwrap();
        a.flush().unwrap();
        // The log is published (renamed into place, stamped) when the last section drops it.
        drop((a, b, log));
        let text = std::fs::read_to_string(&path).unwrap();
        let sections: Vec<&str> = text.split(VERSION_3).skip(1).collect();
        assert_eq!(sections.len(), 3, "{text}");
        assert!(
            sections[0].starts_with("\n0 /b add\n0 /b read 0 4096\n"),
            "{text}"
        );
        assert_eq!(
            sections[0].lines().filter(|l| l.contains(" read ")).count(),
            3
        );
        assert_eq!(
            sections[1]
                .lines()
                .filter(|l| l.contains(" write "))
                .count(),
            3
        );
        assert_eq!(sections[2], "\n0 /a add\n9 /a close\n");
    }

    #[test]
    fn bad_logs_say_where_and_why() {
        let (_d, spec) = spec_for("fio version 1 iolog\n");
        assert!(all(&spec)
            .unwrap_err()
            .to_string()
            .contains(":1: the first line"));
        let (_d, spec) = spec_for(&format!("fio version 3 iolog\n{}", "x".repeat(20_000)));
        assert!(all(&spec).unwrap_err().what.contains("longer than"));
        let (_d, spec) = spec_for("fio version 3 iolog\n10 /f write x 4096\n");
        let e = all(&spec).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        // A trim is replayed as one, unless replay_skip=trim leaves it out.
        let (_d, mut spec) = spec_for("fio version 3 iolog\n10 /f trim 8192 4096\n");
        let trim = all(&spec).unwrap();
        assert_eq!(
            (trim[0].op, trim[0].offset, trim[0].len),
            (ReplayOp::Trim, 8192, 4096)
        );
        let summary = scan(&spec, 0).unwrap();
        assert_eq!(
            (summary.trims, summary.trim_bytes, summary.writes),
            (1, Bytes(4096), 0)
        );
        spec.skip.trim = true;
        assert!(all(&spec).unwrap().is_empty());
        // A blktrace binary log: the magic in its first word.
        let (_d, spec) = spec_for("");
        std::fs::write(&spec.logs[0], 0x6561_7407u32.to_le_bytes()).unwrap();
        assert!(all(&spec).unwrap_err().what.contains("blktrace"));
    }
}
