//! `iofit run` with fio's disable_*, max_latency and io_uring engine options, from a job file
//! of our own on real files in a temp dir: the JSON shows what fio's shows for them (zeros for
//! what is not measured, error 110 for a latency above max_latency; checked against fio 3.33
//! by hand, see bench/history/BENCHMARKS-2026-11-22-to-23.md, "fio options, third pass").

use assert_cmd::Command;
use iofit_testkit::assert_exit;
use serde_json::Value;
use std::time::Duration;

fn run_json(job_text: &str) -> (Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("job.fio");
    std::fs::write(
        &job,
        job_text.replace("DIR", &dir.path().display().to_string()),
    )
    .unwrap();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(["run", "--output-format", "json"])
        .arg(&job)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    (json, stderr)
}

const JOBS: &str = "[global]
directory=DIR
size=1m
ioengine=io_uring
iodepth=4
rw=randread
[nolat]
disable_lat=1
disable_clat=1
disable_slat=1
disable_bw_measurement=1
[timeout]
max_latency=1
";

#[test]
fn disabled_measurements_are_zero_and_max_latency_fails_with_etimedout() {
    let (json, stderr) = run_json(JOBS);
    let jobs = json["jobs"].as_array().unwrap();
    let nolat = &jobs[0]["read"];
    assert_eq!(jobs[0]["error"], 0, "{stderr}");
    assert_eq!(nolat["total_ios"], 256, "IOs are counted");
    assert_eq!(nolat["io_bytes"], 256 * 4096);
    assert!(
        nolat["bw"].as_u64().unwrap() > 0,
        "bytes over runtime stays"
    );
    for key in ["lat_ns", "clat_ns", "slat_ns"] {
        assert_eq!(nolat[key]["N"], 0, "{key}");
        assert_eq!(nolat[key]["max"], 0, "{key}");
        assert_eq!(nolat[key]["mean"], 0.0, "{key}");
    }
    assert_eq!(nolat["bw_min"], 0);
    assert_eq!(nolat["bw_samples"], 0);

    let timeout = &jobs[1];
    assert_eq!(timeout["error"], 110, "ETIMEDOUT as fio: {stderr}");
    let ios = timeout["read"]["total_ios"].as_u64().unwrap();
    assert!(
        (1..=4).contains(&ios),
        "stops after the IOs in flight: {ios}"
    );
    let message = timeout["iofit"]["error"].as_str().unwrap();
    assert!(
        message.contains("exceeds specified max (1000 nsec)"),
        "{message}"
    );
}

#[test]
fn io_uring_engine_options_run_from_a_job_file() {
    let (json, stderr) = run_json(
        "[global]
directory=DIR
size=1m
ioengine=io_uring
iodepth=8
rw=randread
[polled]
sqthread_poll=1
registerfiles
fixedbufs
[vectored]
nonvectored=0
force_async=2
",
    );
    for job in json["jobs"].as_array().unwrap() {
        let name = job["jobname"].as_str().unwrap();
        if job["error"] != 0
            && job["iofit"]["error"]
                .as_str()
                .unwrap_or("")
                .contains("refused the io_uring setup")
        {
            eprintln!("SKIPPED {name}: {}", job["iofit"]["error"]);
            continue;
        }
        assert_eq!(job["error"], 0, "{name}: {stderr}");
        assert_eq!(job["read"]["total_ios"], 256, "{name}");
    }
}

/// Total read IOs of every job in one fio JSON document.
fn read_ios(document: &Value) -> u64 {
    document["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["read"]["total_ios"].as_u64().unwrap())
        .sum()
}

/// `iofit run --status-interval=1 --output-format=json --quiet` of `job` in `dir`: it exits 0,
/// and its stdout is a sequence of JSON documents (fio's json status output: one per interval,
/// then the final one).
fn status_documents(dir: &std::path::Path, job: &[&str]) -> Vec<Value> {
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "run",
            "--status-interval=1",
            "--output-format=json",
            "--quiet",
        ])
        .arg(format!("--directory={}", dir.display()))
        .args(job)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_exit(&output, 0);
    serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .expect("stdout is a sequence of JSON objects")
}

#[test]
fn status_interval_prints_growing_interim_json_reports_then_the_final_one() {
    let dir = tempfile::tempdir().unwrap();
    let documents = status_documents(
        dir.path(),
        &[
            "--name=s",
            "--size=1m",
            "--rw=randread",
            "--runtime=3",
            "--time_based",
            "--numjobs=2",
            "--rate_iops=2000",
        ],
    );
    assert!(documents.len() >= 3, "{} documents", documents.len());
    let counts: Vec<u64> = documents.iter().map(read_ios).collect();
    assert!(counts[0] > 0, "{counts:?}");
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]),
        "IO counts grow: {counts:?}"
    );
    assert!(counts[1] > counts[0], "{counts:?}");
    let last = documents.last().unwrap();
    // The final report: two jobs at 2000 IOPS for 3 s each.
    for job in last["jobs"].as_array().unwrap() {
        let ios = job["read"]["total_ios"].as_u64().unwrap();
        assert!((5_000..=6_100).contains(&ios), "{ios}");
        assert_eq!(job["read"]["lat_ns"]["N"], ios, "latency samples = IOs");
    }
    // An interim report is a full one: each job's latency samples match its IOs so far.
    for job in documents[0]["jobs"].as_array().unwrap() {
        assert_eq!(job["read"]["lat_ns"]["N"], job["read"]["total_ios"]);
    }
}

/// A job of several loops runs each loop as its own pass; an interim report covers the loops
/// so far, not only the current one: the counts keep growing past one loop's IOs.
#[test]
fn interim_reports_of_a_looping_job_count_every_loop_so_far() {
    let dir = tempfile::tempdir().unwrap();
    // 256 reads a loop at 200 IOPS: 1.28 s a loop, 3 loops.
    let documents = status_documents(
        dir.path(),
        &[
            "--name=l",
            "--size=1m",
            "--bs=4k",
            "--rw=read",
            "--loops=3",
            "--rate_iops=200",
        ],
    );
    let counts: Vec<u64> = documents.iter().map(read_ios).collect();
    assert_eq!(*counts.last().unwrap(), 3 * 256, "{counts:?}");
    assert!(counts.len() >= 3, "{counts:?}");
    assert!(
        counts.windows(2).all(|w| w[0] <= w[1]),
        "IO counts grow across loops: {counts:?}"
    );
    let interim = &counts[..counts.len() - 1];
    assert!(
        interim.iter().any(|&c| c > 256 && c < 3 * 256),
        "an interim report during a later loop counts the earlier ones: {counts:?}"
    );
    for document in &documents {
        let job = &document["jobs"][0];
        assert_eq!(job["read"]["lat_ns"]["N"], job["read"]["total_ios"]);
        assert_eq!(
            job["read"]["io_bytes"].as_u64().unwrap(),
            job["read"]["total_ios"].as_u64().unwrap() * 4096,
            "bytes = IOs x bs"
        );
    }
}

#[test]
fn a_status_interval_that_is_not_a_time_is_refused_naming_the_flag() {
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args([
            "run",
            "--status-interval=soon",
            "--name=a",
            "--rw=read",
            "--parse-only",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--status-interval") && stderr.contains("write seconds"),
        "{stderr}"
    );
}
