//! `iofit run FILE.vdb`: a vdbench parameter file, run by [`iofit_procedure::vdbench`].

use crate::observe::CliObserver;
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::vdbench::{self, VdbenchOptions};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// `iofit run --parse-only` for a vdbench file: one line per expanded run.
pub fn check_file(path: &Path) -> anyhow::Result<ExitCode> {
    for run in vdbench::check_file(path)? {
        println!(
            "rd={} {}: {} wd/sd pairs, {} threads per SD ({} in flight), elapsed={}s warmup={}s",
            run.rd,
            run.for_label,
            run.workloads.len(),
            run.threads,
            run.total_threads(),
            run.elapsed.as_secs_f64(),
            run.warmup.as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs every run of the file; exit 1 when a run stopped on an IO error, 130 after Ctrl-C.
pub fn run_file(
    path: &Path,
    options: &VdbenchOptions,
    allow_overwrite: bool,
    quiet: bool,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<ExitCode> {
    let mut executor = EngineExecutor::new(allow_overwrite, stop);
    let mut observer = CliObserver {
        mib: true,
        ..CliObserver::new(true, quiet)
    };
    let outcome = vdbench::run_file(path, options, &mut executor, &mut observer)?;
    Ok(if outcome.failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
