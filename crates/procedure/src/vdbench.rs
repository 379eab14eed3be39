//! Running vdbench parameter files: each expanded run (one per rd and for-loop value) runs
//! with all its (wd, sd) jobs at once, reported as one group, as a vdbench-style summary (interval
//! lines and an `avg` line); iofit's JSON is written after every run so an interrupted file keeps
//! what finished. `iorate=curve` runs max first, then each curve point as a fraction of the
//! measured max, and reports the latency-versus-IO-rate table with its knee.

use crate::error::shown;
use crate::execute::Executor;
use crate::observer::{Event, Observer};
pub use crate::vdbench_execute::{execute, vdbench_header, RunOutcome};
use crate::vdbench_fs_run::run_fs;
pub(crate) use crate::vdbench_options::adjust_fs;
pub use crate::vdbench_options::{adjust, VdbenchOptions, MAX_SCALE};
pub use crate::vdbench_outcome::{
    CurveJson, FsPhaseJson, FsRunJson, Reports, RunJson, VdbenchJson, VdbenchOutcome,
};
pub(crate) use crate::vdbench_save::write_json;
use crate::vdbench_save::{keep_so_far, write_flatfile, write_output};
use crate::ProcedureError;
use iofit_jobfile::vdbench::{self, FsRun, IoRate, Run};
use iofit_model::units::Iops;
use iofit_report::vdbench_summary::{render_curve, CurvePoint};
use iofit_stats::RunResult;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// A private directory for validate=yes keys (safefs's scratch: random name, 0700), removed
/// when the file's runs end.
struct KeysDir(iofit_safefs::scratch::Scratch);

impl KeysDir {
    fn new() -> Result<KeysDir, ProcedureError> {
        iofit_safefs::scratch::Scratch::create(&std::env::temp_dir(), "iofit-validate")
            .map(KeysDir)
            .map_err(ProcedureError::from)
    }
}

/// Parses the file at `path`, checks its hosts and expands its runs; errors name file, line
/// and key.
pub fn check_file(path: &Path, substitutions: &[String]) -> Result<CheckedFile, ProcedureError> {
    let file = vdbench::parse_file_with(path, substitutions)?;
    // A multi-host file runs over ssh; one for this machine must not name another.
    if !file.is_multi_host(vdbench::is_local_host)? {
        file.check_hosts(vdbench::is_local_host)?;
    }
    Ok(CheckedFile {
        runs: file.runs()?,
        fs_runs: file.fs_runs()?,
        refused_data_keys: file
            .data
            .iter()
            .filter(|d| !d.runs())
            .map(|d| format!("{}={}", d.key, d.value))
            .collect(),
        notes: file.notes.clone(),
    })
}

/// What iofit reads differently from the letter of the file, said once before the runs.
pub fn say_notes(file: &vdbench::ParamFile, observer: &mut dyn Observer) {
    for note in &file.notes {
        observer.warning(&crate::observer::Warning::JobNote(note.to_string()));
    }
}

/// What `--parse-only` shows: the runs, without looking at luns or anchors.
pub struct CheckedFile {
    pub runs: Vec<Run>,
    pub fs_runs: Vec<FsRun>,
    /// Data keys the file has that a run refuses (`journal=`...; `validate=`, `compratio=`
    /// and the dedup keys run).
    pub refused_data_keys: Vec<String>,
    pub notes: Vec<vdbench::VdbenchNote>,
}

