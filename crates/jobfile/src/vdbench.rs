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
//! - `elapsed=` (default 30 s) includes `warmup=` (default 0); `interval=` (default 1 s) is the
//!   reporting interval.
//! - Each `forthreads`/`forxfersize`/`forrdpct`/`forseekpct` value (and each value of a
//!   parenthesised `threads`/`iorate` list) is one run; several for-lists nest, the first
//!   written outermost.
//! - Hosts: `hd=` lines with `system=`, `user=`, `jvms=`, `vdbench=` (where iofit is on the
//!   host) and `shell=ssh` (rsh and vdbench's own daemon are refused with the reason); an SD
//!   runs on the hds its `host=` names (one, a list, `*`; none: every hd). [`Run::on_host`]
//!   gives each host its share of a run.

use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::values::{parse_percent, parse_size, parse_time, parse_u32};
use iofit_model::job::{
    BlockSizeShare, BlockSizeSpec, EngineKind, JobSpec, PerDirection, RwMode, SizeSpec, Target,
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
    pub loc: Location,
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
#[derive(Clone, Debug, PartialEq)]
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
    pub loc: Location,
}

/// One for-list of an RD.
#[derive(Clone, Debug, PartialEq)]
pub enum ForLoop {
    Threads(Vec<u32>),
    XferSize(Vec<XferSize>),
    RdPct(Vec<f64>),
    SeekPct(Vec<Seek>),
}

/// A parsed parameter file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ParamFile {
    pub hosts: Vec<HostDef>,
    pub sds: Vec<StorageDef>,
    pub wds: Vec<WorkloadDef>,
    pub rds: Vec<RunDef>,
    /// validate=, data_errors=, compratio=, dedup*= (vdbench/data.rs).
    pub data: iofit_model::data::DataSpec,
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
    pub workloads: Vec<RunWorkload>,
    /// The file's data settings (validate, compratio, dedup).
    pub data: iofit_model::data::DataSpec,
}

impl Run {
    /// Total outstanding IOs (threads over every SD); equals the sum over [`Run::to_jobs`] of
    /// clones x IOs in flight per clone.
    pub fn total_threads(&self) -> u32 {
        self.workloads.iter().map(|w| w.threads).sum()
    }

