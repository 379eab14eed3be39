//! vdbench file system definitions: `fsd=` (a directory tree under an anchor), `fwd=` (an
//! operation on its files) and the file system keys of `rd=` (`fwd=`, `fwdrate=`, `format=`,
//! `operations=`), with vdbench's defaults (from its `FsdEntry` and `FwdEntry`: width 1,
//! depth 1, 10 files, 1 thread, 4k transfers, sequential file IO and file selection).

use super::expand::for_combinations;
use super::lower::IntervalPlan;
use super::names::{check_references, push_new, unknown_reference, wildcard_match, Named};
use super::params::{
    capped_threads, name_list, nonzero_size, parse_openflags, parse_xfersize, pct_value,
    positive_u32, single, yes_no, Param,
};
use super::parse::{Line, Parser};
use super::{ForValue, ParamFile, RunDef, SyncFlag, XferSize};
use crate::values::parse_u32;

use crate::error::{ErrorKind, JobFileError, Location};
use iofit_model::units::Bytes;
use std::path::PathBuf;
use std::time::Duration;

/// A file system definition (`fsd=`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FsdDef {
    pub name: String,
    pub anchor: PathBuf,
    /// Directories per level.
    pub width: u32,
    /// Levels of directories below the anchor.
    pub depth: u32,
    /// Files per directory that holds files.
    pub files: u32,
    /// `sizes=`: one size, or (size,pct,...) a distribution of file sizes.
    pub sizes: XferSize,
    /// `totalsize=`: format creates files (in order) only up to this many bytes in all.
    pub total_size: Option<Bytes>,
    /// `wss=`: runs (not formats) use only a fixed random subset of the files holding at least
    /// this many bytes (vdbench FileAnchor.createWorkingSetList).
    pub wss: Option<Bytes>,
    /// `distribution=all`: files in every directory, not only the deepest ones.
    pub files_in_all_dirs: bool,
    pub shared: bool,
    pub direct: bool,
    pub sync_writes: Option<SyncFlag>,
    pub hosts: Vec<String>,
    pub loc: Location,
    /// Set on one host's part of a run ([`FsRun::on_host`]) when this `shared=yes` fsd is
    /// worked on from several hosts: the files this host may touch.
    #[serde(default)]
    pub share: Option<FileShare>,
}

/// vdbench's rule for a `shared=yes` fsd used by several slaves (FileAnchor.createFileList):
/// the files are counted in vdbench's directory order, and slave `slave` of `slaves` takes
/// file number `k` only when `k % slaves == slave`; the directories are everyone's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileShare {
    /// This host's number, from 0.
    pub slave: u32,
    /// How many hosts share the fsd.
    pub slaves: u32,
}

/// One file system operation (`operation=`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum FileOp {
    Read,
    Write,
    Mkdir,
    Rmdir,
    Copy,
    Move,
    Create,
    Delete,
    Getattr,
    Setattr,
    Access,
    Open,
    Close,
}

impl FileOp {
    /// Every operation, in vdbench's order (its `Operations` table).
    pub const ALL: [FileOp; 13] = [
        FileOp::Read,
        FileOp::Write,
        FileOp::Mkdir,
        FileOp::Rmdir,
        FileOp::Copy,
        FileOp::Move,
        FileOp::Create,
        FileOp::Delete,
        FileOp::Getattr,
        FileOp::Setattr,
        FileOp::Access,
        FileOp::Open,
        FileOp::Close,
    ];

    /// vdbench's name of the operation, as written in parameter files and reports.
    pub fn name(self) -> &'static str {
        match self {
            FileOp::Read => "read",
            FileOp::Write => "write",
            FileOp::Mkdir => "mkdir",
            FileOp::Rmdir => "rmdir",
            FileOp::Copy => "copy",
            FileOp::Move => "move",
            FileOp::Create => "create",
            FileOp::Delete => "delete",
            FileOp::Getattr => "getattr",
            FileOp::Setattr => "setattr",
            FileOp::Access => "access",
            FileOp::Open => "open",
            FileOp::Close => "close",
        }
    }

    pub fn parse(text: &str) -> Option<FileOp> {
        let lower = text.trim().to_ascii_lowercase();
        FileOp::ALL.into_iter().find(|op| op.name() == lower)
    }
}

