//! `bench azure-premium`: the Premium Storage seed's benchmark procedure.
//!
//! The seed's setup is a Standard_DS14 with 10 uncached premium disks striped into
//! `NoCacheWrites` and one ReadOnly-cached disk as `CacheReads`. The procedure (SPEC.md,
//! "Benchmarking"):
//! 1. warm the host cache on CacheReads: Iometer spec `RandomWrites_1MB` for 2 hours, then
//!    `RandomReads_1MB` for 2 hours, 3 workers at queue depth 128 (after every VM restart);
//! 2. max write IOPS: `RandomWrites_8K` on NoCacheWrites; max read IOPS: `RandomReads_8K` on
//!    CacheReads; max combined IOPS: both at once;
//! 3. max write and read MB/s with the 64K specs, and combined.
//!
//! `scale` multiplies the seed's durations (2 h warm-ups, 30 s per benchmark as in the seed's
//! FIO runs) and the 200 GB test file, so the whole procedure runs in seconds in CI. Every row
//! shows what was measured beside the seed's expected figures and what `iofit_predict` says the
//! named VM delivers with the seed's disks. The JSON and the report are written after every
//! scenario, so a failure or Ctrl-C in scenario 3 keeps scenarios 1 and 2.

use crate::error::shown;
use crate::execute::{first_job_error, Executor};
use crate::measure::{iops_of, mean_latency_ns};
use crate::observer::{Event, Observer, Warning};
use crate::so_far::SoFar;
use crate::ProcedureError;
use iofit_catalog::{Catalog, DiskSku, VmSize};
use iofit_jobfile::iometer::{self, AccessSpec};
use iofit_model::job::JobSpec;
use iofit_model::units::{group_thousands, Bytes, BytesPerSecond, Iops, MBps, Millis, Seconds};
use iofit_model::{HostCaching, VolumeDesign, Workload};
use iofit_predict::{predict, Assumptions, DiskPerf, Prediction, VolumeLoad};
use iofit_report::columns::{align, Align};
use iofit_safefs::atomic::write_atomic;
use iofit_stats::JobResult;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The suite's settings; [`BenchOptions::validate`] checks every number.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Directory on the uncached volume (the seed's NoCacheWrites).
    pub nocache: PathBuf,
    /// Directory on the ReadOnly-cached volume (the seed's CacheReads).
    pub readcache: PathBuf,
    /// VM size and disk SKU the prediction is for, and the catalog edition.
    pub vm: String,
    pub disk: String,
    pub edition: String,
    /// Disks striped into NoCacheWrites (the seed: 10).
    pub nocache_disks: u32,
    /// Multiplies the seed's durations and its 200 GB test file.
    pub scale: f64,
    /// Seconds per benchmark, used as given (default: 30 s x scale, at least 1 s).
    pub runtime_s: Option<Seconds>,
    /// Test file size per volume (default: 200 GB x scale, at least 16 MiB).
    pub file_size: Option<Bytes>,
    pub workers: u32,
    pub iodepth: u32,
    /// Do not warm the cache (results are warned unless this boot already warmed it).
    pub skip_warmup: bool,
    /// Results as JSON, written after every scenario.
    pub json: Option<PathBuf>,
    /// The HTML report, written after every scenario.
    pub report: Option<PathBuf>,
    /// `--allow-overwrite`: `json` and `report` may replace files iofit did not write.
    pub allow_overwrite: bool,
    /// Where the results so far are kept renderable for a stop that cannot wait for the
    /// suite's end ([`SoFar`]): as JSON when `so_far_as_json`, else as the text table.
    pub so_far: Option<Arc<SoFar>>,
    pub so_far_as_json: bool,
}

/// The largest `--scale`: 100 x the seed is a 20 TB test file and 200-hour warm-ups.
pub const MAX_SCALE: f64 = 100.0;
/// The longest benchmark: a week.
pub const MAX_RUNTIME_S: f64 = 7.0 * 86_400.0;
pub const MAX_WORKERS: u32 = 1024;
/// The deepest `--iodepth`: the one bound every job option and flag shares.
pub use iofit_model::limits::MAX_IODEPTH;
/// A VM has at most 64 data disks.
pub const MAX_DISKS: u32 = 64;

