//! What one clone of a job is given and gives back: its plan (files, sizes, pacing, data,
//! logs), the state it shares with the runner and the other clones (stop flag, progress
//! cells, series), and its output. The runner builds these; the worker's loop
//! (`crate::worker`) runs a [`ClonePlan`] and returns a [`CloneOutput`].

use crate::distribution::BlockPicker;
use crate::engine::Op;
use crate::random::SplitMix64;
use crate::sequence::Sequence;
use iofit_model::units::{Bytes, Nanos, UnixMillis};
use iofit_stats::{DirectionStats, SeriesMerger};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Mutex;

/// The longest a clone waits (for a completion, a rate-limited IO or its start delay) before
/// it looks at the stop flag and the deadline again.
pub const POLL_NS: u64 = 50_000_000;
/// After a stop (Ctrl-C, SIGTERM): how long IOs in flight get to finish before the rest are
/// cancelled. With [`CANCEL_WAIT_NS`] and one [`POLL_NS`] this keeps a stopped clone under
/// 0.35 s, inside the runner's wait for clones (`STOP_GRACE`, 0.5 s), so the whole process
/// exits within one second of the signal.
pub const STOP_DRAIN_NS: u64 = 200_000_000;
/// After a cancel: how long to wait for the cancelled IOs to come back before abandoning them.
pub const CANCEL_WAIT_NS: u64 = 100_000_000;
const DRAIN_MIN_NS: u64 = 1_000_000_000;
const DRAIN_MAX_NS: u64 = 10_000_000_000;

/// After the runtime (or the job's size) is done: how long IOs in flight get to finish,
/// given the longest IO latency the clone has seen. Twice that, at least 1 s and at most
/// 10 s: a throttled cloud disk at a deep queue legitimately takes hundreds of milliseconds
/// per IO, while a device that stalls must not hold the run for ever.
pub fn drain_bound_ns(longest_latency_ns: u64) -> u64 {
    longest_latency_ns
        .saturating_mul(2)
        .clamp(DRAIN_MIN_NS, DRAIN_MAX_NS)
}

/// The most a clone runs past its deadline: the drain, the cancel wait and one poll.
pub fn overrun_bound_ns(longest_latency_ns: u64) -> u64 {
    drain_bound_ns(longest_latency_ns) + CANCEL_WAIT_NS + POLL_NS
}

/// Block sizes of one clone, ready to draw from.
#[derive(Clone, Debug)]
pub enum SizePicker {
    Fixed {
        read: u32,
        write: u32,
    },
    /// Cumulative percent thresholds per direction: (upper bound, size).
    Split {
        read: Vec<(f64, u32)>,
        write: Vec<(f64, u32)>,
    },
}

impl SizePicker {
    #[inline]
    pub(crate) fn pick(&self, op: Op, rng: &mut SplitMix64) -> u32 {
        match self {
            SizePicker::Fixed { read, write } => match op {
                Op::Read => *read,
                Op::Write | Op::Trim => *write,
            },
            SizePicker::Split { read, write } => {
                let table = match op {
                    Op::Read => read,
                    Op::Write | Op::Trim => write,
                };
                let x = rng.percent();
                table
                    .iter()
                    .find(|(upper, _)| x < *upper)
                    .or(table.last())
                    .map(|(_, size)| *size)
                    .unwrap_or(4096)
            }
        }
    }

    /// The smallest size: random offsets are aligned to it (fio's default `blockalign`).
    pub fn min_size(&self) -> u32 {
        match self {
            SizePicker::Fixed { read, write } => (*read).min(*write).max(1),
            SizePicker::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|(_, s)| *s)
                .min()
                .unwrap_or(4096)
                .max(1),
        }
    }
}