/// `fileselect=`: which file a thread takes next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileSelect {
    Sequential,
    Random,
}

/// A file system workload definition (`fwd=`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FwdDef {
    pub name: String,
    pub fsd_patterns: Vec<String>,
    pub operation: FileOp,
    /// `rdpct=`: a mix of reads and writes (operation read/write then ignored).
    pub rdpct: Option<f64>,
    /// `fileio=random`: random transfers inside a file; else the file front to back.
    pub random_io: bool,
    pub select: FileSelect,
    pub xfersizes: XferSize,
    pub threads: u32,
    pub skew: Option<f64>,
    /// `stopafter=`: transfers per file before the next file is chosen (random file IO;
    /// sequential IO reads or writes this many transfers from the start).
    pub stopafter: Option<u64>,
    pub direct: bool,
    pub sync_writes: Option<SyncFlag>,
    /// `host=` (or `hd=`): the hds that run this fwd (`*` or none: every hd, as vdbench's
    /// FwdEntry defaults to `host=*`).
    pub hosts: Vec<String>,
    pub loc: Location,
}

/// `format=` of an rd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum FormatMode {
    /// Use the tree as it is (vdbench's default).
    #[default]
    No,
    /// Delete what is there, create the tree and every file, then run.
    Yes,
    /// Create what is missing (and complete short files), then run.
    Restart,
    /// Format as `yes`, then stop without running.
    Only,
    /// `format=(restart,only)`: create what is missing, then stop without running (vdbench's
    /// second step of a shared fsd's format, after `format=(clean,only)`).
    RestartOnly,
    /// Delete the tree, then stop.
    Clean,
}

/// `fwdrate=`.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub enum FwdRate {
    #[default]
    Max,
    /// Operations per second of the whole run.
    Fixed(f64),
}

/// The file system part of an rd.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct FsRunDef {
    pub fwd_patterns: Vec<String>,
    pub fwdrate: Vec<FwdRate>,
    pub format: FormatMode,
}

/// `operations=(read,write)` / `foroperations=`.
pub(crate) fn parse_operations(p: &Param, loc: &Location) -> Result<Vec<FileOp>, JobFileError> {
    p.values
        .iter()
        .map(|v| {
            FileOp::parse(v).ok_or_else(|| {
                loc.invalid(
                    &p.written,
                    v,
                    "not a vdbench file operation",
                    "write read, write, create, delete, mkdir, rmdir, getattr, setattr, access, open, close, copy or move",
                )
            })
        })
        .collect()
}

/// One rd key of a file system run.
pub(crate) fn rd_param(fs: &mut FsRunDef, p: &Param, loc: &Location) -> Result<(), JobFileError> {
    match p.key.as_str() {
        "fwd" => fs.fwd_patterns = name_list(p, loc)?,
        "fsd" => {
            return Err(loc.unsupported_value(
                "rd fsd",
                &p.raw,
                "fsd= on an rd (choosing fsds per run)",
                "name the fsds on the fwd= lines",
            ))
        }
        "fwdrate" => {
            fs.fwdrate = p
                .values
                .iter()
                .map(|v| match v.to_ascii_lowercase().as_str() {
                    "max" => Ok(FwdRate::Max),
                    other => other
                        .parse::<f64>()
                        .ok()
                        .filter(|r| r.is_finite() && *r > 0.0)
                        .map(FwdRate::Fixed)
                        .ok_or_else(|| {
                            loc.invalid(
                                "fwdrate",
                                other,
                                "not an operation rate",
                                "write fwdrate=max or a number of operations per second",
                            )
                        }),
                })
                .collect::<Result<_, _>>()?;
        }
        "format" => {
            let words: Vec<String> = p.values.iter().map(|v| v.to_ascii_lowercase()).collect();
            let has = |w: &str| words.iter().any(|x| x == w);
            fs.format = if has("clean") {
                FormatMode::Clean
            } else if has("only") && has("restart") {
                FormatMode::RestartOnly
            } else if has("only") {
                FormatMode::Only
            } else if has("restart") {
                FormatMode::Restart
            } else if has("yes") || has("y") {
                FormatMode::Yes
            } else if has("no") || has("n") {
                FormatMode::No
            } else {
                return Err(loc.unsupported_value(
                    "format",
                    &p.raw,
                    format!("format={}", p.raw),
                    "write format=yes, no, only, restart or clean",
                ));
            };
        }
        _ => {}
    }
    Ok(())
}

