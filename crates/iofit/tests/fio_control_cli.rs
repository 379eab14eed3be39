//! fio job files with steady state, pacing and run control, run end to end: the job ends when
//! steady and the JSON carries fio's `steadystate` block; thinktime and exitall shape the run.

use assert_cmd::Command;
use iofit_testkit::assert_exit;
use serde_json::Value;
use std::time::{Duration, Instant};

fn run_job_file(text: &str) -> (Value, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.fio");
    std::fs::write(&path, text).unwrap();
    let started = Instant::now();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(["run", "--quiet", "--output-format", "json"])
        .arg(&path)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    assert_exit(&output, 0);
    (
        serde_json::from_slice(&output.stdout).expect("one JSON document"),
        started.elapsed(),
    )
}

#[test]
fn steady_state_ends_the_job_and_reports_fios_block() {
    // A rate-capped null job is steady from its first second; fio's examples/steadystate.fio
    // shape with a short window.
    let (json, elapsed) = run_job_file(
        "[steady]\nioengine=null\nsize=1g\nrw=randread\nbs=4k\ntime_based\nruntime=20\n\
         rate_iops=2000\nss=iops:10%\nss_dur=2s\nss_ramp=1s\n",
    );
    assert!(
        elapsed < Duration::from_secs(10),
        "ended when steady: {elapsed:?}"
    );
    let job = &json["jobs"][0];
    let ss = &job["steadystate"];
    assert_eq!(ss["ss"], "iops:10.000000%");
    assert_eq!(ss["duration"], 2);
    assert_eq!(ss["attained"], 1);
    let iops: Vec<f64> = ss["data"]["iops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(iops.len(), 2, "one sample per second of ss_dur");
    for sample in &iops {
        assert!(
            (1700.0..=2300.0).contains(sample),
            "samples near the cap: {iops:?}"
        );
    }
    let bw: Vec<f64> = ss["data"]["bw"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    // bw samples are KiB/s: 4 KiB per IO.
    for (b, i) in bw.iter().zip(&iops) {
        assert!((b / 4.0 - i).abs() <= 1.0, "bw {bw:?} iops {iops:?}");
    }
    let criterion: f64 = ss["criterion"]
        .as_str()
        .unwrap()
        .trim_end_matches('%')
        .parse()
        .unwrap();
    assert!(criterion <= 10.0);
    // The job ran ~3 s of its 20: ramp plus the window.
    let runtime_ms = job["job_runtime"].as_u64().unwrap();
    assert!(
        (2_000..8_000).contains(&runtime_ms),
        "runtime {runtime_ms} ms"
    );
}

#[test]
fn thinktime_and_exitall_from_a_job_file() {
    let (json, elapsed) = run_job_file(
        "[global]\nioengine=null\nsize=1g\nrw=read\nbs=4k\nexitall\n\
         [thinker]\nnumber_ios=20\nthinktime=10ms\n\
         [long]\ntime_based\nruntime=30\nrate_iops=500\n",
    );
    // The thinker does 20 IOs with a 10 ms pause after each (~0.2 s), then exitall ends the
    // 30-second job.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    let jobs = json["jobs"].as_array().unwrap();
    let thinker = jobs.iter().find(|j| j["jobname"] == "thinker").unwrap();
    assert_eq!(thinker["read"]["total_ios"], 20);
    assert!(thinker["job_runtime"].as_u64().unwrap() >= 190);
    let long = jobs.iter().find(|j| j["jobname"] == "long").unwrap();
    assert!(long["job_runtime"].as_u64().unwrap() < 5_000);
    assert_eq!(long["error"], 0);
}

#[test]
fn unlink_each_loop_runs_every_loop_and_leaves_no_file_with_unlink() {
    // fio 3.33 runs this job as 3 loops of 16 writes, each verified (48 writes in its JSON).
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let (json, _) = run_job_file(&format!(
        "[uel]\ndirectory={}\nrw=randwrite\nbs=4k\nsize=64k\nloops=3\nunlink_each_loop=1\n\
         unlink=1\nverify=crc32c\nioengine=psync\n",
        data.display()
    ));
    let write = &json["jobs"][0]["write"];
    assert_eq!(write["total_ios"], 48);
    assert_eq!(write["io_bytes"], 48 * 4096);
    assert_eq!(write["clat_ns"]["N"], 48);
    assert_eq!(json["jobs"][0]["error"], 0);
    let left: Vec<_> = std::fs::read_dir(&data).unwrap().collect();
    assert!(left.is_empty(), "unlink=1 leaves nothing: {left:?}");
}
