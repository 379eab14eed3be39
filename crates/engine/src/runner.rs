//! The runner: checks and lays out files, then runs jobs as fio does: one OS thread per clone
//! (numjobs), jobs up to the next `stonewall` together, each such set after the previous one
//! has finished. Results are finalised as soon as every clone of a result has reported, and
//! handed to the observer at once, so a caller can save them before the next job ends.

use crate::buffer::BufferPool;
use crate::clock::{Clock, FakeClock, MonotonicClock};
use crate::distribution::BlockPicker;
use crate::engine::Engine;
use crate::error::EngineError;
use crate::layout::{lay_out_counting, plan_layout, regions_for_clone, Layout};
use crate::null::{NullEngine, NullQueue};
use crate::psync::{SyncEngine, SyncFlavor};
use crate::random::mix64;
use crate::sequence::Sequence;
use crate::steadystate::SteadyStateTracker;
use crate::uring::UringEngine;
use crate::worker::{
    run_clone, CloneOutput, ClonePlan, CloneShared, LatencyTargetPlan, MeasurePlan, PacingPlan,
    ProgressCell, SizePicker,
};
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, OpenSync, SizeSpec, UringOptions};
use iofit_stats::{DirectionStats, JobResult, RunResult, SeriesMerger};
use std::collections::HashMap;
use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    pub bytes: u64,
    /// Bytes the current set will move, when every job in it is size-bounded.
    pub budget_bytes: Option<u64>,
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
    runtime_ns: u64,
    /// Longest write phase and longest verify phase of the clones that had one.
    write_phase_ns: u64,
    verify_phase_ns: u64,
    runtime_sum_ns: u64,
    usr_ns: u64,
    sys_ns: u64,
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

fn check_job(job: &JobSpec) -> Result<(), EngineError> {
    if job.iodepth == 0 {
        return Err(EngineError::invalid(
            &job.name,
            "iodepth must be at least 1",
        ));
    }
    if job.numjobs == 0 {
        return Err(EngineError::invalid(
            &job.name,
            "numjobs must be at least 1",
        ));
    }
    if job.loops == 0 {
        return Err(EngineError::invalid(&job.name, "loops must be at least 1"));
    }
    if job.block_size.max_size().as_u64() == 0 {
        return Err(EngineError::invalid(
            &job.name,
            "bs must be at least 1 byte",
        ));
    }
    if job.block_size.max_size().as_u64() > iofit_model::limits::MAX_BLOCK_SIZE_BYTES {
        return Err(EngineError::invalid(
            &job.name,
            format!(
                "bs is larger than {} bytes, the most Linux moves in one IO",
                iofit_model::limits::MAX_BLOCK_SIZE_BYTES
            ),
        ));
    }
    if job.iodepth > iofit_model::limits::MAX_IODEPTH {
        return Err(EngineError::invalid(
            &job.name,
            format!(
                "iodepth above {} is more than an io_uring ring holds; lower iodepth",
                iofit_model::limits::MAX_IODEPTH
            ),
        ));
    }
    if job.direct && job.engine != EngineKind::Null {
        let sizes: Vec<u64> = match &job.block_size {
            BlockSizeSpec::Fixed(s) => vec![s.read.as_u64(), s.write.as_u64()],
            BlockSizeSpec::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|share| share.size.as_u64())
                .collect(),
        };
        if let Some(bad) = sizes.iter().find(|&&size| size & 511 != 0) {
            return Err(EngineError::invalid(
                &job.name,
                format!("direct=1 needs block sizes in whole 512-byte sectors, and bs {bad} is not; use a multiple of 512 (4k is usual) or direct=0"),
            ));
        }
        let increment_bytes = match job.start.increment {
            Some(iofit_model::placement::FileAmount::Bytes(bytes)) => bytes,
            _ => 0,
        };
        if (job.offset.as_u64() | increment_bytes) & 511 != 0 {
            return Err(EngineError::invalid(
                &job.name,
                "direct=1 needs offset= and offset_increment= in whole 512-byte sectors; use a multiple of 4k",
            ));
        }
    }
    crate::data::check_job(job)?;
    if !(0.0..=100.0).contains(&job.rwmix_read_pct) {
        return Err(EngineError::invalid(
            &job.name,
            "rwmixread must be within 0..100",
        ));
    }
    Ok(())
}

fn size_picker(spec: &BlockSizeSpec) -> SizePicker {
    match spec {
        BlockSizeSpec::Fixed(sizes) => SizePicker::Fixed {
            read: sizes.read.as_u64() as u32,
            write: sizes.write.as_u64() as u32,
        },
        BlockSizeSpec::Split { read, write } => {
            let table = |shares: &Vec<iofit_model::job::BlockSizeShare>| {
                let total: f64 = shares
                    .iter()
                    .map(|s| s.pct)
                    .sum::<f64>()
                    .max(f64::MIN_POSITIVE);
                let mut acc = 0.0;
                shares
                    .iter()
                    .map(|s| {
                        acc += s.pct * 100.0 / total;
                        (acc, s.size.as_u64() as u32)
                    })
                    .collect::<Vec<_>>()
            };
            let (mut r, mut w) = (table(read), table(write));
            // A direction without a split uses the other's (fio applies one list to both).
            if r.is_empty() {
                r = w.clone();
            }
            if w.is_empty() {
                w = r.clone();
            }
            SizePicker::Split { read: r, write: w }
        }
    }
}

/// The seed a job's clones derive theirs from: fixed with randrepeat, else from the clock.
fn base_seed(job: &JobSpec, job_index: usize) -> u64 {
    if job.randrepeat {
        // Repeatable, yet different per job (as fio seeds by thread number), so jobs sharing a
        // file do not issue the same offsets in lockstep.
        mix64(job.random_seed.wrapping_add(job_index as u64))
    } else {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        mix64(nanos ^ job.random_seed)
    }
}

/// One picker per file for a non-uniform `random_distribution`, over the file's blocks of the
/// job's smallest block size (the alignment of random offsets).
fn block_pickers(
    job: &JobSpec,
    regions: &[(std::path::PathBuf, u64, u64)],
    align: u64,
    seed: u64,
) -> Result<Vec<Option<BlockPicker>>, EngineError> {
    regions
        .iter()
        .enumerate()
        .map(|(index, (_, _, len))| {
            let blocks = (len / align.max(1)).max(1);
            BlockPicker::new(
                &job.random_distribution,
                blocks,
                align,
                seed ^ mix64(index as u64 + 7),
            )
            .map_err(|why| EngineError::invalid(&job.name, format!("random_distribution: {why}")))
        })
        .collect()
}

