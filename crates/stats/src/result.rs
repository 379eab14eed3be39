//! The results of a run, as the engine produces them and `report` renders them.
//!
//! This file is the contract between `engine` (writer) and `report`/`compare` (readers). Change
//! it only additively. Units are in field names; latencies are nanoseconds, bandwidth is bytes
//! per second (fio's JSON `bw` in KiB/s is derived from `bandwidth_bytes_per_second` / 1024 by
//! the renderer, never stored).

use iofit_model::job::{EngineKind, RwMode};
use iofit_model::units::{Bytes, Iops, Micros, Millis, Nanos, Seconds, UnixMillis, UnixSeconds};
use serde::{Deserialize, Serialize};

/// A latency distribution summarised from an HDR histogram. All values in nanoseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    /// Number of recorded samples; equals completed IOs for completion and total latency.
    pub count: u64,
    pub min_ns: Nanos<u64>,
    pub max_ns: Nanos<u64>,
    pub mean_ns: Nanos,
    pub stdev_ns: Nanos,
    /// (percentile, value) pairs, e.g. (99.9, 1_234_000), ascending by percentile. The engine
    /// fills fio's default list: 1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9,
    /// 99.95, 99.99.
    pub percentiles_ns: Vec<(f64, u64)>,
    /// Every sample in fio's latency bins (`FIO_IO_U_PLAT_*`, see `fio_bins`): (bucket value in
    /// ns, count), ascending, only buckets with samples; the counts add up to `count`. What
    /// fio's json+ prints as `bins`, and what any other percentile is computed from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fio_bins: Vec<(u64, u64)>,
    /// Sample counts in fio's latency ranges (its `lat (usec): 250=...%` lines): 10 ns ranges,
    /// 10 µs ranges, 12 ms ranges (`fio_bins::range_index`); empty when there are no samples.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fio_ranges: Vec<u64>,
}

impl LatencySummary {
    /// The value at exactly `percentile` if it was computed.
    pub fn percentile_ns(&self, percentile: f64) -> Option<u64> {
        self.percentiles_ns
            .iter()
            .find(|(p, _)| (p - percentile).abs() < 1e-9)
            .map(|(_, value)| *value)
    }

    /// The value at `percentile`: the computed one when there is one, else from the fio bins
    /// the way fio computes it (for a `percentile_list` beyond the computed list).
    pub fn percentile_or_bins_ns(&self, percentile: f64) -> u64 {
        self.percentile_ns(percentile)
            .unwrap_or_else(|| crate::fio_bins::percentile_ns(&self.fio_bins, percentile))
    }
}

/// What one direction (read or write) of a job or group did in the measured window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionResult {
    /// Completed IOs.
    pub ios: u64,
    /// Bytes moved by completed IOs.
    pub io_bytes: Bytes,
    /// Length of the measured window, nanoseconds (after ramp time).
    pub runtime_ns: Nanos<u64>,
    pub iops: Iops,
    pub bandwidth_bytes_per_second: f64,
    /// Submission latency (time to hand the IO to the kernel).
    pub submission_latency: LatencySummary,
    /// Completion latency (from submission to completion).
    pub completion_latency: LatencySummary,
    /// Total latency (from the moment the IO was due to completion).
    pub total_latency: LatencySummary,
    /// Per IO priority (fio `cmdprio*` jobs; fio's JSON `prios`), by ioprio value; their
    /// counts add up to `ios`. Empty for jobs without per-IO priorities.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prios: Vec<PrioLatency>,
}

/// The latencies of the IOs of one IO priority.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrioLatency {
    /// class << 13 | level, as ioprio_set takes it.
    pub ioprio: u16,
    pub completion_latency: LatencySummary,
    pub total_latency: LatencySummary,
}

