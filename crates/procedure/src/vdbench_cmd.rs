//! The decisions of `iofit run FILE.vdb` and `iofit vdbench -f FILE` around the runs
//! ([`crate::vdbench`]): whether the file's `hd=` lines send it to other hosts, what
//! `--parse-only` and vdbench's `-s` show, how vdbench's own flags become the options, and how
//! a file's runs end (exit status and notes).

use crate::ending::{Ending, Exit, Note};
use crate::hosts::Reach;
use crate::run_request::duration_flag;
use crate::vdbench::{adjust, check_file, vdbench_header, VdbenchOptions, VdbenchOutcome};
use crate::ProcedureError;
use iofit_jobfile::vdbench::{is_local_host, leaf_dirs, parse_file_with, FsRun, IoRate};
use iofit_jobfile::vdbench::{ParamFile, Run};
use iofit_report::vdbench_summary::{starting_line, RunHeader};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The runs of a file whose `hd=` lines name other machines (None: a one-machine file).
/// Under `--hosts slurm` (`slurm`) every hd= runs on an allocated node, local names or not.
pub fn multi_host_runs(
    path: &Path,
    substitutions: &[String],
    slurm: bool,
) -> Result<Option<(ParamFile, Vec<Run>)>, ProcedureError> {
    let file = parse_file_with(path, substitutions)?;
    if !slurm && !file.is_multi_host(is_local_host)? {
        return Ok(None);
    }
    let runs = file.runs()?;
    Ok(Some((file, runs)))
}

/// `iofit run --parse-only` for a vdbench file: one line per expanded run, then the notes.
/// Luns and anchors are not looked at (a file written for another machine's devices still
/// parses).
pub fn check_lines(path: &Path, substitutions: &[String]) -> Result<Vec<String>, ProcedureError> {
    let checked = check_file(path, substitutions)?;
    let runs = match multi_host_runs(path, substitutions, false)? {
        Some((_, runs)) => runs,
        None => checked.runs,
    };
    let mut lines: Vec<String> = runs
        .iter()
        .map(|run| {
            format!(
                "rd={} {}: {} wd/sd pairs, {} threads per SD ({} in flight), elapsed={}s warmup={}s",
                run.rd,
                run.for_label,
                run.workloads.len(),
                run.threads,
                run.total_threads(),
                run.elapsed.as_secs_f64(),
                run.warmup.as_secs_f64()
            )
        })
        .collect();
    lines.extend(checked.fs_runs.iter().map(fs_run_line));
    lines.extend(checked.notes.iter().map(|note| format!("  note: {note}")));
    lines.extend(checked.refused_data_keys.iter().map(|key| {
        format!(
            "  note: {key} parses, and a run refuses it (iofit does not run this data parameter)"
        )
    }));
    Ok(lines)
}

