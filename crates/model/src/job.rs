//! A runnable job: the typed form that every job-file dialect (fio ini, vdbench parameter files,
//! Iometer access specs, the command line) is lowered into, and that the engine executes.
//! It lives in `model` so that `jobfile` (which writes it) and `engine` (which runs it) meet only
//! here, the way ripgrep's crates meet through one small type.

use crate::units::Bytes;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Read/write direction pattern, as fio's `rw=` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mixed reads and writes (`rw=rw` / `rw=readwrite`).
    ReadWrite,
    /// Random mixed reads and writes (`rw=randrw`).
    RandRw,
    /// Sequential trims (`rw=trim`): on a regular file a hole is punched
    /// (`fallocate(PUNCH_HOLE | KEEP_SIZE)`, fio's falloc engine), on a block device the
    /// range is discarded (`BLKDISCARD`).
    Trim,
    /// Random trims (`rw=randtrim`).
    RandTrim,
    /// Each block trimmed, then written (`rw=trimwrite`), sequentially.
    TrimWrite,
    /// Random blocks, each trimmed then written (`rw=randtrimwrite`).
    RandTrimWrite,
}

impl RwMode {
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead
                | RwMode::RandWrite
                | RwMode::RandRw
                | RwMode::RandTrim
                | RwMode::RandTrimWrite
        )
    }
    /// True for the modes that issue trims. They change the target's content as writes do,
    /// so [`RwMode::has_writes`] is true for them too (the never-destroy rule, layout).
    pub fn has_trims(self) -> bool {
        matches!(
            self,
            RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite
        )
    }
    /// True for `trimwrite`/`randtrimwrite`: every trimmed block is then written.
    pub fn is_trimwrite(self) -> bool {
        matches!(self, RwMode::TrimWrite | RwMode::RandTrimWrite)
    }
    pub fn has_reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    pub fn has_writes(self) -> bool {
        matches!(
            self,
            RwMode::Write
                | RwMode::RandWrite
                | RwMode::ReadWrite
                | RwMode::RandRw
                | RwMode::Trim
                | RwMode::RandTrim
                | RwMode::TrimWrite
                | RwMode::RandTrimWrite
        )
    }
    pub fn is_mixed(self) -> bool {
        self.has_reads() && self.has_writes()
    }
    /// The mode fio calls `name` (`rw` and `readwrite` are one mode); `None` for any other
    /// name. Exact spelling: callers that accept other cases lower-case first.
    pub fn from_fio_name(name: &str) -> Option<RwMode> {
        Some(match name {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "rw" | "readwrite" => RwMode::ReadWrite,
            "randrw" => RwMode::RandRw,
            "trim" => RwMode::Trim,
            "randtrim" => RwMode::RandTrim,
            "trimwrite" => RwMode::TrimWrite,
            "randtrimwrite" => RwMode::RandTrimWrite,
            _ => return None,
        })
    }
    /// The names [`RwMode::from_fio_name`] takes, as a message lists them.
    pub const FIO_NAMES: &'static str =
        "read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite or randtrimwrite";

    /// A mode as a user writes it: fio's name in any case; an error lists the names.
    pub fn parse(text: &str) -> Result<RwMode, UnknownName> {
        RwMode::from_fio_name(&text.trim().to_ascii_lowercase()).ok_or_else(|| UnknownName {
            name: text.to_string(),
            known: RwMode::FIO_NAMES,
        })
    }
    /// The mode of a workload given as a read share, percent, and whether its IO is random
    /// (vdbench's rdpct/seekpct, Iometer's read and random percentages): all reads and all
    /// writes are the pure modes, any share between is mixed.
    pub fn from_mix(read_pct: f64, random: bool) -> RwMode {
        match (read_pct, random) {
            (r, true) if r >= 100.0 => RwMode::RandRead,
            (r, false) if r >= 100.0 => RwMode::Read,
            (r, true) if r <= 0.0 => RwMode::RandWrite,
            (r, false) if r <= 0.0 => RwMode::Write,
            (_, true) => RwMode::RandRw,
            (_, false) => RwMode::ReadWrite,
        }
    }
    /// fio's name for the mode.
    pub fn fio_name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
            RwMode::TrimWrite => "trimwrite",
            RwMode::RandTrimWrite => "randtrimwrite",
        }
    }
}

/// The two directions that fio reports separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

/// A value per direction, as fio's `bs=4k,8k` or `rate_iops=100,200` give them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerDirection<T> {
    pub read: T,
    pub write: T,
}

impl<T: Copy> PerDirection<T> {
    pub fn both(value: T) -> Self {
        PerDirection {
            read: value,
            write: value,
        }
    }
    pub fn get(&self, direction: Direction) -> T {
        match direction {
            Direction::Read => self.read,
            Direction::Write => self.write,
        }
    }
}

