//! Running vdbench parameter files: each expanded run (one per rd and for-loop value) runs
//! with all its (wd, sd) jobs at once, reported as one group, as a vdbench-style summary (interval
//! lines and an `avg` line); iofit's JSON is written after every run so an interrupted file keeps
//! what finished. `iorate=curve` runs max first, then each curve point as a fraction of the
//! measured max, and reports the latency-versus-IO-rate table with its knee.

use crate::error::shown;
use crate::execute::Executor;
use crate::observer::{Event, Observer};
use crate::so_far::SoFar;
pub use crate::vdbench_outcome::{
    CurveJson, FsPhaseJson, FsRunJson, Reports, RunJson, VdbenchJson, VdbenchOutcome,
};
use crate::ProcedureError;
use iofit_jobfile::vdbench::{self, FsRun, IoRate, Run};
use iofit_model::units::Bytes;
use iofit_report::vdbench_summary::{
    render_curve, render_run, AvgLine, Cpu, CurvePoint, RunHeader,
};
use iofit_safefs::atomic::write_atomic;
use iofit_stats::{JobResult, RunResult};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How a vdbench file runs: the command line's overrides.
#[derive(Clone, Debug)]
pub struct VdbenchOptions {
    /// Replaces every run's `elapsed=`.
    pub elapsed: Option<Duration>,
    /// Replaces every run's `warmup=`.
    pub warmup: Option<Duration>,
    /// Multiplies elapsed and warmup (after the overrides); 1.0 runs them as written.
    pub scale: f64,
    /// Replaces every SD's `size=` (the seed's 693g is not for a laptop).
    pub sd_size: Option<Bytes>,
    /// Where to write iofit's JSON of every run (after each one).
    pub json_output: Option<PathBuf>,
    /// `name=value` substitutions from the command line (`$name`/`!name` in the file).
    pub substitutions: Vec<String>,
    /// File system runs may use an anchor iofit did not create (`--allow-overwrite`).
    pub allow_overwrite: bool,
    /// Set on Ctrl-C: file system runs stop at once (raw runs stop through the executor).
    pub stop: Arc<AtomicBool>,
    /// Where to write vdbench's flatfile (tab-separated, vdbench's column names).
    pub flatfile: Option<PathBuf>,
    /// Replaces every run's `interval=` (vdbench's `-i`).
    pub interval: Option<Duration>,
    /// vdbench's `-v`: every run validates its data (validate=yes).
    pub validate: bool,
    /// vdbench's `-o DIR`: write summary.html, totals.html, flatfile.html... there after every
    /// run ([`crate::vdbench_output`]).
    pub output_dir: Option<PathBuf>,
    /// Where the results so far are kept renderable for a stop that cannot wait for the
    /// file's end ([`SoFar`]): the JSON document when `json_output` is set, else the running
    /// run's summary.
    pub so_far: Option<Arc<SoFar>>,
}

impl Default for VdbenchOptions {
    fn default() -> Self {
        VdbenchOptions {
            elapsed: None,
            warmup: None,
            scale: 1.0,
            sd_size: None,
            json_output: None,
            substitutions: Vec::new(),
            allow_overwrite: false,
            stop: Arc::new(AtomicBool::new(false)),
            flatfile: None,
            interval: None,
            validate: false,
            output_dir: None,
            so_far: None,
        }
    }
}

/// What one executed run measured.
pub struct RunOutcome {
    pub avg: AvgLine,
    /// The summary's header (start time, interval plan) the lines were numbered by.
    pub header: RunHeader,
    pub job: JobResult,
    pub text: String,
}

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
        observer.warning(&crate::observer::Warning::JobNote(note.clone()));
    }
}

