//! vdbench file system runs (`fsd=`/`fwd=`) whose fwds name hosts (`host=`): each hd runs its
//! fwds against its own fsds (their anchors on that host) through `iofit worker` over ssh,
//! formatting before the common start; the controller prints every host's interval lines,
//! `avg_` line and per-operation summary, then the total of all hosts: interval `n` of the
//! total is the sum of every host's interval `n`, the operations' histograms are merged, so
//! the hosts' counts add up to the total exactly.

use crate::hosts::{HostRunner, HostsStatus, Reach};
use crate::observer::{Event, Observer};
use crate::vdbench::{FsPhaseJson, FsRunJson, Reports, VdbenchOptions};
use crate::ProcedureError;
use iofit_fswork::{FsOutcome, PhaseResult};
use iofit_jobfile::vdbench::{FsRun, FwdRate, ParamFile};
use iofit_remote::{HostSpec, MultiRun};
use std::fmt::Write;

/// Every hd's part of `run`: one worker per hd that has fwds in it.
pub fn fs_host_specs(
    file: &ParamFile,
    run: &FsRun,
    reach: &Reach,
) -> Result<Vec<HostSpec>, ProcedureError> {
    let nodes = crate::hosts::slurm_nodes_for_hds(file, reach)?;
    let mut specs = Vec::new();
    for (hd_index, hd) in file.hosts.iter().enumerate() {
        let Some(part) = run.on_host(&hd.name) else {
            continue;
        };
        specs.push(HostSpec {
            name: hd.name.clone(),
            destination: crate::hosts::hd_destination(hd, hd_index, nodes.as_deref()),
            remote_iofit: crate::hosts::hd_remote_iofit(hd, reach),
            jobs: Vec::new(),
            keys: None,
            fs: Some(part),
        });
    }
    if specs.is_empty() {
        return Err(ProcedureError::BadInput(format!(
            "rd={}: no hd runs any of its fwds; add host= to the fwd= lines",
            run.rd
        )));
    }
    Ok(specs)
}

fn phase_json(p: &PhaseResult) -> FsPhaseJson {
    FsPhaseJson {
        seconds: p.seconds,
        busy_seconds: p.busy_seconds,
        operations: iofit_fswork::report::op_lines(&p.stats, p.seconds),
        no_candidate: p.stats.no_candidate,
        intervals: p.intervals.clone(),
    }
}

/// One outcome as JSON (a host's, or the total).
pub fn outcome_json(run: &FsRun, outcome: &FsOutcome) -> FsRunJson {
    FsRunJson {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        format: outcome.format.as_ref().map(phase_json),
        run: outcome.run.as_ref().map(phase_json),
        files: outcome.files_per_fsd.clone(),
        interrupted: outcome.interrupted,
        hosts: Vec::new(),
    }
}

/// vdbench's text of one outcome: the interval lines with their header, the `avg_` line,
/// the per-operation summary and the files present.
pub fn outcome_text(run: &FsRun, outcome: &FsOutcome) -> String {
    let mut out = String::new();
    if let Some(format) = &outcome.format {
        out.push_str(&iofit_fswork::report::render(
            &format!("rd=format_for_{} ({:.1}s)", run.rd, format.seconds.get()),
            &iofit_fswork::report::op_lines(&format.stats, format.seconds),
        ));
    }
    if let Some(phase) = &outcome.run {
        let _ = writeln!(
            out,
            "rd={} {} interval lines ({:.1}s each)",
            run.rd,
            run.for_label,
            run.interval.as_secs_f64()
        );
        out.push_str(&crate::vdbench_fs::header());
        for interval in &phase.intervals {
            out.push_str(&crate::vdbench_fs::interval_line(interval));
        }
        out.push_str(&crate::vdbench_fs::average_line(&phase.intervals));
        out.push_str(&iofit_fswork::report::render(
            &format!(
                "rd={} {} fwdrate={} ({:.1}s measured)",
                run.rd,
                run.for_label,
                match run.fwdrate {
                    FwdRate::Max => "max".to_string(),
                    FwdRate::Fixed(rate) => crate::error::shown(rate),
                },
                phase.seconds.get()
            ),
            &iofit_fswork::report::op_lines(&phase.stats, phase.seconds),
        ));
    }
    for (fsd, present, total) in &outcome.files_per_fsd {
        let _ = writeln!(out, "fsd={fsd}: {present} of {total} files present");
    }
    out
}

/// The hosts' outcomes as one (see the module's note); None when no host finished.
pub fn combine(multi: &MultiRun) -> Option<FsOutcome> {
    let outcomes: Vec<&FsOutcome> = multi
        .hosts
        .iter()
        .filter_map(|h| h.fs_result.as_ref())
        .collect();
    if outcomes.is_empty() {
        return None;
    }
    let phases = |pick: fn(&FsOutcome) -> Option<&PhaseResult>| {
        let list: Vec<&PhaseResult> = outcomes.iter().filter_map(|o| pick(o)).collect();
        iofit_fswork::wire::combine(&list)
    };
    Some(FsOutcome {
        format: phases(|o| o.format.as_ref()),
        run: phases(|o| o.run.as_ref()),
        files_per_fsd: outcomes
            .iter()
            .flat_map(|o| o.files_per_fsd.iter().cloned())
            .collect(),
        interrupted: outcomes.iter().any(|o| o.interrupted),
    })
}

