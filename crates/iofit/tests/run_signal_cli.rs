//! `iofit run` stops within one second of SIGTERM or SIGINT, even at a deep queue on a file
//! other threads are saturating with O_DIRECT writes, and prints valid JSON marked as
//! interrupted. The real binary, real signals, real direct IO on the local disk.

use iofit_testkit::load::DiskContention;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const FILE_MIB: u64 = 16;

fn stop_with(signal: i32, engine: &str, depth: u32) {
    let iofit = env!("CARGO_BIN_EXE_iofit");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("busy.dat");
    let filename = format!("--filename={}", file.display());
    let status = Command::new(iofit)
        .args(["run", "--quiet", "--name=layout", "--rw=read", "--bs=1m"])
        .arg(format!("--size={FILE_MIB}m"))
        .arg(&filename)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "lay out the file");

    let contention = DiskContention::start(&file, FILE_MIB << 20, 2);

    let mut child = Command::new(iofit)
        .args(["run", "--quiet", "--output-format=json", "--name=a"])
        .args(["--rw=randread", "--bs=8k", "--runtime=60", "--time_based"])
        .arg(format!("--size={FILE_MIB}m"))
        .arg(&filename)
        .arg(format!("--ioengine={engine}"))
        .arg(format!("--iodepth={depth}"))
        .arg("--direct=1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    let signalled = Instant::now();
    // SAFETY: kill on the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("{engine} QD{depth}: still running 5 s after signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = signalled.elapsed();
    drop(contention);
    let output = child.wait_with_output().unwrap();
    assert!(
        took < Duration::from_secs(1),
        "{engine} QD{depth}: exited {took:?} after signal {signal}"
    );
    assert_eq!(
        status.code(),
        Some(130),
        "{engine} QD{depth}: interrupted exit code; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).expect("stdout is one JSON document");
    let job = &json["jobs"][0];
    assert_eq!(job["iofit"]["interrupted"], true, "{job}");
    let ios = job["read"]["total_ios"].as_u64().expect("total_ios");
    assert!(ios > 0, "kept what was measured");
    assert_eq!(job["read"]["io_bytes"].as_u64(), Some(ios * 8192));
}

#[test]
fn sigterm_stops_a_deep_io_uring_queue_on_a_busy_file_within_a_second() {
    stop_with(libc::SIGTERM, "io_uring", 128);
}

#[test]
fn sigint_stops_psync_on_a_busy_file_within_a_second() {
    stop_with(libc::SIGINT, "psync", 1);
}