/// Runs every run of the vdbench file at `path`.
pub fn run_file(
    path: &Path,
    options: &VdbenchOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<VdbenchOutcome, ProcedureError> {
    let (file, runs, fs_runs) = prepare_file(path, options, observer)?;
    let mut outcome = new_outcome(path, &file, options)?;
    // validate=yes: each SD's keys (block generations) carry from one run to the next, as
    // vdbench keeps them in memory for the whole file.
    let keys = runs
        .iter()
        .any(|run| run.data.verify.mode.is_on())
        .then(KeysDir::new)
        .transpose()?;
    for run in runs {
        if executor.stop_requested() {
            break;
        }
        run_raw(
            run,
            keys.as_ref(),
            &mut outcome,
            options,
            executor,
            observer,
        )?;
    }
    for run in fs_runs {
        if executor.stop_requested() || options.stop.load(Ordering::Relaxed) {
            break;
        }
        let run = adjust_fs(run, options)?;
        run_fs(&run, &mut outcome, options, observer)?;
        pause(
            pause_time(&run.rd, run.pause, options, observer),
            &options.stop,
        );
    }
    outcome.interrupted = executor.stop_requested() || options.stop.load(Ordering::Relaxed);
    outcome.reports.log(if outcome.interrupted {
        "iofit stopped by a signal; the runs before it are reported".to_string()
    } else {
        "iofit execution completed".to_string()
    });
    write_output(&outcome, options)?;
    let totals = totals_text(&outcome.doc);
    if !totals.is_empty() {
        observer.event(&Event::VdbenchRun {
            summary: totals,
            rd: "totals".into(),
            error: None,
        });
    }
    Ok(outcome)
}

/// The file parsed with `-v` applied, its hosts, data keys and targets checked, its outputs
/// guarded, and its raw and file system runs.
fn prepare_file(
    path: &Path,
    options: &VdbenchOptions,
    observer: &mut dyn Observer,
) -> Result<(vdbench::ParamFile, Vec<Run>, Vec<FsRun>), ProcedureError> {
    let mut file = vdbench::parse_file_with(path, &options.substitutions)?;
    // Now that every include= was read (safefs knows each as an input), the outputs again.
    for (out, flag) in [
        (&options.flatfile, "--flatfile"),
        (&options.json_output, "--output"),
    ] {
        if let Some(out) = out {
            iofit_safefs::guard::check_output_allowing(
                out,
                &[path.to_path_buf()],
                flag,
                options.allow_overwrite,
            )?;
        }
    }
    if options.validate {
        // vdbench's -v: as if the file said validate=yes.
        file.data.push(vdbench::DataParam {
            key: "validate".into(),
            value: "yes".into(),
            loc: iofit_jobfile::error::Location::new("-v", 0),
        });
    }
    file.check_hosts(vdbench::is_local_host)?;
    file.check_runnable()?;
    say_notes(&file, observer);
    let runs = file
        .runs()?
        .into_iter()
        .map(|run| adjust(run, options))
        .collect::<Result<Vec<_>, _>>()?;
    file.check_targets(&runs)?;
    let fs_runs = file.fs_runs()?;
    // vdbench does not create directories; neither does iofit. Say which sd= line to fix.
    for sd in runs.iter().flat_map(|r| r.workloads.iter().map(|w| &w.sd)) {
        if let Some(parent) = sd.lun.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                return Err(ProcedureError::bad_input(format!(
                    "{}: sd={} lun={}: directory {} does not exist; create it (the seed mounts a volume there) or point lun= elsewhere",
                    sd.loc,
                    sd.name,
                    sd.lun.display(),
                    parent.display()
                )));
            }
        }
    }
    Ok((file, runs, fs_runs))
}

/// The outcome before any run: the document's header and, with an output directory, the
/// parameter file and the log's first lines.
fn new_outcome(
    path: &Path,
    file: &vdbench::ParamFile,
    options: &VdbenchOptions,
) -> Result<VdbenchOutcome, ProcedureError> {
    let mut outcome = VdbenchOutcome {
        doc: VdbenchJson {
            tool: format!("iofit {}", env!("CARGO_PKG_VERSION")),
            dialect: "vdbench".into(),
            file: path.display().to_string(),
            ..Default::default()
        },
        failed: false,
        interrupted: false,
        data_errors: 0,
        flat_rows: Vec::new(),
        reports: Reports::default(),
    };
    if options.output_dir.is_some() {
        outcome.reports.parmfile = iofit_safefs::input::read_capped_string(
            path,
            iofit_safefs::input::caps::JOB_FILE_BYTES,
            "parameter file",
        )?;
        outcome.reports.log(format!(
            "iofit {} -f {}",
            env!("CARGO_PKG_VERSION"),
            path.display()
        ));
        for note in &file.notes {
            outcome.reports.log(format!("note: {note}"));
        }
    }
    Ok(outcome)
}

