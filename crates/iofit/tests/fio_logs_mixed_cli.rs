//! fio's averaged latency logs and histogram logs for a job that reads and writes: a line per
//! window and direction, as fio 3.33 writes them, whose numbers agree with the JSON per
//! direction (histogram counts = IOs; latency means weighted by those counts = the JSON's
//! mean), and Debian's `fiologparser_hist.py` reading each direction.

use std::path::Path;
use std::process::Command;

/// Per line: the numbers of a log line.
fn lines(path: &Path) -> Vec<Vec<u64>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(", ").map(|f| f.parse().unwrap()).collect())
        .collect()
}

#[test]
fn mixed_latency_and_histogram_logs_agree_with_the_json_per_direction() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .current_dir(d)
        .args([
            "run",
            "--quiet",
            "--output-format=json",
            "--name=m",
            "--filename=data",
            "--size=8m",
            "--rw=randrw",
            "--rwmixread=30",
            "--ioengine=io_uring",
            "--iodepth=4",
            "--runtime=1",
            "--time_based",
            "--log_avg_msec=250",
            "--log_hist_msec=250",
            "--write_lat_log=m",
            "--write_hist_log=m",
            // The page cache serves the reads, so a loaded disk cannot starve the windows.
            "--invalidate=0",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hist = lines(&d.join("m_clat_hist.1.log"));
    let lat = lines(&d.join("m_lat.1.log"));
    let clat = lines(&d.join("m_clat.1.log"));
    for (ddir, name) in [(0u64, "read"), (1, "write")] {
        let ios = json["jobs"][0][name]["total_ios"].as_u64().unwrap();
        let mean_ns = json["jobs"][0][name]["lat_ns"]["mean"].as_f64().unwrap();
        assert!(ios > 100, "{name}: {ios}");
        // Histogram lines: time, direction, block size, 1856 bins.
        let mine: Vec<&Vec<u64>> = hist.iter().filter(|l| l[1] == ddir).collect();
        assert!(mine.len() >= 4, "a line per window: {}", mine.len());
        let counts: Vec<u64> = mine.iter().map(|l| l[3..].iter().sum()).collect();
        assert!(mine.iter().all(|l| l.len() == 3 + 1856 && l[2] == 4096));
        assert_eq!(
            counts.iter().sum::<u64>(),
            ios,
            "{name}: histogram count = IOs"
        );
        // Latency lines: time, mean ns, direction, 0, 0; one per window with IO, in the
        // histogram's windows; their means weighted by the windows' IOs give the JSON's.
        let means: Vec<&Vec<u64>> = lat.iter().filter(|l| l[2] == ddir).collect();
        let weights: Vec<(u64, u64)> = mine
            .iter()
            .zip(&counts)
            .filter(|(_, &n)| n > 0)
            .map(|(l, &n)| (l[0], n))
            .collect();
        assert_eq!(means.len(), weights.len(), "{name}");
        let mut weighted = 0.0;
        for (line, (time, n)) in means.iter().zip(&weights) {
            assert_eq!((line[0], line[3], line[4]), (*time, 0, 0), "{line:?}");
            weighted += line[1] as f64 * *n as f64;
        }
        let log_mean = weighted / ios as f64;
        assert!(
            (log_mean - mean_ns).abs() <= mean_ns * 0.01 + 1.0,
            "{name}: log {log_mean} vs JSON {mean_ns}"
        );
        // The completion-latency log has the same windows, never above the total's.
        let clat_mine: Vec<&Vec<u64>> = clat.iter().filter(|l| l[2] == ddir).collect();
        assert_eq!(clat_mine.len(), means.len());
        assert!(clat_mine.iter().zip(&means).all(|(c, t)| c[1] <= t[1]));
    }
    parse_with_fiologparser_hist(d, &json);
}

/// Debian's fio ships `fiologparser_hist.py` as documentation; it needs python3-pandas (.ci/run
/// installs both). Each direction's samples add up to the JSON's IOs.
fn parse_with_fiologparser_hist(d: &Path, json: &serde_json::Value) {
    let script = d.join("fiologparser_hist.py");
    let unpacked = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "zcat /usr/share/doc/fio/fiologparser_hist.py.gz > {}",
            script.display()
        ))
        .status();
    let python = "/usr/bin/python3";
    if !matches!(unpacked, Ok(s) if s.success()) || !Path::new(python).exists() {
        eprintln!("skipped: fiologparser_hist.py (Debian's fio) or /usr/bin/python3 missing");
        return;
    }
    for (direction, name) in [("r", "read"), ("w", "write")] {
        let parsed = Command::new(python)
            .arg(&script)
            .args(["--noweight", "--interval", "250", "--directions", direction])
            .arg("m_clat_hist.1.log")
            .current_dir(d)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&parsed.stderr);
        if stderr.contains("No module named") {
            eprintln!("skipped: fiologparser_hist.py needs python3-pandas");
            return;
        }
        assert!(parsed.status.success(), "{stderr}");
        let text = String::from_utf8_lossy(&parsed.stdout);
        // Columns: end-time, dir, samples, ... with --directions.
        let header: Vec<&str> = text.lines().next().unwrap().split(", ").collect();
        let column = header.iter().position(|h| *h == "samples").unwrap();
        let samples: f64 = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split(", ").nth(column)?.parse::<f64>().ok())
            .sum();
        let ios = json["jobs"][0][name]["total_ios"].as_f64().unwrap();
        assert!(
            (samples - ios).abs() <= ios * 0.001,
            "{name}: fiologparser_hist counted {samples}, the JSON {ios}\n{text}"
        );
    }
}
