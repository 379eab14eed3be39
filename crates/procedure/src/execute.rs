//! How a procedure runs jobs: through an [`Executor`], so that tests drive a procedure with the
//! null engine and a fake clock (or an executor that fails on purpose) and the binary with the
//! real engines, the way hyperfine's mock mode drives its benchmark loop.

use crate::observer::Observer;
use crate::ProcedureError;
use iofit_engine::{run_jobs, ClockChoice, Progress, RunOptions};
use iofit_model::job::{EngineKind, JobSpec};
use iofit_stats::RunResult;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Runs a procedure's jobs.
pub trait Executor {
    /// Runs `jobs` as one run named `label`. `Ok` holds every job's result (a job may carry
    /// the IO error it stopped on); `Err` when the engine refused or could not run them.
    fn execute(
        &mut self,
        jobs: &[JobSpec],
        label: &str,
        observer: &mut dyn Observer,
    ) -> Result<RunResult, ProcedureError>;
    /// True once a stop was asked for (Ctrl-C): the procedure ends after the current run.
    fn stop_requested(&self) -> bool;
}

/// The real engines (or, for tests, the null engine with a fake clock).
#[derive(Clone, Debug)]
pub struct EngineExecutor {
    pub options: RunOptions,
    /// Runs every job on this engine instead of the one it names (tests: `Null`).
    pub engine: Option<EngineKind>,
}

impl EngineExecutor {
    /// Real IO on the jobs' engines; `stop` ends the current run cleanly when set.
    pub fn new(allow_overwrite: bool, stop: Arc<AtomicBool>) -> Self {
        EngineExecutor {
            options: RunOptions {
                allow_overwrite,
                stop,
                ..RunOptions::default()
            },
            engine: None,
        }
    }

    /// Real IO on the jobs' engines, with a stop flag nothing sets: for the commands that do
    /// not arm a stop (the demo, thread sizing), which a signal ends at once.
    pub fn without_stop(allow_overwrite: bool) -> Self {
        Self::new(allow_overwrite, Arc::new(AtomicBool::new(false)))
    }

    /// No IO and deterministic time: the null engine, each clock reading `step_ns` later.
    pub fn null_with_fake_clock(step_ns: u64) -> Self {
        EngineExecutor {
            options: RunOptions {
                clock: ClockChoice::Fake { step_ns },
                ..RunOptions::default()
            },
            engine: Some(EngineKind::Null),
        }
    }
}

/// Forwards the engine's events to a procedure's observer, with the run's label.
struct Bridge<'a> {
    label: &'a str,
    observer: &'a mut dyn Observer,
}

impl iofit_engine::Observer for Bridge<'_> {
    fn layout(&mut self, files: usize, bytes: u64) {
        self.observer.layout(self.label, files, bytes);
    }
    fn layout_written(&mut self, written: std::sync::Arc<std::sync::atomic::AtomicU64>) {
        self.observer.layout_written(self.label, written);
    }
    fn progress(&mut self, progress: &Progress) {
        self.observer.progress(self.label, progress);
    }
}

impl Executor for EngineExecutor {
    fn execute(
        &mut self,
        jobs: &[JobSpec],
        label: &str,
        observer: &mut dyn Observer,
    ) -> Result<RunResult, ProcedureError> {
        let forced: Vec<JobSpec>;
        let jobs = match self.engine {
            Some(engine) => {
                forced = jobs
                    .iter()
                    .cloned()
                    .map(|mut job| {
                        job.engine = engine;
                        job
                    })
                    .collect();
                &forced
            }
            None => jobs,
        };
        if let Some(live) = &self.options.live {
            live.clear();
        }
        let mut bridge = Bridge { label, observer };
        let outcome = run_jobs(jobs, &self.options, &mut bridge);
        bridge.observer.run_done(label);
        outcome
            .map(|report| report.result)
            .map_err(|source| ProcedureError::Engine {
                label: label.to_string(),
                source,
            })
    }

    fn stop_requested(&self) -> bool {
        self.options.stop.load(Ordering::Relaxed)
    }
}

/// The first job that stopped on an error, as a typed error naming the run.
pub fn first_job_error(result: &RunResult, label: &str) -> Result<(), ProcedureError> {
    match result.jobs.iter().find(|j| j.error.is_some()) {
        Some(job) => Err(ProcedureError::JobFailed {
            label: label.to_string(),
            job: job.name.clone(),
            message: job.error.clone().unwrap_or_default(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn an_executor_without_stop_runs_real_engines_and_is_never_stopped() {
        let executor = EngineExecutor::without_stop(true);
        assert!(executor.options.allow_overwrite && executor.engine.is_none());
        assert!(!executor.options.stop.load(Ordering::SeqCst));
        assert!(!EngineExecutor::without_stop(false).options.allow_overwrite);
    }
}