/// Everything one clone needs to run, resolved from its `JobSpec`.
#[derive(Clone, Debug)]
pub struct ClonePlan {
    pub job_name: String,
    pub clone_index: u32,
    /// (path, region start, region length) per file, in the order the engine opened them.
    pub files: Vec<(PathBuf, u64, u64)>,
    pub sizes: SizePicker,
    pub rwmix_read_pct: f64,
    pub random_pct: f64,
    pub norandommap: bool,
    /// Random offsets are multiples of this many bytes (fio `blockalign`).
    pub align: u64,
    /// fio's `rw=MODE:N` modifiers.
    pub sequence: Sequence,
    /// Per file, the non-uniform random distribution's block picker (`None`: uniform).
    pub pickers: Vec<Option<BlockPicker>>,
    pub seed: u64,
    pub depth: u32,
    pub start_delay_ns: Nanos<u64>,
    pub ramp_ns: Nanos<u64>,
    pub runtime_ns: Option<Nanos<u64>>,
    /// Bytes to move before stopping (size, or io_limit: one loop, each loop being a pass of
    /// its own, see each_loop.rs); None: until runtime.
    pub budget_bytes: Option<Bytes>,
    pub rate_iops: [Option<u64>; 2],
    pub rate_bytes_per_second: [Option<u64>; 2],
    pub fsync_every: u32,
    pub fdatasync_every: u32,
    pub end_fsync: bool,
    pub interval_ns: Nanos<u64>,
    /// Most IOs handed to the kernel in one submit call (fio's `iodepth_batch_submit`).
    pub submit_batch: usize,
    /// What writes hold and how reads are checked (verify, content).
    pub data: crate::data::DataPlan,
    /// Pauses, minimum rates and Poisson arrivals.
    pub pacing: PacingPlan,
    /// fsync every file at the end (fio `fsync_on_close`: iofit closes its files then).
    pub fsync_on_close: bool,
    /// syncfs the files' file systems at the end (fio `end_syncfs`).
    pub end_syncfs: bool,
    /// fio `invalidate`: the verify phase drops the written pages before reading them back.
    pub invalidate: bool,
    /// Which latencies are measured, and the one that fails the clone.
    pub measure: MeasurePlan,
    /// Which file each IO goes to (fio `file_service_type`).
    pub file_service: iofit_model::job::FileService,
    /// fio's per-IO logs (no `log_avg_msec`), written as IOs complete.
    pub io_log: Option<crate::iolog::IoLogPlan>,
    /// fio's averaged and histogram logs, rendered as each window closes and streamed.
    pub interval_log: Option<crate::interval_log::CloneLog>,
    /// The ioprio value (class << 13 | level) the clone's IOs carry (fio `prioclass`/`prio`),
    /// 0 when none is set.
    pub ioprio: u16,
    /// Per-IO priorities (fio `cmdprio*`): IOs they pick carry theirs instead of `ioprio`.
    pub cmdprio: Option<iofit_model::placement::CmdPrio>,
    /// fio `fill_device`: a write that finds the file system full (ENOSPC, or short) ends the
    /// clone as done, not as failed.
    pub fill_device: bool,
    /// fio `read_iolog`: the IOs come from this log, in its order and at its times, instead
    /// of being drawn; the plan's files are the log's, in the order it names them.
    pub replay: Option<iofit_model::replay::ReplaySpec>,
    /// fio `write_iolog`: every IO issued is recorded in this log.
    pub write_iolog: Option<std::sync::Arc<crate::replay::IoLogWriter>>,
    /// Whether the clone's writes are trims (fio `rw=trim`/`randtrim`), or each trim is
    /// followed by a write of the same block (`trimwrite`/`randtrimwrite`).
    pub trim: TrimMode,
    /// Which failed IOs are counted and gone on after (fio `continue_on_error`).
    pub errors: iofit_model::job::ErrorPolicy,
    /// fio `unlink_each_loop`: what the clone's earlier loops did, so that this pass's
    /// progress counts and interval indexes go on from theirs (zero for the first pass).
    pub earlier_loops: EarlierLoops,
    /// What the earlier loops measured, added to this pass's snapshots (`--status-interval`,
    /// and the results so far a stop bound prints), so that they cover the whole clone and
    /// not only its current loop. `None` for the first pass.
    pub earlier_measured: Option<std::sync::Arc<EarlierMeasured>>,
}

/// The measurements of a clone's earlier loops, for its later passes' snapshots.
#[derive(Clone, Debug, Default)]
pub struct EarlierMeasured {
    pub read: DirectionStats,
    pub write: DirectionStats,
    pub trim: DirectionStats,
    pub runtime_ns: Nanos<u64>,
}