impl BenchOptions {
    /// Every number in range, each error naming its flag and the allowed range.
    pub fn validate(&self) -> Result<(), ProcedureError> {
        let bad = ProcedureError::bad_input;
        for (flag, dir) in [
            ("--nocache", &self.nocache),
            ("--readcache", &self.readcache),
        ] {
            if !dir.is_dir() {
                return Err(bad(format!(
                    "{flag} {}: not a directory; give a directory on the volume to test",
                    dir.display()
                )));
            }
        }
        if !(self.scale > 0.0 && self.scale <= MAX_SCALE) {
            return Err(bad(format!(
                "--scale {}: write a number above 0 and at most {MAX_SCALE}, such as 0.01",
                shown(self.scale)
            )));
        }
        if let Some(seconds) = self.runtime_s.map(|s| s.get()) {
            if !(seconds > 0.0 && seconds <= MAX_RUNTIME_S) {
                return Err(bad(format!(
                    "--runtime {}: write a number of seconds above 0 and at most {MAX_RUNTIME_S}",
                    shown(seconds)
                )));
            }
        }
        for (flag, value, max) in [
            ("--workers", self.workers, MAX_WORKERS),
            ("--iodepth", self.iodepth, MAX_IODEPTH),
            ("--nocache-disks", self.nocache_disks, MAX_DISKS),
        ] {
            if !(1..=max).contains(&value) {
                return Err(bad(format!(
                    "{flag} {value}: write a whole number 1..{max}"
                )));
            }
        }
        if self.file_size().is_some_and(|size| size < Bytes::mib(1)) {
            return Err(bad(format!(
                "--size {}: the 1 MB specs need at least 1 MiB",
                self.file_size().unwrap_or(Bytes::ZERO)
            )));
        }
        Ok(())
    }

    /// One warm-up spec's length: the seed's 2 hours x scale.
    pub fn warmup(&self) -> Duration {
        Duration::from_secs_f64(2.0 * 3600.0 * self.scale)
    }

    /// One benchmark's length.
    pub fn runtime(&self) -> Duration {
        Duration::from_secs_f64(
            self.runtime_s
                .map_or((30.0 * self.scale).max(1.0), |s| s.get()),
        )
    }

    /// The test file per volume: given, or the seed's 200 GB x scale in whole MiB (direct IO
    /// stays aligned), at least 16 MiB.
    pub fn file_size(&self) -> Option<Bytes> {
        self.file_size.or_else(|| {
            let scaled_mib = (200e9 * self.scale / 1_048_576.0).round() as u64;
            Some(Bytes(scaled_mib.max(16) * 1_048_576))
        })
    }

    /// The jobs of `spec` on `dir` for `duration`, in reporting group `group`.
    fn jobs(&self, spec: &AccessSpec, dir: &Path, duration: Duration, group: u32) -> Vec<JobSpec> {
        let size = self.file_size().unwrap_or(Bytes::mib(16));
        let mut jobs =
            iometer::preset_to_jobs(spec, dir, self.workers, self.iodepth, duration, size);
        for job in &mut jobs {
            // About 20 samples per run (1 s at the seed's 30 s), so even a scaled-down run
            // draws a curve over time in the report.
            job.log_interval =
                (duration / 20).clamp(Duration::from_millis(50), Duration::from_secs(1));
            job.group_id = group;
            job.name = format!("{}@{}", spec.name, dir.display());
        }
        jobs
    }
}

/// One benchmark of the suite.
pub struct Scenario {
    pub name: &'static str,
    pub metric_iops: bool,
    pub read_spec: Option<&'static str>,
    pub write_spec: Option<&'static str>,
    pub expected: &'static str,
}

/// The seed's six benchmarks, in its order.
pub const SCENARIOS: [Scenario; 6] = [
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

/// One row of the results table.
#[derive(Serialize, Debug, Clone)]
pub struct Row {
    pub scenario: String,
    pub target: String,
    pub specs: String,
    pub measured_iops: Iops,
    /// 10^6 bytes per second.
    pub measured_mb_s: MBps,
    pub measured_latency_ms: Millis,
    pub seed_expected: String,
    /// `None` when the prediction failed, or when a rate limit the scenario runs under is
    /// unpublished (`predicted_unknown` names it): its room is unknown, so is the rate.
    pub predicted_iops: Option<Iops>,
    pub predicted_mb_s: Option<MBps>,
    pub predicted_binding: Option<String>,
    /// The unpublished rate limits that leave the predicted rates unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_unknown: Option<String>,
    /// Set when the row read from a cached volume whose cache was not warmed.
    pub unwarmed_cache: bool,
    /// Whether the row is about IOPS (else MB/s).
    pub metric_iops: bool,
    /// The benchmark was running when the suite was stopped: the row holds what it measured
    /// until then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
}

/// Where the suite stands: what the JSON says about how whole it is.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Written after a scenario while later ones are still to run.
    Running,
    Complete,
    Interrupted,
    /// A scenario failed; the rows cover the ones before it.
    Failed,
}

