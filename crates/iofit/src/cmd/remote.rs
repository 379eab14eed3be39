//! Multi-host glue: the hidden `iofit worker` subcommand (what the controller starts on each
//! host over ssh) and `iofit run --hosts` for fio jobs. The protocol, controller and merging
//! live in the `iofit-remote` crate; this file parses, calls it and prints.

use crate::exit::bad_input;
use anyhow::Context;
use iofit_jobfile::fio::{parse_str, ParseOptions};
use iofit_model::job::JobSpec;
use iofit_remote::{ControllerOptions, HostSpec, MultiRun, RemoteError};
use iofit_report::multihost::{render_clients_json, render_hosts_table, HostRow};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Exit code of a multi-host run that did not finish on every host: the hosts that finished
/// are in the results, the lost ones are named with the time they stopped.
pub const INCOMPLETE: u8 = 3;

/// `iofit worker --protocol N`: serve one controller on stdin/stdout (started by iofit itself
/// over ssh; not for interactive use).
#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The protocol version the controller speaks.
    #[arg(long)]
    pub protocol: u32,
}

pub fn worker(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    let input = std::io::BufReader::new(std::io::stdin());
    match iofit_remote::worker::serve(args.protocol, input, std::io::stdout()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(RemoteError::Worker(message)) => Err(bad_input(message)),
        Err(e) => Err(e.into()),
    }
}

/// Host names from `--hosts`: a file with one host a line (`#` comments), as fio's
/// `--client=FILE`, or a comma-separated list.
pub fn parse_hosts(spec: &str) -> anyhow::Result<Vec<String>> {
    let path = Path::new(spec);
    let hosts: Vec<String> = if path.is_file() {
        std::fs::read_to_string(path)
            .with_context(|| format!("--hosts {spec}: cannot read the host file"))?
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
        return Err(bad_input(format!(
            "--hosts {spec}: no host given; write --hosts h1,h2 or a file with one host a line"
        )));
    }
    if let Some(bad) = hosts
        .iter()
        .find(|h| h.contains(char::is_whitespace) || h.starts_with('-'))
    {
        return Err(bad_input(format!(
            "--hosts: '{bad}' is not a host name; write [user@]host, one per line or comma-separated"
        )));
    }
    Ok(hosts)
}

/// The host part of `[user@]host` (what `${HOST}` becomes).
pub fn host_name(destination: &str) -> &str {
    destination.rsplit('@').next().unwrap_or(destination)
}

/// How the controller reaches hosts, from the command line.
pub struct Reach {
    pub remote_iofit: Option<String>,
    pub ssh_config: Option<PathBuf>,
    pub allow_overwrite: bool,
    pub stop: Arc<AtomicBool>,
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
            ..ControllerOptions::default()
        }
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
) -> anyhow::Result<Vec<JobSpec>> {
    let substitute = |text: &str| text.replace("${HOST}", host);
    let options = ParseOptions {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.clone(), substitute(v)))
            .collect(),
        ignore_unknown,
        ..ParseOptions::default()
    };
    let mut jobs: Vec<JobSpec> = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| bad_input(format!("{}: cannot read the job file: {e}", file.display())))?;
        let mut parsed = parse_str(&substitute(&text), &file.display().to_string(), &options)
            .map_err(bad_input)?;
        let group_base = jobs.iter().map(|j| j.group_id + 1).max().unwrap_or(0);
        for (i, job) in parsed.iter_mut().enumerate() {
            job.group_id += group_base;
            job.stonewall |= i == 0 && !jobs.is_empty();
        }
        jobs.extend(parsed);
    }
    if jobs.is_empty() {
        return Err(bad_input(
            "the job files define no job; add a [job] section",
        ));
    }
    Ok(jobs)
}

/// What `iofit run --hosts` prints and writes.
pub struct Output<'a> {
    pub json: bool,
    pub path: Option<&'a Path>,
    pub quiet: bool,
    /// An HTML report with the hosts table and IOPS per host over time.
    pub report: Option<&'a Path>,
}

/// Runs `hosts` (each with its jobs) and prints per-host and combined results.
pub fn run_hosts(
    hosts: Vec<HostSpec>,
    reach: &Reach,
    output: &Output<'_>,
) -> anyhow::Result<ExitCode> {
    let job_options: Vec<Vec<(String, String)>> = hosts
        .first()
        .map(|h| h.jobs.iter().map(iofit_jobfile::fio::job_options).collect())
        .unwrap_or_default();
    let run = run_specs(hosts, reach)?;
    let text = render(&run, output.json, &job_options);
    super::write_or_print(output.path, &text)?;
    if let Some(path) = output.report {
        write_html(path, &run)?;
    }
    Ok(exit_code(&run, output.quiet))
}

/// The HTML report: the hosts table, a chart of IOPS per host over time (a slow or lost host
/// stands out), then the combined result with its own charts.
fn write_html(path: &Path, run: &MultiRun) -> anyhow::Result<()> {
    let rows = rows(run);
    let names: Vec<&str> = run.hosts.iter().map(|h| h.name.as_str()).collect();
    let html =
        iofit_report::html::HtmlReport::new(format!("iofit run --hosts {}", names.join(",")))
            .table(iofit_report::multihost::hosts_table(&rows, &run.combined))
            .chart(
                "IOPS per host",
                "seconds from the common start",
                "IO/s",
                iofit_report::multihost::iops_per_host(&rows, &run.combined),
            )
            .run_result(&run.combined);
    super::plan::write_report(path, super::plan::ReportFormat::Html, &html)
}

