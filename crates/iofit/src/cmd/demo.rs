//! `iofit demo`: the method's loop on embedded defaults, one step after another:
//! 1. profile the shipped iostat capture of an example database server into requirements
//!    (data and log volumes apart);
//! 2. plan the cheapest designs for them; 3. predict the top design with a warm cache;
//! 4. a short real run of the planned workload per volume on a temp directory;
//! 5. compare what was measured against the requirements;
//! 6. one self-contained HTML report of it all.
//!
//! Each step is its own function taking what the earlier steps produced. The real run is on
//! this machine's temp directory, not on the planned Azure design, so a failed comparison is
//! information, not an error: the demo exits 0 when every step ran.

use super::plan::{
    assumptions_for, emit, load_catalog, rows_for, tables_of, write_report, ReportFormat,
};
use crate::exit::bad_input;
use anyhow::Context;
use iofit_catalog::{Catalog, EDITION_CURRENT};
use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::requirements::Percentiles;
use iofit_model::units::{group_thousands, Bytes};
use iofit_model::Requirements;
use iofit_planner::{Plan, PlanOptions};
use iofit_predict::Prediction;
use iofit_report::compare::{self, CompareContext, Comparison, JobSelection};
use iofit_report::html::{HtmlReport, Table};
use iofit_stats::RunResult;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Catalog edition: current (default) or seed-2016.
    #[arg(long, default_value = EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Vec<PathBuf>,
    /// How many designs the plan step shows.
    #[arg(long, default_value_t = 3)]
    pub top: usize,
    /// Print only JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Skip the real run and the comparison (every other step is deterministic).
    #[arg(long)]
    pub no_run: bool,
    /// Seconds the real run takes per volume.
    #[arg(long, default_value_t = 1.5, value_name = "SECONDS")]
    pub run_seconds: f64,
    /// IO engine of the real run: io_uring (falls back to psync when io_uring cannot be set
    /// up here) or psync.
    #[arg(long, value_enum, default_value_t = DemoEngine::IoUring)]
    pub engine: DemoEngine,
    /// Where to write the HTML report (default: <temp dir>/iofit-demo/report.html).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DemoEngine {
    IoUring,
    Psync,
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

