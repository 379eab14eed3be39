//! Runs on many hosts at once (`iofit run --hosts`, vdbench files whose `hd=` lines name other
//! machines): which hosts, what each runs, and what is printed and written. The ssh transport,
//! barrier and merge are `iofit-remote`'s; the controller is reached through a [`HostRunner`],
//! so the procedure is tested with a runner that needs no ssh.
//!
//! vdbench mapping: an SD runs on the hds its `host=` names (none or `*`: every hd); `jvms=N`
//! starts N workers on the host and deals the host's (wd, sd) pairs to them in turn; `user=`
//! and `system=` make the ssh destination; `vdbench=` is where iofit is on the host. An SD
//! shared by k hosts gets 1/k of its share of a fixed `iorate=` on each.

use crate::ProcedureError;
use iofit_jobfile::fio::{parse_str_as_file, ParseOptions};
use iofit_jobfile::vdbench::{ParamFile, Run};
use iofit_model::job::JobSpec;
use iofit_model::units::{Seconds, UnixSeconds};
use iofit_remote::protocol::HostKeys;
use iofit_remote::{ControllerOptions, HostSpec, MultiRun};
use iofit_report::multihost::{render_clients_json_with, render_hosts_table, HostRow};
use iofit_report::vdbench_summary::{render_run, AvgLine};
use iofit_safefs::input::{caps, read_capped_string};
use iofit_stats::RunResult;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

pub(crate) fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Runs hosts' jobs through the controller (the real one over ssh, or a test's).
pub trait HostRunner {
    fn run(&mut self, hosts: Vec<HostSpec>) -> Result<MultiRun, ProcedureError>;
}

/// Host names from `--hosts`: a file with one host a line (`#` comments), as fio's
/// `--client=FILE`, or a comma-separated list.
pub fn parse_hosts(spec: &str) -> Result<Vec<String>, ProcedureError> {
    let path = Path::new(spec);
    let hosts: Vec<String> = if path.is_file() {
        read_capped_string(path, caps::JOB_FILE_BYTES, "host file")?
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    } else {
        spec.split(',')
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect()
    };
    if hosts.is_empty() {
        return Err(bad(format!(
            "--hosts {spec}: no host given; write --hosts h1,h2 or a file with one host a line"
        )));
    }
    if let Some(wrong) = hosts
        .iter()
        .find(|h| h.contains(char::is_whitespace) || h.starts_with('-'))
    {
        return Err(bad(format!(
            "--hosts: '{wrong}' is not a host name; write [user@]host, one per line or comma-separated"
        )));
    }
    Ok(hosts)
}

