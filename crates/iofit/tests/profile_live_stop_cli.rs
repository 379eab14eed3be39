//! `profile --live` stopped with Ctrl-C: what was sampled is sized and written (marked cut
//! short) and the process exits 130; a capture is not lost to an impatient key.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A /proc of its own: stat and meminfo, written once before sampling starts.
fn write_proc_once(root: &Path) {
    std::fs::write(root.join("stat"), "cpu  100 0 100 800 0 0 0 0 0 0\n").unwrap();
    std::fs::write(
        root.join("meminfo"),
        "MemTotal: 1000 kB\nMemAvailable: 500 kB\n",
    )
    .unwrap();
}

/// The diskstats of disk `vdz` after `reads` reads.
fn write_proc(root: &Path, reads: u64) {
    let line = format!(
        " 254       0 vdz {reads} 0 {} {} 0 0 0 0 0 {} {} 0 0 0 0 0 0\n",
        reads * 16,
        reads / 2,
        reads / 2,
        reads / 2
    );
    // Whole or not at all: the sampler must never read half a file.
    let part = root.join("diskstats.part");
    std::fs::write(&part, line).unwrap();
    std::fs::rename(part, root.join("diskstats")).unwrap();
}

#[test]
fn ctrl_c_keeps_what_was_sampled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proc");
    std::fs::create_dir(&root).unwrap();
    write_proc_once(&root);
    write_proc(&root, 1000);
    let output = dir.path().join("req.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_iofit"))
        .args([
            "profile",
            "--live",
            "60s",
            "--interval",
            "200ms",
            "--proc-root",
        ])
        .arg(&root)
        .arg("-o")
        .arg(&output)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // 500 reads a second for 2 s, then Ctrl-C.
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
        write_proc(&root, 1000 + (started.elapsed().as_millis() as u64) / 2);
    }
    // SAFETY: kill(2) on the child's pid with SIGINT; the pid is the child's while it is
    // not waited for.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    assert_eq!(sent, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "profile did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    let result = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(
        result.status.code(),
        Some(130),
        "{stderr}{}",
        String::from_utf8_lossy(&result.stdout)
    );
    assert!(stderr.contains("cut short by a signal after"), "{stderr}");
    // The requirements file is there, sized from the disk's reads, and says it is short.
    let text = std::fs::read_to_string(&output).expect("the requirements were written");
    assert!(text.contains("cut short by a signal after"), "{text}");
    let requirements: toml::Value = toml::from_str(&text).unwrap();
    let volume = &requirements["volumes"][0];
    assert_eq!(volume["label"].as_str(), Some("vdz"), "{text}");
    let iops = volume["sizing"]["iops"].as_float().unwrap();
    // About 500 reads a second, sized at p95 x 1.3.
    assert!((200.0..2000.0).contains(&iops), "{iops}");
}
