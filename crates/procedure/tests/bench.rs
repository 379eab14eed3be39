//! The azure-premium suite driven by the null engine and a fake clock: no IO, exact and
//! repeatable numbers, and failures injected on purpose.

use iofit_model::job::JobSpec;
use iofit_model::units::Iops;
use iofit_procedure::bench::{render_text, run_suite, BenchOptions, SCENARIOS};
use iofit_procedure::execute::{EngineExecutor, Executor};
use iofit_procedure::observer::{Event, Observer, Warning};
use iofit_procedure::ProcedureError;
use iofit_stats::RunResult;
use std::path::Path;

fn options(dir: &Path) -> BenchOptions {
    BenchOptions {
        nocache: dir.to_path_buf(),
        readcache: dir.to_path_buf(),
        vm: "Standard_DS14".into(),
        disk: "P30".into(),
        edition: iofit_catalog::EDITION_SEED.into(),
        nocache_disks: 10,
        scale: 1e-5,
        runtime_s: Some(iofit_model::units::Seconds(0.05)),
        file_size: Some(iofit_model::units::Bytes::mib(16)),
        workers: 3,
        iodepth: 128,
        skip_warmup: true,
        json: Some(dir.join("bench.json")),
        report: Some(dir.join("bench.html")),
        allow_overwrite: false,
        so_far: None,
        so_far_as_json: false,
    }
}

/// Null engine, each clock reading 20 us later.
fn null() -> EngineExecutor {
    EngineExecutor::null_with_fake_clock(20_000)
}

#[derive(Default)]
struct Recorder {
    events: Vec<Event>,
    warnings: Vec<Warning>,
}

impl Observer for Recorder {
    fn event(&mut self, event: &Event) {
        self.events.push(event.clone());
    }
    fn warning(&mut self, warning: &Warning) {
        self.warnings.push(warning.clone());
    }
}

fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_whole_suite_on_the_null_engine() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = options(dir.path());
    options.skip_warmup = false;
    let mut recorder = Recorder::default();
    let outcome = run_suite(&options, &mut null(), &mut recorder).unwrap();
    let rows = &outcome.json.rows;
    assert_eq!(rows.len(), SCENARIOS.len());
    assert!(outcome.json.cache_warmed);
    assert!(recorder.warnings.is_empty(), "{:?}", recorder.warnings);
    // Two warm-ups, then one event per scenario, in the seed's order.
    let names: Vec<String> = recorder
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Scenario { name, .. } => Some(name.clone()),
            _ => None,
        })
        .collect();
    let expected: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
    assert_eq!(names, expected);
    for (row, scenario) in rows.iter().zip(SCENARIOS.iter()) {
        // The null engine keeps every worker's queue full: Little's law says IOPS x mean
        // latency = 3 workers x QD 128 per spec.
        let specs = scenario.read_spec.is_some() as u32 + scenario.write_spec.is_some() as u32;
        let expected = f64::from(3 * 128 * specs);
        let outstanding = row.measured_iops.get() * row.measured_latency_ms.get() / 1e3;
        assert!(
            (outstanding - expected).abs() < 0.05 * expected,
            "{}: IOPS x latency = {outstanding}, expected {expected}",
            row.scenario
        );
        // A predicted figure, or "unknown" where the scenario reads from the cached disk: the
        // seed publishes DS14's cached IOPS but not its cached MB/s.
        match scenario.read_spec {
            None => assert!(row.predicted_iops.is_some(), "{}", row.scenario),
            Some(_) => {
                assert_eq!(row.predicted_iops, None, "{}", row.scenario);
                let unknown = row.predicted_unknown.as_deref().unwrap_or_default();
                assert!(unknown.contains("VM cached MB/s"), "{}", row.scenario);
            }
        }
    }
    // The seed's DS14 at 3 workers x QD 128: the VM's 50,000 uncached IOPS bind.
    assert_eq!(rows[0].predicted_iops, Some(Iops(50_000.0)));
    let json = read_json(&dir.path().join("bench.json"));
    assert_eq!(json["status"], "complete");
    assert_eq!(json["rows"].as_array().unwrap().len(), 6);
    let html = std::fs::read_to_string(dir.path().join("bench.html")).unwrap();
    assert!(html.contains("max combined MB/s"));
    let text = render_text(&outcome);
    assert!(text.contains("seed expected (DS14)") && text.contains("max read IOPS"));
    // The warm-up marker is ours and says this boot.
    assert!(dir.path().join(".iofit-cache-warmed").is_file());
}

