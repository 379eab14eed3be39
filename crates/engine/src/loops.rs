//! How many separate passes a clone runs (fio `loops`), apart from running them
//! (`each_loop.rs`), so that what only asks the question (the interval logs) does not depend
//! on the worker.

use iofit_model::job::{EngineKind, JobSpec};

/// The number of separate passes a clone of `job` runs: `Some(loops)` with loops > 1, as
/// fio's `thread_main` runs `do_io` (and `do_verify`) once per loop, with the offsets, the
/// random map and (rand_repeatable) the seeds reset and the files reopened in between; `None`
/// for one pass. `time_based` ignores loops, as fio's `keep_running` does.
pub fn passes(job: &JobSpec) -> Option<u32> {
    let timed = job.time_based && job.runtime.is_some();
    (job.loops > 1 && !timed && job.replay.is_none()).then_some(job.loops)
}

/// Whether the clone's files are removed and laid out again between its loops (fio
/// `unlink_each_loop`; the null engine has no files).
pub fn unlinks_between_loops(job: &JobSpec) -> bool {
    passes(job).is_some() && job.file_sync.unlink_each_loop && job.engine != EngineKind::Null
}
