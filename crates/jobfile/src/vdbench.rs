//! vdbench parameter files: `hd=`, `sd=`, `wd=`, `rd=` lines (with their `default` entries),
//! `include=`, `*` comments, quoted and parenthesised lists, wildcards and for-loops, expanded
//! into runs and lowered to [`JobSpec`]s with vdbench's semantics.
//!
//! vdbench semantics kept (from vdbench's user guide):
//! - `threads=` is the number of concurrent outstanding IOs per SD; each thread has one IO in
//!   flight, so a random workload is lowered to one synchronous job per (wd, sd) with `threads`
//!   clones; a sequential one (seekpct=0 or eof) to one clone with `threads` IOs in flight on
//!   one stream, as vdbench's threads share the sequential position. When several WDs share an
//!   SD, its threads are split between them.
//! - `seekpct=` is the share of random IOs (default 100); `seekpct=0` is sequential and wraps at
//!   the end of the SD; `seekpct=eof` (or -1) is one sequential pass that ends at end of file.
//! - `rdpct=` default 100; `xfersize=` default 4k, single or `(size,pct,size,pct...)`;
//!   sizes count in powers of 1024 (64k = 65,536 bytes).
//! - `iorate=max` is uncontrolled; `iorate=N` caps the run's total IOs per second, split between
//!   WDs by `skew` (equal shares when absent), then between SDs and threads; `iorate=curve` runs
//!   max first and then the `curve=` percentages of the measured max (default
//!   10,50,70,80,90,100).
//! - `interval=` (default 1 s) is the reporting interval; `warmup=` (default 0) runs before
//!   `elapsed=` (default 30 s), as vdbench's Reporter counts them: `warmup/interval` warm-up
//!   intervals (at least one: with no warmup the first interval is the warm-up), then
//!   `elapsed/interval` measured ones (one fewer without warmup), printed and averaged as
//!   `avg_FIRST-LAST` ([`Run::interval_plan`]).
//! - Each `forthreads`/`forxfersize`/`forrdpct`/`forseekpct` value (and each value of a
//!   parenthesised `threads`/`iorate` list) is one run; several for-lists nest, the first
//!   written outermost.
//! - Hosts: `hd=` lines with `system=`, `user=`, `jvms=`, `vdbench=` (where iofit is on the
//!   host) and `shell=` (ssh; rsh and vdbench's own daemon run over ssh too, with a note); an SD
//!   runs on the hds its `host=` names (one, a list, `*`; none: every hd). [`Run::on_host`]
//!   gives each host its share of a run.

mod data;
mod fs;
mod keys;
pub mod lists;

pub use fs::{
    leaf_dirs, FileOp, FileSelect, FileShare, FormatMode, FsRun, FsRunDef, FsRunFwd, FsdDef,
    FwdDef, FwdRate,
};

use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::values::{parse_percent, parse_size, parse_time, parse_u32, ValueError};
use iofit_model::job::{
    AccessZone, BlockSizeShare, BlockSizeSpec, EngineKind, JobSpec, PerDirection,
    RandomDistribution, RwMode, SizeSpec, Target, ZoneSize,
};
use iofit_model::units::{Bytes, SizeBase};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// vdbench's default `curve=` percentages.
pub const DEFAULT_CURVE_PCT: [f64; 6] = [10.0, 50.0, 70.0, 80.0, 90.0, 100.0];
const MAX_INCLUDE_DEPTH: usize = 8;
/// A file expanding to more runs than this is refused (nested for-lists multiply; a typo in a
/// range must not allocate without bound).
pub const MAX_RUNS: usize = 10_000;

/// A host definition (`hd=`): where it runs and how iofit reaches it.
#[derive(Clone, Debug, PartialEq)]
pub struct HostDef {
    pub name: String,
    /// The machine (`system=`); the name itself when absent.
    pub system: Option<String>,
    /// `user=`: the ssh login.
    pub user: Option<String>,
    /// `jvms=`: worker processes on the host (vdbench's slave JVMs); 1 when absent.
    pub jvms: u32,
    /// `vdbench=`: where iofit is on the host (vdbench's install path key).
    pub remote_binary: Option<String>,
    pub loc: Location,
}

impl HostDef {
    pub fn machine(&self) -> &str {
        self.system.as_deref().unwrap_or(&self.name)
    }
}

/// A storage definition (`sd=`): a file or device to do IO on.
#[derive(Clone, Debug, PartialEq)]
pub struct StorageDef {
    pub name: String,
    pub lun: PathBuf,
    /// `size=`; `None` means the existing lun's size.
    pub size: Option<Bytes>,
    /// `openflags=o_direct` (or `directio`).
    pub direct: bool,
    /// `host=`: the hd names this SD runs on (`*` for all); empty means every hd.
    pub hosts: Vec<String>,
    /// `threads=` on the SD: an upper bound on the run's threads for this SD.
    pub max_threads: Option<u32>,
    /// `openflags=o_dsync`/`o_sync`/`fsync`: every write is made durable (lowered to a
    /// data sync after each write, with a note).
    pub sync_writes: Option<SyncFlag>,
    /// `range=(start%,end%)`: the part of the lun used.
    pub range: Option<(f64, f64)>,
    /// `hitarea=`: the area cache hits (rhpct/whpct) go to; vdbench's default is 1m.
    pub hitarea: Option<Bytes>,
    /// `offset=`: bytes skipped at the start of the lun.
    pub offset: Bytes,
    /// `align=`: random offsets are multiples of this.
    pub align: Option<Bytes>,
    pub loc: Location,
}

/// The synchronous-write open flags vdbench knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SyncFlag {
    /// `o_dsync`: data made durable with every write.
    DataSync,
    /// `o_sync` or `fsync`: data and metadata made durable with every write.
    Sync,
}

/// `seekpct=`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Seek {
    /// Share of random IOs, 0..=100; 0 is sequential, wrapping at the end.
    RandomPct(f64),
    /// One sequential pass that stops at end of file.
    Eof,
}

/// `xfersize=`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum XferSize {
    Fixed(Bytes),
    Distribution(Vec<(Bytes, f64)>),
}

impl XferSize {
    fn label(&self) -> String {
        match self {
            XferSize::Fixed(size) => vdbench_size(*size),
            XferSize::Distribution(parts) => {
                let inner: Vec<String> = parts
                    .iter()
                    .map(|(s, p)| format!("{},{}", vdbench_size(*s), p))
                    .collect();
                format!("({})", inner.join(","))
            }
        }
    }
    fn block_size(&self) -> BlockSizeSpec {
        match self {
            XferSize::Fixed(size) => BlockSizeSpec::fixed(*size),
            XferSize::Distribution(parts) => {
                let shares: Vec<BlockSizeShare> = parts
                    .iter()
                    .map(|(size, pct)| BlockSizeShare {
                        size: *size,
                        pct: *pct,
                    })
                    .collect();
                BlockSizeSpec::Split {
                    read: shares.clone(),
                    write: shares,
                }
            }
        }
    }
}

/// vdbench writes sizes as `64k`, `1m`.
fn vdbench_size(size: Bytes) -> String {
    let n = size.as_u64();
    for (unit, suffix) in [
        (1u64 << 40, "t"),
        (1 << 30, "g"),
        (1 << 20, "m"),
        (1 << 10, "k"),
    ] {
        if n >= unit && n.is_multiple_of(unit) {
            return format!("{}{}", n / unit, suffix);
        }
    }
    n.to_string()
}

/// A workload definition (`wd=`).
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadDef {
    pub name: String,
    /// SD names or wildcard patterns.
    pub sd_patterns: Vec<String>,
    pub rdpct: f64,
    pub seek: Seek,
    pub xfersize: XferSize,
    /// Share of the run's IO rate, percent.
    pub skew: Option<f64>,
    pub host: Option<String>,
    /// `range=(start%,end%)` of the wd (overrides the sd's).
    pub range: Option<(f64, f64)>,
    /// `hotband=(start%,end%)`: IOs concentrate in this band.
    pub hotband: Option<(f64, f64)>,
    /// `stride=(min,max)`: random IOs skip forward min..max bytes from the end of the last IO.
    pub stride: Option<(Bytes, Bytes)>,
    /// `streams=N`: the sd split into N equal regions, each its own stream with threads/N.
    pub streams: Option<u32>,
    /// `rhpct=`/`whpct=`: share of reads/writes that go to the sd's hit area.
    pub rhpct: f64,
    pub whpct: f64,
    /// `iorate=` on the wd: this workload's own IO rate.
    pub iorate: Option<f64>,
    /// `openflags=` on the wd (o_direct).
    pub direct: bool,
    pub sync_writes: Option<SyncFlag>,
    pub loc: Location,
}

/// `iorate=`.
#[derive(Clone, Debug, PartialEq)]
pub enum IoRate {
    Max,
    /// Total IOs per second of the run.
    Fixed(f64),
    /// Max first, then these percentages of the measured max.
    Curve(Vec<f64>),
}

/// A run definition (`rd=`) as written, before for-loops expand.
#[derive(Clone, Debug, PartialEq)]
pub struct RunDef {
    pub name: String,
    pub wd_patterns: Vec<String>,
    pub sd_patterns: Option<Vec<String>>,
    pub iorates: Vec<IoRate>,
    pub elapsed: Duration,
    pub warmup: Duration,
    pub interval: Duration,
    /// For-loops in the order written: each is one nesting level.
    pub loops: Vec<ForLoop>,
    /// `pause=`: idle time after each run.
    pub pause: Duration,
    /// `distribution=`: how IO arrivals are spaced under a fixed iorate.
    pub arrivals: Arrivals,
    /// `maxdata=`: the run stops after this many bytes (in total).
    pub maxdata: Option<Bytes>,
    /// `openflags=` on the rd: applies to every sd of the run.
    pub direct: bool,
    /// A file system run (`fwd=`): its fwds, rate, format and operations.
    pub fs: Option<FsRunDef>,
    pub loc: Location,
}

/// `distribution=` of an rd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Arrivals {
    /// vdbench's default: exponential (Poisson) inter-arrival times.
    #[default]
    Exponential,
    Uniform,
    Deterministic,
}

/// One for-list of an RD.
#[derive(Clone, Debug, PartialEq)]
pub enum ForLoop {
    Threads(Vec<u32>),
    XferSize(Vec<XferSize>),
    RdPct(Vec<f64>),
    SeekPct(Vec<Seek>),
    RhPct(Vec<f64>),
    WhPct(Vec<f64>),
    HitArea(Vec<Bytes>),
    /// `forcompratio=`: shown by --parse-only; a run refuses it (a data parameter iofit does not run).
    CompRatio(Vec<f64>),
    /// File system loops: fsd depth, width, files, sizes; fwd operation.
    Depth(Vec<u32>),
    Width(Vec<u32>),
    Files(Vec<u32>),
    Sizes(Vec<Bytes>),
    Operations(Vec<FileOp>),
}

/// A parsed parameter file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ParamFile {
    pub hosts: Vec<HostDef>,
    pub sds: Vec<StorageDef>,
    pub wds: Vec<WorkloadDef>,
    pub rds: Vec<RunDef>,
    pub fsds: Vec<FsdDef>,
    pub fwds: Vec<FwdDef>,
    /// Data content and validation keys (`compratio`, `dedupratio`, `validate`,
    /// `data_errors`, `pattern`, `journal`...): the first six run (vdbench/data.rs), the
    /// rest a run refuses ([`ParamFile::check_runnable`]).
    pub data: Vec<DataParam>,
    /// `concatenatesds=yes`: the sds of a wd form one volume.
    pub concatenate: bool,
    /// What iofit reads differently from the letter of the file, one sentence each.
    pub notes: Vec<String>,
}

/// A data content or validation parameter, where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct DataParam {
    /// `compratio`, `wd=wd1 compratio`...
    pub key: String,
    pub value: String,
    pub loc: Location,
}

/// One (wd, sd) pair of a run, with the for-loop values applied.
#[derive(Clone, Debug, PartialEq)]
pub struct RunWorkload {
    pub wd: String,
    pub sd: StorageDef,
    pub rdpct: f64,
    pub seek: Seek,
    pub xfersize: XferSize,
    /// Threads (outstanding IOs) of this pair.
    pub threads: u32,
    /// Share of the run's rate for this pair, 0..1.
    pub rate_share: f64,
    /// `range=(start%,end%)` (the wd's, else the sd's).
    pub range: Option<(f64, f64)>,
    pub hotband: Option<(f64, f64)>,
    /// The wd's `stride=(min,max)`.
    pub stride: Option<(Bytes, Bytes)>,
    /// The wd's `streams=N`.
    pub streams: Option<u32>,
    /// Shares of reads and writes that hit the sd's `hitarea`.
    pub rhpct: f64,
    pub whpct: f64,
    pub hitarea: Option<Bytes>,
    /// The wd's own `iorate=`.
    pub iorate: Option<f64>,
    pub direct: bool,
    pub sync_writes: Option<SyncFlag>,
}

