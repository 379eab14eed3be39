//! The demo's loop driven by the null engine and a fake clock, and its engine choice decided by
//! a typed setup error.

use iofit_engine::EngineError;
use iofit_model::job::{EngineKind, RwMode};
use iofit_procedure::demo::{
    choose_engine, demo_jobs, render_text, run_demo, step_plan, step_profile, DemoOptions,
    DemoRunOptions,
};
use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::observer::Quiet;
use std::time::Duration;

fn no_uring() -> Result<(), EngineError> {
    Err(EngineError::Setup {
        engine: "io_uring",
        message: "io_uring is not available here (Operation not permitted)".into(),
    })
}

fn uring_ok() -> Result<(), EngineError> {
    Ok(())
}

#[test]
fn io_uring_falls_back_to_psync_on_a_typed_setup_error_only() {
    let (engine, note) = choose_engine(EngineKind::IoUring, &no_uring).unwrap();
    assert_eq!(engine, EngineKind::Psync);
    assert!(note.unwrap().contains("Operation not permitted"));
    let (engine, note) = choose_engine(EngineKind::IoUring, &uring_ok).unwrap();
    assert_eq!((engine, note), (EngineKind::IoUring, None));
    // Any other engine error is not a reason to switch engines.
    let refused = || -> Result<(), EngineError> {
        Err(EngineError::Invalid {
            job: "x".into(),
            message: "bad".into(),
        })
    };
    assert!(choose_engine(EngineKind::IoUring, &refused).is_err());
    assert_eq!(
        choose_engine(EngineKind::Psync, &no_uring).unwrap().0,
        EngineKind::Psync
    );
}

#[test]
fn jobs_take_their_mode_from_rwmode_from_mix() {
    let (mut requirements, _) = step_profile().unwrap();
    let catalog = iofit_catalog::Catalog::embedded().unwrap();
    let plan = step_plan(&requirements, &catalog, iofit_catalog::EDITION_CURRENT, 1).unwrap();
    // All reads, mostly sequential: a sequential read job (the demo's old rules said random).
    requirements.volumes[0].sizing.read_pct = 100.0;
    requirements.volumes[0].sizing.random_pct = 10.0;
    let dir = std::path::Path::new("/nonexistent");
    let (jobs, lines) = demo_jobs(
        &requirements,
        &plan,
        dir,
        EngineKind::Psync,
        false,
        Duration::from_secs(1),
    );
    for (job, volume) in jobs.iter().zip(&requirements.volumes) {
        let s = &volume.sizing;
        assert_eq!(job.rw, RwMode::from_mix(s.read_pct, s.random_pct >= 50.0));
        assert_eq!(job.iodepth, 1, "psync: one IO per thread");
    }
    assert_eq!(jobs[0].rw, RwMode::Read);
    assert!(lines[0].contains("sequential reads"), "{}", lines[0]);
}

#[test]
fn the_whole_loop_on_the_null_engine() {
    let catalog = iofit_catalog::Catalog::embedded().unwrap();
    let options = DemoOptions {
        edition: iofit_catalog::EDITION_CURRENT.into(),
        top: 2,
        run: Some(DemoRunOptions {
            seconds: iofit_model::units::Seconds(0.05),
            engine: EngineKind::IoUring,
        }),
    };
    let mut executor = EngineExecutor::null_with_fake_clock(20_000);
    let report = run_demo(&catalog, &options, &mut executor, &mut Quiet, &no_uring).unwrap();
    let run = report.run.as_ref().unwrap();
    assert_eq!(run.engine, "psync");
    assert!(run
        .engine_note
        .as_deref()
        .unwrap()
        .contains("io_uring could not be set up"));
    assert_eq!(report.comparisons.len(), report.requirements.volumes.len());
    assert_eq!(run.result.jobs.len(), report.requirements.volumes.len());
    for job in &run.result.jobs {
        // Every volume measured, every completion counted once in its histogram.
        assert!(job.read.ios + job.write.ios > 0, "{}", job.name);
        assert_eq!(job.read.completion_latency.count, job.read.ios);
        assert_eq!(job.write.completion_latency.count, job.write.ios);
    }
    let text = render_text(&report, &[]);
    assert!(text.contains("engine psync (io_uring could not be set up here"));
    assert!(text.contains("step 5: compare"));
    // Out-of-range numbers are bad input naming the flag.
    let mut bad = options.clone();
    bad.top = 0;
    let error = run_demo(&catalog, &bad, &mut executor, &mut Quiet, &uring_ok).unwrap_err();
    assert!(error.is_bad_input() && error.to_string().starts_with("--top"));
    bad.top = 1;
    bad.run = Some(DemoRunOptions {
        seconds: iofit_model::units::Seconds(1e300),
        engine: EngineKind::Psync,
    });
    let error = run_demo(&catalog, &bad, &mut executor, &mut Quiet, &uring_ok).unwrap_err();
    assert!(error.to_string().starts_with("--runtime"), "{error}");
}