/// The nodes of the Slurm allocation this process runs in, in Slurm's order: the job's node
/// list (`SLURM_JOB_NODELIST`, e.g. `node[1-2]`) expanded by `scontrol show hostnames`.
pub fn slurm_nodes() -> Result<Vec<String>, ProcedureError> {
    let list = std::env::var("SLURM_JOB_NODELIST")
        .or_else(|_| std::env::var("SLURM_NODELIST"))
        .map_err(|_| {
            bad(
                "--hosts slurm runs inside a Slurm allocation, and SLURM_JOB_NODELIST is not set; \
                 run it under salloc (salloc -N2 iofit run --hosts slurm FILE) or in an sbatch \
                 script (iofit slurm-script FILE prints one)",
            )
        })?;
    let output = std::process::Command::new("scontrol")
        .args(["show", "hostnames", &list])
        .output()
        .map_err(|e| {
            bad(format!(
                "--hosts slurm: cannot run scontrol ({e}); Slurm's client commands must be on PATH"
            ))
        })?;
    if !output.status.success() {
        return Err(bad(format!(
            "--hosts slurm: scontrol show hostnames {list} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let nodes: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    if nodes.is_empty() {
        return Err(bad(format!(
            "--hosts slurm: the node list '{list}' names no node"
        )));
    }
    Ok(nodes)
}

/// The host part of `[user@]host` (what `${HOST}` becomes).
pub fn host_name(destination: &str) -> &str {
    destination.rsplit('@').next().unwrap_or(destination)
}

/// `--hosts slurm`: the hosts are the nodes of the Slurm allocation iofit runs in.
pub const SLURM_HOSTS: &str = "slurm";

/// Most workers per node `--tasks-per-node` takes (each is a thread-rich process).
pub const MAX_TASKS_PER_NODE: u32 = 256;

/// How the controller reaches hosts, from the command line.
#[derive(Clone, Debug)]
pub struct Reach {
    pub remote_iofit: Option<String>,
    pub ssh_config: Option<PathBuf>,
    pub allow_overwrite: bool,
    pub stop: Arc<AtomicBool>,
    /// Workers are the tasks of one Slurm job step on the allocation's nodes (`--hosts slurm`),
    /// this many per node; None: ssh.
    pub slurm_tasks_per_node: Option<u32>,
}

impl Reach {
    pub fn options(&self) -> ControllerOptions {
        let mut ssh_command = vec!["ssh".to_string()];
        if let Some(config) = &self.ssh_config {
            ssh_command.extend(["-F".to_string(), config.display().to_string()]);
        }
        ControllerOptions {
            ssh_command,
            allow_overwrite: self.allow_overwrite,
            stop: self.stop.clone(),
            slurm: self
                .slurm_tasks_per_node
                .map(|_| iofit_remote::controller::SlurmLaunch::default()),
            ..ControllerOptions::default()
        }
    }

    /// The workers as (name, destination): `--hosts` as given, or with `--hosts slurm` every
    /// node of the allocation, `--tasks-per-node` times (named `node1.1`, `node1.2`, ... then).
    pub fn workers(&self, hosts: &str) -> Result<Vec<(String, String)>, ProcedureError> {
        let Some(tasks) = self.slurm_tasks_per_node else {
            return Ok(parse_hosts(hosts)?
                .into_iter()
                .map(|d| (host_name(&d).to_string(), d))
                .collect());
        };
        if !(1..=MAX_TASKS_PER_NODE).contains(&tasks) {
            return Err(bad(format!(
                "--tasks-per-node {tasks}: give 1 to {MAX_TASKS_PER_NODE}"
            )));
        }
        let mut workers = Vec::new();
        for node in slurm_nodes()? {
            for task in 1..=tasks {
                let name = if tasks > 1 {
                    format!("{node}.{task}")
                } else {
                    node.clone()
                };
                workers.push((name, node.clone()));
            }
        }
        Ok(workers)
    }

    /// The iofit on the hosts: `--remote-iofit`, else this binary's own path.
    pub fn remote_iofit(&self) -> String {
        self.remote_iofit.clone().unwrap_or_else(|| {
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "iofit".to_string())
        })
    }
}

/// fio job files on every host: `${HOST}` in the files and in `overrides` becomes the host's
/// name, so each host gets its own target.
pub fn fio_jobs_for(
    host: &str,
    files: &[PathBuf],
    overrides: &[(String, String)],
    ignore_unknown: bool,
) -> Result<Vec<JobSpec>, ProcedureError> {
    let substitute = |text: &str| text.replace("${HOST}", host);
    let options = ParseOptions {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.clone(), substitute(v)))
            .collect(),
        ignore_unknown,
        // Each host starts the clones it can (its engine checks them against its own CPUs).
        run_elsewhere: true,
        ..ParseOptions::default()
    };
    let mut jobs: Vec<JobSpec> = Vec::new();
    for file in files {
        let text = read_capped_string(file, caps::JOB_FILE_BYTES, "job file")?;
        // As `iofit run` parses it: includes next to the file, not the working directory.
        let mut parsed = parse_str_as_file(&substitute(&text), file, &options)?;
        let group_base = jobs.iter().map(|j| j.group_id + 1).max().unwrap_or(0);
        for (i, job) in parsed.iter_mut().enumerate() {
            job.group_id += group_base;
            job.stonewall |= i == 0 && !jobs.is_empty();
        }
        jobs.extend(parsed);
    }
    if jobs.is_empty() {
        return Err(bad("the job files define no job; add a [job] section"));
    }
    Ok(jobs)
}