/// One expanded run: what vdbench prints as "Starting RD=...".
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub rd: String,
    /// "threads=25 xfersize=8k": the for-loop values of this run.
    pub for_label: String,
    /// Threads per SD.
    pub threads: u32,
    pub iorate: IoRate,
    pub elapsed: Duration,
    pub warmup: Duration,
    pub interval: Duration,
    /// Idle time after the run (`pause=`).
    pub pause: Duration,
    pub arrivals: Arrivals,
    /// Stop after this many bytes in total (`maxdata=`).
    pub maxdata: Option<Bytes>,
    /// `concatenatesds=yes`.
    pub concatenate: bool,
    pub workloads: Vec<RunWorkload>,
    /// The file's data settings (validate, compratio, dedup; vdbench/data.rs).
    pub data: iofit_model::data::DataSpec,
}

impl RunWorkload {
    /// `offset=`, `range=`, `hitarea=` with `rhpct`/`whpct`, and `hotband=` as the job's
    /// region and offset distribution. Needs the sd's size (given or read from the lun by the
    /// runner); without it the whole lun is used and a note says so.
    fn apply_region(&self, job: &mut JobSpec) {
        let wants_region = self.range.is_some()
            || self.hotband.is_some()
            || self.sd.offset > Bytes::ZERO
            || self.rhpct > 0.0
            || self.whpct > 0.0;
        if let Some(align) = self.sd.align {
            job.block_align = Some(align);
        }
        let Some(size) = self.sd.size else {
            if wants_region {
                job.notes.push(
                    "range/offset/hitarea/hotband need the lun's size; give size= on the sd".into(),
                );
            }
            return;
        };
        let usable = size.as_u64().saturating_sub(self.sd.offset.as_u64());
        let (start_pct, end_pct) = self.hotband.or(self.range).unwrap_or((0.0, 100.0));
        let block = self.xfersize.block_size().max_size().as_u64().max(1);
        let round = |bytes: f64| (bytes as u64) / block * block;
        let start = round(usable as f64 * start_pct / 100.0);
        let end = round(usable as f64 * end_pct / 100.0).max(start + block);
        job.offset = Bytes(self.sd.offset.as_u64() + start);
        job.size = Some(SizeSpec::Bytes(Bytes(end - start)));
        let region = end - start;
        if let Some((lo, hi)) = self.hotband {
            job.random_distribution = hotband_zones(region);
            job.notes.push(format!(
                "hotband=({lo},{hi}): IOs spread over the band by vdbench's cache-access curve (HotBand.java) as zones"
            ));
        } else if self.rhpct > 0.0 || self.whpct > 0.0 {
            let hit_pct = (self.rdpct * self.rhpct + (100.0 - self.rdpct) * self.whpct) / 100.0;
            // hitarea=0: vdbench's hits land at the start of the area; one block here.
            let hitarea = self
                .hitarea
                .unwrap_or(Bytes::mib(1))
                .as_u64()
                .max(block)
                .min(region);
            job.random_distribution = RandomDistribution::Zoned(vec![
                AccessZone {
                    access_pct: hit_pct,
                    size: ZoneSize::Bytes(Bytes(hitarea)),
                },
                AccessZone {
                    access_pct: 100.0 - hit_pct,
                    size: ZoneSize::Bytes(Bytes(region - hitarea)),
                },
            ]);
            if self.rhpct != self.whpct && self.rdpct > 0.0 && self.rdpct < 100.0 {
                job.notes.push(format!(
                    "rhpct={} whpct={}: iofit sends {hit_pct:.1}% of all IOs (reads and writes alike) to the hit area",
                    self.rhpct, self.whpct
                ));
            }
        }
    }

    /// `stride=(min,max)` (given when the IOs are random): each IO starts min plus a random
    /// 0..(max-min) in whole transfer sizes after the end of the last one, wrapping to the
    /// start at the end of the region, as vdbench's WG_entry does.
    fn apply_stride(&self, stride: Option<(Bytes, Bytes)>, job: &mut JobSpec) {
        if let Some((min, max)) = stride {
            job.seq_add_bytes = min.as_u64().min(i64::MAX as u64) as i64;
            job.seq_add_jitter_bytes = max.as_u64() - min.as_u64();
            if let Seek::RandomPct(p) = self.seek {
                if p < 100.0 {
                    job.notes.push(format!(
                        "stride= with seekpct={p}: vdbench mixes {p}% strided and sequential IOs; iofit strides every IO"
                    ));
                }
            }
        } else if self.stride.is_some() {
            job.notes.push(
                "stride= is used by random IOs only (vdbench); this workload is sequential".into(),
            );
        }
    }

    /// Streams this pair runs as: `streams=` when the sd's size is known, else 1.
    fn stream_count(&self) -> u32 {
        match (self.streams, self.sd.size) {
            (Some(n), Some(_)) if n > 1 => n,
            _ => 1,
        }
    }

    /// `streams=N` (vdbench StreamContext): the job's region split into N equal parts (each
    /// truncated to the largest transfer size), each its own job with threads/N of the pair's
    /// threads and 1/N of its IO rate.
    fn split_streams(&self, job: JobSpec) -> Vec<JobSpec> {
        let n = self.stream_count();
        let Some(SizeSpec::Bytes(region)) = job.size else {
            let mut job = job;
            if self.streams.is_some() {
                job.notes
                    .push("streams= needs the lun's size; give size= on the sd".into());
            }
            return vec![job];
        };
        if n < 2 {
            return vec![job];
        }
        let block = self.xfersize.block_size().max_size().as_u64().max(1);
        let stream_bytes = region.as_u64() / u64::from(n) / block * block;
        if stream_bytes == 0 {
            let mut job = job;
            job.notes.push(format!(
                "streams={n}: the region is too small for {n} streams"
            ));
            return vec![job];
        }
        let clones_before = job.numjobs.max(1);
        let mut template = job;
        if clones_before > 1 {
            template.numjobs = (clones_before / n).max(1);
        } else {
            template.iodepth = (template.iodepth / n).max(1);
        }
        // The pair's rate was split over its clones; now each stream gets 1/n of it.
        let scale = f64::from(clones_before) / (f64::from(n) * f64::from(template.numjobs));
        let scaled = |rate: Option<u64>| rate.map(|r| ((r as f64 * scale).round() as u64).max(1));
        template.rate_iops = PerDirection {
            read: scaled(template.rate_iops.read),
            write: scaled(template.rate_iops.write),
        };
        if !self.threads.is_multiple_of(n) {
            template.notes.push(format!(
                "streams={n} with threads={}: vdbench needs threads a multiple of streams; each stream gets {}",
                self.threads,
                (self.threads / n).max(1)
            ));
        }
        (0..n)
            .map(|k| {
                let mut job = template.clone();
                job.name = format!("{}.stream{}", job.name, k + 1);
                job.offset = Bytes(job.offset.as_u64() + u64::from(k) * stream_bytes);
                job.size = Some(SizeSpec::Bytes(Bytes(stream_bytes)));
                job.random_seed = job.random_seed.wrapping_add(u64::from(k) << 20);
                job
            })
            .collect()
    }

    /// `openflags=o_dsync`/`o_sync`: a data sync (or full sync) after every write.
    fn apply_sync(&self, job: &mut JobSpec) {
        match self.sync_writes {
            Some(SyncFlag::DataSync) => {
                job.fdatasync_every = 1;
                job.notes
                    .push("openflags=o_dsync: an fdatasync after every write".into());
            }
            Some(SyncFlag::Sync) => {
                job.fsync_every = 1;
                job.notes
                    .push("openflags=o_sync: an fsync after every write".into());
            }
            None => {}
        }
    }
}

/// vdbench's hot band (HotBand.java, Steven A. Johnson): the probability of an access within
/// the first N MB of the band, a curve of (MB, cumulative probability) points, as zones.
fn hotband_zones(region_bytes: u64) -> RandomDistribution {
    const CACHE_MB: [u64; 12] = [0, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
    const PB: [f64; 12] = [
        0.0, 0.087217, 0.10101, 0.132206, 0.159946, 0.201713, 0.262602, 0.32645, 0.366902,
        0.386175, 0.436941, 0.482631,
    ];
    let mut zones = Vec::new();
    let mut used = 0u64;
    let mut used_pct = 0.0;
    for i in 1..CACHE_MB.len() {
        let end = (CACHE_MB[i] << 20).min(region_bytes);
        if end <= used {
            break;
        }
        let pct = (PB[i] - PB[i - 1]) * 100.0;
        zones.push(AccessZone {
            access_pct: pct,
            size: ZoneSize::Bytes(Bytes(end - used)),
        });
        used = end;
        used_pct += pct;
    }
    if used < region_bytes || zones.is_empty() {
        zones.push(AccessZone {
            access_pct: 100.0 - used_pct,
            size: ZoneSize::Bytes(Bytes(region_bytes - used)),
        });
    } else if let Some(last) = zones.last_mut() {
        last.access_pct += 100.0 - used_pct;
    }
    RandomDistribution::Zoned(zones)
}

/// vdbench's reporting intervals of one run (Reporter.java): the warm-up intervals are printed
/// and left out of the average; the run ends after the last measured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalPlan {
    pub interval: Duration,
    /// `warmup/interval`, at least 1 (no warmup: the first interval is the warm-up).
    pub warmup_intervals: u64,
    /// Every interval of the run, warm-up included: warmup + `elapsed/interval` intervals, or
    /// `elapsed/interval` when there is no warmup (vdbench counts the implied one in it).
    pub total_intervals: u64,
}

impl IntervalPlan {
    pub fn new(elapsed: Duration, warmup: Duration, interval: Duration) -> IntervalPlan {
        let interval_ns = interval.as_nanos().max(1);
        let elapsed_intervals = (elapsed.as_nanos() / interval_ns) as u64;
        let warmup_intervals = (warmup.as_nanos() / interval_ns) as u64;
        let (warmup_intervals, total_intervals) = if warmup_intervals == 0 {
            (1, elapsed_intervals)
        } else {
            (warmup_intervals, warmup_intervals + elapsed_intervals)
        };
        IntervalPlan {
            interval,
            warmup_intervals,
            // At least one interval runs; a run of a single interval averages that one
            // (vdbench refuses elapsed < 2 intervals; iofit runs it and says so).
            total_intervals: total_intervals.max(1),
        }
    }

    /// The first interval of the average, 1-based.
    pub fn first_measured(&self) -> u64 {
        if self.warmup_intervals >= self.total_intervals {
            1
        } else {
            self.warmup_intervals + 1
        }
    }

    /// How long the run lasts: every interval, warm-up included.
    pub fn runtime(&self) -> Duration {
        self.interval
            .saturating_mul(self.total_intervals.min(u32::MAX as u64) as u32)
    }
}

impl Run {
    /// The run's reporting intervals, as vdbench counts them.
    pub fn interval_plan(&self) -> IntervalPlan {
        IntervalPlan::new(self.elapsed, self.warmup, self.interval)
    }

    /// Total outstanding IOs (threads over every SD); equals the sum over [`Run::to_jobs`] of
    /// clones x IOs in flight per clone.
    pub fn total_threads(&self) -> u32 {
        self.workloads.iter().map(|w| w.threads).sum()
    }