/// One sample of the time series, covering `[start_ms, start_ms + interval_ms)` of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalSample {
    pub start_ms: Millis<u64>,
    pub interval_ms: Millis<u64>,
    pub read_ios: u64,
    pub read_bytes: Bytes,
    pub write_ios: u64,
    pub write_bytes: Bytes,
    /// Trims (fio's third direction, `DDIR_TRIM`): none unless the job trims.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub trim_ios: u64,
    #[serde(default, skip_serializing_if = "is_zero_bytes")]
    pub trim_bytes: Bytes,
    /// Mean total latency of IOs completed in the interval, nanoseconds (0 when none).
    pub latency_mean_ns: Nanos,
    /// 99th percentile total latency of IOs completed in the interval, nanoseconds.
    pub latency_p99_ns: Nanos<u64>,
    /// The interval's longest total latency, ns (vdbench's per-interval `resp max`).
    #[serde(default, skip_serializing_if = "is_zero_nanos_u64")]
    pub latency_max_ns: Nanos<u64>,
    /// Sum of the squares of the interval's total latencies, ns²: with the mean and the IO
    /// count it gives the standard deviation over any run of intervals (vdbench's `resp
    /// stddev`), which per-interval deviations cannot.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub latency_sum_sq_ns2: f64,
    /// Mean total latency of the interval's reads, ns (vdbench's `read resp`; the writes'
    /// follows from it and the overall mean).
    #[serde(default, skip_serializing_if = "is_zero_nanos")]
    pub read_latency_mean_ns: Nanos,
    /// The interval's total latencies in fio's bins (bucket value ns, count), kept only for a
    /// job that writes fio's histogram log (`write_hist_log`); empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency_bins: Vec<(u64, u64)>,
    /// Mean completion latency (submission to completion) of the interval's IOs, ns.
    #[serde(default, skip_serializing_if = "is_zero_nanos")]
    pub clat_mean_ns: Nanos,
    /// Mean submission latency of the interval's IOs, ns; 0 for synchronous engines, which
    /// have none (fio writes an empty slat log for them).
    #[serde(default, skip_serializing_if = "is_zero_nanos")]
    pub slat_mean_ns: Nanos,
    /// The same latency numbers per direction (read, write, trim: indexed by
    /// [`crate::ddir::Ddir`]), kept only for a job with more than one direction that writes
    /// fio's averaged latency or histogram logs (fio writes a line per direction there).
    /// Results written before trims had a series hold two entries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_direction: Option<Vec<DirectionInterval>>,
}

impl IntervalSample {
    /// The interval's IOs of every direction.
    pub fn ios(&self) -> u64 {
        self.read_ios + self.write_ios + self.trim_ios
    }

    /// The interval's (IOs, bytes) of one direction.
    pub fn of(&self, ddir: crate::ddir::Ddir) -> (u64, u64) {
        match ddir {
            crate::ddir::Ddir::Read => (self.read_ios, self.read_bytes.as_u64()),
            crate::ddir::Ddir::Write => (self.write_ios, self.write_bytes.as_u64()),
            crate::ddir::Ddir::Trim => (self.trim_ios, self.trim_bytes.as_u64()),
        }
    }
}

/// One direction's latency numbers of one interval.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectionInterval {
    pub latency_mean_ns: Nanos,
    pub clat_mean_ns: Nanos,
    pub slat_mean_ns: Nanos,
    /// The direction's longest total, completion and submission latency in the interval, ns
    /// (fio's `log_max_value=1` logs).
    #[serde(default, skip_serializing_if = "is_zero_nanos_u64")]
    pub latency_max_ns: Nanos<u64>,
    #[serde(default, skip_serializing_if = "is_zero_nanos_u64")]
    pub clat_max_ns: Nanos<u64>,
    #[serde(default, skip_serializing_if = "is_zero_nanos_u64")]
    pub slat_max_ns: Nanos<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency_bins: Vec<(u64, u64)>,
}

fn is_zero(value: &f64) -> bool {
    *value == 0.0
}

fn is_zero_nanos(value: &Nanos) -> bool {
    value.get() == 0.0
}

fn is_zero_nanos_u64(value: &Nanos<u64>) -> bool {
    value.get() == 0
}

fn is_zero_bytes(value: &Bytes) -> bool {
    *value == Bytes::ZERO
}

fn is_zero_u64(value: &u64) -> bool {
    *value == 0
}