/// `iofit run --hosts H job.fio`: each host's jobs, with `${HOST}` made its name.
pub fn fio_host_specs(
    hosts: &str,
    files: &[PathBuf],
    overrides: &[(String, String)],
    ignore_unknown: bool,
    reach: &Reach,
) -> Result<Vec<HostSpec>, ProcedureError> {
    if files.is_empty() {
        return Err(bad(
            "--hosts runs job files; name a fio job file (iofit run --hosts h1,h2 job.fio)",
        ));
    }
    let remote_iofit = reach.remote_iofit();
    reach
        .workers(hosts)?
        .into_iter()
        .map(|(name, destination)| {
            Ok(HostSpec {
                jobs: fio_jobs_for(&name, files, overrides, ignore_unknown)?,
                name,
                destination,
                remote_iofit: remote_iofit.clone(),
                keys: None,
                fs: None,
            })
        })
        .collect()
}

/// One row per host for the hosts table and chart (fio and vdbench runs alike).
pub fn rows(run: &MultiRun) -> Vec<HostRow<'_>> {
    run.hosts
        .iter()
        .map(|h| HostRow {
            name: &h.name,
            destination: &h.destination,
            result: h.result.as_ref(),
            clock_offset_ms: h.clock_offset_ns.as_f64().to_millis(),
            rtt_ms: iofit_model::units::Millis(h.rtt_ns.get() as f64 / 1e6),
            failure: h
                .failure
                .as_ref()
                .map(|f| (f.after_s.get(), f.message.as_str())),
            live_ios: h.live.iter().map(|(ios, _)| ios).sum(),
            bytes_received: h.bytes_received,
        })
        .collect()
}

/// fio's client JSON, or per host fio text, then the combined text and the hosts table.
/// `jobs` are the jobs every host ran: their "job options" and reporting options are those a
/// single-host run of them shows.
pub fn render_fio(run: &MultiRun, json: bool, jobs: &[JobSpec]) -> String {
    let rows = rows(run);
    if json {
        let job_options: Vec<Vec<(String, String)>> =
            jobs.iter().map(iofit_jobfile::fio::job_options).collect();
        let output = iofit_report::fio_common::FioOutput {
            reporting: jobs.iter().map(|j| j.reporting.clone()).collect(),
            json_plus: false,
        };
        return render_clients_json_with(&rows, &run.combined, &job_options, &output);
    }
    let mut out = String::new();
    for host in &run.hosts {
        out.push_str(&format!(
            "hostname={} ({}): clock offset {:+.3} ms, round trip {:.3} ms\n",
            host.name,
            host.destination,
            host.clock_offset_ns.as_f64().to_millis().get(),
            host.rtt_ns.get() as f64 / 1e6
        ));
        match (&host.result, &host.failure) {
            (_, Some(f)) => out.push_str(&format!(
                "  LOST after {:.1} s: {}\n",
                f.after_s.get(),
                f.message
            )),
            (Some(result), None) => out.push_str(&iofit_report::fio_text::render(result)),
            (None, None) => out.push_str("  no result\n"),
        }
        out.push('\n');
    }
    out.push_str("All clients (merged histograms, summed aligned intervals):\n");
    out.push_str(&iofit_report::fio_text::render(&run.combined));
    out.push('\n');
    out.push_str(&render_hosts_table(&rows, &run.combined));
    out
}

/// The HTML report: the hosts table, a chart of IOPS per host over time (a slow or lost host
/// stands out), then the combined result with its own charts.
pub fn html_report(run: &MultiRun) -> iofit_report::html::HtmlReport {
    let rows = rows(run);
    let names: Vec<&str> = run.hosts.iter().map(|h| h.name.as_str()).collect();
    iofit_report::html::HtmlReport::new(format!("iofit run --hosts {}", names.join(",")))
        .table(iofit_report::multihost::hosts_table(&rows, &run.combined))
        .chart(
            "IOPS per host",
            "seconds from the common start",
            "IO/s",
            iofit_report::multihost::iops_per_host(&rows, &run.combined),
        )
        .run_result(&run.combined)
}

