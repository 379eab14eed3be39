//! The demo: the method's loop on embedded defaults, one step after another:
//! 1. profile the shipped iostat capture of an example database server into requirements
//!    (data and log volumes apart);
//! 2. plan the cheapest designs for them; 3. predict the top design with a warm cache;
//! 4. a short real run of the planned workload per volume on a temp directory;
//! 5. compare what was measured against the requirements;
//! 6. one self-contained HTML report of it all.
//!
//! Each step is its own function taking what the earlier steps produced. The real run is on
//! this machine's temp directory, not on the planned Azure design, so a failed comparison is
//! information, not an error.

use crate::error::shown;
use crate::execute::{first_job_error, Executor};
use crate::inputs::{assumptions_for, rows_for};
use crate::observer::{Event, Observer};
use crate::ProcedureError;
use iofit_catalog::Catalog;
use iofit_engine::EngineError;
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::{group_thousands, Bytes, GiB, Seconds};
use iofit_model::Requirements;
use iofit_planner::{Plan, PlanOptions};
use iofit_predict::Prediction;
use iofit_report::compare::{self, CompareContext, Comparison, JobSelection};
use iofit_report::html::{HtmlReport, Table};
use iofit_report::summary::{self, Summary, SummaryVerdict};
use iofit_stats::RunResult;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the demo does.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Catalog edition of the plan and the prediction.
    pub edition: String,
    /// How many designs the plan step shows.
    pub top: usize,
    /// The real run; `None` skips it and the comparison.
    pub run: Option<DemoRunOptions>,
}

/// The real run's settings.
#[derive(Clone, Copy, Debug)]
pub struct DemoRunOptions {
    /// Seconds per volume.
    pub seconds: Seconds,
    /// `IoUring` (psync when io_uring cannot be set up here) or `Psync`.
    pub engine: EngineKind,
}

/// The longest real run per volume.
pub const MAX_RUN_SECONDS: f64 = 600.0;
/// The most designs the plan step shows.
pub const MAX_TOP: usize = 100;

impl DemoOptions {
    /// Every number in range, each error naming its flag and the allowed range.
    pub fn validate(&self) -> Result<(), ProcedureError> {
        if !(1..=MAX_TOP).contains(&self.top) {
            return Err(ProcedureError::BadInput(format!(
                "--top {}: write a whole number 1..{MAX_TOP}",
                self.top
            )));
        }
        if let Some(run) = &self.run {
            let seconds = run.seconds.get();
            if !(seconds > 0.0 && seconds <= MAX_RUN_SECONDS) {
                return Err(ProcedureError::BadInput(format!(
                    "--runtime {}: write a number of seconds above 0 and at most {MAX_RUN_SECONDS}, e.g. 1.5",
                    shown(seconds)
                )));
            }
            if !matches!(run.engine, EngineKind::IoUring | EngineKind::Psync) {
                return Err(ProcedureError::BadInput(format!(
                    "--engine {}: the demo runs io_uring or psync",
                    run.engine.fio_name()
                )));
            }
        }
        Ok(())
    }
}

/// Everything the demo found, step by step (also its `--json` form).
#[derive(Debug, Serialize)]
pub struct DemoReport {
    pub edition: String,
    pub requirements: Requirements,
    pub plan: Plan,
    /// The top design under a warm cache (the plan sized it for a cold one).
    pub prediction: Option<Prediction>,
    /// The real run on this machine, when it ran.
    pub run: Option<DemoRun>,
    /// Measured against each volume's requirements.
    pub comparisons: Vec<Comparison>,
    pub report_path: Option<PathBuf>,
    /// How many iostat reports the profiled capture holds.
    #[serde(skip)]
    pub captured_reports: usize,
    /// Design #1's volumes on the next cheaper VM: the report draws its limits beside design
    /// #1's over the capture.
    #[serde(skip)]
    pub next_cheaper: Option<iofit_planner::CheaperDesign>,
}