/// Runs the null engine but fails the `fail_at`-th run as an engine refusal would.
struct FailingAt {
    inner: EngineExecutor,
    calls: usize,
    fail_at: usize,
}

impl Executor for FailingAt {
    fn execute(
        &mut self,
        jobs: &[JobSpec],
        label: &str,
        observer: &mut dyn Observer,
    ) -> Result<RunResult, ProcedureError> {
        self.calls += 1;
        if self.calls == self.fail_at {
            return Err(ProcedureError::JobFailed {
                label: label.into(),
                job: jobs[0].name.clone(),
                message: "injected IO error".into(),
            });
        }
        self.inner.execute(jobs, label, observer)
    }
    fn stop_requested(&self) -> bool {
        false
    }
}

#[test]
fn a_failure_in_scenario_3_keeps_scenarios_1_and_2_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let options = options(dir.path());
    let mut executor = FailingAt {
        inner: null(),
        calls: 0,
        fail_at: 3,
    };
    let error = run_suite(&options, &mut executor, &mut Recorder::default()).unwrap_err();
    assert!(error.to_string().contains("max combined IOPS"), "{error}");
    assert!(!error.is_bad_input());
    let json = read_json(&dir.path().join("bench.json"));
    assert_eq!(json["status"], "failed", "not written as if whole");
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["scenario"], "max write IOPS");
    assert_eq!(rows[1]["scenario"], "max read IOPS");
    assert!(rows[1]["measured_iops"].as_f64().unwrap() > 0.0);
    let html = std::fs::read_to_string(dir.path().join("bench.html")).unwrap();
    assert!(html.contains("A benchmark failed after 2 of 6"));
}

#[test]
fn unwarmed_reads_are_a_typed_warning() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::default();
    let outcome = run_suite(&options(dir.path()), &mut null(), &mut recorder).unwrap();
    assert!(!outcome.json.cache_warmed);
    assert!(recorder
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::NotWarmedThisBoot { .. })));
    let cache_warnings = recorder
        .warnings
        .iter()
        .filter(|w| matches!(w, Warning::CacheNotWarmed { .. }))
        .count();
    // Four of the six scenarios read CacheReads.
    assert_eq!(cache_warnings, 4);
    assert_eq!(
        outcome
            .json
            .rows
            .iter()
            .filter(|r| r.unwarmed_cache)
            .count(),
        4
    );
}

#[test]
fn out_of_range_numbers_are_bad_input_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    type Change = fn(&mut BenchOptions);
    let cases: [(Change, &str); 8] = [
        (|o| o.scale = 1e300, "--scale"),
        (|o| o.scale = f64::NAN, "--scale"),
        (|o| o.scale = 0.0, "--scale"),
        (
            |o| o.runtime_s = Some(iofit_model::units::Seconds(1e300)),
            "--runtime",
        ),
        (|o| o.workers = 0, "--workers"),
        (|o| o.iodepth = u32::MAX, "--iodepth"),
        (|o| o.nocache_disks = 1000, "--nocache-disks"),
        (
            |o| o.file_size = Some(iofit_model::units::Bytes(1)),
            "--size",
        ),
    ];
    for (change, flag) in cases {
        let mut options = options(dir.path());
        change(&mut options);
        let error = run_suite(&options, &mut null(), &mut Recorder::default()).unwrap_err();
        assert!(error.is_bad_input(), "{error}");
        assert!(error.to_string().starts_with(flag), "{error}");
    }
    assert!(
        !dir.path().join("bench.json").exists(),
        "nothing ran, nothing written"
    );
}