/// The suite's results (also its JSON form).
#[derive(Serialize, Debug, Clone)]
pub struct BenchJson {
    pub suite: String,
    pub status: Status,
    pub scenarios_planned: usize,
    pub vm: String,
    pub disk_assumed: String,
    pub scale: f64,
    pub runtime_s: Seconds,
    pub warmup_s_each: f64,
    pub cache_warmed: bool,
    pub test_file_bytes: Bytes,
    pub prediction_note: String,
    pub rows: Vec<Row>,
}

/// What the suite measured, for the binary to print and for the report.
#[derive(Debug, Clone)]
pub struct BenchOutcome {
    pub json: BenchJson,
    /// Every benchmark's job results, named by scenario, for the report's charts.
    pub measured_jobs: Vec<JobResult>,
    /// The prediction of the combined IOPS scenario, for the report's limits chart.
    pub combined_prediction: Option<Prediction>,
}

impl BenchOutcome {
    pub fn interrupted(&self) -> bool {
        self.json.status == Status::Interrupted
    }

    /// Interrupted while warming the cache, before any benchmark ran: nothing to print.
    pub fn interrupted_in_warmup(&self) -> bool {
        self.interrupted()
            && self.json.rows.is_empty()
            && self.json.warmup_s_each > 0.0
            && !self.json.cache_warmed
    }
}

/// Where `bench`'s JSON goes: stdout (`--json` alone), a file (`--output FILE`, or the
/// deprecated `--json FILE`), or neither.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonDestination {
    pub stdout: bool,
    pub file: Option<PathBuf>,
    /// `--json FILE` was used: the binary says it is deprecated.
    pub deprecated: bool,
}

/// `--json [FILE]` (`json`, with `to_stdout` the value `--json` alone stands for) and
/// `--output FILE` read together.
pub fn json_destination(
    json: Option<&Path>,
    to_stdout: &str,
    output: Option<&Path>,
) -> Result<JsonDestination, ProcedureError> {
    let output = output.map(Path::to_path_buf);
    match json {
        None => Ok(JsonDestination {
            stdout: false,
            file: output,
            deprecated: false,
        }),
        Some(path) if path.as_os_str() == to_stdout => Ok(JsonDestination {
            stdout: true,
            file: output,
            deprecated: false,
        }),
        Some(_) if output.is_some() => Err(ProcedureError::bad_input(
            "--json FILE and --output FILE both name a JSON file; give only --output FILE",
        )),
        Some(path) => Ok(JsonDestination {
            stdout: false,
            file: Some(path.to_path_buf()),
            deprecated: true,
        }),
    }
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
        && iofit_safefs::input::read_own_state(&dir.join(WARM_MARKER), 4096, "warm-up marker")
            .map(|text| text.lines().next() == Some(id.as_str()))
            .unwrap_or(false)
}

/// A built-in Iometer spec by name.
fn spec(name: &str) -> Result<AccessSpec, ProcedureError> {
    iometer::preset(name)
        .ok_or_else(|| ProcedureError::Internal(format!("the seed's spec {name} is not built in")))
}

