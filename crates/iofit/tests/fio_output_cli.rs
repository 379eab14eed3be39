//! fio's whole report from `iofit run`, checked against fio itself and read by the tools that
//! read fio's output: the same JSON keys as fio 3.33 for the same job, percentile keys in
//! numeric order, json+ bins that Debian's `fio_jsonplus_clat2csv` reads into the same counts,
//! the terse v3 line with fio's number of fields, and the text report's lines.
//!
//! The comparisons with fio run only where fio is installed (CI installs it: .ci/run); each
//! says so when it is skipped.

use assert_cmd::Command;
use iofit_testkit::assert_exit;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// The job both tools run: a small mixed random job on a file, direct IO.
fn job_args(file: &Path) -> Vec<String> {
    [
        "--name=mix",
        "--ioengine=psync",
        "--rw=randrw",
        "--bs=4k",
        "--size=2m",
        "--runtime=1",
        "--time_based",
        "--percentile_list=1:5:10:50:90:99:99.9",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([format!("--filename={}", file.display())])
    .collect()
}

fn iofit(dir: &Path, format: &str) -> String {
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir)
        .args(["run", "--quiet"])
        .arg(format!("--output-format={format}"))
        .args(job_args(&dir.join("iofit.dat")))
        .output()
        .unwrap();
    assert_exit(&out, 0);
    String::from_utf8(out.stdout).unwrap()
}

/// fio's output for the same job, or None (with the reason printed) where fio is missing.
fn fio(dir: &Path, format: &str) -> Option<String> {
    let out = match std::process::Command::new("fio")
        .current_dir(dir)
        .arg(format!("--output-format={format}"))
        .args(job_args(&dir.join("fio.dat")))
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: fio is not installed here ({e}); .ci/run installs it");
            return None;
        }
    };
    assert_exit(&out, 0);
    Some(String::from_utf8(out.stdout).unwrap())
}

fn keys(value: &Value) -> BTreeSet<String> {
    value
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn json_has_fios_keys_in_fios_order() {
    let dir = tempfile::tempdir().unwrap();
    let text = iofit(dir.path(), "json");
    let ours: Value = serde_json::from_str(&text).unwrap();
    let job = &ours["jobs"][0];
    // Percentile keys in numeric order, as fio writes them (not 1, 10, 5, 50, ...).
    let at: Vec<usize> = [
        "\"1.000000\"",
        "\"5.000000\"",
        "\"10.000000\"",
        "\"50.000000\"",
        "\"99.900000\"",
    ]
    .iter()
    .map(|k| text.find(k).unwrap_or_else(|| panic!("{k} missing")))
    .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    // Job options as written, values unchanged.
    assert_eq!(job["job options"]["bs"], "4k");
    assert_eq!(job["job options"]["size"], "2m");
    assert_eq!(
        job["job options"]["percentile_list"],
        "1:5:10:50:90:99:99.9"
    );
    // Distributions are shares of every IO: each adds up to 100%.
    let total_ios =
        job["read"]["total_ios"].as_u64().unwrap() + job["write"]["total_ios"].as_u64().unwrap();
    assert!(total_ios > 0);
    for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
        let sum: f64 = job[key]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((sum - 100.0).abs() < 1.0, "{key} adds up to {sum}");
    }
    let latency: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|k| job[*k].as_object().unwrap().values())
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!(
        (latency - 100.0).abs() < 1.0,
        "latency ranges add up to {latency}"
    );
    // psync: every IO was issued alone.
    assert_eq!(job["iodepth_level"]["1"], 100.0);
    assert_eq!(job["latency_depth"], 1);

    let Some(theirs) = fio(dir.path(), "json") else {
        return;
    };
    let theirs: Value = serde_json::from_str(&theirs).unwrap();
    let mut top = keys(&ours);
    top.remove("iofit");
    assert_eq!(top, keys(&theirs), "top-level keys");
    let mut ours_job = keys(job);
    ours_job.remove("iofit");
    assert_eq!(ours_job, keys(&theirs["jobs"][0]), "job keys");
    for section in ["read", "write", "trim", "sync"] {
        assert_eq!(
            keys(&job[section]),
            keys(&theirs["jobs"][0][section]),
            "{section}"
        );
    }
    for key in ["clat_ns", "lat_ns", "slat_ns"] {
        assert_eq!(
            keys(&job["read"][key]),
            keys(&theirs["jobs"][0]["read"][key]),
            "{key}"
        );
        assert_eq!(
            keys(&job["read"]["clat_ns"]["percentile"]),
            keys(&theirs["jobs"][0]["read"]["clat_ns"]["percentile"])
        );
    }
    for key in [
        "iodepth_level",
        "iodepth_submit",
        "latency_ns",
        "latency_us",
        "latency_ms",
    ] {
        assert_eq!(keys(&job[key]), keys(&theirs["jobs"][0][key]), "{key}");
    }
    // The same options as written (each tool wrote its own file).
    let without_file = |v: &Value| {
        let mut v = v.clone();
        v.as_object_mut().unwrap().remove("filename");
        v
    };
    assert_eq!(
        without_file(&job["job options"]),
        without_file(&theirs["jobs"][0]["job options"])
    );
}