/// How the real run ran, and what it measured.
#[derive(Debug, Serialize)]
pub struct DemoRun {
    pub directory: PathBuf,
    /// The engine that ran (io_uring, or psync when io_uring could not be set up).
    pub engine: String,
    pub engine_note: Option<String>,
    pub direct: bool,
    pub direct_note: String,
    /// One line per volume: what workload ran for it.
    pub workloads: Vec<String>,
    pub result: RunResult,
}

/// The capture's sizing: Azure Migrate's way (peak of each 10-minute window, p95, comfort 1.3).
const WINDOW_S: f64 = 600.0;

/// Runs every step; `probe` says whether io_uring can be set up here (the engine's own
/// [`iofit_engine::uring::UringEngine::probe`] in the binary, a stand-in in tests).
pub fn run_demo(
    catalog: &Catalog,
    options: &DemoOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
    probe: &dyn Fn() -> Result<(), EngineError>,
) -> Result<DemoReport, ProcedureError> {
    options.validate()?;
    let (requirements, captured_reports) = step_profile()?;
    let plan = step_plan(&requirements, catalog, &options.edition, options.top)?;
    let next_cheaper = iofit_planner::next_cheaper_design(
        &plan,
        &requirements,
        &default_rows(catalog, &options.edition, &requirements)?.0,
    );
    let prediction = step_predict(&requirements, &plan, catalog, &options.edition)?;
    let run = match &options.run {
        Some(run) => {
            observer.event(&Event::DemoRun {
                seconds_per_volume: run.seconds.get(),
            });
            Some(step_run(
                &requirements,
                &plan,
                run,
                executor,
                observer,
                probe,
            )?)
        }
        None => None,
    };
    let comparisons = match &run {
        Some(run) => step_compare(&requirements, run)?,
        None => Vec::new(),
    };
    Ok(DemoReport {
        edition: options.edition.clone(),
        requirements,
        plan,
        prediction,
        run,
        comparisons,
        report_path: None,
        captured_reports,
        next_cheaper,
    })
}

/// Step 1: profile the shipped iostat capture of the example database server (sdb data files,
/// sdc the log) into requirements.
pub fn step_profile() -> Result<(Requirements, usize), ProcedureError> {
    let internal = |what: &str, e: &dyn std::fmt::Display| {
        ProcedureError::Internal(format!("{what} the embedded example capture: {e}"))
    };
    let capture =
        iofit_profile::example::db_server_capture().map_err(|e| internal("parsing", &e))?;
    let options = iofit_profile::SizingOptions {
        volumes: iofit_profile::example::db_server_volumes(),
        window_s: Some(Seconds(WINDOW_S)),
        ..Default::default()
    };
    let mut requirements =
        iofit_profile::requirements(&capture, &options).map_err(|e| internal("sizing", &e))?;
    for volume in &mut requirements.volumes {
        let capacity = iofit_profile::example::DB_SERVER_CAPACITY_GIB
            .iter()
            .find(|(label, _)| *label == volume.label);
        if let Some((_, capacity_gib)) = capacity {
            volume.sizing.capacity_gib = Some(GiB(*capacity_gib));
            // The profile's own line says capacity is missing from IO counters; it is now given.
            volume
                .derivation
                .retain(|line| !line.starts_with("capacity_gib:"));
            volume.derivation.push(format!(
                "capacity_gib {capacity_gib} = the example server's volume size (df -h), added by hand as the method asks"
            ));
        }
    }
    requirements
        .validate()
        .map_err(|e| internal("validating the requirements of", &e))?;
    Ok((requirements, capture.reports()))
}

/// Step 2: plan designs for them from the catalog.
pub fn step_plan(
    requirements: &Requirements,
    catalog: &Catalog,
    edition: &str,
    top: usize,
) -> Result<Plan, ProcedureError> {
    let options = PlanOptions {
        top: top.max(1),
        assumptions: assumptions_for(edition, None, 0.0)?,
        ..PlanOptions::default()
    };
    let (rows, notes) = default_rows(catalog, edition, requirements)?;
    let mut plan = iofit_planner::plan(requirements, &rows, &options)
        .map_err(|e| ProcedureError::BadInput(e.to_string()))?;
    plan.notes
        .extend(notes.into_iter().map(iofit_planner::PlanNote::VmFilter));
    Ok(plan)
}

