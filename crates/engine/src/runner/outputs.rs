//! The files a run writes besides its IO: the IO and interval logs each clone is handed, the
//! verify states checked against safefs's door before any IO, and the files the run created
//! and removes at the end (`unlink`).

use crate::error::EngineError;
use crate::layout::Layout;
use crate::run_report::RunReport;
use crate::worker::ClonePlan;
use iofit_model::job::{EngineKind, JobSpec};
use iofit_model::units::Nanos;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Creates the log files and hands each clone its writers: the per-IO logs (fio's logs
/// without `log_avg_msec`) and the interval logs (averaged and histogram logs, streamed by
/// [`crate::interval_log`]), `PREFIX_KIND.N.log` with N the clone's number in the run as fio
/// counts threads, or one `PREFIX_KIND.log` for all clones with `per_job_logs=0`. Returns the
/// interval logs' writer and each job's interval (longer than asked when the logs would write
/// too much: [`crate::interval_log::paced_intervals`]).
pub(super) fn open_io_logs(
    jobs: &[JobSpec],
    plans: &mut [Vec<ClonePlan>],
    allow_overwrite: bool,
) -> Result<(Option<crate::interval_log::LogWriter>, Vec<Duration>), EngineError> {
    let intervals = crate::interval_log::paced_intervals(jobs);
    let (writer, clone_logs) = crate::interval_log::open(jobs, &intervals, allow_overwrite)?;
    for ((clones, logs), interval) in plans.iter_mut().zip(clone_logs).zip(&intervals) {
        for (plan, log) in clones.iter_mut().zip(logs) {
            plan.interval_ns = Nanos::<u64>::from_duration(*interval).max(Nanos(1));
            plan.interval_log = log;
        }
    }
    use crate::iolog::{IoLogKind as K, IoLogPlan, LogSink};
    let mut open: HashMap<PathBuf, crate::iolog::SharedSink> = HashMap::new();
    let mut number = 0u32;
    for (job, clones) in jobs.iter().zip(plans.iter_mut()) {
        for plan in clones.iter_mut() {
            number += 1;
            let logs = &job.logs;
            if !logs.per_io {
                continue;
            }
            let mut sinks = Vec::new();
            for (prefix, kind) in [
                (&logs.bw_prefix, K::Bandwidth),
                (&logs.iops_prefix, K::Iops),
                (&logs.lat_prefix, K::Latency),
                (&logs.lat_prefix, K::CompletionLatency),
                (&logs.lat_prefix, K::SubmissionLatency),
            ] {
                let Some(prefix) = prefix else { continue };
                let path = PathBuf::from(if logs.shared_file {
                    format!("{prefix}_{}.log", kind.suffix())
                } else {
                    format!("{prefix}_{}.{number}.log", kind.suffix())
                });
                let sink = match open.get(&path) {
                    Some(sink) => Arc::clone(sink),
                    None => {
                        let sink = LogSink::create(&path, allow_overwrite).map_err(|e| {
                            EngineError::invalid(&job.name, format!("log file: {e}"))
                        })?;
                        open.insert(path, Arc::clone(&sink));
                        sink
                    }
                };
                sinks.push((kind, sink));
            }
            plan.io_log = Some(IoLogPlan {
                sinks,
                with_offset: logs.with_offset,
                with_prio: logs.with_prio,
                unix_epoch: logs.unix_epoch,
            });
        }
    }
    Ok((writer, intervals))
}

/// Before any IO: each verify state a clone will save must be a name safefs's door lets it
/// write (a new file or an earlier iofit verify state), not a user's file, link or device
/// that the end of the run would replace.
pub(super) fn check_verify_states(
    jobs: &[JobSpec],
    plans: &mut [Vec<ClonePlan>],
    allow_overwrite: bool,
) -> Result<(), EngineError> {
    use iofit_safefs::output::{check, OutputKind};
    for (job, clones) in jobs.iter().zip(plans.iter_mut()) {
        for plan in clones.iter_mut() {
            plan.data.allow_overwrite = allow_overwrite;
            if job.data.verify.state_save.is_none() {
                continue;
            }
            if let Some(path) = &plan.data.state_path {
                check(path, OutputKind::VerifyState, allow_overwrite).map_err(|e| {
                    EngineError::invalid(&job.name, format!("verify_state_save: {e}"))
                })?;
            }
        }
    }
    Ok(())
}

/// fio `unlink`: after the run, the files of jobs that ask for it are removed, but only those
/// this run created (never-destroy: a file that was there before stays). A failure to remove
/// is added to the job's error.
pub(super) fn unlink_created_files(jobs: &[JobSpec], layout: &Layout, report: &mut RunReport) {
    let mut done: std::collections::HashSet<std::path::PathBuf> = Default::default();
    for (j, job) in jobs.iter().enumerate() {
        if !job.file_sync.unlink || job.engine == EngineKind::Null {
            continue;
        }
        for clone in 0..job.numjobs.max(1) {
            for path in job.files_for_clone(clone) {
                if !done.insert(path.clone()) {
                    continue;
                }
                if let Err(e) = layout.remove_if_created(&path) {
                    let at = report.job_index.iter().position(|&i| i == j);
                    if let Some(result) = at.map(|i| &mut report.result.jobs[i]) {
                        let message = format!("unlink: {e}");
                        result.error = Some(match result.error.take() {
                            Some(first) => format!("{first}; {message}"),
                            None => message,
                        });
                    }
                }
            }
        }
    }
}
