//! vdbench file system runs print their interval lines as each interval ends, not after the
//! run: the test reads the child's stdout line by line as it comes and notes when each line
//! arrived and when the child exited.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn fs_interval_lines_print_while_the_run_goes() {
    let dir = tempfile::tempdir().unwrap();
    let param = dir.path().join("live.vdb");
    std::fs::write(
        &param,
        format!(
            "fsd=fsd1,anchor={}/a,depth=1,width=2,files=4,size=8k\n\
             fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=1\n\
             rd=rd1,fwd=fwd1,fwdrate=50,format=yes,elapsed=3,interval=1\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let start = Instant::now();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .arg("run")
        .arg(&param)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map(|line| (start.elapsed(), line.unwrap()))
            .collect::<Vec<(Duration, String)>>()
    });
    let status = child.wait().unwrap();
    let exited = start.elapsed();
    let lines = reader.join().unwrap();
    assert!(status.success(), "{lines:?}");
    // An interval line: time of day, then the interval's number.
    let interval = |n: &str| {
        lines
            .iter()
            .find(|(_, l)| {
                let words: Vec<&str> = l.split_whitespace().collect();
                words.len() > 2 && words[0].contains(':') && words[1] == n
            })
            .map(|(at, _)| *at)
            .unwrap_or_else(|| panic!("no interval line {n} in {lines:#?}"))
    };
    let first = interval("1");
    let second = interval("2");
    // The run lasts 3 s: the first line comes about 2 s before the end, the second about 1 s.
    assert!(
        first + Duration::from_millis(1200) < exited,
        "interval 1 read at {first:?}, the child exited at {exited:?}"
    );
    assert!(
        first + Duration::from_millis(500) < second,
        "{first:?} {second:?}"
    );
    // The summary that needs the whole run comes after them; interval 1 is the warm-up
    // (no warmup=: vdbench's implied one).
    let avg = lines
        .iter()
        .find(|(_, l)| l.trim_start().starts_with("avg_2-3"))
        .map(|(at, _)| *at)
        .expect("avg_2-3 line");
    assert!(second <= avg, "{second:?} {avg:?}");
}