/// What a clone's earlier loops completed (fio `unlink_each_loop` runs each loop as a pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EarlierLoops {
    pub ios: u64,
    pub bytes: Bytes,
    /// Interval indexes the earlier loops used: this pass's intervals are numbered after them.
    pub intervals: u64,
}

/// What fio's trim modes make of the clone's "write" direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TrimMode {
    /// No trims: writes are writes.
    #[default]
    Off,
    /// Every write is a trim of the block instead.
    Trim,
    /// A trim of a block, then a write of the same block and length (fio's `last_start`
    /// pairing in `get_next_block`); only the writes count towards the size, as in fio's
    /// `io_bytes_exceeded` for a job that writes.
    TrimWrite,
}

impl ClonePlan {
    /// A plan for one clone doing random 4 KiB reads over `length_bytes` of one file, at depth
    /// 1, until told to stop, with everything else off: the starting point for a plan built by
    /// hand (the engine's harness tests take it and change what they test with `..`).
    pub fn random_reads(job_name: &str, path: impl Into<PathBuf>, length_bytes: u64) -> ClonePlan {
        ClonePlan {
            job_name: job_name.into(),
            clone_index: 0,
            files: vec![(path.into(), 0, length_bytes)],
            sizes: SizePicker::Fixed {
                read: 4096,
                write: 4096,
            },
            rwmix_read_pct: 100.0,
            random_pct: 100.0,
            norandommap: false,
            align: 4096,
            sequence: Default::default(),
            pickers: vec![None],
            seed: 1,
            depth: 1,
            start_delay_ns: Nanos(0),
            ramp_ns: Nanos(0),
            runtime_ns: None,
            budget_bytes: None,
            rate_iops: [None, None],
            rate_bytes_per_second: [None, None],
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            interval_ns: Nanos(1_000_000_000),
            submit_batch: 1,
            data: Default::default(),
            pacing: Default::default(),
            fsync_on_close: false,
            end_syncfs: false,
            invalidate: false,
            measure: Default::default(),
            file_service: Default::default(),
            io_log: None,
            interval_log: None,
            ioprio: 0,
            cmdprio: None,
            fill_device: false,
            trim: TrimMode::Off,
            errors: Default::default(),
            replay: None,
            write_iolog: None,
            earlier_loops: EarlierLoops::default(),
            earlier_measured: None,
        }
    }
}

/// fio's `disable_lat`/`disable_clat`/`disable_slat` (false here: not measured, the histogram
/// stays empty) and `max_latency` per direction (read, write), in nanoseconds.
#[derive(Clone, Debug)]
pub struct MeasurePlan {
    pub lat: bool,
    pub clat: bool,
    pub slat: bool,
    pub max_latency_ns: [Option<u64>; 2],
}

impl Default for MeasurePlan {
    fn default() -> Self {
        MeasurePlan {
            lat: true,
            clat: true,
            slat: true,
            max_latency_ns: [None; 2],
        }
    }
}

/// fio's pacing options, resolved for one clone. The default paces nothing.
#[derive(Clone, Debug, Default)]
pub struct PacingPlan {
    /// Pause after every `think_blocks` completed IOs (0: no pause).
    pub think_ns: Nanos<u64>,
    /// Of the pause, the part spent spinning on the CPU instead of sleeping.
    pub think_spin_ns: Nanos<u64>,
    pub think_blocks: u32,
    /// Minimum bandwidth and IOPS per direction over each `rate_cycle_ns` window; below
    /// either, the clone ends with an error (as fio does).
    pub min_bytes_per_second: [Option<u64>; 2],
    pub min_iops: [Option<u64>; 2],
    pub rate_cycle_ns: Nanos<u64>,
    /// Rate-capped IOs arrive with exponential gaps (fio `rate_process=poisson`).
    pub poisson: bool,
    /// fio `latency_target`: search for the deepest queue that meets it.
    pub latency_target: Option<LatencyTargetPlan>,
    /// fio flow control with other jobs of the same flow id.
    pub flow: Option<crate::flow::FlowPlan>,
    /// fio `serialize_overlap`: an IO waits while another in flight overlaps its bytes.
    pub serialize_overlap: bool,
}

