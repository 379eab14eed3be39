//! One depth, one answer: every design `plan` lists for the repository's sample requirements
//! and captures, predicted by `predict --requirements` with the same requirements and the
//! plan's assumptions, meets them with the plan's binding limit and the plan's headroom on
//! every limit. `predict` takes the design as a user would type it (`--disk`, `--stripe`).

use iofit_model::Requirements;
use iofit_predict::Prediction;
use iofit_procedure::plan::{self, CatalogChoice, PlanRequest, RequirementsSource};
use iofit_procedure::predict::{self, PredictRequest};
use std::path::{Path, PathBuf};

fn current() -> CatalogChoice {
    CatalogChoice {
        edition: iofit_catalog::EDITION_CURRENT.into(),
        ..Default::default()
    }
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data")
}

/// The requirements to plan for: the example file, the compare fixtures, and requirements
/// profiled from shipped captures (Linux iostat, Windows PerfMon, the demo's database server,
/// whose capture gives an average queue size the plan does not run at).
fn requirement_sets(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut sets = vec![
        (
            "results/req-oltp-pass.toml".to_string(),
            samples().join("results/req-oltp-pass.toml"),
        ),
        (
            "results/req-oltp-fail.toml".to_string(),
            samples().join("results/req-oltp-fail.toml"),
        ),
    ];
    let mut write = |name: &str, requirements: &Requirements| {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, toml::to_string(requirements).unwrap()).unwrap();
        sets.push((name.to_string(), path));
    };
    let example: Requirements = toml::from_str(iofit_planner::EXAMPLE_REQUIREMENTS).unwrap();
    write("example-requirements", &example);
    let (demo, _) = iofit_procedure::demo::step_profile().unwrap();
    assert!(
        demo.volumes.iter().any(|v| v.sizing.queue_depth.is_some()),
        "the demo's capture gives the application's own queue size"
    );
    write("demo-db-server", &demo);
    for capture in [
        "iostat/sysstat-10.2.1_xkt_en_US.txt",
        "perfmon/typeperf_en-US_15s.csv",
    ] {
        let path = samples().join(capture);
        let parsed = iofit_profile::parse_files(&[path.as_path()], &Default::default()).unwrap();
        let requirements =
            iofit_profile::requirements(&parsed, &iofit_profile::SizingOptions::default()).unwrap();
        write(&capture.replace('/', "_"), &requirements);
    }
    sets
}

/// What predict is given for one planned design: `--disk` per volume, `--stripe` per volume.
fn predict_request(design: &iofit_planner::PlannedDesign, requirements: &Path) -> PredictRequest {
    let mut disks = Vec::new();
    let mut stripes = Vec::new();
    for v in &design.volumes {
        // No label in the spec: predict names each volume after its requirement, in order
        // (a PerfMon label such as "0 C:" is no --disk label).
        let mut spec = format!(
            "{}x{}:{}",
            v.disk_count,
            v.disk_sku,
            v.caching.to_string().to_ascii_lowercase()
        );
        if let (Some(iops), Some(mb_s)) = (v.provisioned_iops, v.provisioned_throughput_mb_s) {
            spec.push_str(&format!(
                ",size_gib={},iops={},mb_s={}",
                v.disk_size_gib.get(),
                iops.get(),
                mb_s.get()
            ));
        }
        disks.push(spec);
        stripes.push(format!(
            "{}",
            v.stripe_size_bytes.map_or(65536, |s| s.as_u64())
        ));
    }
    PredictRequest {
        vm: design.vm.clone(),
        disks,
        stripe: stripes,
        rw: vec!["randread".into()],
        bs: vec!["8k".into()],
        requirements: Some(requirements.to_path_buf()),
        // The plan's assumption: a cold cache (every read reaches the disks).
        cache_hit_pct: 0.0,
        catalog: current(),
        ..Default::default()
    }
}

fn assert_same(plan: &Prediction, predicted: &Prediction, what: &str) {
    assert_eq!(
        predicted.meets_requirements,
        Some(true),
        "{what}: {:?}",
        predicted.violations
    );
    assert!(predicted.fits(), "{what}: {:?}", predicted.violations);
    let binding = |p: &Prediction| {
        p.binding
            .as_ref()
            .map(|b| (b.kind, b.scope.clone(), b.name.clone()))
    };
    assert_eq!(binding(predicted), binding(plan), "{what}: binding limit");
    assert_eq!(predicted.limits.len(), plan.limits.len(), "{what}: limits");
    for (p, q) in plan.limits.iter().zip(&predicted.limits) {
        assert_eq!(
            (p.kind, &p.scope, &p.name),
            (q.kind, &q.scope, &q.name),
            "{what}"
        );
        assert_eq!(p.status, q.status, "{what}: {}", p.name);
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * a.abs().max(1.0),
            (a, b) => a == b,
        };
        assert!(
            close(p.headroom_pct, q.headroom_pct),
            "{what}: {} headroom {:?} vs {:?}",
            p.name,
            p.headroom_pct,
            q.headroom_pct
        );
    }
    for (p, q) in plan.volumes.iter().zip(&predicted.volumes) {
        assert_eq!(
            p.queue.outstanding_ios, q.queue.outstanding_ios,
            "{what}: {} depth",
            p.label
        );
    }
}