/// One raw run of the file at its iorate (max, fixed or a curve), then its pause.
fn run_raw(
    run: Run,
    keys: Option<&KeysDir>,
    outcome: &mut VdbenchOutcome,
    options: &VdbenchOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<(), ProcedureError> {
    let mut run = adjust(run, options)?;
    if let Some(keys) = keys {
        run.data.verify.state_save = Some(keys.0.path().to_path_buf());
        run.data.verify.state_load = Some(keys.0.path().to_path_buf());
    }
    match run.iorate.clone() {
        IoRate::Max => {
            keep_so_far(outcome, options, Some((&run, None, "Uncontrolled MAX")));
            let measured = execute(&run, None, "Uncontrolled MAX", executor, observer)?;
            finish(&run, None, "max", &measured, outcome, options, observer)?;
        }
        IoRate::Fixed(rate) => {
            let label = format!("{rate}");
            keep_so_far(outcome, options, Some((&run, Some(rate), &label)));
            let measured = execute(&run, Some(rate), &label, executor, observer)?;
            finish(
                &run,
                Some(rate),
                &label,
                &measured,
                outcome,
                options,
                observer,
            )?;
        }
        IoRate::Curve(pcts) => {
            run_curve(&run, &pcts, outcome, options, executor, observer)?;
        }
    }
    pause(
        pause_time(&run.rd, run.pause, options, observer),
        &options.stop,
    );
    Ok(())
}

/// vdbench's totals: one line per run of the file (its avg line), raw and file system.
pub fn totals_text(doc: &VdbenchJson) -> String {
    if doc.runs.len() + doc.fs_runs.len() < 2 {
        return String::new();
    }
    let mut out = String::from("\nTotals, one line per run:\n");
    out.push_str(&format!(
        "{:<40} {:>12} {:>10} {:>8} {:>10}\n",
        "run", "rate/s", "MB/sec", "read%", "resp_ms"
    ));
    for run in &doc.runs {
        let label = format!("rd={} {} {}", run.rd, run.for_label, run.iorate);
        out.push_str(&format!(
            "{:<40} {:>12.1} {:>10.2} {:>8.1} {:>10.3}\n",
            label.trim(),
            run.avg_iops.get(),
            run.avg_mib_per_s,
            run.avg_read_pct,
            run.avg_resp_ms.get()
        ));
    }
    for run in &doc.fs_runs {
        if let Some(total) = run
            .run
            .as_ref()
            .and_then(|p| p.operations.iter().find(|l| l.operation == "total"))
        {
            let label = format!("rd={} {}", run.rd, run.for_label);
            out.push_str(&format!(
                "{:<40} {:>12.1} {:>10.2} {:>8} {:>10.3}\n",
                label.trim(),
                total.ops_per_s,
                total.mib_s.get(),
                "-",
                total.resp_mean_ms.get()
            ));
        }
    }
    out
}

/// How long `pause=` idles: as written, or at most the command line's elapsed override
/// (`--runtime`, `-e`), which shortens a try-out's pauses as it shortens its runs, said in a
/// note.
fn pause_time(
    rd: &str,
    written: Duration,
    options: &VdbenchOptions,
    observer: &mut dyn Observer,
) -> Duration {
    match options.elapsed {
        Some(limit) if written > limit => {
            observer.warning(&crate::observer::Warning::JobNote(format!(
                "rd={rd}: pause={}s shortened to {}s by the elapsed override (--runtime, -e)",
                shown(written.as_secs_f64()),
                shown(limit.as_secs_f64())
            )));
            limit
        }
        _ => written,
    }
}

/// `pause=`: idle after a run, ended early by a stop.
fn pause(time: Duration, stop: &AtomicBool) {
    let end = std::time::Instant::now() + time;
    while !stop.load(Ordering::Relaxed) {
        let now = std::time::Instant::now();
        if now >= end {
            break;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(100)));
    }
}

