//! `iofit bench azure-premium`: the Premium Storage seed's benchmark procedure as one command.
//!
//! The seed's setup is a Standard_DS14 with 10 uncached premium disks striped into
//! `NoCacheWrites` and one ReadOnly-cached disk as `CacheReads`. The procedure (SPEC.md,
//! "Benchmarking"):
//! 1. Warm the host cache on CacheReads: Iometer spec `RandomWrites_1MB` for 2 hours, then
//!    `RandomReads_1MB` for 2 hours, 3 workers at queue depth 128 (after every VM restart).
//! 2. Max write IOPS: `RandomWrites_8K` on NoCacheWrites. Max read IOPS: `RandomReads_8K` on
//!    CacheReads. Max combined IOPS: both at once.
//! 3. Max write and read MB/s with the 64K specs, and combined.
//!
//! `--scale` multiplies the seed's durations (2 h warm-ups, 30 s per benchmark as in the seed's
//! FIO runs) and the 200 GB test file, so the whole procedure runs in seconds in CI. The table
//! shows what was measured beside the seed's expected figures and what `iofit_predict` says the
//! named VM delivers with the seed's disks.

use crate::exit::bad_input;
use anyhow::Context;
use iofit_catalog::{Catalog, EDITIONS, EDITION_SEED};
use iofit_engine::{run_jobs, Observer, Progress, RunOptions};
use iofit_jobfile::iometer::{self, AccessSpec};
use iofit_model::job::JobSpec;
use iofit_model::units::{group_thousands, Bytes};
use iofit_model::{HostCaching, VolumeDesign, Workload};
use iofit_predict::{predict, Assumptions, DiskPerf, Prediction, VolumeLoad};
use iofit_stats::JobResult;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// The Azure Premium Storage guide's procedure: cache warm-up, max IOPS, max MB/s.
    AzurePremium,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Which procedure to run.
    #[arg(value_enum)]
    pub suite: Suite,
    /// Directory on the uncached volume (the seed's NoCacheWrites, /mnt/nocache).
    #[arg(long, value_name = "DIR")]
    pub nocache: PathBuf,
    /// Directory on the ReadOnly-cached volume (the seed's CacheReads, /mnt/readcache).
    #[arg(long, value_name = "DIR")]
    pub readcache: PathBuf,
    /// VM size to predict for (the seed's is Standard_DS14).
    #[arg(long, default_value = "Standard_DS14")]
    pub vm: String,
    /// Disk SKU of every disk, for the prediction. The seed does not name its disk size; P30 is
    /// an assumption the output states.
    #[arg(long, default_value = "P30")]
    pub disk: String,
    /// Disks striped into NoCacheWrites (the seed: 10).
    #[arg(long, default_value_t = 10)]
    pub nocache_disks: u32,
    /// Catalog edition for the prediction (seed-2016 holds the seed's figures).
    #[arg(long, default_value = EDITION_SEED, value_parser = clap::builder::PossibleValuesParser::new(EDITIONS))]
    pub edition: String,
    /// Multiplies the seed's durations (2 h warm-ups, 30 s benchmarks) and its 200 GB test file.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Seconds per benchmark, used as given (default: the seed's 30 s x --scale, at least 1 s).
    #[arg(long)]
    pub runtime: Option<f64>,
    /// Test file size per volume (default: the seed's 200 GB x --scale, at least 16 MiB).
    #[arg(long)]
    pub size: Option<String>,
    /// Workers (threads) per target volume; the seed says at least 3.
    #[arg(long, default_value_t = 3)]
    pub workers: u32,
    /// Outstanding IOs per worker; the seed uses 128.
    #[arg(long, default_value_t = 128)]
    pub iodepth: u32,
    /// Do not warm the cache (allowed when this boot already warmed it; else results are warned).
    #[arg(long)]
    pub skip_warmup: bool,
    /// Write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write into existing test files iofit did not create.
    #[arg(long)]
    pub allow_overwrite: bool,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
    /// Also write a self-contained HTML report (the results table, the runs over time, the
    /// prediction's limits with the binding one marked) to FILE; written after Ctrl-C too.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// How the subcommands of this file run the engine.
pub struct EngineRun {
    pub allow_overwrite: bool,
    pub quiet: bool,
}

