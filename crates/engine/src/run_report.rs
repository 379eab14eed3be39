//! What a run returns ([`RunReport`]) and which engine a job runs on ([`engine_used`]): shared
//! by the runner, which fills them, and the live results an interrupted run reports from.

use iofit_model::job::EngineKind;
use iofit_stats::{DirectionStats, RunResult};

/// A run's results plus, per result, the index of the job it came from.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub result: RunResult,
    pub job_index: Vec<usize>,
    /// Per result (same order as `result.jobs`), the raw read and write counters and HDR
    /// histograms, filled when the run returns: what a multi-host controller merges into exact
    /// combined percentiles. Empty in the reports `Observer::job_done` sees.
    pub stats: Vec<(DirectionStats, DirectionStats)>,
    /// Per result, the raw trim counters and histograms (fio's third direction), filled with
    /// `stats`.
    pub trim_stats: Vec<DirectionStats>,
}

/// The engine a job actually runs on: libaio runs on io_uring.
pub fn engine_used(requested: EngineKind) -> EngineKind {
    match requested {
        EngineKind::Libaio => EngineKind::IoUring,
        other => other,
    }
}