/// The rows `iofit plan` uses without filter flags: the sizes Azure retires within the plan's
/// horizon left out (and x64 only for a PerfMon capture), with the notes saying so.
fn default_rows(
    catalog: &Catalog,
    edition: &str,
    requirements: &Requirements,
) -> Result<(iofit_planner::CatalogRows, Vec<String>), ProcedureError> {
    let mut rows = rows_for(catalog, edition);
    let notes = crate::vm_filters::apply(
        &mut rows.vms,
        &Default::default(),
        requirements.source.starts_with("PerfMon"),
        &crate::vm_filters::today(),
        "--",
    )?;
    Ok((rows, notes))
}

/// Step 3: predict the top design with a warm host cache: what it delivers and what binds.
pub fn step_predict(
    requirements: &Requirements,
    plan: &Plan,
    catalog: &Catalog,
    edition: &str,
) -> Result<Option<Prediction>, ProcedureError> {
    let Some(best) = plan.designs.first() else {
        return Ok(None);
    };
    let vm = catalog
        .vm(&best.vm, edition)
        .map_err(|e| ProcedureError::BadInput(e.to_string()))?;
    let loads = best.volume_loads(requirements);
    let assumptions = assumptions_for(edition, None, 100.0)?;
    iofit_predict::predict(vm, &loads, &assumptions, None)
        .map(Some)
        .map_err(|e| ProcedureError::BadInput(e.to_string()))
}

/// File size per volume: a few MiB, enough for a couple of seconds of IO.
const DATA_FILE: Bytes = Bytes(16 << 20);
const LOG_FILE: Bytes = Bytes(8 << 20);
/// Outstanding IOs cap for the run: the plan may ask for hundreds on a big stripe; a temp
/// directory gains nothing beyond this.
const MAX_OUTSTANDING: u32 = 64;

/// The engine the run uses: io_uring when asked for and it can be set up here, else psync with
/// a note saying why. Decided by the engine's typed setup error, not by its words.
pub fn choose_engine(
    requested: EngineKind,
    probe: &dyn Fn() -> Result<(), EngineError>,
) -> Result<(EngineKind, Option<String>), ProcedureError> {
    match requested {
        EngineKind::IoUring => match probe() {
            Ok(()) => Ok((EngineKind::IoUring, None)),
            Err(EngineError::Setup { message, .. }) => Ok((
                EngineKind::Psync,
                Some(format!(
                    "io_uring could not be set up here ({message}); ran psync with one thread per outstanding IO"
                )),
            )),
            Err(other) => Err(ProcedureError::Engine {
                label: "the demo's run".into(),
                source: other,
            }),
        },
        EngineKind::Psync => Ok((
            EngineKind::Psync,
            Some("--engine psync: one thread per outstanding IO".to_string()),
        )),
        other => Err(ProcedureError::BadInput(format!(
            "--engine {}: the demo runs io_uring or psync",
            other.fio_name()
        ))),
    }
}

