//! fio's averaged logs from `iofit run`: the columns fio 3.33 writes, numbers that add up to
//! the JSON's totals, and Debian's `fio2gnuplot` reading them (when installed).

use assert_cmd::Command;
use std::path::Path;

fn run_with_logs(dir: &Path) -> serde_json::Value {
    let prefix = dir.join("x");
    let prefix = prefix.to_str().unwrap();
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "run",
            "--quiet",
            "--output-format=json",
            "--name=x",
            "--ioengine=null",
            "--size=64m",
            "--rw=randread",
            "--runtime=1",
            "--time_based",
            "--log_avg_msec=250",
        ])
        .arg(format!("--write_bw_log={prefix}"))
        .arg(format!("--write_iops_log={prefix}"))
        .arg(format!("--write_lat_log={prefix}"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (time ms, value, direction, bs, prio) per line.
fn lines(path: &Path) -> Vec<[u64; 5]> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: Vec<u64> = l.split(", ").map(|f| f.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3], v[4]]
        })
        .collect()
}

#[test]
fn averaged_logs_match_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = run_with_logs(dir.path());
    let read = &json["jobs"][0]["read"];
    let total_ios = read["total_ios"].as_u64().unwrap() as f64;
    let iops = lines(&dir.path().join("x_iops.1.log"));
    assert!(iops.len() >= 3, "{iops:?}");
    let mut previous_ms = 0;
    let mut ios = 0.0;
    for [ms, value, ddir, bs, prio] in &iops {
        assert_eq!((*ddir, *bs, *prio), (0, 0, 0));
        ios += *value as f64 * (ms - previous_ms) as f64 / 1000.0;
        previous_ms = *ms;
    }
    // IOs per window x window length add up to the job's IOs (rounding per window only).
    assert!(
        (ios - total_ios).abs() / total_ios < 0.02,
        "{ios} vs {total_ios}"
    );
    // Bandwidth is KiB/s: 4 KiB IOs.
    let bw = lines(&dir.path().join("x_bw.1.log"));
    for (b, i) in bw.iter().zip(&iops) {
        assert!((b[1] as i64 - 4 * i[1] as i64).abs() <= 4, "{b:?} {i:?}");
    }
    // Latency lines only for windows with IO, in ns, within the run's min..max.
    let lat = lines(&dir.path().join("x_lat.1.log"));
    let max_ns = read["lat_ns"]["max"].as_f64().unwrap() as u64;
    assert!(!lat.is_empty() && lat.iter().all(|l| l[1] <= max_ns));

    // Debian's fio2gnuplot reads the bandwidth log and finds the same samples.
    if let Ok(out) = std::process::Command::new("fio2gnuplot")
        .args(["-p", "x_bw.1.log", "-d"])
        .arg(dir.path().join("g"))
        .current_dir(dir.path())
        .output()
    {
        assert!(out.status.success());
        let global = std::fs::read_to_string(dir.path().join("g/x_bw.1.global")).unwrap();
        let max: f64 = global
            .lines()
            .find_map(|l| l.strip_prefix("max="))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(max as u64, bw.iter().map(|l| l[1]).max().unwrap());
    }
}

#[test]
fn per_io_logs_are_refused_with_the_fix() {
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "run",
            "--parse-only",
            "--name=x",
            "--size=1m",
            "--filename=/tmp/x",
            "--write_bw_log=x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("log_avg_msec"));
}
