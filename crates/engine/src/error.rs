//! Typed errors of the engine. `Refused` and `Invalid` are the user's to fix (the CLI exits 2);
//! `Io` is an operating error during setup or a run.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A safety refusal: iofit will not write where it could destroy data.
    #[error("refusing to write to {path}: {reason}")]
    Refused { path: PathBuf, reason: String },
    /// A job that cannot run as written (bad size, missing file with no size, ...).
    #[error("job '{job}': {message}")]
    Invalid { job: String, message: String },
    /// A file or directory a job names cannot be used as it is (missing directory, no space).
    #[error("{path}: {message}")]
    BadPath { path: PathBuf, message: String },
    /// An operating-system error while preparing or running. The OS error is printed once,
    /// in this message (it is not a `source`, which the CLI would print again).
    #[error("{context} {path}: {}", iofit_safefs::error::describe(.error))]
    Io {
        context: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    /// The run needs more memory, threads or open files than the machine allows.
    #[error("{message}")]
    Resources { message: String },
    /// Ctrl-C arrived before any job ran (during layout).
    #[error("interrupted while laying out test files; no job ran")]
    Interrupted,
    /// The engine could not be set up (for example io_uring is unavailable).
    #[error("engine {engine}: {message}")]
    Setup {
        engine: &'static str,
        message: String,
    },
}

impl EngineError {
    /// True when the error is the user's input to fix (exit code 2 in the CLI).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            EngineError::Refused { .. }
                | EngineError::Invalid { .. }
                | EngineError::BadPath { .. }
                | EngineError::Resources { .. }
        ) || matches!(self, EngineError::Io { error, .. } if iofit_safefs::error::is_user_setup_error(error))
    }

    pub(crate) fn io(
        context: &'static str,
        path: impl Into<PathBuf>,
        error: std::io::Error,
    ) -> Self {
        EngineError::Io {
            context,
            path: path.into(),
            error,
        }
    }

    /// Same as [`EngineError::io`]; the name says the cause is an OS error.
    pub(crate) fn from_io(
        context: &'static str,
        path: impl Into<PathBuf>,
        error: std::io::Error,
    ) -> Self {
        Self::io(context, path, error)
    }

    pub(crate) fn invalid(job: &str, message: impl Into<String>) -> Self {
        EngineError::Invalid {
            job: job.to_string(),
            message: message.into(),
        }
    }
}

/// Why a job stopped during its run: an IO that failed or came back short, or a sync that
/// failed. The job's result carries its text (`JobResult::error`), as fio's does.
#[derive(Debug, thiserror::Error)]
pub enum IoFailure {
    #[error("{what} of {len} bytes at offset {offset} of {} failed: {error}", path.display())]
    Failed {
        what: &'static str,
        len: u32,
        offset: u64,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("short {what}: {done} of {len} bytes at offset {offset} of {}", path.display())]
    Short {
        what: &'static str,
        done: i64,
        len: u32,
        offset: u64,
        path: PathBuf,
    },
    /// fio's `rate_min`/`rate_iops_min`: a direction fell below its minimum over a window.
    #[error("{0}")]
    BelowMinRate(String),
    /// fio's `max_latency`, with fio's message and errno (ETIMEDOUT).
    #[error("latency of {latency_ns} nsec exceeds specified max ({max_ns} nsec): {} {what} {offset} {len}: {}", path.display(), std::io::Error::from_raw_os_error(libc::ETIMEDOUT))]
    MaxLatency {
        latency_ns: u64,
        max_ns: u64,
        path: PathBuf,
        what: &'static str,
        offset: u64,
        len: u32,
    },
    #[error("sync of {} failed: {error}", path.display())]
    Sync {
        path: PathBuf,
        error: std::io::Error,
    },
}

/// A file the run writes beside its results (fio's per-IO and interval logs, `write_iolog`,
/// the verify state) could not be written. The clone records its text as its error, as fio
/// fails a job whose log cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// Writing (or flushing) the file failed; `what` says which log ("log", "IO log").
    #[error("writing the {what} {} failed: {error}", path.display())]
    Write {
        what: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file could not be started (safefs refused the path, or could not create it).
    #[error("{0}")]
    Open(#[from] iofit_safefs::SafeFsError),
    /// The thread that writes the interval logs could not be started.
    #[error("cannot start the log writer thread: {0}")]
    Thread(std::io::Error),
    /// The interval-log writer failed earlier (its first error, as every clone reports it).
    #[error("{0}")]
    WriterFailed(String),
    /// The verify state (`verify_state_save`) could not be saved.
    #[error(transparent)]
    VerifyState(#[from] iofit_blockdata::state::StateError),
}