/// The planned workload of each volume as a job on a file in `dir`: the mode from its read
/// and random shares ([`RwMode::from_mix`]), its IO size and the planned outstanding IOs. The
/// volumes run one after the other (stonewall), each measured on its own.
pub fn demo_jobs(
    requirements: &Requirements,
    plan: &Plan,
    dir: &Path,
    engine: EngineKind,
    direct: bool,
    runtime: Duration,
) -> (Vec<JobSpec>, Vec<String>) {
    let mut jobs = Vec::new();
    let mut lines = Vec::new();
    for (index, volume) in requirements.volumes.iter().enumerate() {
        let sizing = &volume.sizing;
        let planned = plan
            .designs
            .first()
            .and_then(|d| d.volumes.iter().find(|v| v.label == volume.label));
        let outstanding = planned
            .map(|v| v.queue_depth_total)
            .or(sizing
                .queue_depth
                .map(|q| q.ceil().min(f64::from(MAX_OUTSTANDING)) as u32))
            .unwrap_or(1)
            .clamp(1, MAX_OUTSTANDING);
        let rw = RwMode::from_mix(sizing.read_pct, sizing.random_pct >= 50.0);
        // Direct IO needs whole sectors; 4 KiB multiples suit every device (the nearest one
        // stays within compare's 10% IO-size tolerance for sizes of 4 KiB and up).
        let io_size =
            Bytes(((sizing.io_size_bytes.as_f64() / 4096.0).round() as u64).max(1) * 4096);
        let log = volume.role == iofit_model::VolumeRole::Log;
        let file_size = if log { LOG_FILE } else { DATA_FILE };
        let mut job = JobSpec::new(
            volume.label.clone(),
            Target::Files(vec![dir.join(format!("{}.dat", volume.label))]),
        )
        .with_rw(rw);
        job.rwmix_read_pct = match (rw.has_reads(), rw.has_writes()) {
            (true, true) => sizing.read_pct,
            (true, false) => 100.0,
            _ => 0.0,
        };
        job.block_size = BlockSizeSpec::fixed(io_size);
        job.direct = direct;
        job.size = Some(SizeSpec::Bytes(file_size));
        job.runtime = Some(runtime);
        job.time_based = true;
        job.group_id = index as u32;
        job.stonewall = index > 0;
        job.group_reporting = true;
        // Quarter-second samples: a run of a second or two still draws a curve over time.
        job.log_interval = Duration::from_millis(250);
        job.engine = engine;
        if engine == EngineKind::IoUring {
            job.iodepth = outstanding;
            job.numjobs = 1;
        } else {
            // A synchronous engine keeps one IO per thread: threads carry the queue depth.
            job.iodepth = 1;
            job.numjobs = outstanding.min(16);
        }
        let what = match rw {
            RwMode::RandRw | RwMode::ReadWrite => {
                format!("{}, {:.0}% reads", rw_words(rw), sizing.read_pct)
            }
            other => rw_words(other).to_string(),
        };
        // Direct IO moves whole 4 KiB blocks: the mean IO size rounded, and said so.
        let size_words = if io_size == sizing.io_size_bytes {
            format!("{} IO", io_size.readable())
        } else {
            format!(
                "{} IO (the {} mean rounded to 4 KiB blocks for direct IO)",
                io_size.readable(),
                sizing.io_size_bytes.readable()
            )
        };
        lines.push(format!(
            "{}: {what}, {size_words}, {} outstanding ({}), {} file, {:.1}s",
            volume.label,
            job.iodepth * job.numjobs,
            if planned.is_some() {
                "the plan's queue depth"
            } else {
                "the observed queue depth"
            },
            file_size.readable(),
            runtime.as_secs_f64()
        ));
        jobs.push(job);
    }
    (jobs, lines)
}

fn rw_words(rw: RwMode) -> &'static str {
    match rw {
        RwMode::Read => "sequential reads",
        RwMode::Write => "sequential writes",
        RwMode::RandRead => "random reads",
        RwMode::RandWrite => "random writes",
        RwMode::ReadWrite => "sequential mixed",
        RwMode::RandRw => "random mixed",
        RwMode::Trim => "sequential trims",
        RwMode::RandTrim => "random trims",
        RwMode::TrimWrite => "sequential trims, each followed by a write",
        RwMode::RandTrimWrite => "random trims, each followed by a write",
    }
}

/// The demo's run directory: a new private directory in the temp directory (safefs's
/// scratch: random name, 0700), removed with its files when the demo ends.
struct RunDir(iofit_safefs::scratch::Scratch);

impl RunDir {
    fn create() -> Result<RunDir, ProcedureError> {
        let base = std::env::temp_dir();
        iofit_safefs::scratch::Scratch::create(&base, "iofit-demo-run")
            .map(RunDir)
            .map_err(ProcedureError::from)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }
}

/// Whether O_DIRECT works in `dir` (tmpfs, for one, refuses it): safefs's probe.
fn direct_io_works(dir: &Path) -> std::io::Result<()> {
    iofit_safefs::scratch::direct_io_works(dir)
}

