//! The procedures' typed errors. The binary picks the exit code from
//! [`ProcedureError::is_bad_input`]: input the user must fix exits 2, anything else 1.

use iofit_engine::EngineError;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ProcedureError {
    /// A flag, key or file the user must fix; the message names it and the allowed values.
    #[error("{0}")]
    BadInput(String),
    /// The engine refused or failed a run; `label` says which run.
    #[error("{label}: {source}")]
    Engine {
        label: String,
        #[source]
        source: EngineError,
    },
    /// A job ran and stopped on an IO error.
    #[error("{label}: job {job} stopped on an error: {message}")]
    JobFailed {
        label: String,
        job: String,
        message: String,
    },
    /// A run that measured nothing where the procedure needs a measurement.
    #[error("{0}")]
    NothingMeasured(String),
    /// Writing a result file failed (or was refused).
    #[error(transparent)]
    Output(#[from] iofit_safefs::SafeFsError),
    /// Writing results (`--output`, `--report`, fio's logs) failed or was refused.
    #[error("cannot write results to {}: {source}", path.display())]
    WriteResults {
        path: PathBuf,
        #[source]
        source: iofit_safefs::SafeFsError,
    },
    /// The demo's own directory for its default report cannot be used.
    #[error("cannot use {} for the demo report", path.display())]
    DemoDirectory {
        path: PathBuf,
        #[source]
        source: iofit_safefs::SafeFsError,
    },
    /// A multi-host run could not start or be reached (ssh, a worker's refusal).
    #[error(transparent)]
    Remote(#[from] iofit_remote::RemoteError),
    /// A directory the procedure needs could not be made.
    #[error("cannot create {path}: {source}")]
    Directory {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file system run (vdbench fsd/fwd) could not be carried out.
    #[error("{label}: {source}")]
    FileSystem {
        label: String,
        #[source]
        source: iofit_fswork::FsError,
    },
    /// A rehearsal (`emulate`) could not be set up or run; its input errors are the user's.
    #[error(transparent)]
    Emulate(#[from] iofit_emulate::EmulateError),
    /// Something the procedure built itself did not hold (a defect, not the user's input).
    #[error("internal: {0}")]
    Internal(String),
}

impl ProcedureError {
    /// True when the user must fix their input (exit code 2): bad flags, and the engine's
    /// refusals (a file iofit did not create, a job that cannot run as written).
    pub fn is_bad_input(&self) -> bool {
        match self {
            ProcedureError::BadInput(_) => true,
            ProcedureError::Engine { source, .. } => source.is_bad_input(),
            ProcedureError::Output(error) => error.is_bad_input(),
            ProcedureError::FileSystem { source, .. } => source.is_bad_input(),
            ProcedureError::WriteResults { source, .. } => source.is_bad_input(),
            ProcedureError::DemoDirectory { source, .. } => source.is_bad_input(),
            ProcedureError::Remote(error) => error.is_bad_input(),
            ProcedureError::Emulate(error) => matches!(
                error,
                iofit_emulate::EmulateError::Input(_) | iofit_emulate::EmulateError::Unsupported(_)
            ),
            _ => false,
        }
    }

    pub(crate) fn bad_input(message: impl Into<String>) -> Self {
        ProcedureError::BadInput(message.into())
    }
}

/// A filter the user wrote that cannot be used is bad input, its message as written.
impl From<crate::vm_filters::FilterError> for ProcedureError {
    fn from(error: crate::vm_filters::FilterError) -> Self {
        ProcedureError::BadInput(error.to_string())
    }
}

impl From<iofit_jobfile::JobFileError> for ProcedureError {
    fn from(error: iofit_jobfile::JobFileError) -> Self {
        ProcedureError::BadInput(error.to_string())
    }
}

/// A number as a message shows it: `1e300`, not three hundred digits.
pub fn shown(value: f64) -> String {
    if value != 0.0 && !(1e-4..1e15).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}
