//! `plan` and `predict` as library calls, without the command line: the seed's cost example
//! and DS14 benchmark, the requirements -> queue depth step (Little's law), job files as
//! workloads, flag errors that name the flag, and `--report` written whole or refused before
//! any work. No IO but the report and the small requirements files each test writes.

use iofit_procedure::plan::{
    self, CatalogChoice, PlanRequest, ReportRequest, RequirementsSource, VolumeFlags,
};
use iofit_procedure::predict::{self, PredictRequest};
use iofit_report::ReportFormat;
use std::path::{Path, PathBuf};

fn seed() -> CatalogChoice {
    CatalogChoice {
        edition: "seed-2016".into(),
        ..Default::default()
    }
}

fn flags(iops: f64, read_pct: f64) -> VolumeFlags {
    VolumeFlags {
        iops: Some(iofit_model::units::Iops(iops)),
        throughput_mb_s: None,
        latency_ms: None,
        capacity_gib: None,
        read_pct,
        random_pct: 100.0,
        io_size: "8k".into(),
        role: "data".into(),
    }
}

/// The seed's cost example: 16,000 IOPS, 70% reads, 8k, strict fit (0% headroom).
fn seed_plan() -> PlanRequest {
    PlanRequest {
        requirements: RequirementsSource::Flags(flags(16_000.0, 70.0)),
        growth: None,
        top: 3,
        caching: None,
        cache_hit_pct: 0.0,
        service_latency_ms: None,
        min_headroom_pct: 0.0,
        busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
        catalog: seed(),
        report: None,
        capture: Vec::new(),
    }
}

fn error_text<T: std::fmt::Debug>(result: Result<T, iofit_procedure::ProcedureError>) -> String {
    let error = result.expect_err("bad input");
    assert!(error.is_bad_input(), "{error}");
    error.to_string()
}

#[test]
fn seed_cost_example_ranks_ds13_first_and_prices_it_from_its_parts() {
    let outcome = plan::plan(&seed_plan()).unwrap();
    assert!(outcome.found());
    let first = &outcome.plan.designs[0];
    assert_eq!(first.vm, "Standard_DS13");
    assert_eq!(first.volumes[0].disk_count, 4);
    let text = outcome.text();
    assert!(
        text.contains("#1  Standard_DS13  $1,548.00/month = VM $1,003.66 + disks $544.34"),
        "{text}"
    );
    // The seed's printed total differs from its parts: the note says so.
    assert!(text.contains("the seed prints 1544.34 $"), "{text}");
    let json = outcome.json();
    assert_eq!(json["plan"]["designs"][0]["vm"], "Standard_DS13");
    assert_eq!(json["edition"], "seed-2016");
    assert!(!json["tables"].as_array().unwrap().is_empty());
}

#[test]
fn growth_scales_the_requirement_the_plan_sizes() {
    let mut request = seed_plan();
    request.growth = Some(2.0);
    let outcome = plan::plan(&request).unwrap();
    assert_eq!(outcome.requirements.volumes[0].sizing.iops.get(), 32_000.0);
    assert!(outcome.plan.totals.iops.get() >= 32_000.0);
    request.growth = Some(0.0);
    assert!(error_text(plan::plan(&request)).starts_with("--growth 0"));
}

#[test]
fn flag_errors_name_the_flag_not_the_toml_key() {
    let mut request = seed_plan();
    request.requirements = RequirementsSource::Flags(flags(16_000.0, 150.0));
    let text = error_text(plan::plan(&request));
    assert!(text.starts_with("--read-pct"), "{text}");
    assert!(!text.contains("sizing."), "{text}");

    let mut request = seed_plan();
    request.top = 0;
    assert!(error_text(plan::plan(&request)).starts_with("--top 0"));
    let mut request = seed_plan();
    request.min_headroom_pct = f64::NAN;
    assert!(error_text(plan::plan(&request)).starts_with("--min-headroom-pct NaN"));
    let mut request = seed_plan();
    request.catalog.edition = "1999".into();
    assert!(error_text(plan::plan(&request)).contains("--edition '1999' is unknown"));
    let mut request = seed_plan();
    request.catalog.region = Some("east us".into());
    assert!(error_text(plan::plan(&request)).starts_with("--region 'east us'"));
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn requirements_file_errors_name_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "req.toml",
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = \"many\"\n",
    );
    let text = error_text(plan::read_requirements(&path));
    assert!(text.contains("req.toml: line 4"), "{text}");
    let json = write(dir.path(), "r.json", "{\"jobs\": []}");
    assert!(error_text(plan::read_requirements(&json)).contains("this is a JSON document"));
}

