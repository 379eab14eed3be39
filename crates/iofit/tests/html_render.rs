//! Renders an HTML report and, when `chromium` is on PATH (.ci/run installs Debian's), takes a
//! headless screenshot of it and checks the PNG is a real picture. Without chromium the render
//! checks still run and the screenshot is skipped with a note.

use iofit_model::requirements::{Requirements, SizingTarget, VolumeRequirements};
use iofit_report::chart::{LimitBar, LimitScope};
use iofit_report::compare::{compare, read_results, CompareContext};
use iofit_report::html::HtmlReport;
use iofit_stats::IntervalSample;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn report_html() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/results/fio-randrw-8k.json");
    let mut run = read_results(
        &std::fs::read_to_string(&path).unwrap(),
        "fio-randrw-8k.json",
    )
    .unwrap();
    // Real fio JSON carries no time series; give the job one so the charts have lines to draw.
    run.jobs[0].series = (0..30)
        .map(|second| IntervalSample {
            clat_mean_ns: Default::default(),
            slat_mean_ns: Default::default(),
            latency_bins: Default::default(),
            by_direction: None,
            start_ms: iofit_model::units::Millis(second * 1000),
            interval_ms: iofit_model::units::Millis(1000),
            read_ios: 7000 + (second % 7) * 120,
            read_bytes: iofit_model::Bytes((7000 + (second % 7) * 120) * 8192),
            write_ios: 3000 + (second % 5) * 90,
            write_bytes: iofit_model::Bytes((3000 + (second % 5) * 90) * 8192),
            trim_ios: 0,
            trim_bytes: iofit_model::Bytes(0),
            latency_mean_ns: iofit_model::units::Nanos(95_000.0 + (second % 4) as f64 * 6_000.0),
            latency_p99_ns: iofit_model::units::Nanos(280_000 + (second % 6) * 20_000),
            ..Default::default()
        })
        .collect();
    let requirements = Requirements {
        source: "html_render test".into(),
        growth_factor: 1.0,
        host: Default::default(),
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            sizing: SizingTarget {
                iops: iofit_model::Iops(12_000.0),
                throughput_mb_s: iofit_model::MBps(80.0),
                latency_ms: Some(iofit_model::units::Millis(1.0)),
                io_size_bytes: iofit_model::Bytes(8192),
                read_pct: 70.0,
                random_pct: 100.0,
                capacity_gib: Some(iofit_model::units::GiB(512.0)),
                queue_depth: None,
            },
            ..Default::default()
        }],
    };
    let jobs: Vec<_> = run.jobs.iter().collect();
    let comparison = compare(
        &jobs,
        &requirements.volumes[0],
        &CompareContext::default(),
        "fio-randrw-8k.json",
        "requirements",
    );
    HtmlReport::new("iofit report <test> & render check")
        .section(
            "What this is",
            "A real fio 3.33 result compared against an 8 KiB OLTP requirement.",
        )
        .requirements(&requirements)
        .limits(&[
            LimitBar::new("Standard_DS13 uncached IOPS", 25_600.0, "IOPS", false)
                .scope(LimitScope::Vm),
            LimitBar::new("4 x P30 IOPS", 20_000.0, "IOPS", true).scope(LimitScope::Disk),
            LimitBar::new("required", 12_000.0, "IOPS", false).scope(LimitScope::Requirement),
            LimitBar::new("Standard_DS13 uncached MB/s", 384.0, "MB/s", false)
                .scope(LimitScope::Vm),
            LimitBar::new("4 x P30 MB/s", 800.0, "MB/s", false).scope(LimitScope::Disk),
        ])
        .comparison(&comparison)
        .run_result(&run)
        .render()
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|candidate| candidate.is_file())
    })
}

#[test]
fn report_is_self_contained() {
    let html = report_html();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("iofit report &lt;test&gt; &amp; render check"));
    assert!(!html.contains("<script"));
    assert!(!html.contains("<link"));
    assert!(!html.contains("https://"));
    assert_eq!(
        html.matches("http://").count(),
        html.matches("http://www.w3.org/2000/svg").count()
    );
    // Charts: IOPS, MB/s and latency over time, percentiles, 2 limit charts, required vs measured.
    assert_eq!(html.matches("<svg").count(), 7);
    assert!(html.contains("20,000 IOPS — binding"));
    assert!(html.contains("required 12,000 IOPS"));
}

/// Runs chromium with a deadline; a hung browser must not hang the suite.
fn screenshot(chromium: &Path, html: &Path, dir: &Path) -> PathBuf {
    let shot = dir.join("shot.png");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1200,2000")
        .arg(format!("file://{}", html.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium exited with {status}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    shot
}

#[test]
fn renders_in_headless_chromium() {
    let Some(chromium) = on_path("chromium").or_else(|| on_path("chromium-browser")) else {
        eprintln!(
            "note: chromium is not on PATH; skipping the screenshot check (.ci/run installs it)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html_path = dir.path().join("report.html");
    std::fs::write(&html_path, report_html()).unwrap();
    let shot = screenshot(&chromium, &html_path, dir.path());
    let png = std::fs::read(&shot).expect("chromium wrote no screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    // A blank 1200x2000 page compresses to a few KB; a page of tables and charts is far larger.
    assert!(png.len() > 40_000, "screenshot only {} bytes", png.len());
    if let Some(keep) = std::env::var_os("IOFIT_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}