/// `iorate=curve`: max first, then each point as a percentage of the measured max.
fn run_curve(
    run: &Run,
    pcts: &[f64],
    outcome: &mut VdbenchOutcome,
    options: &VdbenchOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<(), ProcedureError> {
    keep_so_far(
        outcome,
        options,
        Some((run, None, "Uncontrolled curve (max)")),
    );
    let max = execute(run, None, "Uncontrolled curve (max)", executor, observer)?;
    finish(run, None, "curve max", &max, outcome, options, observer)?;
    let max_iops = max.avg.line.iops.get();
    let mut points = vec![CurvePoint {
        label: "max".into(),
        target_iops: None,
        iops: Iops(max_iops),
        resp_ms: max.avg.line.resp_ms,
    }];
    for pct in pcts {
        if executor.stop_requested() || max_iops <= 0.0 {
            break;
        }
        let target = max_iops * pct / 100.0;
        let label = format!("curve {pct}% of max ({target:.0})");
        keep_so_far(outcome, options, Some((run, Some(target), &label)));
        let measured = execute(run, Some(target), &label, executor, observer)?;
        finish(
            run,
            Some(target),
            &label,
            &measured,
            outcome,
            options,
            observer,
        )?;
        points.push(CurvePoint {
            label: format!("{pct}%"),
            target_iops: Some(iofit_model::Iops(target)),
            iops: measured.avg.line.iops,
            resp_ms: measured.avg.line.resp_ms,
        });
    }
    let knee = find_knee(&points);
    observer.event(&Event::VdbenchCurve {
        table: render_curve(&run.rd, &points, knee),
    });
    outcome.doc.curves.push(CurveJson {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        max_iops: Iops(max_iops),
        points: points
            .iter()
            .map(|p| {
                (
                    p.label.clone(),
                    p.target_iops.map(|t| t.get()),
                    p.iops.get(),
                    p.resp_ms.get(),
                )
            })
            .collect(),
        knee: knee.map(|k| points[k].label.clone()),
    });
    write_json(&outcome.doc, options)
}

/// Reports a finished run and writes the JSON so far.
fn finish(
    run: &Run,
    rate: Option<f64>,
    label: &str,
    measured: &RunOutcome,
    outcome: &mut VdbenchOutcome,
    options: &VdbenchOptions,
    observer: &mut dyn Observer,
) -> Result<(), ProcedureError> {
    // A stop (SIGINT, SIGTERM) ends the run interrupted: a clone it left blocked in the
    // kernel is part of that stop, not an IO failure (the exit is 130, not 1).
    let stopped = measured.job.interrupted;
    let summary = match (&measured.job.error, stopped) {
        (Some(error), true) => format!(
            "{}\nrd={}: interrupted by a signal: {error}",
            measured.text, run.rd
        ),
        _ => measured.text.clone(),
    };
    observer.event(&Event::VdbenchRun {
        summary,
        rd: run.rd.clone(),
        error: measured.job.error.clone().filter(|_| !stopped),
    });
    let result = RunResult {
        jobs: vec![measured.job.clone()],
        tool: "iofit".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..Default::default()
    };
    outcome.doc.runs.push(RunJson::new(
        run,
        label,
        rate,
        &measured.avg,
        result,
        Vec::new(),
    ));
    outcome.failed |= measured.job.error.is_some() && !stopped;
    outcome.reports.summaries.push(measured.text.clone());
    let label = format!("{} {}", run.rd, run.for_label);
    outcome
        .reports
        .histograms
        .push(crate::vdbench_output::histogram(
            label.trim_end(),
            &measured.job,
        ));
    outcome
        .reports
        .log(format!("rd={} done: {}", run.rd, measured.avg.label()));
    if let Some(error) = &measured.job.error {
        outcome
            .reports
            .errors
            .push(format!("rd={}: {error}", run.rd));
    }
    if let Some(verify) = &measured.job.verify {
        for e in &verify.errors {
            outcome.reports.errors.push(format!(
                "rd={} lun={} offset {} length {}: {}: expected {}, found {}",
                run.rd, e.file, e.offset, e.length, e.kind, e.expected, e.found
            ));
        }
    }
    outcome.doc.interrupted |= measured.job.interrupted;
    outcome.data_errors += measured.job.verify.as_ref().map_or(0, |v| v.bad_units);
    outcome.flat_rows.extend(crate::vdbench_flat::raw_rows(
        run,
        rate,
        &measured.job,
        &measured.header,
        &measured.avg,
    ));
    write_flatfile(outcome, options, false)?;
    write_output(outcome, options)?;
    keep_so_far(outcome, options, None);
    write_json(&outcome.doc, options)
}

/// The knee of a latency-versus-IO-rate curve (Kneedle): with IO rate and response time each
/// scaled to 0..1, the point furthest below the straight line from the lowest to the highest
/// point. Beyond it response time grows faster than the rate. Needs three distinct rates and a
/// response time that rises by more than 10% over the curve.
pub fn find_knee(points: &[CurvePoint]) -> Option<usize> {
    let iops = |i: usize| points[i].iops.get();
    let resp_ms = |i: usize| points[i].resp_ms.get();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| iops(a).total_cmp(&iops(b)));
    if order.len() < 3 {
        return None;
    }
    let (x0, x1) = (iops(order[0]), iops(*order.last()?));
    let y0 = order
        .iter()
        .map(|&i| resp_ms(i))
        .fold(f64::INFINITY, f64::min);
    let y1 = order
        .iter()
        .map(|&i| resp_ms(i))
        .fold(f64::NEG_INFINITY, f64::max);
    // A latency that varies less than 10% over the curve has no knee in the measured range.
    if x1 - x0 <= 0.0 || y1 <= y0 * 1.1 {
        return None;
    }
    order
        .iter()
        .map(|&i| {
            let x = (iops(i) - x0) / (x1 - x0);
            let y = (resp_ms(i) - y0) / (y1 - y0);
            (i, x - y)
        })
        .filter(|(_, d)| *d > 0.0)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::EngineExecutor;
    use crate::observer::Quiet;
    use iofit_model::units::Bytes;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// Real IO: these tests check what vdbench's parameters do on a real file.
    fn real() -> EngineExecutor {
        EngineExecutor::new(false, Arc::new(AtomicBool::new(false)))
    }

    fn point(iops: f64, resp_ms: f64) -> CurvePoint {
        CurvePoint {
            label: format!("{iops}"),
            target_iops: Some(iofit_model::Iops(iops)),
            iops: iofit_model::Iops(iops),
            resp_ms: iofit_model::units::Millis(resp_ms),
        }
    }

    #[test]
    fn knee_of_a_hockey_stick() {
        // Flat latency up to 8,000 IO/s, then a wall: the knee is the last flat point.
        let points = vec![
            point(10_000.0, 9.0),
            point(1_000.0, 0.5),
            point(5_000.0, 0.6),
            point(8_000.0, 0.8),
            point(9_000.0, 2.0),
        ];
        assert_eq!(find_knee(&points), Some(3));
        assert_eq!(find_knee(&points[..2]), None);
        // Flat latency: no knee.
        let flat = vec![
            point(1_000.0, 0.5),
            point(5_000.0, 0.51),
            point(9_000.0, 0.52),
        ];
        assert_eq!(find_knee(&flat), None);
    }

    /// Generates the seed's files with the seed's own script into a temp dir (one VM, mounts
    /// under the temp dir), creates the six mount directories, and returns (files dir, data dir).
    fn seed_files() -> (tempfile::TempDir, tempfile::TempDir) {
        let out = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/vdbench/generate.sh");
        let status = std::process::Command::new("bash")
            .arg(script)
            .arg(out.path())
            .arg(data.path())
            .status()
            .unwrap();
        assert!(status.success());
        for vol in 1..=6 {
            std::fs::create_dir_all(data.path().join(format!("vdb{vol}"))).unwrap();
        }
        (out, data)
    }

    fn run_seed(pattern: &str) -> serde_json::Value {
        let (out, _data) = seed_files();
        let json = out.path().join("result.json");
        let common = VdbenchOptions {
            elapsed: Some(Duration::from_secs(1)),
            warmup: Some(Duration::ZERO),
            sd_size: Some(Bytes::mib(4)),
            json_output: Some(json.clone()),
            ..Default::default()
        };
        let file = out.path().join(format!("vnet1-{pattern}-workload"));
        let outcome = run_file(&file, &common, &mut real(), &mut Quiet).unwrap();
        assert!(!outcome.failed && !outcome.interrupted);
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
    }

    /// Checks one run of the JSON: threads, read share, that IO happened.
    fn check_run(run: &serde_json::Value, threads_per_sd: u64, read_pct: f64, random: bool) {
        assert_eq!(run["threads_per_sd"], threads_per_sd);
        assert_eq!(run["total_threads"], threads_per_sd * 6);
        let job = &run["result"]["jobs"][0];
        let clones = job["clones"].as_u64().unwrap();
        let iodepth = job["iodepth"].as_u64().unwrap();
        if random {
            // One thread = one synchronous IO in flight: threads x 6 SDs clones.
            assert_eq!(clones, threads_per_sd * 6);
        } else {
            // Sequential: one stream per SD with `threads` IOs in flight.
            assert_eq!(clones, 6);
            assert_eq!(iodepth, threads_per_sd);
        }
        let reads = job["read"]["ios"].as_f64().unwrap();
        let writes = job["write"]["ios"].as_f64().unwrap();
        assert!(reads + writes > 0.0, "no IO done");
        let measured = reads * 100.0 / (reads + writes);
        assert!(
            (measured - read_pct).abs() <= 5.0,
            "read share {measured}% against rdpct={read_pct}"
        );
        // The avg line covers the measured intervals only (not the IOs draining after the
        // last one): its read share is the run's mix too.
        let avg_read_pct = run["avg_read_pct"].as_f64().unwrap();
        assert!(
            (avg_read_pct - read_pct).abs() <= 5.0,
            "avg read% {avg_read_pct}"
        );
    }

    #[test]
    fn seed_fillwrite_is_one_sequential_pass() {
        let doc = run_seed("FillWrite");
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1);
        check_run(&runs[0], 1, 0.0, false);
        // seekpct=eof: exactly one pass of each 4 MiB SD in 64 KiB writes, then stop.
        let write = &runs[0]["result"]["jobs"][0]["write"];
        assert_eq!(write["io_bytes"], 6 * 4 * 1024 * 1024);
        assert_eq!(write["ios"], 6 * 64);
    }

    #[test]
    fn seed_random_runs() {
        for (pattern, threads, read_pct) in [
            ("RndRead", 25, 100.0),
            ("RndWrite", 20, 0.0),
            ("RndMix", 25, 50.0),
        ] {
            let doc = run_seed(pattern);
            let runs = doc["runs"].as_array().unwrap();
            assert_eq!(runs.len(), 1, "{pattern}");
            check_run(&runs[0], threads, read_pct, true);
        }
    }

    fn check_sequential(pattern: &str, threads: &[u64], read_pct: f64) {
        let doc = run_seed(pattern);
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), threads.len(), "{pattern}");
        for (run, t) in runs.iter().zip(threads) {
            check_run(run, *t, read_pct, false);
        }
    }

    #[test]
    fn seed_seqread() {
        check_sequential("SeqRead", &[20], 100.0);
    }

    #[test]
    fn seed_seqwrite_three_runs() {
        check_sequential("SeqWrite", &[26, 32, 40], 0.0);
    }

    #[test]
    fn seed_seqmix_two_runs() {
        check_sequential("SeqMix", &[6, 7], 50.0);
    }

    #[test]
    fn iorate_curve_runs_fractions_of_the_measured_max() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("curve.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/f1,size=4m,openflags=o_direct\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=c,wd=w,iorate=curve,curve=(25,50),elapsed=1,threads=1\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let json = dir.path().join("curve.json");
        let common = VdbenchOptions {
            json_output: Some(json.clone()),
            ..Default::default()
        };
        let outcome = run_file(&param, &common, &mut real(), &mut Quiet).unwrap();
        assert!(!outcome.failed);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        let runs = doc["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "max, then 25% and 50% of it");
        let curve = &doc["curves"][0];
        let max = curve["max_iops"].as_f64().unwrap();
        assert!(max > 0.0);
        assert_eq!(curve["points"].as_array().unwrap().len(), 3);
        for (run, pct) in runs[1..].iter().zip([25.0, 50.0]) {
            let target = run["target_iops"].as_f64().unwrap();
            assert!((target - max * pct / 100.0).abs() < 1e-6);
            let measured = run["avg_iops"].as_f64().unwrap();
            // The cap holds. (How close a point comes to its target from below depends on what
            // else shares the disk: other tests run in parallel, so only the cap is asserted.)
            assert!(
                measured > 0.0 && measured <= target * 1.05,
                "{pct}%: measured {measured} against target {target}"
            );
        }
    }

    #[test]
    fn missing_lun_directory_is_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("nodir.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/no-such-dir/f1,size=1m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=1\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let error =
            run_file(&param, &VdbenchOptions::default(), &mut real(), &mut Quiet).unwrap_err();
        assert!(error.is_bad_input());
        let text = error.to_string();
        assert!(text.contains("nodir.vdb:1: sd=sd1"), "{text}");
    }

    #[test]
    fn check_file_accepts_the_seed_files_and_refuses_the_corpus() {
        let (out, _data) = seed_files();
        for pattern in ["FillWrite", "SeqWrite", "RndMix"] {
            let path = out.path().join(format!("vnet1-{pattern}-workload"));
            assert!(!check_file(&path, &[]).unwrap().runs.is_empty());
        }
        let corpus =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad-input/jobfile/vdbench");
        let error = check_file(&corpus.join("10-remote-shell-telnet.vdb"), &[])
            .err()
            .expect("refused");
        assert!(error.is_bad_input());
        assert!(
            error.to_string().contains("10-remote-shell-telnet.vdb:1:"),
            "{error}"
        );
    }
}