/// One entry of a block-size distribution (fio `bssplit=4k/10:64k/90`, vdbench
/// `xfersize=(4k,10,64k,90)`). Percentages of one direction add up to 100.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockSizeShare {
    pub size: Bytes,
    pub pct: f64,
}

/// Block sizes of a job: one size per direction, or a distribution per direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockSizeSpec {
    Fixed(PerDirection<Bytes>),
    Split {
        read: Vec<BlockSizeShare>,
        write: Vec<BlockSizeShare>,
    },
}

impl BlockSizeSpec {
    pub fn fixed(size: Bytes) -> Self {
        BlockSizeSpec::Fixed(PerDirection::both(size))
    }
    /// The largest size any IO of the job can have; buffers are sized by it.
    pub fn max_size(&self) -> Bytes {
        match self {
            BlockSizeSpec::Fixed(sizes) => sizes.read.max(sizes.write),
            BlockSizeSpec::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|share| share.size)
                .max()
                .unwrap_or(Bytes::ZERO),
        }
    }
    /// The smallest size any IO of the job can have (fio's `td_min_bs`).
    pub fn min_size(&self) -> Bytes {
        match self {
            BlockSizeSpec::Fixed(sizes) => sizes.read.min(sizes.write),
            BlockSizeSpec::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|share| share.size)
                .min()
                .unwrap_or(Bytes::ZERO),
        }
    }
    /// The mean size in one direction, weighted by the distribution.
    pub fn mean_size(&self, direction: Direction) -> Bytes {
        match self {
            BlockSizeSpec::Fixed(sizes) => sizes.get(direction),
            BlockSizeSpec::Split { read, write } => {
                let shares = match direction {
                    Direction::Read => read,
                    Direction::Write => write,
                };
                let total_pct: f64 = shares.iter().map(|s| s.pct).sum();
                if total_pct <= 0.0 {
                    return Bytes::ZERO;
                }
                let mean: f64 =
                    shares.iter().map(|s| s.size.as_f64() * s.pct).sum::<f64>() / total_pct;
                Bytes(mean.round() as u64)
            }
        }
    }
}

/// Which IO engine a job asks for. `Libaio` is accepted because the seed's job files name it;
/// iofit runs it on io_uring with the same queue-depth semantics and reports that it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// No IO at all: measures iofit's own overhead, like fio's null engine.
    Null,
    /// pread/pwrite, one IO at a time per job.
    Psync,
    /// read/write after lseek.
    Sync,
    /// preadv/pwritev.
    Pvsync,
    IoUring,
    Libaio,
    /// fio's `falloc`: every IO is a fallocate of its range (read: KEEP_SIZE, write: mode 0,
    /// trim: PUNCH_HOLE), one at a time; no data moves.
    Falloc,
    /// fio's `ftruncate`: every write truncates the file to the IO's offset; reads fail
    /// (EINVAL), as fio's do.
    Ftruncate,
}

/// A name that is not one of a fixed set (an IO pattern, an IO engine); says which are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{name}' is not known; use {known}")]
pub struct UnknownName {
    pub name: String,
    pub known: &'static str,
}

/// Every engine name iofit knows: fio's own names first, then the spellings fio's JSON output
/// and other tools use for the same engine (`false`: read from results, not taken in job files).
const ENGINE_NAMES: [(&str, EngineKind, bool); 12] = [
    ("null", EngineKind::Null, true),
    ("psync", EngineKind::Psync, true),
    ("sync", EngineKind::Sync, true),
    ("pvsync", EngineKind::Pvsync, true),
    ("io_uring", EngineKind::IoUring, true),
    ("libaio", EngineKind::Libaio, true),
    ("falloc", EngineKind::Falloc, true),
    ("ftruncate", EngineKind::Ftruncate, true),
    ("pvsync2", EngineKind::Pvsync, false),
    ("vsync", EngineKind::Pvsync, false),
    ("iouring", EngineKind::IoUring, false),
    ("io-uring", EngineKind::IoUring, false),
];

impl EngineKind {
    /// The names a job file's `ioengine=` takes, as a message lists them.
    pub const FIO_NAMES: &'static str =
        "null, psync, sync, pvsync, io_uring, libaio, falloc or ftruncate";

    /// The engine fio calls `name` (exact spelling), as a job file names it.
    pub fn from_fio_name(name: &str) -> Option<EngineKind> {
        ENGINE_NAMES
            .iter()
            .find(|(known, _, in_job_files)| *in_job_files && *known == name)
            .map(|(_, kind, _)| *kind)
    }