/// Runs the suite.
pub fn run_suite(
    options: &BenchOptions,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<BenchOutcome, ProcedureError> {
    options.validate()?;
    // Outputs are checked before the warm-up and the benchmarks, not after them: a file name
    // in a writable directory, not one of the warm-up markers.
    let markers = [
        options.nocache.join(WARM_MARKER),
        options.readcache.join(WARM_MARKER),
    ];
    for (flag, path) in [("--output", &options.json), ("--report", &options.report)] {
        if let Some(path) = path {
            iofit_safefs::guard::check_output_allowing(
                path,
                &markers,
                flag,
                options.allow_overwrite,
            )?;
        }
    }
    // Validate the prediction inputs before any IO.
    let catalog = Catalog::embedded()
        .map_err(|e| ProcedureError::Internal(format!("loading the built-in catalog: {e}")))?;
    let vm = catalog
        .vm(&options.vm, &options.edition)
        .map_err(|e| ProcedureError::bad_input(e.to_string()))?
        .clone();
    let disk = catalog
        .disk(&options.disk, &options.edition)
        .map_err(|e| ProcedureError::bad_input(e.to_string()))?
        .clone();
    let mut outcome = BenchOutcome {
        json: BenchJson {
            suite: "azure-premium".into(),
            status: Status::Running,
            scenarios_planned: SCENARIOS.len(),
            vm: vm.name.clone(),
            disk_assumed: disk.name.clone(),
            scale: options.scale,
            runtime_s: Seconds(options.runtime().as_secs_f64()),
            warmup_s_each: 0.0,
            cache_warmed: false,
            test_file_bytes: options.file_size().unwrap_or(Bytes::ZERO),
            prediction_note: prediction_note(options, &vm, &disk),
            rows: Vec::new(),
        },
        measured_jobs: Vec::new(),
        combined_prediction: None,
    };
    observer.event(&Event::BenchStart {
        nocache: options.nocache.clone(),
        readcache: options.readcache.clone(),
        workers: options.workers,
        iodepth: options.iodepth,
        file_bytes: outcome.json.test_file_bytes,
        runtime_s: outcome.json.runtime_s.get(),
        scale: options.scale,
    });
    warm_up(options, &mut outcome, executor, observer)?;
    if executor.stop_requested() {
        // Interrupted during the warm-up: no benchmark ran.
        outcome.json.status = Status::Interrupted;
        return Ok(outcome);
    }
    for (index, scenario) in SCENARIOS.iter().enumerate() {
        if executor.stop_requested() {
            break;
        }
        let measured = run_scenario(
            options,
            &vm,
            &disk,
            index,
            scenario,
            &mut outcome,
            executor,
            observer,
        );
        if let Err(error) = measured {
            outcome.json.status = Status::Failed;
            // What finished is on disk, marked as failed, before the error goes up.
            write_results(options, &outcome)?;
            return Err(error);
        }
        write_results(options, &outcome)?;
    }
    outcome.json.status = if executor.stop_requested() {
        Status::Interrupted
    } else {
        Status::Complete
    };
    write_results(options, &outcome)?;
    Ok(outcome)
}

/// Step 1: warm the cache (or check that this boot already did).
fn warm_up(
    options: &BenchOptions,
    outcome: &mut BenchOutcome,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<(), ProcedureError> {
    if options.skip_warmup {
        outcome.json.cache_warmed = warmed_this_boot(&options.readcache);
        if !outcome.json.cache_warmed {
            observer.warning(&Warning::NotWarmedThisBoot {
                readcache: options.readcache.clone(),
            });
        }
        return Ok(());
    }
    let warmup = options.warmup();
    outcome.json.warmup_s_each = warmup.as_secs_f64();
    for name in ["RandomWrites_1MB", "RandomReads_1MB"] {
        observer.event(&Event::Warmup {
            spec: name.to_string(),
            seconds: warmup.as_secs_f64(),
            scale: options.scale,
        });
        let label = format!("warm-up {name}");
        let jobs = options.jobs(
            &spec(name)?,
            &options.readcache,
            warmup.max(Duration::from_millis(100)),
            0,
        );
        let result = executor.execute(&jobs, &label, observer)?;
        first_job_error(&result, &label)?;
        if executor.stop_requested() {
            return Ok(());
        }
    }
    let marker = options.readcache.join(WARM_MARKER);
    let text = format!(
        "{}\nwarmed by iofit bench azure-premium, {:.1}s per spec\n",
        boot_id(),
        warmup.as_secs_f64()
    );
    write_atomic(&marker, text.as_bytes())?;
    outcome.json.cache_warmed = true;
    Ok(())
}

/// Runs one scenario and adds its row.
#[allow(clippy::too_many_arguments)]
fn run_scenario(
    options: &BenchOptions,
    vm: &VmSize,
    disk: &DiskSku,
    index: usize,
    scenario: &'static Scenario,
    outcome: &mut BenchOutcome,
    executor: &mut dyn Executor,
    observer: &mut dyn Observer,
) -> Result<(), ProcedureError> {
    let runtime = options.runtime();
    let cache_warmed = outcome.json.cache_warmed;
    let mut run = Vec::new();
    let mut specs = Vec::new();
    let mut targets = Vec::new();
    if let Some(name) = scenario.write_spec {
        run.extend(options.jobs(&spec(name)?, &options.nocache, runtime, 0));
        specs.push(name.to_string());
        targets.push("NoCacheWrites".to_string());
    }
    if let Some(name) = scenario.read_spec {
        if !cache_warmed {
            observer.warning(&Warning::CacheNotWarmed {
                scenario: scenario.name.to_string(),
            });
        }
        run.extend(options.jobs(&spec(name)?, &options.readcache, runtime, 1));
        specs.push(name.to_string());
        targets.push("CacheReads".to_string());
    }
    observer.event(&Event::Scenario {
        name: scenario.name.to_string(),
        specs: specs.clone(),
        targets: targets.clone(),
    });
    let labels = RowLabels {
        scenario,
        specs: specs.join(" + "),
        targets: targets.join(" + "),
        cache_warmed,
    };
    keep_so_far(options, vm, disk, outcome, Some(&labels));
    let result = executor.execute(&run, scenario.name, observer)?;
    first_job_error(&result, scenario.name)?;
    let results = result.jobs;
    for job in &results {
        let mut job = job.clone();
        job.name = format!("{}: {}", scenario.name, job.name);
        job.group_id = index as u32;
        outcome.measured_jobs.push(job);
    }
    let (row, prediction) = row_of(options, vm, disk, &labels, &results)?;
    if scenario.read_spec.is_some() && scenario.write_spec.is_some() && scenario.metric_iops {
        outcome.combined_prediction = prediction;
    }
    outcome.json.rows.push(row);
    keep_so_far(options, vm, disk, outcome, None);
    Ok(())
}

/// What a row says of its scenario besides the measurements.
struct RowLabels {
    scenario: &'static Scenario,
    specs: String,
    targets: String,
    cache_warmed: bool,
}

/// A scenario's row from its jobs' results, and the prediction it was compared with.
fn row_of(
    options: &BenchOptions,
    vm: &VmSize,
    disk: &DiskSku,
    labels: &RowLabels,
    results: &[JobResult],
) -> Result<(Row, Option<Prediction>), ProcedureError> {
    let scenario = labels.scenario;
    let ios: f64 = results
        .iter()
        .map(|j| (j.read.ios + j.write.ios) as f64)
        .sum();
    let latency_ms = if ios > 0.0 {
        results
            .iter()
            .map(|j| mean_latency_ns(j) * (j.read.ios + j.write.ios) as f64)
            .sum::<f64>()
            / ios
            / 1e6
    } else {
        0.0
    };
    let prediction = predicted(vm, disk, options, scenario.read_spec, scenario.write_spec)?;
    let (predicted_iops, predicted_mb_s, predicted_unknown) =
        predicted_figures(prediction.as_ref());
    let row = Row {
        scenario: scenario.name.to_string(),
        target: labels.targets.clone(),
        specs: labels.specs.clone(),
        measured_iops: Iops(results.iter().map(iops_of).sum()),
        measured_mb_s: BytesPerSecond(
            results
                .iter()
                .map(|j| j.read.bandwidth_bytes_per_second + j.write.bandwidth_bytes_per_second)
                .sum::<f64>(),
        )
        .to_mb_s(),
        measured_latency_ms: Millis(latency_ms),
        seed_expected: scenario.expected.to_string(),
        predicted_iops,
        predicted_mb_s,
        predicted_unknown,
        predicted_binding: prediction
            .as_ref()
            .and_then(|p| p.binding.as_ref().map(|b| b.words.clone())),
        unwarmed_cache: scenario.read_spec.is_some() && !labels.cache_warmed,
        metric_iops: scenario.metric_iops,
        interrupted: results.iter().any(|j| j.interrupted),
    };
    Ok((row, prediction))
}

/// A row's predicted IOPS and MB/s, or the unpublished limits that leave them unknown. Flat
/// out, a volume under an unpublished limit has no predicted rate, never the published
/// limits' figure (DS14's cached reads are not 4,194 MB/s: its cached MB/s is unpublished).
fn predicted_figures(
    prediction: Option<&Prediction>,
) -> (Option<Iops>, Option<MBps>, Option<String>) {
    match prediction {
        Some(p) if p.delivered_known() => (Some(p.total_iops), Some(p.total_throughput_mb_s), None),
        Some(p) => (None, None, Some(p.unpublished_limits().join(", "))),
        None => (None, None, None),
    }
}

/// Keeps the results so far renderable ([`SoFar`]): the rows so far, and `running`'s row
/// from the running benchmark's results when a stop renders them.
fn keep_so_far(
    options: &BenchOptions,
    vm: &VmSize,
    disk: &DiskSku,
    outcome: &BenchOutcome,
    running: Option<&RowLabels>,
) {
    let Some(so_far) = &options.so_far else {
        return;
    };
    let mut base = outcome.clone();
    base.json.status = Status::Interrupted;
    let running = running.map(|labels| {
        (
            labels.scenario,
            labels.specs.clone(),
            labels.targets.clone(),
            labels.cache_warmed,
        )
    });
    let (options, vm, disk) = (options.clone(), vm.clone(), disk.clone());
    so_far.set(Box::new(move |measured| {
        let mut outcome = base.clone();
        if let (Some((scenario, specs, targets, cache_warmed)), Some(measured)) =
            (&running, measured)
        {
            let labels = RowLabels {
                scenario,
                specs: specs.clone(),
                targets: targets.clone(),
                cache_warmed: *cache_warmed,
            };
            let mut jobs = measured.jobs.clone();
            for job in &mut jobs {
                // What the clones had measured when they saw the stop.
                job.interrupted = true;
            }
            if let Ok((row, _)) = row_of(&options, &vm, &disk, &labels, &jobs) {
                outcome.json.rows.push(row);
            }
        }
        if options.so_far_as_json {
            serde_json::to_string_pretty(&outcome.json).ok()
        } else {
            Some(render_text(&outcome))
        }
    }));
}

fn prediction_note(options: &BenchOptions, vm: &VmSize, disk: &DiskSku) -> String {
    format!(
        "predicted: iofit_predict for {} ({} table) with {} x {} (host cache None) as NoCacheWrites and 1 x {} (ReadOnly, warm) as CacheReads; the seed does not name its disk size, {} is --disk's assumption",
        vm.name, options.edition, options.nocache_disks, disk.name, disk.name, disk.name
    )
}

/// What `iofit_predict` says the VM and disks deliver for a scenario (`None` when the
/// prediction cannot be made, which the table shows as such).
fn predicted(
    vm: &VmSize,
    disk: &DiskSku,
    options: &BenchOptions,
    read_spec: Option<&str>,
    write_spec: Option<&str>,
) -> Result<Option<Prediction>, ProcedureError> {
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
                options.iodepth,
                options.workers,
            ),
            target: None,
        }
    };
    let mut volumes = Vec::new();
    if let Some(name) = write_spec {
        volumes.push(load(
            "NoCacheWrites",
            options.nocache_disks,
            HostCaching::None,
            &spec(name)?,
        ));
    }
    if let Some(name) = read_spec {
        volumes.push(load("CacheReads", 1, HostCaching::ReadOnly, &spec(name)?));
    }
    Ok(predict(vm, &volumes, &Assumptions::default(), None).ok())
}