#[test]
fn fio_jsonplus_clat2csv_reads_json_plus() {
    let dir = tempfile::tempdir().unwrap();
    let text = iofit(dir.path(), "json+");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let clat = &doc["jobs"][0]["read"]["clat_ns"];
    let bins = clat["bins"].as_object().unwrap();
    let count: u64 = bins.values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(
        count,
        doc["jobs"][0]["read"]["total_ios"].as_u64().unwrap(),
        "bins hold every IO"
    );
    std::fs::write(dir.path().join("plus.json"), &text).unwrap();
    let run = std::process::Command::new("fio_jsonplus_clat2csv")
        .current_dir(dir.path())
        .args(["plus.json", "plus.csv"])
        .output();
    let out = match run {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: fio_jsonplus_clat2csv (Debian's fio) is not installed ({e})");
            return;
        }
    };
    assert_exit(&out, 0);
    let csv = std::fs::read_to_string(dir.path().join("plus_job0.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (count_at, cumulative_at) = (
        column("read_clat_ns_count"),
        column("read_clat_ns_cumulative"),
    );
    let mut rows = 0u64;
    let mut last_cumulative = 0u64;
    let p99 = clat["percentile"]["99.000000"].as_u64().unwrap();
    let mut p99_from_csv = None;
    let count_total = count as f64;
    for line in lines {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let Ok(count) = cells[count_at].parse::<u64>() else {
            continue;
        };
        let ns: u64 = cells[0].parse().unwrap();
        rows += count;
        last_cumulative = cells[cumulative_at].parse().unwrap();
        // fio's rule: the first bin whose running count reaches 99% of all samples.
        if p99_from_csv.is_none() && last_cumulative as f64 >= 0.99 * count_total {
            p99_from_csv = Some(ns);
        }
    }
    // The tool read every sample, and its running count reaches p99 where the JSON says.
    assert_eq!(rows, count);
    assert_eq!(last_cumulative, count);
    let from_csv = p99_from_csv.unwrap() as f64;
    assert!(
        (from_csv - p99 as f64).abs() <= p99 as f64 / 64.0,
        "csv p99 {from_csv}, json {p99}"
    );
}

#[test]
fn terse_line_has_fios_fields() {
    let dir = tempfile::tempdir().unwrap();
    let ours = iofit(dir.path(), "terse");
    let fields: Vec<&str> = ours.trim_end().split(';').collect();
    assert_eq!(fields[0], "3");
    assert_eq!(fields[2], "mix");
    let json: Value = serde_json::from_str(&iofit(dir.path(), "json")).unwrap();
    assert!(fields[5].parse::<u64>().unwrap() > 0, "KiB read");
    assert!(json["jobs"][0]["read"]["io_kbytes"].as_u64().unwrap() > 0);
    let Some(theirs) = fio(dir.path(), "terse") else {
        return;
    };
    let theirs: Vec<&str> = theirs.trim_end().split(';').collect();
    // Same layout: fio adds one disk's nine fields where it found the disk, as iofit does.
    assert_eq!(fields.len(), theirs.len(), "ours {ours}");
    for index in [17, 18, 57, 58] {
        let percent = |f: &str| f.split_once("%=").map(|(p, _)| p.to_string());
        assert_eq!(
            percent(fields[index]),
            percent(theirs[index]),
            "field {index}"
        );
    }
}

#[test]
fn text_has_fios_lines() {
    let dir = tempfile::tempdir().unwrap();
    let text = iofit(dir.path(), "normal");
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        "mix: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=psync, iodepth=1"
    );
    assert!(text.lines().nth(1).unwrap().starts_with("iofit-"));
    assert_eq!(text.lines().nth(2).unwrap(), "Starting 1 process");
    for needle in [
        "mix: (groupid=0, jobs=1): err= 0: pid=",
        "  read: IOPS=",
        "  write: IOPS=",
        "    clat percentiles (",
        "  lat (",
        ", majf=",
        "  IO depths    : 1=100.0%",
        "     submit    : 0=0.0%, 4=100.0%",
        "     complete  : 0=0.0%, 4=100.0%",
        "     issued rwts: total=",
        "     latency   : target=0, window=0, percentile=100.00%, depth=1",
        "Run status group 0 (all jobs):",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    let Some(theirs) = fio(dir.path(), "normal") else {
        return;
    };
    // Every kind of line fio prints for this job, iofit prints too (by its leading label).
    let label = |line: &str| -> Option<String> {
        let head = line.split([':', '=', '(']).next()?.trim_end().to_string();
        (!head.trim().is_empty() && !line.starts_with("fio-") && !line.starts_with("mix"))
            .then_some(head)
    };
    let ours: BTreeSet<String> = text.lines().filter_map(label).collect();
    for line in theirs.lines() {
        if let Some(head) = label(line) {
            assert!(
                ours.contains(&head),
                "fio prints {line:?}; iofit has no {head:?} line"
            );
        }
    }
}

/// fio-plot (PyPI), as .ci/run installs it: the directory holding its package.
fn fio_plot_path() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/pylib")
}