    /// The jobs of this run at `total_iops` (None: uncontrolled, as `iorate=max`).
    /// `run_index` makes file-independent seeds differ between runs.
    pub fn to_jobs(&self, total_iops: Option<f64>) -> Vec<JobSpec> {
        let sequential_pass = self.workloads.iter().any(|w| w.seek == Seek::Eof);
        self.workloads
            .iter()
            .enumerate()
            .map(|(index, w)| {
                let random_pct = match w.seek {
                    Seek::RandomPct(p) => p,
                    Seek::Eof => 0.0,
                };
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
                if random && !self.data.verify.mode.is_on() {
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
                job.direct = w.sd.direct;
                job.size = w.sd.size.map(SizeSpec::Bytes);
                job.group_reporting = true;
                job.ramp_time = self.warmup;
                job.runtime = Some(self.elapsed.saturating_sub(self.warmup));
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
                if let Some(total) = total_iops {
                    // rate_iops is per clone: split the pair's share between its clones.
                    let per_thread = total * w.rate_share / f64::from(job.numjobs);
                    let read = per_thread * w.rdpct / 100.0;
                    let write = per_thread - read;
                    let cap = |iops: f64| (iops > 0.0).then(|| iops.round().max(1.0) as u64);
                    job.rate_iops = PerDirection {
                        read: cap(read),
                        write: cap(write),
                    };
                }
                job
            })
            .collect()
    }
}

/// Parses a parameter file (following `include=`).
pub fn parse_file(path: &Path) -> Result<ParamFile, JobFileError> {
    let source_name = path.display().to_string();
    let text = crate::fio::read_text(path, &source_name)?;
    let mut parser = Parser::default();
    parser.read(&text, &source_name, path.parent(), 0)?;
    parser.finish(&source_name)
}

/// Parses parameter-file text; `include=` resolves against the current directory.
pub fn parse_str(text: &str, source_name: &str) -> Result<ParamFile, JobFileError> {
    let mut parser = Parser::default();
    parser.read(text, source_name, None, 0)?;
    parser.finish(source_name)
}

/// One `key=value` of a line. `values` holds the list items (one for a plain value).
#[derive(Clone, Debug)]
struct Param {
    key: String,
    raw: String,
    values: Vec<String>,
}

#[derive(Default)]
struct Parser {
    file: ParamFile,
    data_keys: data::Keys,
    hd_default: Vec<Param>,
    sd_default: Vec<Param>,
    wd_default: Vec<Param>,
    rd_default: Vec<Param>,
    /// 0 = hd, 1 = sd, 2 = wd, 3 = rd: vdbench requires this order.
    stage: u8,
}

const HD_KEYS: &[&str] = &["system", "jvms", "shell", "user", "vdbench", "clients"];
const HD_UNSUPPORTED: &[&str] = &["mount"];
const SD_KEYS: &[&str] = &["lun", "size", "openflags", "host", "threads"];
const SD_UNSUPPORTED: &[&str] = &[
    "align",
    "count",
    "hitarea",
    "journal",
    "offset",
    "range",
    "replay",
    "resetbus",
    "streams",
    "maxlatestart",
];
const WD_KEYS: &[&str] = &["sd", "rdpct", "seekpct", "xfersize", "skew", "host"];
const WD_UNSUPPORTED: &[&str] = &[
    "iorate",
    "priority",
    "range",
    "rhpct",
    "whpct",
    "hitarea",
    "stride",
    "streams",
    "threads",
    "openflags",
    "dedupratio",
    "compratio",
];
const RD_KEYS: &[&str] = &[
    "wd",
    "sd",
    "iorate",
    "curve",
    "elapsed",
    "warmup",
    "interval",
    "threads",
    "forthreads",
    "forxfersize",
    "forrdpct",
    "forseekpct",
    "xfersize",
    "rdpct",
    "seekpct",
];
const RD_UNSUPPORTED: &[&str] = &[
    "maxdata",
    "pause",
    "distribution",
    "stopcurve",
    "forwhpct",
    "forrhpct",
    "forhitarea",
    "forcompratio",
    "forskew",
    "endcmd",
    "startcmd",
    "openflags",
    "replay",
    "format",
    "operations",
    "fwd",
    "fsd",
    "foroperations",
    "forfilesize",
    "forfilesizes",
];
/// vdbench general parameters and file-system definitions iofit does not run.
const GENERAL_UNSUPPORTED: &[&str] = &[
    "debug",
    "messagescan",
    "histogram",
    "report",
    "concatenate",
    "journal",
    "formatsds",
    "patterns",
    "monitor",
    "ios_per_jvm",
    "fsd",
    "fwd",
    "startcmd",
    "endcmd",
    "create_anchors",
    "port",
    "showlba",
    "timeout",
    "loop",
];

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
        // Join continuation lines: a line that ends with ',' or an open parenthesis continues,
        // and so does a line that starts with ','.
        let mut logical: Vec<(usize, String)> = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = raw.trim();
            if line.is_empty()
                || line.starts_with('*')
                || line.starts_with('/')
                || line.starts_with('#')
            {
                continue;
            }
            if line.chars().any(|c| c.is_control() && c != '\t') {
                return Err(Location::new(source_name, line_no).error(None, ErrorKind::Binary));
            }
            let continues = match logical.last() {
                Some((_, prev)) => {
                    prev.ends_with(',') || paren_depth(prev) > 0 || line.starts_with(',')
                }
                None => false,
            };
            if continues {
                let (_, prev) = logical.last_mut().expect("checked above");
                prev.push_str(line);
            } else {
                logical.push((line_no, line.to_string()));
            }
        }
        for (line_no, line) in logical {
            let loc = Location::new(source_name, line_no);
            let params = split_params(&line, &loc)?;
            let first = &params[0];
            match first.key.as_str() {
                "include" => {
                    if depth >= MAX_INCLUDE_DEPTH {
                        return Err(loc.error(
                            Some("include"),
                            ErrorKind::Other(format!("include nests more than {MAX_INCLUDE_DEPTH} deep; an include loop?")),
                        ));
                    }
                    let target = single(first, &loc)?;
                    let path = match base_dir {
                        Some(dir) if Path::new(&target).is_relative() => dir.join(&target),
                        _ => PathBuf::from(&target),
                    };
                    let included_name = path.display().to_string();
                    let text = crate::fio::read_text(&path, &included_name).map_err(|e| {
                        loc.error(
                            Some("include"),
                            ErrorKind::Other(format!(
                                "cannot include {included_name}: {}; the path is relative to the including file",
                                e.kind
                            )),
                        )
                    })?;
                    self.read(&text, &included_name, path.parent(), depth + 1)?;
                }
                "hd" => {
                    self.order(0, "hd", &loc)?;
                    self.host(params, &loc)?
                }
                "sd" => {
                    self.order(1, "sd", &loc)?;
                    self.storage(params, &loc)?
                }
                "wd" => {
                    self.order(2, "wd", &loc)?;
                    self.workload(params, &loc)?
                }
                "rd" => {
                    self.order(3, "rd", &loc)?;
                    self.run(params, &loc)?
                }
                key if data::KEYS.contains(&key) => self.data_keys.read(&params, &loc)?,
                key if GENERAL_UNSUPPORTED.contains(&key) => {
                    return Err(loc.error(
                        Some(key),
                        ErrorKind::UnsupportedParameter {
                            place: String::new(),
                            key: key.to_string(),
                        },
                    ))
                }
                key => {
                    let hint = match nearest(key, ["hd", "sd", "wd", "rd", "include"]) {
                        Some(near) => format!(" (did you mean '{near}='?)"),
                        None => String::new(),
                    };
                    return Err(loc.error(
                        Some(key),
                        ErrorKind::Syntax(format!(
                            "a vdbench line must start with hd=, sd=, wd=, rd= or include=, not '{key}='{hint}"
                        )),
                    ));
                }
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
            check_shell(&single(p, loc)?, loc)?;
        }
        let Some((name, all)) = with_defaults(
            &mut self.hd_default,
            params,
            HD_KEYS,
            HD_UNSUPPORTED,
            "hd",
            loc,
        )?
        else {
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
                "vdbench" => host.remote_binary = Some(single(p, loc)?),
                "jvms" => host.jvms = positive_u32(&single(p, loc)?, "jvms", loc)?,
                _ => {}
            }
        }
        if self.file.hosts.iter().any(|h| h.name == name) {
            return Err(duplicate("hd", &name, loc));
        }
        self.file.hosts.push(host);
        Ok(())
    }

    fn storage(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = with_defaults(
            &mut self.sd_default,
            params,
            SD_KEYS,
            SD_UNSUPPORTED,
            "sd",
            loc,
        )?
        else {
            return Ok(());
        };
        let mut sd = StorageDef {
            name: name.clone(),
            lun: PathBuf::new(),
            size: None,
            direct: false,
            hosts: Vec::new(),
            max_threads: None,
            loc: loc.clone(),
        };
        let mut has_lun = false;
        for p in &all {
            if p.key == "host" {
                // One hd name, a list `host=(vm1,vm2)`, or `*` for every hd.
                sd.hosts = p.values.iter().filter(|v| !v.is_empty()).cloned().collect();
                continue;
            }
            let value = single(p, loc)?;
            match p.key.as_str() {
                "lun" => {
                    sd.lun = PathBuf::from(&value);
                    has_lun = true;
                }
                "size" => {
                    let size = parse_size(&value, SizeBase::Binary).map_err(|why| {
                        loc.invalid("size", &value, why, "write a size such as 693g or 64m")
                    })?;
                    if size == Bytes::ZERO {
                        return Err(loc.invalid(
                            "size",
                            &value,
                            "a size of 0",
                            "write a size such as 64m",
                        ));
                    }
                    sd.size = Some(size);
                }
                "openflags" => {
                    for flag in &p.values {
                        match flag.to_ascii_lowercase().as_str() {
                            "o_direct" | "directio" => sd.direct = true,
                            other => {
                                return Err(loc.unsupported_value(
                                    "openflags",
                                    other,
                                    format!("openflags={other}"),
                                    "use openflags=o_direct or leave it out",
                                ))
                            }
                        }
                    }
                }
                "threads" => sd.max_threads = Some(positive_u32(&value, "threads", loc)?),
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
        if self.file.sds.iter().any(|s| s.name == name) {
            return Err(duplicate("sd", &name, loc));
        }
        self.file.sds.push(sd);
        Ok(())
    }

    fn workload(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = with_defaults(
            &mut self.wd_default,
            params,
            WD_KEYS,
            WD_UNSUPPORTED,
            "wd",
            loc,
        )?
        else {
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
            loc: loc.clone(),
        };
        for p in &all {
            match p.key.as_str() {
                "sd" => wd.sd_patterns = p.values.clone(),
                "rdpct" => wd.rdpct = pct_value(&single(p, loc)?, "rdpct", loc)?,
                "seekpct" => wd.seek = parse_seek(&single(p, loc)?, loc)?,
                "xfersize" => wd.xfersize = parse_xfersize(p, loc)?,
                "skew" => {
                    let skew = pct_value(&single(p, loc)?, "skew", loc)?;
                    wd.skew = Some(skew);
                }
                "host" => wd.host = Some(single(p, loc)?),
                _ => {}
            }
        }
        if wd.sd_patterns.is_empty() {
            return Err(loc.error(
                Some("sd"),
                ErrorKind::InvalidJob {
                    job: format!("wd={name}"),
                    what: "no sd=".into(),
                    fix: "add sd=NAME (wildcards such as sd=sd* work)".into(),
                },
            ));
        }
        for pattern in &wd.sd_patterns {
            if !self
                .file
                .sds
                .iter()
                .any(|sd| wildcard_match(pattern, &sd.name))
            {
                return Err(unknown_reference(
                    "sd",
                    pattern,
                    self.file.sds.iter().map(|s| s.name.as_str()),
                    loc,
                ));
            }
        }
        if self.file.wds.iter().any(|w| w.name == name) {
            return Err(duplicate("wd", &name, loc));
        }
        self.file.wds.push(wd);
        Ok(())
    }

    fn run(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = with_defaults(
            &mut self.rd_default,
            params,
            RD_KEYS,
            RD_UNSUPPORTED,
            "rd",
            loc,
        )?
        else {
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
            loc: loc.clone(),
        };
        let mut curve: Vec<f64> = DEFAULT_CURVE_PCT.to_vec();
        let mut wants_curve = false;
        let mut iorate_set = false;
        // Loops: a later value for the same loop kind replaces the earlier one (defaults first).
        let mut loops: Vec<(u8, ForLoop)> = Vec::new();
        let mut set_loop = |kind: u8, value: ForLoop| {
            if let Some(slot) = loops.iter_mut().find(|(k, _)| *k == kind) {
                slot.1 = value;
            } else {
                loops.push((kind, value));
            }
        };
        let time = |p: &Param| -> Result<Duration, JobFileError> {
            let value = single(p, loc)?;
            parse_time(&value, Duration::from_secs(1)).map_err(|why| {
                loc.invalid(
                    &p.key,
                    &value,
                    why,
                    "write seconds or a number with s, m or h such as 600 or 10m",
                )
            })
        };
        for p in &all {
            match p.key.as_str() {
                "wd" => rd.wd_patterns = p.values.clone(),
                "sd" => rd.sd_patterns = Some(p.values.clone()),
                "iorate" => {
                    iorate_set = true;
                    let mut rates = Vec::new();
                    for value in &p.values {
                        match value.to_ascii_lowercase().as_str() {
                            "max" => rates.push(IoRate::Max),
                            "curve" => {
                                wants_curve = true;
                                rates.push(IoRate::Curve(Vec::new()));
                            }
                            other => {
                                let rate: f64 = other.parse().ok().filter(|r: &f64| r.is_finite() && *r > 0.0).ok_or_else(|| {
                                    loc.invalid("iorate", other, "not an IO rate", "write iorate=max, iorate=curve or a number of IOs per second such as iorate=5000")
                                })?;
                                rates.push(IoRate::Fixed(rate));
                            }
                        }
                    }
                    rd.iorates = rates;
                }
                "curve" => {
                    curve = p
                        .values
                        .iter()
                        .map(|v| {
                            let pct: f64 = v.parse().map_err(|_| {
                                loc.invalid(
                                    "curve",
                                    v,
                                    "not a percentage",
                                    "write curve=(10,50,100)",
                                )
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
                        .collect::<Result<_, _>>()?;
                }
                "elapsed" => {
                    rd.elapsed = time(p)?;
                    if rd.elapsed.is_zero() {
                        return Err(loc.invalid(
                            "elapsed",
                            &p.raw,
                            "an elapsed time of 0",
                            "write elapsed=30 or more",
                        ));
                    }
                }
                "warmup" => rd.warmup = time(p)?,
                "interval" => {
                    rd.interval = time(p)?;
                    if rd.interval.is_zero() {
                        return Err(loc.invalid(
                            "interval",
                            &p.raw,
                            "an interval of 0",
                            "write interval=1",
                        ));
                    }
                }
                "threads" | "forthreads" => {
                    let threads = expand_counts(p, loc)?;
                    set_loop(0, ForLoop::Threads(threads));
                }
                "xfersize" | "forxfersize" => {
                    let sizes = p
                        .values
                        .iter()
                        .map(|v| {
                            let size = parse_size(v, SizeBase::Binary).map_err(|why| {
                                loc.invalid(&p.key, v, why, "write sizes such as (4k,8k,64k)")
                            })?;
                            if size == Bytes::ZERO {
                                return Err(loc.invalid(
                                    &p.key,
                                    v,
                                    "a transfer size of 0",
                                    "write sizes such as (4k,8k)",
                                ));
                            }
                            Ok(XferSize::Fixed(size))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    set_loop(1, ForLoop::XferSize(sizes));
                }
                "rdpct" | "forrdpct" => {
                    let pcts = p
                        .values
                        .iter()
                        .map(|v| pct_value(v, &p.key, loc))
                        .collect::<Result<Vec<_>, _>>()?;
                    set_loop(2, ForLoop::RdPct(pcts));
                }
                "seekpct" | "forseekpct" => {
                    let seeks = p
                        .values
                        .iter()
                        .map(|v| parse_seek(v, loc))
                        .collect::<Result<Vec<_>, _>>()?;
                    set_loop(3, ForLoop::SeekPct(seeks));
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
        if !iorate_set {
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
        if rd.warmup >= rd.elapsed {
            return Err(loc.invalid(
                "warmup",
                &format!("{}", rd.warmup.as_secs_f64()),
                format!(
                    "warmup must be shorter than elapsed={}",
                    rd.elapsed.as_secs_f64()
                ),
                "lower warmup= or raise elapsed=",
            ));
        }
        rd.loops = loops.into_iter().map(|(_, l)| l).collect();
        if rd.wd_patterns.is_empty() {
            return Err(loc.error(
                Some("wd"),
                ErrorKind::InvalidJob {
                    job: format!("rd={name}"),
                    what: "no wd=".into(),
                    fix: "add wd=NAME naming a workload defined above".into(),
                },
            ));
        }
        for pattern in &rd.wd_patterns {
            if !self
                .file
                .wds
                .iter()
                .any(|wd| wildcard_match(pattern, &wd.name))
            {
                return Err(unknown_reference(
                    "wd",
                    pattern,
                    self.file.wds.iter().map(|w| w.name.as_str()),
                    loc,
                ));
            }
        }
        if let Some(patterns) = &rd.sd_patterns {
            for pattern in patterns {
                if !self
                    .file
                    .sds
                    .iter()
                    .any(|sd| wildcard_match(pattern, &sd.name))
                {
                    return Err(unknown_reference(
                        "sd",
                        pattern,
                        self.file.sds.iter().map(|s| s.name.as_str()),
                        loc,
                    ));
                }
            }
        }
        if self.file.rds.iter().any(|r| r.name == name) {
            return Err(duplicate("rd", &name, loc));
        }
        self.file.rds.push(rd);
        Ok(())
    }

    fn finish(self, source_name: &str) -> Result<ParamFile, JobFileError> {
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
        let mut file = self.file;
        file.data = self.data_keys.spec();
        Ok(file)
    }
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

/// The name a `hd=`/`sd=`/`wd=`/`rd=` line defines and its parameters, with the `default`
/// parameters of that line type first so the line's own win (vdbench applies later values
/// over earlier ones). A `default` line returns `None`: its parameters are kept for the lines
/// that follow it.
fn with_defaults(
    defaults: &mut Vec<Param>,
    params: Vec<Param>,
    known: &[&str],
    unsupported: &[&str],
    kind: &str,
    loc: &Location,
) -> Result<Option<(String, Vec<Param>)>, JobFileError> {
    let name = single(&params[0], loc)?;
    check_keys(&params[1..], known, unsupported, kind, loc)?;
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

fn check_keys(
    params: &[Param],
    known: &[&str],
    unsupported: &[&str],
    kind: &str,
    loc: &Location,
) -> Result<(), JobFileError> {
    for p in params {
        let key = p.key.as_str();
        if known.contains(&key) {
            continue;
        }
        if unsupported.contains(&key) {
            return Err(loc.error(
                Some(key),
                ErrorKind::UnsupportedParameter {
                    place: format!("{kind} "),
                    key: key.to_string(),
                },
            ));
        }
        let suggestion = nearest(
            key,
            known.iter().copied().chain(unsupported.iter().copied()),
        );
        return Err(loc.error(
            Some(key),
            ErrorKind::UnknownOption {
                key: format!("{kind} {key}"),
                suggestion,
            },
        ));
    }
    Ok(())
}

/// `shell=`: iofit reaches hosts through OpenSSH only.
fn check_shell(value: &str, loc: &Location) -> Result<(), JobFileError> {
    match value.to_ascii_lowercase().as_str() {
        "ssh" => Ok(()),
        "rsh" => Err(loc.unsupported_value(
            "shell",
            value,
            "rsh sends everything in clear text and iofit does not implement it",
            "use shell=ssh (iofit starts itself on each host through the OpenSSH client)",
        )),
        "vdbench" => Err(loc.unsupported_value(
            "shell",
            value,
            "shell=vdbench needs vdbench's own RMI daemon listening on every host, which iofit does not run",
            "use shell=ssh (nothing listens on the network; iofit starts itself over ssh)",
        )),
        _ => Err(loc.unsupported_value(
            "shell",
            value,
            "vdbench knows shell=ssh, rsh and vdbench",
            "use shell=ssh",
        )),
    }
}

fn single(p: &Param, loc: &Location) -> Result<String, JobFileError> {
    match p.values.as_slice() {
        [one] if !one.is_empty() => Ok(one.clone()),
        [] | [_] => Err(loc.error(Some(&p.key), ErrorKind::MissingValue(p.key.clone()))),
        _ => Err(loc.invalid(
            &p.key,
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
    match value.to_ascii_lowercase().as_str() {
        "eof" | "-1" => Ok(Seek::Eof),
        "seq" | "sequential" => Ok(Seek::RandomPct(0.0)),
        "random" => Ok(Seek::RandomPct(100.0)),
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
    if (total - 100.0).abs() > 1e-6 {
        return Err(loc.invalid(
            "xfersize",
            &p.raw,
            format!("the percentages add up to {total}, not 100"),
            fix,
        ));
    }
    Ok(XferSize::Distribution(parts))
}

/// `threads=25`, `forthreads=(1,2,4)`, `forthreads=(1-32,d)` (doubling), `(1-10,2)` (step).
fn expand_counts(p: &Param, loc: &Location) -> Result<Vec<u32>, JobFileError> {
    let fix = "write a number, a list (1,2,4), or a range (1-32,d) doubling or (1-10,1) stepping";
    let values = &p.values;
    if values.len() == 2 && values[0].contains('-') && !values[0].starts_with('-') {
        let (low, high) = values[0].split_once('-').expect("checked");
        let low = positive_u32(low.trim(), &p.key, loc)?;
        let high = positive_u32(high.trim(), &p.key, loc)?;
        if high < low {
            return Err(loc.invalid(&p.key, &p.raw, "the range runs backwards", fix));
        }
        let step = values[1].trim().to_ascii_lowercase();
        let mut out = Vec::new();
        let mut n = low;
        if step == "d" {
            while n <= high {
                out.push(n);
                n = n.saturating_mul(2);
                if out.len() > 64 {
                    break;
                }
            }
        } else {
            let step = positive_u32(&step, &p.key, loc)?;
            while n <= high && out.len() <= 1024 {
                out.push(n);
                n = n.saturating_add(step);
            }
        }
        return Ok(out);
    }
    values
        .iter()
        .map(|v| positive_u32(v, &p.key, loc))
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
pub fn wildcard_match(pattern: &str, name: &str) -> bool {
    fn matches(p: &[char], n: &[char]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some('*'), _) => matches(&p[1..], n) || (!n.is_empty() && matches(p, &n[1..])),
            (Some('?'), Some(_)) => matches(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => matches(&p[1..], &n[1..]),
            _ => false,
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    // Patterns are short; cap pathological ones so the recursion stays small.
    if p.iter().filter(|c| **c == '*').count() > 8 {
        return pattern == name;
    }
    matches(&p, &n)
}

impl ParamFile {
    /// Expands every RD into its runs (for-loops, iorate lists), resolving WDs and SDs.
    pub fn runs(&self) -> Result<Vec<Run>, JobFileError> {
        let mut runs = Vec::new();
        for rd in &self.rds {
            let wds: Vec<&WorkloadDef> = self
                .wds
                .iter()
                .filter(|wd| rd.wd_patterns.iter().any(|p| wildcard_match(p, &wd.name)))
                .collect();
            // Every combination of the for-loops, first loop outermost.
            let mut combos: Vec<Vec<ForValue>> = vec![Vec::new()];
            let mut too_many = false;
            for for_loop in &rd.loops {
                let values: Vec<ForValue> = match for_loop {
                    ForLoop::Threads(v) => v.iter().map(|t| ForValue::Threads(*t)).collect(),
                    ForLoop::XferSize(v) => {
                        v.iter().map(|x| ForValue::XferSize(x.clone())).collect()
                    }
                    ForLoop::RdPct(v) => v.iter().map(|r| ForValue::RdPct(*r)).collect(),
                    ForLoop::SeekPct(v) => v.iter().map(|s| ForValue::SeekPct(*s)).collect(),
                };
                // Nested lists multiply: check before expanding.
                if combos.len().saturating_mul(values.len()) > MAX_RUNS {
                    too_many = true;
                    break;
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
            let count = combos.len().saturating_mul(rd.iorates.len());
            if too_many || runs.len().saturating_add(count) > MAX_RUNS {
                return Err(rd.loc.error(
                    Some("rd"),
                    ErrorKind::InvalidJob {
                        job: format!("rd={}", rd.name),
                        what: format!("its for-loops expand to more than {MAX_RUNS} runs"),
                        fix: "shorten the for-lists or split the file".into(),
                    },
                ));
            }
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
        let mut threads = 8u32;
        let mut labels = Vec::new();
        for value in combo {
            match value {
                ForValue::Threads(t) => {
                    threads = *t;
                    labels.push(format!("threads={t}"));
                }
                ForValue::XferSize(x) => labels.push(format!("xfersize={}", x.label())),
                ForValue::RdPct(r) => labels.push(format!("rdpct={r}")),
                ForValue::SeekPct(s) => labels.push(format!(
                    "seekpct={}",
                    match s {
                        Seek::Eof => "eof".to_string(),
                        Seek::RandomPct(p) => p.to_string(),
                    }
                )),
            }
        }
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
            let mut rdpct = wd.rdpct;
            let mut seek = wd.seek;
            let mut xfersize = wd.xfersize.clone();
            for value in combo {
                match value {
                    ForValue::XferSize(x) => xfersize = x.clone(),
                    ForValue::RdPct(r) => rdpct = *r,
                    ForValue::SeekPct(s) => seek = *s,
                    ForValue::Threads(_) => {}
                }
            }
            if let Some(size) = sd.size {
                let max = xfersize.block_size().max_size();
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
            } else if !sd.lun.exists() {
                return Err(sd.loc.error(
                    Some("size"),
                    ErrorKind::InvalidJob {
                        job: format!("sd={}", sd.name),
                        what: format!(
                            "lun {} does not exist and no size= is given",
                            sd.lun.display()
                        ),
                        fix: "add size= so iofit can create it, or point lun= at an existing file"
                            .into(),
                    },
                ));
            }
            workloads.push(RunWorkload {
                wd: wd.name.clone(),
                sd: (*sd).clone(),
                rdpct,
                seek,
                xfersize,
                threads: pair_threads,
                rate_share: share_of(wd) / sds_of_wd,
            });
        }
        Ok(Run {
            rd: rd.name.clone(),
            for_label: labels.join(" "),
            threads,
            iorate: iorate.clone(),
            elapsed: rd.elapsed,
            warmup: rd.warmup,
            interval: rd.interval,
            workloads,
            data: self.data.clone(),
        })
    }

    /// The hd lines an SD runs on: those named by `host=` (`*` or none: every hd). Unknown hd
    /// names are errors naming the sd line. With no hd= lines at all, the SD runs here (empty).
    pub fn sd_hosts(&self, sd: &StorageDef) -> Result<Vec<&HostDef>, JobFileError> {
        if sd.hosts.is_empty() || sd.hosts.iter().any(|h| h == "*") {
            return Ok(self.hosts.iter().collect());
        }
        let mut out = Vec::new();
        for name in &sd.hosts {
            match self.hosts.iter().find(|h| &h.name == name) {
                Some(host) => out.push(host),
                // hd=localhost need not be written out, as in vdbench.
                None if name == "localhost" => {}
                None => {
                    return Err(unknown_reference(
                        "hd",
                        name,
                        self.hosts.iter().map(|h| h.name.as_str()),
                        &sd.loc,
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

#[derive(Clone, Debug)]
enum ForValue {
    Threads(u32),
    XferSize(XferSize),
    RdPct(f64),
    SeekPct(Seek),
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

mod data;

#[cfg(test)]
mod tests;