/// The clone's (file, offset, length) regions: from the layout's rules, or for the null
/// engine (no file is touched) the job's absolute size at the clone's offset.
fn clone_regions(job: &JobSpec, clone: u32) -> Result<Vec<(PathBuf, u64, u64)>, EngineError> {
    Ok(if job.engine == EngineKind::Null {
        // The null engine touches no file, so it needs an explicit size and nothing on disk.
        let length = match job.size {
            Some(SizeSpec::Bytes(b)) => b.as_u64(),
            _ => {
                return Err(EngineError::invalid(
                    &job.name,
                    "ioengine=null needs an absolute size= (for example size=1g)",
                ))
            }
        };
        let min_bs = job.block_size.min_size().as_u64().max(1);
        let offset = job
            .start
            .for_clone(job.offset.as_u64(), clone, length, min_bs);
        job.files_for_clone(clone)
            .into_iter()
            .map(|path| (path, offset, length))
            .collect::<Vec<_>>()
    } else {
        regions_for_clone(job, clone)?
            .into_iter()
            .map(|r| (r.path, r.offset, r.length))
            .collect()
    })
}

/// Bytes one pass over `regions` moves: each file's length in whole blocks, or for sequential
/// IO with holes the IOs that fit in one pass.
fn pass_bytes(job: &JobSpec, regions: &[(PathBuf, u64, u64)]) -> u64 {
    let mut region_bytes: u64 = regions.iter().map(|(_, _, len)| *len).sum();
    // fio rounds each file's IO size down to whole blocks: a 300k file read in 64k blocks is
    // 4 IOs (256k), not a fifth past its end.
    if let BlockSizeSpec::Fixed(sizes) = &job.block_size {
        let (read, write) = (sizes.read.as_u64(), sizes.write.as_u64());
        let bs = match (job.rw.has_reads(), job.rw.has_writes()) {
            (true, false) => read,
            (false, true) => write,
            _ if read == write => read,
            _ => 0,
        };
        if bs > 0 {
            region_bytes = regions.iter().map(|(_, _, len)| len / bs * bs).sum();
        }
    }
    // Sequential IO with holes (rw=read:8k) makes one pass over each file and ends, as fio's
    // does: the bytes moved are the IOs that fit in one pass, not the region's size.
    if let (BlockSizeSpec::Fixed(sizes), true) = (
        &job.block_size,
        job.seq_add_bytes > 0 && !job.rw.is_random() && job.io_limit.is_none(),
    ) {
        let bs = sizes.read.as_u64().max(sizes.write.as_u64()).max(1);
        let step = bs + job.seq_add_bytes as u64;
        region_bytes = regions
            .iter()
            .map(|(_, _, len)| {
                if *len < bs {
                    0
                } else {
                    ((len - bs) / step + 1) * bs
                }
            })
            .sum();
    }
    region_bytes
}

pub(crate) fn clone_plan(job: &JobSpec, clone: u32, seed: u64) -> Result<ClonePlan, EngineError> {
    let regions = clone_regions(job, clone)?;
    let region_bytes = pass_bytes(job, &regions);
    // fio loops: each loop is its own pass (each_loop.rs), with one loop's budget.
    let loops = match crate::each_loop::passes(job) {
        Some(_) => 1,
        None => job.loops.max(1) as u64,
    };
    let budget_bytes = if (job.time_based && job.runtime.is_some()) || job.replay.is_some() {
        // A replay ends with its log.
        None
    } else {
        Some(job.io_limit.map(|b| b.as_u64()).unwrap_or(region_bytes) * loops)
    };
    let depth = job.effective_iodepth();
    let sizes = size_picker(&job.block_size);
    let align = job
        .block_align
        .map(|a| a.as_u64())
        .unwrap_or(sizes.min_size() as u64)
        .max(1);
    let pickers = block_pickers(job, &regions, align, seed)?;
    let lengths: Vec<u64> = regions.iter().map(|(_, _, len)| *len).collect();
    crate::file_service::FileChooser::new(&job.file_service, &lengths, seed)
        .map_err(|why| EngineError::invalid(&job.name, format!("file_service_type: {why}")))?;
    Ok(ClonePlan {
        errors: job.thread_control.errors.clone(),
        trim: match (job.rw.has_trims(), job.rw.is_trimwrite()) {
            (false, _) => crate::worker::TrimMode::Off,
            (true, false) => crate::worker::TrimMode::Trim,
            (true, true) => crate::worker::TrimMode::TrimWrite,
        },
        job_name: job.name.clone(),
        clone_index: clone,
        files: regions,
        sizes,
        rwmix_read_pct: job.rwmix_read_pct,
        random_pct: job.random_pct,
        norandommap: job.norandommap,
        align,
        sequence: Sequence {
            seq_add_bytes: job.seq_add_bytes,
            seq_add_jitter_bytes: job.seq_add_jitter_bytes,
            random_run: job.random_run.max(1),
            identical: job.repeat_offset_in_run,
        },
        pickers,
        seed: seed ^ mix64(clone as u64 + 1),
        depth,
        start_delay_ns: job.start_delay.as_nanos() as u64,
        ramp_ns: job.ramp_time.as_nanos() as u64,
        runtime_ns: job.runtime.map(|d| d.as_nanos() as u64),
        budget_bytes,
        rate_iops: [job.rate_iops.read, job.rate_iops.write],
        rate_bytes_per_second: [
            job.rate_bytes_per_second.read,
            job.rate_bytes_per_second.write,
        ],
        fsync_every: job.fsync_every,
        fdatasync_every: job.fdatasync_every,
        end_fsync: job.end_fsync,
        interval_ns: job.log_interval.as_nanos().max(1) as u64,
        // At most a 32nd of the queue per submit call: at QD32 each IO goes to the kernel as
        // soon as it is prepared (as fio does by default), deeper queues share a syscall among
        // a few IOs. Measured on a virtio disk at QD32 (BENCHMARKS.md): whole-queue batches
        // added ~100 us to every IO and cost IOPS; batches of 4 saved 15% CPU per IO but
        // lost ~3% IOPS; one IO per call matched fio's IOPS at 0.83x its CPU per IO.
        submit_batch: job
            .pacing
            .submit_batch
            .map_or((depth as usize / 32).max(1), |b| b.max(1) as usize),
        pacing: PacingPlan {
            latency_target: job.latency_target.as_ref().map(|t| LatencyTargetPlan {
                target_ns: t.target.as_nanos() as u64,
                window_ns: t.window.as_nanos() as u64,
                percentile: t.percentile,
                keep_running: t.keep_running,
            }),
            serialize_overlap: job.serialize_overlap,
            ..pacing_plan(&job.pacing)
        },
        fsync_on_close: job.file_sync.fsync_on_close,
        end_syncfs: job.file_sync.end_syncfs,
        invalidate: job.file_sync.invalidate,
        io_log: None,
        interval_log: None,
        cmdprio: job.cmdprio.clone(),
        fill_device: job.fill_device,
        replay: job.replay.clone(),
        write_iolog: None,
        ioprio: job
            .thread_control
            .io_priority
            .map_or(0, |p| (u16::from(p.class) << 13) | u16::from(p.level)),
        data: crate::data::data_plan(job, clone)?,
        measure: measure_plan(&job.measurement),
        file_service: job.file_service.clone(),
        earlier_loops: Default::default(),
        earlier_measured: None,
    })
}