#[test]
fn report_is_written_whole_and_never_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let requirements = write(
        dir.path(),
        "req.toml",
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 5000.0\nthroughput_mb_s = 0.0\n\
         io_size_bytes = 8192\nread_pct = 70.0\n",
    );
    let before = std::fs::read(&requirements).unwrap();
    let mut request = seed_plan();
    request.requirements = RequirementsSource::File(requirements.clone());
    request.report = Some(ReportRequest {
        path: requirements.clone(),
        format: ReportFormat::Markdown,
        allow_overwrite: false,
    });
    let text = error_text(plan::plan(&request));
    assert!(text.contains("--report"), "{text}");
    assert_eq!(std::fs::read(&requirements).unwrap(), before);

    let report = dir.path().join("plan.md");
    request.report = Some(ReportRequest {
        path: report.clone(),
        format: ReportFormat::Markdown,
        allow_overwrite: false,
    });
    let outcome = plan::plan(&request).unwrap();
    let markdown = std::fs::read_to_string(&report).unwrap();
    assert_eq!(markdown, outcome.report().render_markdown());
    assert!(markdown.contains(&outcome.plan.designs[0].vm), "{markdown}");
    // Only the report and the input are in the directory: no temporary file left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn report_format_flag_is_checked() {
    assert_eq!(plan::report_format(None, None).unwrap(), None);
    let path = Path::new("r.html");
    assert_eq!(
        plan::report_format(Some("MD"), Some(path)).unwrap(),
        Some(ReportFormat::Markdown)
    );
    assert!(
        error_text(plan::report_format(Some("pdf"), Some(path))).contains("--report-format 'pdf'")
    );
    assert!(error_text(plan::report_format(Some("markdown"), None)).contains("give --report"));
}

fn ds14() -> PredictRequest {
    PredictRequest {
        vm: "Standard_DS14".into(),
        disks: vec!["10xP30:none".into(), "1xP30:readonly".into()],
        stripe: vec!["64k".into()],
        rw: vec!["randread".into()],
        rwmixread: 50.0,
        bs: vec!["8k".into()],
        iodepth: Some(32),
        numjobs: Some(4),
        cache_hit_pct: 100.0,
        catalog: seed(),
        ..Default::default()
    }
}

#[test]
fn ds14_benchmark_is_capped_by_the_vm_uncached_iops() {
    let outcome = predict::predict(&ds14()).unwrap();
    assert!(outcome.fits());
    assert_eq!(outcome.prediction.total_iops.get(), 114_000.0);
    let json = outcome.json();
    assert_eq!(json["prediction"]["binding"]["kind"], "vm_uncached_iops");
    // Only the tables the prediction used are listed.
    let tables = json["tables"].as_array().unwrap();
    assert!(!tables.is_empty() && tables.len() <= outcome.prediction.tables.len());
    assert!(outcome.text().contains("binding:"));
    assert!(outcome.report().render().contains("Standard_DS14"));
}