/// Runs `hosts` through the controller; failures before the start become errors (exit 2 when
/// the fix is in the input, else 1).
pub fn run_specs(hosts: Vec<HostSpec>, reach: &Reach) -> anyhow::Result<MultiRun> {
    let options = reach.options();
    // Writing to the pipe of an ssh that died must be an error the controller reports (that
    // host is lost), not a SIGPIPE that kills the controller and every other host's results.
    // SAFETY: SIG_IGN is a valid disposition; changing it affects only how this process
    // handles broken pipes, which every write here checks.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    iofit_remote::run(&hosts, &options).map_err(|e| {
        if e.is_bad_input() {
            bad_input(e)
        } else {
            anyhow::Error::new(e)
        }
    })
}

/// One row per host for the hosts table and chart (fio and vdbench runs alike).
pub(crate) fn rows(run: &MultiRun) -> Vec<HostRow<'_>> {
    run.hosts
        .iter()
        .map(|h| HostRow {
            name: &h.name,
            destination: &h.destination,
            result: h.result.as_ref(),
            clock_offset_ms: h.clock_offset_ns as f64 / 1e6,
            rtt_ms: h.rtt_ns as f64 / 1e6,
            failure: h.failure.as_ref().map(|f| (f.after_s, f.message.as_str())),
            live_ios: h.live.iter().map(|(ios, _)| ios).sum(),
            bytes_received: h.bytes_received,
        })
        .collect()
}

/// fio's client JSON, or per host fio text, then the combined text and the hosts table.
pub fn render(run: &MultiRun, json: bool, job_options: &[Vec<(String, String)>]) -> String {
    let rows = rows(run);
    if json {
        return render_clients_json(&rows, &run.combined, job_options);
    }
    let mut out = String::new();
    for host in &run.hosts {
        out.push_str(&format!(
            "hostname={} ({}): clock offset {:+.3} ms, round trip {:.3} ms\n",
            host.name,
            host.destination,
            host.clock_offset_ns as f64 / 1e6,
            host.rtt_ns as f64 / 1e6
        ));
        match (&host.result, &host.failure) {
            (_, Some(f)) => {
                out.push_str(&format!("  LOST after {:.1} s: {}\n", f.after_s, f.message))
            }
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

/// 130 interrupted, 3 a host was lost (results of the others kept), 1 a job stopped on an
/// error, else 0.
pub fn exit_code(run: &MultiRun, quiet: bool) -> ExitCode {
    if run.interrupted {
        if !quiet {
            eprintln!(
                "iofit: interrupted; every worker was stopped and the results cover what ran"
            );
        }
        return ExitCode::from(crate::cmd::run::INTERRUPTED);
    }
    if !run.complete() {
        for host in run.hosts.iter().filter(|h| h.failure.is_some()) {
            let f = host.failure.as_ref().expect("filtered");
            eprintln!(
                "iofit: host {} stopped {:.1} s after the start: {}",
                host.name, f.after_s, f.message
            );
        }
        eprintln!("iofit: the run is incomplete (exit code {INCOMPLETE}); the other hosts' results are kept");
        return ExitCode::from(INCOMPLETE);
    }
    if run.combined.jobs.iter().any(|j| j.error.is_some()) {
        eprintln!("iofit: error: a job stopped on an IO error (see the results)");
        return ExitCode::from(crate::exit::FAILED);
    }
    ExitCode::SUCCESS
}

/// `iofit run --hosts H job.fio`.
pub fn run_fio(
    hosts: &str,
    files: &[PathBuf],
    overrides: &[(String, String)],
    ignore_unknown: bool,
    reach: &Reach,
    output: &Output<'_>,
) -> anyhow::Result<ExitCode> {
    if files.is_empty() {
        return Err(bad_input(
            "--hosts runs job files; name a fio job file (iofit run --hosts h1,h2 job.fio)",
        ));
    }
    let remote_iofit = reach.remote_iofit();
    let specs = parse_hosts(hosts)?
        .into_iter()
        .map(|destination| {
            let name = host_name(&destination).to_string();
            Ok(HostSpec {
                jobs: fio_jobs_for(&name, files, overrides, ignore_unknown)?,
                name,
                destination,
                remote_iofit: remote_iofit.clone(),
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    crate::cmd::run::install_ctrl_c(reach.stop.clone());
    run_hosts(specs, reach, output)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_from_a_list_or_a_file() {
        assert_eq!(
            parse_hosts("a, root@b ,c").unwrap(),
            vec!["a", "root@b", "c"]
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("hosts");
        std::fs::write(&file, "# lab\n10.0.0.1\n\nroot@10.0.0.2  # second\n").unwrap();
        assert_eq!(
            parse_hosts(file.to_str().unwrap()).unwrap(),
            vec!["10.0.0.1", "root@10.0.0.2"]
        );
        assert!(parse_hosts(" , ").is_err());
        assert!(parse_hosts("-oProxyCommand=x").is_err());
        assert_eq!(host_name("root@vm1"), "vm1");
    }

    #[test]
    fn each_host_gets_its_own_target() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("j.fio");
        std::fs::write(
            &job,
            "[j]\nrw=randread\nsize=1m\nfilename=/data/${HOST}/f\n",
        )
        .unwrap();
        let a = fio_jobs_for("10.0.0.1", std::slice::from_ref(&job), &[], false).unwrap();
        let b = fio_jobs_for("10.0.0.2", &[job], &[], false).unwrap();
        assert_ne!(a[0].target, b[0].target);
        assert!(format!("{:?}", a[0].target).contains("/data/10.0.0.1/f"));
    }
}
