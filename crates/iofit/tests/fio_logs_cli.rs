//! fio's averaged logs from `iofit run`: the columns fio 3.33 writes, numbers that add up to
//! the JSON's totals, and Debian's `fio2gnuplot` reading them (when installed).

use assert_cmd::Command;
use iofit_testkit::assert_exit;
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
    assert_exit(&out, 0);
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
fn per_io_logs_are_accepted() {
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
    // Without log_avg_msec fio logs every IO, and so does iofit (fio_compat_cli.rs).
    assert_exit(&out, 0);
}

/// Runs a 1 s null-engine job in `dir` with these extra options; returns its JSON.
fn null_job(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir)
        .args([
            "run",
            "--quiet",
            "--output-format=json",
            "--name=h",
            "--ioengine=null",
            "--size=64m",
            "--bs=4k",
            "--rw=randread",
            "--runtime=1",
            "--time_based",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    serde_json::from_slice(&out.stdout).unwrap()
}

/// fio's histogram log (`write_hist_log`, `log_hist_msec`) with `log_offset`,
/// `log_unix_epoch` and `per_job_logs=0`: fio 3.33's columns, counts that add up to the JSON's
/// IOs, and Debian's `fiologparser_hist.py` reading the same samples.
#[test]
fn histogram_log_is_read_by_fiologparser_hist() {
    let dir = tempfile::tempdir().unwrap();
    // log_unix_epoch=1 and log_offset=1 first, on the IOPS log: ms since the epoch, within the
    // run, and six columns with the offset 0 before the priority.
    let json = null_job(
        dir.path(),
        &[
            "--write_iops_log=e",
            "--log_avg_msec=250",
            "--log_offset=1",
            "--log_unix_epoch=1",
        ],
    );
    let started_s = json["timestamp"].as_u64().unwrap();
    let iops = std::fs::read_to_string(dir.path().join("e_iops.1.log")).unwrap();
    for line in iops.lines() {
        let fields: Vec<u64> = line.split(", ").map(|f| f.parse().unwrap()).collect();
        assert_eq!(fields.len(), 6, "{line}");
        assert!(
            fields[0] / 1000 >= started_s && fields[0] / 1000 <= started_s + 5,
            "{line}"
        );
        assert_eq!(&fields[2..], [0, 0, 0, 0]);
    }
    let json = null_job(
        dir.path(),
        &[
            "--write_hist_log=h",
            "--log_hist_msec=250",
            "--per_job_logs=0",
        ],
    );
    let total_ios = json["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    // per_job_logs=0: no clone number in the name.
    let hist = std::fs::read_to_string(dir.path().join("h_clat_hist.log")).unwrap();
    let mut counted = 0;
    for line in hist.lines() {
        let fields: Vec<u64> = line.split(", ").map(|f| f.parse().unwrap()).collect();
        assert_eq!(fields.len(), 3 + 1856, "time, ddir, bs and fio's 1856 bins");
        assert!(fields[0] <= 5_000, "ms from the job's start");
        assert_eq!((fields[1], fields[2]), (0, 4096));
        counted += fields[3..].iter().sum::<u64>();
    }
    assert_eq!(counted, total_ios, "the histogram log holds every IO");

    // Debian's fio ships the parser as documentation; it needs pandas (python3-pandas).
    let script = dir.path().join("fiologparser_hist.py");
    let unpacked = std::process::Command::new("sh")
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
    let parsed = std::process::Command::new(python)
        .arg(&script)
        .args(["--noweight", "--interval", "250", "h_clat_hist.log"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&parsed.stdout);
    if String::from_utf8_lossy(&parsed.stderr).contains("No module named") {
        eprintln!("skipped: fiologparser_hist.py needs python3-pandas (.ci/run installs it)");
        return;
    }
    assert_exit(&parsed, 0);
    // end-time, samples, min, avg, median, 90%, 95%, 99%, max: the samples add up.
    let samples: f64 = text
        .lines()
        .skip(1)
        .map(|l| l.split(", ").nth(1).unwrap().parse::<f64>().unwrap())
        .sum();
    assert!(
        (samples - total_ios as f64).abs() <= total_ios as f64 * 0.001,
        "fiologparser_hist counted {samples}, iofit {total_ios}\n{text}"
    );
}

/// The same psync job through fio 3.33 and iofit writes the same log files with the same
/// columns: bw, iops, lat, clat and an empty slat (a synchronous engine has no submission
/// latency), and iofit's clat never exceeds its lat.
#[test]
fn same_log_files_and_columns_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let job = |tool: &str| -> Vec<String> {
        [
            "--name=l",
            "--ioengine=psync",
            "--rw=randread",
            "--bs=4k",
            "--size=1m",
            "--runtime=1",
            "--time_based",
            "--log_avg_msec=250",
            "--log_offset=1",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([
            format!(
                "--filename={}",
                dir.path().join(format!("{tool}.dat")).display()
            ),
            format!("--write_bw_log={tool}"),
            format!("--write_iops_log={tool}"),
            format!("--write_lat_log={tool}"),
        ])
        .collect()
    };
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir.path())
        .args(["run", "--quiet"])
        .args(job("iofit"))
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_default();
    let kinds = ["bw", "iops", "lat", "clat", "slat"];
    for kind in kinds {
        assert!(
            dir.path().join(format!("iofit_{kind}.1.log")).exists(),
            "{kind}"
        );
    }
    assert_eq!(
        read("iofit_slat.1.log"),
        "",
        "psync has no submission latency"
    );
    let values = |text: &str| -> Vec<(u64, u64)> {
        text.lines()
            .map(|l| {
                let f: Vec<u64> = l.split(", ").map(|v| v.parse().unwrap()).collect();
                (f[0], f[1])
            })
            .collect()
    };
    let (lat, clat) = (
        values(&read("iofit_lat.1.log")),
        values(&read("iofit_clat.1.log")),
    );
    assert_eq!(lat.len(), clat.len());
    assert!(lat.iter().zip(&clat).all(|(l, c)| l.0 == c.0 && c.1 <= l.1));

    let Ok(fio) = std::process::Command::new("fio")
        .current_dir(dir.path())
        .args(job("fio"))
        .output()
    else {
        eprintln!("skipped: fio is not installed (.ci/run installs it)");
        return;
    };
    assert_exit(&fio, 0);
    for kind in kinds {
        let ours = read(&format!("iofit_{kind}.1.log"));
        let theirs = read(&format!("fio_{kind}.1.log"));
        assert_eq!(ours.is_empty(), theirs.is_empty(), "{kind}");
        let columns = |t: &str| t.lines().next().map(|l| l.split(", ").count());
        assert_eq!(columns(&ours), columns(&theirs), "{kind} columns");
    }
}
