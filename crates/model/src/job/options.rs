//! A job's option groups beside its pattern: the offset distribution, file service, what is
//! measured, io_uring, the latency target, steady state, pacing, file sync and open flags,
//! thread control, the error policy and IO priority.

use super::io::PerDirection;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How random offsets are spread over a file (fio `random_distribution`). Non-uniform
/// distributions rank the file's blocks by popularity and scatter the ranks over the file with
/// a hash, as fio does, so hot blocks are not all at the start.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RandomDistribution {
    /// Every block equally likely (fio `random`, the default).
    #[default]
    Uniform,
    /// fio `zipf:THETA[:CENTER]`.
    Zipf { theta: f64, center: Option<f64> },
    /// fio `pareto:H[:CENTER]`.
    Pareto { h: f64, center: Option<f64> },
    /// fio `normal:DEV_PCT[:CENTER]` (fio calls it gauss): deviation in percent of the file.
    Normal {
        deviation_pct: f64,
        center: Option<f64>,
    },
    /// fio `zoned:ACCESS%/SIZE%:...`: contiguous zones from the start of the file, each taking
    /// a share of the accesses, uniform inside.
    Zoned(Vec<AccessZone>),
}

/// One zone of a zoned distribution: `access_pct` of the IOs land uniformly in `size`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AccessZone {
    pub access_pct: f64,
    pub size: ZoneSize,
}

/// A zone's extent: a share of the file (fio `zoned`) or bytes (fio `zoned_abs`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneSize {
    Percent(f64),
    Bytes(Bytes),
}

/// fio's `file_service_type`: how the next file is chosen, and how many IOs go to a file
/// before the next choice (the `:N` suffix of random, roundrobin and sequential).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileService {
    pub kind: FileServiceKind,
    pub ios_per_choice: u32,
}

impl Default for FileService {
    fn default() -> Self {
        FileService {
            kind: FileServiceKind::RoundRobin,
            ios_per_choice: 1,
        }
    }
}

impl FileService {
    pub fn is_default(&self) -> bool {
        *self == FileService::default()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileServiceKind {
    /// The files in turn (fio's default).
    #[default]
    RoundRobin,
    /// One file until the job has moved its size in it, then the next.
    Sequential,
    /// A file drawn uniformly.
    Random,
    /// A file drawn by zipf, pareto or normal over the file numbers, file 0 ranked hottest
    /// (fio does not hash file ranks); `Uniform` and `Zoned` are not used here.
    Skewed(RandomDistribution),
}

/// fio's `disable_lat`, `disable_clat`, `disable_slat`, `disable_bw_measurement` (each turns a
/// measurement off: its numbers are zero in the report, and the per-IO path skips it) and
/// `max_latency` (a total latency above it fails the job with ETIMEDOUT).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Measurement {
    pub disable_lat: bool,
    pub disable_clat: bool,
    pub disable_slat: bool,
    pub disable_bw: bool,
    /// Per direction; checked only while total latency is measured, as in fio.
    pub max_latency: PerDirection<Option<Duration>>,
}

impl Measurement {
    pub fn is_default(&self) -> bool {
        *self == Measurement::default()
    }
}

/// fio's io_uring engine options. The defaults are iofit's own choices (register buffers and
/// files when the kernel allows, non-vectored opcodes, no polling); a job file that names an
/// option gets fio's meaning of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UringOptions {
    /// `fixedbufs`: `Some(true)` the buffers must be registered (setup fails otherwise, as in
    /// fio), `Some(false)` never registered, `None` registered when the kernel allows.
    pub fixed_buffers: Option<bool>,
    /// `registerfiles`, with the same three meanings as `fixed_buffers`.
    pub register_files: Option<bool>,
    /// `sqthread_poll`: a kernel thread polls the submission queue (IORING_SETUP_SQPOLL).
    pub sq_thread_poll: bool,
    /// `sqthread_poll_cpu`: the CPU that thread is bound to (IORING_SETUP_SQ_AFF).
    pub sq_thread_cpu: Option<u32>,
    /// `hipri`: polled completions (IORING_SETUP_IOPOLL).
    pub hipri: bool,
    /// `force_async=N`: every Nth IO is sent with IOSQE_ASYNC (punted to io-wq); 0 never.
    pub force_async_every: u32,
    /// `nonvectored`: `Some(false)` readv/writev with one iovec (fio's `nonvectored=0`),
    /// `Some(true)` or `None` plain read/write.
    pub nonvectored: Option<bool>,
}