    /// The jobs of this run at `total_iops` (None: uncontrolled, as `iorate=max`).
    /// `run_index` makes file-independent seeds differ between runs.
    pub fn to_jobs(&self, total_iops: Option<f64>) -> Vec<JobSpec> {
        let sequential_pass = self.workloads.iter().any(|w| w.seek == Seek::Eof);
        let mut jobs = self.workloads
            .iter()
            .enumerate()
            .flat_map(|(index, w)| {
                let random_pct = match w.seek {
                    Seek::RandomPct(p) => p,
                    Seek::Eof => 0.0,
                };
                // vdbench's stride replaces the random seek (WG_entry.blockBoundarySeek): one
                // forward-skipping stream through the SD instead of random offsets.
                let stride = w.stride.filter(|_| random_pct > 0.0);
                let random_pct = if stride.is_some() { 0.0 } else { random_pct };
                let random = random_pct > 0.0;
                let rw = RwMode::from_mix(w.rdpct, random);
                let mut job = JobSpec::new(
                    format!("{}.{}.{}", self.rd, w.wd, w.sd.name),
                    Target::Files(vec![w.sd.lun.clone()]),
                )
                .with_rw(rw);
                job.rwmix_read_pct = w.rdpct;
                job.random_pct = random_pct;
                job.block_size = w.xfersize.block_size();
                let many = (w.stream_count() == 1)
                    .then(|| many_threads_split(w.threads))
                    .flatten();
                if let (true, false, Some((clones, depth))) =
                    (random, self.data.verify.mode.is_on(), many)
                {
                    // Hundreds of vdbench threads are as many IOs in flight: a few io_uring
                    // clones keep them (a thousand synchronous threads took 13 s to start
                    // and stop around a 1 s run on two cores; vdbench's threads are its IO
                    // queue, not CPU work).
                    job.engine = EngineKind::IoUring;
                    job.iodepth = depth;
                    job.numjobs = clones;
                } else if random && !self.data.verify.mode.is_on() {
                    // One vdbench thread is one synchronous IO in flight.
                    job.engine = EngineKind::Psync;
                    job.iodepth = 1;
                    job.numjobs = w.threads.max(1);
                } else {
                    // vdbench's threads on a sequential workload share one stream through the
                    // SD (IOs issued in order, completing in any order): one clone keeping
                    // `threads` IOs in flight, not `threads` streams that each start at 0.
                    // With validate=yes random workloads run so too: one clone keeps the SD's
                    // keys, as vdbench keeps one key table per SD for all its threads.
                    job.engine = EngineKind::IoUring;
                    job.iodepth = w.threads.max(1);
                    job.numjobs = 1;
                    if random {
                        job.notes.push(format!(
                            "validate=yes: the {} threads run as one io_uring clone with {} IOs in flight, so one key table sees every write (as vdbench keeps one per SD)",
                            w.threads, w.threads
                        ));
                    }
                }
                w.apply_stride(stride, &mut job);
                job.direct = w.direct;
                job.size = w.sd.size.map(SizeSpec::Bytes);
                w.apply_region(&mut job);
                w.apply_sync(&mut job);
                job.group_reporting = true;
                // No ramp: the warm-up intervals are measured and printed (as vdbench prints
                // them); the summary leaves them out of its average.
                job.ramp_time = Duration::ZERO;
                job.runtime = Some(self.interval_plan().runtime());
                // seekpct=eof ends at end of file; everything else runs for the elapsed time.
                job.time_based = !sequential_pass;
                job.log_interval = self.interval;
                job.random_seed = job.random_seed.wrapping_add(index as u64);
                job.data = self.data.clone();
                if job.data.verify.mode.is_on() {
                    // Keys per smallest transfer size: every xfersize is a multiple of it.
                    job.data.verify.interval_bytes = Some(data::min_block(&job.block_size));
                    job.data.verify.state_name = Some(format!("sd-{}", w.sd.name));
                }
                if self.arrivals != Arrivals::Deterministic && (total_iops.is_some() || w.iorate.is_some()) {
                    job.notes.push(format!(
                        "distribution={:?}: iofit spaces IOs evenly at the rate (deterministic arrivals), vdbench draws {:?} arrival times; the mean rate is the same",
                        self.arrivals, self.arrivals
                    ).to_ascii_lowercase());
                }
                let pair_iops = match (w.iorate, total_iops) {
                    (Some(own), _) => Some(own),
                    (None, Some(total)) => Some(total * w.rate_share),
                    (None, None) => None,
                };
                if let (Some(pair), true) = (pair_iops, job.numjobs > 1 && w.stream_count() == 1) {
                    if let Some(jobs) = exact_clone_rates(&job, pair) {
                        return jobs;
                    }
                }
                if let Some(pair) = pair_iops {
                    // rate_iops is per clone: split the pair's share between its clones.
                    let per_thread = pair / f64::from(job.numjobs);
                    let read = per_thread * w.rdpct / 100.0;
                    let write = per_thread - read;
                    let cap = |iops: f64| (iops > 0.0).then(|| iops.round().max(1.0) as u64);
                    job.rate_iops = PerDirection {
                        read: cap(read),
                        write: cap(write),
                    };
                }
                w.split_streams(job)
            })
            .collect::<Vec<JobSpec>>();
        if let Some(limit) = self.maxdata {
            // maxdata is the run's total: each clone's share of it.
            let clones: u64 = jobs.iter().map(|j| u64::from(j.numjobs.max(1))).sum();
            for job in &mut jobs {
                job.io_limit = Some(Bytes((limit.as_u64() / clones.max(1)).max(1)));
                job.time_based = false;
            }
        }
        jobs
    }
}

/// The most threads of one (wd, sd) pair that run as one synchronous clone each.
pub const SYNC_THREADS_MAX: u32 = 64;
/// IOs in flight per io_uring clone when a pair has more threads than that.
const URING_DEPTH_MAX: u32 = 64;

/// (clones, IOs in flight each) for a pair of more than [`SYNC_THREADS_MAX`] threads: the
/// fewest clones of at most [`URING_DEPTH_MAX`] in flight whose product is exactly `threads`.
/// None for fewer threads, or a count with no such split (a prime above 64: one synchronous
/// clone per thread, as always).
pub fn many_threads_split(threads: u32) -> Option<(u32, u32)> {
    if threads <= SYNC_THREADS_MAX {
        return None;
    }
    (threads.div_ceil(URING_DEPTH_MAX)..threads)
        .find(|c| threads.is_multiple_of(*c))
        .map(|c| (c, threads / c))
        .filter(|(_, depth)| *depth > 1)
}

/// A paced one-direction pair on several psync clones, its rate exact: the engine paces each
/// clone at a whole number of IOs a second, so 1,372 IO/s over 512 threads rounded to 3 each
/// ran 1,536. Instead some clones run one IO a second more than the others (two jobs, both in
/// the run's one reporting group), and a rate below one IO a second per thread runs on as many
/// clones as it has IOs a second. None for a read/write mix (each direction would need its own
/// split; it keeps the rounded share).
fn exact_clone_rates(job: &JobSpec, pair_iops: f64) -> Option<Vec<JobSpec>> {
    let read = match job.rwmix_read_pct {
        p if p >= 100.0 => true,
        p if p <= 0.0 => false,
        _ => return None,
    };
    let total = pair_iops.round().max(1.0) as u64;
    let clones = u64::from(job.numjobs).min(total);
    let (low, faster) = (total / clones, total % clones);
    let part = |numjobs: u64, rate: u64, seed_offset: u64| {
        let mut part = job.clone();
        part.numjobs = numjobs as u32;
        part.rate_iops = if read {
            PerDirection {
                read: Some(rate),
                write: None,
            }
        } else {
            PerDirection {
                read: None,
                write: Some(rate),
            }
        };
        part.random_seed = part.random_seed.wrapping_add(seed_offset << 40);
        part
    };
    let mut jobs = vec![part(clones - faster, low, 0)];
    if faster > 0 {
        let mut more = part(faster, low + 1, 1);
        more.name = format!("{}+", more.name);
        jobs.push(more);
    }
    Some(jobs)
}

/// Parses a parameter file (following `include=`).
pub fn parse_file(path: &Path) -> Result<ParamFile, JobFileError> {
    parse_file_with(path, &[])
}

/// Parses a parameter file with command-line substitutions (`lun=/tmp/x` replaces `$lun` and
/// `!lun`, as `vdbench -f FILE lun=/tmp/x`). A substitution the file never uses is an error,
/// as in vdbench.
pub fn parse_file_with(path: &Path, substitutions: &[String]) -> Result<ParamFile, JobFileError> {
    let source_name = path.display().to_string();
    let text = crate::fio::read_text(path, &source_name)?;
    let mut parser = Parser::with_substitutions(substitutions, &source_name)?;
    parser.read(&text, &source_name, path.parent(), 0)?;
    parser.finish(&source_name)
}

/// Parses parameter-file text; `include=` resolves against the current directory.
pub fn parse_str(text: &str, source_name: &str) -> Result<ParamFile, JobFileError> {
    parse_str_with(text, source_name, &[])
}

/// [`parse_str`] with command-line substitutions.
pub fn parse_str_with(
    text: &str,
    source_name: &str,
    substitutions: &[String],
) -> Result<ParamFile, JobFileError> {
    let mut parser = Parser::with_substitutions(substitutions, source_name)?;
    parser.read(text, source_name, None, 0)?;
    parser.finish(source_name)
}

/// One `key=value` of a line. `values` holds the list items (one for a plain value).
#[derive(Clone, Debug)]
struct Param {
    key: String,
    /// The key as written (an abbreviation, before [`check_keys`] resolves `key`).
    written: String,
    raw: String,
    values: Vec<String>,
}

/// Line types iofit does not run, with the reason.
const LINE_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "rg",
        "replaying a Swat I/O trace (rg= replay groups with replay= on the sd and rd; Swat is Sun's StorageTek Workload Analysis Tool and iofit has no reader for its flatfile.bin)",
    ),
    ("wg", "workload groups"),
];
const HD_UNSUPPORTED: &[(&str, &str)] = &[
    ("mount", "mounting file systems on hosts"),
    ("clients", "simulated clients per host"),
];
const SD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "count",
        "count= (one sd= line standing for several numbered luns)",
    ),
    ("kstat", "Solaris kstat statistics"),
    ("instance", "Solaris kstat instances"),
    ("replay", "replay of an I/O trace"),
    ("resetlun", "SCSI resets"),
    ("resetbus", "SCSI resets"),
    (
        "streams",
        "streams= on an sd (vdbench 5.04 moved it to the wd: give streams= on the wd=)",
    ),
];
const WD_UNSUPPORTED: &[(&str, &str)] = &[
    ("priority", "workload priorities"),
    (
        "threads",
        "threads= on a wd (give threads= on the rd or the sd)",
    ),
    ("user", "user-written workload classes"),
    ("writepct", "writepct= (write rdpct= as 100 minus it)"),
];
const RD_UNSUPPORTED: &[(&str, &str)] = &[
    (
        "maxdataread",
        "maxdataread= (stopping on read bytes alone; maxdata= works)",
    ),
    (
        "maxdatawritten",
        "maxdatawritten= (stopping on written bytes alone; maxdata= works)",
    ),
    ("stopcurve", "stopping a curve on a response time"),
    ("replay", "replay of an I/O trace"),
    ("startcmd", "running shell commands from a parameter file"),
    ("endcmd", "running shell commands from a parameter file"),
    ("mount", "mounting file systems"),
    ("fortotalsize", "fortotalsize= on file system runs"),
    (
        "forwss",
        "forwss= (a working set smaller than the file tree)",
    ),
];
const FSD_UNSUPPORTED: &[(&str, &str)] = &[
    ("journal", "journaling of file system data"),
    (
        "count",
        "count= (one fsd= line standing for several numbered anchors)",
    ),
    ("log", "fsd logging"),
];
const FWD_UNSUPPORTED: &[(&str, &str)] = &[("target", "target= (copy/move to another fsd)")];

#[derive(Default)]
struct Parser {
    file: ParamFile,
    /// Each line type's `default` parameters (`sd=default,...`), indexed by [`Line`].
    defaults: [Vec<Param>; 6],
    /// 0 = hd, 1 = sd/fsd, 2 = wd/fwd, 3 = rd: vdbench requires this order.
    stage: u8,
    substitutions: Vec<lists::Substitution>,
}

impl Parser {
    fn read(
        &mut self,
        text: &str,
        source_name: &str,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if text.contains('\0') {
            return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
        }
        for (line_no, line) in self.logical_lines(text, source_name)? {
            let loc = Location::new(source_name, line_no);
            for params in split_definitions(split_params(&line, &loc)?) {
                self.definition(params, &loc, base_dir, depth)?;
            }
        }
        Ok(())
    }

    /// One `hd=`/`sd=`/`wd=`/`rd=`/`fsd=`/`fwd=` definition, include or general parameter.
    fn definition(
        &mut self,
        params: Vec<Param>,
        loc: &Location,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        let loc = loc.clone();
        {
            let first_key = params[0].key.clone();
            match first_key.as_str() {
                "include" => self.include(&params[0], &loc, base_dir, depth)?,
                "hd" | "host" => {
                    self.order(0, "hd", &loc)?;
                    self.host(params, &loc)?
                }
                "sd" => {
                    self.order(1, "sd", &loc)?;
                    self.storage(params, &loc)?
                }
                "fsd" => {
                    self.order(1, "fsd", &loc)?;
                    self.fsd(params, &loc)?
                }
                "wd" => {
                    self.order(2, "wd", &loc)?;
                    self.workload(params, &loc)?
                }
                "fwd" => {
                    self.order(2, "fwd", &loc)?;
                    self.fwd(params, &loc)?
                }
                "rd" => {
                    self.order(3, "rd", &loc)?;
                    self.run(params, &loc)?
                }
                kind if LINE_UNSUPPORTED.iter().any(|(k, _)| *k == kind) => {
                    let why = LINE_UNSUPPORTED
                        .iter()
                        .find(|(k, _)| *k == kind)
                        .map(|(_, w)| *w)
                        .unwrap_or_default();
                    return Err(loc.unsupported_value(
                        kind,
                        &params[0].raw,
                        why,
                        if kind == "rg" {
                            "describe the traced mix with wd= lines instead (xfersize=, rdpct=, seekpct=, skew=), or take the traced host's iostat/sar capture through `iofit profile` and `iofit plan`"
                        } else {
                            "remove those lines; iofit runs sd/wd/rd and fsd/fwd files"
                        },
                    ));
                }
                written => self.general(written, params, &loc)?,
            }
        }
        Ok(())
    }

