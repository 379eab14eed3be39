//! What a vdbench file's runs so far leave behind after each run: iofit's JSON (`--output`),
//! vdbench's flatfile (`--flatfile`), its output directory (`-o`), and the renderable state a
//! stop shows ([`SoFar`]).

use crate::vdbench_execute::run_header;
use crate::vdbench_options::VdbenchOptions;
use crate::vdbench_outcome::{RunJson, VdbenchJson, VdbenchOutcome};
use crate::ProcedureError;
use iofit_jobfile::vdbench::Run;
use iofit_report::vdbench_summary::render_run;
use iofit_safefs::atomic::write_atomic;
use iofit_stats::RunResult;

/// Keeps the results so far renderable ([`SoFar`]): the JSON of the runs so far with the
/// running run's record (`running`: the run, its rate and label) from what it had measured
/// when a stop renders it; without `--output`, that run's summary.
pub(crate) fn keep_so_far(
    outcome: &VdbenchOutcome,
    options: &VdbenchOptions,
    running: Option<(&Run, Option<f64>, &str)>,
) {
    let Some(so_far) = &options.so_far else {
        return;
    };
    let as_json = options.json_output.is_some();
    let doc = if as_json {
        match serde_json::to_value(&outcome.doc) {
            Ok(doc) => Some(doc),
            Err(_) => return,
        }
    } else {
        None
    };
    let running = running.map(|(run, rate, label)| (run.clone(), rate, label.to_string()));
    let started = std::time::SystemTime::now();
    so_far.set(Box::new(move |measured| {
        let record = match (&running, measured.and_then(|m| m.jobs.first())) {
            (Some((run, rate, label)), Some(job)) => {
                let mut job = job.clone();
                // What the clones had measured when they saw the stop.
                job.interrupted = true;
                let header = run_header(run, label, started);
                let (text, avg) = render_run(&header, &job.series, &[]);
                Some((run, *rate, label, job, avg, text))
            }
            _ => None,
        };
        let Some(mut doc) = doc.clone() else {
            let (run, _, _, _, _, text) = record?;
            return Some(format!("{text}(rd={} was stopped part way)\n", run.rd));
        };
        if let Some((run, rate, label, job, avg, _)) = record {
            let result = RunResult {
                jobs: vec![job],
                tool: "iofit".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Default::default()
            };
            let json =
                serde_json::to_value(RunJson::new(run, label, rate, &avg, result, Vec::new()));
            if let (Some(runs), Ok(json)) = (doc["runs"].as_array_mut(), json) {
                runs.push(json);
            }
        }
        doc["interrupted"] = serde_json::Value::Bool(true);
        serde_json::to_string_pretty(&doc).ok()
    }));
}

/// vdbench's output directory (`-o`) with the runs so far.
pub(crate) fn write_output(
    outcome: &VdbenchOutcome,
    options: &VdbenchOptions,
) -> Result<(), ProcedureError> {
    match &options.output_dir {
        Some(dir) => crate::vdbench_output::write(dir, outcome),
        None => Ok(()),
    }
}

/// vdbench's flatfile of the runs so far (`--flatfile`), raw or file system columns.
pub(crate) fn write_flatfile(
    outcome: &VdbenchOutcome,
    options: &VdbenchOptions,
    file_system: bool,
) -> Result<(), ProcedureError> {
    use iofit_report::vdbench_flatfile::{render, FS_COLUMNS, RAW_COLUMNS};
    if let Some(path) = &options.flatfile {
        let columns = if file_system { FS_COLUMNS } else { RAW_COLUMNS };
        write_atomic(path, render(columns, &outcome.flat_rows).as_bytes())?;
    }
    Ok(())
}

pub(crate) fn write_json(
    doc: &VdbenchJson,
    options: &VdbenchOptions,
) -> Result<(), ProcedureError> {
    if let Some(path) = &options.json_output {
        let text = serde_json::to_string_pretty(doc)
            .map_err(|e| ProcedureError::Internal(format!("serialising the results: {e}")))?;
        write_atomic(path, text.as_bytes())?;
    }
    Ok(())
}
