//! vdbench files whose `hd=` lines name other machines: every run goes to its hosts through
//! `iofit-remote` (ssh, barrier, merged results). Per run it prints each host's vdbench-style
//! summary, the combined one (merged histograms, summed aligned intervals) and a hosts table.
//!
//! Mapping from vdbench: an SD runs on the hds its `host=` names (none or `*`: every hd);
//! `jvms=N` starts N workers on the host and deals the host's (wd, sd) pairs to them in turn;
//! `user=` and `system=` make the ssh destination; `vdbench=` is where iofit is on the host.
//! An SD shared by k hosts gets 1/k of its share of a fixed `iorate=` on each.

use crate::cmd::remote::{exit_code, Reach, INCOMPLETE};
use crate::exit::bad_input;
use iofit_jobfile::vdbench::{IoRate, ParamFile, Run};
use iofit_procedure::vdbench::{adjust, RunJson, VdbenchJson, VdbenchOptions};
use iofit_remote::{HostSpec, MultiRun};
use iofit_report::multihost::render_hosts_table;
use iofit_report::vdbench_summary::{render_run, AvgLine, RunHeader};
use iofit_stats::RunResult;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

/// The workers of one run: per hd (and jvm), its share of the run's (wd, sd) pairs as jobs.
pub fn host_specs(
    file: &ParamFile,
    run: &Run,
    rate: Option<f64>,
    reach: &Reach,
) -> anyhow::Result<Vec<HostSpec>> {
    let mut specs = Vec::new();
    for hd in &file.hosts {
        let Some(mut part) = run.on_host(file, &hd.name).map_err(bad_input)? else {
            continue;
        };
        for w in &mut part.workloads {
            let sharing = file.sd_hosts(&w.sd).map_err(bad_input)?.len().max(1);
            w.rate_share /= sharing as f64;
        }
        let jvms = (hd.jvms as usize).clamp(1, part.workloads.len());
        let destination = match &hd.user {
            Some(user) => format!("{user}@{}", hd.machine()),
            None => hd.machine().to_string(),
        };
        for jvm in 0..jvms {
            let mut share = part.clone();
            share.workloads = part
                .workloads
                .iter()
                .skip(jvm)
                .step_by(jvms)
                .cloned()
                .collect();
            specs.push(HostSpec {
                name: if jvms > 1 {
                    format!("{}#{}", hd.name, jvm + 1)
                } else {
                    hd.name.clone()
                },
                destination: destination.clone(),
                remote_iofit: hd
                    .remote_binary
                    .clone()
                    .unwrap_or_else(|| reach.remote_iofit()),
                jobs: share.to_jobs(rate),
            });
        }
    }
    if specs.is_empty() {
        return Err(bad_input(format!(
            "rd={}: no hd runs any of its SDs; add host= to the sd= lines",
            run.rd
        )));
    }
    Ok(specs)
}

fn summary(
    run: &Run,
    label: &str,
    job_result: &RunResult,
    start_unix_s: f64,
) -> Option<(AvgLine, String)> {
    let job = job_result.jobs.first()?;
    let avg = AvgLine::from_job(job);
    let header = RunHeader {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        iorate_label: label.to_string(),
        elapsed_s: run.elapsed.as_secs_f64(),
        warmup_s: run.warmup.as_secs_f64(),
        interval_s: run.interval.as_secs_f64(),
        start_unix_s,
    };
    let text = render_run(&header, &job.series, &avg);
    Some((avg, text))
}

/// Prints one finished multi-host run: each host, the total, the table.
fn print_run(
    run: &Run,
    label: &str,
    multi: &MultiRun,
    out: &mut impl Write,
) -> anyhow::Result<Option<AvgLine>> {
    let start = multi.combined.timestamp_s as f64 + run.warmup.as_secs_f64();
    for host in &multi.hosts {
        writeln!(
            out,
            "hd={} ({}): clock offset {:+.3} ms",
            host.name,
            host.destination,
            host.clock_offset_ns as f64 / 1e6
        )?;
        match (&host.result, &host.failure) {
            (_, Some(f)) => writeln!(out, "  LOST after {:.1} s: {}", f.after_s, f.message)?,
            (Some(result), None) => {
                if let Some((_, text)) = summary(run, label, result, start) {
                    writeln!(out, "{text}")?;
                }
            }
            (None, None) => writeln!(out, "  no result")?,
        }
    }
    writeln!(
        out,
        "Total of all hosts (merged histograms, summed aligned intervals):"
    )?;
    let avg = match summary(run, label, &multi.combined, start) {
        Some((avg, text)) => {
            writeln!(out, "{text}")?;
            Some(avg)
        }
        None => None,
    };
    let rows = crate::cmd::remote::rows(multi);
    writeln!(out, "{}", render_hosts_table(&rows, &multi.combined))?;
    out.flush()?;
    Ok(avg)
}

/// How a multi-host vdbench file runs: the file's overrides plus how to reach the hosts.
pub struct HostsOptions {
    pub vdbench: VdbenchOptions,
    pub allow_overwrite: bool,
    pub quiet: bool,
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// iofit on the hosts when an `hd=` has no `vdbench=` (default: this binary's path).
    pub remote_iofit: Option<String>,
    /// ssh config file for reaching the hosts (ssh -F).
    pub ssh_config: Option<std::path::PathBuf>,
}

