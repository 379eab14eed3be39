//! `iofit size-threads` and `iofit bench azure-premium` at a tiny scale on temp dirs.

use assert_cmd::Command;
use std::ffi::OsString;
use std::path::Path;

/// The arguments of `iofit bench azure-premium --quiet FLAGS --nocache DIR --readcache DIR`.
fn suite(nocache: &Path, readcache: &Path, flags: &[&str]) -> Vec<OsString> {
    let mut args: Vec<OsString> = ["bench", "azure-premium", "--quiet"]
        .iter()
        .chain(flags)
        .map(OsString::from)
        .collect();
    args.extend(["--nocache".into(), nocache.into(), "--readcache".into()]);
    args.push(readcache.into());
    args
}

#[test]
fn size_threads_computes_threads_by_littles_law() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "size-threads",
            "--target-iops",
            "20000",
            "--duration",
            "0.7",
            "--size",
            "8m",
            "--json",
            "--target",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let latency_s = result["best_latency_us"].as_f64().unwrap() / 1e6;
    assert!(latency_s > 0.0);
    // threads = latency_s x IOPS, rounded up, and that count is what ran.
    let exact = result["threads_exact"].as_f64().unwrap();
    assert!((exact - latency_s * 20000.0).abs() < 1e-9 * 20000.0 + 1e-9);
    // At most --max-threads (256 by default): a CPU-starved one-thread run can measure a
    // latency that asks for more, and then the run is capped and says so.
    let capped = result["capped_at_max_threads"].as_bool().unwrap();
    assert_eq!(capped, exact > 256.0);
    assert_eq!(
        result["threads"].as_f64().unwrap(),
        exact.ceil().clamp(1.0, 256.0)
    );
    let reached = result["measured_iops"].as_f64().unwrap() >= 20000.0;
    assert_eq!(result["reached"].as_bool().unwrap(), reached);
    assert_eq!(
        code == 0,
        reached,
        "exit 0 exactly when the target was reached"
    );
}

#[test]
fn size_threads_bad_input_exits_2() {
    Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "size-threads",
            "--target-iops",
            "5000",
            "--target",
            "/nonexistent-iofit-dir",
        ])
        .assert()
        .code(2);
    let dir = tempfile::tempdir().unwrap();
    Command::cargo_bin("iofit")
        .unwrap()
        .args(["size-threads", "--target-iops", "-5", "--target"])
        .arg(dir.path())
        .assert()
        .code(2);
}

#[test]
fn azure_premium_suite_end_to_end_at_tiny_scale() {
    let nocache = tempfile::tempdir().unwrap();
    let readcache = tempfile::tempdir().unwrap();
    let json = readcache.path().join("bench.json");
    let report = nocache.path().join("bench.html");
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(suite(
            nocache.path(),
            readcache.path(),
            &[
                "--scale",
                "0.0001",
                "--runtime",
                "0.4",
                "--size",
                "8m",
                "--workers",
                "3",
                "--iodepth",
                "16",
            ],
        ))
        .arg("--output")
        .arg(&json)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The warm-up ran (2 h x 0.0001 = 0.72 s each) before the benchmarks.
    assert!(stdout.contains("warm-up: RandomWrites_1MB on CacheReads for 0.7s"));
    assert!(stdout.contains("warm-up: RandomReads_1MB on CacheReads"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["cache_warmed"], true);
    let rows = doc["rows"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "max write IOPS",
            "max read IOPS",
            "max combined IOPS",
            "max write MB/s",
            "max read MB/s",
            "max combined MB/s"
        ]
    );
    for row in rows {
        assert!(row["measured_iops"].as_f64().unwrap() > 0.0, "{row}");
        assert_eq!(row["unwarmed_cache"], false);
    }
    // The prediction for the seed's Standard_DS14 at 3 workers x QD 16: Little's law at the
    // predictor's 1 ms service time gives 48 / 0.001 s = 48,000 IOPS, under the VM's 50,000.
    assert_eq!(rows[0]["predicted_iops"].as_f64().unwrap(), 48_000.0);
    // Reads go to CacheReads, writes to NoCacheWrites (the seed's table swaps the names).
    assert_eq!(rows[1]["target"], "CacheReads");
    assert_eq!(rows[0]["target"], "NoCacheWrites");
    assert!(stdout.contains("seed expected (DS14)"));
    // 64 KiB rows: MB/s = IOPS x 64 KiB.
    let row = &rows[3];
    let mb = row["measured_iops"].as_f64().unwrap() * 65536.0 / 1e6;
    assert!((row["measured_mb_s"].as_f64().unwrap() - mb).abs() / mb < 0.01);

    // The report: the table, every benchmark's run, the prediction's limits, nothing fetched.
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for forbidden in ["<script", "<link", "@import", "https://", "url(", "src="] {
        assert!(!html.contains(forbidden), "{forbidden} in the report");
    }
    for needle in [
        "seed expected (DS14)",
        "predicted (Standard_DS14)",
        "max combined IOPS: RandomWrites_8K@",
        "max read MB/s: RandomReads_64K@",
        "IOPS per interval",
        "Latency by percentile",
        "Prediction: Standard_DS14",
        "Rate limits of the design",
    ] {
        assert!(html.contains(needle), "report lacks {needle}");
    }
}

