//! Inputs that could stall or crash iofit (issue 37): a job file whose one unknown key is
//! megabytes long is refused at once (no "did you mean" over a key of absurd length), and a
//! vdbench fwd asking for 100,000 threads is refused before a thread is spawned, naming the
//! limit, instead of panicking minutes later; a capture with an impossible value (a negative
//! wait, a rate beyond any device, a broken time stamp) is refused naming file, line and
//! column rather than sized.

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

/// The shipped capture with one change: `edit` gets its lines.
fn damaged_capture(
    dir: &std::path::Path,
    edit: impl FnOnce(&mut Vec<String>),
) -> std::path::PathBuf {
    let text = std::fs::read_to_string(iofit_testkit::test_data(
        "iostat/example-db-server_sysstat-12.6.1_xt_10s.txt",
    ))
    .unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    edit(&mut lines);
    let path = dir.join("damaged.txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

/// Replaces cell `cell` of the first device row of the third report.
fn set_cell(lines: &mut [String], cell: usize, value: &str) -> usize {
    let header = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("Device"))
        .nth(2)
        .unwrap()
        .0;
    let mut cells: Vec<String> = lines[header + 1]
        .split_whitespace()
        .map(str::to_string)
        .collect();
    cells[cell] = value.to_string();
    lines[header + 1] = cells.join("  ");
    header + 2
}

fn profile(path: &std::path::Path) -> (Option<i32>, String) {
    let out = iofit().arg("profile").arg(path).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn captures_with_impossible_values_are_refused_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    // sysstat 12: Device r/s rkB/s rrqm/s %rrqm r_await ...; cell 5 is r_await, 8 wkB/s.
    let mut line = 0;
    let path = damaged_capture(dir.path(), |l| line = set_cell(l, 5, "-5.00"));
    let (code, err) = profile(&path);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("damaged.txt:{line}")), "{err}");
    assert!(
        err.contains("column 'r_await'") && err.contains("negative"),
        "{err}"
    );
    let path = damaged_capture(dir.path(), |l| line = set_cell(l, 8, "1e26"));
    let (code, err) = profile(&path);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("damaged.txt:{line}")), "{err}");
    assert!(
        err.contains("column 'wkB/s'") && err.contains("beyond any device"),
        "{err}"
    );
    // A broken time stamp where the banner ends (line 3).
    let path = damaged_capture(dir.path(), |l| l[2] = l[2].replace("08:00:00", "17:-5:10"));
    let (code, err) = profile(&path);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("damaged.txt:3, column 'time'"), "{err}");
    // The capture itself is fine.
    let (code, err) = profile(&damaged_capture(dir.path(), |_| {}));
    assert_eq!(code, Some(0), "{err}");
}