    /// Lines as vdbench reads them: `$name`/`!name` substituted, `*`/`#`/`/` comments and
    /// blank lines skipped, everything after the first blank dropped (vdbench's tokenizer ends
    /// a line there, so trailing comments work), `eof` ending the file, and a line continued
    /// when it ends with ',' or an open parenthesis or the next starts with ','.
    fn logical_lines(
        &mut self,
        text: &str,
        source_name: &str,
    ) -> Result<Vec<(usize, String)>, JobFileError> {
        let mut logical: Vec<(usize, String)> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let loc = Location::new(source_name, line_no);
            let line = raw.trim();
            if line.is_empty()
                || line.starts_with('*')
                || line.starts_with('/')
                || line.starts_with('#')
            {
                continue;
            }
            if line.eq_ignore_ascii_case("eof") {
                break;
            }
            if line.chars().any(|c| c.is_control() && c != '\t') {
                return Err(loc.error(None, ErrorKind::Binary));
            }
            let line = lists::substitute(line, &mut self.substitutions).map_err(|why| {
                let name = why.to_string();
                loc.error(
                    Some(&name),
                    ErrorKind::Other(format!(
                        "${name} is not given; add {name}=VALUE after the file on the command line (iofit run FILE {name}=VALUE), as vdbench -f FILE {name}=VALUE"
                    )),
                )
            })?;
            let line = cut_at_blank(&line);
            let continues = match logical.last() {
                Some((_, prev)) => {
                    prev.ends_with(',') || paren_depth(prev) > 0 || line.starts_with(',')
                }
                None => false,
            };
            if continues {
                let (_, prev) = logical.last_mut().expect("checked above");
                prev.push_str(&line);
            } else {
                logical.push((line_no, line));
            }
        }
        Ok(logical)
    }

    fn include(
        &mut self,
        first: &Param,
        loc: &Location,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "include nests more than {MAX_INCLUDE_DEPTH} deep; an include loop?"
                )),
            ));
        }
        let target = single(first, loc)?;
        let path = match base_dir {
            Some(dir) if Path::new(&target).is_relative() => dir.join(&target),
            _ => PathBuf::from(&target),
        };
        let included_name = path.display().to_string();
        let text = crate::fio::read_text(&path, &included_name).map_err(|e| {
            loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "cannot include {included_name}: {}; {}",
                    e.kind,
                    if Path::new(&target).is_relative() {
                        "the path is relative to the including file"
                    } else {
                        "the path is absolute and read as written: check it"
                    }
                )),
            )
        })?;
        self.read(&text, &included_name, path.parent(), depth + 1)
    }

    /// A general parameter line (`compratio=`, `messagescan=`, `concatenatesds=`...).
    fn general(
        &mut self,
        written: &str,
        params: Vec<Param>,
        loc: &Location,
    ) -> Result<(), JobFileError> {
        let Some(key) = keys::resolve(keys::GENERAL, written) else {
            let hint = match nearest(
                written,
                ["hd", "sd", "wd", "rd", "fsd", "fwd", "include"]
                    .into_iter()
                    .chain(keys::names(keys::GENERAL)),
            ) {
                Some(near) => format!(" (did you mean '{near}='?)"),
                None => String::new(),
            };
            return Err(loc.error(
                Some(written),
                ErrorKind::Syntax(format!(
                    "a vdbench line must start with hd=, sd=, wd=, rd=, fsd=, fwd=, include= or a general parameter, not '{written}='{hint}"
                )),
            ));
        };
        for p in &params[1..] {
            // Several general parameters may share a line; each is checked on its own.
            self.general(&p.written.clone(), vec![p.clone()], loc)?;
        }
        let first = &params[0];
        match key {
            k if is_data_key(k) => self.file.data.push(DataParam {
                key: k.to_string(),
                value: first.raw.clone(),
                loc: loc.clone(),
            }),
            "concatenatesds" => {
                self.file.concatenate = yes_no(&single(first, loc)?, key, loc)?;
            }
            // Reporting and housekeeping switches that change no IO: accepted.
            "messagescan" | "report" | "report_run_totals" | "histogram" | "monitor"
            | "formatxfersize" | "create_anchors" | "formatsds" | "abort_failed_skew"
            | "heartbeat_error" | "port" | "showlba" | "auxreport" | "psrset" | "swat"
            | "debug" | "misc" | "loop" | "pattern_buffer" => {}
            "startcmd" | "start_cmd" | "endcmd" | "end_cmd" => {
                return Err(loc.unsupported_value(
                    key,
                    &first.raw,
                    "running shell commands from a parameter file",
                    "run the command before or after iofit yourself and remove the parameter",
                ))
            }
            other => {
                return Err(loc.error(
                    Some(other),
                    ErrorKind::UnsupportedParameter {
                        place: String::new(),
                        key: other.to_string(),
                    },
                ))
            }
        }
        Ok(())
    }

    fn order(&mut self, stage: u8, key: &str, loc: &Location) -> Result<(), JobFileError> {
        if stage < self.stage {
            let after = ["hd", "sd", "wd", "rd"][self.stage as usize];
            return Err(loc.error(
                Some(key),
                ErrorKind::Other(format!(
                    "{key}= comes after {after}=; vdbench needs hd=, then sd=, then wd=, then rd= lines, move it up"
                )),
            ));
        }
        self.stage = stage;
        Ok(())
    }

    fn host(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        // Checked on the line that says it, `hd=default` included.
        for p in params.iter().skip(1).filter(|p| p.key == "shell") {
            if let Some(note) = check_shell(&single(p, loc)?, loc)? {
                if !self.file.notes.contains(&note) {
                    self.file.notes.push(note);
                }
            }
        }
        let Some((name, all)) = self.named(Line::Hd, params, loc)? else {
            return Ok(());
        };
        let mut host = HostDef {
            name: name.clone(),
            system: None,
            user: None,
            jvms: 1,
            remote_binary: None,
            loc: loc.clone(),
        };
        for p in &all {
            match p.key.as_str() {
                "system" => host.system = Some(single(p, loc)?),
                "user" => host.user = Some(single(p, loc)?),
                "vdbench" => {
                    // vdbench= is where vdbench is on the host: iofit starts iofit there, so it
                    // takes the path only when it names an iofit binary.
                    let path = single(p, loc)?;
                    let names_iofit = Path::new(&path)
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("iofit"));
                    if names_iofit {
                        host.remote_binary = Some(path);
                    } else {
                        self.file.notes.push(format!(
                            "{loc}: hd={name} vdbench={path} is vdbench's path: iofit ignores it and starts iofit on the host from --remote-iofit (default: this binary's path)"
                        ));
                    }
                }
                "jvms" => host.jvms = positive_u32(&single(p, loc)?, "jvms", loc)?,
                _ => {}
            }
        }
        push_new(&mut self.file.hosts, host, "hd", loc)
    }

    fn storage(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = self.named(Line::Sd, params, loc)? else {
            return Ok(());
        };
        let mut sd = StorageDef {
            name: name.clone(),
            lun: PathBuf::new(),
            size: None,
            direct: false,
            hosts: Vec::new(),
            max_threads: None,
            sync_writes: None,
            range: None,
            hitarea: None,
            offset: Bytes::ZERO,
            align: None,
            loc: loc.clone(),
        };
        let mut has_lun = false;
        for p in &all {
            match p.key.as_str() {
                // One hd name, a list `host=(vm1,vm2)`, a range `host=(hd1-hd4)`, wildcards
                // `host=hd*` / `host=(hd1*,vm?)`, or `*` for every hd (as vdbench takes them).
                "host" => {
                    let named: Vec<String> =
                        p.values.iter().filter(|v| !v.is_empty()).cloned().collect();
                    sd.hosts = lists::expand_names(&named).map_err(|why| {
                        loc.invalid(
                            "host",
                            &p.raw,
                            why.to_string(),
                            "write host=hd1, host=(hd1-hd4) or host=hd*",
                        )
                    })?;
                }
                "lun" => {
                    sd.lun = PathBuf::from(single(p, loc)?);
                    has_lun = true;
                }
                "size" => sd.size = Some(nonzero_size(p, loc)?),
                "openflags" => (sd.direct, sd.sync_writes) = parse_openflags(p, loc)?,
                "threads" => {
                    let n = positive_u32(&single(p, loc)?, "threads", loc)?;
                    sd.max_threads = Some(capped_threads(vec![n], p, loc)?[0]);
                }
                "range" => sd.range = Some(parse_range(p, loc)?),
                // vdbench takes hitarea=0 (SD_entry keeps the number; it only matters with
                // rhpct/whpct, and then the hits fall on the first block).
                "hitarea" => sd.hitarea = Some(any_size(p, loc)?),
                "offset" => sd.offset = any_size(p, loc)?,
                "align" => sd.align = Some(nonzero_size(p, loc)?),
                "journal" => self.file.data.push(DataParam {
                    key: format!("sd={name} journal"),
                    value: p.raw.clone(),
                    loc: loc.clone(),
                }),
                _ => {}
            }
        }
        if !has_lun {
            return Err(loc.error(
                Some("lun"),
                ErrorKind::InvalidJob {
                    job: format!("sd={name}"),
                    what: "no lun=".into(),
                    fix: "add lun=/path/to/file or device".into(),
                },
            ));
        }
        push_new(&mut self.file.sds, sd, "sd", loc)
    }

    fn workload(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = self.named(Line::Wd, params, loc)? else {
            return Ok(());
        };
        let mut wd = WorkloadDef {
            name: name.clone(),
            sd_patterns: Vec::new(),
            rdpct: 100.0,
            seek: Seek::RandomPct(100.0),
            xfersize: XferSize::Fixed(Bytes::kib(4)),
            skew: None,
            host: None,
            range: None,
            hotband: None,
            stride: None,
            streams: None,
            rhpct: 0.0,
            whpct: 0.0,
            iorate: None,
            direct: false,
            sync_writes: None,
            loc: loc.clone(),
        };
        for p in &all {
            match p.key.as_str() {
                "sd" => wd.sd_patterns = name_list(p, loc)?,
                "rdpct" => wd.rdpct = pct_value(&single(p, loc)?, "rdpct", loc)?,
                "seekpct" => wd.seek = parse_seek(&single(p, loc)?, loc)?,
                "xfersize" => wd.xfersize = parse_xfersize(p, loc)?,
                "skew" => wd.skew = Some(pct_value(&single(p, loc)?, "skew", loc)?),
                "host" => wd.host = Some(single(p, loc)?),
                "range" => wd.range = Some(parse_range(p, loc)?),
                "hotband" => wd.hotband = Some(parse_range(p, loc)?),
                "stride" => wd.stride = Some(parse_stride(p, loc)?),
                "streams" => {
                    let value = single(p, loc)?;
                    let n = positive_u32(&value, "streams", loc)?;
                    if n < 2 {
                        return Err(loc.invalid(
                            "streams",
                            &value,
                            "vdbench needs at least two streams",
                            "write streams=2 or more, or drop streams=",
                        ));
                    }
                    wd.streams = Some(n);
                }
                "rhpct" => wd.rhpct = pct_value(&single(p, loc)?, "rhpct", loc)?,
                "whpct" => wd.whpct = pct_value(&single(p, loc)?, "whpct", loc)?,
                "openflags" => (wd.direct, wd.sync_writes) = parse_openflags(p, loc)?,
                "iorate" => {
                    let value = single(p, loc)?;
                    let rate: f64 = value
                        .parse()
                        .ok()
                        .filter(|r: &f64| r.is_finite() && *r > 0.0)
                        .ok_or_else(|| {
                            loc.invalid(
                                "iorate",
                                &value,
                                "a wd's iorate must be a number of IOs per second",
                                "write iorate=500 or give iorate= on the rd",
                            )
                        })?;
                    wd.iorate = Some(rate);
                }
                "compratio" | "dedupratio" => self.file.data.push(DataParam {
                    key: format!("wd={name} {}", p.key),
                    value: p.raw.clone(),
                    loc: loc.clone(),
                }),
                _ => {}
            }
        }
        // A wd without sd= takes the sds its rds name (vdbench: rd=...,sd=...).
        check_references(&wd.sd_patterns, &self.file.sds, "sd", loc)?;
        push_new(&mut self.file.wds, wd, "wd", loc)
    }

    fn run(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = self.named(Line::Rd, params, loc)? else {
            return Ok(());
        };
        let mut rd = RunDef {
            name: name.clone(),
            wd_patterns: Vec::new(),
            sd_patterns: None,
            iorates: vec![IoRate::Max],
            elapsed: Duration::from_secs(30),
            warmup: Duration::ZERO,
            interval: Duration::from_secs(1),
            loops: Vec::new(),
            pause: Duration::ZERO,
            arrivals: Arrivals::default(),
            maxdata: None,
            direct: false,
            fs: None,
            loc: loc.clone(),
        };
        let mut curve: Vec<f64> = DEFAULT_CURVE_PCT.to_vec();
        let mut wants_curve = false;
        let mut iorate_set = false;
        // Loops: a later value for the same loop kind replaces the earlier one (defaults first).
        let mut loops: Vec<(u8, ForLoop)> = Vec::new();
        for p in &all {
            if let Some((kind, value)) = self.rd_loop(&name, p, loc)? {
                if let Some(slot) = loops.iter_mut().find(|(k, _)| *k == kind) {
                    slot.1 = value;
                } else {
                    loops.push((kind, value));
                }
                continue;
            }
            match p.key.as_str() {
                "wd" => rd.wd_patterns = name_list(p, loc)?,
                "sd" => rd.sd_patterns = Some(name_list(p, loc)?),
                "iorate" => {
                    iorate_set = true;
                    let (rates, curve_named) = iorate_values(p, loc)?;
                    wants_curve |= curve_named;
                    rd.iorates = rates;
                }
                "curve" => curve = curve_points(p, loc)?,
                "elapsed" | "warmup" | "interval" | "pause" => rd_time(&mut rd, p, loc)?,
                "distribution" => rd.arrivals = arrivals(p, loc)?,
                "maxdata" => rd.maxdata = Some(nonzero_size(p, loc)?),
                "openflags" => {
                    let (direct, sync) = parse_openflags(p, loc)?;
                    rd.direct = direct;
                    if sync.is_some() {
                        return Err(loc.unsupported_value(
                            "openflags",
                            &p.raw,
                            "o_sync/o_dsync on an rd",
                            "give openflags=o_dsync on the sd or wd",
                        ));
                    }
                }
                "fwd" | "fsd" | "fwdrate" | "format" => {
                    let fs = rd.fs.get_or_insert_with(FsRunDef::default);
                    fs::rd_param(fs, p, loc)?;
                }
                _ => {}
            }
        }
        if wants_curve {
            for rate in rd.iorates.iter_mut() {
                if let IoRate::Curve(points) = rate {
                    *points = curve.clone();
                }
            }
        }
        rd.loops = loops.into_iter().map(|(_, l)| l).collect();
        self.finish_rd(rd, iorate_set, loc)
    }

    /// A `for...` key of an rd: the loop's kind (its nesting order) and its values; `None`
    /// for any other key.
    fn rd_loop(
        &mut self,
        name: &str,
        p: &Param,
        loc: &Location,
    ) -> Result<Option<(u8, ForLoop)>, JobFileError> {
        Ok(Some(match p.key.as_str() {
            "forthreads" => (
                0,
                ForLoop::Threads(capped_threads(expand_counts(p, loc)?, p, loc)?),
            ),
            "forxfersize" => {
                let sizes = numbers(p, loc, size_number)?
                    .into_iter()
                    .map(|n| XferSize::Fixed(Bytes(n as u64)))
                    .collect();
                (1, ForLoop::XferSize(sizes))
            }
            "forrdpct" => (2, ForLoop::RdPct(numbers(p, loc, pct_number)?)),
            "forseekpct" => {
                // Words (seq, random, eof) stay words; numbers may be ranges.
                let seeks = if p
                    .values
                    .iter()
                    .any(|v| v.chars().any(|c| c.is_ascii_alphabetic()))
                {
                    p.values
                        .iter()
                        .map(|v| parse_seek(v, loc))
                        .collect::<Result<Vec<_>, _>>()?
                } else {
                    numbers(p, loc, pct_number)?
                        .into_iter()
                        .map(Seek::RandomPct)
                        .collect()
                };
                (3, ForLoop::SeekPct(seeks))
            }
            "forrhpct" => (4, ForLoop::RhPct(numbers(p, loc, pct_number)?)),
            "forwhpct" => (5, ForLoop::WhPct(numbers(p, loc, pct_number)?)),
            "forhitarea" => {
                let sizes = numbers(p, loc, size_number)?
                    .into_iter()
                    .map(|n| Bytes(n as u64))
                    .collect();
                (6, ForLoop::HitArea(sizes))
            }
            "forcompratio" | "forcompression" => {
                self.file.data.push(DataParam {
                    key: format!("rd={name} {}", p.key),
                    value: p.raw.clone(),
                    loc: loc.clone(),
                });
                let ratios = numbers(p, loc, |v| {
                    v.parse::<f64>()
                        .map_err(|_| ValueError(format!("'{v}' is not a number")))
                })?;
                (7, ForLoop::CompRatio(ratios))
            }
            "fordepth" => (8, ForLoop::Depth(expand_counts(p, loc)?)),
            "forwidth" => (9, ForLoop::Width(expand_counts(p, loc)?)),
            "forfiles" => (10, ForLoop::Files(expand_counts(p, loc)?)),
            "forsizes" => {
                let sizes = numbers(p, loc, size_number)?
                    .into_iter()
                    .map(|n| Bytes(n as u64))
                    .collect();
                (11, ForLoop::Sizes(sizes))
            }
            "foroperations" | "operations" => {
                (12, ForLoop::Operations(fs::parse_operations(p, loc)?))
            }
            _ => return Ok(None),
        }))
    }

    /// What an rd needs besides its keys: an iorate (unless it runs a file system workload), a
    /// workload (its own of defaults for `rd=...,sd=...`), and names that exist.
    fn finish_rd(
        &mut self,
        mut rd: RunDef,
        iorate_set: bool,
        loc: &Location,
    ) -> Result<(), JobFileError> {
        let name = rd.name.clone();
        if !iorate_set && rd.fs.is_none() {
            // vdbench requires iorate=; the seed sets it in rd=default. Refuse rather than guess.
            return Err(loc.error(
                Some("iorate"),
                ErrorKind::InvalidJob {
                    job: format!("rd={name}"),
                    what: "no iorate=".into(),
                    fix:
                        "add iorate=max (uncontrolled), a number of IOs per second, or iorate=curve"
                            .into(),
                },
            ));
        }
        if rd.elapsed.as_nanos() < 2 * rd.interval.as_nanos() {
            // vdbench refuses this (RD_entry: "elapsed= must be at least twice interval=");
            // iofit runs it, averaging its one interval, and says so.
            self.file.notes.push(format!(
                "{loc}: rd={name} elapsed={}s is less than twice interval={}s (vdbench refuses it): iofit averages the run's only measured interval",
                rd.elapsed.as_secs_f64(),
                rd.interval.as_secs_f64()
            ));
        }
        if rd.wd_patterns.is_empty() && rd.fs.is_none() && rd.sd_patterns.is_some() {
            // rd=...,sd=... without wd=: vdbench runs a workload of its defaults (and the rd's
            // xfersize/rdpct/seekpct) on those sds.
            let implicit = format!("rd.{name}");
            self.file.wds.push(WorkloadDef {
                name: implicit.clone(),
                sd_patterns: Vec::new(),
                rdpct: 100.0,
                seek: Seek::RandomPct(100.0),
                xfersize: XferSize::Fixed(Bytes::kib(4)),
                skew: None,
                host: None,
                range: None,
                hotband: None,
                stride: None,
                streams: None,
                rhpct: 0.0,
                whpct: 0.0,
                iorate: None,
                direct: false,
                sync_writes: None,
                loc: loc.clone(),
            });
            rd.wd_patterns = vec![implicit];
        }
        if rd.wd_patterns.is_empty() && rd.fs.is_none() {
            return Err(loc.error(
                Some("wd"),
                ErrorKind::InvalidJob {
                    job: format!("rd={name}"),
                    what: "no wd=".into(),
                    fix: "add wd=NAME naming a workload defined above".into(),
                },
            ));
        }
        check_references(&rd.wd_patterns, &self.file.wds, "wd", loc)?;
        if let Some(patterns) = &rd.sd_patterns {
            check_references(patterns, &self.file.sds, "sd", loc)?;
        }
        push_new(&mut self.file.rds, rd, "rd", loc)
    }

    fn with_substitutions(items: &[String], source_name: &str) -> Result<Parser, JobFileError> {
        let substitutions = lists::substitutions(items).map_err(|why| {
            JobFileError::new(source_name, 0, None, ErrorKind::Other(why.to_string()))
        })?;
        Ok(Parser {
            substitutions,
            ..Parser::default()
        })
    }

    fn finish(self, source_name: &str) -> Result<ParamFile, JobFileError> {
        if let Some(unused) = self.substitutions.iter().find(|s| s.used == 0) {
            return Err(JobFileError::new(
                source_name,
                0,
                Some(&unused.name),
                ErrorKind::Other(format!(
                    "{}={} is given but the file has no ${} or !{}; check the name (vdbench refuses an unused substitution too)",
                    unused.name, unused.value, unused.name, unused.name
                )),
            ));
        }
        if self.file.rds.is_empty() {
            return Err(JobFileError::new(
                source_name,
                0,
                None,
                ErrorKind::Other(
                    "no run definitions; a vdbench file needs sd=, wd= and rd= lines (rd=run1,wd=wd1,iorate=max,elapsed=30)".into(),
                ),
            ));
        }
        Ok(self.file)
    }
}