    /// The engine a result names, in any case and under the other spellings tools use
    /// (`pvsync2`, `iouring`, `io-uring`).
    pub fn from_reported_name(name: &str) -> Option<EngineKind> {
        let name = name.trim().to_ascii_lowercase();
        ENGINE_NAMES
            .iter()
            .find(|(known, _, _)| *known == name)
            .map(|(_, kind, _)| *kind)
    }

    /// [`EngineKind::from_reported_name`], or an error that lists fio's names.
    pub fn parse(text: &str) -> Result<EngineKind, UnknownName> {
        EngineKind::from_reported_name(text).ok_or_else(|| UnknownName {
            name: text.to_string(),
            known: EngineKind::FIO_NAMES,
        })
    }

    pub fn fio_name(self) -> &'static str {
        match self {
            EngineKind::Null => "null",
            EngineKind::Psync => "psync",
            EngineKind::Sync => "sync",
            EngineKind::Pvsync => "pvsync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
        }
    }
    /// Synchronous engines have one IO in flight per job whatever `iodepth` says (fio agrees).
    pub fn is_synchronous(self) -> bool {
        matches!(
            self,
            EngineKind::Psync
                | EngineKind::Sync
                | EngineKind::Pvsync
                | EngineKind::Falloc
                | EngineKind::Ftruncate
        )
    }
}

/// Where a job does its IO.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// fio `filename=a:b`: every clone of the job shares these files.
    Files(Vec<PathBuf>),
    /// fio `directory=D` without `filename`: clone `c` uses `D/<name>.<c>.<f>` for file `f`,
    /// exactly as fio names them, so an existing fio layout is reused.
    Directory { path: PathBuf, nrfiles: u32 },
}

/// How much of each file a job uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeSpec {
    Bytes(Bytes),
    /// fio `size=50%`: a share of the existing file or device.
    PercentOfTarget(f64),
}

fn is_no_logs(logs: &FioLogs) -> bool {
    !logs.any()
}

fn is_zero_i64(value: &i64) -> bool {
    *value == 0
}

fn is_zero_u64(value: &u64) -> bool {
    *value == 0
}

fn one() -> u32 {
    1
}

/// How a job's results are reported (fio's reporting options). Nothing here changes the IO;
/// the renderers read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reporting {
    /// The job section's own options as written (`key`, `value`), in order: fio's JSON
    /// `"job options"`. Bare flags are left out, as fio leaves them out.
    pub job_options: Vec<(String, String)>,
    /// The `[global]` options the job inherited, as written: fio's JSON `"global options"`.
    pub global_options: Vec<(String, String)>,
    /// fio `percentile_list`, ascending; empty means fio's default list.
    pub percentile_list: Vec<f64>,
    /// fio `clat_percentiles` (default on), `lat_percentiles`, `slat_percentiles`.
    pub clat_percentiles: bool,
    pub lat_percentiles: bool,
    pub slat_percentiles: bool,
    /// fio `unified_rw_reporting`: reads and writes reported apart, together as `mixed`, or
    /// both.
    pub unified_rw_reporting: UnifiedRw,
    /// fio `significant_figures` (1..=10, default 4): digits of the text output's rates.
    pub significant_figures: u8,
}

impl Default for Reporting {
    fn default() -> Self {
        Reporting {
            job_options: Vec::new(),
            global_options: Vec::new(),
            percentile_list: Vec::new(),
            clat_percentiles: true,
            lat_percentiles: false,
            slat_percentiles: false,
            unified_rw_reporting: UnifiedRw::None,
            significant_figures: 4,
        }
    }
}

/// fio's `unified_rw_reporting` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnifiedRw {
    /// `none`/`0`: read and write apart (fio's default).
    #[default]
    None,
    /// `mixed`/`1`: one `mixed` direction instead of read and write.
    Mixed,
    /// `both`/`2`: read, write, and `mixed` as well.
    Both,
}

fn is_default_reporting(reporting: &Reporting) -> bool {
    *reporting == Reporting::default()
}

/// fio's `write_bw_log`, `write_iops_log`, `write_lat_log`: file-name prefixes of the logs a
/// job writes (`PREFIX_bw.N.log`, N the clone's number in the run), averaged over
/// `JobSpec::log_interval` (fio `log_avg_msec`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FioLogs {
    pub bw_prefix: Option<String>,
    pub iops_prefix: Option<String>,
    pub lat_prefix: Option<String>,
    /// fio `write_hist_log`: prefix of `PREFIX_clat_hist.N.log`.
    #[serde(default)]
    pub hist_prefix: Option<String>,
    /// fio `log_offset=1`: an offset column (0 in averaged logs) before the priority.
    #[serde(default)]
    pub with_offset: bool,
    /// fio `log_unix_epoch=1`: times in ms since the Unix epoch, not since the job's start.
    #[serde(default)]
    pub unix_epoch: bool,
    /// fio `per_job_logs=0`: one `PREFIX_bw.log` shared by every clone, not one per clone.
    #[serde(default)]
    pub shared_file: bool,
    /// No `log_avg_msec`: the bw, iops and lat logs get one line per IO (fio's default),
    /// written by the engine as IOs complete.
    #[serde(default)]
    pub per_io: bool,
    /// fio `log_prio=1`: the logs' last column is the IO's ioprio value, not 0/1.
    #[serde(default)]
    pub with_prio: bool,
    /// fio `log_max_value=1`: an averaged latency log (`log_avg_msec`) holds each window's
    /// longest latency instead of its mean (bw and iops logs have one sample per window, so
    /// their lines are the same either way).
    #[serde(default)]
    pub max_value: bool,
}

