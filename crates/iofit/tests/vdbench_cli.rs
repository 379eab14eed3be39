//! `iofit vdbench -f PARMFILE -o DIR`: vdbench's command line on a vnet1-style file (an
//! include for the luns, sd/wd/rd defaults, for-less runs), read back the way vdbench's users
//! read its output: `grep avg summary.html`, the summary's columns by position, and
//! flatfile.html by a reader written after vdbench's Flat format (comment lines start with
//! `*`, one line of column names, then one line of values per interval and per avg).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

fn iofit() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("iofit"))
}

/// A vnet1-style pair of files: the luns in an include, the workload and runs in the main one.
fn vnet1_files(dir: &Path) -> std::path::PathBuf {
    let data = dir.join("vdb1");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(
        dir.join("vnet1-luns"),
        format!(
            "* Storage definitions\nsd=default,openflags=o_direct,size=4m\nsd=sd1,lun={0}/vdbench_file1\nsd=sd2,lun={0}/vdbench_file2\n",
            data.display()
        ),
    )
    .unwrap();
    let main = dir.join("vnet1-RndMix-workload");
    std::fs::write(
        &main,
        "include=vnet1-luns\nwd=RndMix,sd=sd*,rdpct=50,seekpct=100,xfersize=8k\n* Run Defaults\nrd=default,warmup=60,elapsed=600,iorate=max,interval=1\n* Run Definitions\nrd=RndMix,wd=RndMix,sd=(\"sd*\"),threads=4\n",
    )
    .unwrap();
    main
}

/// vdbench's flatfile read as its own ParseFlat reads it: rows keyed by column name.
fn read_flatfile(text: &str) -> Vec<HashMap<String, String>> {
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('*') && !l.starts_with("<title>") && !l.trim().is_empty());
    let names: Vec<String> = lines
        .next()
        .expect("a column header line")
        .split_whitespace()
        .map(String::from)
        .collect();
    lines
        .map(|l| {
            let values: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(values.len(), names.len(), "{l}");
            names
                .iter()
                .cloned()
                .zip(values.into_iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn vnet1_file_runs_with_vdbenchs_command_line_and_output_directory() {
    let dir = tempfile::tempdir().unwrap();
    let parm = vnet1_files(dir.path());
    let out = dir.path().join("output");
    // vdbench's -e/-w/-i override the file's elapsed=600 and warmup=60.
    let result = iofit()
        .current_dir(dir.path())
        .args(["vdbench", "-f"])
        .arg(&parm)
        .arg("-o")
        .arg(&out)
        .args(["-e", "2", "-w", "1", "-i", "1"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    for file in [
        "summary.html",
        "totals.html",
        "flatfile.html",
        "logfile.html",
        "parmfile.html",
        "errorlog.html",
        "histogram.html",
    ] {
        let text = std::fs::read_to_string(out.join(file)).unwrap();
        assert!(text.starts_with("<title>Vdbench output/"), "{file}: {text}");
    }
    let summary = std::fs::read_to_string(out.join("summary.html")).unwrap();
    // `grep avg summary.html`: one line, warm-up interval 1 left out, intervals 2-3 averaged.
    let avg: Vec<&str> = summary.lines().filter(|l| l.contains("avg")).collect();
    assert_eq!(avg.len(), 1, "{summary}");
    let columns: Vec<&str> = avg[0].split_whitespace().collect();
    assert_eq!(columns[1], "avg_2-3");
    // time, label, then vdbench's 12 columns: rate, MB/sec, bytes/io, read%, resp, read
    // resp, write resp, resp max, resp stddev, queue depth, cpu% sys+u, cpu% sys.
    assert_eq!(columns.len(), 14, "{}", avg[0]);
    let number = |i: usize| columns[i].parse::<f64>().unwrap();
    let (rate, mb, bytes, read_pct) = (number(2), number(3), number(4), number(5));
    assert!(rate > 0.0);
    assert_eq!(bytes, 8192.0);
    assert!(
        (mb - rate * 8192.0 / 1_048_576.0).abs() <= 0.01 + mb * 1e-3,
        "{mb} vs {rate}"
    );
    assert!((read_pct - 50.0).abs() < 10.0, "{read_pct}");
    assert!(number(9) >= number(6), "resp max >= resp time");
    // Queue depth is rate x response time (8 synchronous threads over the two SDs).
    assert!((number(11) - rate * number(6) / 1000.0).abs() <= 0.1);
    // The console shows the same lines.
    assert!(stdout.contains(avg[0].trim()), "{stdout}");
    // flatfile.html: interval rows 1-3, then the avg row with the summary's numbers.
    let rows = read_flatfile(&std::fs::read_to_string(out.join("flatfile.html")).unwrap());
    let intervals: Vec<&str> = rows.iter().map(|r| r["Interval"].as_str()).collect();
    assert_eq!(intervals, ["1", "2", "3", "avg_2-3"]);
    let flat_rate: f64 = rows[3]["rate"].parse().unwrap();
    assert!((flat_rate - rate).abs() <= 0.01, "{flat_rate} vs {rate}");
    assert_eq!(rows[3]["Run"], "RndMix");
    // totals.html: the run's Starting line and its avg line.
    let totals = std::fs::read_to_string(out.join("totals.html")).unwrap();
    assert!(totals.contains("Starting RD=RndMix; I/O rate: Uncontrolled MAX; elapsed=2 warmup=1;"));
    assert!(totals.lines().any(|l| l.contains("avg_2-3")));
    let parmfile = std::fs::read_to_string(out.join("parmfile.html")).unwrap();
    assert!(parmfile.contains("rd=RndMix,wd=RndMix"));
}

#[test]
fn simulate_shows_the_runs_without_io() {
    let dir = tempfile::tempdir().unwrap();
    let parm = vnet1_files(dir.path());
    let result = iofit()
        .current_dir(dir.path())
        .args(["vdbench", "-s", "-f"])
        .arg(&parm)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(result.status.success(), "{stdout}");
    assert!(
        stdout.contains("Simulating RD=RndMix; I/O rate: Uncontrolled MAX; elapsed=600 warmup=60;"),
        "{stdout}"
    );
    assert!(
        !dir.path().join("vdb1/vdbench_file1").exists(),
        "no IO, no lun created"
    );
    assert!(!dir.path().join("output").exists(), "-s writes no reports");
}

#[test]
fn a_word_that_is_not_name_value_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let parm = vnet1_files(dir.path());
    let result = iofit()
        .current_dir(dir.path())
        .args(["vdbench", "-f"])
        .arg(&parm)
        .arg("threads")
        .output()
        .unwrap();
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&result.stderr).contains("name=value"));
}
