//! Multi-host glue: the hidden `iofit worker` subcommand (what the controller starts on each
//! host over ssh) and `iofit run --hosts` for fio jobs. The protocol, controller and merging
//! live in the `iofit-remote` crate, which hosts run what and the output in
//! [`iofit_procedure::hosts`]; this file calls them, prints and picks the exit code.

use iofit_procedure::hosts::{fio_host_specs, Reach};
use iofit_procedure::hosts_ending::{
    hosts_ending, run_fio_hosts, serve_worker, slurm_task, write_hosts_report, SshRunner,
};
use iofit_remote::worker::WorkerLimits;
use std::path::{Path, PathBuf};
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

/// What `iofit run --hosts` prints and writes.
pub struct Output<'a> {
    pub json: bool,
    pub path: Option<&'a Path>,
    pub quiet: bool,
    /// An HTML report with the hosts table and IOPS per host over time.
    pub report: Option<&'a Path>,
}

/// `iofit run --hosts H job.fio`: runs every host's jobs and prints per-host and combined
/// results.
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
    let ran = run_fio_hosts(specs, output.json, &mut SshRunner { reach })?;
    super::write_or_print(output.path, &ran.text)?;
    if let Some(path) = output.report {
        write_hosts_report(path, &ran.run)?;
    }
    Ok(super::end(hosts_ending(&ran.status, output.quiet)))
}
