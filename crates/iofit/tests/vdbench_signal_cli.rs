//! A vdbench run stopped by SIGTERM while its threads are blocked in the kernel (a loop
//! device whose reads a blkio cgroup throttles to 256 KiB/s: each 1 MiB read takes 4 s)
//! exits 130, as any interrupted run, not 1 as an IO failure, and what it measured is kept
//! and marked interrupted. Needs root, losetup and the cgroup v1 blkio controller; skips
//! saying so where they are missing.

use iofit_testkit::stuck::{Loop, Throttle, BLKIO};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn sigterm_with_threads_blocked_in_the_kernel_exits_130_with_the_run_interrupted() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !Path::new(BLKIO).join("tasks").exists() {
        eprintln!("skipping: needs root and the cgroup v1 blkio controller ({BLKIO})");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("slow.img");
    std::fs::write(&image, vec![0u8; 8 << 20]).unwrap();
    let Some(device) = Loop::attach(&image) else {
        eprintln!("skipping: no loop device");
        return;
    };
    let Some(throttle) = Throttle::new(device.major_minor(), 256 << 10) else {
        eprintln!("skipping: cannot make a blkio cgroup under {BLKIO}");
        return;
    };
    let parm = dir.path().join("stuck.vdb");
    std::fs::write(
        &parm,
        format!(
            "sd=sd1,lun={},openflags=o_direct\n\
             wd=wd1,sd=sd1,xfersize=1m,rdpct=100,seekpct=100\n\
             rd=rd1,wd=wd1,iorate=max,elapsed=30,interval=1,threads=2\n",
            device.device.display()
        ),
    )
    .unwrap();
    let json = dir.path().join("stuck.json");
    let child = Command::new(env!("CARGO_BIN_EXE_iofit"))
        .args(["run", "--allow-overwrite", "--output"])
        .arg(&json)
        .arg(&parm)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    throttle.enter_process(child.id());
    // Past the first, unthrottled reads: both threads are now inside a 4 s read.
    std::thread::sleep(Duration::from_millis(2000));
    // SAFETY: kill with a child's pid and a valid signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    drop(throttle);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(!stdout.contains("stopped on an error"), "{stdout}");
    // Either the run's own end printed its summary (the blocked clones counted as stopped), or
    // the stop bound ended it first (1 s after the signal, while a 4 s read still held a
    // clone) and said so; both exit 130 with the results file whole and marked.
    let summary = stdout.contains("interrupted by a signal");
    if summary {
        assert!(stdout.contains("blocked in the kernel"), "{stdout}");
        assert!(stdout.contains("avg_"), "{stdout}");
    } else {
        assert!(
            stderr.contains("did not end within 1000 ms of the signal"),
            "stdout: {stdout}\nstderr: {stderr}"
        );
    }
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["interrupted"], true, "{doc}");
    let job = &doc["runs"][0]["result"]["jobs"][0];
    assert_eq!(job["interrupted"], true, "{job}");
    // The run's record is kept, its counts whole (the blocked clones' IOs are left out, as
    // the engine says, not half-counted).
    let ios = job["read"]["ios"].as_u64().unwrap();
    assert_eq!(job["read"]["io_bytes"].as_u64(), Some(ios << 20), "{job}");
    assert_eq!(doc["runs"][0]["rd"], "rd1");
}