/// The result of one job (all its clones merged when `group_reporting`, else one clone).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    pub name: String,
    pub group_id: u32,
    /// How many clones (fio numjobs) this result covers.
    pub clones: u32,
    /// The engine the job asked for, and the engine that actually ran (libaio runs on io_uring).
    pub engine_requested: Option<EngineKind>,
    pub engine_used: Option<EngineKind>,
    pub rw: Option<RwMode>,
    pub iodepth: u32,
    pub read: DirectionResult,
    pub write: DirectionResult,
    /// Trims (fio's `trim` block): `rw=trim`, `randtrim`, `trimwrite`, `randtrimwrite`.
    #[serde(default)]
    pub trim: DirectionResult,
    /// fsync/fdatasync calls issued.
    pub syncs: u64,
    /// The latency of each fsync/fdatasync of `fsync=`/`fdatasync=` in the measured window
    /// (fio's "sync" block; the end_fsync is not in it, as in fio).
    #[serde(default)]
    pub sync_latency: LatencySummary,
    pub series: Vec<IntervalSample>,
    /// CPU time of the job's threads as a share of its wall time, percent (fio's usr_cpu/sys_cpu).
    pub usr_cpu_pct: f64,
    pub sys_cpu_pct: f64,
    pub context_switches: u64,
    /// Seed of the job's PRNG, so the run can be replayed.
    pub random_seed: u64,
    /// Set when the job stopped on an error; the numbers cover what completed before it.
    pub error: Option<String>,
    /// True when the run was interrupted (Ctrl-C) before the job's planned end.
    pub interrupted: bool,
    /// Data verification (fio `verify=`, vdbench `validate=yes`): what was checked and the bad
    /// units found. `None` when the job did not verify.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyResult>,
    /// The rest of what fio reports per job (IO depth distributions, page faults, latency
    /// target and steady-state results).
    #[serde(default)]
    pub fio: FioJobExtras,
    /// The steady-state check of a job that asked for one (fio `steadystate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steadystate: Option<SteadyStateResult>,
    /// The queue depth a `latency_target` search settled on (fio's `latency_depth`); the
    /// smallest over the result's clones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_depth_found: Option<u32>,
}

/// fio's per-job facts beyond IOs and latencies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FioJobExtras {
    /// The thread id of the job's first clone (fio prints its job's pid).
    pub pid: u32,
    /// When the measured window began, ms since the Unix epoch (fio's `log_unix_epoch`).
    #[serde(default)]
    pub start_epoch_ms: UnixMillis,
    pub io_depths: IoDepthCounts,
    /// Page faults of the job's threads (fio's `majf`, `minf`).
    pub major_faults: u64,
    pub minor_faults: u64,
    /// What fio's `latency_target` search found; `None` when the job had no target.
    pub latency_target: Option<LatencyTargetResult>,
    /// The job's whole measured time, when it differs from its directions' (a write job with a
    /// verify phase: fio's write runtime is the write phase, its read runtime the verify phase,
    /// and `job_runtime` both); 0: the longest direction's.
    #[serde(default)]
    pub job_runtime_ns: Nanos<u64>,
    /// fio's `disable_bw_measurement`: no bandwidth samples were kept, so the report's
    /// `bw_min`/`bw_max`/`bw_mean`/`bw_dev`/`bw_samples` are zero, as fio's are.
    #[serde(default)]
    pub bw_measurement_off: bool,
    /// The job goes on after some IO errors (fio `continue_on_error`): fio's JSON then has
    /// `total_err` and `first_error`.
    #[serde(default)]
    pub continue_on_error: bool,
    /// IOs that failed with an error the job went on after, and the first one's errno.
    #[serde(default)]
    pub total_err: u64,
    #[serde(default)]
    pub first_error: i32,
    /// fio's `io_u error` line for each of the first of those errors (none with
    /// `error_dump=0`); capped, `total_err` is the count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_lines: Vec<String>,
}

/// fio's IO depth distributions, counted in fio's buckets (`io_u_map`, `io_u_submit`,
/// `io_u_complete`): index 0..=6 are depths 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64 (for
/// `issued`, per IO, the depth after it was queued) and IOs per call 0, 1-4, 5-8, 9-16, 17-32,
/// 33-64, >64 (for `submit` and `complete`, per submit or reap call that returned IOs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoDepthCounts {
    pub issued: [u64; 7],
    pub submit: [u64; 7],
    pub complete: [u64; 7],
}

