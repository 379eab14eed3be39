//! vdbench files whose `hd=` lines name other machines: every run goes to its hosts through
//! `iofit-remote` ([`iofit_procedure::vdbench_hosts::run_vdbench_hosts`] decides what each
//! host runs and renders each host's vdbench-style summary, the total and a hosts table).

use crate::observe::CliObserver;
use iofit_jobfile::vdbench::{ParamFile, Run};
use iofit_procedure::hosts::Reach;
use iofit_procedure::hosts_ending::{vdbench_hosts_ending, SshRunner};
use iofit_procedure::vdbench::VdbenchOptions;
use iofit_procedure::vdbench_hosts::run_vdbench_hosts;
use std::path::Path;
use std::process::ExitCode;

/// Runs every run of a multi-host vdbench file: 130 after Ctrl-C, 3 when a host was lost in
/// any run, else the worst run's code.
pub fn run_file(
    path: &Path,
    file: &ParamFile,
    runs: Vec<Run>,
    vdbench: &VdbenchOptions,
    reach: &Reach,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let mut observer = CliObserver {
        mib: true,
        ..CliObserver::new(true, quiet)
    };
    let mut runner = SshRunner { reach };
    let statuses = run_vdbench_hosts(path, file, runs, vdbench, reach, &mut runner, &mut observer)?;
    Ok(super::end(vdbench_hosts_ending(&statuses, quiet)))
}
