//! `iofit compare` end to end: exit 0 when every requirement is met, 1 when one fails, 2 on bad
//! input, on genuine fio 3.33 JSON kept under tests/data/results/.

use iofit_testkit::iofit;
use predicates::prelude::*;
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/results")
        .join(name)
}

#[test]
fn passing_results_exit_0() {
    iofit()
        .arg("compare")
        .arg(data("fio-randrw-8k.json"))
        .arg("--requirements")
        .arg(data("req-oltp-pass.toml"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("verdict: PASS"))
        .stdout(predicate::str::contains("IOPS"))
        .stdout(predicate::str::contains("10,036"));
}

#[test]
fn failing_results_exit_1_with_advice() {
    iofit()
        .arg("compare")
        .arg(data("fio-randrw-8k.json"))
        .arg("--requirements")
        .arg(data("req-oltp-fail.toml"))
        .args(["--volume", "data", "--disks", "4xP30:none"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("verdict: FAIL"))
        // psync keeps one IO in flight: Little's law and the stripe rule both say why.
        .stdout(predicate::str::contains("too few IOs in flight"))
        .stdout(predicate::str::contains("4 disks x 8 = 32"));
}

#[test]
fn json_csv_and_markdown_formats() {
    let output = iofit()
        .arg("compare")
        .arg(data("fio-randread-4k-libaio-qd16-2jobs.json"))
        .arg("--requirements")
        .arg(data("req-oltp-pass.toml"))
        .arg("--json")
        .output()
        .unwrap();
    // 4 KiB all-read results against an 8 KiB 70% read requirement: IO size and mix fail.
    assert_eq!(output.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["passed"], false);
    assert_eq!(value["measured"]["outstanding_ios"], 32);
    let kinds: Vec<&str> = value["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"io_size_unlike_application"), "{kinds:?}");
    assert!(kinds.contains(&"mix_unlike_application"), "{kinds:?}");

    iofit()
        .arg("compare")
        .arg(data("fio-randrw-8k.json"))
        .arg("--requirements")
        .arg(data("req-oltp-pass.toml"))
        .args(["--format", "csv"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "volume,role,metric,unit,rule,tolerance,required,measured,verdict",
        ))
        .stdout(predicate::str::contains(
            "data,data,IO size,bytes,within_percent,10,8192,8192,pass",
        ));

    iofit()
        .arg("compare")
        .arg(data("fio-randrw-8k.json"))
        .arg("--requirements")
        .arg(data("req-oltp-pass.toml"))
        .args(["--format", "markdown"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("**Verdict: PASS**"))
        .stdout(predicate::str::contains("| metric | unit | required |"));
}

#[test]
fn report_file_is_written_whole() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.html");
    iofit()
        .arg("compare")
        .arg(data("fio-write-64k-2clones.json"))
        .arg("--requirements")
        .arg(data("req-oltp-fail.toml"))
        .args(["--volume", "log", "--report"])
        .arg(&report)
        .assert()
        .code(predicate::in_iter([0, 1]));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert!(html.contains("seqwrite64k"));
    assert!(!html.contains("<script"));
    // No temporary file left beside it.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn iofit_run_results_compare_and_chart_over_time() {
    // Written by `iofit run --output-format json` (see tests/data/results/README.md): it carries
    // the per-second series that fio's JSON lacks, so the report draws charts over time.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.html");
    iofit()
        .arg("compare")
        .arg(data("iofit-randrw-8k.json"))
        .arg("--requirements")
        .arg(data("req-oltp-pass.toml"))
        .args([
            "--vm",
            "DS13",
            "--disks",
            "4xP30:none",
            "--edition",
            "seed-2016",
        ])
        .arg("--report")
        .arg(&report)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "design: Standard_DS13 with 4xP30:none",
        ))
        .stdout(predicate::str::contains("verdict: PASS"));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("IOPS per interval"));
    assert!(!html.contains("no per-interval samples"));
    assert!(html.contains("VM uncached IOPS (Standard_DS13)"));
    assert!(html.contains("— binding"));
}