/// Step 1: profile the shipped iostat capture of the example database server (sdb data files,
/// sdc the log) into requirements.
pub fn step_profile() -> anyhow::Result<(Requirements, usize)> {
    let capture = iofit_profile::example::db_server_capture()
        .context("parsing the embedded example capture")?;
    let options = iofit_profile::SizingOptions {
        volumes: iofit_profile::example::db_server_volumes(),
        window_s: Some(WINDOW_S),
        ..Default::default()
    };
    let mut requirements = iofit_profile::requirements(&capture, &options)
        .context("sizing the embedded example capture")?;
    for volume in &mut requirements.volumes {
        let capacity = iofit_profile::example::DB_SERVER_CAPACITY_GIB
            .iter()
            .find(|(label, _)| *label == volume.label);
        if let Some((_, capacity_gib)) = capacity {
            volume.sizing.capacity_gib = Some(*capacity_gib);
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
        .map_err(|e| anyhow::anyhow!("internal: the example requirements do not validate: {e}"))?;
    Ok((requirements, capture.reports()))
}

/// Step 2: plan designs for them from the catalog.
pub fn step_plan(
    requirements: &Requirements,
    catalog: &Catalog,
    edition: &str,
    top: usize,
) -> anyhow::Result<Plan> {
    let options = PlanOptions {
        top: top.max(1),
        assumptions: assumptions_for(edition, None, 0.0)?,
        ..PlanOptions::default()
    };
    iofit_planner::plan(requirements, &rows_for(catalog, edition), &options).map_err(bad_input)
}

/// Step 3: predict the top design with a warm host cache: what it delivers and what binds.
pub fn step_predict(
    requirements: &Requirements,
    plan: &Plan,
    catalog: &Catalog,
    edition: &str,
) -> anyhow::Result<Option<Prediction>> {
    let Some(best) = plan.designs.first() else {
        return Ok(None);
    };
    let vm = catalog.vm(&best.vm, edition).map_err(bad_input)?;
    let loads = best.volume_loads(requirements);
    let assumptions = assumptions_for(edition, None, 100.0)?;
    let prediction = iofit_predict::predict(vm, &loads, &assumptions, None).map_err(bad_input)?;
    Ok(Some(prediction))
}

/// File size per volume: a few MiB, enough for a couple of seconds of IO.
const DATA_FILE: Bytes = Bytes(16 << 20);
const LOG_FILE: Bytes = Bytes(8 << 20);
/// Outstanding IOs cap for the run: the plan may ask for hundreds on a big stripe; a temp
/// directory gains nothing beyond this.
const MAX_OUTSTANDING: u32 = 64;

/// Whether O_DIRECT works in `dir` (tmpfs, for one, refuses it): open a probe file with it
/// and write one aligned block.
fn direct_io_works(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join(".iofit-direct-probe");
    let outcome = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_DIRECT)
            .open(&probe)?;
        let layout = std::alloc::Layout::from_size_align(4096, 4096).expect("static layout");
        // SAFETY: a non-zero-sized layout; the buffer is freed below on every path.
        let buffer = unsafe { std::alloc::alloc_zeroed(layout) };
        if buffer.is_null() {
            return Err(std::io::Error::other("out of memory"));
        }
        // SAFETY: `buffer` points to 4096 initialised (zeroed) bytes.
        let slice = unsafe { std::slice::from_raw_parts(buffer, 4096) };
        let written = std::io::Write::write_all(&mut file, slice);
        // SAFETY: allocated above with this layout.
        unsafe { std::alloc::dealloc(buffer, layout) };
        written
    })();
    let _ = std::fs::remove_file(&probe);
    outcome.map_err(|e| e.to_string())
}