/// The report's workload-over-time charts: every volume's IOPS, MB/s, latency and queue depth,
/// design #1's limits and the next cheaper VM's, and intervals over a limit counted the same
/// way the capture's own timeline counts them.
#[test]
fn the_report_draws_the_workload_over_time_against_both_designs() {
    let mut catalog = iofit_catalog::Catalog::embedded().unwrap();
    // Counted on a design whose next cheaper VM throttles the example's peak: cached Premium
    // SSD on the DS family, so Premium SSD v2 above its free baseline is left unpriced (it
    // would be cheaper and never throttle) and the rules' retirements are dropped (DS kept).
    for disk in &mut catalog.provisioned {
        if disk.name == "PremiumV2" {
            disk.price_usd_per_iops_month = None;
            disk.price_usd_per_mb_s_month = None;
        }
    }
    for vm in &mut catalog.vms {
        vm.traits = None;
    }
    let options = DemoOptions {
        edition: iofit_catalog::EDITION_CURRENT.into(),
        top: 1,
        run: None,
    };
    let mut executor = EngineExecutor::null_with_fake_clock(20_000);
    let report = run_demo(&catalog, &options, &mut executor, &mut Quiet, &uring_ok).unwrap();
    let top = &report.plan.designs[0];
    let cheaper = report.next_cheaper.as_ref().expect("a cheaper VM exists");
    assert!(cheaper.vm_price_usd_month < top.vm_price_usd_month.unwrap());
    let html = iofit_procedure::demo::html_report(&report, &[]).render();
    for label in ["data", "log"] {
        for what in [
            "IOPS over the capture",
            "MB/s over the capture",
            "mean time per IO over the capture",
            "IOs outstanding over the capture",
        ] {
            assert!(
                html.contains(&format!("<h2>{label}: {what}")),
                "{label}: {what}"
            );
        }
    }
    // The counts the report prints are the intervals over the cheaper VM's lowest IOPS limit.
    let capture = iofit_profile::example::db_server_capture().unwrap();
    let data = &iofit_profile::example::db_server_volumes()[0];
    let points = iofit_profile::volume_timeline(&capture, data);
    let limits = iofit_report::workload_chart::limits_of(
        &cheaper.prediction,
        "data",
        iofit_report::workload_chart::Rate::Iops,
    );
    let lowest = limits.iter().map(|l| l.value).fold(f64::INFINITY, f64::min);
    let over = points.iter().filter(|p| p.iops() > lowest).count();
    assert!(over > 0, "the example peaks above the cheaper VM's limit");
    assert!(
        html.contains(&format!("in {over} of {} intervals", points.len())),
        "{over}"
    );
    // Design #1 was sized with headroom above the capture's peaks: never throttled.
    assert!(html.contains(&format!(
        "design #1 ({}) would never have throttled data",
        top.vm
    )));
    // Shaded intervals are drawn for the cheaper VM only.
    assert!(html.contains(&format!(
        "over {} (next cheaper VM, same disks)",
        cheaper.vm
    )));
    assert!(!html.contains("fill=\"#F4B6A6\""));
}

/// Sizes written in the compact job-file form ("12351B", "12KiB") where a reader meets them;
/// the one readable form is "12.1 KiB (12,351 B)" / "8 KiB".
fn compact_sizes(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for unit in ["B", "KiB", "MiB", "GiB"] {
        for (at, _) in text.match_indices(unit) {
            let after = bytes.get(at + unit.len()).copied().unwrap_or(b' ');
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if before.is_some_and(|b| b.is_ascii_digit()) && !after.is_ascii_alphanumeric() {
                let start = text[..at].rfind(' ').map_or(0, |i| i + 1);
                found.push(text[start..at + unit.len()].to_string());
            }
        }
    }
    found.sort();
    found
}

/// One meaning per word in every output of the demo (text, HTML, Markdown): sizes in one
/// form, and p99 named by what it measures with fio's word (lat or clat), never bare.
#[test]
fn the_demo_says_sizes_and_latencies_one_way() {
    assert_eq!(
        compact_sizes("8KiB IO, 12351B, 16MiB and 8 KiB"),
        ["12351B", "16MiB", "8KiB"]
    );
    let catalog = iofit_catalog::Catalog::embedded().unwrap();
    let options = DemoOptions {
        edition: iofit_catalog::EDITION_CURRENT.into(),
        top: 2,
        run: Some(DemoRunOptions {
            seconds: iofit_model::units::Seconds(0.05),
            engine: EngineKind::Psync,
        }),
    };
    let mut executor = EngineExecutor::null_with_fake_clock(20_000);
    let report = run_demo(&catalog, &options, &mut executor, &mut Quiet, &uring_ok).unwrap();
    let html = iofit_procedure::demo::html_report(&report, &[]);
    let outputs = [
        ("text", render_text(&report, &[])),
        ("html", html.render()),
        ("markdown", html.render_markdown()),
    ];
    for (format, text) in &outputs {
        assert_eq!(compact_sizes(text), Vec::<String>::new(), "{format}");
        for bare in ["total latency;", "completion latency;", ", latency avg"] {
            assert!(!text.contains(bare), "{format}: {bare}");
        }
    }
    let text = &outputs[0].1;
    // The log's mean IO size, the size designs run it at, and the size the run used: each
    // under its own name, in the one form.
    assert!(text.contains("12.1 KiB (12,351 B) IO, 0% read"));
    assert!(text.contains("designs run it at 15.9 KiB (16,231 B) per IO: the MB/s over the IOPS"));
    assert!(text.contains("12 KiB IO (the 12.1 KiB (12,351 B) mean rounded to 4 KiB blocks"));
    assert!(text.contains("total latency (fio's lat) avg"));
    // Plan (cold cache) and prediction (warm cache) name their binding limits by one rule,
    // and where they differ the text says why.
    let cold = iofit_report::plan_report::binding_name(&report.plan.designs[0].prediction);
    let warm = iofit_report::plan_report::binding_name(report.prediction.as_ref().unwrap());
    assert_eq!(
        cold != warm,
        text.contains(&format!(
            "(the plan names {cold} as the first limit to bind"
        )),
        "{cold} / {warm}"
    );
}