/// fio `dedupe_global`: one pool of contents for every clone of every job that sets it, its
/// working set a share of all their write blocks together.
fn share_dedupe(jobs: &[JobSpec], plans: &mut [Vec<ClonePlan>]) {
    use iofit_model::data::DedupeSpec;
    let global_pct = |job: &JobSpec| match &job.data.content.dedupe {
        Some(DedupeSpec::Fio {
            global: true,
            working_set_pct,
            ..
        }) => Some(*working_set_pct),
        _ => None,
    };
    let mut blocks = 0u64;
    let mut working_set_pct = None;
    for (job, clones) in jobs.iter().zip(plans.iter()) {
        if let Some(pct) = global_pct(job) {
            working_set_pct = working_set_pct.or(pct);
            for plan in clones {
                let bytes: u64 = plan.files.iter().map(|f| f.2).sum();
                blocks += bytes / plan.data.write_bytes.max(1);
            }
        }
    }
    if blocks == 0 {
        return;
    }
    let shared = Arc::new(iofit_blockdata::content::SharedDedupe::new(
        0x00de_d0be_910b_a100,
        blocks,
        working_set_pct,
    ));
    for (job, clones) in jobs.iter().zip(plans.iter_mut()) {
        if global_pct(job).is_some() {
            for plan in clones {
                plan.data.shared_dedupe = Some(Arc::clone(&shared));
            }
        }
    }
}

fn measure_plan(m: &iofit_model::job::Measurement) -> MeasurePlan {
    let ns = |d: Option<Duration>| d.map(|d| d.as_nanos().min(u64::MAX as u128) as u64);
    MeasurePlan {
        lat: !m.disable_lat,
        clat: !m.disable_clat,
        slat: !m.disable_slat,
        max_latency_ns: [ns(m.max_latency.read), ns(m.max_latency.write)],
    }
}

