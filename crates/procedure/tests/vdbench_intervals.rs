//! vdbench's reporting intervals (Reporter.java) on the null engine with a fake clock:
//! `warmup/interval` warm-up intervals (at least one: without warmup the first interval is the
//! warm-up) are printed and left out of the average, then `elapsed/interval` measured ones
//! (one fewer without warmup); no partial interval after the last; `avg_F-L` over exactly
//! the measured intervals, from the same interval data the lines show, MB/sec in 1,048,576
//! bytes.

use iofit_procedure::execute::EngineExecutor;
use iofit_procedure::observer::{Event, Observer};
use iofit_procedure::vdbench::{run_file, VdbenchOptions};

#[derive(Default)]
struct Summaries(Vec<String>);

impl Observer for Summaries {
    fn event(&mut self, event: &Event) {
        if let Event::VdbenchRun { summary, .. } = event {
            self.0.push(summary.clone());
        }
    }
}

/// A summary line read as vdbench's parsers read it: the label after the 12-character time
/// of day, then the columns split on blanks.
struct Line {
    label: String,
    columns: Vec<f64>,
}

fn lines(summary: &str) -> Vec<Line> {
    summary
        .lines()
        .filter(|l| l.len() > 22 && l.as_bytes()[2] == b':' && l.as_bytes()[8] == b'.')
        .filter_map(|l| {
            let mut words = l[12..].split_whitespace();
            let label = words.next()?.to_string();
            let columns: Vec<f64> = words.map(|w| w.parse().ok()).collect::<Option<_>>()?;
            Some(Line { label, columns })
        })
        .collect()
}

