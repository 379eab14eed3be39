//! iofit-fswork: vdbench's file system workloads (`fsd=`, `fwd=`, `rd=...,fwd=`). It builds an
//! fsd's directory tree under an anchor iofit owns ([`iofit_safefs::anchor`]), formats it as
//! `format=` asks, runs each fwd's operation (read, write, create, delete, mkdir, rmdir,
//! getattr, setattr, access, open, close, copy, move) with its threads, and measures every
//! operation: count, bytes and an HDR latency histogram, as vdbench's file system summary has
//! (with latency percentiles, which vdbench has not).
//!
//! ```
//! use iofit_fswork::{run, FsOptions};
//! use iofit_jobfile::vdbench::parse_str;
//! let dir = tempfile::tempdir().unwrap();
//! let text = format!(
//!     "fsd=fsd1,anchor={}/a,depth=2,width=2,files=3,size=8k\n\
//!      fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=2\n\
//!      rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=1,interval=1\n",
//!     dir.path().display()
//! );
//! let file = parse_str(&text, "doc.vdb").unwrap();
//! let runs = file.fs_runs().unwrap();
//! let options = FsOptions { allow_overwrite: false, stop: Default::default() };
//! let outcome = run(&runs[0], &options).unwrap();
//! // format=yes made 2^2 directories of files holding 3 files each.
//! assert_eq!(outcome.files_per_fsd[0], ("fsd1".to_string(), 12, 12));
//! assert!(outcome.run.unwrap().stats.total_ops() > 0);
//! ```

mod buffer;
pub mod interval;
pub mod report;
mod run;
pub mod stats;
pub mod tree;
pub mod wire;

pub use run::{format_phase, run, run_observed, FsEvent, FsOptions, FsOutcome, PhaseResult};

use std::path::{Path, PathBuf};

/// Why a file system run could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The anchor is not iofit's, or cannot be used.
    #[error(transparent)]
    Anchor(#[from] iofit_safefs::SafeFsError),
    /// An operation failed; counted per operation during a run, fatal during a format.
    #[error("{context} {}: {error}", path.display())]
    Io {
        context: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{0}")]
    BadInput(String),
    #[error(
        "more than {0} operations failed; stopping the run (is the file system full or read-only?)"
    )]
    TooManyErrors(u64),
}

impl FsError {
    pub(crate) fn io(context: &'static str, path: &Path, error: std::io::Error) -> FsError {
        FsError::Io {
            context,
            path: path.to_path_buf(),
            error,
        }
    }

    /// True when the user can fix it (a foreign anchor, a bad setting, no space).
    pub fn is_bad_input(&self) -> bool {
        match self {
            FsError::Anchor(e) => e.is_bad_input(),
            FsError::BadInput(_) => true,
            FsError::Io { error, .. } => iofit_safefs::error::is_user_setup_error(error),
            FsError::TooManyErrors(_) => false,
        }
    }
}