/// Creates the log files and hands each clone its writers: the per-IO logs (fio's logs
/// without `log_avg_msec`) and the interval logs (averaged and histogram logs, streamed by
/// [`crate::interval_log`]), `PREFIX_KIND.N.log` with N the clone's number in the run as fio
/// counts threads, or one `PREFIX_KIND.log` for all clones with `per_job_logs=0`. Returns the
/// interval logs' writer and each job's interval (longer than asked when the logs would write
/// too much: [`crate::interval_log::paced_intervals`]).
fn open_io_logs(
    jobs: &[JobSpec],
    plans: &mut [Vec<ClonePlan>],
    allow_overwrite: bool,
) -> Result<(Option<crate::interval_log::LogWriter>, Vec<Duration>), EngineError> {
    let intervals = crate::interval_log::paced_intervals(jobs);
    let (writer, clone_logs) = crate::interval_log::open(jobs, &intervals, allow_overwrite)?;
    for ((clones, logs), interval) in plans.iter_mut().zip(clone_logs).zip(&intervals) {
        for (plan, log) in clones.iter_mut().zip(logs) {
            plan.interval_ns = interval.as_nanos().max(1) as u64;
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
fn check_verify_states(
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

/// fio's default `rate_cycle`: minimum rates are checked over 1000 ms windows.
const DEFAULT_RATE_CYCLE: Duration = Duration::from_millis(1000);

fn pacing_plan(pacing: &iofit_model::job::Pacing) -> PacingPlan {
    PacingPlan {
        think_ns: pacing.think_time.as_nanos() as u64,
        think_spin_ns: pacing.think_spin.as_nanos() as u64,
        think_blocks: pacing.think_blocks.max(1),
        min_bytes_per_second: [
            pacing.min_bytes_per_second.read,
            pacing.min_bytes_per_second.write,
        ],
        min_iops: [pacing.min_iops.read, pacing.min_iops.write],
        rate_cycle_ns: pacing.rate_cycle.unwrap_or(DEFAULT_RATE_CYCLE).as_nanos() as u64,
        poisson: pacing.poisson,
        latency_target: None,
        flow: None,
        serialize_overlap: false,
    }
}

/// The run's layout; a clone that panicked while holding it left nothing half-changed that
/// the others could not use (a relayout's partial file is its own), so a poisoned lock is taken.
fn lock_layout(layout: &Mutex<Layout>) -> std::sync::MutexGuard<'_, Layout> {
    layout
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The clone's files: re-opens of the descriptors checked at layout, never the names again.
fn open_files(job: &JobSpec, plan: &ClonePlan, layout: &Layout) -> Result<Vec<File>, EngineError> {
    if job.engine == EngineKind::Null {
        return Ok(Vec::new());
    }
    plan.files
        .iter()
        .map(|(path, _, _)| {
            let write = job.rw.has_writes() || crate::layout::modifies_files(job);
            layout.open_for_job_with(path, write, job.direct, sync_flags(job))
        })
        .collect()
}

/// fio's `pre_read`: the clone's region of every file read into the page cache before the
/// job starts, through the job's own (buffered) descriptors. A direct job reads nothing: its
/// IO bypasses the cache (the job's notes say so).
fn pre_read(job: &JobSpec, plan: &ClonePlan, files: &[File]) -> Result<(), EngineError> {
    use std::os::unix::fs::FileExt;
    if !job.file_sync.pre_read || job.direct || job.engine == EngineKind::Null {
        return Ok(());
    }
    let mut buffer = vec![0u8; 1 << 20];
    for (file, (path, start, len)) in files.iter().zip(&plan.files) {
        let mut done = 0u64;
        while done < *len {
            let want = (*len - done).min(buffer.len() as u64) as usize;
            match file.read_at(&mut buffer[..want], start + done) {
                Ok(0) => break,
                Ok(n) => done += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(EngineError::from_io("pre_read: cannot read", path, e)),
            }
        }
    }
    Ok(())
}

/// fio's `invalidate` and `fadvise_hint`, applied as fio's `td_io_open_file` does at every open:
/// the clone's region of each file is dropped from the page cache (POSIX_FADV_DONTNEED), then
/// the job's access pattern is declared. As in fio, nothing is synced first: clean pages (the
/// layout's, which it fsyncs, or those after an `end_fsync`) are dropped, while dirty pages a
/// previous job left only start their writeback and stay cached. The kernel may also keep
/// pages another process has mapped or locked, which fio cannot drop either.
fn cache_hints(job: &JobSpec, plan: &ClonePlan, files: &[File]) -> Result<(), EngineError> {
    use iofit_model::job::FadviseHint;
    use std::os::fd::AsRawFd;
    if job.engine == EngineKind::Null {
        return Ok(());
    }
    for (file, (path, start, len)) in files.iter().zip(&plan.files) {
        let (offset, length) = (*start as libc::off_t, *len as libc::off_t);
        if job.file_sync.invalidate {
            // SAFETY: posix_fadvise reads only its integer arguments; the descriptor is open.
            let rc = unsafe {
                libc::posix_fadvise(file.as_raw_fd(), offset, length, libc::POSIX_FADV_DONTNEED)
            };
            if rc != 0 {
                let e = std::io::Error::from_raw_os_error(rc);
                return Err(EngineError::from_io(
                    "invalidate: cannot drop the cache of",
                    path,
                    e,
                ));
            }
        }
        if let Some(hint) = job.file_sync.write_hint {
            set_write_hint(file, job.direct, hint)
                .map_err(|e| EngineError::from_io("fcntl write hint", path, e))?;
        }
        let advice = match job.file_sync.fadvise {
            None => continue,
            Some(FadviseHint::Random) => libc::POSIX_FADV_RANDOM,
            Some(FadviseHint::Sequential) => libc::POSIX_FADV_SEQUENTIAL,
        };
        // fio only warns when the hint fails; so does nothing here (it is advice).
        // SAFETY: as above.
        let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), offset, length, advice) };
    }
    Ok(())
}

/// fio's `write_hint`, set as fio sets it: on the open file for direct IO
/// (F_SET_FILE_RW_HINT, which kernels since 5.17 refuse with EINVAL, so the job fails as
/// fio's does), on the inode for buffered IO (F_SET_RW_HINT).
fn set_write_hint(file: &File, direct: bool, hint: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // linux/fcntl.h: F_LINUX_SPECIFIC_BASE (1024) + 12 and + 14 (libc exports neither).
    const F_SET_RW_HINT: libc::c_int = 1024 + 12;
    const F_SET_FILE_RW_HINT: libc::c_int = 1024 + 14;
    let command = if direct {
        F_SET_FILE_RW_HINT
    } else {
        F_SET_RW_HINT
    };
    // SAFETY: the command reads one u64 through the pointer, which points at `hint`, alive for
    // the call; the descriptor is open.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), command, &hint as *const u64) };
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// fio's `sync=`: O_SYNC or O_DSYNC on every open of the job's files.
fn sync_flags(job: &JobSpec) -> i32 {
    match job.file_sync.open_sync {
        OpenSync::None => 0,
        OpenSync::Sync => libc::O_SYNC,
        OpenSync::Dsync => libc::O_DSYNC,
    }
}

/// Runs the clone on the engine the job names; returns the output.
fn run_engine<C: Clock>(
    job_engine: EngineKind,
    uring: &UringOptions,
    files: Vec<File>,
    plan: &ClonePlan,
    clock: &C,
    shared: &CloneShared<'_>,
) -> CloneOutput {
    let max_bs = match &plan.sizes {
        SizePicker::Fixed { read, write } => (*read).max(*write),
        SizePicker::Split { read, write } => read
            .iter()
            .chain(write.iter())
            .map(|(_, s)| *s)
            .max()
            .unwrap_or(4096),
    } as usize;
    fn go<E: Engine, C: Clock>(
        mut engine: E,
        plan: &ClonePlan,
        clock: &C,
        shared: &CloneShared<'_>,
    ) -> CloneOutput {
        run_clone(&mut engine, clock, plan, shared)
    }
    match job_engine {
        // fio's null engine completes inline at iodepth 1 and at the next reap when deeper.
        EngineKind::Null if plan.depth <= 1 => go(NullEngine::new(), plan, clock, shared),
        EngineKind::Null => go(NullQueue::new(plan.depth as usize), plan, clock, shared),
        EngineKind::Psync
        | EngineKind::Sync
        | EngineKind::Pvsync
        | EngineKind::Falloc
        | EngineKind::Ftruncate => {
            let flavor = match job_engine {
                EngineKind::Sync => SyncFlavor::Sync,
                EngineKind::Pvsync => SyncFlavor::Pvsync,
                EngineKind::Falloc => SyncFlavor::Falloc,
                EngineKind::Ftruncate => SyncFlavor::Ftruncate,
                _ => SyncFlavor::Psync,
            };
            match BufferPool::new(1, max_bs, plan.seed) {
                Ok(buffers) => go(SyncEngine::new(flavor, files, buffers), plan, clock, shared),
                Err(e) => setup_failed(e.to_string()),
            }
        }
        EngineKind::IoUring | EngineKind::Libaio => {
            let buffers = match BufferPool::new(plan.depth as usize, max_bs, plan.seed) {
                Ok(buffers) => buffers,
                Err(e) => return setup_failed(e.to_string()),
            };
            match UringEngine::with_options(files, buffers, plan.depth, uring) {
                Ok(engine) => go(engine, plan, clock, shared),
                Err(e) if e.raw_os_error() == Some(libc::EMFILE) => setup_failed(format!(
                    "cannot set up io_uring: {e} (the open-file limit, ulimit -n, is too low for this many clones)"
                )),
                Err(e) if !uring.is_default() => setup_failed(uring_refused(uring, &e)),
                Err(e) => setup_failed(format!(
                    "io_uring is not available here ({e}); use ioengine=psync"
                )),
            }
        }
    }
}

/// The kernel refused a ring with the job's io_uring options: which ones, and the errno.
fn uring_refused(uring: &UringOptions, e: &std::io::Error) -> String {
    let mut asked = Vec::new();
    if uring.sq_thread_poll {
        asked.push("sqthread_poll (IORING_SETUP_SQPOLL)");
    }
    if uring.hipri {
        asked.push("hipri (IORING_SETUP_IOPOLL)");
    }
    if uring.fixed_buffers == Some(true) {
        asked.push("fixedbufs (IORING_REGISTER_BUFFERS)");
    }
    if uring.register_files == Some(true) {
        asked.push("registerfiles (IORING_REGISTER_FILES)");
    }
    format!(
        "the kernel refused the io_uring setup the job asks for, {}: {e}; remove the option to run without it",
        asked.join(", ")
    )
}

fn setup_failed(message: String) -> CloneOutput {
    CloneOutput {
        error: Some(message),
        ..CloneOutput::default()
    }
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

/// Every clone's plan, per job; fio's flow groups (global to the run: jobs join when they
/// start, leave when done) shared by the clones of the jobs that name them.
fn plan_clones(jobs: &[JobSpec], seeds: &[u64]) -> Result<Vec<Vec<ClonePlan>>, EngineError> {
    let mut plans: Vec<Vec<ClonePlan>> = Vec::with_capacity(jobs.len());
    let mut flow_groups = crate::flow::FlowGroups::default();
    for (job, seed) in jobs.iter().zip(seeds) {
        let mut clones = (0..job.numjobs.max(1))
            .map(|c| clone_plan(job, c, *seed))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(flow) = job.flow.as_ref().filter(|f| f.weight > 0) {
            let group = flow_groups.get(flow.id);
            for plan in &mut clones {
                plan.pacing.flow = Some(crate::flow::FlowPlan {
                    group: std::sync::Arc::clone(&group),
                    weight: u64::from(flow.weight),
                    sleep_ns: flow.sleep.as_nanos() as u64,
                });
            }
        }
        plans.push(clones);
    }
    Ok(plans)
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
            write_phase_ns: 0,
            verify_phase_ns: 0,
            runtime_ns: 0,
            runtime_sum_ns: 0,
            usr_ns: 0,
            sys_ns: 0,
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
            timestamp_s: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            hostname: hostname(),
            disk_util: Vec::new(),
            jobs: Vec::new(),
        },
        job_index: Vec::new(),
        stats: Vec::new(),
        trim_stats: Vec::new(),
    }
}

/// What every set of a run shares: the jobs, their clones' plans, the slot each clone
/// reports into, the run's options and layout, and its clock origin.
struct RunShared<'a> {
    jobs: &'a [JobSpec],
    plans: &'a [Vec<ClonePlan>],
    slot_of: &'a [Vec<usize>],
    options: &'a RunOptions,
    layout: &'a Arc<Mutex<Layout>>,
    origin: Instant,
    set_count: usize,
}