/// fio's `latency_target` search, resolved for one clone.
#[derive(Clone, Debug)]
pub struct LatencyTargetPlan {
    pub target_ns: Nanos<u64>,
    pub window_ns: Nanos<u64>,
    pub percentile: f64,
    /// fio `latency_run`: keep running at the depth found instead of ending.
    pub keep_running: bool,
}

impl PacingPlan {
    pub(crate) fn checks_min_rate(&self) -> bool {
        self.min_bytes_per_second.iter().any(Option::is_some)
            || self.min_iops.iter().any(Option::is_some)
    }
}

/// Counters the progress display reads while the clone runs. One writer (the clone).
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct ProgressCell {
    pub ios: AtomicU64,
    pub bytes: AtomicU64,
    /// Set by the runner when an interim report is due (`--status-interval`); the clone
    /// answers at its next progress publication by filling `snapshot`.
    pub snapshot_wanted: AtomicBool,
    pub snapshot: Mutex<Option<CloneSnapshot>>,
    /// The clone is done (its output is on the way to the runner, which counts it from there).
    pub finished: AtomicBool,
}

/// A running clone's measurements so far, for an interim report.
#[derive(Clone, Debug, Default)]
pub struct CloneSnapshot {
    pub read: DirectionStats,
    pub write: DirectionStats,
    pub trim: DirectionStats,
    /// Measured time so far (0 while ramping).
    pub runtime_ns: Nanos<u64>,
    /// Counts the snapshots taken, so that the runner tells a fresh one from the last.
    pub generation: u64,
}

/// What the clone shares with the runner.
pub struct CloneShared<'a> {
    pub stop: &'a AtomicBool,
    /// Set when another clone of the same set asks the set to end (fio `exitall`): issuing
    /// ends as when the runtime is over, not as an interruption.
    pub end_set: Option<&'a AtomicBool>,
    pub progress: &'a ProgressCell,
    pub series: &'a Mutex<SeriesMerger>,
    /// The clone's place at its set's start gate (see [`crate::gate`]): the clone waits there
    /// once it is ready, and its runtime counts from the moment the gate opened. None: the
    /// clone starts at once (a clone run on its own).
    pub start: Option<&'a crate::gate::StartTicket<'a>>,
}

/// What one clone measured.
#[derive(Debug, Default)]
pub struct CloneOutput {
    pub read: DirectionStats,
    pub write: DirectionStats,
    /// Trims (fio's third direction); empty unless the job trims.
    pub trim: DirectionStats,
    pub syncs: u64,
    /// Each fsync/fdatasync of `fsync=`/`fdatasync=` in the measured window (fio's "sync").
    pub sync_latency: iofit_stats::LatencyHistogram,
    pub runtime_ns: Nanos<u64>,
    /// The verify phase's share of `runtime_ns` (fio counts it as the read runtime, and the
    /// rest as the write runtime); 0 without a verify phase.
    pub verify_phase_ns: Nanos<u64>,
    pub usr_ns: Nanos<u64>,
    pub sys_ns: Nanos<u64>,
    pub context_switches: u64,
    pub error: Option<String>,
    pub interrupted: bool,
    /// IOs still in flight when the drain bound ran out: cancelled, or abandoned when even
    /// the cancel did not return them. Not counted in `read`/`write`.
    pub cancelled_ios: u64,
    /// Data verification's findings, when the job verifies.
    pub verify: Option<iofit_stats::VerifyResult>,
    /// fio's IO depth distributions over the measured window.
    pub io_depths: iofit_stats::IoDepthCounts,
    /// Page faults of the clone's thread over the measured window (fio's majf/minf).
    pub major_faults: u64,
    pub minor_faults: u64,
    /// The clone's thread id (fio's `pid=`).
    pub tid: u32,
    /// When measuring began, ms since the Unix epoch.
    pub start_epoch_ms: UnixMillis,
    /// The depth a `latency_target` search was at when the clone ended.
    pub latency_depth: Option<u32>,
    /// IOs that failed with an error the job goes on after (fio's `total_err`), the first
    /// one's errno (`first_error`), and a line for each of the first [`ERROR_LINES`] of them
    /// unless `error_dump=0`.
    pub total_err: u64,
    pub first_error: i32,
    pub error_lines: Vec<String>,
}

/// At most this many lines are kept for errors that were not fatal: the count stays exact.
pub const ERROR_LINES: usize = 16;