/// One fwd of an expanded file system run, with the rd's for-loop values applied.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FsRunFwd {
    pub fwd: FwdDef,
    /// The fsds it works on.
    pub fsds: Vec<String>,
    /// Share of the run's `fwdrate`, 0..1 (skew, else equal).
    pub rate_share: f64,
    /// The hds that run it (names of `hd=` lines); empty when the file has no hd= lines
    /// (the run is this machine's).
    #[serde(default)]
    pub hosts: Vec<String>,
}

/// One expanded file system run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FsRun {
    pub rd: String,
    pub for_label: String,
    /// The fsds of the run, with `fordepth`/`forwidth`/`forfiles`/`forsizes` applied.
    pub fsds: Vec<FsdDef>,
    pub fwds: Vec<FsRunFwd>,
    pub fwdrate: FwdRate,
    pub format: FormatMode,
    /// The `fwd=format` line's threads (else the run's fwds') and transfer size (128k).
    pub format_threads: u32,
    pub format_xfersize: Bytes,
    pub elapsed: std::time::Duration,
    pub warmup: std::time::Duration,
    pub interval: std::time::Duration,
    pub pause: std::time::Duration,
}

impl ParamFile {
    /// Expands every file system RD (`fwd=`) into its runs.
    pub fn fs_runs(&self) -> Result<Vec<FsRun>, JobFileError> {
        let mut runs = Vec::new();
        for rd in &self.rds {
            let Some(fs) = &rd.fs else { continue };
            if fs.fwd_patterns.is_empty() {
                return Err(rd.loc.error(
                    Some("fwd"),
                    ErrorKind::InvalidJob {
                        job: format!("rd={}", rd.name),
                        what: "fwdrate=/format= without fwd=".into(),
                        fix: "add fwd=NAME naming a file system workload".into(),
                    },
                ));
            }
            let fwds: Vec<&FwdDef> = self
                .fwds
                .iter()
                .filter(|f| f.name != "format")
                .filter(|f| fs.fwd_patterns.iter().any(|p| wildcard_match(p, &f.name)))
                .collect();
            if fwds.is_empty() {
                return Err(unknown_reference(
                    "fwd",
                    &fs.fwd_patterns.join(","),
                    self.fwds.iter().map(|f| f.name.as_str()),
                    &rd.loc,
                ));
            }
            let rates = if fs.fwdrate.is_empty() {
                vec![FwdRate::Max]
            } else {
                fs.fwdrate.clone()
            };
            let combos = for_combinations(rd, rates.len(), runs.len())?;
            for rate in &rates {
                for combo in &combos {
                    runs.push(self.build_fs_run(rd, fs, &fwds, *rate, combo)?);
                }
            }
        }
        Ok(runs)
    }

