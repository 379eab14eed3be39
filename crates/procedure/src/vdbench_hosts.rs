//! A vdbench file over its hd= hosts: the raw (sd) runs one after another on every host at
//! once, then the file system runs on their own hds (`vdbench_fs_hosts`).

use crate::hosts::{
    bad, keys_dir_name, render_vdbench_run, slurm_nodes_for_hds, summary, vdbench_host_specs,
    HostRunner, HostsStatus, Reach,
};
use crate::observer::{Event, Observer};
use crate::vdbench::{adjust, write_json, RunJson, VdbenchJson, VdbenchOptions};
use crate::ProcedureError;
use iofit_jobfile::vdbench::{IoRate, ParamFile, Run};
use iofit_stats::RunResult;
use std::path::Path;
use std::sync::atomic::Ordering;

/// A vdbench file's runs on its hosts: each run's text goes to the observer as it finishes
/// and the JSON document (`vdbench.json_output`) is rewritten after every run, so a lost run
/// keeps the ones before it. Returns each run's status; stops after an interrupted run.
pub fn run_vdbench_hosts(
    path: &Path,
    file: &ParamFile,
    runs: Vec<Run>,
    vdbench: &VdbenchOptions,
    reach: &Reach,
    runner: &mut dyn HostRunner,
    observer: &mut dyn Observer,
) -> Result<Vec<HostsStatus>, ProcedureError> {
    let mut doc = VdbenchJson {
        tool: format!("iofit {}", env!("CARGO_PKG_VERSION")),
        dialect: "vdbench".into(),
        file: path.display().to_string(),
        ..Default::default()
    };
    crate::vdbench::say_notes(file, observer);
    if let Some(nodes) = slurm_nodes_for_hds(file, reach)? {
        let map: Vec<String> = file
            .hosts
            .iter()
            .zip(&nodes)
            .map(|(hd, node)| format!("{} -> {node}", hd.name))
            .collect();
        observer.warning(&crate::observer::Warning::JobNote(format!(
            "--hosts slurm: the file's hd= lines run on the allocation's nodes in order ({})",
            map.join(", ")
        )));
    }
    // validate=yes: each host keeps its keys from one run to the next (vdbench keeps its key
    // table for the whole file); the last run that validates has them removed.
    let keys = runs
        .iter()
        .any(|r| r.data.verify.mode.is_on())
        .then(keys_dir_name);
    let last_validating = runs.iter().rposition(|r| r.data.verify.mode.is_on());
    let mut statuses = Vec::new();
    // vdbench's output directory (`-o`): the hosts' total, as vdbench's summary.html holds.
    let mut reports = crate::vdbench::Reports::default();
    let mut flat_rows = Vec::new();
    if vdbench.output_dir.is_some() {
        reports.parmfile = iofit_safefs::input::read_capped_string(
            path,
            iofit_safefs::input::caps::JOB_FILE_BYTES,
            "parameter file",
        )?;
        reports
            .log
            .extend(file.notes.iter().map(|n| format!("note: {n}")));
    }
    for (index, run) in runs.into_iter().enumerate() {
        if reach.stop.load(Ordering::Relaxed) {
            break;
        }
        let run = adjust(run, vdbench)?;
        let (rate, label) = match &run.iorate {
            IoRate::Max => (None, "Uncontrolled MAX".to_string()),
            IoRate::Fixed(rate) => (Some(*rate), format!("{rate}")),
            IoRate::Curve(_) => {
                return Err(bad(format!(
                    "rd={}: iorate=curve across hosts is not supported yet; give iorate=max or a fixed rate",
                    run.rd
                )))
            }
        };
        let run_keys = keys
            .as_deref()
            .filter(|_| run.data.verify.mode.is_on())
            .map(|dir| (dir, Some(index) == last_validating));
        let specs = vdbench_host_specs(file, &run, rate, reach, run_keys)?;
        let multi = runner.run(specs)?;
        let (text, avg) = render_vdbench_run(&run, &label, &multi);
        if let Some(dir) = &vdbench.output_dir {
            let start = iofit_model::units::UnixSeconds(multi.combined.timestamp_s.get() as f64);
            if let (Some((total_avg, total)), Some(job)) = (
                summary(&run, &label, &multi.combined, start),
                multi.combined.jobs.first(),
            ) {
                reports.summaries.push(total);
                reports
                    .histograms
                    .push(crate::vdbench_output::histogram(&run.rd, job));
                let header = crate::vdbench::vdbench_header(&run, &label, start);
                flat_rows.extend(crate::vdbench_flat::raw_rows(
                    &run, rate, job, &header, &total_avg,
                ));
            }
            for host in &multi.hosts {
                if let Some(failure) = &host.failure {
                    reports.errors.push(format!(
                        "rd={} hd={}: lost after {:.1} s: {}",
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
            crate::vdbench_output::write_reports(
                dir,
                &path.display().to_string(),
                &reports,
                &flat_rows,
                false,
            )?;
        }
        observer.event(&Event::VdbenchRun {
            summary: text,
            rd: run.rd.clone(),
            error: None,
        });
        if let (Some(avg), Some(job)) = (avg, multi.combined.jobs.first()) {
            let result = RunResult {
                jobs: vec![job.clone()],
                ..multi.combined.clone()
            };
            let hosts = multi
                .hosts
                .iter()
                .filter_map(|h| h.result.clone())
                .collect();
            doc.runs
                .push(RunJson::new(&run, &label, rate, &avg, result, hosts));
        }
        let status = HostsStatus::of(&multi);
        doc.interrupted |= status.interrupted;
        write_json(&doc, vdbench)?;
        let interrupted = status.interrupted;
        statuses.push(status);
        if interrupted {
            break;
        }
    }
    let mut out = crate::vdbench_fs_hosts::FileOut {
        doc: &mut doc,
        reports: &mut reports,
        flat_rows: &mut flat_rows,
    };
    // The file system runs follow the raw ones, on their own hds.
    let io = (runner, observer);
    crate::vdbench_fs_hosts::run_all(path, file, vdbench, reach, io, &mut out, &mut statuses)?;
    Ok(statuses)
}
