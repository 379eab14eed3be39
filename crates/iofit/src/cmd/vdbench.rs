//! `iofit run FILE.vdb`: a vdbench parameter file, run by [`iofit_procedure::vdbench`].

use crate::observe::CliObserver;
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::vdbench::{self, VdbenchOptions};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The runs of a file whose `hd=` lines name other machines (None: a one-machine file).
fn multi_host_runs(
    path: &Path,
) -> anyhow::Result<
    Option<(
        iofit_jobfile::vdbench::ParamFile,
        Vec<iofit_jobfile::vdbench::Run>,
    )>,
> {
    use crate::exit::bad_input;
    use iofit_jobfile::vdbench::{is_local_host, parse_file};
    let file = parse_file(path).map_err(bad_input)?;
    if !file.is_multi_host(is_local_host).map_err(bad_input)? {
        return Ok(None);
    }
    let runs = file.runs().map_err(bad_input)?;
    Ok(Some((file, runs)))
}

/// `iofit run --parse-only` for a vdbench file: one line per expanded run.
pub fn check_file(path: &Path) -> anyhow::Result<ExitCode> {
    let runs = match multi_host_runs(path)? {
        Some((_, runs)) => runs,
        None => vdbench::check_file(path)?,
    };
    for run in runs {
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

/// Runs every run of the file; exit 1 when a run stopped on an IO error, 130 after Ctrl-C;
/// a file whose `hd=` lines name other machines runs on them over ssh (`vdbench_hosts`).
pub fn run_file(
    path: &Path,
    options: &VdbenchOptions,
    allow_overwrite: bool,
    quiet: bool,
    stop: Arc<AtomicBool>,
    remote: (Option<String>, Option<std::path::PathBuf>),
) -> anyhow::Result<ExitCode> {
    if let Some((file, runs)) = multi_host_runs(path)? {
        let common = super::vdbench_hosts::HostsOptions {
            vdbench: options.clone(),
            allow_overwrite,
            quiet,
            stop,
            remote_iofit: remote.0,
            ssh_config: remote.1,
        };
        return super::vdbench_hosts::run_file(path, &file, runs, &common);
    }
    let mut executor = EngineExecutor::new(allow_overwrite, stop);
    let mut observer = CliObserver {
        mib: true,
        ..CliObserver::new(true, quiet)
    };
    let outcome = vdbench::run_file(path, options, &mut executor, &mut observer)?;
    if outcome.data_errors > 0 {
        let errors = outcome
            .doc
            .runs
            .iter()
            .flat_map(|run| run.result.jobs.iter().map(move |job| (run, job)))
            .flat_map(|(run, job)| {
                job.verify
                    .iter()
                    .flat_map(move |v| v.errors.iter().map(move |e| (run, e)))
            });
        for (run, e) in errors.take(10) {
            eprintln!(
                "iofit: data error: rd={} lun={} offset {} length {}: {}: expected {}, found {}",
                run.rd, e.file, e.offset, e.length, e.kind, e.expected, e.found
            );
        }
        eprintln!(
            "iofit: error: validate=yes found {} bad block(s) (see the results)",
            outcome.data_errors
        );
        return Ok(ExitCode::from(crate::exit::DATA_ERRORS));
    }
    Ok(if outcome.failed {
        ExitCode::from(crate::exit::FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