impl FioLogs {
    pub fn any(&self) -> bool {
        self.bw_prefix.is_some()
            || self.iops_prefix.is_some()
            || self.lat_prefix.is_some()
            || self.hist_prefix.is_some()
    }
}

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

/// A fully resolved job. Every field has its final value: defaults were applied by the parser.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobSpec {
    pub name: String,
    /// Reporting group: jobs with the same group are summed under `group_reporting`.
    pub group_id: u32,
    /// Wait for all earlier jobs to finish before starting (fio `stonewall`/`wait_for_previous`).
    pub stonewall: bool,
    pub group_reporting: bool,
    pub target: Target,
    /// Region size per file; `None` means "use the existing file's size" (an error when absent).
    pub size: Option<SizeSpec>,
    pub offset: Bytes,
    pub rw: RwMode,
    /// Share of reads in a mixed job (fio `rwmixread`), 0..=100; 100 or 0 for pure modes.
    pub rwmix_read_pct: f64,
    /// Share of random IOs, 0..=100 (fio `percentage_random`, vdbench `seekpct`).
    pub random_pct: f64,
    pub block_size: BlockSizeSpec,
    /// The (smallest, largest) IO size of reads, writes and trims as the job file stated them
    /// (fio's `bs=(R) .., (W) .., (T) ..` header line). `block_size` holds what the job issues:
    /// a trim job's trims are in its write slot, so the stated sizes cannot be read back from
    /// it. `None` when the job came from elsewhere (the header then shows `block_size`).
    #[serde(default)]
    pub stated_block_sizes: Option<[(Bytes, Bytes); 3]>,
    pub engine: EngineKind,
    pub iodepth: u32,
    pub direct: bool,
    /// Clones of this job, each an independent thread (fio `numjobs`).
    pub numjobs: u32,
    pub runtime: Option<Duration>,
    /// Keep going until `runtime` even when the region has been covered.
    pub time_based: bool,
    /// Run but do not measure for this long first (fio `ramp_time`, vdbench `warmup`).
    pub ramp_time: Duration,
    pub start_delay: Duration,
    /// IOPS cap per direction per clone; `None` is unlimited.
    pub rate_iops: PerDirection<Option<u64>>,
    /// Bytes-per-second cap per direction per clone.
    pub rate_bytes_per_second: PerDirection<Option<u64>>,
    pub norandommap: bool,
    /// fio `rw=read:-8k` / `rw=write:4k`: bytes between the end of one sequential IO and the
    /// start of the next (negative: backwards).
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub seq_add_bytes: i64,
    /// vdbench `stride=(min,max)`: on top of `seq_add_bytes` (the minimum) a random skip of
    /// 0..this many bytes, in whole IO lengths, after each sequential IO.
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub seq_add_jitter_bytes: u64,
    /// fio `rw=randread:N`: a new random offset every N IOs (1: every IO).
    #[serde(default = "one")]
    pub random_run: u32,
    /// fio `rw_sequencer=identical`: the IOs of a random run repeat its offset instead of
    /// following on.
    #[serde(default)]
    pub repeat_offset_in_run: bool,
    /// Random offsets are multiples of this (fio `blockalign`); `None`: the smallest block size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_align: Option<Bytes>,
    /// How random offsets are spread (fio `random_distribution`).
    #[serde(default)]
    pub random_distribution: RandomDistribution,
    pub randrepeat: bool,
    /// Seed of the job's PRNG; printed in results so a run can be replayed.
    pub random_seed: u64,
    pub loops: u32,
    /// Issue fsync after every N writes (0: never).
    pub fsync_every: u32,
    /// Issue fdatasync after every N writes (0: never).
    pub fdatasync_every: u32,
    pub end_fsync: bool,
    /// Stop after this many bytes of IO per clone (fio `io_size`/`io_limit`), else `size`.
    pub io_limit: Option<Bytes>,
    /// Per-second (or `interval`) sampling period for the time series.
    pub log_interval: Duration,
    /// fio-format logs to write after the run.
    #[serde(default, skip_serializing_if = "is_no_logs")]
    pub logs: FioLogs,
    /// What the job writes in its blocks and how it checks them (verify, compressibility,
    /// dedupe).
    #[serde(default, skip_serializing_if = "crate::data::DataSpec::is_default")]
    pub data: crate::data::DataSpec,
    /// How the results are reported (fio's percentile, unified and option-echo settings).
    #[serde(default, skip_serializing_if = "is_default_reporting")]
    pub reporting: Reporting,
    /// What iofit does differently from what the job file asked, one sentence each (an option
    /// accepted with a note, an engine run as another): printed with the job, never silent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pauses between IOs and minimum rates (fio `thinktime*`, `rate_min`, `rate_process`).
    #[serde(default, skip_serializing_if = "Pacing::is_default")]
    pub pacing: Pacing,
    /// How files are opened and synced beyond `fsync`/`end_fsync` (fio `sync`,
    /// `fsync_on_close`, `end_syncfs`).
    #[serde(default, skip_serializing_if = "FileSync::is_default")]
    pub file_sync: FileSync,
    /// Scheduling of the job's threads (fio `cpus_allowed`, `nice`, `prio`/`prioclass`) and
    /// `exitall`.
    #[serde(default, skip_serializing_if = "ThreadControl::is_default")]
    pub thread_control: ThreadControl,
    /// End the job once its throughput is steady (fio `steadystate`, `ss_dur`, `ss_ramp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<SteadyStateSpec>,
    /// Search for the deepest queue that meets a latency target (fio `latency_target`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_target: Option<LatencyTargetSpec>,
    /// io_uring ring setup and per-IO flags (fio's io_uring engine options).
    #[serde(default, skip_serializing_if = "UringOptions::is_default")]
    pub uring: UringOptions,
    /// What the job measures, and the latency that fails it (fio `disable_*`, `max_latency`).
    #[serde(default, skip_serializing_if = "Measurement::is_default")]
    pub measurement: Measurement,
    /// Which of the job's files the next IO goes to (fio `file_service_type`).
    #[serde(default, skip_serializing_if = "FileService::is_default")]
    pub file_service: FileService,
    /// How the files of a `Target::Directory` are named (fio `filename_format`; `$jobname`,
    /// `$jobnum`, `$filenum`, `$clientuid`); `None`: fio's `$jobname.$jobnum.$filenum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename_format: Option<String>,
    /// Where each clone starts beyond `offset` (fio `offset=N%`, `offset_increment`,
    /// `offset_align`).
    #[serde(
        default,
        skip_serializing_if = "crate::placement::StartOffset::is_default"
    )]
    pub start: crate::placement::StartOffset,
    /// Flow control with other jobs of the same flow id (fio `flow`, `flow_id`, `flow_sleep`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<crate::placement::FlowSpec>,
    /// Never more than one IO in flight on overlapping bytes (fio `serialize_overlap`).
    #[serde(default)]
    pub serialize_overlap: bool,
    /// Per-IO priorities (fio `cmdprio*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdprio: Option<crate::placement::CmdPrio>,
    /// fio `fill_device`/`fill_fs`: write until the file system is full (ENOSPC ends the job,
    /// not as an error); the file is created empty, not laid out first.
    #[serde(default)]
    pub fill_device: bool,
    /// Replay an IO log instead of drawing IOs (fio `read_iolog`, `replay_*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<crate::replay::ReplaySpec>,
    /// Record every IO issued in fio's version 3 IO log at this path (fio `write_iolog`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_iolog: Option<PathBuf>,
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