    fn build_fs_run(
        &self,
        rd: &RunDef,
        fs: &FsRunDef,
        fwds: &[&FwdDef],
        fwdrate: FwdRate,
        combo: &[ForValue],
    ) -> Result<FsRun, JobFileError> {
        let given_skew: f64 = fwds.iter().filter_map(|f| f.skew).sum();
        let unskewed = fwds.iter().filter(|f| f.skew.is_none()).count();
        if given_skew > 100.0 + 1e-6 {
            return Err(rd.loc.invalid(
                "skew",
                &given_skew.to_string(),
                "the skews of the run's fwds add up to more than 100",
                "make them add up to 100",
            ));
        }
        let mut run_fwds = Vec::new();
        let mut fsd_names: Vec<String> = Vec::new();
        for fwd in fwds {
            let mut fwd = (*fwd).clone();
            for value in combo {
                match value {
                    ForValue::Threads(t) => fwd.threads = *t,
                    ForValue::XferSize(x) => fwd.xfersizes = x.clone(),
                    ForValue::RdPct(r) => fwd.rdpct = Some(*r),
                    ForValue::Operation(op) => {
                        fwd.operation = *op;
                        fwd.rdpct = None;
                    }
                    _ => {}
                }
            }
            let fsds: Vec<String> = self
                .fsds
                .iter()
                .filter(|f| fwd.fsd_patterns.iter().any(|p| wildcard_match(p, &f.name)))
                .map(|f| f.name.clone())
                .collect();
            for name in &fsds {
                if !fsd_names.contains(name) {
                    fsd_names.push(name.clone());
                }
            }
            let rate_share = match fwd.skew {
                Some(s) => s / 100.0,
                None => (100.0 - given_skew) / 100.0 / unskewed.max(1) as f64,
            };
            let hosts = self.fwd_hosts(&fwd, &fsds)?;
            run_fwds.push(FsRunFwd {
                fwd,
                fsds,
                rate_share,
                hosts,
            });
        }
        let mut fsds = Vec::new();
        for name in &fsd_names {
            let mut fsd = self
                .fsds
                .iter()
                .find(|f| &f.name == name)
                .expect("matched above")
                .clone();
            for value in combo {
                match value {
                    ForValue::Depth(d) => fsd.depth = *d,
                    ForValue::Width(w) => fsd.width = *w,
                    ForValue::Files(f) => fsd.files = *f,
                    ForValue::Sizes(b) => fsd.sizes = XferSize::Fixed(*b),
                    _ => {}
                }
            }
            if leaf_dirs(fsd.width, fsd.depth).saturating_mul(u64::from(fsd.files)) > MAX_FILES {
                return Err(rd.loc.invalid(
                    "files",
                    &fsd.files.to_string(),
                    format!(
                        "fsd={} with the for-loops is more than {MAX_FILES} files",
                        fsd.name
                    ),
                    "lower width, depth or files",
                ));
            }
            fsds.push(fsd);
        }
        let format_fwd = self.fwds.iter().find(|f| f.name == "format");
        // Without fwd=format vdbench formats with the run's fwd threads.
        let format_threads = format_fwd
            .map(|f| f.threads)
            .or_else(|| run_fwds.iter().map(|f| f.fwd.threads).max())
            .unwrap_or(8);
        let plan = IntervalPlan::new(rd.elapsed, rd.warmup, rd.interval);
        let run = FsRun {
            rd: rd.name.clone(),
            for_label: combo
                .iter()
                .map(ForValue::label)
                .collect::<Vec<_>>()
                .join(" "),
            fsds,
            fwds: run_fwds,
            fwdrate,
            format: fs.format,
            format_threads,
            format_xfersize: format_fwd
                .map(|f| f.xfersizes.block_size().max_size())
                .unwrap_or(Bytes::kib(128)),
            // vdbench's Reporter runs the warm-up intervals, then elapsed= (one fewer without
            // warmup: the first interval is the warm-up); fswork's elapsed is the whole run.
            elapsed: plan.runtime(),
            warmup: if plan.first_measured() == 1 {
                Duration::ZERO
            } else {
                plan.interval * plan.warmup_intervals as u32
            },
            interval: rd.interval,
            pause: rd.pause,
        };
        check_shared_format(rd, &run)?;
        Ok(run)
    }
}