/// A host that stopped after the start: its name, when, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct LostHost {
    pub name: String,
    pub after_s: Seconds,
    pub message: String,
}

/// How one multi-host run ended, for the exit code and the messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostsStatus {
    pub interrupted: bool,
    /// Every host finished with a result.
    pub complete: bool,
    pub lost: Vec<LostHost>,
    /// A job stopped on an IO error.
    pub job_failed: bool,
    /// validate=yes: bad blocks over every host (each host validates the luns it writes; the
    /// verdict is their sum), and the first ones, named with their host.
    pub data_errors: u64,
    pub data_error_lines: Vec<String>,
}

impl HostsStatus {
    pub fn of(run: &MultiRun) -> Self {
        HostsStatus {
            interrupted: run.interrupted,
            complete: run.complete(),
            lost: run
                .hosts
                .iter()
                .filter_map(|h| {
                    h.failure.as_ref().map(|f| LostHost {
                        name: h.name.clone(),
                        after_s: f.after_s,
                        message: f.message.clone(),
                    })
                })
                .collect(),
            job_failed: run.combined.jobs.iter().any(|j| j.error.is_some()),
            data_errors: host_verifies(run).map(|(_, v)| v.bad_units).sum(),
            data_error_lines: host_verifies(run)
                .flat_map(|(host, v)| {
                    v.errors.iter().map(move |e| {
                        format!(
                            "hd={host} lun={} offset {} length {}: {}: expected {}, found {}",
                            e.file, e.offset, e.length, e.kind, e.expected, e.found
                        )
                    })
                })
                .take(10)
                .collect(),
        }
    }
}

/// Every host's verification results (from the hosts' own results: the combined one is their
/// merge and would count each bad block again).
fn host_verifies(run: &MultiRun) -> impl Iterator<Item = (&str, &iofit_stats::VerifyResult)> {
    run.hosts.iter().flat_map(|h| {
        h.result.iter().flat_map(move |r| {
            r.jobs
                .iter()
                .filter_map(move |j| j.verify.as_ref().map(|v| (h.name.as_str(), v)))
        })
    })
}

/// The workers of one vdbench run: per hd (and jvm), its share of the run's (wd, sd) pairs.
/// `keys`: with validate=yes, the file's keys directory name and whether this is its last
/// run that validates; each worker gets its own directory under that name (several workers
/// may share one machine's temp dir).
pub fn vdbench_host_specs(
    file: &ParamFile,
    run: &Run,
    rate: Option<f64>,
    reach: &Reach,
    keys: Option<(&str, bool)>,
) -> Result<Vec<HostSpec>, ProcedureError> {
    let mut specs = Vec::new();
    let nodes = slurm_nodes_for_hds(file, reach)?;
    for (hd_index, hd) in file.hosts.iter().enumerate() {
        let Some(mut part) = run.on_host(file, &hd.name)? else {
            continue;
        };
        for w in &mut part.workloads {
            let sharing = file.sd_hosts(&w.sd)?.len().max(1);
            w.rate_share /= sharing as f64;
        }
        let jvms = (hd.jvms as usize).clamp(1, part.workloads.len());
        let destination = hd_destination(hd, hd_index, nodes.as_deref());
        for jvm in 0..jvms {
            let mut share = part.clone();
            share.workloads = part
                .workloads
                .iter()
                .skip(jvm)
                .step_by(jvms)
                .cloned()
                .collect();
            let name = if jvms > 1 {
                format!("{}#{}", hd.name, jvm + 1)
            } else {
                hd.name.clone()
            };
            let keys = keys.map(|(dir, last)| HostKeys {
                dir_name: format!("{dir}-{}", plain(&name)),
                last,
            });
            specs.push(HostSpec {
                name,
                keys,
                destination: destination.clone(),
                remote_iofit: hd_remote_iofit(hd, reach),
                jobs: share.to_jobs(rate),
                fs: None,
            });
        }
    }
    if specs.is_empty() {
        return Err(bad(format!(
            "rd={}: no hd runs any of its SDs; add host= to the sd= lines",
            run.rd
        )));
    }
    Ok(specs)
}