/// The line types that define something by name, with their keys and what iofit refuses.
#[derive(Clone, Copy, Debug)]
enum Line {
    Hd,
    Sd,
    Wd,
    Rd,
    Fsd,
    Fwd,
}

impl Line {
    fn kind(self) -> &'static str {
        ["hd", "sd", "wd", "rd", "fsd", "fwd"][self as usize]
    }

    fn keys(self) -> &'static [keys::Key] {
        [keys::HD, keys::SD, keys::WD, keys::RD, keys::FSD, keys::FWD][self as usize]
    }

    fn unsupported(self) -> &'static [(&'static str, &'static str)] {
        [
            HD_UNSUPPORTED,
            SD_UNSUPPORTED,
            WD_UNSUPPORTED,
            RD_UNSUPPORTED,
            FSD_UNSUPPORTED,
            FWD_UNSUPPORTED,
        ][self as usize]
    }
}

impl Parser {
    /// [`with_defaults`] for a line of type `line`: its name and parameters, `None` for a
    /// `default` line.
    fn named(
        &mut self,
        line: Line,
        params: Vec<Param>,
        loc: &Location,
    ) -> Result<Option<(String, Vec<Param>)>, JobFileError> {
        with_defaults(
            &mut self.defaults[line as usize],
            params,
            line.keys(),
            line.unsupported(),
            line.kind(),
            loc,
        )
    }
}

/// A definition other lines refer to by name.
trait Named {
    fn name(&self) -> &str;
}

macro_rules! named {
    ($($t:ty),*) => {
        $(impl Named for $t {
            fn name(&self) -> &str {
                &self.name
            }
        })*
    };
}
named!(HostDef, StorageDef, WorkloadDef, RunDef, FsdDef, FwdDef);

/// Adds a definition, refusing a second one of the same name.
fn push_new<T: Named>(
    defined: &mut Vec<T>,
    item: T,
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    if defined.iter().any(|d| d.name() == item.name()) {
        return Err(duplicate(kind, item.name(), loc));
    }
    defined.push(item);
    Ok(())
}

/// Every pattern (`sd=sd*`, a list) matches a `kind` defined before the line.
fn check_references<T: Named>(
    patterns: &[String],
    defined: &[T],
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    for pattern in patterns {
        if !defined.iter().any(|d| wildcard_match(pattern, d.name())) {
            return Err(unknown_reference(
                kind,
                pattern,
                defined.iter().map(|d| d.name()),
                loc,
            ));
        }
    }
    Ok(())
}

fn duplicate(kind: &str, name: &str, loc: &Location) -> JobFileError {
    loc.error(
        Some(kind),
        ErrorKind::Duplicate {
            kind: kind.to_string(),
            name: name.to_string(),
        },
    )
}

fn unknown_reference<'a>(
    kind: &str,
    pattern: &str,
    known: impl Iterator<Item = &'a str> + Clone,
    loc: &Location,
) -> JobFileError {
    let list: Vec<&str> = known.clone().collect();
    let hint = match nearest(pattern, known) {
        Some(near) => format!(" (did you mean '{near}'?)"),
        None => String::new(),
    };
    loc.error(
        Some(kind),
        ErrorKind::UnknownReference {
            kind: kind.to_string(),
            name: pattern.to_string(),
            detail: format!(
                "{hint}; defined: {}",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ),
        },
    )
}

/// The name a `hd=`/`sd=`/`wd=`/`rd=`/`fsd=`/`fwd=` line defines and its parameters (keys
/// resolved to vdbench's full keywords), with the `default` parameters of that line type first
/// so the line's own win (vdbench applies later values over earlier ones). A `default` line
/// returns `None`: its parameters are kept for the lines that follow it.
fn with_defaults(
    defaults: &mut Vec<Param>,
    mut params: Vec<Param>,
    table: &[keys::Key],
    unsupported: &[(&str, &str)],
    kind: &str,
    loc: &Location,
) -> Result<Option<(String, Vec<Param>)>, JobFileError> {
    let name = single(&params[0], loc)?;
    check_keys(&mut params[1..], table, unsupported, kind, loc)?;
    if name == "default" {
        defaults.extend(params.into_iter().skip(1));
        return Ok(None);
    }
    let all = defaults
        .iter()
        .cloned()
        .chain(params.into_iter().skip(1))
        .collect();
    Ok(Some((name, all)))
}

/// Resolves every key of `params` to its full keyword (vdbench's abbreviations), refusing
/// unknown keys with a suggestion and unsupported ones with the reason.
fn check_keys(
    params: &mut [Param],
    table: &[keys::Key],
    unsupported: &[(&str, &str)],
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    for p in params.iter_mut() {
        let Some(key) = keys::resolve(table, &p.written) else {
            let suggestion = nearest(&p.written, keys::names(table));
            return Err(loc.error(
                Some(&p.written),
                ErrorKind::UnknownOption {
                    key: format!("{kind} {}", p.key),
                    suggestion,
                },
            ));
        };
        p.key = key.to_string();
        if let Some((_, why)) = unsupported.iter().find(|(k, _)| *k == key) {
            return Err(loc.error(
                Some(&p.written),
                ErrorKind::UnsupportedValue {
                    key: format!("{kind} {key}"),
                    value: p.raw.clone(),
                    why: (*why).to_string(),
                    fix: "remove it to run without it".into(),
                },
            ));
        }
    }
    Ok(())
}