impl ParamFile {
    /// The hds that run `fwd` on `fsds`: its `host=` (vdbench's FwdEntry), else the `host=`
    /// of its fsds (which iofit takes where vdbench asks for it on the fwd), else every hd.
    /// An fsd that is not `shared=yes` is one host's (vdbench's RD_entry refuses more); a
    /// shared one is split between the hosts file by file ([`FileShare`]).
    fn fwd_hosts(&self, fwd: &FwdDef, fsds: &[String]) -> Result<Vec<String>, JobFileError> {
        let mut names = fwd.hosts.clone();
        if names.is_empty() {
            for fsd in self.fsds.iter().filter(|f| fsds.contains(&f.name)) {
                names.extend(fsd.hosts.iter().cloned());
            }
        }
        let hosts: Vec<String> = self
            .hosts_named(&names, &fwd.loc)?
            .into_iter()
            .map(|h| h.name.clone())
            .collect();
        if hosts.len() > 1 {
            let key = if fwd.hosts.is_empty() { "fsd" } else { "host" };
            if let Some(fsd) = self
                .fsds
                .iter()
                .find(|f| fsds.contains(&f.name) && !f.shared)
            {
                return Err(fwd.loc.invalid(
                    key,
                    &hosts.join(","),
                    format!(
                        "fwd={} runs on {} hosts and fsd={} is one host's (vdbench allows more hosts only with shared=yes)",
                        fwd.name,
                        hosts.len(),
                        fsd.name
                    ),
                    "add shared=yes to the fsd (each host then works on every n-th file), or give the fwd host=HD (one fwd per host, each with its own fsd)",
                ));
            }
        }
        Ok(hosts)
    }
}

/// vdbench refuses `format=yes` (and `only`) on a shared fsd worked on from several hosts
/// (RD_entry.createFormatList): one host's clean would delete what another has just made.
fn check_shared_format(rd: &RunDef, run: &FsRun) -> Result<(), JobFileError> {
    if !matches!(run.format, FormatMode::Yes | FormatMode::Only) {
        return Ok(());
    }
    let Some(fsd) = run
        .fsds
        .iter()
        .find(|f| f.shared && run.fsd_hosts(&f.name).len() > 1)
    else {
        return Ok(());
    };
    Err(rd.loc.invalid(
        "format",
        if run.format == FormatMode::Yes { "yes" } else { "only" },
        format!(
            "fsd={} is shared=yes and worked on from {} hosts: a host still clearing the anchor would delete the files another has just made (vdbench refuses it too)",
            fsd.name,
            run.fsd_hosts(&fsd.name).len()
        ),
        "split the format in two runs as vdbench asks: rd=step1,...,format=(clean,only) then rd=step2,...,format=(restart,only)",
    ))
}

impl FsRun {
    /// True when some fwd of the run runs on an hd of the file (the run goes over ssh).
    pub fn has_hosts(&self) -> bool {
        self.fwds.iter().any(|f| !f.hosts.is_empty())
    }

    /// The part of this run that hd `host` executes: its fwds and the fsds they use (its
    /// anchors). `None` when the host has nothing to do in this run.
    pub fn on_host(&self, host: &str) -> Option<FsRun> {
        let mut fwds: Vec<FsRunFwd> = self
            .fwds
            .iter()
            .filter(|f| f.hosts.iter().any(|h| h == host))
            .cloned()
            .collect();
        if fwds.is_empty() {
            return None;
        }
        // fwdrate is the run's total (vdbench divides it by the slaves): a fwd on n hosts
        // does 1/n of its share on each.
        for fwd in &mut fwds {
            fwd.rate_share /= fwd.hosts.len().max(1) as f64;
        }
        let mut run = self.clone();
        run.fsds
            .retain(|fsd| fwds.iter().any(|f| f.fsds.contains(&fsd.name)));
        for fsd in &mut run.fsds {
            let hosts = self.fsd_hosts(&fsd.name);
            if fsd.shared && hosts.len() > 1 {
                fsd.share = hosts.iter().position(|h| h == host).map(|slave| FileShare {
                    slave: slave as u32,
                    slaves: hosts.len() as u32,
                });
            }
        }
        run.fwds = fwds;
        Some(run)
    }

    /// The hds that work on fsd `name` in this run, in the order the fwds name them (the
    /// same on every host, so each host knows its number among them).
    pub fn fsd_hosts(&self, name: &str) -> Vec<String> {
        let mut hosts: Vec<String> = Vec::new();
        for fwd in self
            .fwds
            .iter()
            .filter(|f| f.fsds.iter().any(|n| n == name))
        {
            for host in &fwd.hosts {
                if !hosts.contains(host) {
                    hosts.push(host.clone());
                }
            }
        }
        hosts
    }
}

