//! fio's per-priority latencies for cmdprio jobs (fio 3.33's JSON `prios`: one entry per IO
//! priority with samples, when there are at least two): the entries' counts add up to the
//! direction's IOs and follow cmdprio_percentage.

use assert_cmd::Command;
use serde_json::Value;
use std::time::Duration;

fn run(extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "run",
            "--quiet",
            "--output-format",
            "json",
            "--name=p",
            "--filename=data",
            "--size=4m",
            "--bs=4k",
            "--rw=randread",
            "--iodepth=4",
        ])
        .args(extra)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&output.stdout).expect("one JSON document")
}

#[test]
fn cmdprio_jobs_report_latency_per_priority_adding_up_to_the_total() {
    for engine in ["io_uring", "psync"] {
        let cmdprio = [
            &format!("--ioengine={engine}")[..],
            "--cmdprio_percentage=30",
            "--cmdprio_class=2",
            "--cmdprio=1",
        ];
        let json = run(&cmdprio);
        let read = &json["jobs"][0]["read"];
        let total = read["total_ios"].as_u64().unwrap();
        assert_eq!(total, 1024);
        let prios = read["prios"].as_array().expect("prios");
        let entries: Vec<(u64, u64, u64)> = prios
            .iter()
            .map(|p| {
                (
                    p["prioclass"].as_u64().unwrap(),
                    p["prio"].as_u64().unwrap(),
                    p["clat_ns"]["N"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(entries.len(), 2, "{engine}: {entries:?}");
        // The job's own priority (none: 0/0) and cmdprio's best-effort level 1.
        assert_eq!((entries[0].0, entries[0].1), (0, 0));
        assert_eq!((entries[1].0, entries[1].1), (2, 1));
        assert_eq!(entries[0].2 + entries[1].2, total, "{engine}");
        // 30% of 1024 draws: 307 expected, binomial sd 14.7.
        assert!((260..=355).contains(&entries[1].2), "{engine}: {entries:?}");
        assert!(prios[0]["clat_ns"]["percentile"]["99.000000"].is_u64());
    }
    // With lat_percentiles fio reports total latency per priority.
    let json = run(&[
        "--ioengine=psync",
        "--cmdprio_percentage=50",
        "--cmdprio_class=2",
        "--lat_percentiles=1",
    ]);
    let prios = json["jobs"][0]["read"]["prios"].as_array().unwrap();
    let n: u64 = prios
        .iter()
        .map(|p| p["lat_ns"]["N"].as_u64().unwrap())
        .sum();
    assert_eq!(n, 1024);
    // No per-IO priorities: no prios.
    let json = run(&["--ioengine=psync"]);
    assert!(json["jobs"][0]["read"].get("prios").is_none());
}
