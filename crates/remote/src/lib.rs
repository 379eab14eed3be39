//! iofit-remote: runs jobs on many hosts at once over ssh and merges what they measured.
//!
//! The controller ([`controller::run`]) starts `iofit worker --protocol N` on every host
//! through the OpenSSH client, speaks a versioned JSON-lines protocol ([`protocol`]) over
//! ssh's stdin/stdout, holds a barrier so every host starts together, and combines per-host
//! results ([`merge`]) into exact combined percentiles (merged HDR histograms) and a combined
//! per-second series (the sum of aligned intervals). The worker side ([`worker::serve`]) lays
//! out files with the engine's own never-destroy checks, on the host that owns the data. In a
//! Slurm allocation every worker is a task of one `srun` step instead ([`slurm_stdio`] carries
//! each worker's conversation over that step's shared stdio).
//!
//! ```
//! use iofit_remote::merge::sum_series;
//! use iofit_stats::IntervalSample;
//! let host = |ios| vec![IntervalSample { interval_ms: iofit_model::units::Millis(1000), read_ios: ios, ..Default::default() }];
//! let (a, b) = (host(100), host(50));
//! let combined = sum_series(&[(0, &a), (0, &b)]);
//! assert_eq!(combined[0].read_ios, 150);
//! ```

pub mod controller;
mod fs_worker;
pub mod merge;
pub mod protocol;
pub mod slurm_stdio;
pub mod worker;
mod worker_limits;

pub use controller::{run, ControllerOptions, HostFailure, HostRun, HostSpec, MultiRun};

/// Why a multi-host run did not happen, or a worker stopped.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// One or more hosts failed before the start; no host started IO.
    #[error("no host started IO: {}", problems.join("; "))]
    NotStarted {
        problems: Vec<String>,
        /// True when the fix is in the job or the installation (version, refused path).
        bad_input: bool,
    },
    /// The worker side stopped (protocol mismatch, bad message).
    #[error("{0}")]
    Worker(String),
    #[error("protocol channel: {0}")]
    Io(#[from] std::io::Error),
}

impl RemoteError {
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            RemoteError::NotStarted {
                bad_input: true,
                ..
            }
        )
    }
}
