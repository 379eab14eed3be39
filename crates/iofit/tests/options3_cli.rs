//! `iofit run` with fio's disable_*, max_latency and io_uring engine options, from a job file
//! of our own on real files in a temp dir: the JSON shows what fio's shows for them (zeros for
//! what is not measured, error 110 for a latency above max_latency; checked against fio 3.33
//! by hand, see BENCHMARKS.md "fio options, third pass").

use assert_cmd::Command;
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