/// Writes the JSON and the report as they stand (after every scenario).
fn write_results(options: &BenchOptions, outcome: &BenchOutcome) -> Result<(), ProcedureError> {
    let write = |path: &Path, text: String| write_atomic(path, text.as_bytes());
    if let Some(path) = &options.report {
        write(path, report(outcome).render())?;
    }
    if let Some(path) = &options.json {
        let text = serde_json::to_string_pretty(&outcome.json)
            .map_err(|e| ProcedureError::Internal(format!("serialising the results: {e}")))?;
        write(path, text)?;
    }
    Ok(())
}

/// A row's figure: IOPS or MB/s.
fn value(iops: bool, v: f64) -> String {
    if iops {
        format!("{} IOPS", group_thousands(v.round()))
    } else {
        format!("{v:.1} MB/s")
    }
}

fn measured_cell(row: &Row) -> String {
    let measured = if row.metric_iops {
        row.measured_iops.get()
    } else {
        row.measured_mb_s.get()
    };
    let note = if row.unwarmed_cache {
        " (cache not warmed)"
    } else {
        ""
    };
    format!("{}{note}", value(row.metric_iops, measured))
}

fn predicted_cell(row: &Row) -> String {
    match (
        row.predicted_iops,
        row.predicted_mb_s,
        &row.predicted_unknown,
    ) {
        (Some(iops), Some(mb), _) => value(
            row.metric_iops,
            if row.metric_iops {
                iops.get()
            } else {
                mb.get()
            },
        ),
        (_, _, Some(unpublished)) => format!("unknown ({unpublished}: not published)"),
        _ => "n/a (prediction failed)".to_string(),
    }
}