impl UringOptions {
    pub fn is_default(&self) -> bool {
        *self == UringOptions::default()
    }
}

/// fio's `latency_target`, `latency_window`, `latency_percentile`, `latency_run`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LatencyTargetSpec {
    /// Total latency an IO must complete within.
    pub target: Duration,
    /// How long each depth is tried.
    pub window: Duration,
    /// Share of a window's IOs that must meet the target, percent (fio's default 100).
    pub percentile: f64,
    /// Keep running at the depth found until the runtime ends, instead of ending the job.
    pub keep_running: bool,
}

/// fio's steady-state criterion: over the last `duration` of one-second samples (after
/// `ramp`), the samples' largest deviation from their mean (or the slope of their least-squares
/// line, with `slope`) is at most `limit`, in percent of the mean when `percent`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateSpec {
    pub metric: SteadyMetric,
    pub slope: bool,
    pub limit: f64,
    pub percent: bool,
    pub duration: Duration,
    pub ramp: Duration,
}

/// What the steady-state criterion looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SteadyMetric {
    Iops,
    /// Bandwidth, sampled in KiB/s as fio does.
    Bw,
}

/// fio's pacing options. Defaults: no pause, no minimum rate, evenly spaced rate-capped IOs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pacing {
    /// Pause this long after every `think_blocks` completed IOs (fio `thinktime`).
    pub think_time: Duration,
    /// Of the pause, this much is spent busy-spinning on the CPU (fio `thinktime_spin`).
    pub think_spin: Duration,
    /// IOs between pauses (fio `thinktime_blocks`; 0 is taken as 1).
    pub think_blocks: u32,
    /// The job fails when its bandwidth over a `rate_cycle` drops below this, per direction
    /// (fio `rate_min`/`ratemin`, bytes per second).
    pub min_bytes_per_second: PerDirection<Option<u64>>,
    /// The job fails when its IOPS over a `rate_cycle` drop below this (fio `rate_iops_min`).
    pub min_iops: PerDirection<Option<u64>>,
    /// Window the minimum rates are checked over (fio `rate_cycle`, default 1000 ms).
    pub rate_cycle: Option<Duration>,
    /// Rate-capped IOs arrive as a Poisson process (exponential gaps with the cap's mean)
    /// instead of evenly spaced (fio `rate_process=poisson`).
    pub poisson: bool,
    /// Most IOs handed to the kernel per submit call (fio `iodepth_batch_submit`); `None`:
    /// iofit's default (a 32nd of the queue).
    pub submit_batch: Option<u32>,
}

impl Pacing {
    pub fn is_default(&self) -> bool {
        *self == Pacing::default()
    }
}

/// O_SYNC-style opens and syncs at close.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSync {
    /// Open files with O_SYNC (`sync=1`/`sync=sync`) or O_DSYNC (`sync=dsync`).
    pub open_sync: OpenSync,
    /// fsync every file when the job is done with it (fio `fsync_on_close`).
    pub fsync_on_close: bool,
    /// syncfs the file system of the job's files at the end (fio `end_syncfs`).
    pub end_syncfs: bool,
    /// Remove the job's files at the end of the run, if this run created them (fio `unlink`).
    #[serde(default)]
    pub unlink: bool,
    /// With `loops` > 1: every loop is its own pass, and between two loops the files this
    /// clone uses are removed and laid out again (fio `unlink_each_loop`). Only files iofit
    /// created are removed; the files of the last loop stay unless `unlink` is set.
    #[serde(default)]
    pub unlink_each_loop: bool,
    /// Read the job's region of every file into the page cache before the job starts (fio
    /// `pre_read`; buffered jobs only: direct IO does not read through the cache).
    #[serde(default)]
    pub pre_read: bool,
    /// Lay the files out and stop: no IO is run or reported (fio `create_only`).
    #[serde(default)]
    pub create_only: bool,
    /// Drop the job's region of every file from the page cache when the job opens it, after
    /// syncing it (fio `invalidate=1`, its default): a buffered job then reads from storage.
    #[serde(default)]
    pub invalidate: bool,
    /// The access pattern told to the kernel for every file (fio `fadvise_hint`); `None`: no
    /// hint (the kernel's default readahead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fadvise: Option<FadviseHint>,
    /// The write-life hint set on every file at open (fio `write_hint`: 1 none, 2 short,
    /// 3 medium, 4 long, 5 extreme), with fcntl as fio sets it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_hint: Option<u64>,
}

