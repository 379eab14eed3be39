//! Inputs that could stall or crash iofit (issue 37): a job file whose one unknown key is
//! megabytes long is refused at once (no "did you mean" over a key of absurd length), and a
//! vdbench fwd asking for 100,000 threads is refused before a thread is spawned, naming the
//! limit, instead of panicking minutes later.

use iofit_testkit::iofit;
use std::time::{Duration, Instant};

#[test]
fn a_huge_unknown_key_is_refused_fast() {
    let dir = tempfile::tempdir().unwrap();
    let job = dir.path().join("huge.fio");
    // Just under the 16 MiB job-file cap: one section, one key of ~16 M characters.
    let key = "k".repeat((16 << 20) - 64);
    std::fs::write(&job, format!("[a]\n{key}=1\n")).unwrap();
    let start = Instant::now();
    let out = iofit()
        .args(["run", "--parse-only"])
        .arg(&job)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", &err[..err.len().min(400)]);
    assert!(
        !err.contains("did you mean"),
        "{}",
        &err[..err.len().min(400)]
    );
    assert!(
        err.len() < 4096,
        "the error quotes the key short: {} bytes",
        err.len()
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn a_fwd_asking_for_100000_threads_is_refused_before_any_thread() {
    let dir = tempfile::tempdir().unwrap();
    let anchor = dir.path().join("anchor");
    let parm = dir.path().join("threads.vdb");
    std::fs::write(
        &parm,
        format!(
            "fsd=fsd1,anchor={},depth=1,width=1,files=2,size=4k\n\
             fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=100000\n\
             rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=1,interval=1\n",
            anchor.display()
        ),
    )
    .unwrap();
    let start = Instant::now();
    let out = iofit()
        .args(["run", "--quiet"])
        .arg(&parm)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("100000") && err.contains("4096"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(20));
    // Refused before the anchor was made.
    assert!(!anchor.exists());
}
