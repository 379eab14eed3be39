//! One vdbench file system run (`fsd=`/`fwd=`) through `fswork`: its interval lines as they
//! happen, then its per-operation summary, JSON record and flatfile rows.

use crate::error::shown;
use crate::observer::{Event, Observer};
use crate::vdbench_options::VdbenchOptions;
use crate::vdbench_outcome::{FsPhaseJson, FsRunJson, VdbenchOutcome};
use crate::vdbench_save::{write_flatfile, write_json, write_output};
use crate::ProcedureError;
use iofit_jobfile::vdbench::{self, FsRun};
use std::sync::Arc;

/// One file system run through `fswork`, reported per operation.
pub(crate) fn run_fs(
    run: &FsRun,
    outcome: &mut VdbenchOutcome,
    options: &VdbenchOptions,
    observer: &mut dyn Observer,
) -> Result<(), ProcedureError> {
    let fs_options = iofit_fswork::FsOptions {
        allow_overwrite: options.allow_overwrite,
        stop: Arc::clone(&options.stop),
    };
    let label = format!("rd={}", run.rd);
    // The interval lines as printed, for summary.html.
    let mut printed = String::new();
    let fs_outcome = {
        // The format's summary and every interval line go out as they happen, as vdbench
        // prints them; what needs the whole run (the average, the summary) follows it.
        let title = format!(
            "rd={} {} interval lines ({:.1}s each)\n",
            run.rd,
            run.for_label,
            run.interval.as_secs_f64()
        );
        let mut header = Some(title + &crate::vdbench_fs::header());
        let mut live = |event: iofit_fswork::FsEvent<'_>| {
            let text = match event {
                iofit_fswork::FsEvent::Formatted(format) => iofit_fswork::report::render(
                    &format!("rd=format_for_{} ({:.1}s)", run.rd, format.seconds.get()),
                    &iofit_fswork::report::op_lines(&format.stats, format.seconds),
                ),
                iofit_fswork::FsEvent::Interval(interval) => {
                    header.take().unwrap_or_default() + &crate::vdbench_fs::interval_line(interval)
                }
            };
            let text = text.trim_end_matches('\n').to_string();
            printed.push_str(&text);
            printed.push('\n');
            observer.event(&Event::VdbenchLines { text });
        };
        iofit_fswork::run_observed(run, &fs_options, &mut live).map_err(|source| {
            ProcedureError::FileSystem {
                label: label.clone(),
                source,
            }
        })?
    };
    let phase = |p: &iofit_fswork::PhaseResult| FsPhaseJson {
        seconds: p.seconds,
        busy_seconds: p.busy_seconds,
        operations: iofit_fswork::report::op_lines(&p.stats, p.seconds),
        no_candidate: p.stats.no_candidate,
        intervals: p.intervals.clone(),
    };
    let json = FsRunJson {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        format: fs_outcome.format.as_ref().map(phase),
        run: fs_outcome.run.as_ref().map(phase),
        files: fs_outcome.files_per_fsd.clone(),
        interrupted: fs_outcome.interrupted,
        hosts: Vec::new(),
    };
    outcome.doc.interrupted |= json.interrupted;
    let mut text = String::new();
    if let Some(phase) = &fs_outcome.run {
        text.push_str(&crate::vdbench_fs::average_line(&phase.intervals));
    }
    if let Some(measured) = &json.run {
        text.push_str(&iofit_fswork::report::render(
            &format!(
                "rd={} {} fwdrate={} ({:.1}s measured)",
                run.rd,
                run.for_label,
                match run.fwdrate {
                    vdbench::FwdRate::Max => "max".to_string(),
                    vdbench::FwdRate::Fixed(rate) => shown(rate),
                },
                measured.seconds.get()
            ),
            &measured.operations,
        ));
    }
    for (fsd, present, total) in &json.files {
        text.push_str(&format!("fsd={fsd}: {present} of {total} files present\n"));
    }
    if json.interrupted {
        text.push_str(&format!(
            "rd={}: interrupted by a signal; the numbers cover what ran before it\n",
            run.rd
        ));
    }
    outcome.reports.summaries.push(format!("\n{printed}{text}"));
    outcome.reports.log(format!("rd={} done", run.rd));
    observer.event(&Event::VdbenchRun {
        summary: text,
        rd: run.rd.clone(),
        error: None,
    });
    if let Some(measured) = &json.run {
        let reqrate = match run.fwdrate {
            vdbench::FwdRate::Max => iofit_report::vdbench_flatfile::Cell::Text("max".into()),
            vdbench::FwdRate::Fixed(r) => iofit_report::vdbench_flatfile::Cell::Num(r),
        };
        for interval in fs_outcome.run.iter().flat_map(|p| &p.intervals) {
            outcome.flat_rows.push(crate::vdbench_flat::fs_interval_row(
                &run.rd,
                reqrate.clone(),
                interval,
            ));
        }
        outcome.flat_rows.push(crate::vdbench_flat::fs_row(
            &run.rd,
            reqrate,
            &measured.operations,
            measured.seconds.get(),
        ));
        write_flatfile(outcome, options, true)?;
    }
    outcome.doc.fs_runs.push(json);
    write_output(outcome, options)?;
    write_json(&outcome.doc, options)
}