/// Step 4: a short real run of the planned workload per volume on the engine
/// [`choose_engine`] picks, direct IO when the temp file system takes it.
pub fn step_run(
    requirements: &Requirements,
    plan: &Plan,
    options: &DemoRunOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
    probe: &dyn Fn() -> Result<(), EngineError>,
) -> Result<DemoRun, ProcedureError> {
    let dir = RunDir::create()?;
    let runtime = options.seconds.to_duration();
    let (direct, direct_note) = match direct_io_works(dir.path()) {
        Ok(()) => (
            true,
            "direct IO (O_DIRECT): the temp file system supports it".to_string(),
        ),
        Err(why) => (
            false,
            format!(
                "buffered IO: the temp file system refuses O_DIRECT ({why}), so the page cache serves part of it"
            ),
        ),
    };
    let (engine, engine_note) = choose_engine(options.engine, probe)?;
    let (jobs, workloads) = demo_jobs(requirements, plan, dir.path(), engine, direct, runtime);
    let label = "the demo's run";
    let result = executor.execute(&jobs, label, observer)?;
    first_job_error(&result, label)?;
    Ok(DemoRun {
        directory: dir.path().to_path_buf(),
        engine: engine.fio_name().to_string(),
        engine_note,
        direct,
        direct_note,
        workloads,
        result,
    })
}

/// Step 5: each volume's measurements against its requirements.
pub fn step_compare(
    requirements: &Requirements,
    run: &DemoRun,
) -> Result<Vec<Comparison>, ProcedureError> {
    let mut comparisons = Vec::new();
    for (index, volume) in requirements.volumes.iter().enumerate() {
        let selection = JobSelection {
            group: Some(index as u32),
            names: Vec::new(),
        };
        let jobs = compare::select_jobs(&run.result, &selection).map_err(|e| {
            ProcedureError::Internal(format!("the demo's run has no group {index}: {e}"))
        })?;
        let context = CompareContext {
            design: Some(format!(
                "this machine's temp directory ({}, {}), not the planned Azure design",
                run.engine,
                if run.direct {
                    "direct IO"
                } else {
                    "buffered IO"
                }
            )),
            ..Default::default()
        };
        comparisons.push(compare::compare(
            &jobs,
            volume,
            &context,
            "the demo's run on the temp directory",
            &requirements.source,
        ));
    }
    Ok(comparisons)
}

const NOT_THE_DESIGN: &str = "The run used this machine's temp directory, not the planned Azure \
     design: a laptop or VM disk has other limits than the planned VM and disks, so a failed \
     check here is expected information, not an error. Run the same workload on the built \
     design (iofit run) and compare that (iofit compare) to judge it.";

/// Step 6: the HTML report, from what the steps produced.
/// Per volume, the example capture's IOPS, MB/s, latency and queue depth over its two hours
/// with the sized figures, design #1's limits (the plan's design, sized for a cold cache) and
/// those of the next cheaper VM across them.
fn workload_over_time(html: HtmlReport, report: &DemoReport) -> HtmlReport {
    let Ok(capture) = iofit_profile::example::db_server_capture() else {
        return html;
    };
    iofit_report::workload_chart::capture_charts(
        html,
        &crate::workload::captured_volumes(&capture, &report.requirements),
        &report.requirements,
        "p95 of 10-minute peaks x 1.3",
        Some(&report.plan),
        report.next_cheaper.as_ref(),
    )
}

/// The demo's answer card: design #1 as the plan sized it (cold cache), its cost and price
/// basis, its binding limit cold and warm, the verdict of the run, and what to do next.
fn summary(report: &DemoReport, tables: &[&iofit_catalog::TableInfo]) -> Summary {
    let mut summary = Summary::for_plan(&report.plan, tables);
    let cached = report
        .plan
        .designs
        .first()
        .is_some_and(|d| d.volumes.iter().any(|v| v.caching.is_cached()));
    if cached {
        summary.binding_warm = report.prediction.as_ref().and_then(summary::binding_line);
    }
    if let Some(verdict) = summary::verdict_of(&report.comparisons) {
        summary.verdict = Some(SummaryVerdict {
            words: format!(
                "{} (the short run on this machine's temp directory, not on the design)",
                verdict.words
            ),
            ..verdict
        });
    }
    if !report.plan.designs.is_empty() {
        summary.next = vec![
            "Profile your own server: iofit profile CAPTURE -o req.toml (iostat -x, sar,              PerfMon, Azure Monitor)."
                .into(),
            "Plan for it: iofit plan --requirements req.toml --report plan.html.".into(),
            "Build design #1, run the workload on it (iofit run) and judge it (iofit compare              results.json --requirements req.toml)."
                .into(),
        ];
    }
    summary
}

