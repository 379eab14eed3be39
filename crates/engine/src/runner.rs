//! The runner: checks and lays out files, then runs jobs as fio does: one OS thread per clone
//! (numjobs), jobs up to the next `stonewall` together, each such set after the previous one
//! has finished. Results are finalised as soon as every clone of a result has reported, and
//! handed to the observer at once, so a caller can save them before the next job ends.

use crate::error::EngineError;
use crate::layout::{lay_out_counting, plan_layout};
use iofit_model::job::{EngineKind, JobSpec};
use iofit_model::units::{Bytes, Nanos};
use iofit_stats::{DirectionStats, JobResult, RunResult, SeriesMerger};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod collect;
mod outputs;
mod plan;
mod sets;
mod start;

use collect::{hostname, slot_templates};
use outputs::{check_verify_states, open_io_logs, unlink_created_files};
use plan::{base_seed, check_job, plan_clones, share_dedupe};
use sets::{run_set, RunShared, RunState};
use start::lock_layout;

pub use collect::STOP_GRACE;
#[cfg(test)]
pub(crate) use plan::clone_plan;

/// Which clock drives the workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockChoice {
    Monotonic,
    /// Deterministic time for tests: every clock reading advances by `step_ns`.
    Fake {
        step_ns: u64,
    },
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Allow writing to block devices and to existing files iofit did not create.
    pub allow_overwrite: bool,
    /// Set (by a Ctrl-C handler) to stop every job cleanly; what was measured is reported.
    pub stop: Arc<AtomicBool>,
    pub clock: ClockChoice,
    /// fio's `--status-interval`: hand the observer the full report so far this often.
    pub status_interval: Option<Duration>,
    /// Kept current while the jobs run, for a caller that may need the results before
    /// `run_jobs` returns (a stop bound ending the process).
    pub live: Option<Arc<crate::live::LiveResults>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            allow_overwrite: false,
            stop: Arc::new(AtomicBool::new(false)),
            clock: ClockChoice::Monotonic,
            status_interval: None,
            live: None,
        }
    }
}

/// A snapshot for a progress display.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Index (from 0) and count of the sets of jobs that run one after the other.
    pub set_index: usize,
    pub sets: usize,
    pub elapsed: Duration,
    /// How long the current set should take, when every job in it has a runtime.
    pub planned: Option<Duration>,
    pub ios: u64,
    pub bytes: Bytes,
    /// Bytes the current set will move, when every job in it is size-bounded.
    pub budget_bytes: Option<Bytes>,
}

