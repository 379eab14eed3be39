//! Expanding a parsed file into runs: wildcards, for-loop combinations (capped at
//! [`MAX_RUNS`]), each rd's (wd, sd) pairs with their hosts, and the checks that a file runs.

use super::names::{unknown_reference, wildcard_match};
use super::params::MAX_THREADS;
use super::{
    data, vdbench_size, ForValue, HostDef, IoRate, ParamFile, Run, RunDef, RunWorkload, StorageDef,
    WorkloadDef, MAX_RUNS,
};
use crate::error::{ErrorKind, JobFileError, Location};

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
    /// only). `is_local` decides what "this machine" is (see [`is_local_host`](super::is_local_host)).
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