/// Where the demo writes its report and from which catalog: `iofit demo`'s flags.
#[derive(Clone, Debug)]
pub struct DemoRequest {
    pub options: DemoOptions,
    /// `--catalog` files added to the edition's tables.
    pub catalog_files: Vec<PathBuf>,
    /// `--report FILE` [default: report.html in iofit's own temp directory].
    pub report: Option<PathBuf>,
    pub allow_overwrite: bool,
}

/// The demo's report and what it prints.
#[derive(Debug)]
pub struct DemoOutcome {
    pub report: DemoReport,
    pub text: String,
}

/// The default report: report.html in `iofit-demo` under the temp directory, a directory of
/// this user that no one else writes in.
fn default_report_path() -> Result<PathBuf, ProcedureError> {
    let dir = std::env::temp_dir().join("iofit-demo");
    let dir = iofit_safefs::scratch::own_dir(&dir)
        .map_err(|source| ProcedureError::DemoDirectory { path: dir, source })?;
    Ok(dir.join("report.html"))
}

/// [`run_demo`] with its report: the path checked before any work, the HTML written whole.
pub fn run_demo_to(
    request: &DemoRequest,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
    probe: &dyn Fn() -> Result<(), EngineError>,
) -> Result<DemoOutcome, ProcedureError> {
    let options = &request.options;
    options.validate()?;
    let report_path = match &request.report {
        Some(path) => path.clone(),
        None => default_report_path()?,
    };
    // The default report lives in iofit's own directory (checked above to be a real directory
    // of this user that no one else writes in), so an earlier demo's report there is replaced
    // even when an older iofit wrote it without a stamp; a --report FILE follows the one rule.
    let allow = request.report.is_none() || request.allow_overwrite;
    iofit_safefs::guard::check_output_allowing(&report_path, &[], "--report", allow)?;
    let catalog = crate::plan::load_catalog(&options.edition, &request.catalog_files)?;
    let mut report = run_demo(&catalog, options, executor, observer, probe)?;
    let tables: Vec<_> = catalog.tables_in(&options.edition).collect();
    crate::plan::write_report(
        &report_path,
        iofit_report::ReportFormat::Html,
        &html_report(&report, &tables),
    )?;
    report.report_path = Some(report_path);
    let text = render_text(&report, &tables);
    Ok(DemoOutcome { report, text })
}

