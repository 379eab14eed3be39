//! vdbench parameter files: `hd=`, `sd=`, `wd=`, `rd=` lines (with their `default` entries),
//! `include=`, `*` comments, quoted and parenthesised lists, wildcards and for-loops, expanded
//! into runs and lowered to [`JobSpec`](iofit_model::job::JobSpec)s with vdbench's semantics.
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
mod definitions;
mod expand;
mod fs;
mod keys;
pub mod lists;
mod lower;
mod names;
mod notes;
mod params;
mod parse;

pub use fs::{
    leaf_dirs, FileOp, FileSelect, FileShare, FormatMode, FsRun, FsRunDef, FsRunFwd, FsdDef,
    FwdDef, FwdRate,
};
pub use lower::{many_threads_split, IntervalPlan, SYNC_THREADS_MAX};
pub use names::wildcard_match;
pub use notes::{RemoteShell, VdbenchNote};
pub use params::MAX_THREADS;
pub use parse::{parse_file, parse_file_with, parse_str, parse_str_with};

use crate::error::Location;
use iofit_model::job::{BlockSizeShare, BlockSizeSpec};
use iofit_model::units::Bytes;
use std::path::PathBuf;
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
    pub notes: Vec<VdbenchNote>,
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