/// Data content and validation keys (kept in `ParamFile::data`; vdbench/data.rs runs some).
fn is_data_key(key: &str) -> bool {
    matches!(
        key,
        "compratio"
            | "compressionseed"
            | "compression"
            | "pattern"
            | "data_errors"
            | "validate"
            | "journal"
            | "dedupratio"
            | "dedupunit"
            | "dedupsets"
            | "deduphotsets"
            | "dedupflipflop"
            | "forcompratio"
            | "forcompression"
    )
}

fn yes_no(value: &str, key: &str, loc: &Location) -> Result<bool, JobFileError> {
    match value.to_ascii_lowercase().as_str() {
        "yes" | "y" | "true" => Ok(true),
        "no" | "n" | "false" => Ok(false),
        _ => Err(loc.invalid(key, value, "not yes or no", "write yes or no")),
    }
}

/// vdbench reads parameters as one stream: `sd=a,lun=x,sd=b,lun=y` (or a line continued into
/// the next definition by a trailing comma) defines two sds. Splits a line's parameters at
/// each repeat of its first keyword.
fn split_definitions(params: Vec<Param>) -> Vec<Vec<Param>> {
    let kind = params[0].key.clone();
    if !matches!(kind.as_str(), "hd" | "sd" | "wd" | "rd" | "fsd" | "fwd") {
        return vec![params];
    }
    let mut groups: Vec<Vec<Param>> = Vec::new();
    for p in params {
        if p.key == kind || groups.is_empty() {
            groups.push(vec![p]);
        } else {
            groups.last_mut().expect("pushed above").push(p);
        }
    }
    groups
}

/// vdbench's tokenizer ends a line at the first blank outside quotes; a blank next to a
/// comma or parenthesis is only spacing.
fn cut_at_blank(line: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let chars: Vec<char> = line.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c == '"' {
            quoted = !quoted;
        }
        if c.is_whitespace() && !quoted {
            let rest: String = chars[index..].iter().collect();
            let rest = rest.trim_start();
            let spacing = out.ends_with([',', '(', '='])
                || rest.starts_with([',', ')', '='])
                || (paren_depth(&out) > 0 && !rest.is_empty());
            if !spacing {
                break;
            }
            index += 1;
            continue;
        }
        out.push(c);
        index += 1;
    }
    out
}

/// `shell=`: iofit reaches every host through the OpenSSH client, whatever the file names.
/// vdbench's three shells only start vdbench on the host (rsh, ssh, or its own RMI daemon that
/// `vdbench rsh` left listening); what runs there and what comes back is the same. So rsh and
/// vdbench map onto iofit's worker over ssh, and the note returned says so (the host then
/// needs sshd and a key login for `user=`, as `shell=ssh` does in vdbench).
fn check_shell(value: &str, loc: &Location) -> Result<Option<String>, JobFileError> {
    let instead = |why: &str| {
        Some(format!(
            "{}:{}: shell={value} runs over ssh: iofit starts its worker on each host through the OpenSSH client ({why}); the hosts need sshd and a key login for user=",
            loc.file, loc.line
        ))
    };
    match value.to_ascii_lowercase().as_str() {
        "ssh" => Ok(None),
        "rsh" => Ok(instead(
            "rsh is not used: it sends everything in clear text",
        )),
        "vdbench" => Ok(instead(
            "vdbench's RMI daemon is not used: nothing needs to listen on the hosts",
        )),
        _ => Err(loc.invalid(
            "shell",
            value,
            "vdbench knows shell=ssh, rsh and vdbench",
            "use shell=ssh",
        )),
    }
}

/// A numeric list with ranges (`(1k-64k,d)`, `(10-100,10)`), each item read by `parse`.
fn numbers(
    p: &Param,
    loc: &Location,
    parse: impl Fn(&str) -> Result<f64, ValueError>,
) -> Result<Vec<f64>, JobFileError> {
    lists::expand_numeric(&p.values, parse).map_err(|why| {
        loc.invalid(
            &p.written,
            &p.raw,
            why.to_string(),
            "write a value, a list (a,b,c), or a range (LOW-HIGH,d) doubling or (LOW-HIGH,STEP)",
        )
    })
}

/// An rd's `iorate=` values (`max`, `curve`, numbers and numeric ranges) and whether
/// `curve` is among them.
fn iorate_values(p: &Param, loc: &Location) -> Result<(Vec<IoRate>, bool), JobFileError> {
    let mut wants_curve = false;
    let mut rates = Vec::new();
    let mut numbers: Vec<String> = Vec::new();
    for (index, value) in p.values.iter().enumerate() {
        match value.to_ascii_lowercase().as_str() {
            "max" => rates.push(IoRate::Max),
            "curve" => {
                wants_curve = true;
                rates.push(IoRate::Curve(Vec::new()));
            }
            _ => numbers.push(value.clone()),
        }
        if is_last_or_keyword(&p.values, index) {
            // vdbench's numeric lists: (10000-300000,10000) steps, (100-800,d)
            // doubles (RD_entry reads iorate= through the same list code).
            for rate in iorate_list(&numbers, loc)? {
                rates.push(IoRate::Fixed(rate));
            }
            numbers.clear();
        }
    }
    Ok((rates, wants_curve))
}

/// An rd's `curve=` percentages, each above 0 and at most 1000.
fn curve_points(p: &Param, loc: &Location) -> Result<Vec<f64>, JobFileError> {
    p.values
        .iter()
        .map(|v| {
            let pct: f64 = v.parse().map_err(|_| {
                loc.invalid("curve", v, "not a percentage", "write curve=(10,50,100)")
            })?;
            if !(pct > 0.0 && pct <= 1000.0) {
                return Err(loc.invalid(
                    "curve",
                    v,
                    "a curve point must be above 0%",
                    "write curve=(10,50,100)",
                ));
            }
            Ok(pct)
        })
        .collect::<Result<_, _>>()
}

/// An rd's `elapsed=`, `warmup=`, `interval=` or `pause=` (elapsed and interval above 0).
fn rd_time(rd: &mut RunDef, p: &Param, loc: &Location) -> Result<(), JobFileError> {
    let value = single(p, loc)?;
    let time = parse_time(&value, Duration::from_secs(1)).map_err(|why| {
        loc.invalid(
            &p.written,
            &value,
            why,
            "write seconds or a number with s, m or h such as 600 or 10m",
        )
    })?;
    match p.key.as_str() {
        "elapsed" => {
            if time.is_zero() {
                return Err(loc.invalid(
                    "elapsed",
                    &p.raw,
                    "an elapsed time of 0",
                    "write elapsed=30 or more",
                ));
            }
            rd.elapsed = time;
        }
        "interval" => {
            if time.is_zero() {
                return Err(loc.invalid(
                    "interval",
                    &p.raw,
                    "an interval of 0",
                    "write interval=1",
                ));
            }
            rd.interval = time;
        }
        "warmup" => rd.warmup = time,
        _ => rd.pause = time,
    }
    Ok(())
}

/// An rd's `distribution=`: how arrivals are spaced at a fixed IO rate.
fn arrivals(p: &Param, loc: &Location) -> Result<Arrivals, JobFileError> {
    Ok(match single(p, loc)?.to_ascii_lowercase().as_str() {
        "exponential" | "e" => Arrivals::Exponential,
        "uniform" | "u" => Arrivals::Uniform,
        "deterministic" | "d" => Arrivals::Deterministic,
        other => {
            return Err(loc.invalid(
                "distribution",
                other,
                "not an arrival distribution",
                "write exponential, uniform or deterministic",
            ))
        }
    })
}

fn size_number(text: &str) -> Result<f64, ValueError> {
    let size = parse_size(text, SizeBase::Binary)?;
    if size == Bytes::ZERO {
        return Err(ValueError("a size of 0".into()));
    }
    Ok(size.as_u64() as f64)
}

fn pct_number(text: &str) -> Result<f64, ValueError> {
    parse_percent(text)
}

/// `sd=(sd1-sd8,sd10)`: a list of names, ranges expanded.
fn name_list(p: &Param, loc: &Location) -> Result<Vec<String>, JobFileError> {
    lists::expand_names(&p.values).map_err(|why| {
        loc.invalid(
            &p.written,
            &p.raw,
            why.to_string(),
            "write names such as (sd1-sd8) or sd*",
        )
    })
}

/// `stride=(min,max)`: two sizes, min <= max (vdbench WD_entry.parseStride).
fn parse_stride(p: &Param, loc: &Location) -> Result<(Bytes, Bytes), JobFileError> {
    let fix = "write stride=(MIN,MAX) with two sizes, e.g. stride=(64k,1m)";
    let sizes: Vec<Bytes> = p
        .values
        .iter()
        .map(|v| parse_size(v, SizeBase::Binary).map_err(|why| loc.invalid("stride", v, why, fix)))
        .collect::<Result<_, _>>()?;
    match sizes[..] {
        [min, max] if min <= max => Ok((min, max)),
        [_, _] => Err(loc.invalid("stride", &p.raw, "the maximum is below the minimum", fix)),
        _ => Err(loc.invalid("stride", &p.raw, "not two values", fix)),
    }
}

fn any_size(p: &Param, loc: &Location) -> Result<Bytes, JobFileError> {
    let value = single(p, loc)?;
    parse_size(&value, SizeBase::Binary)
        .map_err(|why| loc.invalid(&p.written, &value, why, "write a size such as 693g or 64m"))
}

/// Whether `values[index]` ends a run of numbers in an `iorate=` list (the list's end, or
/// `max`/`curve` next).
fn is_last_or_keyword(values: &[String], index: usize) -> bool {
    values
        .get(index + 1)
        .is_none_or(|next| matches!(next.to_ascii_lowercase().as_str(), "max" | "curve"))
}

/// The IO rates of a run of `iorate=` numbers, ranges expanded.
fn iorate_list(numbers: &[String], loc: &Location) -> Result<Vec<f64>, JobFileError> {
    let parse = |text: &str| -> Result<f64, ValueError> {
        text.parse::<f64>()
            .ok()
            .filter(|r| r.is_finite() && *r > 0.0)
            .ok_or_else(|| ValueError(format!("'{text}' is not an IO rate")))
    };
    lists::expand_numeric(numbers, parse).map_err(|why| {
        loc.invalid(
            "iorate",
            &numbers.join(","),
            why.to_string(),
            "write iorate=max, iorate=curve, a number of IOs per second such as iorate=5000, or a list such as iorate=(1000-5000,1000)",
        )
    })
}

fn nonzero_size(p: &Param, loc: &Location) -> Result<Bytes, JobFileError> {
    let size = any_size(p, loc)?;
    if size == Bytes::ZERO {
        return Err(loc.invalid(
            &p.written,
            &p.raw,
            "a size of 0",
            "write a size such as 64m",
        ));
    }
    Ok(size)
}

/// `openflags=`: o_direct (directio), o_dsync, o_sync, fsync; a list of them.
fn parse_openflags(p: &Param, loc: &Location) -> Result<(bool, Option<SyncFlag>), JobFileError> {
    let mut direct = false;
    let mut sync = None;
    for flag in &p.values {
        match flag.to_ascii_lowercase().as_str() {
            "o_direct" | "directio" => direct = true,
            "o_dsync" => sync = Some(SyncFlag::DataSync),
            "o_sync" | "fsync" | "o_rsync" => sync = Some(SyncFlag::Sync),
            "" => {}
            other => {
                return Err(loc.unsupported_value(
                    "openflags",
                    other,
                    format!("openflags={other}"),
                    "use o_direct, o_dsync, o_sync or fsync, or leave it out",
                ))
            }
        }
    }
    Ok((direct, sync))
}