/// Step 6: the HTML report; `tables` are the catalog tables of the edition (the price basis).
pub fn html_report(report: &DemoReport, tables: &[&iofit_catalog::TableInfo]) -> HtmlReport {
    let mut html = HtmlReport::new("iofit demo: an example database server, profiled to a verdict")
        .summary(summary(report, tables))
        .section(
            "The loop",
            format!(
                "1. Profile: the shipped iostat capture of an example database server ({}, {} \
                 reports of 10 s; sdb holds the data files, sdc the log) sized to requirements \
                 per volume.\n\n2. Plan the cheapest designs (catalog edition {}).\n\n3. Predict \
                 the top design with a warm host cache.\n\n4. A short real run of the planned \
                 workload per volume on a temp directory.\n\n5. Compare the run against the \
                 requirements.",
                iofit_profile::example::DB_SERVER_IOSTAT_NAME,
                report.captured_reports,
                report.edition
            ),
        )
        .requirements(&report.requirements);
    if report.plan.designs.is_empty() {
        html = html.section(
            "No design meets the requirements",
            report
                .plan
                .impossible
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n\n"),
        );
    } else {
        let mut table = Table::new(
            "Designs, cheapest first",
            &["#", "VM", "volumes", "total $/month", "binding limit"],
        )
        .sortable();
        for design in &report.plan.designs {
            let volumes: Vec<String> = design
                .volumes
                .iter()
                .map(|v| {
                    format!(
                        "{}: {} x {} ({}), {} outstanding IOs",
                        v.label, v.disk_count, v.disk_sku, v.caching, v.queue_depth_total
                    )
                })
                .collect();
            table = table.row(vec![
                design.rank.to_string(),
                design.vm.clone(),
                volumes.join("; "),
                iofit_report::plan_text::money(design.total_usd_month),
                iofit_report::plan_report::binding_name(&design.prediction),
            ]);
        }
        html = html.table(table);
    }
    html = workload_over_time(html, report);
    if let Some(prediction) = &report.prediction {
        let cached = report
            .plan
            .designs
            .first()
            .is_some_and(|d| d.volumes.iter().any(|v| v.caching.is_cached()));
        if cached {
            // The terminal's cold/warm story, in the report too: the plan and this prediction
            // look at one design under two caches.
            let differs = binding_differs(report, prediction);
            let mut body = vec![
                "The plan sized design #1 for a cold cache; the prediction below is the same                  design with a warm host cache."
                    .to_string(),
                summary::CACHE_STORY.to_string(),
            ];
            if !differs.is_empty() {
                let words = differs.trim().trim_start_matches('(').trim_end_matches(')');
                let mut chars = words.chars();
                let capitalised: String = chars
                    .next()
                    .map(|first| first.to_uppercase().chain(chars).collect())
                    .unwrap_or_default();
                body.push(format!("{capitalised}."));
            }
            html = html.section("Cold and warm cache", body.join("\n\n"));
        }
        html = html.prediction(prediction);
    }
    match &report.run {
        Some(run) => {
            let mut body = vec![
                format!(
                    "Engine: {}{}.",
                    run.engine,
                    run.engine_note
                        .as_deref()
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default()
                ),
                format!("{}.", run.direct_note),
            ];
            body.extend(run.workloads.iter().cloned());
            body.push(NOT_THE_DESIGN.to_string());
            html = html
                .section("The real run on this machine", body.join("\n\n"))
                .run_result(&run.result);
            for comparison in &report.comparisons {
                html = html.comparison(comparison);
            }
        }
        None => {
            html = html.section(
                "The real run",
                "Skipped (--no-run): no run, so no comparison.",
            );
        }
    }
    html
}

fn render_run(run: &DemoRun) -> String {
    let mut out = format!(
        "engine {}{}; {}\n",
        run.engine,
        run.engine_note
            .as_deref()
            .map(|n| format!(" ({n})"))
            .unwrap_or_default(),
        run.direct_note
    );
    for line in &run.workloads {
        out.push_str(&format!("  ran {line}\n"));
    }
    for job in &run.result.jobs {
        for (name, direction) in [("read", &job.read), ("write", &job.write)] {
            if direction.ios == 0 {
                continue;
            }
            let mean_ms = direction.total_latency.mean_ns.get() / 1e6;
            let p99_ms = direction
                .total_latency
                .percentile_ns(99.0)
                .map(|ns| format!("{:.3}", ns as f64 / 1e6))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!(
                "  {} {name}: {} IOPS, {:.1} MB/s, {} avg {mean_ms:.3} ms, p99 {p99_ms} ms\n",
                job.name,
                group_thousands(direction.iops.get()),
                direction.bandwidth_bytes_per_second / 1e6,
                iofit_report::compare::TOTAL_LATENCY_WORDS
            ));
        }
    }
    out.push_str(&format!(
        "  (files in {}, removed after the run)\n",
        run.directory.display()
    ));
    out
}

/// The demo's text: every step's output under its heading.
/// When the warm-cache prediction names another binding limit than the plan's cold-cache
/// design #1, one line saying why, so the two steps do not seem to disagree about one design.
fn binding_differs(report: &DemoReport, warm: &Prediction) -> String {
    let Some(design) = report.plan.designs.first() else {
        return String::new();
    };
    let cold = iofit_report::plan_report::binding_name(&design.prediction);
    let hot = iofit_report::plan_report::binding_name(warm);
    if cold == hot {
        return String::new();
    }
    format!(
        "(the plan names {cold} as the first limit to bind: it sizes for a cold cache, where \
         every read reaches the disks; with a warm cache the host cache serves the reads, so \
         {hot} binds first here, on the same design)\n"
    )
}