impl JobSpec {
    /// A job with fio's defaults: sequential read, 4 KiB, psync, iodepth 1, one clone.
    pub fn new(name: impl Into<String>, target: Target) -> JobSpec {
        JobSpec {
            name: name.into(),
            group_id: 0,
            stonewall: false,
            group_reporting: false,
            target,
            size: None,
            offset: Bytes::ZERO,
            rw: RwMode::Read,
            rwmix_read_pct: 100.0,
            random_pct: 0.0,
            block_size: BlockSizeSpec::fixed(Bytes::kib(4)),
            stated_block_sizes: None,
            engine: EngineKind::Psync,
            iodepth: 1,
            direct: false,
            numjobs: 1,
            runtime: None,
            time_based: false,
            ramp_time: Duration::ZERO,
            start_delay: Duration::ZERO,
            rate_iops: PerDirection::both(None),
            rate_bytes_per_second: PerDirection::both(None),
            norandommap: false,
            seq_add_bytes: 0,
            seq_add_jitter_bytes: 0,
            random_run: 1,
            repeat_offset_in_run: false,
            block_align: None,
            random_distribution: RandomDistribution::Uniform,
            randrepeat: true,
            random_seed: 0x5eed_10f1_7000_0001,
            loops: 1,
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            io_limit: None,
            log_interval: Duration::from_secs(1),
            logs: FioLogs::default(),
            data: crate::data::DataSpec::default(),
            reporting: Reporting::default(),
            notes: Vec::new(),
            pacing: Pacing::default(),
            file_sync: FileSync::default(),
            thread_control: ThreadControl::default(),
            steady_state: None,
            latency_target: None,
            uring: UringOptions::default(),
            measurement: Measurement::default(),
            file_service: FileService::default(),
            filename_format: None,
            start: crate::placement::StartOffset::default(),
            flow: None,
            serialize_overlap: false,
            cmdprio: None,
            fill_device: false,
            replay: None,
            write_iolog: None,
        }
    }