fn count(p: &Param, loc: &Location) -> Result<u32, JobFileError> {
    positive_u32(&single(p, loc)?, &p.written, loc)
}

impl Parser {
    pub(super) fn fsd(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = self.named(Line::Fsd, params, loc)? else {
            return Ok(());
        };
        let mut fsd = FsdDef {
            name: name.clone(),
            anchor: PathBuf::new(),
            width: 1,
            depth: 1,
            files: 10,
            sizes: XferSize::Fixed(Bytes::ZERO),
            total_size: None,
            wss: None,
            files_in_all_dirs: false,
            shared: false,
            direct: false,
            sync_writes: None,
            hosts: Vec::new(),
            loc: loc.clone(),
            share: None,
        };
        let mut has_sizes = false;
        for p in &all {
            match p.key.as_str() {
                "anchor" => fsd.anchor = PathBuf::from(single(p, loc)?),
                "width" => fsd.width = count(p, loc)?,
                "depth" => {
                    fsd.depth = parse_u32(&single(p, loc)?).map_err(|why| {
                        loc.invalid("depth", &p.raw, why, "write a whole number such as 2")
                    })?
                }
                "files" => fsd.files = count(p, loc)?,
                "sizes" => {
                    fsd.sizes = file_sizes(p, loc)?;
                    has_sizes = true;
                }
                "totalsize" => fsd.total_size = Some(nonzero_size(p, loc)?),
                "wss" => fsd.wss = Some(nonzero_size(p, loc)?),
                "shared" => fsd.shared = yes_no(&single(p, loc)?, "shared", loc)?,
                "openflags" => (fsd.direct, fsd.sync_writes) = parse_openflags(p, loc)?,
                "host" => fsd.hosts = p.values.clone(),
                "distribution" => {
                    fsd.files_in_all_dirs = match single(p, loc)?.to_ascii_lowercase().as_str() {
                        "bottom" => false,
                        "all" => true,
                        other => {
                            return Err(loc.invalid(
                                "distribution",
                                other,
                                "not a file distribution",
                                "write distribution=bottom or all",
                            ))
                        }
                    }
                }
                "cleanup" => {
                    yes_no(&single(p, loc)?, "cleanup", loc)?;
                }
                _ => {}
            }
        }
        if fsd.anchor.as_os_str().is_empty() {
            return Err(missing(
                &name,
                "fsd",
                "anchor",
                "add anchor=/path/to/directory",
                loc,
            ));
        }
        if !has_sizes {
            return Err(missing(
                &name,
                "fsd",
                "sizes",
                "add size=64k (or a distribution)",
                loc,
            ));
        }
        let dirs = leaf_dirs(fsd.width, fsd.depth);
        if dirs.saturating_mul(u64::from(fsd.files)) > MAX_FILES {
            return Err(loc.invalid(
                "files",
                &fsd.files.to_string(),
                format!("width^depth x files is more than {MAX_FILES} files"),
                "lower width, depth or files",
            ));
        }
        push_new(&mut self.file.fsds, fsd, "fsd", loc)
    }

