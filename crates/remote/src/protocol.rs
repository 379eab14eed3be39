//! The line protocol between the controller and `iofit worker` on a host: one JSON object per
//! line on ssh's stdin (controller -> worker) and stdout (worker -> controller), each with a
//! `"type"`. Stderr is free text, shown when a host fails.
//!
//! Order: both sides say `hello` first (the worker before reading anything, so a mismatched
//! binary is named before any job is sent); the controller pings a few times to measure the
//! clock offset; sends `job`; the worker lays out its files (refusing to touch data it did not
//! create) and answers `ready`; the controller sends `start` once every host is ready; the
//! worker streams `interval` records and ends with `done`. `stop` (or end of input) stops a
//! worker at any time.

use iofit_model::job::JobSpec;
use iofit_stats::compact::CompactDirection;
use iofit_stats::RunResult;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};

/// The protocol this build speaks. Bump on any incompatible message change; a controller and a
/// worker speaking different versions refuse each other before any IO.
/// 2: `job` carries [`HostKeys`] (validate keys kept on the host between runs).
/// 3: `job` may carry a vdbench file system run (`fs`), answered by `fs_done`.
pub const PROTOCOL_VERSION: u32 = 3;

/// The longest line either side accepts (a `done` with histograms is a few hundred KiB).
pub const MAX_LINE_BYTES: usize = 64 << 20;

/// Controller -> worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    Hello {
        protocol: u32,
        version: String,
    },
    /// Answered at once with `pong`: the round trip measures the host's clock offset.
    Ping {
        id: u64,
    },
    Job {
        /// The host's name in the controller's job (for messages).
        host: String,
        jobs: Vec<JobSpec>,
        allow_overwrite: bool,
        /// Length of a live `interval` record.
        interval_ms: u64,
        /// Where this host keeps the jobs' validate keys between the runs of one file.
        #[serde(default)]
        keys: Option<HostKeys>,
        /// A vdbench file system run (this host's fwds and fsds) instead of `jobs`: the
        /// worker formats before `ready` and runs the fwds from `start`, ending with
        /// `fs_done`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fs: Option<Box<iofit_jobfile::vdbench::FsRun>>,
    },
    /// Start the timed phase at this moment of the worker's own clock (Unix ns): the controller
    /// has already corrected for the host's offset, so every host starts at one true instant.
    Start {
        at_unix_ns: u64,
    },
    Stop,
}

/// validate=yes keys that carry from one run to the next on a host, as vdbench keeps its key
/// table in memory for a whole parameter file: each run is a new worker, so the keys live in
/// a private directory of the host's temp dir, named by the controller the same for every run
/// of the file. The worker points the jobs' `verify_state_save`/`_load` there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostKeys {
    /// A directory name (letters, digits, `-`, `_`, `.`; no path) under the host's temp dir.
    pub dir_name: String,
    /// The file's last run that uses the keys: the worker removes the directory after it
    /// (after a stop too, which ends the file).
    pub last: bool,
}

/// A keys directory name that is not a plain name: a path or a hidden name could point the
/// worker's key files anywhere on its host.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("keys directory '{name}' is not a plain name (letters, digits, - _ .)")]
pub struct KeysDirError {
    pub name: String,
}

impl HostKeys {
    /// The directory on this host, or why the name is refused.
    pub fn dir(&self) -> Result<std::path::PathBuf, KeysDirError> {
        let name = &self.dir_name;
        let safe = !name.is_empty()
            && !name.starts_with('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !safe {
            return Err(KeysDirError { name: name.clone() });
        }
        Ok(std::env::temp_dir().join(name))
    }
}

/// Worker -> controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    Hello {
        protocol: u32,
        version: String,
        hostname: String,
    },
    Pong {
        id: u64,
        /// The worker's clock when it answered.
        unix_ns: u64,
    },
    /// Files are laid out; the worker waits for `start`.
    Ready {
        files_laid_out: usize,
        bytes_laid_out: u64,
    },
    /// IOs and bytes completed in one live interval (counted from the start, warm-up included;
    /// the final `done` carries the measured series).
    Interval { index: u64, ios: u64, bytes: u64 },
    Done {
        /// When the timed phase started, by the worker's clock.
        started_unix_ns: u64,
        result: RunResult,
        /// Per job of `result`: read and write counters with their histograms.
        stats: Vec<[CompactDirection; 2]>,
        /// Per job of `result`: trim counters with their histograms (empty from a worker
        /// that sends none: its hosts' trims are then left out of the combination).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        trims: Vec<CompactDirection>,
    },
    Error {
        message: String,
        /// True when the job is at fault (bad path, data iofit would not overwrite).
        bad_input: bool,
    },
    /// The end of a file system run: its format (done before `ready`), its measured run with
    /// the interval lines, and the files present.
    FsDone {
        started_unix_ns: u64,
        outcome: Box<iofit_fswork::wire::WireOutcome>,
    },
}

/// One message as a line (no trailing newline).
pub fn encode<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).expect("protocol messages always serialize")
}

/// Reads one line of at most [`MAX_LINE_BYTES`]; `Ok(None)` at end of input.
pub fn read_line(input: &mut impl BufRead) -> std::io::Result<Option<String>> {
    let mut line = Vec::new();
    let read = input
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.len() > MAX_LINE_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a protocol line is longer than {MAX_LINE_BYTES} bytes"),
        ));
    }
    while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        line.pop();
    }
    String::from_utf8(line)
        .map(Some)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// Nanoseconds since the Unix epoch by this machine's clock.
pub fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_tagged_json_lines() {
        let line = encode(&ToWorker::Hello {
            protocol: 1,
            version: "0.1.0".into(),
        });
        assert_eq!(line, r#"{"type":"hello","protocol":1,"version":"0.1.0"}"#);
        let back: FromWorker =
            serde_json::from_str(r#"{"type":"interval","index":3,"ios":10,"bytes":40960}"#)
                .unwrap();
        assert_eq!(
            back,
            FromWorker::Interval {
                index: 3,
                ios: 10,
                bytes: 40960
            }
        );
        let mut input = std::io::Cursor::new(b"a\r\nb\n".to_vec());
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("a"));
        assert_eq!(read_line(&mut input).unwrap().as_deref(), Some("b"));
        assert_eq!(read_line(&mut input).unwrap(), None);
    }
}