pub fn render_text(report: &DemoReport, tables: &[&iofit_catalog::TableInfo]) -> String {
    let mut text = String::from("iofit demo: the method's loop on an example database server\n\n");
    text.push_str("== step 1: profile (iostat capture of the example server -> requirements) ==\n");
    text.push_str(&checklist(report));
    text.push_str("\nrequirements the plan uses:\n");
    text.push_str(&iofit_report::plan_text::render_requirements(
        &report.requirements,
    ));
    text.push_str("\n== step 2: plan (cheapest designs that meet every requirement) ==\n");
    text.push_str(&iofit_report::plan_text::render(
        &report.plan,
        &report.edition,
        tables,
    ));
    text.push_str("\n== step 3: prediction for design #1 with a warm host cache ==\n");
    match &report.prediction {
        Some(prediction) => {
            text.push_str(&binding_differs(report, prediction));
            text.push_str(&iofit_report::predict_text::render(prediction));
        }
        None => text.push_str("no design to predict\n"),
    }
    text.push_str("\n== step 4: a short real run of the planned workload on this machine ==\n");
    match &report.run {
        Some(run) => text.push_str(&render_run(run)),
        None => text.push_str("skipped (--no-run)\n"),
    }
    text.push_str("\n== step 5: compare the run against the requirements ==\n");
    if report.run.is_some() {
        for comparison in &report.comparisons {
            text.push_str(&compare::render_text(comparison));
            text.push('\n');
        }
        text.push_str(&format!("note: {NOT_THE_DESIGN}\n"));
    } else {
        text.push_str("skipped (--no-run)\n");
    }
    if let Some(path) = &report.report_path {
        text.push_str(&format!(
            "\n== step 6: report ==\nwrote {}\n",
            path.display()
        ));
    }
    text
}

/// Step 1's text: the metric tables of the checklist, briefly.
fn checklist(report: &DemoReport) -> String {
    let title = format!(
        "{} ({} reports of 10 s; peaks of {:.0}-minute windows, sized at p95 x 1.3)",
        report.requirements.source,
        report.captured_reports,
        WINDOW_S / 60.0
    );
    let mut out = iofit_report::checklist::render(&report.requirements, &title, false);
    out.push_str(
        "(iofit profile FILE prints the whole checklist with how each number was derived)\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::execute::EngineExecutor;
    use crate::observer::Quiet;

    fn request(report: PathBuf, allow_overwrite: bool) -> DemoRequest {
        DemoRequest {
            options: DemoOptions {
                edition: iofit_catalog::EDITION_CURRENT.into(),
                top: 2,
                run: None,
            },
            catalog_files: Vec::new(),
            report: Some(report),
            allow_overwrite,
        }
    }

    #[test]
    fn the_demo_without_a_run_writes_its_report_and_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("demo.html");
        let mut executor = EngineExecutor::null_with_fake_clock(10_000);
        let outcome = run_demo_to(
            &request(path.clone(), false),
            &mut executor,
            &mut Quiet,
            &|| Ok(()),
        )
        .unwrap();
        assert_eq!(outcome.report.report_path.as_deref(), Some(path.as_path()));
        assert!(
            outcome.text.contains(&path.display().to_string()),
            "{}",
            outcome.text
        );
        let html = std::fs::read_to_string(&path).unwrap();
        assert!(html.contains("Skipped (--no-run)"));
        // A file iofit did not write is refused before any work, unless allowed.
        let foreign = dir.path().join("notes.html");
        std::fs::write(&foreign, "mine").unwrap();
        let error = run_demo_to(
            &request(foreign.clone(), false),
            &mut executor,
            &mut Quiet,
            &|| Ok(()),
        )
        .unwrap_err();
        assert!(
            error.is_bad_input() && error.to_string().contains("--report"),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "mine");
        let allowed = run_demo_to(&request(foreign, true), &mut executor, &mut Quiet, &|| {
            Ok(())
        });
        assert!(allowed.is_ok(), "{:?}", allowed.err());
    }
}
