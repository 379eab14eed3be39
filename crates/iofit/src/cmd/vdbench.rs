//! `iofit run FILE.vdb`: a vdbench parameter file, run by [`iofit_procedure::vdbench`]
//! (what runs where and how it ends: [`iofit_procedure::vdbench_cmd`]); a file whose `hd=`
//! lines name other machines runs on them through
//! [`iofit_procedure::vdbench_hosts::run_vdbench_hosts`].

use crate::observe::CliObserver;
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::hosts::Reach;
use iofit_procedure::hosts_ending::{vdbench_hosts_ending, SshRunner};
use iofit_procedure::so_far::SoFar;
use iofit_procedure::vdbench::{self, VdbenchOptions};
use iofit_procedure::vdbench_cmd::{multi_host_runs, run_ending};
use iofit_procedure::vdbench_hosts::run_vdbench_hosts;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// Runs every run of the file; exit 1 when a run stopped on an IO error, 130 after Ctrl-C;
/// a file whose `hd=` lines name other machines runs on them as `reach` says (3 when a host
/// was lost in any run, else the worst run's code).
pub fn run_file(
    path: &Path,
    options: &VdbenchOptions,
    reach: &Reach,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    // Ctrl-C stops the runs cleanly; what ran is reported.
    super::install_ctrl_c(Arc::clone(&reach.stop));
    // vdbench reports MiB/s.
    let mut observer = CliObserver {
        mib: true,
        ..CliObserver::new(true, quiet)
    };
    let slurm = reach.slurm_tasks_per_node.is_some();
    if let Some((file, runs)) = multi_host_runs(path, &options.substitutions, slurm)? {
        let mut runner = SshRunner { reach };
        let statuses = run_vdbench_hosts(
            path,
            &file,
            runs,
            options,
            reach,
            &mut runner,
            &mut observer,
        )?;
        return Ok(super::end(vdbench_hosts_ending(&statuses, quiet)));
    }
    let mut executor = EngineExecutor::new(reach.allow_overwrite, Arc::clone(&reach.stop));
    let so_far = Arc::new(SoFar::default());
    // Should the stop bound end the process before the file's runs are done, it writes the
    // runs so far with what the running one had measured to --output (or prints that run's
    // summary).
    let output = options.json_output.as_deref();
    executor.options.live = Some(crate::stop::set_last_word_so_far(
        Arc::clone(&so_far),
        output,
    ));
    let options = &VdbenchOptions {
        so_far: Some(so_far),
        ..options.clone()
    };
    let outcome = vdbench::run_file(path, options, &mut executor, &mut observer)?;
    // What the file measured is out (printed run by run, and in --output): the bound must not
    // replace it.
    crate::stop::clear_last_word();
    Ok(super::end(run_ending(&outcome, quiet)))
}