/// Runs `rd=` with these settings; returns the summary's lines and the run's JSON.
fn run(elapsed: u32, warmup: u32, iorate: &str) -> (Vec<Line>, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("intervals.vdb");
    std::fs::write(
        &path,
        format!(
            "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1,rdpct=70,xfersize=4k\nrd=r,wd=w,iorate={iorate},elapsed={elapsed},warmup={warmup},interval=1,threads=2\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let mut summaries = Summaries::default();
    let mut executor = EngineExecutor::null_with_fake_clock(20_000);
    let outcome = run_file(
        &path,
        &VdbenchOptions::default(),
        &mut executor,
        &mut summaries,
    )
    .unwrap();
    assert!(!outcome.failed && !outcome.interrupted);
    let json = serde_json::to_value(&outcome.doc.runs[0]).unwrap();
    (lines(&summaries.0[0]), json)
}

fn check(elapsed: u32, warmup: u32) {
    let (lines, json) = run(elapsed, warmup, "max");
    let total = if warmup == 0 {
        elapsed
    } else {
        warmup + elapsed
    };
    let first = warmup.max(1) + 1;
    let numbered: Vec<u32> = lines.iter().filter_map(|l| l.label.parse().ok()).collect();
    assert_eq!(
        numbered,
        (1..=total).collect::<Vec<_>>(),
        "elapsed={elapsed} warmup={warmup}: every interval, warm-up ones included, none after"
    );
    let avg = lines
        .iter()
        .find(|l| l.label.starts_with("avg_"))
        .expect("an avg_ line");
    assert_eq!(avg.label, format!("avg_{first}-{total}"));
    for name in ["std_", "max_"] {
        assert!(lines
            .iter()
            .any(|l| l.label == format!("{name}{first}-{total}")));
    }
    assert_eq!(
        avg.columns.len(),
        12,
        "vdbench's 12 columns after the label"
    );
    // The avg line is the measured intervals' sums, from the same samples as the lines.
    let series = json["result"]["jobs"][0]["series"].as_array().unwrap();
    // IOs completing at the deadline land in a 0 ms sample after the last interval: they
    // count in the last interval (as vdbench counts what completed before it reported).
    for tail in &series[total as usize..] {
        assert_eq!(tail["interval_ms"], 0, "no partial interval after the run");
    }
    let measured = &series[(first - 1) as usize..];
    let sum = |key: &str| {
        measured
            .iter()
            .map(|s| s[key].as_f64().unwrap())
            .sum::<f64>()
    };
    let seconds = sum("interval_ms") / 1000.0;
    assert!((seconds - f64::from(total - first + 1)).abs() < 1e-9);
    let ios = sum("read_ios") + sum("write_ios");
    let bytes = sum("read_bytes") + sum("write_bytes");
    assert!(ios > 0.0);
    let rate = ios / seconds;
    assert!(
        (avg.columns[0] - rate).abs() <= 0.005 + rate * 1e-9,
        "{} vs {rate}",
        avg.columns[0]
    );
    let mib = bytes / seconds / 1_048_576.0;
    assert!(
        (avg.columns[1] - mib).abs() <= 0.005,
        "MB/sec is 1,048,576-byte MB: {} vs {mib}",
        avg.columns[1]
    );
    assert!((json["avg_iops"].as_f64().unwrap() - rate).abs() < 1e-6);
    // The mean of the measured lines' rates is the avg line's rate (equal-length intervals).
    let line_rates: Vec<f64> = lines
        .iter()
        .filter(|l| l.label.parse::<u32>().is_ok_and(|n| n >= first))
        .map(|l| l.columns[0])
        .collect();
    let mean = line_rates.iter().sum::<f64>() / line_rates.len() as f64;
    assert!(
        (mean - avg.columns[0]).abs() <= 0.01,
        "{mean} vs {}",
        avg.columns[0]
    );
}

#[test]
fn two_seconds_without_warmup() {
    check(2, 0);
}

#[test]
fn five_seconds_without_warmup() {
    check(5, 0);
}

#[test]
fn ten_seconds_without_warmup() {
    check(10, 0);
}

#[test]
fn two_seconds_with_warmup() {
    check(2, 2);
}

#[test]
fn five_seconds_with_warmup() {
    check(5, 2);
}

#[test]
fn ten_seconds_with_warmup() {
    check(10, 2);
}

#[test]
fn a_capped_two_second_run_has_no_third_interval_at_a_made_up_rate() {
    let (lines, _) = run(2, 0, "200");
    let numbered: Vec<&Line> = lines
        .iter()
        .filter(|l| l.label.parse::<u32>().is_ok())
        .collect();
    assert_eq!(numbered.len(), 2);
    for line in numbered {
        assert!(
            line.columns[0] <= 202.0,
            "interval {}: {} IO/s",
            line.label,
            line.columns[0]
        );
    }
    let avg = lines.iter().find(|l| l.label == "avg_2-2").unwrap();
    // (A 70% read mix caps each direction separately, as fio's rate_iops does, and lands
    // below the total: only the cap is asserted.)
    assert!(
        avg.columns[0] > 0.0 && avg.columns[0] <= 202.0,
        "{}",
        avg.columns[0]
    );
}

#[derive(Default)]
struct Notes(Vec<String>);

impl Observer for Notes {
    fn event(&mut self, _: &Event) {}
    fn warning(&mut self, warning: &iofit_procedure::observer::Warning) {
        self.0.push(warning.to_string());
    }
}

#[test]
fn the_elapsed_override_shortens_pause_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pause.vdb");
    std::fs::write(
        &path,
        format!(
            "sd=sd1,lun={}/f1,size=4m\nwd=w,sd=sd1\nrd=r,wd=w,iorate=max,elapsed=600,interval=1,pause=5m\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let options = VdbenchOptions {
        elapsed: Some(std::time::Duration::from_secs(1)),
        ..Default::default()
    };
    let mut notes = Notes::default();
    let started = std::time::Instant::now();
    let mut executor = EngineExecutor::null_with_fake_clock(20_000);
    run_file(&path, &options, &mut executor, &mut notes).unwrap();
    // The 5 minute pause idles at most the 1 s override.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(
        notes
            .0
            .iter()
            .any(|n| n.contains("pause=300s shortened to 1s")),
        "{:?}",
        notes.0
    );
}

#[test]
fn a_file_system_run_with_remote_hds_is_not_run_here() {
    // Its fwd runs on hd1 over ssh (the command line takes it there); the one-machine
    // procedure refuses it, naming the hd, instead of running it on this machine.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fs.vdb");
    std::fs::write(
        &path,
        format!(
            "hd=default,shell=ssh\nhd=hd1,system=192.0.2.7\nfsd=fsd1,anchor={}/a,depth=1,width=1,files=2,size=4k\nfwd=g,fsd=fsd1,operation=getattr,host=hd*\nrd=r,fwd=g,fwdrate=10,format=yes,elapsed=2,interval=1\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let mut notes = Notes::default();
    let mut executor = EngineExecutor::null_with_fake_clock(20_000);
    let error = run_file(&path, &VdbenchOptions::default(), &mut executor, &mut notes)
        .unwrap_err()
        .to_string();
    assert!(error.contains("hd1") && error.contains("fwd=g"), "{error}");
    assert!(!dir.path().join("a").exists(), "nothing ran here");
}

#[test]
fn dash_v_validates_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.vdb");
    std::fs::write(
        &path,
        format!(
            "sd=sd1,lun={}/f1,size=1m\nwd=w,sd=sd1,rdpct=50,xfersize=4k\nrd=r,wd=w,iorate=max,elapsed=2,interval=1,threads=2\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let options = VdbenchOptions {
        validate: true,
        output_dir: Some(dir.path().join("output")),
        ..Default::default()
    };
    let mut executor = EngineExecutor::new(false, Default::default());
    let outcome = run_file(&path, &options, &mut executor, &mut Notes::default()).unwrap();
    let job = &outcome.doc.runs[0].result.jobs[0];
    let verify = job.verify.as_ref().expect("-v turns validate=yes on");
    assert_eq!(verify.bad_units, 0);
    assert!(outcome
        .reports
        .log
        .iter()
        .any(|l| l.contains("done: avg_2-2")));
}