/// The planned workload of each volume as a job on a file in `dir`: the data volume random at
/// its read share, the log sequential writes, each at its IO size and the planned outstanding
/// IOs. The volumes run one after the other (stonewall), each measured on its own.
fn demo_jobs(
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
            .or(sizing.queue_depth.map(|q| q.ceil() as u32))
            .unwrap_or(1)
            .clamp(1, MAX_OUTSTANDING);
        let log = volume.role == iofit_model::VolumeRole::Log;
        let rw = if log || sizing.read_pct <= 0.0 {
            if sizing.random_pct >= 50.0 {
                RwMode::RandWrite
            } else {
                RwMode::Write
            }
        } else if sizing.read_pct >= 100.0 {
            RwMode::RandRead
        } else {
            RwMode::RandRw
        };
        // Direct IO needs whole sectors; 4 KiB multiples suit every device (the nearest one
        // stays within compare's 10% IO-size tolerance for sizes of 4 KiB and up).
        let io_size = Bytes(((sizing.io_size_bytes as f64 / 4096.0).round() as u64).max(1) * 4096);
        let file_size = if log { LOG_FILE } else { DATA_FILE };
        let mut job = JobSpec::new(
            volume.label.clone(),
            Target::Files(vec![dir.join(format!("{}.dat", volume.label))]),
        )
        .with_rw(rw);
        job.rwmix_read_pct = match rw {
            RwMode::Write | RwMode::RandWrite => 0.0,
            RwMode::RandRead => 100.0,
            _ => sizing.read_pct,
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
            RwMode::RandRw => format!("random mixed, {:.0}% reads", sizing.read_pct),
            other => rw_words(other).to_string(),
        };
        lines.push(format!(
            "{}: {what}, {} IO, {} outstanding ({}), {} file, {:.1}s",
            volume.label,
            io_size,
            if engine == EngineKind::IoUring {
                outstanding
            } else {
                job.numjobs
            },
            if planned.is_some() {
                "the plan's queue depth".to_string()
            } else {
                "the observed queue depth".to_string()
            },
            file_size,
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
    }
}

/// A directory of our own under the system temp dir; removed (with everything the run laid
/// out in it) when dropped.
struct RunDir(PathBuf);

impl RunDir {
    fn create() -> anyhow::Result<RunDir> {
        let base = std::env::temp_dir();
        for attempt in 0..100u32 {
            let path = base.join(format!("iofit-demo-run-{}-{attempt}", std::process::id()));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(RunDir(path)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(anyhow::Error::new(e)
                        .context(format!("cannot create a directory in {}", base.display())))
                }
            }
        }
        anyhow::bail!("cannot find a free directory name in {}", base.display())
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Step 4: a short real run of the planned workload per volume, io_uring (psync when io_uring
/// cannot be set up here), direct IO when the temp file system takes it.
pub fn step_run(
    requirements: &Requirements,
    plan: &Plan,
    seconds: f64,
    engine: DemoEngine,
) -> anyhow::Result<DemoRun> {
    let dir = RunDir::create()?;
    let runtime = Duration::from_secs_f64(seconds);
    let (direct, direct_note) = match direct_io_works(&dir.0) {
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
    let options = RunOptions::default();
    let (jobs, workloads) = demo_jobs(
        requirements,
        plan,
        &dir.0,
        EngineKind::IoUring,
        direct,
        runtime,
    );
    if engine == DemoEngine::Psync {
        let (jobs, workloads) = demo_jobs(
            requirements,
            plan,
            &dir.0,
            EngineKind::Psync,
            direct,
            runtime,
        );
        let report = run_jobs(&jobs, &options, &mut Silent).map_err(|e| {
            if e.is_bad_input() {
                bad_input(e)
            } else {
                anyhow::Error::new(e).context("the demo's run (psync) failed")
            }
        })?;
        return finish_run(
            dir,
            report.result,
            "psync",
            Some("--engine psync: one thread per outstanding IO".to_string()),
            (direct, direct_note),
            workloads,
        );
    }
    let first = run_jobs(&jobs, &options, &mut Silent);
    let uring_failure = match &first {
        Err(e) if !e.is_bad_input() => Some(e.to_string()),
        Ok(report) => report
            .result
            .jobs
            .iter()
            .find_map(|j| j.error.clone().filter(|e| e.contains("io_uring"))),
        Err(_) => None,
    };
    let (report, engine, engine_note, workloads) = match uring_failure {
        None => (
            first.map_err(bad_input)?,
            "io_uring".to_string(),
            None,
            workloads,
        ),
        Some(why) => {
            // Files the first attempt laid out are ours; start over clean.
            for job in &jobs {
                if let Target::Files(files) = &job.target {
                    for file in files {
                        let _ = std::fs::remove_file(file);
                    }
                }
            }
            let (jobs, workloads) = demo_jobs(
                requirements,
                plan,
                &dir.0,
                EngineKind::Psync,
                direct,
                runtime,
            );
            let report = run_jobs(&jobs, &options, &mut Silent)
                .map_err(|e| anyhow::Error::new(e).context("the demo's run (psync) failed"))?;
            (
                report,
                "psync".to_string(),
                Some(format!(
                    "io_uring could not be set up here ({why}); ran psync with one thread per outstanding IO"
                )),
                workloads,
            )
        }
    };
    finish_run(
        dir,
        report.result,
        &engine,
        engine_note,
        (direct, direct_note),
        workloads,
    )
}

/// The run's outcome; a job that stopped on an IO error fails the demo.
fn finish_run(
    dir: RunDir,
    result: RunResult,
    engine: &str,
    engine_note: Option<String>,
    (direct, direct_note): (bool, String),
    workloads: Vec<String>,
) -> anyhow::Result<DemoRun> {
    if let Some(job) = result.jobs.iter().find(|j| j.error.is_some()) {
        anyhow::bail!(
            "the demo's run: job {} stopped on an error: {}",
            job.name,
            job.error.as_deref().unwrap_or("")
        );
    }
    Ok(DemoRun {
        directory: dir.0.clone(),
        engine: engine.to_string(),
        engine_note,
        direct,
        direct_note,
        workloads,
        result,
    })
}

/// Step 5: each volume's measurements against its requirements.
pub fn step_compare(requirements: &Requirements, run: &DemoRun) -> anyhow::Result<Vec<Comparison>> {
    let mut comparisons = Vec::new();
    for (index, volume) in requirements.volumes.iter().enumerate() {
        let selection = JobSelection {
            group: Some(index as u32),
            names: Vec::new(),
        };
        let jobs = compare::select_jobs(&run.result, &selection)
            .map_err(|e| anyhow::anyhow!("internal: the demo's run has no group {index}: {e}"))?;
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

/// Where the report goes by default: `<temp dir>/iofit-demo/report.html`.
fn default_report_path() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join("iofit-demo");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir.join("report.html"))
}

const NOT_THE_DESIGN: &str = "The run used this machine's temp directory, not the planned Azure \
     design: a laptop or VM disk has other limits than the planned VM and disks, so a failed \
     check here is expected information, not an error. Run the same workload on the built \
     design (iofit run) and compare that (iofit compare) to judge it.";

/// Step 6: the report, from what the steps produced.
fn step_report(report: &DemoReport, captured_reports: usize) -> HtmlReport {
    let mut html = HtmlReport::new("iofit demo: an example database server, profiled to a verdict")
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
                captured_reports,
                report.edition
            ),
        )
        .requirements(&report.requirements);
    if report.plan.designs.is_empty() {
        html = html.section(
            "No design meets the requirements",
            report.plan.impossible.join("\n\n"),
        );
    } else {
        let mut table = Table::new(
            "Designs, cheapest first",
            &["#", "VM", "volumes", "total $/month", "binding limit"],
        );
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
                design
                    .prediction
                    .binding
                    .as_ref()
                    .map(|b| b.name.clone())
                    .unwrap_or_else(|| "-".into()),
            ]);
        }
        html = html.table(table);
    }
    if let Some(prediction) = &report.prediction {
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

fn percentiles_row(name: &str, value: Option<Percentiles>, digits: usize, sized: String) -> String {
    let cell = |v: f64| format!("{v:>10.digits$}");
    match value {
        Some(p) => format!(
            "  {name:<18}{}{}{}{sized:>12}\n",
            cell(p.p50),
            cell(p.p90),
            cell(p.p99)
        ),
        None => format!("  {name:<18}{:>10}{:>10}{:>10}{sized:>12}\n", "-", "-", "-"),
    }
}

/// The checklist, briefly: per volume the main metrics at p50/p90/p99 and the sized number.
fn render_checklist(requirements: &Requirements, captured_reports: usize) -> String {
    let mut out = format!(
        "{} ({captured_reports} reports of 10 s; peaks of {:.0}-minute windows, sized at p95 x 1.3)\n",
        requirements.source,
        WINDOW_S / 60.0
    );
    for volume in &requirements.volumes {
        let s = &volume.sizing;
        out.push_str(&format!(
            "volume '{}' (devices {})\n  {:<18}{:>10}{:>10}{:>10}{:>12}\n",
            volume.label,
            volume.devices.join(", "),
            "metric",
            "p50",
            "p90",
            "p99",
            "sized"
        ));
        let Some(o) = &volume.observed else {
            continue;
        };
        out.push_str(&percentiles_row(
            "IOPS",
            Some(o.iops),
            0,
            group_thousands(s.iops),
        ));
        out.push_str(&percentiles_row(
            "read %",
            Some(o.read_pct),
            1,
            format!("{:.1}", s.read_pct),
        ));
        out.push_str(&percentiles_row(
            "random % (est.)",
            o.random_pct,
            1,
            format!("{:.1}", s.random_pct),
        ));
        out.push_str(&percentiles_row(
            "IO size KiB",
            Some(o.io_size_bytes.scaled(1.0 / 1024.0)),
            1,
            format!("{:.1}", s.io_size_bytes as f64 / 1024.0),
        ));
        out.push_str(&percentiles_row(
            "MB/s",
            Some(o.throughput_mb_s),
            1,
            format!("{:.1}", s.throughput_mb_s),
        ));
        out.push_str(&percentiles_row(
            "latency ms",
            o.latency_ms,
            2,
            s.latency_ms
                .map(|l| format!("{l:.2}"))
                .unwrap_or_else(|| "-".into()),
        ));
        out.push_str(&percentiles_row(
            "queue depth",
            o.queue_depth,
            2,
            s.queue_depth
                .map(|q| format!("{q:.2}"))
                .unwrap_or_else(|| "-".into()),
        ));
    }
    out.push_str(
        "(iofit profile FILE prints the whole checklist with how each number was derived)\n",
    );
    out
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
            let mean_ms = direction.total_latency.mean_ns / 1e6;
            let p99_ms = direction
                .total_latency
                .percentile_ns(99.0)
                .map(|ns| format!("{:.3}", ns as f64 / 1e6))
                .unwrap_or_else(|| "-".into());
            out.push_str(&format!(
                "  {} {name}: {} IOPS, {:.1} MB/s, latency avg {mean_ms:.3} ms, p99 {p99_ms} ms\n",
                job.name,
                group_thousands(direction.iops),
                direction.bandwidth_bytes_per_second / 1e6
            ));
        }
    }
    out.push_str(&format!(
        "  (files in {}, removed after the run)\n",
        run.directory.display()
    ));
    out
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if !(args.run_seconds.is_finite() && args.run_seconds > 0.0 && args.run_seconds <= 600.0) {
        return Err(bad_input(format!(
            "--run-seconds {}: write a number of seconds between 0 and 600, e.g. 1.5",
            args.run_seconds
        )));
    }
    let catalog = load_catalog(&args.edition, &args.catalog)?;
    let (requirements, captured_reports) = step_profile()?;
    let plan = step_plan(&requirements, &catalog, &args.edition, args.top)?;
    let prediction = step_predict(&requirements, &plan, &catalog, &args.edition)?;
    if !args.no_run && !args.json {
        eprintln!(
            "iofit demo: running the planned workload for {:.1}s per volume on a temp directory...",
            args.run_seconds
        );
    }
    let run = if args.no_run {
        None
    } else {
        Some(step_run(
            &requirements,
            &plan,
            args.run_seconds,
            args.engine,
        )?)
    };
    let comparisons = match &run {
        Some(run) => step_compare(&requirements, run)?,
        None => Vec::new(),
    };
    let report_path = match &args.report {
        Some(path) => path.clone(),
        None => default_report_path()?,
    };
    let mut report = DemoReport {
        edition: args.edition.clone(),
        requirements,
        plan,
        prediction,
        run,
        comparisons,
        report_path: None,
    };
    write_report(
        &report_path,
        ReportFormat::Html,
        &step_report(&report, captured_reports),
    )?;
    report.report_path = Some(report_path.clone());
    if args.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
        return Ok(ExitCode::SUCCESS);
    }
    let tables = tables_of(&catalog, &args.edition);
    let mut text = String::from("iofit demo: the method's loop on an example database server\n\n");
    text.push_str("== step 1: profile (iostat capture of the example server -> requirements) ==\n");
    text.push_str(&render_checklist(&report.requirements, captured_reports));
    text.push_str("\nrequirements the plan uses:\n");
    text.push_str(&iofit_report::plan_text::render_requirements(
        &report.requirements,
    ));
    text.push_str("\n== step 2: plan (cheapest designs that meet every requirement) ==\n");
    text.push_str(&iofit_report::plan_text::render(
        &report.plan,
        &args.edition,
        &tables,
    ));
    text.push_str("\n== step 3: prediction for design #1 with a warm host cache ==\n");
    match &report.prediction {
        Some(prediction) => text.push_str(&iofit_report::predict_text::render(prediction)),
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
    text.push_str(&format!(
        "\n== step 6: report ==\nwrote {}\n",
        report_path.display()
    ));
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}