    pub(super) fn fwd(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
        let Some((name, all)) = self.named(Line::Fwd, params, loc)? else {
            return Ok(());
        };
        let mut fwd = FwdDef {
            name: name.clone(),
            fsd_patterns: Vec::new(),
            operation: FileOp::Read,
            rdpct: None,
            random_io: false,
            select: FileSelect::Sequential,
            xfersizes: XferSize::Fixed(Bytes::kib(4)),
            threads: 1,
            skew: None,
            stopafter: None,
            direct: false,
            sync_writes: None,
            hosts: Vec::new(),
            loc: loc.clone(),
        };
        for p in &all {
            match p.key.as_str() {
                "fsd" => fwd.fsd_patterns = name_list(p, loc)?,
                "host" | "hd" => fwd.hosts = p.values.clone(),
                "stopafter" => fwd.stopafter = Some(u64::from(count(p, loc)?)),
                "rdpct" => fwd.rdpct = Some(pct_value(&single(p, loc)?, "rdpct", loc)?),
                "operation" => {
                    let ops = parse_operations(p, loc)?;
                    if ops.len() != 1 {
                        return Err(loc.invalid(
                            "operation",
                            &p.raw,
                            "a fwd has one operation",
                            "write one fwd per operation, or operations=(...) on the rd",
                        ));
                    }
                    fwd.operation = ops[0];
                }
                "fileselect" => {
                    fwd.select = match p.values.first().map(|v| v.to_ascii_lowercase()) {
                        Some(v) if "random".starts_with(&v) && !v.is_empty() => FileSelect::Random,
                        Some(v) if "sequential".starts_with(&v) && !v.is_empty() => {
                            FileSelect::Sequential
                        }
                        _ => {
                            return Err(loc.unsupported_value(
                                "fileselect",
                                &p.raw,
                                format!("fileselect={}", p.raw),
                                "write fileselect=random or sequential",
                            ))
                        }
                    }
                }
                "fileio" => {
                    let first = p
                        .values
                        .first()
                        .map(|v| v.to_ascii_lowercase())
                        .unwrap_or_default();
                    fwd.random_io = match first.as_str() {
                        "random" => true,
                        "sequential" | "seq" => false,
                        _ => {
                            return Err(loc.unsupported_value(
                                "fileio",
                                &p.raw,
                                format!("fileio={}", p.raw),
                                "write fileio=random or sequential",
                            ))
                        }
                    };
                }
                "xfersizes" => fwd.xfersizes = parse_xfersize(p, loc)?,
                "threads" => fwd.threads = capped_threads(vec![count(p, loc)?], p, loc)?[0],
                "skew" => fwd.skew = Some(pct_value(&single(p, loc)?, "skew", loc)?),
                "openflags" => (fwd.direct, fwd.sync_writes) = parse_openflags(p, loc)?,
                _ => {}
            }
        }
        if fwd.fsd_patterns.is_empty() && name != "format" {
            return Err(missing(&name, "fwd", "fsd", "add fsd=NAME", loc));
        }
        check_references(&fwd.fsd_patterns, &self.file.fsds, "fsd", loc)?;
        push_new(&mut self.file.fwds, fwd, "fwd", loc)
    }
}

/// The most files one fsd may describe (a typo in width or depth must not plan billions).
pub const MAX_FILES: u64 = 100_000_000;

/// Directories that hold files: width^depth (1 when depth is 0: the anchor itself).
pub fn leaf_dirs(width: u32, depth: u32) -> u64 {
    (0..depth).fold(1u64, |n, _| n.saturating_mul(u64::from(width)))
}

/// `sizes=`: one size, a list of (size,pct) pairs.
fn file_sizes(p: &Param, loc: &Location) -> Result<XferSize, JobFileError> {
    if p.values.len() == 1 {
        return Ok(XferSize::Fixed(nonzero_size(p, loc)?));
    }
    if p.values.len() == 2 && p.values[1].trim() == "0" {
        // vdbench's (size,0): random sizes around an average; iofit does not guess the spread.
        return Err(loc.unsupported_value(
            "sizes",
            &p.raw,
            "sizes=(SIZE,0) (random file sizes around an average)",
            "give one size or a distribution (size,pct,size,pct...)",
        ));
    }
    parse_xfersize(p, loc)
}

fn missing(name: &str, kind: &str, key: &str, fix: &str, loc: &Location) -> JobFileError {
    loc.error(
        Some(key),
        ErrorKind::InvalidJob {
            job: format!("{kind}={name}"),
            what: format!("no {key}="),
            fix: fix.into(),
        },
    )
}

// File system definitions are referred to by name like the others (see `names.rs`).
impl Named for FsdDef {
    fn name(&self) -> &str {
        &self.name
    }
}

impl Named for FwdDef {
    fn name(&self) -> &str {
        &self.name
    }
}
