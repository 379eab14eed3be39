//! Multi-host glue: the hidden `iofit worker` subcommand (what the controller starts on each
//! host over ssh) and `iofit run --hosts` for fio jobs. The protocol, controller and merging
//! live in the `iofit-remote` crate, which hosts run what and the output in
//! [`iofit_procedure::hosts`]; this file calls them, prints and picks the exit code.

use iofit_procedure::hosts_ending::{fio_on_hosts, hosts_ending, reach_for, serve_worker};
use iofit_procedure::hosts_ending::{slurm_task, write_hosts_report, SshRunner};
use iofit_procedure::run_request::{Inputs, RunRequest};
use iofit_remote::worker::WorkerLimits;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
    let limits = WorkerLimits {
        allowed_dirs: args.allow_dir,
        allow_overwrite: args.allow_overwrite,
    };
    let slurm_task = args
        .slurm_step
        .then(|| slurm_task(std::env::var("SLURM_PROCID").ok().as_deref()))
        .transpose()?;
    // A signal (SIGTERM from a cancelled Slurm step or a killed ssh session) stops the jobs and
    // the results so far still go to the controller; a second signal ends the worker at once.
    let stop = Arc::new(AtomicBool::new(false));
    crate::stop::arm(Arc::clone(&stop), crate::stop::Armed::Unbounded);
    serve_worker(args.protocol, &limits, slurm_task, stop)?;
    Ok(ExitCode::SUCCESS)
}

/// `iofit run --hosts H job.fio`: runs every host's jobs and prints per-host and combined
/// results.
pub fn run_fio(request: &RunRequest, hosts: &str, inputs: &Inputs) -> anyhow::Result<ExitCode> {
    let reach = reach_for(request);
    let mut runner = SshRunner { reach: &reach };
    let arm = |stop| crate::stop::arm(stop, crate::stop::Armed::Unbounded);
    let ran = fio_on_hosts(request, hosts, inputs, &reach, &mut runner, &arm)?;
    if request.output.is_none() {
        super::emit(&ran.text)?;
    }
    if let Some(path) = &request.report {
        write_hosts_report(path, &ran.run)?;
    }
    Ok(super::end(hosts_ending(&ran.status, request.quiet)))
}
