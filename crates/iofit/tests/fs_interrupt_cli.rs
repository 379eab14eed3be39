//! A vdbench file system workload (fsd/fwd) stopped by SIGINT — in its measured run or in its
//! format — is marked interrupted in its JSON and its summary, and exits 130, as fio-style and
//! raw vdbench runs do. The real binary and a real signal.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `file` (in `dir`), sends SIGINT after `after` and once `ready` holds (polled, so that
/// on a loaded machine the signal does not land before the phase it is meant for); exit code,
/// stdout, the JSON and the time from the signal to the end.
fn interrupt(
    dir: &Path,
    file: &str,
    after: Duration,
    ready: impl Fn() -> bool,
) -> (i32, String, Value, Duration) {
    std::fs::write(dir.join("fs.vdb"), file).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_iofit"))
        .current_dir(dir)
        .args(["run", "fs.vdb", "--output", "out.json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let waited = Instant::now();
    while !ready() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill on the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let signalled = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap())
        .unwrap_or_else(|e| panic!("out.json: {e}\n{stdout}"));
    (out.status.code().unwrap_or(-1), stdout, json, took)
}

/// The workload's files under `dir`, at any depth (0 while it does not exist): regular files
/// named `vdb*.file` as vdbench names them (not iofit's anchor mark or control files).
fn count_files(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => count_files(&e.path()),
            Ok(t) if t.is_file() => {
                let name = e.file_name().to_string_lossy().into_owned();
                usize::from(
                    name.starts_with("vdb")
                        && name.ends_with(".file")
                        && name != "vdb_control.file",
                )
            }
            _ => 0,
        })
        .sum()
}

#[test]
fn sigint_in_a_file_system_run_marks_it_interrupted_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = format!(
        "fsd=fsd1,anchor={}/a,depth=1,width=2,files=20,size=64k\n\
         fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=2,fileio=random,fileselect=random\n\
         rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=60,interval=1\n",
        d.display()
    );
    // The run has begun once the format's 20 files are all there.
    let formatted = || count_files(&d.join("a")) >= 20;
    let (code, stdout, json, took) = interrupt(d, &file, Duration::from_millis(2500), formatted);
    assert_eq!(code, 130, "128 + SIGINT\n{stdout}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(json["interrupted"], true, "{json}");
    let run = &json["fs_runs"][0];
    assert_eq!(run["interrupted"], true);
    // What ran before the signal is reported: a measured run well short of its 60 s, with
    // reads in it.
    let seconds = run["run"]["seconds"].as_f64().unwrap();
    assert!(seconds > 0.1 && seconds < 30.0, "{seconds}");
    let ops = run["run"]["operations"].as_array().unwrap();
    assert!(
        ops.iter()
            .any(|op| op["operation"] == "read" && op["ops"].as_u64().unwrap() > 0),
        "{ops:?}"
    );
    assert!(
        stdout.contains("rd=rd1: interrupted by a signal"),
        "{stdout}"
    );
}

#[test]
fn sigint_in_a_file_system_format_marks_it_interrupted_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 40,000 files to create: the format is still going when the signal comes.
    let file = format!(
        "fsd=fsd1,anchor={}/a,depth=2,width=20,files=100,size=4k\n\
         fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=2\n\
         rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=60,interval=1\n",
        d.display()
    );
    // The format has begun once its first file is there; signal then (a quiet machine creates
    // the 40,000 files in about a second).
    let formatting = || count_files(&d.join("a")) >= 1;
    let (code, stdout, json, took) = interrupt(d, &file, Duration::ZERO, formatting);
    assert_eq!(code, 130, "128 + SIGINT\n{stdout}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert_eq!(json["interrupted"], true, "{json}");
    let run = &json["fs_runs"][0];
    assert_eq!(run["interrupted"], true);
    // The format did not finish, and no measured run followed it.
    assert!(run["run"].is_null(), "{run}");
    let files = &run["files"][0];
    let (present, total) = (files[1].as_u64().unwrap(), files[2].as_u64().unwrap());
    assert_eq!(total, 40_000);
    assert!(
        present < total,
        "{present} of {total}: the format was not cut"
    );
}