/// What `--parse-only` shows: the runs, without looking at luns or anchors.
pub struct CheckedFile {
    pub runs: Vec<Run>,
    pub fs_runs: Vec<FsRun>,
    /// Data keys the file has that a run refuses (`journal=`...; `validate=`, `compratio=`
    /// and the dedup keys run).
    pub refused_data_keys: Vec<String>,
    pub notes: Vec<String>,
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
            run.avg_iops,
            run.avg_mib_per_s,
            run.avg_read_pct,
            run.avg_resp_ms
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
                total.mb_per_s,
                "-",
                total.resp_mean_ms
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

/// The command line's time overrides on a file system run.
pub(crate) fn adjust_fs(mut run: FsRun, options: &VdbenchOptions) -> Result<FsRun, ProcedureError> {
    if let Some(elapsed) = options.elapsed {
        run.elapsed = elapsed;
    }
    if let Some(warmup) = options.warmup {
        run.warmup = warmup;
    }
    run.elapsed = scaled(run.elapsed, options.scale, &run.rd, "elapsed")?;
    run.warmup = scaled(run.warmup, options.scale, &run.rd, "warmup")?;
    if run.elapsed.is_zero() {
        return Err(ProcedureError::bad_input(format!(
            "rd={}: elapsed is 0 after scaling; raise --scale or --elapsed",
            run.rd
        )));
    }
    Ok(run)
}

/// One file system run through `fswork`, reported per operation.
fn run_fs(
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
                    &format!("rd=format_for_{} ({:.1}s)", run.rd, format.seconds),
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
                measured.seconds
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
            measured.seconds,
        ));
        write_flatfile(outcome, options, true)?;
    }
    outcome.doc.fs_runs.push(json);
    write_output(outcome, options)?;
    write_json(&outcome.doc, options)
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
    let max_iops = max.avg.line.iops;
    let mut points = vec![CurvePoint {
        label: "max".into(),
        target_iops: None,
        iops: max_iops,
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
            target_iops: Some(target),
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
        max_iops,
        points: points
            .iter()
            .map(|p| (p.label.clone(), p.target_iops, p.iops, p.resp_ms))
            .collect(),
        knee: knee.map(|k| points[k].label.clone()),
    });
    write_json(&outcome.doc, options)
}

/// Applies the command line's overrides to a run.
pub fn adjust(mut run: Run, options: &VdbenchOptions) -> Result<Run, ProcedureError> {
    if let Some(elapsed) = options.elapsed {
        run.elapsed = elapsed;
    }
    if let Some(warmup) = options.warmup {
        run.warmup = warmup;
    }
    if let Some(interval) = options.interval.filter(|i| !i.is_zero()) {
        run.interval = interval;
    }
    if !(options.scale > 0.0 && options.scale <= MAX_SCALE) {
        return Err(ProcedureError::bad_input(format!(
            "--scale {}: write a number above 0 and at most {MAX_SCALE}",
            shown(options.scale)
        )));
    }
    run.elapsed = scaled(run.elapsed, options.scale, &run.rd, "elapsed")?;
    run.warmup = scaled(run.warmup, options.scale, &run.rd, "warmup")?;
    if run.elapsed.is_zero() {
        return Err(ProcedureError::bad_input(format!(
            "rd={}: elapsed is 0 after scaling; raise --scale or --elapsed",
            run.rd
        )));
    }
    if let Some(size) = options.sd_size {
        for w in &mut run.workloads {
            w.sd.size = Some(size);
        }
    }
    for w in &mut run.workloads {
        // range=/hitarea=/hotband= are shares of the lun: an existing file's size is known.
        if w.sd.size.is_none() {
            if let Ok(meta) = std::fs::metadata(&w.sd.lun) {
                if meta.is_file() && meta.len() > 0 {
                    w.sd.size = Some(Bytes(meta.len()));
                }
            }
        }
    }
    Ok(run)
}

/// The largest `--scale` a vdbench file takes (a year of 10-hour runs is far beyond any use).
pub const MAX_SCALE: f64 = 1e6;
/// The longest a run may last after scaling: about 31 years, far below `Duration`'s range.
const MAX_RUN_S: f64 = 1e9;