/// A file system run's line: its fsds (tree sizes) and fwds (what, where).
fn fs_run_line(run: &FsRun) -> String {
    let fsds: Vec<String> = run
        .fsds
        .iter()
        .map(|f| {
            let dirs = leaf_dirs(f.width, f.depth);
            let anchor = f.anchor.display();
            format!(
                "fsd={} anchor={anchor} {dirs} dirs x {} files",
                f.name, f.files
            )
        })
        .collect();
    let fwds: Vec<String> = run
        .fwds
        .iter()
        .map(|f| {
            let what = match f.fwd.rdpct {
                Some(pct) => format!("fwd={} rdpct={pct} threads={}", f.fwd.name, f.fwd.threads),
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
    format!(
        "rd={} {}: {}; {}; fwdrate={:?} format={:?} elapsed={}s",
        run.rd,
        run.for_label,
        fsds.join(", "),
        fwds.join(", "),
        run.fwdrate,
        run.format,
        run.elapsed.as_secs_f64()
    )
}

/// How a one-machine file's runs end: 4 when validate=yes found bad blocks (the first ten
/// named), 1 when a run stopped on an IO error, 130 after Ctrl-C, else 0.
pub fn run_ending(outcome: &VdbenchOutcome, quiet: bool) -> Ending {
    if outcome.data_errors > 0 {
        let mut notes: Vec<Note> = outcome
            .doc
            .runs
            .iter()
            .flat_map(|run| run.result.jobs.iter().map(move |job| (run, job)))
            .flat_map(|(run, job)| {
                job.verify
                    .iter()
                    .flat_map(move |v| v.errors.iter().map(move |e| (run, e)))
            })
            .take(10)
            .map(|(run, e)| Note::DataError {
                rd: run.rd.clone(),
                error: e.clone(),
            })
            .collect();
        notes.push(Note::BadBlocks {
            count: outcome.data_errors,
        });
        return Ending {
            exit: Exit::DataErrors,
            notes,
        };
    }
    if outcome.failed {
        return Ending::quiet(Exit::Failed);
    }
    if !outcome.interrupted {
        return Ending::quiet(Exit::Success);
    }
    // Ctrl-C/SIGTERM: the runs so far are out (the running one marked interrupted); the exit
    // says the file did not run to its end, as `iofit run` does for fio jobs.
    if quiet {
        return Ending::quiet(Exit::Interrupted);
    }
    Ending::with(Exit::Interrupted, Note::VdbenchInterrupted)
}

/// `iofit vdbench`'s flags (vdbench's own command line), as the binary parsed them.
#[derive(Clone, Debug, Default)]
pub struct VdbenchCliRequest {
    pub parmfile: PathBuf,
    /// `-o DIR`: vdbench's report files go there.
    pub output: PathBuf,
    /// `-e`, `-i`, `-w`: every run's elapsed, interval and warmup (seconds, or 30s, 2m).
    pub elapsed: Option<String>,
    pub interval: Option<String>,
    pub warmup: Option<String>,
    pub validate: bool,
    pub substitutions: Vec<String>,
    pub allow_overwrite: bool,
    /// `--remote-iofit`, `--ssh-config`: how the hosts of `hd=` lines are reached.
    pub remote_iofit: Option<String>,
    pub ssh_config: Option<PathBuf>,
}

impl VdbenchCliRequest {
    /// How the file's hosts are reached (over ssh), stopped by the runs' own stop flag.
    pub fn reach(&self, options: &VdbenchOptions) -> Reach {
        Reach {
            remote_iofit: self.remote_iofit.clone(),
            ssh_config: self.ssh_config.clone(),
            allow_overwrite: self.allow_overwrite,
            stop: Arc::clone(&options.stop),
            slurm_tasks_per_node: None,
        }
    }
}

fn seconds(
    flag: &str,
    text: &Option<String>,
) -> Result<Option<std::time::Duration>, ProcedureError> {
    text.as_deref().map(|t| duration_flag(flag, t)).transpose()
}

/// The options of the runs: the substitutions checked (`name=value`, as vdbench takes them)
/// and the overrides read.
pub fn cli_options(request: &VdbenchCliRequest) -> Result<VdbenchOptions, ProcedureError> {
    for s in &request.substitutions {
        if !s.contains('=') {
            return Err(ProcedureError::bad_input(format!(
                "'{s}': after the options vdbench takes name=value substitutions; write {s}=VALUE"
            )));
        }
    }
    Ok(VdbenchOptions {
        elapsed: seconds("-e", &request.elapsed)?,
        warmup: seconds("-w", &request.warmup)?,
        interval: seconds("-i", &request.interval)?,
        validate: request.validate,
        substitutions: request.substitutions.clone(),
        allow_overwrite: request.allow_overwrite,
        output_dir: Some(request.output.clone()),
        ..Default::default()
    })
}

/// `-o DIR` made (or found) and its summary.html checked before any IO: never the parameter
/// file, and a file iofit did not write only with --allow-overwrite.
pub fn prepare_output_dir(request: &VdbenchCliRequest) -> Result<(), ProcedureError> {
    let bad = |e: iofit_safefs::SafeFsError| ProcedureError::bad_input(e.to_string());
    iofit_safefs::atomic::output_dir(&request.output).map_err(bad)?;
    iofit_safefs::guard::check_output_allowing(
        &request.output.join("summary.html"),
        std::slice::from_ref(&request.parmfile),
        "-o",
        request.allow_overwrite,
    )
    .map_err(bad)
}

/// `-s`: the notes, then each run's "Simulating RD=..." line (vdbench's display_run); nothing
/// runs.
pub fn simulate_lines(
    request: &VdbenchCliRequest,
    options: &VdbenchOptions,
) -> Result<Vec<String>, ProcedureError> {
    let checked = check_file(&request.parmfile, &request.substitutions)?;
    let mut lines: Vec<String> = checked.notes.iter().map(|n| format!("note: {n}")).collect();
    for run in checked.runs {
        let run = adjust(run, options)?;
        let label = match &run.iorate {
            IoRate::Max => "Uncontrolled MAX".to_string(),
            IoRate::Fixed(rate) => format!("{rate}"),
            IoRate::Curve(_) => "Uncontrolled curve".to_string(),
        };
        let header: RunHeader = vdbench_header(&run, &label, iofit_model::units::UnixSeconds(0.0));
        lines.push(starting_line(&header, true));
    }
    lines.extend(checked.fs_runs.iter().map(|run| {
        format!(
            "Simulating RD={}; elapsed={}; {}",
            run.rd,
            run.elapsed.as_secs_f64(),
            run.for_label
        )
    }));
    Ok(lines)
}

#[cfg(test)]
#[path = "vdbench_cmd_tests.rs"]
mod tests;