impl IoDepthCounts {
    /// Counts `ios` IOs issued while `depth` were outstanding (fio's `io_u_mark_depth`).
    #[inline]
    pub fn mark_depth(&mut self, depth: u64, ios: u64) {
        let index = match depth {
            0 | 1 => 0,
            2..=3 => 1,
            4..=7 => 2,
            8..=15 => 3,
            16..=31 => 4,
            32..=63 => 5,
            _ => 6,
        };
        self.issued[index] += ios;
    }

    /// fio's bucket of a call that handled `ios` IOs (`io_u_mark_submit`/`_complete`).
    #[inline]
    pub fn batch_index(ios: u64) -> usize {
        match ios {
            0 => 0,
            1..=4 => 1,
            5..=8 => 2,
            9..=16 => 3,
            17..=32 => 4,
            33..=64 => 5,
            _ => 6,
        }
    }

    pub fn merge(&mut self, other: &IoDepthCounts) {
        for (mine, theirs) in [
            (&mut self.issued, &other.issued),
            (&mut self.submit, &other.submit),
            (&mut self.complete, &other.complete),
        ] {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }
}

/// fio's `latency_target` result: the queue depth its search settled on (`latency_depth`) and
/// the target it searched against.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyTargetResult {
    pub target_us: Micros<u64>,
    pub window_us: Micros<u64>,
    /// The share of IOs that must meet the target, percent (fio's `latency_percentile`).
    pub percentile: f64,
    /// The depth found.
    pub depth: u32,
}

/// One block device's counters over the run, from /proc/diskstats (fio's `disk_util`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskUtil {
    pub name: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_merges: u64,
    pub write_merges: u64,
    /// Milliseconds spent on reads and writes, and the weighted time in queue.
    pub read_ticks: u64,
    pub write_ticks: u64,
    pub in_queue: u64,
    /// Busy time over the run's wall time, percent.
    pub util: f64,
}

/// What a job's data verification checked and found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifyResult {
    /// fio's name of the mode (`crc32c`, `md5`, `meta`, ...).
    pub mode: String,
    /// Units read back and compared.
    pub units_checked: u64,
    /// Units that did not hold what was last written (all counted; the first ones listed).
    pub bad_units: u64,
    pub errors: Vec<DataError>,
}

/// One bad unit: where, and what was expected and found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataError {
    pub file: String,
    pub offset: u64,
    pub length: u64,
    /// `bad checksum`, `misdirected write`, `stale data (lost write)`, `bad magic`, ...
    pub kind: String,
    pub expected: String,
    pub found: String,
}

/// fio's `steadystate` JSON block: the criterion, whether it was attained, and the window of
/// one-second samples it was judged on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SteadyStateResult {
    /// The criterion as fio prints it, e.g. `iops_slope:0.300000%`.
    pub ss: String,
    /// Window length, seconds (fio `ss_dur`).
    pub duration_s: Seconds<u64>,
    pub attained: bool,
    /// The last value judged: the slope or the largest deviation, in percent of the mean when
    /// the limit is a percentage.
    pub criterion: f64,
    pub percent: bool,
    /// Largest distance of a sample from the window's mean (IOPS, or KiB/s).
    pub max_deviation: f64,
    /// Slope of the window's least-squares line, per second.
    pub slope: f64,
    /// Window means: bandwidth in KiB/s and IOPS, rounded down as fio does.
    pub bw_mean_kib_s: u64,
    pub iops_mean: u64,
    /// The window's samples, oldest first.
    pub iops: Vec<u64>,
    pub bw_kib_s: Vec<u64>,
}

/// A whole run: every job, in order, plus where and how it ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub tool: String,
    pub version: String,
    /// Seconds since the Unix epoch at the start of the run.
    pub timestamp_s: UnixSeconds,
    pub hostname: String,
    pub jobs: Vec<JobResult>,
    /// The block devices under the run's files, over the run (fio's `Disk stats`).
    #[serde(default)]
    pub disk_util: Vec<DiskUtil>,
}