fn scaled(time: Duration, scale: f64, rd: &str, key: &str) -> Result<Duration, ProcedureError> {
    let seconds = time.as_secs_f64() * scale;
    if !(seconds.is_finite() && seconds <= MAX_RUN_S) {
        return Err(ProcedureError::bad_input(format!(
            "rd={rd}: {key} {seconds:e} s after --scale is beyond the {MAX_RUN_S:e} s a run may last; lower --scale or --{key}"
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Runs one run at `rate` (None: uncontrolled) and renders its summary.
pub fn execute(
    run: &Run,
    rate: Option<f64>,
    iorate_label: &str,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<RunOutcome, ProcedureError> {
    let jobs = run.to_jobs(rate);
    let started = std::time::SystemTime::now();
    let cpu = CpuSampler::start(run.interval);
    let result = executor.execute(&jobs, &format!("RD={}", run.rd), observer);
    let cpu = cpu.finish(run.interval_plan().total_intervals);
    let result = result?;
    // Every job of a run shares group 0 with group_reporting: one merged result.
    let job = result.jobs.first().cloned().ok_or_else(|| {
        ProcedureError::NothingMeasured(format!("rd={}: the run produced no result", run.rd))
    })?;
    let header = run_header(run, iorate_label, started);
    let (text, avg) = render_run(&header, &job.series, &cpu);
    Ok(RunOutcome {
        avg,
        header,
        job,
        text,
    })
}

/// The machine's CPU use, sampled from /proc/stat at every interval boundary while a run
/// runs (vdbench's `cpu% sys+u` and `cpu% sys` columns, which are the machine's too).
struct CpuSampler {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<Option<Cpu>>>>,
}

impl CpuSampler {
    fn start(interval: Duration) -> CpuSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let interval = interval.max(Duration::from_millis(10));
        let thread = std::thread::Builder::new()
            .name("vdbench-cpu".into())
            .spawn(move || {
                use iofit_fswork::interval::{cpu_between, cpu_ticks};
                let start = std::time::Instant::now();
                let mut before = cpu_ticks();
                let mut out = Vec::new();
                'intervals: for k in 1u32.. {
                    let boundary = start + interval * k;
                    loop {
                        if flag.load(Ordering::Relaxed) {
                            // The time since the last boundary: the CPU of the intervals the
                            // sampler did not see end (all of them on a fake clock).
                            let tail = cpu_between(before, cpu_ticks());
                            out.push(tail.map(|c| Cpu {
                                total_pct: c.total_pct,
                                sys_pct: c.sys_pct,
                            }));
                            break 'intervals;
                        }
                        let now = std::time::Instant::now();
                        if now >= boundary {
                            break;
                        }
                        std::thread::sleep((boundary - now).min(Duration::from_millis(50)));
                    }
                    let after = cpu_ticks();
                    out.push(cpu_between(before, after).map(|c| Cpu {
                        total_pct: c.total_pct,
                        sys_pct: c.sys_pct,
                    }));
                    before = after;
                }
                out
            })
            .ok();
        CpuSampler { stop, thread }
    }

    /// One value per interval of `intervals`: those the sampler saw end, then the last
    /// stretch's for the rest.
    fn finish(mut self, intervals: u64) -> Vec<Option<Cpu>> {
        self.stop.store(true, Ordering::Relaxed);
        let mut cpu: Vec<Option<Cpu>> = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let tail = cpu.last().copied().flatten();
        cpu.resize(intervals as usize, tail);
        cpu
    }
}

/// The summary's header of `run`, started at `started`.
fn run_header(run: &Run, iorate_label: &str, started: std::time::SystemTime) -> RunHeader {
    let start_unix_s = started
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0);
    vdbench_header(run, iorate_label, start_unix_s)
}

/// The summary's header of `run` started at `start_unix_s`, with vdbench's interval plan.
pub fn vdbench_header(run: &Run, iorate_label: &str, start_unix_s: f64) -> RunHeader {
    let plan = run.interval_plan();
    RunHeader {
        rd: run.rd.clone(),
        for_label: run.for_label.clone(),
        iorate_label: iorate_label.to_string(),
        elapsed_s: run.elapsed.as_secs_f64(),
        warmup_s: run.warmup.as_secs_f64(),
        interval_s: run.interval.as_secs_f64(),
        start_unix_s,
        warmup_intervals: plan.warmup_intervals,
        total_intervals: plan.total_intervals,
    }
}

/// Keeps the results so far renderable ([`SoFar`]): the JSON of the runs so far with the
/// running run's record (`running`: the run, its rate and label) from what it had measured
/// when a stop renders it; without `--output`, that run's summary.
fn keep_so_far(
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

/// vdbench's output directory (`-o`) with the runs so far.
fn write_output(outcome: &VdbenchOutcome, options: &VdbenchOptions) -> Result<(), ProcedureError> {
    match &options.output_dir {
        Some(dir) => crate::vdbench_output::write(dir, outcome),
        None => Ok(()),
    }
}

/// vdbench's flatfile of the runs so far (`--flatfile`), raw or file system columns.
fn write_flatfile(
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

/// The knee of a latency-versus-IO-rate curve (Kneedle): with IO rate and response time each
/// scaled to 0..1, the point furthest below the straight line from the lowest to the highest
/// point. Beyond it response time grows faster than the rate. Needs three distinct rates and a
/// response time that rises by more than 10% over the curve.
pub fn find_knee(points: &[CurvePoint]) -> Option<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].iops.total_cmp(&points[b].iops));
    if order.len() < 3 {
        return None;
    }
    let (x0, x1) = (points[order[0]].iops, points[*order.last()?].iops);
    let y0 = order
        .iter()
        .map(|&i| points[i].resp_ms)
        .fold(f64::INFINITY, f64::min);
    let y1 = order
        .iter()
        .map(|&i| points[i].resp_ms)
        .fold(f64::NEG_INFINITY, f64::max);
    // A latency that varies less than 10% over the curve has no knee in the measured range.
    if x1 - x0 <= 0.0 || y1 <= y0 * 1.1 {
        return None;
    }
    order
        .iter()
        .map(|&i| {
            let x = (points[i].iops - x0) / (x1 - x0);
            let y = (points[i].resp_ms - y0) / (y1 - y0);
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
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    /// Real IO: these tests check what vdbench's parameters do on a real file.
    fn real() -> EngineExecutor {
        EngineExecutor::new(false, Arc::new(AtomicBool::new(false)))
    }

    fn point(iops: f64, resp_ms: f64) -> CurvePoint {
        CurvePoint {
            label: format!("{iops}"),
            target_iops: Some(iops),
            iops,
            resp_ms,
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

    #[test]
    fn overrides_apply_and_scale() {
        let file = iofit_jobfile::vdbench::parse_str(
            "sd=sd1,lun=/tmp/x,size=693g\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=600,warmup=60\n",
            "t",
        )
        .unwrap();
        let run = file.runs().unwrap().remove(0);
        let common = VdbenchOptions {
            scale: 0.01,
            sd_size: Some(Bytes::mib(8)),
            ..Default::default()
        };
        let run = adjust(run, &common).unwrap();
        assert_eq!(run.elapsed, Duration::from_secs(6));
        assert_eq!(run.warmup, Duration::from_millis(600));
        assert_eq!(run.workloads[0].sd.size, Some(Bytes::mib(8)));
        // vdbench runs warmup= before elapsed=: a warmup longer than elapsed is allowed.
        let long_warmup = VdbenchOptions {
            warmup: Some(Duration::from_secs(700)),
            ..Default::default()
        };
        let run = adjust(file.runs().unwrap().remove(0), &long_warmup).unwrap();
        assert_eq!(run.interval_plan().runtime(), Duration::from_secs(1300));
        let bad = VdbenchOptions {
            scale: 0.0,
            ..Default::default()
        };
        assert!(adjust(file.runs().unwrap().remove(0), &bad).is_err());
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
    fn summary_has_avg_line_and_iorate_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let param = dir.path().join("capped.vdb");
        std::fs::write(
            &param,
            format!(
                "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=r,wd=w,iorate=400,elapsed=2,interval=1,threads=4\n",
                dir.path().display()
            ),
        )
        .unwrap();
        let file = vdbench::parse_file(&param).unwrap();
        let run = file.runs().unwrap().remove(0);
        let outcome = execute(&run, Some(400.0), "400", &mut real(), &mut Quiet).unwrap();
        let avg_lines: Vec<&str> = outcome
            .text
            .lines()
            .filter(|l| l.contains("avg_"))
            .collect();
        assert_eq!(avg_lines.len(), 1, "{}", outcome.text);
        assert!(outcome.text.contains("Starting RD=r; I/O rate: 400"));
        assert!(
            outcome
                .text
                .lines()
                .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
                .count()
                >= 2
        );
        // iorate=400 is the run's total, split over 4 threads: within 5%. (A mixed rdpct caps
        // each direction separately, as fio's rate_iops does, and lands a few % lower.)
        assert!(
            (outcome.avg.line.iops - 400.0).abs() <= 20.0,
            "{}",
            outcome.avg.line.iops
        );
        assert_eq!(outcome.job.clones, 4);
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
