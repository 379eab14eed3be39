//! vdbench files whose `hd=` lines name other machines: every run goes to its hosts through
//! `iofit-remote` ([`iofit_procedure::hosts::run_vdbench_hosts`] decides what each host runs
//! and renders each host's vdbench-style summary, the total and a hosts table).

use crate::cmd::remote::{exit_code, SshRunner, INCOMPLETE};
use crate::observe::CliObserver;
use iofit_jobfile::vdbench::{ParamFile, Run};
use iofit_procedure::hosts::Reach;
use iofit_procedure::vdbench::VdbenchOptions;
use iofit_procedure::vdbench_hosts::run_vdbench_hosts;
use std::path::Path;
use std::process::ExitCode;

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
    /// `--hosts slurm`: workers are the tasks of one job step on the allocation's nodes (this
    /// many per node).
    pub slurm_tasks_per_node: Option<u32>,
}

/// Runs every run of a multi-host vdbench file: 130 after Ctrl-C, 3 when a host was lost in
/// any run, else the worst run's code.
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
        slurm_tasks_per_node: common.slurm_tasks_per_node,
    };
    let mut observer = CliObserver {
        mib: true,
        ..CliObserver::new(true, common.quiet)
    };
    let statuses = run_vdbench_hosts(
        path,
        file,
        runs,
        &common.vdbench,
        &reach,
        &mut SshRunner { reach: &reach },
        &mut observer,
    )?;
    let data_errors: u64 = statuses.iter().map(|s| s.data_errors).sum();
    if data_errors > 0 {
        for line in statuses.iter().flat_map(|s| &s.data_error_lines).take(10) {
            eprintln!("iofit: data error: {line}");
        }
        eprintln!(
            "iofit: error: validate=yes found {data_errors} bad block(s) over the hosts (see the results)"
        );
        return Ok(ExitCode::from(crate::exit::DATA_ERRORS));
    }
    let mut worst = ExitCode::SUCCESS;
    for status in &statuses {
        let code = exit_code(status, common.quiet);
        if status.interrupted {
            return Ok(code);
        }
        if code != ExitCode::SUCCESS {
            worst = code;
        }
    }
    Ok(if statuses.iter().any(|s| !s.complete) {
        ExitCode::from(INCOMPLETE)
    } else {
        worst
    })
}