#[test]
fn fio_plot_reads_the_json() {
    let lib = fio_plot_path();
    let python = Path::new("/usr/bin/python3");
    if !lib.join("fio_plot").exists() || !python.exists() {
        eprintln!(
            "skipped: fio-plot is not installed in {} (.ci/run installs it with pip)",
            lib.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    // fio-plot picks files by the rw, iodepth and numjobs in their job options.
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "run",
            "--quiet",
            "--output-format=json",
            "--name=p",
            "--ioengine=null",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--numjobs=1",
            "--size=64m",
            "--runtime=1",
            "--time_based",
            "--filename=unused",
        ])
        .output()
        .unwrap();
    assert_exit(&out, 0);
    std::fs::write(data.join("randread-1-1.json"), &out.stdout).unwrap();
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    // fio-plot's own reading of the directory (what its charts are drawn from).
    let probe = r#"
import sys, json
from fio_plot.fiolib import defaultsettings, getdata
s = defaultsettings.get_default_settings()
s.update({"input_directory": [sys.argv[1]], "rw": "randread", "iodepth": [1], "numjobs": [1],
          "type": [], "filter": ["read", "write"]})
s = getdata.configure_default_settings(s, getdata.get_routing_dict(), "bargraph2d_qd")
rows = getdata.get_json_data(s)[0]["data"]
print(json.dumps([{k: r[k] for k in ("iops", "lat", "bw", "type")} for r in rows]))
"#;
    let run = std::process::Command::new(python)
        .env("PYTHONPATH", &lib)
        .env("MPLBACKEND", "Agg")
        .args(["-c", probe])
        .arg(&data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    if stderr.contains("No module named") {
        eprintln!("skipped: fio-plot needs python3-matplotlib and python3-pil: {stderr}");
        return;
    }
    assert!(run.status.success(), "{stderr}");
    let rows: Value = serde_json::from_slice(&run.stdout).unwrap();
    let read = &ours["jobs"][0]["read"];
    assert_eq!(rows[0]["type"], "read");
    assert_eq!(rows[0]["iops"].as_f64(), read["iops"].as_f64());
    assert_eq!(rows[0]["lat"].as_f64(), read["lat_ns"]["mean"].as_f64());
    assert_eq!(rows[0]["bw"], read["bw"]);
    // And its command line draws the latency/IOPS chart from the same file.
    let chart = std::process::Command::new(python)
        .env("PYTHONPATH", &lib)
        .env("MPLBACKEND", "Agg")
        .current_dir(dir.path())
        .args([
            "-m", "fio_plot", "-i", "data", "-T", "iofit", "-l", "-r", "randread",
        ])
        .args(["-d", "1", "-n", "1", "-o", "chart.png"])
        .output()
        .unwrap();
    assert_exit(&chart, 0);
    let png = std::fs::read(dir.path().join("chart.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "fio-plot wrote no PNG");
}

/// The header's (R), (W) and (T) ranges are the sizes the job file states for reads, writes and
/// trims, as fio prints them: a trim job's trims run at the third size, yet its (R) and (W)
/// still show the first two; a read/write job's (T) shows the third.
#[test]
fn the_header_states_each_directions_block_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "randtrim",
            "--bs=4k,8k,16k",
            "bs=(R) 4096B-4096B, (W) 8192B-8192B, (T) 16.0KiB-16.0KiB",
        ),
        (
            "randrw",
            "--bs=4k,8k,16k",
            "bs=(R) 4096B-4096B, (W) 8192B-8192B, (T) 16.0KiB-16.0KiB",
        ),
        (
            "randrw",
            "--bssplit=4k/50:64k/50,8k/100,16k/100",
            "bs=(R) 4096B-64.0KiB, (W) 8192B-8192B, (T) 16.0KiB-16.0KiB",
        ),
        (
            "randwrite",
            "--bsrange=4k-16k",
            "bs=(R) 4096B-16.0KiB, (W) 4096B-16.0KiB, (T) 4096B-16.0KiB",
        ),
    ];
    for (rw, bs, want) in cases {
        let args = |file: &str| {
            vec![
                "--name=h".to_string(),
                format!("--rw={rw}"),
                bs.to_string(),
                "--size=256k".into(),
                "--io_size=64k".into(),
                format!("--filename={}", dir.path().join(file).display()),
            ]
        };
        let out = Command::cargo_bin("iofit")
            .unwrap()
            .current_dir(dir.path())
            .args(["run", "--quiet", "--output-format=normal"])
            .args(args(&format!("iofit-{rw}.dat")))
            .output()
            .unwrap();
        assert_exit(&out, 0);
        let text = String::from_utf8(out.stdout).unwrap();
        let first = text.lines().next().unwrap();
        assert!(first.contains(want), "{rw} {bs}: {first}");
        // fio's own header for the same job, where fio is installed.
        let Ok(theirs) = std::process::Command::new("fio")
            .current_dir(dir.path())
            .arg("--output-format=normal")
            .args(args(&format!("fio-{rw}.dat")))
            .output()
        else {
            continue;
        };
        let theirs = String::from_utf8_lossy(&theirs.stdout);
        let theirs_first = theirs.lines().next().unwrap_or_default();
        let bs_part = |line: &str| {
            line.split_once("bs=")
                .and_then(|(_, rest)| rest.split_once(", ioengine"))
                .map(|(bs, _)| bs.to_string())
        };
        assert_eq!(bs_part(first), bs_part(theirs_first), "{rw} {bs}");
    }
}