/// `range=(start%,end%)` or `hotband=(start%,end%)`; a single value means (0,value).
fn parse_range(p: &Param, loc: &Location) -> Result<(f64, f64), JobFileError> {
    let fix = "write two percentages such as (0,50)";
    let values = p
        .values
        .iter()
        .map(|v| {
            v.trim()
                .trim_end_matches('%')
                .parse::<f64>()
                .map_err(|_| loc.invalid(&p.written, v, "not a percentage", fix))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (start, end) = match values.as_slice() {
        [end] => (0.0, *end),
        [start, end] => (*start, *end),
        _ => return Err(loc.invalid(&p.written, &p.raw, "needs a start and an end", fix)),
    };
    if !(start >= 0.0 && end > start && end <= 100.0) {
        return Err(loc.invalid(
            &p.written,
            &p.raw,
            "the range must lie within 0..100 and end after it starts",
            fix,
        ));
    }
    Ok((start, end))
}

fn single(p: &Param, loc: &Location) -> Result<String, JobFileError> {
    match p.values.as_slice() {
        [one] if !one.is_empty() => Ok(one.clone()),
        [] | [_] => Err(loc.error(Some(&p.written), ErrorKind::MissingValue(p.written.clone()))),
        _ => Err(loc.invalid(
            &p.written,
            &p.raw,
            "a list where one value is expected",
            "give one value",
        )),
    }
}

fn positive_u32(value: &str, key: &str, loc: &Location) -> Result<u32, JobFileError> {
    let n = parse_u32(value)
        .map_err(|why| loc.invalid(key, value, why, "write a whole number such as 8"))?;
    if n == 0 {
        return Err(loc.invalid(key, value, "0 threads issue no IO", "write 1 or more"));
    }
    Ok(n)
}

fn pct_value(value: &str, key: &str, loc: &Location) -> Result<f64, JobFileError> {
    parse_percent(value)
        .map_err(|why| loc.invalid(key, value, why, "write a percentage between 0 and 100"))
}

fn parse_seek(value: &str, loc: &Location) -> Result<Seek, JobFileError> {
    let lower = value.to_ascii_lowercase();
    // vdbench takes any leading part of "sequential" and "random" (seq, s, rand, r).
    match lower.as_str() {
        "eof" | "-1" => Ok(Seek::Eof),
        w if !w.is_empty() && "sequential".starts_with(w) => Ok(Seek::RandomPct(0.0)),
        w if !w.is_empty() && "random".starts_with(w) => Ok(Seek::RandomPct(100.0)),
        other => parse_percent(other).map(Seek::RandomPct).map_err(|why| {
            loc.invalid(
                "seekpct",
                value,
                why,
                "write seekpct=0 (sequential), 100 (random), a percentage, or eof",
            )
        }),
    }
}

fn parse_xfersize(p: &Param, loc: &Location) -> Result<XferSize, JobFileError> {
    let fix = "write xfersize=8k or a distribution (size,pct,size,pct...) such as (4k,30,64k,70)";
    let size = |text: &str| -> Result<Bytes, JobFileError> {
        let size = parse_size(text, SizeBase::Binary)
            .map_err(|why| loc.invalid("xfersize", text, why, fix))?;
        if size == Bytes::ZERO {
            return Err(loc.invalid("xfersize", text, "a transfer size of 0", fix));
        }
        Ok(size)
    };
    if p.values.len() == 1 {
        return Ok(XferSize::Fixed(size(&p.values[0])?));
    }
    if !p.values.len().is_multiple_of(2) {
        return Err(loc.invalid(
            "xfersize",
            &p.raw,
            "a distribution needs size,percent pairs",
            fix,
        ));
    }
    let mut parts = Vec::new();
    for pair in p.values.chunks(2) {
        let pct =
            parse_percent(&pair[1]).map_err(|why| loc.invalid("xfersize", &p.raw, why, fix))?;
        parts.push((size(&pair[0])?, pct));
    }
    let total: f64 = parts.iter().map(|(_, pct)| pct).sum();
    // Shares copied from a measured histogram often add up to 99.99 or 100.01: within 0.1
    // they are scaled to 100, further off they are refused.
    if (total - 100.0).abs() > 0.1 {
        return Err(loc.invalid(
            "xfersize",
            &p.raw,
            format!("the percentages add up to {total}, not 100"),
            fix,
        ));
    }
    for part in &mut parts {
        part.1 *= 100.0 / total;
    }
    Ok(XferSize::Distribution(parts))
}

/// `threads=25`, `forthreads=(1,2,4)`, `forthreads=(1-32,d)` (doubling), `(1-10,2)` (step).
/// The most threads one `threads=` (rd, sd or fwd) may ask for: fio's numjobs limit, and the
/// engine's and file system runs' limit of threads started at once.
pub const MAX_THREADS: u32 = 4096;

/// Refuses, while the file is read and before any thread exists, a thread count beyond
/// [`MAX_THREADS`] (`threads=100000` once panicked a minute into spawning).
fn capped_threads(counts: Vec<u32>, p: &Param, loc: &Location) -> Result<Vec<u32>, JobFileError> {
    match counts.iter().find(|n| **n > MAX_THREADS) {
        Some(n) => Err(loc.invalid(
            &p.written,
            &p.raw,
            format!(
                "{n} threads is more than iofit starts (at most {MAX_THREADS}, as fio's numjobs)"
            ),
            format!("write threads={MAX_THREADS} or fewer"),
        )),
        None => Ok(counts),
    }
}

fn expand_counts(p: &Param, loc: &Location) -> Result<Vec<u32>, JobFileError> {
    numbers(p, loc, |v| {
        parse_u32(v).map(f64::from).and_then(|n| {
            if n == 0.0 {
                Err(ValueError("0 is not a count; write 1 or more".into()))
            } else {
                Ok(n)
            }
        })
    })?
    .into_iter()
    .map(|n| {
        if n.fract() != 0.0 || n > f64::from(u32::MAX) {
            Err(loc.invalid(
                &p.written,
                &p.raw,
                format!("{n} is not a whole count"),
                "write whole numbers",
            ))
        } else {
            Ok(n as u32)
        }
    })
    .collect()
}

/// Depth of unclosed parentheses outside quotes.
fn paren_depth(text: &str) -> i32 {
    let mut depth = 0;
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// Splits `sd=sd1,lun=/x,openflags=(o_direct)` into params; commas inside parentheses or quotes
/// stay in their value.
fn split_params(line: &str, loc: &Location) -> Result<Vec<Param>, JobFileError> {
    let mut pieces: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut depth = 0i32;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            '(' if !quoted => {
                depth += 1;
                current.push(c);
            }
            ')' if !quoted => {
                depth -= 1;
                if depth < 0 {
                    return Err(loc.error(
                        None,
                        ErrorKind::Syntax("a ')' closes no '('; balance the parentheses".into()),
                    ));
                }
                current.push(c);
            }
            ',' if !quoted && depth == 0 => pieces.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    if quoted {
        return Err(loc.error(
            None,
            ErrorKind::Syntax("a '\"' is not closed; close the quoted value".into()),
        ));
    }
    if depth != 0 {
        return Err(loc.error(
            None,
            ErrorKind::Syntax("a '(' is not closed; close the list with ')'".into()),
        ));
    }
    pieces.push(current);
    let mut params = Vec::new();
    for piece in pieces {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let Some((key, value)) = piece.split_once('=') else {
            return Err(loc.error(
                None,
                ErrorKind::Syntax(format!("'{piece}' is not keyword=value; vdbench parameters are written key=value separated by commas")),
            ));
        };
        let key = key.trim().to_ascii_lowercase();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(loc.error(
                None,
                ErrorKind::Syntax(format!("'{piece}' has no keyword before '='")),
            ));
        }
        let value = value.trim();
        let inner = value.strip_prefix('(').and_then(|v| v.strip_suffix(')'));
        let values: Vec<String> = match inner {
            Some(list) => split_list(list),
            None => vec![unquote(value)],
        };
        params.push(Param {
            written: key.clone(),
            key,
            raw: value.to_string(),
            values,
        });
    }
    if params.is_empty() {
        return Err(loc.error(None, ErrorKind::Syntax("an empty parameter line".into())));
    }
    Ok(params)
}

fn split_list(list: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in list.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    items
        .into_iter()
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
        .collect()
}

fn unquote(value: &str) -> String {
    value.trim().trim_matches('"').to_string()
}

/// vdbench wildcards: `*` matches any run of characters, `?` one character.
///
/// The greedy two-pointer match: on a mismatch it retries from the last `*`, one character
/// further, so it takes at most pattern x name steps whatever the stars (a recursive match
/// took exponential time on `s********d-` against a long name: found by fuzzing).
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    // The last star's position in the pattern, and where in the name its run now ends.
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((star_pi, star_ni)) => {
                    star = Some((star_pi, star_ni + 1));
                    pi = star_pi + 1;
                    ni = star_ni + 1;
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Every combination of an RD's for-loops, first loop outermost; refused beyond
/// [`MAX_RUNS`] (counting the `already` runs before it and `rates` runs per combination).
pub(crate) fn for_combinations(
    rd: &RunDef,
    rates: usize,
    already: usize,
) -> Result<Vec<Vec<ForValue>>, JobFileError> {
    let too_many = || {
        rd.loc.error(
            Some("rd"),
            ErrorKind::InvalidJob {
                job: format!("rd={}", rd.name),
                what: format!("its for-loops expand to more than {MAX_RUNS} runs"),
                fix: "shorten the for-lists or split the file".into(),
            },
        )
    };
    let mut combos: Vec<Vec<ForValue>> = vec![Vec::new()];
    for for_loop in &rd.loops {
        let values = for_loop.values();
        // Nested lists multiply: check before expanding.
        if combos.len().saturating_mul(values.len()) > MAX_RUNS {
            return Err(too_many());
        }
        combos = combos
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |value| {
                    let mut next = prefix.clone();
                    next.push(value.clone());
                    next
                })
            })
            .collect();
    }
    if already.saturating_add(combos.len().saturating_mul(rates.max(1))) > MAX_RUNS {
        return Err(too_many());
    }
    Ok(combos)
}

impl ParamFile {
    /// Refuses what parses but does not run yet: data content and validation keys (the data
    /// feature), named with their line.
    pub fn check_runnable(&self) -> Result<(), JobFileError> {
        if self.concatenate && !self.runs()?.is_empty() {
            return Err(JobFileError::new(
                self.rds[0].loc.file.clone(),
                0,
                Some("concatenatesds"),
                ErrorKind::UnsupportedValue {
                    key: "concatenatesds".into(),
                    value: "yes".into(),
                    why: "one volume made of several sds (vdbench's concatenation)".into(),
                    fix: "remove concatenatesds=yes to run each sd on its own".into(),
                },
            ));
        }
        // validate, data_errors, compratio, dedupratio, dedupunit, dedupsets run
        // (vdbench/data.rs); the rest of the data parameters are refused below.
        data::spec(&self.data, true)?;
        if let Some(data) = self.data.iter().find(|d| !data::runs(d)) {
            return Err(data.loc.error(
                Some(&data.key),
                ErrorKind::UnsupportedValue {
                    key: data.key.clone(),
                    value: data.value.clone(),
                    why: "this data parameter (journals, patterns and the like; validate, data_errors, compratio and dedup* do run)".into(),
                    fix: "remove the parameter to run without it".into(),
                },
            ));
        }
        Ok(())
    }

    /// Before a run: every sd a run uses has a lun that exists or a `size=` so iofit can
    /// create it. (`--parse-only` does not look at luns: a file written for another machine's
    /// `/dev/rdsk/...` still parses.)
    pub fn check_targets(&self, runs: &[Run]) -> Result<(), JobFileError> {
        for run in runs {
            for w in &run.workloads {
                if w.sd.size.is_none() && !w.sd.lun.exists() {
                    return Err(w.sd.loc.error(
                        Some("lun"),
                        ErrorKind::InvalidJob {
                            job: format!("sd={}", w.sd.name),
                            what: format!(
                                "lun {} does not exist and no size= is given",
                                w.sd.lun.display()
                            ),
                            fix: "add size= so iofit can create it, point lun= at an existing file, or substitute it (iofit run FILE lun=/path with lun=$lun in the file)".into(),
                        },
                    ));
                }
            }
        }
        Ok(())
    }

    /// Expands every raw (sd/wd) RD into its runs (for-loops, iorate lists), resolving WDs
    /// and SDs. File system RDs (`fwd=`) expand in [`ParamFile::fs_runs`].
    pub fn runs(&self) -> Result<Vec<Run>, JobFileError> {
        let mut runs = Vec::new();
        for rd in self.rds.iter().filter(|rd| rd.fs.is_none()) {
            let wds: Vec<&WorkloadDef> = self
                .wds
                .iter()
                .filter(|wd| rd.wd_patterns.iter().any(|p| wildcard_match(p, &wd.name)))
                .collect();
            let combos = for_combinations(rd, rd.iorates.len(), runs.len())?;
            for iorate in &rd.iorates {
                for combo in &combos {
                    runs.push(self.build_run(rd, &wds, iorate, combo)?);
                }
            }
        }
        Ok(runs)
    }