fn bad_input(args: &[&str], expected: &str) {
    iofit()
        .arg("compare")
        .args(args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(expected))
        .stderr(predicate::function(|text: &str| {
            text.trim_end().lines().count() == 1
        }));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let results = data("fio-randrw-8k.json").display().to_string();
    let requirements = data("req-oltp-pass.toml").display().to_string();

    // Missing results file.
    let missing = dir.path().join("nope.json").display().to_string();
    bad_input(
        &[&missing, "--requirements", &requirements],
        "nope.json: cannot read results JSON",
    );
    // Malformed JSON, truncated.
    let truncated = path(
        "truncated.json",
        &std::fs::read_to_string(&results).unwrap()[..900],
    );
    bad_input(
        &[&truncated, "--requirements", &requirements],
        "truncated.json: not a JSON document",
    );
    // JSON without the key compare needs.
    let no_iops = path(
        "no-iops.json",
        r#"{"jobs":[{"jobname":"a","read":{"runtime":1000,"io_bytes":1,"bw":1}}]}"#,
    );
    bad_input(
        &[&no_iops, "--requirements", &requirements],
        "missing key 'jobs[0].read.iops'",
    );
    // Binary garbage.
    let binary = dir.path().join("binary.json");
    std::fs::write(&binary, [0u8, 159, 146, 150, 255, 0, 1]).unwrap();
    bad_input(
        &[binary.to_str().unwrap(), "--requirements", &requirements],
        "binary.json",
    );
    // Requirements with an unknown key: file, line and key named.
    let unknown = path(
        "unknown.toml",
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 1.0\nthroughput_mb_s = 1.0\nio_size_bytes = 8192\nread_pct = 70.0\nlatency_msec = 2.0\n",
    );
    bad_input(
        &[&results, "--requirements", &unknown],
        "unknown.toml: line 8, column 1: unknown field `latency_msec`",
    );
    bad_input(&[&results, "--requirements", &unknown], "latency_msec");
    // Requirements out of range.
    let range = path(
        "range.toml",
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 1.0\nthroughput_mb_s = 1.0\nio_size_bytes = 8192\nread_pct = 170.0\n",
    );
    bad_input(&[&results, "--requirements", &range], "sizing.read_pct");
    // Two volumes with one label: refused as `plan` refuses them (one validation).
    let volume = "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 1.0\nthroughput_mb_s = 1.0\nio_size_bytes = 8192\nread_pct = 70.0\n";
    let twice = path("twice.toml", &format!("{volume}{volume}"));
    bad_input(
        &[&results, "--requirements", &twice, "--volume", "data"],
        "two volumes are labelled 'data'",
    );
    // Several volumes and none chosen; an unknown volume.
    let several = data("req-oltp-fail.toml").display().to_string();
    bad_input(&[&results, "--requirements", &several], "--volume");
    bad_input(
        &[&results, "--requirements", &several, "--volume", "tmp"],
        "no volume 'tmp'",
    );
    // An unknown VM size, and --vm without --disks.
    bad_input(
        &[
            &results,
            "--requirements",
            &requirements,
            "--vm",
            "Standard_XX99",
            "--disks",
            "1xP30",
        ],
        "--vm",
    );
    // (clap's own usage error: exit 2, several lines of usage.)
    iofit()
        .args([
            "compare",
            &results,
            "--requirements",
            &requirements,
            "--vm",
            "DS13",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--disk"));
    // A bad --disk spec (given by its old name, which still works).
    bad_input(
        &[
            &results,
            "--requirements",
            &requirements,
            "--disks",
            "0xP30",
        ],
        "--disk",
    );
    // A provisioned volume without what was bought, named by compare's own flag.
    bad_input(
        &[
            &results,
            "--requirements",
            &requirements,
            "--vm",
            "Standard_D8s_v5",
            "--disks",
            "1xPremiumV2",
        ],
        "--disk '1xPremiumV2': size_gib, iops and mb_s are each needed",
    );
}

/// compare reads requirements with plan's reader: the line of a bad value is the line it is
/// on (the first line after a blank one included), and a results file given as requirements
/// is named as such.
#[test]
fn requirements_are_read_as_plan_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(
        &bad,
        "[[volumes]]\nlabel = \"data\"\n\n[volumes.sizing]\niops = \"many\"\n",
    )
    .unwrap();
    let results = data("fio-randrw-8k.json").display().to_string();
    bad_input(
        &[&results, "--requirements", &bad.display().to_string()],
        "bad.toml: line 5, column 8",
    );
    bad_input(
        &[&results, "--requirements", &results],
        "this is a JSON document (a results file of iofit run or fio?), not requirements",
    );
    // plan says the same of the same files.
    iofit()
        .args(["plan", "--requirements"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.toml: line 5, column 8"));
}