#[test]
fn requirement_sets_queue_depth_by_plans_rule() {
    let dir = tempfile::tempdir().unwrap();
    let requirements = write(
        dir.path(),
        "req.toml",
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 4000.0\nthroughput_mb_s = 0.0\n\
         io_size_bytes = 8192\nread_pct = 100.0\n",
    );
    let request = PredictRequest {
        vm: "ds1".into(),
        disks: vec!["1xP30".into()],
        rw: vec!["randread".into()],
        bs: vec!["8k".into()],
        requirements: Some(requirements),
        cache_hit_pct: 100.0,
        catalog: seed(),
        ..Default::default()
    };
    let outcome = predict::predict(&request).unwrap();
    let volume = &outcome.prediction.volumes[0];
    assert_eq!(volume.label, "data");
    // Plan's rule: 4,000 IOPS x 1 ms (the SSD service time assumed) = 4 IOs in flight by
    // Little's law, run at the depth where the P30 reaches its 5,000 IOPS: 5 x 1 ms.
    assert_eq!(volume.queue.depth_for_target, Some(4));
    assert_eq!(volume.queue.outstanding_ios, 5);
    let plan_rule = iofit_planner::queue_depths(4000.0, 1.0, 5000.0, 1);
    assert_eq!(
        (plan_rule.littles_law, plan_rule.to_limits),
        (4, volume.queue.outstanding_ios)
    );
    assert_eq!(volume.max_iops.get(), 3_200.0);
    assert!(outcome.text().contains("DOES NOT meet"));

    // The application's own average queue (a capture's aqu-sz) is not the depth predicted at;
    // where it is below Little's law's, a warning says the application must queue deeper.
    let with_own = write(
        dir.path(),
        "own.toml",
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 4000.0\nthroughput_mb_s = 0.0\n\
         io_size_bytes = 8192\nread_pct = 100.0\nqueue_depth = 2.0\n",
    );
    let own = predict::predict(&PredictRequest {
        requirements: Some(with_own),
        ..request.clone()
    })
    .unwrap();
    assert_eq!(own.prediction.volumes[0].queue.outstanding_ios, 5);
    let captured = own
        .prediction
        .warnings
        .iter()
        .find(|w| matches!(w, iofit_predict::Warning::CapturedDepthShort { .. }))
        .unwrap_or_else(|| panic!("{:?}", own.prediction.warnings));
    assert!(
        matches!(
            captured,
            iofit_predict::Warning::CapturedDepthShort {
                littles_law_depth: 4,
                plan_depth: 5,
                ..
            }
        ),
        "{captured:?}"
    );
    assert_eq!(captured.volume(), Some("data"));
    assert!(
        captured.to_string().contains(
            "the capture kept 2.0 IOs outstanding on average; 4,000 IOPS at 1 ms per IO takes 4"
        ),
        "{captured}"
    );
}

#[test]
fn job_file_volumes_follow_its_places() {
    let dir = tempfile::tempdir().unwrap();
    let job = write(
        dir.path(),
        "two.fio",
        "[global]\nioengine=libaio\nrw=randread\nbs=8k\niodepth=16\nsize=1g\n\
         [a]\ndirectory=/mnt/one\nrate_iops=1000\nnumjobs=2\n\
         [b]\ndirectory=/mnt/two\nrw=write\nbs=64k\n",
    );
    let mut request = PredictRequest {
        vm: "DS14".into(),
        disks: vec!["1xP30:readonly".into(), "2xP30:none".into()],
        rw: vec!["randread".into()],
        bs: vec!["8k".into()],
        job: Some(job),
        cache_hit_pct: 100.0,
        catalog: seed(),
        ..Default::default()
    };
    let outcome = predict::predict(&request).unwrap();
    let text = outcome.text();
    assert!(
        text.contains(
            "vol1 <- /mnt/one (a): 100% reads, 100% random, 8 KiB reads, 2 threads x QD 16"
        ),
        "{text}"
    );
    assert!(
        text.contains("rate_iops x numjobs caps this volume at 2,000 IOPS"),
        "{text}"
    );
    assert!(
        text.contains("vol2 <- /mnt/two (b): 0% reads, 0% random, 64 KiB writes"),
        "{text}"
    );
    request.disks.pop();
    let text = error_text(predict::predict(&request));
    assert!(text.contains("/mnt/one, /mnt/two"), "{text}");
}

#[test]
fn per_volume_flags_and_counts_are_checked() {
    let mut request = ds14();
    request.rw = vec!["randread".into(), "write".into(), "read".into()];
    assert!(error_text(predict::predict(&request)).starts_with("--rw given 3 times for 2 --disk"));
    let mut request = ds14();
    request.iodepth = Some(0);
    assert!(error_text(predict::predict(&request)).starts_with("--iodepth 0"));
    let mut request = ds14();
    request.rwmixread = 101.0;
    assert!(error_text(predict::predict(&request)).starts_with("--rwmixread 101"));
    let mut request = ds14();
    request.disks = vec!["1xPV2".into()];
    let text = error_text(predict::predict(&request));
    assert!(!text.is_empty());
}