#[test]
fn unwarmed_cache_is_warned() {
    let nocache = tempfile::tempdir().unwrap();
    let readcache = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(suite(
            nocache.path(),
            readcache.path(),
            &[
                "--skip-warmup",
                "--scale",
                "0.0001",
                "--runtime",
                "0.3",
                "--size",
                "4m",
                "--iodepth",
                "4",
            ],
        ))
        .arg("--json")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("was not warmed"), "{stderr}");
    // `--json` alone: only JSON on stdout, as on the other commands.
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    // Only the rows that read through the unwarmed cache are marked.
    for row in rows {
        let reads_cache = row["target"].as_str().unwrap().contains("CacheReads");
        assert_eq!(row["unwarmed_cache"], reads_cache, "{row}");
    }
}

/// The old `--json FILE` still writes FILE, with a note naming the new flag; with --output as
/// well it is refused before anything runs.
#[test]
fn json_file_is_deprecated_for_output() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let both = Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "bench",
            "azure-premium",
            "--nocache",
            "/nonexistent",
            "--readcache",
        ])
        .arg("/nonexistent")
        .arg("--json")
        .arg(&json)
        .arg("--output")
        .arg(dir.path().join("other.json"))
        .output()
        .unwrap();
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("give only --output FILE"));
    let nocache = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(suite(
            nocache.path(),
            dir.path(),
            &[
                "--skip-warmup",
                "--runtime",
                "0.1",
                "--size",
                "1m",
                "--iodepth",
                "1",
                "--workers",
                "1",
            ],
        ))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("`bench --json FILE` is deprecated; use `--output FILE`"),
        "{stderr}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["rows"].as_array().unwrap().len(), 6);
}

#[test]
fn ctrl_c_during_the_suite_still_writes_the_report() {
    let nocache = tempfile::tempdir().unwrap();
    let readcache = tempfile::tempdir().unwrap();
    let report = nocache.path().join("bench.html");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .args(suite(
            nocache.path(),
            readcache.path(),
            &[
                "--skip-warmup",
                "--runtime",
                "30",
                "--size",
                "4m",
                "--iodepth",
                "4",
                "--workers",
                "1",
            ],
        ))
        .arg("--report")
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "interrupted exit code");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("interrupted (Ctrl-C): 1 of 6 benchmarks ran"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&report).expect("the report is written after Ctrl-C");
    assert!(html.contains("Interrupted (Ctrl-C) after 1 benchmark(s)"));
    assert!(html.contains("max write IOPS: RandomWrites_8K@"));
    assert!(!html.contains("<script"));
}