/// Receives events of a run. Every method has a default that does nothing.
pub trait Observer {
    /// Before layout: how many files will be created or extended, and how many bytes written.
    fn layout(&mut self, _files: usize, _bytes: u64) {}
    /// Right after `layout`: the bytes the layout has written so far, counted while it runs
    /// (a progress display reads it from a thread of its own).
    fn layout_written(&mut self, _written: Arc<std::sync::atomic::AtomicU64>) {}
    /// A result was finalised; `report` holds every finished result so far.
    fn job_done(&mut self, _report: &RunReport) {}
    /// Called about four times a second while jobs run.
    fn progress(&mut self, _progress: &Progress) {}
    /// Every `RunOptions::status_interval`: the report so far, finished jobs and what the
    /// running ones measured up to now (fio's `--status-interval`).
    fn status(&mut self, _report: &RunReport) {}
    /// Something the user should know about how the run went (its logs' windows merged).
    fn note(&mut self, _note: &str) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

pub use crate::run_report::{engine_used, RunReport};

struct Slot {
    job_index: usize,
    name: String,
    group_id: u32,
    clones_expected: u32,
    clones_done: u32,
    read: DirectionStats,
    write: DirectionStats,
    trim: DirectionStats,
    syncs: u64,
    sync_latency: iofit_stats::LatencyHistogram,
    runtime_ns: Nanos<u64>,
    /// Longest write phase and longest verify phase of the clones that had one.
    write_phase_ns: Nanos<u64>,
    verify_phase_ns: Nanos<u64>,
    runtime_sum_ns: Nanos<u64>,
    usr_ns: Nanos<u64>,
    sys_ns: Nanos<u64>,
    ctx: u64,
    fio: iofit_stats::FioJobExtras,
    errors: Vec<String>,
    interrupted: bool,
    verify: Option<iofit_stats::VerifyResult>,
    series: Arc<Mutex<SeriesMerger>>,
    seed: u64,
    finished: Option<JobResult>,
    /// The smallest depth a clone's latency_target search settled on.
    latency_depth: Option<u32>,
}

/// Checks, lays out and runs `jobs`. Returns every result; a job that hit an IO error has
/// `error` set and its numbers cover what completed before it.
pub fn run_jobs(
    jobs: &[JobSpec],
    options: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<RunReport, EngineError> {
    // A job that replays an IO log runs over the log's files, sized by its IOs.
    let replayed = crate::replay::resolve_jobs(jobs)?;
    let jobs = &replayed[..];
    for job in jobs {
        check_job(job)?;
    }
    // Before any plan, buffer, thread or file is made: does the run fit this machine?
    crate::resources::check(&crate::resources::needs(jobs), &crate::resources::limits())?;
    // Safety checks for every file of every job before anything is written.
    let disk_jobs: Vec<JobSpec> = jobs
        .iter()
        .filter(|j| j.engine != EngineKind::Null)
        .cloned()
        .collect();
    let mut layout = plan_layout(&disk_jobs, options.allow_overwrite)?;
    crate::layout::check_unlink_each_loop(
        &disk_jobs,
        &layout,
        crate::each_loop::unlinks_between_loops,
    )?;
    // Resolve every clone's plan now, so bad sizes fail before any IO.
    let seeds: Vec<u64> = jobs
        .iter()
        .enumerate()
        .map(|(i, job)| base_seed(job, i))
        .collect();
    let mut plans = plan_clones(jobs, &seeds)?;
    check_verify_states(jobs, &mut plans, options.allow_overwrite)?;
    let (log_writer, intervals) = open_io_logs(jobs, &mut plans, options.allow_overwrite)?;
    let write_logs = crate::replay::open_write_logs(jobs, options.allow_overwrite)?;
    for (log, clones) in write_logs.iter().zip(plans.iter_mut()) {
        let Some(log) = log else { continue };
        for plan in clones.iter_mut() {
            let files = plan.files.iter().map(|(file, _, _)| file.clone()).collect();
            plan.write_iolog = Some(crate::replay::IoLogWriter::section(log, files));
        }
    }
    share_dedupe(jobs, &mut plans);
    let (to_write, to_create) = layout.to_write();
    let laid_out = Arc::new(std::sync::atomic::AtomicU64::new(0));
    if to_create > 0 {
        observer.layout(to_create, to_write);
        observer.layout_written(Arc::clone(&laid_out));
    }
    lay_out_counting(&mut layout, &options.stop, &laid_out)?;
    // Shared with the clones that lay their files out again between loops (unlink_each_loop).
    let layout = Arc::new(Mutex::new(layout));

    let (slots, slot_of) = result_slots(jobs, &intervals, &seeds);
    let sets = stonewall_sets(jobs);
    let origin = Instant::now();
    let report = empty_report();
    if let Some(live) = &options.live {
        live.begin(&report.result, jobs, slot_templates(&slots));
    }
    let live_feed = crate::live::LiveFeed::new(slots.len());
    // fio's Disk stats: the disks under the laid-out files, from now to the end of the run.
    let disks = crate::diskstats::DiskSampler::start(
        plans
            .iter()
            .flatten()
            .flat_map(|plan| plan.files.iter().map(|file| file.0.as_path())),
    );
    let shared = RunShared {
        jobs,
        plans: &plans,
        slot_of: &slot_of,
        options,
        layout: &layout,
        origin,
        set_count: sets.len(),
    };
    let mut state = RunState {
        slots,
        report,
        live_feed,
        // fio counts status intervals from the start of the run, across stonewalled sets.
        next_status: options.status_interval.map(|every| origin + every),
    };
    for (set_index, set) in sets.iter().enumerate() {
        if options.stop.load(Ordering::Relaxed) {
            // Ctrl-C before this set started: its jobs did not run and are not reported.
            break;
        }
        run_set(&shared, &mut state, set_index, set, observer)?;
    }
    let RunState {
        slots, mut report, ..
    } = state;
    unlink_created_files(jobs, &lock_layout(&layout), &mut report);
    lock_layout(&layout).seal_all();
    report.stats = slots
        .iter()
        .filter(|s| s.finished.is_some())
        .map(|s| (s.read.clone(), s.write.clone()))
        .collect();
    report.trim_stats = slots
        .iter()
        .filter(|s| s.finished.is_some())
        .map(|s| s.trim.clone())
        .collect();
    report.result.disk_util = disks.finish();
    if let Some(writer) = log_writer {
        crate::interval_log::finish_run(writer, jobs, &mut report, observer);
    }
    Ok(report)
}

/// Result slots: one per clone, or one per reporting group with group_reporting; and per
/// job, per clone, the slot it reports into.
fn result_slots(
    jobs: &[JobSpec],
    intervals: &[Duration],
    seeds: &[u64],
) -> (Vec<Slot>, Vec<Vec<usize>>) {
    let mut slots: Vec<Slot> = Vec::new();
    let mut slot_of: Vec<Vec<usize>> = Vec::with_capacity(jobs.len());
    let mut group_slot: std::collections::HashMap<u32, usize> = Default::default();
    for (j, job) in jobs.iter().enumerate() {
        let clones = job.numjobs.max(1);
        let interval = intervals[j].as_nanos().max(1) as u64;
        let new_slot = |clones_expected: u32| Slot {
            job_index: j,
            name: job.name.clone(),
            group_id: job.group_id,
            clones_expected,
            clones_done: 0,
            read: DirectionStats::default(),
            write: DirectionStats::default(),
            trim: DirectionStats::default(),
            syncs: 0,
            sync_latency: Default::default(),
            write_phase_ns: Nanos(0),
            verify_phase_ns: Nanos(0),
            runtime_ns: Nanos(0),
            runtime_sum_ns: Nanos(0),
            usr_ns: Nanos(0),
            sys_ns: Nanos(0),
            ctx: 0,
            fio: Default::default(),
            errors: Vec::new(),
            interrupted: false,
            verify: None,
            series: Arc::new(Mutex::new(SeriesMerger::new(interval, clones_expected))),
            seed: seeds[j],
            finished: None,
            latency_depth: None,
        };
        if job.group_reporting {
            let index = match group_slot.get(&job.group_id) {
                Some(&i) => {
                    slots[i].clones_expected += clones;
                    let merged = slots[i].clones_expected;
                    slots[i].series = Arc::new(Mutex::new(SeriesMerger::new(interval, merged)));
                    i
                }
                None => {
                    slots.push(new_slot(clones));
                    group_slot.insert(job.group_id, slots.len() - 1);
                    slots.len() - 1
                }
            };
            slot_of.push(vec![index; clones as usize]);
        } else {
            let mut indices = Vec::with_capacity(clones as usize);
            for _ in 0..clones {
                slots.push(new_slot(1));
                indices.push(slots.len() - 1);
            }
            slot_of.push(indices);
        }
    }
    (slots, slot_of)
}

/// Sets of jobs that run together: a stonewall starts a new set.
fn stonewall_sets(jobs: &[JobSpec]) -> Vec<Vec<usize>> {
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        if sets.is_empty() || job.stonewall {
            sets.push(Vec::new());
        }
        sets.last_mut().expect("a set").push(j);
    }
    sets
}

/// The run's report before any job has finished.
fn empty_report() -> RunReport {
    RunReport {
        result: RunResult {
            tool: "iofit".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            timestamp_s: iofit_model::units::UnixSeconds(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0),
            ),
            hostname: hostname(),
            disk_util: Vec::new(),
            jobs: Vec::new(),
        },
        job_index: Vec::new(),
        stats: Vec::new(),
        trim_stats: Vec::new(),
    }
}
