//! `iofit demo`: the loop on embedded defaults (profile, plan, predict, a short real run,
//! compare, report) runs and reads as a report, step by step.

use iofit_testkit::iofit;
use iofit_testkit::{assert_exit, assert_self_contained};
use std::time::Duration;

#[test]
fn demo_without_the_run_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("demo.html");
    // The plan leaves out sizes retiring within 36 months of today: today is pinned (the
    // snapshot's horizon is 2029-11-27).
    let output = iofit()
        .env("SOURCE_DATE_EPOCH", "1795737600")
        .args(["demo", "--no-run", "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let text = String::from_utf8(output.stdout).unwrap();
    for heading in [
        "step 1: profile",
        "step 2: plan",
        "step 3: prediction",
        "step 4: a short real run",
        "step 5: compare",
        "step 6: report",
    ] {
        assert!(text.contains(heading), "missing {heading}");
    }
    // Data and log sized apart from the capture.
    assert!(text.contains("volume 'data' (role data, devices sdb)"));
    assert!(text.contains("volume 'log' (role log, devices sdc)"));
    let html = std::fs::read_to_string(&report).unwrap();
    assert_self_contained(&html);
    assert!(html.contains("Skipped (--no-run)"));
    assert!(
        html.contains("— binding"),
        "the limits chart marks the binding limit"
    );
    let text = text.replace(&report.display().to_string(), "<REPORT>");
    insta::assert_snapshot!("demo_no_run_text", text);
}

#[test]
fn demo_runs_the_whole_loop_and_writes_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("demo.html");
    let output = iofit()
        .args(["demo", "--run-seconds", "1", "--report"])
        .arg(&report)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "the demo exits 0 when it ran, whatever the comparison says: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("engine io_uring") || text.contains("engine psync"));
    assert!(text.contains("direct IO (O_DIRECT)") || text.contains("buffered IO"));
    assert!(text.contains("ran data: random mixed, 80% reads, 8 KiB IO"));
    assert!(text.contains("ran log: sequential writes"));
    assert!(text.contains("against volume 'data'"));
    assert!(text.contains("against volume 'log'"));
    assert!(text.contains("not the planned Azure design"));
    assert!(text.contains(&format!("wrote {}", report.display())));
    let html = std::fs::read_to_string(&report).unwrap();
    assert_self_contained(&html);
    for section in [
        "Requirements",
        "Designs, cheapest first",
        "Prediction: ",
        "— binding",
        "The real run on this machine",
        "Benchmark results",
        "IOPS per interval",
        "Latency by percentile",
        "Required vs measured: volume data",
        "Required vs measured: volume log",
    ] {
        assert!(html.contains(section), "report lacks {section}");
    }
    // The run's files are removed afterwards.
    let leftover = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("iofit-demo-run-"))
        .filter(|n| n.contains(&format!("-{}-", output_pid_hint(&text))))
        .count();
    assert_eq!(leftover, 0);
}

/// The run directory named in the text ends in `-<pid>-<n>`; its pid part.
fn output_pid_hint(text: &str) -> String {
    text.split("iofit-demo-run-")
        .nth(1)
        .and_then(|rest| rest.split('-').next())
        .unwrap_or("none")
        .to_string()
}

#[test]
fn demo_json_is_only_json() {
    let dir = tempfile::tempdir().unwrap();
    let output = iofit()
        .args(["demo", "--json", "--no-run", "--report"])
        .arg(dir.path().join("r.html"))
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(value["plan"]["designs"]
        .as_array()
        .is_some_and(|d| !d.is_empty()));
    assert!(value["prediction"]["binding"].is_object());
    assert_eq!(value["requirements"]["volumes"][0]["label"], "data");
    assert_eq!(value["requirements"]["volumes"][1]["label"], "log");
    assert!(value["run"].is_null());
}

#[test]
fn demo_bad_run_seconds_is_bad_input() {
    iofit()
        .args(["demo", "--run-seconds", "-1"])
        .assert()
        .code(2);
}

#[test]
fn demo_says_which_engine_ran() {
    let dir = tempfile::tempdir().unwrap();
    let output = iofit()
        .args([
            "demo",
            "--engine",
            "psync",
            "--run-seconds",
            "0.5",
            "--report",
        ])
        .arg(dir.path().join("r.html"))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("engine psync (--engine psync"), "{text}");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.contains("Engine: psync"));
    assert!(
        html.contains("<td>psync</td>"),
        "the jobs table names the engine"
    );
}