    fn build_run(
        &self,
        rd: &RunDef,
        wds: &[&WorkloadDef],
        iorate: &IoRate,
        combo: &[ForValue],
    ) -> Result<Run, JobFileError> {
        // vdbench's default is 8 threads per sd.
        let threads = combo
            .iter()
            .find_map(|v| match v {
                ForValue::Threads(t) => Some(*t),
                _ => None,
            })
            .unwrap_or(8);
        let labels: Vec<String> = combo.iter().map(ForValue::label).collect();
        // (wd, sd) pairs.
        let mut pairs: Vec<(&WorkloadDef, &StorageDef)> = Vec::new();
        for wd in wds {
            for sd in self.sds.iter().filter(|sd| {
                let patterns = rd.sd_patterns.as_ref().unwrap_or(&wd.sd_patterns);
                patterns.iter().any(|p| wildcard_match(p, &sd.name))
            }) {
                pairs.push((wd, sd));
            }
        }
        if pairs.is_empty() {
            return Err(rd.loc.error(
                Some("sd"),
                ErrorKind::InvalidJob {
                    job: format!("rd={}", rd.name),
                    what: "its workloads select no SD".into(),
                    fix: "check the sd= patterns of the rd and its wds".into(),
                },
            ));
        }
        // Rate shares: WD skew (equal when none given), then equal across the WD's SDs.
        let given_skew: f64 = wds.iter().filter_map(|w| w.skew).sum();
        let unskewed = wds.iter().filter(|w| w.skew.is_none()).count();
        if given_skew > 100.0 + 1e-6
            || (unskewed == 0 && (given_skew - 100.0).abs() > 1e-6 && wds.len() > 1)
        {
            return Err(rd.loc.error(
                Some("skew"),
                ErrorKind::InvalidJob {
                    job: format!("rd={}", rd.name),
                    what: format!("the skew= of its workloads adds up to {given_skew}, not 100"),
                    fix: "make the skews add up to 100".into(),
                },
            ));
        }
        let share_of = |wd: &WorkloadDef| -> f64 {
            match wd.skew {
                Some(s) if wds.len() > 1 => s / 100.0,
                Some(_) => 1.0,
                None => ((100.0 - given_skew) / 100.0) / unskewed.max(1) as f64,
            }
        };
        let mut workloads = Vec::new();
        for (wd, sd) in &pairs {
            let wds_on_sd = pairs.iter().filter(|(_, s)| s.name == sd.name).count() as u32;
            let sds_of_wd = pairs.iter().filter(|(w, _)| w.name == wd.name).count() as f64;
            let mut sd_threads = threads;
            if let Some(cap) = sd.max_threads {
                sd_threads = sd_threads.min(cap);
            }
            let pair_threads = (sd_threads / wds_on_sd).max(1);
            let mut w = RunWorkload {
                wd: wd.name.clone(),
                sd: (*sd).clone(),
                rdpct: wd.rdpct,
                seek: wd.seek,
                xfersize: wd.xfersize.clone(),
                threads: pair_threads,
                rate_share: share_of(wd) / sds_of_wd,
                range: wd.range.or(sd.range),
                hotband: wd.hotband,
                stride: wd.stride,
                streams: wd.streams,
                rhpct: wd.rhpct,
                whpct: wd.whpct,
                hitarea: sd.hitarea,
                iorate: wd.iorate,
                direct: sd.direct || wd.direct || rd.direct,
                sync_writes: wd.sync_writes.or(sd.sync_writes),
            };
            apply_for_values(&mut w, combo);
            if let Some(size) = sd.size {
                let max = w.xfersize.block_size().max_size();
                if size < max {
                    return Err(sd.loc.error(
                        Some("size"),
                        ErrorKind::InvalidJob {
                            job: format!("sd={}", sd.name),
                            what: format!(
                                "size {} is smaller than the transfer size {} of wd={}",
                                vdbench_size(size),
                                vdbench_size(max),
                                wd.name
                            ),
                            fix: "make size= larger or xfersize= smaller".into(),
                        },
                    ));
                }
            }
            workloads.push(w);
        }
        let run = Run {
            rd: rd.name.clone(),
            for_label: labels.join(" "),
            threads,
            iorate: iorate.clone(),
            elapsed: rd.elapsed,
            warmup: rd.warmup,
            interval: rd.interval,
            pause: rd.pause,
            arrivals: rd.arrivals,
            maxdata: rd.maxdata,
            concatenate: self.concatenate,
            workloads,
            data: data::spec(&self.data, false)?,
        };
        self.check_clone_count(rd, &run)?;
        Ok(run)
    }

    /// On one machine every clone of the run starts at once: refused here, naming the rd,
    /// before any thread exists (on hosts each worker's share is checked there).
    fn check_clone_count(&self, rd: &RunDef, run: &Run) -> Result<(), JobFileError> {
        let clones: u64 = run
            .to_jobs(None)
            .iter()
            .map(|j| u64::from(j.numjobs.max(1)))
            .sum();
        if self.hosts.is_empty() && clones > u64::from(MAX_THREADS) {
            return Err(rd.loc.invalid(
            "threads",
            &run.threads.to_string(),
            format!(
                "rd={} starts {clones} threads over its {} (wd, sd) pairs; iofit starts at most {MAX_THREADS} at once",
                rd.name,
                run.workloads.len()
            ),
            "lower threads= (or run fewer sds at once)",
        ));
        }
        Ok(())
    }

    /// The hd lines an SD runs on: those named by `host=` (`*` or none: every hd). Unknown hd
    /// names are errors naming the sd line. With no hd= lines at all, the SD runs here (empty).
    pub fn sd_hosts(&self, sd: &StorageDef) -> Result<Vec<&HostDef>, JobFileError> {
        self.hosts_named(&sd.hosts, &sd.loc)
    }

    /// The hd lines `names` (a `host=` list, wildcards allowed) name: `*` or none, every hd.
    /// Unknown names are errors at `loc`; with no hd= lines at all, empty (this machine).
    pub fn hosts_named(
        &self,
        names: &[String],
        loc: &Location,
    ) -> Result<Vec<&HostDef>, JobFileError> {
        if names.is_empty() || names.iter().any(|h| h == "*") {
            return Ok(self.hosts.iter().collect());
        }
        let mut out = Vec::new();
        for name in names {
            if name.contains(['*', '?']) {
                let matched: Vec<&HostDef> = self
                    .hosts
                    .iter()
                    .filter(|h| wildcard_match(name, &h.name))
                    .collect();
                if matched.is_empty() {
                    return Err(unknown_reference(
                        "hd",
                        name,
                        self.hosts.iter().map(|h| h.name.as_str()),
                        loc,
                    ));
                }
                for host in matched {
                    if !out.iter().any(|h: &&HostDef| h.name == host.name) {
                        out.push(host);
                    }
                }
                continue;
            }
            match self.hosts.iter().find(|h| &h.name == name) {
                Some(host) => out.push(host),
                // hd=localhost need not be written out, as in vdbench.
                None if name == "localhost" => {}
                None => {
                    return Err(unknown_reference(
                        "hd",
                        name,
                        self.hosts.iter().map(|h| h.name.as_str()),
                        loc,
                    ))
                }
            }
        }
        Ok(out)
    }

    /// True when the file runs anywhere but on this machine alone: an SD on a host that is
    /// not this machine, or on more than one hd.
    pub fn is_multi_host(&self, is_local: impl Fn(&str) -> bool) -> Result<bool, JobFileError> {
        for sd in &self.sds {
            let hosts = self.sd_hosts(sd)?;
            if hosts.len() > 1 || hosts.iter().any(|h| !is_local(h.machine()) || h.jvms > 1) {
                return Ok(true);
            }
        }
        // File system runs: a fwd on an hd that is not this machine.
        for run in self.fs_runs()? {
            for name in run.fwds.iter().flat_map(|f| &f.hosts) {
                if let Some(hd) = self.hosts.iter().find(|h| &h.name == name) {
                    if !is_local(hd.machine()) {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
    }

    /// Refuses SDs placed on a host that is not this machine (for a run on this machine
    /// only). `is_local` decides what "this machine" is (see [`is_local_host`]).
    pub fn check_hosts(&self, is_local: impl Fn(&str) -> bool) -> Result<(), JobFileError> {
        for sd in &self.sds {
            if let Some(host) = self
                .sd_hosts(sd)?
                .into_iter()
                .find(|h| !is_local(h.machine()))
            {
                return Err(host.loc.error(
                    Some("system"),
                    ErrorKind::RemoteHost {
                        host: host.name.clone(),
                        machine: host.machine().to_string(),
                        used_by: format!("used by sd={}", sd.name),
                    },
                ));
            }
        }
        // A fwd whose hd is another machine runs there over ssh, never here.
        for run in self.fs_runs()? {
            for fwd in &run.fwds {
                for name in &fwd.hosts {
                    if let Some(host) = self
                        .hosts
                        .iter()
                        .find(|h| &h.name == name && !is_local(h.machine()))
                    {
                        return Err(host.loc.error(
                            Some("system"),
                            ErrorKind::RemoteHost {
                                host: host.name.clone(),
                                machine: host.machine().to_string(),
                                used_by: format!("used by fwd={}", fwd.fwd.name),
                            },
                        ));
                    }
                }
            }
        }
        for wd in &self.wds {
            if let Some(name) = &wd.host {
                if name != "localhost" && !self.hosts.iter().any(|h| &h.name == name) {
                    return Err(unknown_reference(
                        "hd",
                        name,
                        self.hosts.iter().map(|h| h.name.as_str()),
                        &wd.loc,
                    ));
                }
            }
        }
        Ok(())
    }
}

impl Run {
    /// The part of this run that `host` executes: the (wd, sd) pairs whose SD runs there.
    /// `None` when the host has nothing to do in this run.
    pub fn on_host(&self, file: &ParamFile, host: &str) -> Result<Option<Run>, JobFileError> {
        let mut run = self.clone();
        let mut keep = Vec::new();
        for w in &self.workloads {
            if file.sd_hosts(&w.sd)?.iter().any(|h| h.name == host) {
                keep.push(w.clone());
            }
        }
        if keep.is_empty() {
            return Ok(None);
        }
        run.workloads = keep;
        Ok(Some(run))
    }
}

/// One value of one for-loop: a run's setting.
#[derive(Clone, Debug, PartialEq)]
pub enum ForValue {
    Threads(u32),
    XferSize(XferSize),
    RdPct(f64),
    SeekPct(Seek),
    RhPct(f64),
    WhPct(f64),
    HitArea(Bytes),
    CompRatio(f64),
    Depth(u32),
    Width(u32),
    Files(u32),
    Sizes(Bytes),
    Operation(FileOp),
}

impl ForValue {
    /// `threads=8`, `xfersize=4k`, as vdbench prints a run's for-loop values.
    pub fn label(&self) -> String {
        match self {
            ForValue::Threads(t) => format!("threads={t}"),
            ForValue::XferSize(x) => format!("xfersize={}", x.label()),
            ForValue::RdPct(r) => format!("rdpct={r}"),
            ForValue::SeekPct(Seek::Eof) => "seekpct=eof".into(),
            ForValue::SeekPct(Seek::RandomPct(p)) => format!("seekpct={p}"),
            ForValue::RhPct(p) => format!("rhpct={p}"),
            ForValue::WhPct(p) => format!("whpct={p}"),
            ForValue::HitArea(b) => format!("hitarea={}", vdbench_size(*b)),
            ForValue::CompRatio(c) => format!("compratio={c}"),
            ForValue::Depth(d) => format!("depth={d}"),
            ForValue::Width(w) => format!("width={w}"),
            ForValue::Files(f) => format!("files={f}"),
            ForValue::Sizes(b) => format!("sizes={}", vdbench_size(*b)),
            ForValue::Operation(op) => format!("operation={}", op.name()),
        }
    }
}

impl ForLoop {
    /// The loop's values, one run each.
    pub fn values(&self) -> Vec<ForValue> {
        match self {
            ForLoop::Threads(v) => v.iter().map(|t| ForValue::Threads(*t)).collect(),
            ForLoop::XferSize(v) => v.iter().map(|x| ForValue::XferSize(x.clone())).collect(),
            ForLoop::RdPct(v) => v.iter().map(|r| ForValue::RdPct(*r)).collect(),
            ForLoop::SeekPct(v) => v.iter().map(|s| ForValue::SeekPct(*s)).collect(),
            ForLoop::RhPct(v) => v.iter().map(|r| ForValue::RhPct(*r)).collect(),
            ForLoop::WhPct(v) => v.iter().map(|r| ForValue::WhPct(*r)).collect(),
            ForLoop::HitArea(v) => v.iter().map(|b| ForValue::HitArea(*b)).collect(),
            ForLoop::CompRatio(v) => v.iter().map(|c| ForValue::CompRatio(*c)).collect(),
            ForLoop::Depth(v) => v.iter().map(|d| ForValue::Depth(*d)).collect(),
            ForLoop::Width(v) => v.iter().map(|d| ForValue::Width(*d)).collect(),
            ForLoop::Files(v) => v.iter().map(|d| ForValue::Files(*d)).collect(),
            ForLoop::Sizes(v) => v.iter().map(|b| ForValue::Sizes(*b)).collect(),
            ForLoop::Operations(v) => v.iter().map(|o| ForValue::Operation(*o)).collect(),
        }
    }
}

/// True when `name` is this machine: `localhost`, a loopback address, this host's name (short or
/// fully qualified), or a name that resolves to a loopback address.
pub fn is_local_host(name: &str) -> bool {
    let name = name.trim().to_ascii_lowercase();
    if name == "localhost"
        || name.starts_with("127.")
        || name == "::1"
        || name == "localhost.localdomain"
    {
        return true;
    }
    if let Ok(hostname) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let hostname = hostname.trim().to_ascii_lowercase();
        let short = hostname.split('.').next().unwrap_or("");
        if !hostname.is_empty()
            && (name == hostname || name == short || name.split('.').next() == Some(&hostname))
        {
            return true;
        }
    }
    // A name the resolver maps to loopback (an /etc/hosts alias of this machine).
    use std::net::ToSocketAddrs;
    if name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        if let Ok(addrs) = (name.as_str(), 0u16).to_socket_addrs() {
            let addrs: Vec<_> = addrs.collect();
            return !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback());
        }
    }
    false
}

#[cfg(test)]
mod feature_tests;
#[cfg(test)]
mod tests;

/// A `forxfersize=`/`forrdpct=`/... value of the run in place of the workload's own.
fn apply_for_values(w: &mut RunWorkload, combo: &[ForValue]) {
    for value in combo {
        match value {
            ForValue::XferSize(x) => w.xfersize = x.clone(),
            ForValue::RdPct(r) => w.rdpct = *r,
            ForValue::SeekPct(s) => w.seek = *s,
            ForValue::RhPct(p) => w.rhpct = *p,
            ForValue::WhPct(p) => w.whpct = *p,
            ForValue::HitArea(b) => w.hitarea = Some(*b),
            _ => {}
        }
    }
}