/// What the binary prints: the table, the prediction's note and binding limits, the units,
/// and how far an interrupted suite got.
pub fn render_text(outcome: &BenchOutcome) -> String {
    let json = &outcome.json;
    let mut table = vec![vec![
        "scenario".to_string(),
        "target".into(),
        "spec".into(),
        "measured".into(),
        "seed expected (DS14)".into(),
        format!("predicted ({})", json.vm),
    ]];
    for row in &json.rows {
        table.push(vec![
            if row.interrupted {
                format!("{} (stopped part way)", row.scenario)
            } else {
                row.scenario.clone()
            },
            row.target.clone(),
            row.specs.clone(),
            measured_cell(row),
            row.seed_expected.clone(),
            predicted_cell(row),
        ]);
    }
    let mut out = align(&table, &[Align::Left], true);
    out.push_str(&json.prediction_note);
    out.push('\n');
    for row in &json.rows {
        if let Some(words) = &row.predicted_binding {
            out.push_str(&format!("  {}: {words}\n", row.scenario));
        }
    }
    out.push_str(
        "MB/s = 10^6 bytes/s; measured on this machine's directories, not on the seed's VM\n",
    );
    if outcome.interrupted() {
        out.push_str(&format!(
            "interrupted (Ctrl-C): {} of {} benchmarks ran; the table covers those\n",
            json.rows.len(),
            json.scenarios_planned
        ));
    }
    out
}