/// Runs every run of a multi-host vdbench file.
pub fn run_file(
    path: &Path,
    file: &ParamFile,
    runs: Vec<Run>,
    common: &HostsOptions,
) -> anyhow::Result<ExitCode> {
    let reach = Reach {
        remote_iofit: common.remote_iofit.clone(),
        ssh_config: common.ssh_config.clone(),
        allow_overwrite: common.allow_overwrite,
        stop: common.stop.clone(),
    };
    let mut doc = VdbenchJson {
        tool: format!("iofit {}", env!("CARGO_PKG_VERSION")),
        dialect: "vdbench".into(),
        file: path.display().to_string(),
        ..Default::default()
    };
    let mut worst = ExitCode::SUCCESS;
    let mut incomplete = false;
    let stdout = std::io::stdout();
    for run in runs {
        if common.stop.load(Ordering::Relaxed) {
            break;
        }
        let run = adjust(run, &common.vdbench)?;
        let (rate, label) = match &run.iorate {
            IoRate::Max => (None, "Uncontrolled MAX".to_string()),
            IoRate::Fixed(rate) => (Some(*rate), format!("{rate}")),
            IoRate::Curve(_) => {
                return Err(bad_input(format!(
                    "rd={}: iorate=curve across hosts is not supported yet; give iorate=max or a fixed rate",
                    run.rd
                )))
            }
        };
        let specs = host_specs(file, &run, rate, &reach)?;
        let multi = crate::cmd::remote::run_specs(specs, &reach)?;
        let avg = print_run(&run, &label, &multi, &mut stdout.lock())?;
        if let (Some(avg), Some(job)) = (avg, multi.combined.jobs.first()) {
            doc.runs.push(RunJson {
                rd: run.rd.clone(),
                for_label: run.for_label.clone(),
                iorate: label.clone(),
                target_iops: rate,
                threads_per_sd: run.threads,
                total_threads: run.total_threads(),
                elapsed_s: run.elapsed.as_secs_f64(),
                warmup_s: run.warmup.as_secs_f64(),
                avg_iops: avg.line.iops,
                avg_mib_per_s: avg.line.mib_per_s,
                avg_read_pct: avg.line.read_pct,
                avg_resp_ms: avg.line.resp_ms,
                result: RunResult {
                    jobs: vec![job.clone()],
                    ..multi.combined.clone()
                },
                hosts: multi
                    .hosts
                    .iter()
                    .filter_map(|h| h.result.clone())
                    .collect(),
            });
        }
        if let Some(json) = &common.vdbench.json_output {
            // Whole or not at all, through a random temporary name (safefs).
            super::files::write_output(json, serde_json::to_string_pretty(&doc)?.as_bytes())?;
        }
        let code = exit_code(&multi, common.quiet);
        incomplete |= !multi.complete();
        if multi.interrupted {
            return Ok(code);
        }
        if code != ExitCode::SUCCESS {
            worst = code;
        }
    }
    Ok(if incomplete {
        ExitCode::from(INCOMPLETE)
    } else {
        worst
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn hosts_get_their_sds_and_jvms_split_them() {
        let text = "hd=default,jvms=2,shell=ssh\nhd=vm1,system=10.0.0.1,user=root\nhd=vm2,system=10.0.0.2,jvms=1,vdbench=/opt/iofit\n\
sd=a,host=vm1,lun=/d/a,size=1m\nsd=b,host=vm1,lun=/d/b,size=1m\nsd=c,host=vm1,lun=/d/c,size=1m\nsd=s,host=*,lun=/d/s,size=1m\n\
wd=w,sd=*,seekpct=100\nrd=r,wd=w,iorate=400,elapsed=2,threads=3\n";
        let file = iofit_jobfile::vdbench::parse_str(text, "m.vdb").unwrap();
        let run = file.runs().unwrap().remove(0);
        let reach = Reach {
            remote_iofit: Some("/usr/local/bin/iofit".into()),
            ssh_config: None,
            allow_overwrite: false,
            stop: Arc::new(AtomicBool::new(false)),
        };
        let specs = host_specs(&file, &run, Some(400.0), &reach).unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["vm1#1", "vm1#2", "vm2"]);
        assert_eq!(specs[0].destination, "root@10.0.0.1");
        assert_eq!(specs[0].remote_iofit, "/usr/local/bin/iofit");
        assert_eq!(specs[2].remote_iofit, "/opt/iofit");
        // vm1's four SDs (a, b, c and the shared s) dealt to its two workers; vm2 runs s only.
        let luns = |i: usize| -> Vec<String> {
            specs[i]
                .jobs
                .iter()
                .map(|j| format!("{:?}", j.target))
                .collect()
        };
        assert_eq!(luns(0).len() + luns(1).len(), 4);
        assert_eq!(luns(2).len(), 1);
        // Threads per SD (random: one clone per thread) and the whole iorate kept in total: the
        // shared SD's share is split between the two hosts that run it.
        assert!(specs.iter().flat_map(|s| &s.jobs).all(|j| j.numjobs == 3));
        let total_rate: f64 = specs
            .iter()
            .flat_map(|s| &s.jobs)
            .map(|j| {
                (j.rate_iops.read.unwrap_or(0) + j.rate_iops.write.unwrap_or(0)) as f64
                    * f64::from(j.numjobs)
            })
            .sum();
        // Per-clone caps are whole IO/s: within rounding of the file's iorate=400.
        assert!((total_rate - 400.0).abs() <= 8.0, "{total_rate}");
    }
}
