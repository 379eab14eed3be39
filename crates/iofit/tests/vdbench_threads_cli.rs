//! vdbench thread counts: a thousand threads run within their elapsed time (they are IOs in
//! flight, kept by a few io_uring clones, not a thousand synchronous threads that took 13 s
//! to start and stop around a 1 s run), and a count beyond what iofit starts is refused
//! while the file is read, naming file, line and key, before any thread exists.

use std::process::Command;
use std::time::{Duration, Instant};

const IOFIT: &str = env!("CARGO_BIN_EXE_iofit");

fn parm(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    let lun = dir.join("lun1");
    std::fs::write(&lun, vec![0u8; 16 << 20]).unwrap();
    let path = dir.join("t.vdb");
    std::fs::write(&path, text.replace("LUN", &lun.display().to_string())).unwrap();
    path
}

#[test]
fn a_thousand_threads_end_within_elapsed_plus_one_second() {
    let dir = tempfile::tempdir().unwrap();
    let parm = parm(
        dir.path(),
        "sd=sd1,lun=LUN\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100,seekpct=100\n\
         rd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1,threads=1024\n",
    );
    let started = Instant::now();
    let output = Command::new(IOFIT)
        .args(["vdbench", "-f"])
        .arg(&parm)
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let wall = started.elapsed();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("avg_1-1"), "{stdout}");
    assert!(
        wall <= Duration::from_secs(2),
        "elapsed=1 with 1024 threads took {wall:?}"
    );
    // 1024 IOs in flight: the average queue depth is far above what a few threads give.
    let avg = stdout.lines().find(|l| l.contains("avg_1-1")).unwrap();
    let depth: f64 = avg.split_whitespace().nth(11).unwrap().parse().unwrap();
    assert!(depth > 64.0, "queue depth {depth}: {avg}");
}

fn refused(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let parm = parm(dir.path(), text);
    let output = Command::new(IOFIT)
        .args(["vdbench", "-f"])
        .arg(&parm)
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("iofit: error"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line: {stderr}");
    errors[0].to_string()
}

#[test]
fn thread_counts_beyond_the_limit_are_refused_with_file_line_and_key() {
    let rd = refused(
        "sd=sd1,lun=LUN\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1,threads=100000\n",
    );
    assert!(
        rd.contains("t.vdb:3") && rd.contains("threads=100000") && rd.contains("4096"),
        "{rd}"
    );
    let sd =
        refused("sd=sd1,lun=LUN,threads=5000\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,elapsed=1,interval=1\n");
    assert!(
        sd.contains("t.vdb:1") && sd.contains("threads=5000"),
        "{sd}"
    );
    let fwd = refused(
        "fsd=fsd1,anchor=LUN.d,depth=1,width=1,files=2,size=4k\n\
         fwd=fwd1,fsd=fsd1,operation=read,threads=100000\n\
         rd=rd1,fwd=fwd1,fwdrate=max,format=yes,elapsed=1,interval=1\n",
    );
    assert!(
        fwd.contains("t.vdb:2") && fwd.contains("threads=100000"),
        "{fwd}"
    );
    // Many sds each within the limit, together beyond it, on one machine: the rd is named.
    let mut many = String::new();
    for n in 1..=70 {
        many.push_str(&format!("sd=sd{n},lun=LUN\n"));
    }
    many.push_str(
        "wd=wd1,sd=sd*,seekpct=100\nrd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1,threads=61\n",
    );
    let run = refused(&many);
    assert!(
        run.contains("t.vdb:72") && run.contains("threads") && run.contains("4270"),
        "{run}"
    );
}