    /// Sets `rw` and the read share and random share that follow from it.
    pub fn with_rw(mut self, rw: RwMode) -> JobSpec {
        self.rw = rw;
        self.rwmix_read_pct = if rw.is_mixed() {
            50.0
        } else if rw.has_reads() {
            100.0
        } else {
            0.0
        };
        self.random_pct = if rw.is_random() { 100.0 } else { 0.0 };
        self
    }

    /// The files clone `clone_index` of this job uses, named as fio names them.
    pub fn files_for_clone(&self, clone_index: u32) -> Vec<PathBuf> {
        match &self.target {
            Target::Files(files) => files.clone(),
            Target::Directory { path, nrfiles } => (0..(*nrfiles).max(1))
                .map(|file_index| path.join(self.file_name(clone_index, file_index)))
                .collect(),
        }
    }

    /// The name of file `file_index` of clone `clone_index` in the job's directory: fio's
    /// `make_filename`, keywords matched without regard to case. `$clientuid` is the client's
    /// address in fio's client/server mode and empty otherwise; iofit has no such mode (its
    /// multi-host runs give each host its own files), so it is empty here too.
    pub fn file_name(&self, clone_index: u32, file_index: u32) -> String {
        let Some(format) = self.filename_format.as_deref().filter(|f| !f.is_empty()) else {
            return format!("{}.{}.{}", self.name, clone_index, file_index);
        };
        let values = [
            ("$jobname", self.name.clone()),
            ("$clientuid", String::new()),
            ("$jobnum", clone_index.to_string()),
            ("$filenum", file_index.to_string()),
        ];
        // One pass from the left, so a value holding a keyword is not expanded again.
        let mut name = String::with_capacity(format.len() + self.name.len());
        let mut rest = format;
        while let Some(ch) = rest.chars().next() {
            let hit = values.iter().find(|(keyword, _)| {
                rest.get(..keyword.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(keyword))
            });
            match hit {
                Some((keyword, value)) => {
                    name.push_str(value);
                    rest = &rest[keyword.len()..];
                }
                None => {
                    name.push(ch);
                    rest = &rest[ch.len_utf8()..];
                }
            }
        }
        name
    }

    /// IOs in flight per clone: synchronous engines keep one whatever `iodepth` says.
    pub fn effective_iodepth(&self) -> u32 {
        if self.engine.is_synchronous() {
            1
        } else {
            self.iodepth.max(1)
        }
    }

    /// The abstract workload this job presents to storage.
    pub fn workload(&self) -> Workload {
        Workload {
            read_pct: self.rwmix_read_pct,
            random_pct: self.random_pct,
            read_io_size: self.block_size.mean_size(Direction::Read),
            write_io_size: self.block_size.mean_size(Direction::Write),
            queue_depth: self.effective_iodepth(),
            threads: self.numjobs.max(1),
        }
    }
}

/// The load a set of jobs puts on one place (a directory or a file's directory): what
/// `predict --job` sizes a volume for.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetLoad {
    /// The directory the jobs do IO in.
    pub place: PathBuf,
    /// Jobs (by name) that run there.
    pub jobs: Vec<String>,
    pub workload: Workload,
    /// Sum over the jobs' clones of their `rate_iops` (both directions), when every job there
    /// has one: the IOPS the job file will not exceed whatever the storage does.
    pub rate_iops_cap: Option<f64>,
    /// Likewise for `rate` (bytes per second).
    pub rate_bytes_per_second_cap: Option<f64>,
}

