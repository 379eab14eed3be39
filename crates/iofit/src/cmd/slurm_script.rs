//! `iofit slurm-script`: prints an sbatch script that runs a job file across its allocation.

use iofit_procedure::slurm_script::{slurm_script, SlurmScriptRequest};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The fio job file or vdbench parameter file the nodes run.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Nodes to allocate [default: the vdbench file's hd= count, else 1].
    #[arg(long, value_name = "N")]
    pub nodes: Option<u32>,
    /// Slurm's time limit for the job (minutes, HH:MM:SS or D-HH:MM:SS).
    #[arg(long, value_name = "TIME", default_value = "01:00:00")]
    pub time: String,
    /// Workers started on each allocated node (with `--hosts slurm`).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub tasks_per_node: u32,
    /// The iofit the nodes run [default: this binary's path].
    #[arg(long, value_name = "PATH")]
    pub iofit: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let script = slurm_script(&SlurmScriptRequest {
        file: args.file,
        nodes: args.nodes,
        time: args.time,
        tasks_per_node: args.tasks_per_node,
        iofit: args.iofit,
    })?;
    super::emit(&script)?;
    Ok(ExitCode::SUCCESS)
}