/// The run's results as the sets fill them in.
struct RunState {
    slots: Vec<Slot>,
    report: RunReport,
    live_feed: crate::live::LiveFeed,
    next_status: Option<Instant>,
}

/// The longest planned time of a set's jobs (runtime, ramp and start delay; None when one
/// has no runtime) and the bytes its clones will move (None when one has no budget).
fn set_budget(
    jobs: &[JobSpec],
    plans: &[Vec<ClonePlan>],
    set: &[usize],
) -> (Option<Duration>, Option<u64>) {
    let planned = set
        .iter()
        .map(|&j| {
            jobs[j]
                .runtime
                .map(|r| r + jobs[j].ramp_time + jobs[j].start_delay)
        })
        .try_fold(Duration::ZERO, |acc, d| d.map(|d| acc.max(d)));
    let budget_bytes = set
        .iter()
        .flat_map(|&j| {
            let passes = u64::from(crate::each_loop::passes(&jobs[j]).unwrap_or(1));
            plans[j]
                .iter()
                .map(move |p| p.budget_bytes.map(|b| b * passes))
        })
        .try_fold(0u64, |acc, b| b.map(|b| acc + b));
    (planned, budget_bytes)
}

/// Runs one set of jobs (those between two stonewalls) to its end: every clone started at
/// once, results taken as they come, progress and status reported while they run.
fn run_set(
    shared: &RunShared<'_>,
    state: &mut RunState,
    set_index: usize,
    set: &[usize],
    observer: &mut dyn Observer,
) -> Result<(), EngineError> {
    let RunShared {
        jobs,
        plans,
        slot_of,
        options,
        set_count,
        ..
    } = *shared;
    let RunState {
        slots,
        report,
        live_feed,
        next_status,
    } = state;
    let (planned, budget_bytes) = set_budget(jobs, plans, set);
    let cells: Arc<Vec<ProgressCell>> = Arc::new(
        (0..set.iter().map(|&j| plans[j].len()).sum::<usize>())
            .map(|_| ProgressCell::default())
            .collect(),
    );
    let (tx, rx) = mpsc::channel::<(usize, usize, CloneOutput)>();
    // One flag per job of the set: set, the job's clones end as when their runtime is
    // over (steady state reached, or another job's exitall).
    let end_flags: Arc<Vec<AtomicBool>> =
        Arc::new(set.iter().map(|_| AtomicBool::new(false)).collect());
    // Per cell: the clone's output was taken into its slot (its snapshot no longer counts).
    let mut absorbed = vec![false; cells.len()];
    // Every clone of the set gets ready, then all start at once (see `gate`).
    let gate = Arc::new(crate::gate::StartGate::new());
    let Spawned {
        mut steady,
        mut handles,
        cell_slots,
        spawned,
    } = spawn_set(shared, slots, set, &cells, &tx, &end_flags, &gate)?;
    let cell = cell_slots.len();
    drop(tx);
    if let Some(live) = &options.live {
        live.start_set(&cells, &cell_slots);
    }
    // Time zero of the set: every clone's runtime, ramp and start delay count from here.
    let set_start = gate.open_when_ready(spawned, &options.stop);
    let mut outstanding = cell;
    let mut stop_seen: Option<Instant> = None;
    while outstanding > 0 {
        if stop_seen.is_none() && options.stop.load(Ordering::Relaxed) {
            stop_seen = Some(Instant::now());
        }
        let wait = match stop_seen {
            Some(seen) => STOP_GRACE.saturating_sub(seen.elapsed()),
            None => PROGRESS_EVERY,
        };
        if wait.is_zero() {
            // A clone blocked in the kernel past the grace: report without it.
            let unfinished = set.iter().flat_map(|&j| slot_of[j].iter().copied());
            give_up(slots, unfinished, jobs);
            publish_finished(slots, report, observer, options);
            // Its thread is left to end on its own; it owns everything it touches.
            handles.clear();
            break;
        }
        sample_steady_state(&mut steady, &cells, &end_flags, set_start);
        // Wake for the next steady-state sample too (at least 1 ms on).
        let next_sample = steady
            .iter()
            .filter(|s| !s.tracker.attained())
            .map(|s| {
                Duration::from_nanos(s.tracker.next_sample_ns())
                    .saturating_sub(set_start.elapsed())
                    .max(Duration::from_millis(1))
            })
            .fold(PROGRESS_EVERY, Duration::min);
        let until_status = next_status.map_or(PROGRESS_EVERY, |at| {
            at.saturating_duration_since(Instant::now())
        });
        match rx.recv_timeout(wait.min(next_sample).min(until_status)) {
            Ok((slot_index, cell_index, output)) => {
                absorbed[cell_index] = true;
                outstanding -= 1;
                let slot = &mut slots[slot_index];
                let taken = absorb(slot, output);
                if let Some(live) = &options.live {
                    live_feed.absorbed(live, cell_index, slot_index, taken);
                }
                if slot.clones_done == slot.clones_expected {
                    let job = &jobs[slot.job_index];
                    let mut result = finish_slot(slot, job);
                    result.steadystate = steady
                        .iter()
                        .find(|s| s.job == slot.job_index)
                        .map(|s| s.tracker.result());
                    slot.finished = Some(result);
                    publish_finished(slots, report, observer, options);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (ios, bytes) = cells.iter().fold((0, 0), |(i, b), c| {
                    (
                        i + c.ios.load(Ordering::Relaxed),
                        b + c.bytes.load(Ordering::Relaxed),
                    )
                });
                observer.progress(&Progress {
                    set_index,
                    sets: set_count,
                    elapsed: set_start.elapsed(),
                    planned,
                    ios,
                    bytes,
                    budget_bytes,
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if let (Some(at), Some(every), None) = (*next_status, options.status_interval, stop_seen) {
            if Instant::now() >= at {
                let interim = Interim {
                    slots,
                    cells: &cells,
                    cell_slots: &cell_slots,
                    absorbed: &absorbed,
                    jobs,
                };
                observer.status(&interim.report(report));
                *next_status = Some(at + every);
            }
        }
    }
    for handle in handles {
        if handle.join().is_err() {
            return Err(EngineError::Setup {
                engine: "runner",
                message: "a worker thread panicked".to_string(),
            });
        }
    }
    Ok(())
}

/// A set's clones once started: the steady-state trackers of its jobs, the threads, the
/// slot each progress cell reports into, and how many threads run.
struct Spawned {
    steady: Vec<SteadyJob>,
    handles: Vec<std::thread::JoinHandle<()>>,
    cell_slots: Vec<usize>,
    spawned: usize,
}

/// Opens every clone's files of a set and starts its thread (each waits at `gate`); a clone
/// whose files fail to open reports that at once through `tx`, as do create_only clones.
fn spawn_set(
    shared: &RunShared<'_>,
    slots: &[Slot],
    set: &[usize],
    cells: &Arc<Vec<ProgressCell>>,
    tx: &mpsc::Sender<(usize, usize, CloneOutput)>,
    end_flags: &Arc<Vec<AtomicBool>>,
    gate: &Arc<crate::gate::StartGate>,
) -> Result<Spawned, EngineError> {
    let RunShared {
        jobs,
        plans,
        slot_of,
        options,
        layout,
        origin,
        ..
    } = *shared;
    let mut steady: Vec<SteadyJob> = Vec::new();
    let mut handles = Vec::new();
    let mut cell = 0usize;
    // The slot each progress cell's clone reports into.
    let mut cell_slots: Vec<usize> = Vec::new();
    let mut spawned = 0usize;
    for (position, &j) in set.iter().enumerate() {
        let job = &jobs[j];
        if let Some(spec) = &job.steady_state {
            steady.push(SteadyJob {
                job: j,
                position,
                cells: cell..cell + plans[j].len(),
                tracker: SteadyStateTracker::new(spec, 0),
            });
        }
        for (c, plan) in plans[j].iter().enumerate() {
            let slot = slot_of[j][c];
            let opened = open_files(job, plan, &lock_layout(layout)).and_then(|files| {
                pre_read(job, plan, &files)?;
                cache_hints(job, plan, &files)?;
                Ok(files)
            });
            if job.file_sync.create_only {
                // fio's create_only: the files are laid out; no IO runs or is reported.
                let output = match opened {
                    Ok(_) => CloneOutput::default(),
                    Err(e) => setup_failed(e.to_string()),
                };
                let _ = tx.send((slot, cell, output));
                cell_slots.push(slot);
                cell += 1;
                continue;
            }
            let files = match opened {
                Ok(files) => files,
                Err(e) => {
                    // Tell the loop below this clone is done, with the error.
                    let _ = tx.send((
                        slot,
                        cell,
                        CloneOutput {
                            error: Some(e.to_string()),
                            ..CloneOutput::default()
                        },
                    ));
                    cell_slots.push(slot);
                    cell += 1;
                    continue;
                }
            };
            let plan = plan.clone();
            let tx = tx.clone();
            let stop = Arc::clone(&options.stop);
            let cells = Arc::clone(cells);
            let series = Arc::clone(&slots[slot].series);
            let engine = job.engine;
            // fio numbers threads over every clone of every job, in job order.
            let thread_index = plans[..j].iter().map(Vec::len).sum::<usize>() + c;
            let thread_control = job.thread_control.for_thread(thread_index);
            let uring = job.uring.clone();
            let end_flags = Arc::clone(end_flags);
            let gate_of_set = Arc::clone(gate);
            let clock_choice = options.clock;
            let my_cell = cell;
            let each_loop = crate::each_loop::passes(job).map(|loops| {
                let unlink = crate::each_loop::unlinks_between_loops(job);
                (loops, unlink, Arc::clone(layout), job.clone())
            });
            cell_slots.push(slot);
            cell += 1;
            let start = CloneStart {
                thread_name: format!("{}.{}", job.name, c),
                plan,
                files,
                tx,
                stop,
                cells,
                series,
                engine,
                thread_control,
                uring,
                end_flags,
                gate_of_set,
                clock_choice,
                my_cell,
                each_loop,
                slot,
                position,
                origin,
            };
            handles.push(spawn_clone(start, gate)?);
            spawned += 1;
        }
    }
    Ok(Spawned {
        steady,
        handles,
        cell_slots,
        spawned,
    })
}

/// Everything one clone's thread takes with it.
struct CloneStart {
    thread_name: String,
    plan: ClonePlan,
    files: Vec<File>,
    tx: mpsc::Sender<(usize, usize, CloneOutput)>,
    stop: Arc<AtomicBool>,
    cells: Arc<Vec<ProgressCell>>,
    series: Arc<Mutex<SeriesMerger>>,
    engine: EngineKind,
    thread_control: iofit_model::job::ThreadControl,
    uring: UringOptions,
    end_flags: Arc<Vec<AtomicBool>>,
    gate_of_set: Arc<crate::gate::StartGate>,
    clock_choice: ClockChoice,
    my_cell: usize,
    each_loop: Option<(u32, bool, Arc<Mutex<Layout>>, JobSpec)>,
    slot: usize,
    position: usize,
    origin: Instant,
}

/// Starts one clone's thread: it waits at the set's gate, runs the clone (its loops as
/// separate passes where fio's each-loop rules say so) and sends its output.
fn spawn_clone(
    start: CloneStart,
    gate: &crate::gate::StartGate,
) -> Result<std::thread::JoinHandle<()>, EngineError> {
    let CloneStart {
        thread_name,
        plan,
        files,
        tx,
        stop,
        cells,
        series,
        engine,
        thread_control,
        uring,
        end_flags,
        gate_of_set,
        clock_choice,
        my_cell,
        each_loop,
        slot,
        position,
        origin,
    } = start;
    let ends_on_error = Arc::clone(&end_flags);
    std::thread::Builder::new()
        .name(thread_name)
        .spawn(move || {
            // Timer slack of 1 us so that rate-limited sleeps end on time.
            // SAFETY: PR_SET_TIMERSLACK takes integer arguments only and changes
            // this thread's timer slack, nothing else.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0, 0, 0) };
            // Dropped unused if the clone fails before its first IO: it counts
            // as ready, so the gate never waits for it.
            let ticket = crate::gate::StartTicket::new(&gate_of_set);
            let shared = CloneShared {
                stop: &stop,
                end_set: Some(&end_flags[position]),
                progress: &cells[my_cell],
                series: &series,
                start: Some(&ticket),
            };
            if let Err(e) = crate::threads::apply_to_current_thread(&thread_control) {
                let _ = tx.send((slot, my_cell, setup_failed(e.to_string())));
                return;
            }
            let run_pass = |files: Vec<File>, plan: &ClonePlan| match clock_choice {
                ClockChoice::Monotonic => {
                    let clock = MonotonicClock::with_origin(origin);
                    run_engine(engine, &uring, files, plan, &clock, &shared)
                }
                ClockChoice::Fake { step_ns } => {
                    let clock = FakeClock::new(step_ns);
                    run_engine(engine, &uring, files, plan, &clock, &shared)
                }
            };
            let output = match each_loop {
                None => run_pass(files, &plan),
                Some((loops, unlink, layout, job)) => {
                    // fio's clear_io_state closes the files between loops; they
                    // are opened again (after a new layout with unlink_each_loop).
                    let relay_out = || {
                        let mut layout = lock_layout(&layout);
                        if !unlink {
                            let files = open_files(&job, &plan, &layout)?;
                            cache_hints(&job, &plan, &files)?;
                            return Ok(files);
                        }
                        let paths: Vec<_> = plan.files.iter().map(|f| f.0.clone()).collect();
                        layout.relay_out(&paths, &stop)?;
                        let files = open_files(&job, &plan, &layout)?;
                        pre_read(&job, &plan, &files)?;
                        cache_hints(&job, &plan, &files)?;
                        Ok(files)
                    };
                    let ended = || {
                        stop.load(Ordering::Relaxed) || end_flags[position].load(Ordering::Relaxed)
                    };
                    crate::each_loop::run_loops(loops, &plan, files, ended, relay_out, run_pass)
                }
            };
            if thread_control.exit_all
                || (thread_control.exit_all_on_error && output.error.is_some())
            {
                // fio exitall: the first job of the set to finish ends the others.
                for flag in end_flags.iter() {
                    flag.store(true, Ordering::Relaxed);
                }
            }
            cells[my_cell].finished.store(true, Ordering::Relaxed);
            let _ = tx.send((slot, my_cell, output));
        })
        .map_err(|e| {
            // The clones already started must not wait at the gate for ever.
            for flag in ends_on_error.iter() {
                flag.store(true, Ordering::Relaxed);
            }
            gate.open_now();
            EngineError::Setup {
                engine: "runner",
                message: format!("cannot start a thread: {e}"),
            }
        })
}

/// A job of the running set with a steady-state criterion: its clones' progress cells.
struct SteadyJob {
    job: usize,
    /// Its place in the set (its end flag).
    position: usize,
    cells: std::ops::Range<usize>,
    tracker: SteadyStateTracker,
}

/// Samples every steady-state job that is due (its clones' completed IOs and bytes, summed),
/// and ends the ones that are steady. Times count from the start of the set.
fn sample_steady_state(
    steady: &mut [SteadyJob],
    cells: &[ProgressCell],
    end_flags: &[AtomicBool],
    set_start: Instant,
) {
    let now_ns = set_start.elapsed().as_nanos() as u64;
    for job in steady.iter_mut() {
        if job.tracker.attained() || now_ns < job.tracker.next_sample_ns() {
            continue;
        }
        let (ios, bytes) = cells[job.cells.clone()].iter().fold((0, 0), |(i, b), c| {
            (
                i + c.ios.load(Ordering::Relaxed),
                b + c.bytes.load(Ordering::Relaxed),
            )
        });
        if job.tracker.sample(now_ns, ios, bytes) {
            end_flags[job.position].store(true, Ordering::Relaxed);
        }
    }
}

/// fio `unlink`: after the run, the files of jobs that ask for it are removed, but only those
/// this run created (never-destroy: a file that was there before stays). A failure to remove
/// is added to the job's error.
fn unlink_created_files(jobs: &[JobSpec], layout: &Layout, report: &mut RunReport) {
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

/// The running set's state, for an interim (`--status-interval`) report.
struct Interim<'a> {
    slots: &'a [Slot],
    cells: &'a [ProgressCell],
    cell_slots: &'a [usize],
    absorbed: &'a [bool],
    jobs: &'a [JobSpec],
}

/// Longest the runner waits for the running clones' snapshots; a clone that has not answered
/// by then (in a long thinktime, or a slow IO) is reported with its previous snapshot.
const STATUS_WAIT: Duration = Duration::from_millis(100);

impl Interim<'_> {
    /// The report so far: every finished result, then each running result with what its
    /// finished clones returned plus its running clones' snapshots (a clone that finished but
    /// whose output the runner has not taken yet counts with its last snapshot).
    fn report(&self, finished: &RunReport) -> RunReport {
        let generation = |c: &ProgressCell| {
            c.snapshot
                .lock()
                .expect("snapshot lock")
                .as_ref()
                .map_or(0, |s| s.generation)
        };
        let before: Vec<u64> = self.cells.iter().map(generation).collect();
        for c in self.cells.iter() {
            c.snapshot_wanted.store(true, Ordering::Relaxed);
        }
        let asked = Instant::now();
        let waiting = || {
            self.cells
                .iter()
                .zip(&before)
                .zip(self.absorbed)
                .any(|((c, &g), &absorbed)| {
                    !absorbed && !c.finished.load(Ordering::Relaxed) && generation(c) == g
                })
        };
        while waiting() && asked.elapsed() < STATUS_WAIT {
            std::thread::sleep(Duration::from_millis(2));
        }
        let mut report = RunReport {
            result: RunResult {
                jobs: Vec::new(),
                ..finished.result.clone()
            },
            ..RunReport::default()
        };
        for (index, slot) in self.slots.iter().enumerate() {
            let result = match &slot.finished {
                Some(done) => Some(done.clone()),
                None => self.running(index, slot),
            };
            if let Some(result) = result {
                report.result.jobs.push(result);
                report.job_index.push(slot.job_index);
            }
        }
        report
    }

    /// A running slot's measurements so far; None for a slot of another set.
    fn running(&self, index: usize, slot: &Slot) -> Option<JobResult> {
        let mine: Vec<usize> = (0..self.cell_slots.len())
            .filter(|&c| self.cell_slots[c] == index)
            .collect();
        if mine.is_empty() {
            return None;
        }
        let (mut read, mut write, mut runtime_ns) =
            (slot.read.clone(), slot.write.clone(), slot.runtime_ns);
        let mut trim = slot.trim.clone();
        for c in mine {
            let cell = &self.cells[c];
            // An absorbed clone is in the slot's counters already; one that finished but is
            // not absorbed yet counts with its last snapshot.
            if self.absorbed[c] {
                continue;
            }
            if let Some(snap) = cell.snapshot.lock().expect("snapshot lock").as_ref() {
                read.merge(&snap.read);
                write.merge(&snap.write);
                trim.merge(&snap.trim);
                runtime_ns = runtime_ns.max(snap.runtime_ns);
            }
        }
        let job = &self.jobs[slot.job_index];
        Some(JobResult {
            name: slot.name.clone(),
            group_id: slot.group_id,
            clones: slot.clones_expected,
            engine_requested: Some(job.engine),
            engine_used: Some(engine_used(job.engine)),
            rw: Some(job.rw),
            iodepth: job.effective_iodepth(),
            read: read.to_result(runtime_ns),
            write: write.to_result(runtime_ns),
            trim: trim.to_result(runtime_ns),
            random_seed: slot.seed,
            ..JobResult::default()
        })
    }
}

/// How often the observer hears about progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// After a stop, how long the runner waits for clones to report before it reports without
/// them. A clone ends within [`STOP_DRAIN_NS`](crate::worker::STOP_DRAIN_NS) plus the cancel
/// wait and one poll (0.4 s) unless it is blocked in a system call the kernel does not
/// interrupt (an fsync on a stalled disk); this bounds the stop at 0.5 s even then.
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// Each slot's fixed fields, for the live results.
fn slot_templates(slots: &[Slot]) -> Vec<crate::live::SlotTemplate> {
    slots
        .iter()
        .map(|s| crate::live::SlotTemplate {
            job_index: s.job_index,
            name: s.name.clone(),
            group_id: s.group_id,
            clones: s.clones_expected,
            seed: s.seed,
        })
        .collect()
}

/// Hands every finished result so far to the observer (and to the live results).
fn publish_finished(
    slots: &[Slot],
    report: &mut RunReport,
    observer: &mut dyn Observer,
    options: &RunOptions,
) {
    report.result.jobs.clear();
    report.job_index.clear();
    for (index, s) in slots.iter().enumerate() {
        if let Some(finished) = &s.finished {
            if let Some(live) = &options.live {
                live.finished(index, finished);
            }
            report.result.jobs.push(finished.clone());
            report.job_index.push(s.job_index);
        }
    }
    observer.job_done(report);
}

/// Finishes the results among `indices` whose clones have not all reported, as interrupted
/// and saying how many clones are missing.
fn give_up(slots: &mut [Slot], indices: impl Iterator<Item = usize>, jobs: &[JobSpec]) {
    for index in indices {
        let slot = &mut slots[index];
        if slot.finished.is_some() {
            continue;
        }
        let missing = slot.clones_expected - slot.clones_done;
        slot.interrupted = true;
        slot.errors.push(format!(
            "{missing} clone(s) did not stop within {} ms of the stop (blocked in the kernel); their IOs are not in the results",
            STOP_GRACE.as_millis()
        ));
        slot.finished = Some(finish_slot(slot, &jobs[slot.job_index]));
    }
}

/// Takes a clone's output into its slot; returns the clone's sums (for the live results).
fn absorb(slot: &mut Slot, output: CloneOutput) -> crate::live::Sums {
    slot.clones_done += 1;
    slot.read.merge(&output.read);
    slot.write.merge(&output.write);
    slot.trim.merge(&output.trim);
    slot.syncs += output.syncs;
    slot.sync_latency.merge(&output.sync_latency);
    slot.runtime_ns = slot.runtime_ns.max(output.runtime_ns);
    if output.verify_phase_ns > 0 {
        let write_phase = output.runtime_ns.saturating_sub(output.verify_phase_ns);
        slot.write_phase_ns = slot.write_phase_ns.max(write_phase);
        slot.verify_phase_ns = slot.verify_phase_ns.max(output.verify_phase_ns);
    }
    slot.runtime_sum_ns += output.runtime_ns;
    slot.usr_ns += output.usr_ns;
    slot.sys_ns += output.sys_ns;
    slot.ctx += output.context_switches;
    slot.fio.io_depths.merge(&output.io_depths);
    if slot.fio.pid == 0 {
        slot.fio.pid = output.tid;
    }
    if slot.fio.start_epoch_ms == 0 || output.start_epoch_ms < slot.fio.start_epoch_ms {
        slot.fio.start_epoch_ms = output.start_epoch_ms;
    }
    slot.fio.total_err += output.total_err;
    if slot.fio.first_error == 0 {
        slot.fio.first_error = output.first_error;
    }
    let room = crate::worker::ERROR_LINES.saturating_sub(slot.fio.error_lines.len());
    slot.fio
        .error_lines
        .extend(output.error_lines.into_iter().take(room));
    slot.fio.major_faults += output.major_faults;
    slot.fio.minor_faults += output.minor_faults;
    slot.interrupted |= output.interrupted;
    if let Some(found) = output.verify {
        crate::data::merge_verify(&mut slot.verify, found);
    }
    if let Some(depth) = output.latency_depth {
        slot.latency_depth = Some(slot.latency_depth.map_or(depth, |d| d.min(depth)));
    }
    if let Some(e) = output.error {
        slot.errors.push(e);
    }
    if output.cancelled_ios > 0 {
        let when = if output.interrupted {
            "after the stop"
        } else {
            "after the run's end"
        };
        slot.errors.push(format!(
            "{} IO(s) still in flight {when} were cancelled or abandoned; their latency is not in the results",
            output.cancelled_ios
        ));
    }
    crate::live::Sums {
        read: output.read,
        write: output.write,
        trim: output.trim,
        runtime_ns: output.runtime_ns,
    }
}

fn finish_slot(slot: &mut Slot, job: &JobSpec) -> JobResult {
    let series = std::mem::replace(
        &mut slot.series,
        Arc::new(Mutex::new(SeriesMerger::new(1, 1))),
    );
    let series = match Arc::try_unwrap(series) {
        Ok(mutex) => mutex.into_inner().expect("series lock").finish(),
        Err(shared) => {
            let mut guard = shared.lock().expect("series lock");
            std::mem::replace(&mut *guard, SeriesMerger::new(1, 1)).finish()
        }
    };
    let cpu_pct = |ns: u64| {
        if slot.runtime_sum_ns == 0 {
            0.0
        } else {
            ns as f64 * 100.0 / slot.runtime_sum_ns as f64
        }
    };
    // The engine's accounting, stated where it can be checked: with a fixed block size every
    // completed IO moved exactly one block (a replay's IOs are the log's sizes).
    if let BlockSizeSpec::Fixed(sizes) = &job.block_size {
        if !job.group_reporting && job.replay.is_none() {
            debug_assert_eq!(slot.read.io_bytes, slot.read.ios * sizes.read.as_u64());
            debug_assert_eq!(slot.write.io_bytes, slot.write.ios * sizes.write.as_u64());
            debug_assert_eq!(slot.trim.io_bytes, slot.trim.ios * sizes.write.as_u64());
        }
    }
    let mut errors = std::mem::take(&mut slot.errors);
    errors.dedup();
    // A write job with a verify phase: as fio, the writes' runtime is the write phase and the
    // reads' (the verify reads) the verify phase; the job's runtime is both.
    let phases = slot.verify_phase_ns > 0 && !job.rw.has_reads();
    let (read_runtime_ns, write_runtime_ns) = if phases {
        (slot.verify_phase_ns, slot.write_phase_ns)
    } else {
        (slot.runtime_ns, slot.runtime_ns)
    };
    JobResult {
        name: slot.name.clone(),
        group_id: slot.group_id,
        clones: slot.clones_expected,
        engine_requested: Some(job.engine),
        engine_used: Some(engine_used(job.engine)),
        rw: Some(job.rw),
        iodepth: job.effective_iodepth(),
        read: slot.read.to_result(read_runtime_ns),
        write: slot.write.to_result(write_runtime_ns),
        trim: slot.trim.to_result(slot.runtime_ns),
        syncs: slot.syncs,
        sync_latency: slot.sync_latency.summary(),
        series,
        usr_cpu_pct: cpu_pct(slot.usr_ns),
        sys_cpu_pct: cpu_pct(slot.sys_ns),
        context_switches: slot.ctx,
        random_seed: slot.seed,
        error: if errors.is_empty() {
            None
        } else {
            Some(errors.join("; "))
        },
        interrupted: slot.interrupted,
        verify: slot.verify.take(),
        fio: iofit_stats::FioJobExtras {
            bw_measurement_off: job.measurement.disable_bw,
            continue_on_error: job.thread_control.errors.continue_on != 0,
            job_runtime_ns: if phases { slot.runtime_ns } else { 0 },
            // fio echoes the latency_target settings asked, whether or not a search ran.
            latency_target: job
                .latency_target
                .as_ref()
                .map(|t| iofit_stats::LatencyTargetResult {
                    target_us: t.target.as_micros() as u64,
                    window_us: t.window.as_micros() as u64,
                    percentile: t.percentile,
                    depth: slot.latency_depth.unwrap_or(job.effective_iodepth()),
                }),
            ..std::mem::take(&mut slot.fio)
        },
        steadystate: None,
        latency_depth_found: slot.latency_depth,
    }
}

fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