/// The bench's answer card: the design the benchmarks are predicted for, its binding limit,
/// and how many benchmarks ran (the bench measures this machine; it has no requirements).
fn bench_summary(outcome: &BenchOutcome) -> iofit_report::summary::Summary {
    use iofit_report::summary::{self, Summary, SummaryVerdict};
    let json = &outcome.json;
    let mut card = match &outcome.combined_prediction {
        Some(prediction) => Summary {
            design: summary::predicted_design_rows(prediction),
            binding: summary::binding_line(prediction),
            ..Default::default()
        },
        None => Summary {
            design: vec![("VM".into(), json.vm.clone())],
            ..Default::default()
        },
    };
    let complete = json.status == Status::Complete;
    card.verdict = Some(SummaryVerdict {
        pass: complete,
        badge: Some(if complete { "COMPLETE" } else { "CUT SHORT" }.into()),
        words: format!(
            "{} of {} benchmarks ran{}; measured on this machine's directories, not on {}",
            json.rows.len(),
            json.scenarios_planned,
            if complete { "" } else { " (cut short)" },
            json.vm
        ),
    });
    card.next = vec![
        "Read each row's measured figure beside the seed's expected and the predicted one.".into(),
        "Run the same suite on the Azure VM itself to judge the design.".into(),
    ];
    card
}

