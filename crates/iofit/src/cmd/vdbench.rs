//! `iofit run FILE.vdb`: a vdbench parameter file, run by [`iofit_procedure::vdbench`].

use crate::observe::CliObserver;
use iofit_engine::LiveResults;
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::so_far::SoFar;
use iofit_procedure::vdbench::{self, VdbenchOptions};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The runs of a file whose `hd=` lines name other machines (None: a one-machine file).
fn multi_host_runs(
    path: &Path,
    substitutions: &[String],
    slurm: bool,
) -> anyhow::Result<
    Option<(
        iofit_jobfile::vdbench::ParamFile,
        Vec<iofit_jobfile::vdbench::Run>,
    )>,
> {
    use crate::exit::bad_input;
    use iofit_jobfile::vdbench::{is_local_host, parse_file_with};
    let file = parse_file_with(path, substitutions).map_err(bad_input)?;
    // Under `--hosts slurm` every hd= runs on an allocated node, local names or not.
    if !slurm && !file.is_multi_host(is_local_host).map_err(bad_input)? {
        return Ok(None);
    }
    let runs = file.runs().map_err(bad_input)?;
    Ok(Some((file, runs)))
}

/// `iofit run --parse-only` for a vdbench file: one line per expanded run. Luns and anchors
/// are not looked at (a file written for another machine's devices still parses).
pub fn check_file(path: &Path, substitutions: &[String]) -> anyhow::Result<ExitCode> {
    let checked = vdbench::check_file(path, substitutions)?;
    let runs = match multi_host_runs(path, substitutions, false)? {
        Some((_, runs)) => runs,
        None => checked.runs,
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
    for run in &checked.fs_runs {
        let fsds: Vec<String> = run
            .fsds
            .iter()
            .map(|f| {
                let dirs = iofit_jobfile::vdbench::leaf_dirs(f.width, f.depth);
                format!(
                    "fsd={} anchor={} {} dirs x {} files",
                    f.name,
                    f.anchor.display(),
                    dirs,
                    f.files
                )
            })
            .collect();
        let fwds: Vec<String> = run
            .fwds
            .iter()
            .map(|f| {
                let what = match f.fwd.rdpct {
                    Some(pct) => {
                        format!("fwd={} rdpct={pct} threads={}", f.fwd.name, f.fwd.threads)
                    }
                    None => format!(
                        "fwd={} {} threads={}",
                        f.fwd.name,
                        f.fwd.operation.name(),
                        f.fwd.threads
                    ),
                };
                // Where it runs: an hd over ssh, or this machine.
                match f.hosts.as_slice() {
                    [] => what,
                    hosts => format!("{what} on hd={}", hosts.join(",")),
                }
            })
            .collect();
        println!(
            "rd={} {}: {}; {}; fwdrate={:?} format={:?} elapsed={}s",
            run.rd,
            run.for_label,
            fsds.join(", "),
            fwds.join(", "),
            run.fwdrate,
            run.format,
            run.elapsed.as_secs_f64()
        );
    }
    for note in &checked.notes {
        println!("  note: {note}");
    }
    for key in &checked.refused_data_keys {
        println!(
            "  note: {key} parses, and a run refuses it (iofit does not run this data parameter)"
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
    remote: (Option<String>, Option<std::path::PathBuf>, Option<u32>),
) -> anyhow::Result<ExitCode> {
    let slurm = remote.2.is_some();
    if let Some((file, runs)) = multi_host_runs(path, &options.substitutions, slurm)? {
        let common = super::vdbench_hosts::HostsOptions {
            vdbench: options.clone(),
            allow_overwrite,
            quiet,
            stop,
            remote_iofit: remote.0,
            ssh_config: remote.1,
            slurm_tasks_per_node: remote.2,
        };
        return super::vdbench_hosts::run_file(path, &file, runs, &common);
    }
    let mut executor = EngineExecutor::new(allow_overwrite, stop);
    let live = Arc::new(LiveResults::default());
    executor.options.live = Some(Arc::clone(&live));
    let so_far = Arc::new(SoFar::default());
    let options = &VdbenchOptions {
        so_far: Some(Arc::clone(&so_far)),
        ..options.clone()
    };
    // Should the stop bound end the process before the file's runs are done, it writes the
    // runs so far with what the running one had measured to --output (or prints that run's
    // summary).
    crate::stop::set_last_word_so_far(live, so_far, options.json_output.as_deref());
    let mut observer = CliObserver {
        mib: true,
        ..CliObserver::new(true, quiet)
    };
    let outcome = vdbench::run_file(path, options, &mut executor, &mut observer)?;
    // What the file measured is out (printed run by run, and in --output): the bound must not
    // replace it.
    crate::stop::clear_last_word();
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
    } else if outcome.interrupted {
        // Ctrl-C/SIGTERM: the runs so far are out (the running one marked interrupted); the
        // exit says the file did not run to its end, as `iofit run` does for fio jobs.
        if !quiet {
            eprintln!("iofit: interrupted; the results cover the runs before the signal");
        }
        ExitCode::from(crate::exit::INTERRUPTED)
    } else {
        ExitCode::SUCCESS
    })
}