#[test]
fn every_planned_design_passes_predict_with_the_same_requirements() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (name, path) in requirement_sets(dir.path()) {
        let request = PlanRequest {
            requirements: RequirementsSource::File(path.clone()),
            growth: None,
            top: 1000,
            caching: None,
            cache_hit_pct: 0.0,
            service_latency_ms: None,
            min_headroom_pct: iofit_planner::DEFAULT_MIN_HEADROOM_PCT,
            busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
            catalog: current(),
            report: None,
            capture: Vec::new(),
        };
        let outcome = plan::plan(&request).unwrap();
        // req-oltp-fail asks 0.05 ms, below the service time assumed: no design to check.
        assert_eq!(outcome.found(), !name.contains("fail"), "{name}");
        for design in &outcome.plan.designs {
            let what = format!("{name}: #{} {}", design.rank, design.vm);
            for v in &design.volumes {
                // The depth printed is threads x per-thread depth, exactly.
                assert_eq!(
                    v.queue_depth_total,
                    v.threads * v.queue_depth_per_thread,
                    "{what}"
                );
            }
            let predicted = predict::predict(&predict_request(design, &path))
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_same(&design.prediction, &predicted.prediction, &what);
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} designs checked");
}

/// The same on Google Cloud: every design `plan --cloud gcp` lists for the sample requirements,
/// and for volumes only pd-extreme carries (100,000 random reads; a 1,500 MB/s scan), passes
/// `predict --cloud gcp` given its `--disk` arguments as the plan prints them (`iops=` of a
/// provisioned disk included) and the same requirements, with the plan's binding limit, the
/// plan's delivered IOPS and at least the plan's headroom.
#[test]
fn every_gcp_design_passes_predict_gcp_with_the_same_requirements() {
    use iofit_planner::clouds_gcp::{plan_gcp, GcpPlanOptions};
    use iofit_procedure::clouds_gcp::{predict_gcp, GcpPredictRequest};
    let dir = tempfile::tempdir().unwrap();
    let mut sets = requirement_sets(dir.path());
    for (name, sizing) in [
        (
            "random-100k",
            "iops = 100000\nthroughput_mb_s = 0\nio_size_bytes = 8192\nread_pct = 100\ncapacity_gib = 1000",
        ),
        (
            "scan-1500",
            "iops = 0\nthroughput_mb_s = 1500\nio_size_bytes = 1048576\nread_pct = 100\ncapacity_gib = 2000",
        ),
        (
            "mixed-60k",
            "iops = 60000\nthroughput_mb_s = 0\nio_size_bytes = 16384\nread_pct = 30\ncapacity_gib = 800",
        ),
    ] {
        let path = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &path,
            format!("[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\n{sizing}\nrandom_pct = 100\n"),
        )
        .unwrap();
        sets.push((name.to_string(), path));
    }
    let catalog = iofit_catalog::clouds::gcp::GcpCatalog::embedded().unwrap();
    let (mut checked, mut provisioned) = (0, 0);
    for (name, path) in sets {
        let requirements: Requirements =
            toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let options = GcpPlanOptions {
            top: 50,
            ..Default::default()
        };
        let plan = plan_gcp(&requirements, &catalog, &options);
        // Google Cloud plans do not size for latency: req-oltp-fail's 0.05 ms is not a bound.
        assert!(!plan.designs.is_empty(), "{name}: {:?}", plan.notes);
        for design in &plan.designs {
            let what = format!("{name}: #{} {}", design.rank, design.machine_type);
            let request = GcpPredictRequest {
                vm: design.machine_type.clone(),
                disks: design.disks.iter().map(|d| d.disk_arg.clone()).collect(),
                requirements: Some(path.clone()),
                ..Default::default()
            };
            let outcome = predict_gcp(&request).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(outcome.passes(), "{what}: {:?}", outcome.prediction);
            let predicted = &outcome.prediction;
            assert_eq!(predicted.binding, design.prediction.binding, "{what}");
            assert!(
                (predicted.delivered_iops - design.prediction.delivered_iops)
                    .get()
                    .abs()
                    < 1e-6,
                "{what}"
            );
            assert!(
                predicted.headroom_pct >= options.min_headroom_pct - 1e-6,
                "{what}"
            );
            provisioned += design
                .disks
                .iter()
                .filter(|d| d.spec.provisioned_iops.is_some())
                .count();
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} designs checked");
    assert!(
        provisioned >= 8,
        "only {provisioned} pd-extreme disks checked"
    );
}