/// The suite as one report: the results table beside the seed's and the predicted values,
/// every benchmark's run over time, and the prediction of the combined scenario with its limits
/// (the binding one marked).
pub fn report(outcome: &BenchOutcome) -> iofit_report::html::HtmlReport {
    use iofit_report::html::{HtmlReport, Table};
    let json = &outcome.json;
    let mut table = Table::new(
        "Measured beside the seed's expected and the predicted values",
        &[
            "scenario",
            "target",
            "spec",
            "measured",
            "latency avg ms",
            "seed expected (DS14)",
            &format!("predicted ({})", json.vm),
            "predicted binding",
        ],
    );
    for row in &json.rows {
        table = table.row(vec![
            row.scenario.clone(),
            row.target.clone(),
            row.specs.clone(),
            measured_cell(row),
            format!("{:.3}", row.measured_latency_ms.get()),
            row.seed_expected.clone(),
            predicted_cell(row),
            row.predicted_binding.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    let mut notes = vec![
        json.prediction_note.clone(),
        "MB/s = 10^6 bytes/s; measured on this machine's directories, not on the seed's VM."
            .to_string(),
    ];
    match json.status {
        Status::Interrupted => notes.push(format!(
            "Interrupted (Ctrl-C) after {} benchmark(s): the tables and charts cover those.",
            json.rows.len()
        )),
        Status::Failed => notes.push(format!(
            "A benchmark failed after {} of {}: the tables and charts cover those that finished.",
            json.rows.len(),
            json.scenarios_planned
        )),
        Status::Running => notes.push(format!(
            "Written after {} of {} benchmarks; the suite was still running.",
            json.rows.len(),
            json.scenarios_planned
        )),
        Status::Complete => {}
    }
    let run = iofit_stats::RunResult {
        disk_util: Default::default(),
        tool: "iofit".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        timestamp_s: iofit_model::units::UnixSeconds(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        ),
        hostname: String::new(),
        jobs: outcome.measured_jobs.clone(),
    };
    let mut report = HtmlReport::new(format!(
        "iofit bench azure-premium: predicted for {}",
        json.vm
    ))
    .summary(bench_summary(outcome))
    .table(table)
    .section("How to read it", notes.join("\n\n"))
    .run_result(&run);
    if let Some(prediction) = &outcome.combined_prediction {
        report = report.prediction(prediction);
    }
    report
}

#[cfg(test)]
mod tests {

    #[test]
    fn json_goes_to_stdout_a_file_or_nowhere_and_two_files_are_refused() {
        let out = Path::new("out.json");
        let dest = |json: Option<&str>, output| json_destination(json.map(Path::new), "-", output);
        assert_eq!(
            dest(Some("-"), Some(out)).unwrap(),
            JsonDestination {
                stdout: true,
                file: Some(out.to_path_buf()),
                deprecated: false
            }
        );
        let old = dest(Some("old.json"), None).unwrap();
        assert!(old.deprecated && !old.stdout);
        assert_eq!(old.file.as_deref(), Some(Path::new("old.json")));
        assert_eq!(dest(None, None).unwrap().file, None);
        let both = dest(Some("old.json"), Some(out)).unwrap_err();
        assert!(
            both.is_bad_input()
                && both
                    .to_string()
                    .starts_with("--json FILE and --output FILE")
        );
    }
    use super::*;

    /// The seed's DS14 with 1 x P30 ReadOnly (warm) as CacheReads: the seed publishes DS14's
    /// cached IOPS but not its cached MB/s, so the large-read scenario's MB/s is unknown.
    #[test]
    fn ds14_cached_reads_are_unknown_where_the_cached_mb_s_is_unpublished() {
        let catalog = iofit_catalog::Catalog::embedded().unwrap();
        let edition = iofit_catalog::EDITION_SEED;
        let vm = catalog.vm("Standard_DS14", edition).unwrap();
        assert!(vm.cached_throughput_mb_s.is_none() && vm.cached_iops.is_some());
        let disk = catalog.disk("P30", edition).unwrap();
        // The seed's setup: 10 uncached disks, 4 workers x QD 32 (what `iofit bench` defaults to).
        let options = BenchOptions {
            nocache: PathBuf::from("/nocache"),
            readcache: PathBuf::from("/readcache"),
            vm: vm.name.clone(),
            disk: disk.name.clone(),
            edition: edition.into(),
            nocache_disks: 10,
            scale: 1.0,
            runtime_s: None,
            file_size: None,
            workers: 4,
            iodepth: 32,
            skip_warmup: true,
            json: None,
            report: None,
            allow_overwrite: false,
            so_far: None,
            so_far_as_json: false,
        };
        let mut seen = 0;
        for scenario in SCENARIOS.iter().filter(|s| s.read_spec.is_some()) {
            let prediction = predicted(vm, disk, &options, scenario.read_spec, scenario.write_spec)
                .unwrap()
                .expect("a prediction");
            let (iops, mb_s, unknown) = predicted_figures(Some(&prediction));
            let unknown = unknown.expect("unknown rates");
            assert!(unknown.contains("VM cached MB/s"), "{unknown}");
            assert_eq!((iops, mb_s), (None, None));
            let row = Row {
                scenario: scenario.name.into(),
                target: String::new(),
                specs: String::new(),
                measured_iops: Iops(0.0),
                measured_mb_s: MBps(0.0),
                measured_latency_ms: Millis(0.0),
                seed_expected: String::new(),
                predicted_iops: iops,
                predicted_mb_s: mb_s,
                predicted_binding: None,
                predicted_unknown: Some(unknown),
                unwarmed_cache: false,
                metric_iops: scenario.metric_iops,
                interrupted: false,
            };
            let cell = predicted_cell(&row);
            assert!(cell.starts_with("unknown (VM cached MB/s"), "{cell}");
            assert!(!cell.contains("4,194") && !cell.contains("4194"), "{cell}");
            seen += 1;
        }
        assert!(seen > 0);
    }
}