/// Where ssh (or srun) reaches hd number `hd_index`: its Slurm node, else `[user@]system`.
pub(crate) fn hd_destination(
    hd: &iofit_jobfile::vdbench::HostDef,
    hd_index: usize,
    nodes: Option<&[String]>,
) -> String {
    match (nodes, &hd.user) {
        (Some(nodes), _) => nodes[hd_index].clone(),
        (None, Some(user)) => format!("{user}@{}", hd.machine()),
        (None, None) => hd.machine().to_string(),
    }
}

/// The iofit on an hd: --remote-iofit wins over hd=...,vdbench= (which names iofit, or was
/// dropped with a note when it names vdbench), else this binary's path.
pub(crate) fn hd_remote_iofit(hd: &iofit_jobfile::vdbench::HostDef, reach: &Reach) -> String {
    reach
        .remote_iofit
        .clone()
        .or_else(|| hd.remote_binary.clone())
        .unwrap_or_else(|| reach.remote_iofit())
}

/// A host's name as part of a directory name: anything but letters, digits, `-` and `_`
/// becomes `_`.
fn plain(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The name of a file's validate keys directory on its hosts (in each host's temp dir): the
/// controller's pid and the time make it the file's own.
pub(crate) fn keys_dir_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("iofit-validate-hosts-{}-{nanos}", std::process::id())
}

pub(crate) fn summary(
    run: &Run,
    label: &str,
    job_result: &RunResult,
    start_unix_s: UnixSeconds<f64>,
) -> Option<(AvgLine, String)> {
    let job = job_result.jobs.first()?;
    let header = crate::vdbench::vdbench_header(run, label, start_unix_s);
    let (text, avg) = render_run(&header, &job.series, &[]);
    Some((avg, text))
}

/// One finished multi-host vdbench run as text (each host, the total, the hosts table) and
/// the total's averages.
pub fn render_vdbench_run(run: &Run, label: &str, multi: &MultiRun) -> (String, Option<AvgLine>) {
    use std::fmt::Write;
    let start = UnixSeconds(multi.combined.timestamp_s.get() as f64);
    let mut out = String::new();
    for host in &multi.hosts {
        let _ = writeln!(
            out,
            "hd={} ({}): clock offset {:+.3} ms",
            host.name,
            host.destination,
            host.clock_offset_ns.as_f64().to_millis().get()
        );
        match (&host.result, &host.failure) {
            (_, Some(f)) => {
                let _ = writeln!(out, "  LOST after {:.1} s: {}", f.after_s.get(), f.message);
            }
            (Some(result), None) => {
                if let Some((_, text)) = summary(run, label, result, start) {
                    let _ = writeln!(out, "{text}");
                }
            }
            (None, None) => out.push_str("  no result\n"),
        }
    }
    out.push_str("Total of all hosts (merged histograms, summed aligned intervals):\n");
    let avg = summary(run, label, &multi.combined, start).map(|(avg, text)| {
        let _ = writeln!(out, "{text}");
        avg
    });
    out.push_str(&render_hosts_table(&rows(multi), &multi.combined));
    (out, avg)
}

/// With `--hosts slurm`, the allocation's node for each `hd=` of the file: the hds in order
/// onto the nodes in order, starting again at the first node when the file has more hds than
/// the allocation has nodes (the file's `system=`, `user=` and `shell=` are not used).
pub(crate) fn slurm_nodes_for_hds(
    file: &ParamFile,
    reach: &Reach,
) -> Result<Option<Vec<String>>, ProcedureError> {
    if reach.slurm_tasks_per_node.is_none() {
        return Ok(None);
    }
    let nodes = slurm_nodes()?;
    Ok(Some(
        (0..file.hosts.len())
            .map(|i| nodes[i % nodes.len()].clone())
            .collect(),
    ))
}
