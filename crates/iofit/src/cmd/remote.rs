//! Multi-host glue: the hidden `iofit worker` subcommand (what the controller starts on each
//! host over ssh) and `iofit run --hosts` for fio jobs. The protocol, controller and merging
//! live in the `iofit-remote` crate, which hosts run what and the output in
//! [`iofit_procedure::hosts`]; this file calls them, prints and picks the exit code.

use crate::exit::bad_input;
use iofit_procedure::hosts::{
    fio_host_specs, html_report, render_fio, HostRunner, HostsStatus, Reach,
};
use iofit_procedure::ProcedureError;
use iofit_remote::{HostSpec, MultiRun, RemoteError};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Exit code of a multi-host run that did not finish on every host: the hosts that finished
/// are in the results, the lost ones are named with the time they stopped.
pub const INCOMPLETE: u8 = 3;

/// `iofit worker --protocol N [--allow-dir DIR]... [--allow-overwrite]`: serve one
/// controller on stdin/stdout (started by iofit itself over ssh; not for interactive use).
/// The limits are the worker's own: a controller cannot widen them.
#[derive(clap::Args, Debug)]
pub struct WorkerArgs {
    /// The protocol version the controller speaks.
    #[arg(long)]
    pub protocol: u32,
    /// Only files in this directory may be read or written (repeat for several).
    #[arg(long = "allow-dir", value_name = "DIR")]
    pub allow_dir: Vec<PathBuf>,
    /// Let a controller's --allow-overwrite through (without it, such a job is refused).
    #[arg(long = "allow-overwrite")]
    pub allow_overwrite: bool,
    /// A task of the one srun step of `run --hosts slurm`: read only the controller's lines for
    /// this task (SLURM_PROCID), answer in frames that srun's --label output keeps whole.
    #[arg(long = "slurm-step")]
    pub slurm_step: bool,
}

pub fn worker(args: WorkerArgs) -> anyhow::Result<ExitCode> {
    let input = std::io::BufReader::new(std::io::stdin());
    if args.slurm_step {
        let task = std::env::var("SLURM_PROCID")
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
            .ok_or_else(|| {
                bad_input(
                    "iofit worker --slurm-step runs as a task of an srun step, and SLURM_PROCID \
                     is not set to a task number; iofit run --hosts slurm starts it so",
                )
            })?;
        let input = iofit_remote::slurm_stdio::AddressedInput::new(input, task);
        let output = iofit_remote::slurm_stdio::FramedOutput::new(std::io::stdout(), task);
        return serve(args, input, output);
    }
    serve(args, input, std::io::stdout())
}

/// Serves one controller on `input`/`output` until its run ends.
fn serve(
    args: WorkerArgs,
    input: impl std::io::BufRead + Send + 'static,
    output: impl std::io::Write + Send + 'static,
) -> anyhow::Result<ExitCode> {
    let limits = iofit_remote::worker::WorkerLimits {
        allowed_dirs: args.allow_dir,
        allow_overwrite: args.allow_overwrite,
    };
    // A signal (SIGTERM from a cancelled Slurm step or a killed ssh session) stops the jobs and
    // the results so far still go to the controller; a second signal ends the worker at once.
    let stop = Arc::new(AtomicBool::new(false));
    crate::stop::arm(Arc::clone(&stop), crate::stop::Armed::Unbounded);
    match iofit_remote::worker::serve_with_stop(args.protocol, &limits, input, output, stop) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(RemoteError::Worker(message)) => Err(bad_input(message)),
        Err(e) => Err(e.into()),
    }
}

/// The real controller: the OpenSSH client to every host.
pub struct SshRunner<'a> {
    pub reach: &'a Reach,
}

impl HostRunner for SshRunner<'_> {
    /// Failures before the start are errors (exit 2 when the fix is in the input, else 1).
    fn run(&mut self, hosts: Vec<HostSpec>) -> Result<MultiRun, ProcedureError> {
        let options = self.reach.options();
        // Writing to the pipe of an ssh that died must be an error the controller reports
        // (that host is lost), not a SIGPIPE that kills the controller and every other host's
        // results.
        // SAFETY: SIG_IGN is a valid disposition; changing it affects only how this process
        // handles broken pipes, which every write here checks.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        Ok(iofit_remote::run(&hosts, &options)?)
    }
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
    let jobs = hosts.first().map(|h| h.jobs.clone()).unwrap_or_default();
    let run = SshRunner { reach }.run(hosts)?;
    let text = render_fio(&run, output.json, &jobs);
    super::write_or_print(output.path, &text)?;
    if let Some(path) = output.report {
        iofit_procedure::plan::write_report(
            path,
            iofit_report::ReportFormat::Html,
            &html_report(&run),
        )?;
    }
    Ok(exit_code(&HostsStatus::of(&run), output.quiet))
}

/// 130 interrupted, 3 a host was lost (results of the others kept), 1 a job stopped on an
/// error, else 0.
pub fn exit_code(status: &HostsStatus, quiet: bool) -> ExitCode {
    if status.interrupted {
        if !quiet {
            eprintln!(
                "iofit: interrupted; every worker was stopped and the results cover what ran"
            );
        }
        return ExitCode::from(crate::exit::INTERRUPTED);
    }
    if !status.complete {
        for lost in &status.lost {
            eprintln!(
                "iofit: host {} stopped {:.1} s after the start: {}",
                lost.name, lost.after_s, lost.message
            );
        }
        eprintln!("iofit: the run is incomplete (exit code {INCOMPLETE}); the other hosts' results are kept");
        return ExitCode::from(INCOMPLETE);
    }
    if status.job_failed {
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
    let specs = fio_host_specs(hosts, files, overrides, ignore_unknown, reach)?;
    crate::stop::arm(reach.stop.clone(), crate::stop::Armed::Unbounded);
    run_hosts(specs, reach, output)
}