struct ProgressLine {
    label: String,
    enabled: bool,
}

impl Observer for ProgressLine {
    fn layout(&mut self, files: usize, bytes: u64) {
        if self.enabled {
            eprint!(
                "\r{}: laying out {files} file(s), {}   ",
                self.label,
                Bytes(bytes)
            );
        }
    }
    fn progress(&mut self, progress: &Progress) {
        if !self.enabled {
            return;
        }
        let seconds = progress.elapsed.as_secs_f64().max(1e-9);
        eprint!(
            "\r{}: {:.0}s {} IO/s {:.1} MB/s   ",
            self.label,
            seconds,
            group_thousands(progress.ios as f64 / seconds),
            progress.bytes as f64 / seconds / 1e6
        );
    }
}

/// Runs `jobs` on the engine; engine refusals are bad input, a job that stopped on an IO error
/// is an operating error.
pub fn run_engine(
    jobs: &[JobSpec],
    how: &EngineRun,
    label: &str,
) -> anyhow::Result<Vec<JobResult>> {
    run_engine_until(jobs, how, label, Arc::new(AtomicBool::new(false)))
}

/// [`run_engine`] that stops cleanly when `stop` is set (Ctrl-C), keeping what was measured.
pub fn run_engine_until(
    jobs: &[JobSpec],
    how: &EngineRun,
    label: &str,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<Vec<JobResult>> {
    let options = RunOptions {
        allow_overwrite: how.allow_overwrite,
        stop,
        ..RunOptions::default()
    };
    let mut observer = ProgressLine {
        label: label.to_string(),
        enabled: !how.quiet && std::io::stderr().is_terminal(),
    };
    let report = run_jobs(jobs, &options, &mut observer).map_err(|e| {
        if e.is_bad_input() {
            bad_input(e)
        } else {
            anyhow::Error::new(e).context(label.to_string())
        }
    })?;
    if observer.enabled {
        eprint!("\r\x1b[K");
    }
    if let Some(job) = report.result.jobs.iter().find(|j| j.error.is_some()) {
        anyhow::bail!(
            "{label}: job {} stopped on an error: {}",
            job.name,
            job.error.as_deref().unwrap_or("")
        );
    }
    Ok(report.result.jobs)
}

/// One row of the results table.
#[derive(Serialize, Debug, Clone)]
pub struct Row {
    pub scenario: String,
    pub target: String,
    pub specs: String,
    pub measured_iops: f64,
    /// 10^6 bytes per second.
    pub measured_mb_s: f64,
    pub measured_latency_ms: f64,
    pub seed_expected: String,
    pub predicted_iops: Option<f64>,
    pub predicted_mb_s: Option<f64>,
    pub predicted_binding: Option<String>,
    /// Set when the row read from a cached volume whose cache was not warmed.
    pub unwarmed_cache: bool,
    /// Whether the row is about IOPS (else MB/s).
    pub metric_iops: bool,
}

#[derive(Serialize, Debug)]
pub struct BenchJson {
    pub suite: String,
    pub vm: String,
    pub disk_assumed: String,
    pub scale: f64,
    pub runtime_s: f64,
    pub warmup_s_each: f64,
    pub cache_warmed: bool,
    pub test_file_bytes: u64,
    pub prediction_note: String,
    pub rows: Vec<Row>,
}

/// The file that records a warm-up, with the boot it happened in: the seed warms "after every
/// VM restart", so a warm-up of an earlier boot does not count.
const WARM_MARKER: &str = ".iofit-cache-warmed";

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn warmed_this_boot(dir: &Path) -> bool {
    let id = boot_id();
    !id.is_empty()
        // A regular file of a few bytes only: a marker planted as a link to /dev/zero or a
        // FIFO is not read (and counts as no warm-up).
        && iofit_safefs::input::read_capped_string(&dir.join(WARM_MARKER), 4096, "warm-up marker")
            .map(|text| text.lines().next() == Some(id.as_str()))
            .unwrap_or(false)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Suite::AzurePremium = args.suite;
    for (flag, dir) in [
        ("--nocache", &args.nocache),
        ("--readcache", &args.readcache),
    ] {
        if !dir.is_dir() {
            return Err(bad_input(format!(
                "{flag} {}: not a directory; give a directory on the volume to test",
                dir.display()
            )));
        }
    }
    // Outputs are checked before the warm-up and the benchmarks, not after them.
    let markers = [
        args.nocache.join(WARM_MARKER),
        args.readcache.join(WARM_MARKER),
    ];
    if let Some(path) = &args.json {
        super::files::check_output(path, &markers, "--json")?;
    }
    if let Some(path) = &args.report {
        super::files::check_output(path, &markers, "--report")?;
    }
    if !(args.scale.is_finite() && args.scale > 0.0) {
        return Err(bad_input(format!(
            "--scale {}: write a positive number such as 0.01",
            args.scale
        )));
    }
    if args.workers == 0 || args.iodepth == 0 {
        return Err(bad_input("--workers and --iodepth must be at least 1"));
    }
    // Validate the prediction inputs before any IO.
    let catalog = Catalog::embedded().context("loading the built-in catalog")?;
    let vm = catalog
        .vm(&args.vm, &args.edition)
        .map_err(bad_input)?
        .clone();
    let disk = catalog
        .disk(&args.disk, &args.edition)
        .map_err(bad_input)?
        .clone();

    let warmup = Duration::from_secs_f64(2.0 * 3600.0 * args.scale);
    let runtime = match args.runtime {
        Some(seconds) if seconds.is_finite() && seconds > 0.0 => Duration::from_secs_f64(seconds),
        Some(seconds) => {
            return Err(bad_input(format!(
                "--runtime {seconds}: write a positive number of seconds"
            )))
        }
        None => Duration::from_secs_f64((30.0 * args.scale).max(1.0)),
    };
    let size = match &args.size {
        Some(text) => Bytes::parse(text).map_err(|e| bad_input(format!("--size {text}: {e}")))?,
        None => {
            // The seed's iobw.tst is 200 GB; round to whole MiB so direct IO stays aligned.
            let scaled = 200e9 * args.scale;
            Bytes(((scaled / 1_048_576.0).round() as u64).max(16) * 1_048_576)
        }
    };
    if size < Bytes::mib(1) {
        return Err(bad_input(format!(
            "--size {size}: the 1 MB specs need at least 1 MiB"
        )));
    }
    let how = EngineRun {
        allow_overwrite: args.allow_overwrite,
        quiet: args.quiet,
    };
    let stop = Arc::new(AtomicBool::new(false));
    super::run::install_ctrl_c(Arc::clone(&stop));
    let spec = |name: &str| iometer::preset(name).expect("the seed's presets are built in");
    let jobs = |s: &AccessSpec, dir: &Path, duration: Duration, group: u32| {
        let mut jobs = iometer::preset_to_jobs(s, dir, args.workers, args.iodepth, duration, size);
        for job in &mut jobs {
            // About 20 samples per run (1 s at the seed's 30 s), so even a scaled-down run
            // draws a curve over time in the report.
            job.log_interval =
                (duration / 20).clamp(Duration::from_millis(50), Duration::from_secs(1));
            job.group_id = group;
            job.name = format!("{}@{}", s.name, dir.display());
        }
        jobs
    };

    println!(
        "azure-premium: NoCacheWrites={} CacheReads={} workers={} QD={} test file {} runtime {:.1}s (scale {})",
        args.nocache.display(),
        args.readcache.display(),
        args.workers,
        args.iodepth,
        size,
        runtime.as_secs_f64(),
        args.scale
    );

    // 1. Warm the cache.
    let cache_warmed;
    if args.skip_warmup {
        cache_warmed = warmed_this_boot(&args.readcache);
        if !cache_warmed {
            eprintln!(
                "warning: --skip-warmup, and CacheReads ({}) was not warmed since this machine booted; read results reflect the disk, not a warm host cache",
                args.readcache.display()
            );
        }
    } else {
        for name in ["RandomWrites_1MB", "RandomReads_1MB"] {
            println!(
                "warm-up: {name} on CacheReads for {:.1}s (seed: 2 h x scale {})",
                warmup.as_secs_f64(),
                args.scale
            );
            run_engine_until(
                &jobs(
                    &spec(name),
                    &args.readcache,
                    warmup.max(Duration::from_millis(100)),
                    0,
                ),
                &how,
                &format!("warm-up {name}"),
                Arc::clone(&stop),
            )?;
            if stop.load(Ordering::Relaxed) {
                break;
            }
        }
        if stop.load(Ordering::Relaxed) {
            eprintln!("iofit: interrupted during the warm-up; no benchmark ran");
            return Ok(ExitCode::from(super::run::INTERRUPTED));
        }
        // Replaced through a random temporary name: a link planted at the marker's name is
        // replaced, never written through.
        let marker = format!(
            "{}\nwarmed by iofit bench azure-premium, {:.1}s per spec\n",
            boot_id(),
            warmup.as_secs_f64()
        );
        super::files::write_output(&args.readcache.join(WARM_MARKER), marker.as_bytes())
            .with_context(|| {
                format!("cannot record the warm-up in {}", args.readcache.display())
            })?;
        cache_warmed = true;
    }

    // 2./3. The benchmarks.
    struct Scenario {
        name: &'static str,
        metric_iops: bool,
        read_spec: Option<&'static str>,
        write_spec: Option<&'static str>,
        expected: &'static str,
    }
    let scenarios = [
        Scenario {
            name: "max write IOPS",
            metric_iops: true,
            read_spec: None,
            write_spec: Some("RandomWrites_8K"),
            expected: "50,000 IOPS (the VM's uncached limit)",
        },
        Scenario {
            name: "max read IOPS",
            metric_iops: true,
            read_spec: Some("RandomReads_8K"),
            write_spec: None,
            expected: "64,000 IOPS (FIO text; the table's 50,000 swaps the specs)",
        },
        Scenario {
            name: "max combined IOPS",
            metric_iops: true,
            read_spec: Some("RandomReads_8K"),
            write_spec: Some("RandomWrites_8K"),
            expected: "over 100,000 IOPS",
        },
        Scenario {
            name: "max write MB/s",
            metric_iops: false,
            read_spec: None,
            write_spec: Some("RandomWrites_64K"),
            expected: "524 MB/s (table; uncached limit 512)",
        },
        Scenario {
            name: "max read MB/s",
            metric_iops: false,
            read_spec: Some("RandomReads_64K"),
            write_spec: None,
            expected: "524 MB/s",
        },
        Scenario {
            name: "max combined MB/s",
            metric_iops: false,
            read_spec: Some("RandomReads_64K"),
            write_spec: Some("RandomWrites_64K"),
            expected: "1,000 MB/s",
        },
    ];
    let mut rows = Vec::new();
    // Every benchmark's job results, named by scenario, for the report's charts.
    let mut measured_jobs: Vec<JobResult> = Vec::new();
    let mut combined_prediction = None;
    for (index, scenario) in scenarios.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut run = Vec::new();
        let mut specs = Vec::new();
        let mut targets = Vec::new();
        if let Some(name) = scenario.write_spec {
            run.extend(jobs(&spec(name), &args.nocache, runtime, 0));
            specs.push(name);
            targets.push("NoCacheWrites");
        }
        if let Some(name) = scenario.read_spec {
            if !cache_warmed {
                eprintln!(
                    "warning: {} reads CacheReads, whose cache was not warmed",
                    scenario.name
                );
            }
            run.extend(jobs(&spec(name), &args.readcache, runtime, 1));
            specs.push(name);
            targets.push("CacheReads");
        }
        println!(
            "{}: {} on {}",
            scenario.name,
            specs.join(" + "),
            targets.join(" + ")
        );
        let results = run_engine_until(&run, &how, scenario.name, Arc::clone(&stop))?;
        for job in &results {
            let mut job = job.clone();
            job.name = format!("{}: {}", scenario.name, job.name);
            job.group_id = index as u32;
            measured_jobs.push(job);
        }
        let iops: f64 = results.iter().map(super::size_threads::iops_of).sum();
        let bytes_per_s: f64 = results
            .iter()
            .map(|j| j.read.bandwidth_bytes_per_second + j.write.bandwidth_bytes_per_second)
            .sum();
        let ios: f64 = results
            .iter()
            .map(|j| (j.read.ios + j.write.ios) as f64)
            .sum();
        let latency_ms = if ios > 0.0 {
            results
                .iter()
                .map(|j| {
                    super::size_threads::mean_latency_ns(j) * (j.read.ios + j.write.ios) as f64
                })
                .sum::<f64>()
                / ios
                / 1e6
        } else {
            0.0
        };
        let (predicted_iops, predicted_mb_s, predicted_binding, prediction) =
            predicted(&vm, &disk, &args, scenario.read_spec, scenario.write_spec);
        if scenario.read_spec.is_some() && scenario.write_spec.is_some() && scenario.metric_iops {
            combined_prediction = prediction;
        }
        rows.push(Row {
            scenario: scenario.name.to_string(),
            target: targets.join(" + "),
            specs: specs.join(" + "),
            measured_iops: iops,
            measured_mb_s: bytes_per_s / 1e6,
            measured_latency_ms: latency_ms,
            seed_expected: scenario.expected.to_string(),
            predicted_iops,
            predicted_mb_s,
            predicted_binding,
            unwarmed_cache: scenario.read_spec.is_some() && !cache_warmed,
            metric_iops: scenario.metric_iops,
        });
    }

    let prediction_note = format!(
        "predicted: iofit_predict for {} ({} table) with {} x {} (host cache None) as NoCacheWrites and 1 x {} (ReadOnly, warm) as CacheReads; the seed does not name its disk size, {} is --disk's assumption",
        vm.name, args.edition, args.nocache_disks, disk.name, disk.name, disk.name
    );
    print!("{}", render_table(&rows, &vm.name));
    println!("{prediction_note}");
    for row in &rows {
        if let Some(words) = &row.predicted_binding {
            println!("  {}: {words}", row.scenario);
        }
    }
    println!("MB/s = 10^6 bytes/s; measured on this machine's directories, not on the seed's VM");
    let interrupted = stop.load(Ordering::Relaxed);
    if interrupted {
        println!(
            "interrupted (Ctrl-C): {} of {} benchmarks ran; the table covers those",
            rows.len(),
            scenarios.len()
        );
    }
    if let Some(path) = &args.report {
        let html = bench_report(
            &rows,
            &vm.name,
            &prediction_note,
            &measured_jobs,
            combined_prediction.as_ref(),
            interrupted,
        );
        super::plan::write_report(path, super::plan::ReportFormat::Html, &html)?;
        println!("wrote the report {}", path.display());
    }
    if let Some(path) = &args.json {
        let doc = BenchJson {
            suite: "azure-premium".into(),
            vm: vm.name.clone(),
            disk_assumed: disk.name.clone(),
            scale: args.scale,
            runtime_s: runtime.as_secs_f64(),
            warmup_s_each: if args.skip_warmup {
                0.0
            } else {
                warmup.as_secs_f64()
            },
            cache_warmed,
            test_file_bytes: size.as_u64(),
            prediction_note,
            rows,
        };
        super::files::write_output(path, serde_json::to_string_pretty(&doc)?.as_bytes())?;
    }
    if interrupted {
        return Ok(ExitCode::from(super::run::INTERRUPTED));
    }
    Ok(ExitCode::SUCCESS)
}