/// Groups jobs by the directory they do IO in, in order of first appearance, and combines each
/// group into one workload: threads add up; queue depth, read share, random share and IO sizes
/// are averaged weighted by each job's outstanding IOs (numjobs x iodepth), which is how the
/// jobs share the volume's IOs when their latencies are alike.
pub fn loads_by_place(jobs: &[JobSpec]) -> Vec<TargetLoad> {
    let mut groups: Vec<(PathBuf, Vec<&JobSpec>)> = Vec::new();
    for job in jobs {
        let place = match &job.target {
            Target::Directory { path, .. } => path.clone(),
            Target::Files(files) => files
                .first()
                .and_then(|f| f.parent())
                .map(PathBuf::from)
                .unwrap_or_default(),
        };
        match groups.iter_mut().find(|(p, _)| *p == place) {
            Some((_, members)) => members.push(job),
            None => groups.push((place, vec![job])),
        }
    }
    groups
        .into_iter()
        .map(|(place, members)| combine(place, &members))
        .collect()
}

fn combine(place: PathBuf, jobs: &[&JobSpec]) -> TargetLoad {
    let weight = |j: &JobSpec| f64::from(j.numjobs.max(1)) * f64::from(j.effective_iodepth());
    let total: f64 = jobs.iter().map(|j| weight(j)).sum::<f64>().max(1.0);
    let mean =
        |f: &dyn Fn(&JobSpec) -> f64| jobs.iter().map(|j| f(j) * weight(j)).sum::<f64>() / total;
    let read_pct = mean(&|j| j.rwmix_read_pct);
    // IO sizes weighted by the IOs that go each way.
    let size = |direction: Direction, share: &dyn Fn(&JobSpec) -> f64| {
        let weights: f64 = jobs.iter().map(|j| weight(j) * share(j)).sum();
        if weights <= 0.0 {
            return Bytes::kib(4);
        }
        let bytes: f64 = jobs
            .iter()
            .map(|j| weight(j) * share(j) * j.block_size.mean_size(direction).as_f64())
            .sum();
        Bytes((bytes / weights).round() as u64)
    };
    let threads: u32 = jobs.iter().map(|j| j.numjobs.max(1)).sum();
    let depth = (mean(&|j| f64::from(j.effective_iodepth())))
        .round()
        .max(1.0) as u32;
    let cap = |rate: &dyn Fn(&JobSpec) -> Option<f64>| -> Option<f64> {
        jobs.iter()
            .map(|j| rate(j).map(|r| r * f64::from(j.numjobs.max(1))))
            .sum::<Option<f64>>()
    };
    let both = |p: &PerDirection<Option<u64>>, j: &JobSpec| -> Option<f64> {
        let read = if j.rw.has_reads() { p.read } else { Some(0) };
        let write = if j.rw.has_writes() { p.write } else { Some(0) };
        Some((read? + write?) as f64)
    };
    TargetLoad {
        place,
        jobs: jobs.iter().map(|j| j.name.clone()).collect(),
        workload: Workload {
            read_pct,
            random_pct: mean(&|j| j.random_pct),
            read_io_size: size(Direction::Read, &|j| j.rwmix_read_pct),
            write_io_size: size(Direction::Write, &|j| 100.0 - j.rwmix_read_pct),
            queue_depth: depth,
            threads,
        },
        rate_iops_cap: cap(&|j| both(&j.rate_iops, j)),
        rate_bytes_per_second_cap: cap(&|j| both(&j.rate_bytes_per_second, j)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_names_round_trip_and_aliases_are_only_read() {
        for (name, kind, in_job_files) in ENGINE_NAMES {
            assert_eq!(EngineKind::from_reported_name(name), Some(kind));
            assert_eq!(
                EngineKind::from_fio_name(name).is_some(),
                in_job_files,
                "{name}"
            );
            if in_job_files {
                assert_eq!(kind.fio_name(), name);
            }
        }
        assert_eq!(EngineKind::parse("IO_URING"), Ok(EngineKind::IoUring));
        let error = EngineKind::parse("posixaio").unwrap_err();
        assert!(
            error.to_string().contains("libaio, falloc or ftruncate"),
            "{error}"
        );
        assert_eq!(RwMode::parse(" RandRead "), Ok(RwMode::RandRead));
        assert_eq!(RwMode::parse("RandTrim"), Ok(RwMode::RandTrim));
        assert!(RwMode::parse("randtrm")
            .unwrap_err()
            .to_string()
            .contains("randtrimwrite"));
    }

    #[test]
    fn jobs_combine_per_place() {
        let dir = |d: &str| Target::Directory {
            path: PathBuf::from(d),
            nrfiles: 1,
        };
        let mut jobs = Vec::new();
        for i in 0..4 {
            let mut r = JobSpec::new(format!("r{i}"), dir("/a")).with_rw(RwMode::RandRead);
            r.engine = EngineKind::IoUring;
            r.iodepth = 128;
            jobs.push(r);
        }
        for i in 0..4 {
            let mut w = JobSpec::new(format!("w{i}"), dir("/b")).with_rw(RwMode::RandWrite);
            w.engine = EngineKind::IoUring;
            w.iodepth = 128;
            w.block_size = BlockSizeSpec::fixed(Bytes::kib(8));
            w.rate_iops = PerDirection {
                read: None,
                write: Some(12_500),
            };
            jobs.push(w);
        }
        let loads = loads_by_place(&jobs);
        assert_eq!(loads.len(), 2);
        assert_eq!(loads[0].place, PathBuf::from("/a"));
        assert_eq!(
            (loads[0].workload.threads, loads[0].workload.queue_depth),
            (4, 128)
        );
        assert_eq!(loads[0].workload.read_pct, 100.0);
        assert_eq!(loads[0].rate_iops_cap, None);
        assert_eq!(loads[1].workload.read_pct, 0.0);
        assert_eq!(loads[1].workload.write_io_size, Bytes::kib(8));
        assert_eq!(loads[1].rate_iops_cap, Some(50_000.0));
        // A reader and a writer on one place: half the outstanding IOs each way.
        let mut mixed = jobs[0].clone();
        mixed.target = dir("/b");
        let loads = loads_by_place(&[mixed, jobs[4].clone()]);
        assert_eq!(loads.len(), 1);
        assert_eq!(loads[0].workload.read_pct, 50.0);
        assert_eq!(loads[0].workload.threads, 2);
        assert_eq!(loads[0].rate_iops_cap, None);
    }

    #[test]
    fn rw_modes_from_fio_names_and_mixes() {
        for mode in [
            RwMode::Read,
            RwMode::Write,
            RwMode::RandRead,
            RwMode::RandWrite,
            RwMode::ReadWrite,
            RwMode::RandRw,
            RwMode::Trim,
            RwMode::RandTrim,
            RwMode::TrimWrite,
            RwMode::RandTrimWrite,
        ] {
            assert_eq!(RwMode::from_fio_name(mode.fio_name()), Some(mode));
            // A trim changes the target as a write does (the never-destroy rule sees it).
            assert!(!mode.has_trims() || mode.has_writes() && !mode.has_reads());
        }
        assert_eq!(RwMode::from_fio_name("readwrite"), Some(RwMode::ReadWrite));
        assert!(RwMode::RandTrimWrite.is_random() && RwMode::RandTrimWrite.is_trimwrite());
        assert!(!RwMode::Trim.is_random() && !RwMode::Trim.is_trimwrite());
        assert_eq!(RwMode::from_fio_name("RandRead"), None);
        assert_eq!(RwMode::from_mix(100.0, true), RwMode::RandRead);
        assert_eq!(RwMode::from_mix(100.0, false), RwMode::Read);
        assert_eq!(RwMode::from_mix(0.0, true), RwMode::RandWrite);
        assert_eq!(RwMode::from_mix(0.0, false), RwMode::Write);
        assert_eq!(RwMode::from_mix(70.0, true), RwMode::RandRw);
        assert_eq!(RwMode::from_mix(70.0, false), RwMode::ReadWrite);
    }

    #[test]
    fn directory_files_are_named_like_fio() {
        let job = JobSpec::new(
            "writer1",
            Target::Directory {
                path: PathBuf::from("/mnt/nocache"),
                nrfiles: 1,
            },
        );
        assert_eq!(
            job.files_for_clone(2),
            vec![PathBuf::from("/mnt/nocache/writer1.2.0")]
        );
    }

    #[test]
    fn rw_sets_mix_and_randomness() {
        let job = JobSpec::new("a", Target::Files(vec![])).with_rw(RwMode::RandRw);
        assert_eq!(job.rwmix_read_pct, 50.0);
        assert_eq!(job.random_pct, 100.0);
        let job = job.with_rw(RwMode::Write);
        assert_eq!(job.rwmix_read_pct, 0.0);
        assert_eq!(job.workload().read_pct, 0.0);
    }

    #[test]
    fn synchronous_engines_have_depth_one() {
        let mut job = JobSpec::new("a", Target::Files(vec![]));
        job.iodepth = 32;
        assert_eq!(job.effective_iodepth(), 1);
        job.engine = EngineKind::IoUring;
        assert_eq!(job.effective_iodepth(), 32);
    }

    #[test]
    fn split_mean_size() {
        let spec = BlockSizeSpec::Split {
            read: vec![
                BlockSizeShare {
                    size: Bytes::kib(4),
                    pct: 50.0,
                },
                BlockSizeShare {
                    size: Bytes::kib(12),
                    pct: 50.0,
                },
            ],
            write: vec![BlockSizeShare {
                size: Bytes::kib(64),
                pct: 100.0,
            }],
        };
        assert_eq!(spec.mean_size(Direction::Read), Bytes::kib(8));
        assert_eq!(spec.max_size(), Bytes::kib(64));
    }
}
