//! What each definition line sets: `hd=` (a host), `sd=` (storage), `wd=` (a workload) and
//! `rd=` (a run, with its for-loops), read from its checked parameters.

use super::fs::FsRunDef;
use super::names::{check_references, push_new};
use super::params::{
    any_size, arrivals, capped_threads, check_shell, curve_points, expand_counts, iorate_values,
    name_list, nonzero_size, numbers, parse_openflags, parse_range, parse_seek, parse_stride,
    parse_xfersize, pct_number, pct_value, positive_u32, rd_time, single, size_number, Param,
};
use super::parse::{Line, Parser};
use super::{
    fs, lists, Arrivals, DataParam, ForLoop, HostDef, IoRate, RunDef, Seek, StorageDef,
    VdbenchNote, WorkloadDef, XferSize, DEFAULT_CURVE_PCT,
};
use crate::error::{ErrorKind, JobFileError, Location};
use crate::values::ValueError;
use iofit_model::units::{Bytes, Seconds};
use std::path::{Path, PathBuf};
use std::time::Duration;

impl Parser {
    pub(super) fn host(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
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
                        self.file.notes.push(VdbenchNote::VdbenchPathIgnored {
                            at: loc.clone(),
                            host: name.clone(),
                            path,
                        });
                    }
                }
                "jvms" => host.jvms = positive_u32(&single(p, loc)?, "jvms", loc)?,
                _ => {}
            }
        }
        push_new(&mut self.file.hosts, host, "hd", loc)
    }

    pub(super) fn storage(
        &mut self,
        params: Vec<Param>,
        loc: &Location,
    ) -> Result<(), JobFileError> {
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

    pub(super) fn workload(
        &mut self,
        params: Vec<Param>,
        loc: &Location,
    ) -> Result<(), JobFileError> {
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

    pub(super) fn run(&mut self, params: Vec<Param>, loc: &Location) -> Result<(), JobFileError> {
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
            self.file.notes.push(VdbenchNote::ShortElapsed {
                at: loc.clone(),
                run: name.clone(),
                elapsed_s: Seconds(rd.elapsed.as_secs_f64()),
                interval_s: Seconds(rd.interval.as_secs_f64()),
            });
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
}