/// The suite as one report: the results table beside the seed's and the predicted values,
/// every benchmark's run over time, and the prediction of the combined scenario with its limits
/// (the binding one marked).
fn bench_report(
    rows: &[Row],
    vm: &str,
    prediction_note: &str,
    jobs: &[JobResult],
    prediction: Option<&Prediction>,
    interrupted: bool,
) -> iofit_report::html::HtmlReport {
    use iofit_report::html::{HtmlReport, Table};
    let value = |iops: bool, v: f64| {
        if iops {
            format!("{} IOPS", group_thousands(v.round()))
        } else {
            format!("{v:.1} MB/s")
        }
    };
    let mut table = Table::new(
        "Measured beside the seed's expected and the predicted values",
        &[
            "scenario",
            "target",
            "spec",
            "measured",
            "latency avg ms",
            "seed expected (DS14)",
            &format!("predicted ({vm})"),
            "predicted binding",
        ],
    );
    for row in rows {
        let measured = if row.metric_iops {
            row.measured_iops
        } else {
            row.measured_mb_s
        };
        table = table.row(vec![
            row.scenario.clone(),
            row.target.clone(),
            row.specs.clone(),
            format!(
                "{}{}",
                value(row.metric_iops, measured),
                if row.unwarmed_cache {
                    " (cache not warmed)"
                } else {
                    ""
                }
            ),
            format!("{:.3}", row.measured_latency_ms),
            row.seed_expected.clone(),
            match (row.predicted_iops, row.predicted_mb_s) {
                (Some(iops), Some(mb)) => {
                    value(row.metric_iops, if row.metric_iops { iops } else { mb })
                }
                _ => "n/a (prediction failed)".to_string(),
            },
            row.predicted_binding.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    let mut notes = vec![
        prediction_note.to_string(),
        "MB/s = 10^6 bytes/s; measured on this machine's directories, not on the seed's VM."
            .to_string(),
    ];
    if interrupted {
        notes.push(format!(
            "Interrupted (Ctrl-C) after {} benchmark(s): the tables and charts cover those.",
            rows.len()
        ));
    }
    let run = iofit_stats::RunResult {
        tool: "iofit".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        timestamp_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        hostname: String::new(),
        jobs: jobs.to_vec(),
    };
    let mut report = HtmlReport::new(format!("iofit bench azure-premium: predicted for {vm}"))
        .table(table)
        .section("How to read it", notes.join("\n\n"))
        .run_result(&run);
    if let Some(prediction) = prediction {
        report = report.prediction(prediction);
    }
    report
}

/// What `iofit_predict` says the VM and disks deliver for a scenario: (IOPS, MB/s, binding).
fn predicted(
    vm: &iofit_catalog::VmSize,
    disk: &iofit_catalog::DiskSku,
    args: &Args,
    read_spec: Option<&str>,
    write_spec: Option<&str>,
) -> (Option<f64>, Option<f64>, Option<String>, Option<Prediction>) {
    let mut volumes = Vec::new();
    let load = |label: &str, count: u32, caching: HostCaching, spec: &AccessSpec| {
        let mut design = VolumeDesign::new(label, disk.name.clone(), count, caching);
        if count > 1 {
            // The seed does not give the stripe size; 64 KB is its advice for small random IO.
            design.stripe_size = Some(Bytes::kib(64));
        }
        VolumeLoad {
            design,
            disk: DiskPerf::from(disk),
            workload: Workload::new(
                spec.read_pct,
                spec.random_pct,
                spec.request_size,
                args.iodepth,
                args.workers,
            ),
            target: None,
        }
    };
    if let Some(name) = write_spec {
        volumes.push(load(
            "NoCacheWrites",
            args.nocache_disks,
            HostCaching::None,
            &iometer::preset(name).expect("built in"),
        ));
    }
    if let Some(name) = read_spec {
        volumes.push(load(
            "CacheReads",
            1,
            HostCaching::ReadOnly,
            &iometer::preset(name).expect("built in"),
        ));
    }
    match predict(vm, &volumes, &Assumptions::default(), None) {
        Ok(p) => (
            Some(p.total_iops),
            Some(p.total_throughput_mb_s),
            p.binding.as_ref().map(|b| b.words.clone()),
            Some(p),
        ),
        Err(_) => (None, None, None, None),
    }
}

fn render_table(rows: &[Row], vm: &str) -> String {
    let value = |iops: bool, v: f64| {
        if iops {
            format!("{} IOPS", group_thousands(v.round()))
        } else {
            format!("{:.1} MB/s", v)
        }
    };
    let mut table: Vec<[String; 6]> = vec![[
        "scenario".into(),
        "target".into(),
        "spec".into(),
        "measured".into(),
        "seed expected (DS14)".into(),
        format!("predicted ({vm})"),
    ]];
    for row in rows {
        let measured = format!(
            "{}{}",
            value(
                row.metric_iops,
                if row.metric_iops {
                    row.measured_iops
                } else {
                    row.measured_mb_s
                }
            ),
            if row.unwarmed_cache {
                " (cache not warmed)"
            } else {
                ""
            }
        );
        let predicted = match (row.predicted_iops, row.predicted_mb_s) {
            (Some(iops), Some(mb)) => {
                value(row.metric_iops, if row.metric_iops { iops } else { mb })
            }
            _ => "n/a (prediction failed)".to_string(),
        };
        table.push([
            row.scenario.clone(),
            row.target.clone(),
            row.specs.clone(),
            measured,
            row.seed_expected.clone(),
            predicted,
        ]);
    }
    let widths: Vec<usize> = (0..6)
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (index, row) in table.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
        if index == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    out
}