/// Runs one file system run on its hosts; prints each host's summary and the total, adds
/// the total to `doc` (with each host's part) and to the output directory's reports.
#[allow(clippy::too_many_arguments)]
pub fn run_on_hosts(
    file: &ParamFile,
    run: &FsRun,
    reach: &Reach,
    runner: &mut dyn HostRunner,
    observer: &mut dyn Observer,
    doc: &mut crate::vdbench::VdbenchJson,
    reports: &mut Reports,
    flat_rows: &mut Vec<iofit_report::vdbench_flatfile::FlatRow>,
) -> Result<HostsStatus, ProcedureError> {
    let specs = fs_host_specs(file, run, reach)?;
    let multi = runner.run(specs)?;
    let mut text = String::new();
    let mut hosts_json = Vec::new();
    for host in &multi.hosts {
        let _ = writeln!(
            text,
            "hd={} ({}): clock offset {:+.3} ms",
            host.name,
            host.destination,
            host.clock_offset_ns.as_f64().to_millis().get()
        );
        match (&host.fs_result, &host.failure) {
            (Some(outcome), failure) => {
                text.push_str(&outcome_text(run, outcome));
                if let Some(f) = failure {
                    let _ = writeln!(
                        text,
                        "  stopped after {:.1} s: {}",
                        f.after_s.get(),
                        f.message
                    );
                }
                let mut json = outcome_json(run, outcome);
                json.rd = host.name.clone();
                hosts_json.push(json);
            }
            (None, Some(f)) => {
                let _ = writeln!(text, "  LOST after {:.1} s: {}", f.after_s.get(), f.message);
            }
            (None, None) => text.push_str("  no result\n"),
        }
        text.push('\n');
    }
    let total = combine(&multi);
    text.push_str("Total of all hosts (merged histograms, summed aligned intervals):\n");
    if let Some(total) = &total {
        let total_text = outcome_text(run, total);
        text.push_str(&total_text);
        reports.summaries.push(format!("\n{total_text}"));
        if let Some(phase) = &total.run {
            let reqrate = match run.fwdrate {
                FwdRate::Max => iofit_report::vdbench_flatfile::Cell::Text("max".into()),
                FwdRate::Fixed(r) => iofit_report::vdbench_flatfile::Cell::Num(r),
            };
            for interval in &phase.intervals {
                flat_rows.push(crate::vdbench_flat::fs_interval_row(
                    &run.rd,
                    reqrate.clone(),
                    interval,
                ));
            }
            flat_rows.push(crate::vdbench_flat::fs_row(
                &run.rd,
                reqrate,
                &iofit_fswork::report::op_lines(&phase.stats, phase.seconds),
                phase.seconds.get(),
            ));
        }
        let mut json = outcome_json(run, total);
        json.hosts = hosts_json;
        doc.fs_runs.push(json);
    }
    for host in &multi.hosts {
        if let Some(failure) = &host.failure {
            reports.errors.push(format!(
                "rd={} hd={}: {:.1} s: {}",
                run.rd,
                host.name,
                failure.after_s.get(),
                failure.message
            ));
        }
    }
    reports
        .log
        .push(format!("rd={} done on {} hosts", run.rd, multi.hosts.len()));
    observer.event(&Event::VdbenchRun {
        summary: text,
        rd: run.rd.clone(),
        error: None,
    });
    Ok(HostsStatus::of(&multi))
}

/// What a multi-host file writes as its runs go: the JSON document, the output directory's
/// reports and the flatfile's rows.
pub struct FileOut<'a> {
    pub doc: &'a mut crate::vdbench::VdbenchJson,
    pub reports: &'a mut Reports,
    pub flat_rows: &'a mut Vec<iofit_report::vdbench_flatfile::FlatRow>,
}

/// Every file system run of the file on its hosts, after the raw runs (none after an
/// interrupted one), the JSON and the output directory rewritten after each; stops after an
/// interrupted run.
pub fn run_all(
    path: &std::path::Path,
    file: &ParamFile,
    vdbench: &VdbenchOptions,
    reach: &Reach,
    (runner, observer): (&mut dyn HostRunner, &mut dyn Observer),
    out: &mut FileOut<'_>,
    statuses: &mut Vec<HostsStatus>,
) -> Result<(), ProcedureError> {
    if statuses.iter().any(|s| s.interrupted) {
        return Ok(());
    }
    for run in file.fs_runs()? {
        if reach.stop.load(std::sync::atomic::Ordering::Relaxed) {
            break;
        }
        let run = adjust(run, vdbench)?;
        let status = run_on_hosts(
            file,
            &run,
            reach,
            runner,
            observer,
            out.doc,
            out.reports,
            out.flat_rows,
        )?;
        // A stop keeps what the hosts measured, marked as the file's interrupted end.
        out.doc.interrupted |= status.interrupted;
        if let Some(dir) = &vdbench.output_dir {
            crate::vdbench_output::write_reports(
                dir,
                &path.display().to_string(),
                out.reports,
                out.flat_rows,
                false,
            )?;
        }
        crate::vdbench::write_json(out.doc, vdbench)?;
        let stopped = status.interrupted;
        statuses.push(status);
        if stopped {
            break;
        }
    }
    Ok(())
}

/// The command line's overrides on a file system run (as for one machine).
pub fn adjust(run: FsRun, options: &VdbenchOptions) -> Result<FsRun, ProcedureError> {
    crate::vdbench::adjust_fs(run, options)
}