/// The access pattern a job declares with posix_fadvise (fio `fadvise_hint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FadviseHint {
    /// POSIX_FADV_RANDOM: no readahead.
    Random,
    /// POSIX_FADV_SEQUENTIAL: longer readahead.
    Sequential,
}

impl FileSync {
    pub fn is_default(&self) -> bool {
        *self == FileSync::default()
    }
}

/// Synchronous-write open flag (fio `sync=`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpenSync {
    #[default]
    None,
    /// O_SYNC: every write returns once data and metadata are stable.
    Sync,
    /// O_DSYNC: every write returns once its data is stable.
    Dsync,
}

/// Where and how the job's threads run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadControl {
    /// CPUs the job's threads may run on (fio `cpus_allowed`/`cpumask`); empty: any.
    pub cpus: Vec<usize>,
    /// Nice value of the job's threads (fio `nice`); 0 leaves it as it is.
    pub nice: i32,
    /// IO priority class and level (fio `prioclass`, `prio`): ioprio_set on the thread.
    pub io_priority: Option<IoPriority>,
    /// When this job finishes, stop every other job (fio `exitall`).
    pub exit_all: bool,
    /// When this job ends with an error, stop every other job (fio `exitall_on_error`).
    #[serde(default)]
    pub exit_all_on_error: bool,
    /// fio `cpus_allowed_policy=split`: each thread gets one CPU of `cpus` instead of all.
    #[serde(default)]
    pub split_cpus: bool,
    /// Which failed IOs the job counts and goes on after (fio `continue_on_error`,
    /// `ignore_error`, `error_dump`).
    #[serde(default)]
    pub errors: ErrorPolicy,
}

/// fio's `continue_on_error`, `ignore_error` and `error_dump` (fio's td_error.c): an IO that
/// fails with an errno of a type the job continues on, and that is in that type's list, is
/// counted (fio's `total_err`, `first_error`) and the job goes on; any other error stops it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorPolicy {
    /// The error types the job continues on: [`ErrorPolicy::READ`], [`ErrorPolicy::WRITE`]
    /// (trims too), [`ErrorPolicy::VERIFY`]; 0 stops at the first error (fio's default).
    pub continue_on: u8,
    /// Per type (read, write, verify), the errno values that are not fatal (fio
    /// `ignore_error`); `None`: fio's default list, EIO and EILSEQ.
    pub ignore: [Option<Vec<i32>>; 3],
    /// fio `error_dump=0`: no line is kept for an error that was not fatal.
    pub quiet: bool,
}

impl ErrorPolicy {
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const VERIFY: u8 = 4;
    /// fio's `__NON_FATAL_ERR`.
    const DEFAULT_NON_FATAL: [i32; 2] = [5 /* EIO */, 84 /* EILSEQ */];

    /// The type index (0 read, 1 write, 2 verify) of an error, as fio's td_error_type:
    /// EILSEQ is a verify error whatever the IO; a trim's is a write error.
    pub fn error_type(is_read: bool, errno: i32) -> usize {
        if errno == 84 {
            2
        } else if is_read {
            0
        } else {
            1
        }
    }

    /// Whether the job goes on after an IO of type `error_type` failed with `errno`.
    pub fn non_fatal(&self, error_type: usize, errno: i32) -> bool {
        if self.continue_on & (1 << error_type) == 0 {
            return false;
        }
        match &self.ignore[error_type] {
            Some(list) => list.contains(&errno),
            None => Self::DEFAULT_NON_FATAL.contains(&errno),
        }
    }
}

impl ThreadControl {
    pub fn is_default(&self) -> bool {
        *self == ThreadControl::default()
    }

    /// What thread `thread_index` (0-based, counted over every clone of every job of the
    /// run, in job order, as fio numbers threads) gets: with `split_cpus`, the CPU at that
    /// index of the set, wrapping (fio's `fio_cpus_split`); otherwise the whole set.
    pub fn for_thread(&self, thread_index: usize) -> ThreadControl {
        let mut control = self.clone();
        if self.split_cpus && !self.cpus.is_empty() {
            control.cpus = vec![self.cpus[thread_index % self.cpus.len()]];
        }
        control
    }
}

/// A Linux IO priority: class 1 realtime, 2 best-effort, 3 idle; level 0 (highest) to 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoPriority {
    pub class: u8,
    pub level: u8,
}
