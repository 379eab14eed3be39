//! IO-log replay end to end: a run records its IOs with `write_iolog` (fio's version 3 log), a
//! second run replays the log with `read_iolog`, and its per-IO latency log (which carries each
//! IO's direction, size and offset) shows the same IOs in the same order, at the log's times
//! unless `replay_no_stall`; the JSON counts equal the log's lines.

use assert_cmd::Command;
use std::path::Path;
use std::time::Duration;

/// The run's JSON, and the job's runtime (from the JSON).
fn iofit(dir: &Path, job: &str, args: &[&str]) -> (serde_json::Value, Duration) {
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir)
        .args(["run", "--quiet", "--output-format=json"])
        .arg(&file)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let took = Duration::from_millis(json["jobs"][0]["job_runtime"].as_u64().unwrap());
    (json, took)
}

/// (direction, offset, length) of every IO line of a version 3 IO log, and the time from its
/// first non-zero time to its last IO's (what a replay waits through, fio's
/// `delay_since_ttime`).
fn log_ios(path: &Path) -> (Vec<(String, u64, u64)>, u64) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("fio version 3 iolog"));
    let mut ios = Vec::new();
    let mut last_us = 0;
    let mut first_us = None;
    for line in lines {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() == 5 && (f[2] == "read" || f[2] == "write") {
            ios.push((
                f[2].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            ));
            last_us = f[0].parse().unwrap();
        } else {
            assert!(
                matches!(f.get(2), Some(&"add" | &"open" | &"close")),
                "{line}"
            );
        }
        let time: u64 = f[0].parse().unwrap_or(0);
        if time > 0 && first_us.is_none() {
            first_us = Some(time);
        }
    }
    (ios, last_us - first_us.unwrap_or(0).min(last_us))
}

/// (direction, offset, length) of every line of a per-IO latency log with log_offset=1.
fn lat_log_ios(path: &Path) -> Vec<(String, u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(", ").collect();
            let dir = if f[2] == "0" { "read" } else { "write" };
            (
                dir.to_string(),
                f[4].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect()
}

fn total_ios(json: &serde_json::Value, dir: &str) -> u64 {
    json["jobs"][0][dir]["total_ios"].as_u64().unwrap()
}

// invalidate=0: the IOs are served from the page cache, so each takes microseconds and the
// timing checks below measure the replay's pacing, not a disk's (fio's default invalidate=1
// would read from storage).
const RECORD: &str = "[rec]\nfilename=data\nsize=256k\nbs=4k\nrw=randrw\nioengine=psync\nthinktime=2ms\nwrite_iolog=rec.log\ninvalidate=0\n";

#[test]
fn a_replay_issues_the_recorded_ios_in_order_and_at_their_times() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (recorded, _) = iofit(d, RECORD, &[]);
    let (ios, span_us) = log_ios(&d.join("rec.log"));
    let reads = ios.iter().filter(|io| io.0 == "read").count() as u64;
    assert_eq!(ios.len(), 64, "256k in 4k IOs");
    assert_eq!(total_ios(&recorded, "read"), reads);
    assert_eq!(total_ios(&recorded, "write"), 64 - reads);
    // 64 IOs with a 2 ms pause after each: the log spans over 120 ms.
    assert!(span_us >= 126_000, "{span_us}");

    let replay = "[play]\nread_iolog=rec.log\nioengine=psync\nwrite_lat_log=play\nlog_offset=1\ninvalidate=0\n";
    let (played, took) = iofit(d, replay, &[]);
    assert_eq!(lat_log_ios(&d.join("play_lat.1.log")), ios);
    assert_eq!(total_ios(&played, "read"), reads);
    assert_eq!(total_ios(&played, "write"), 64 - reads);
    // The replay runs from its first IO's time to its last's, and then that IO.
    assert!(
        took + Duration::from_millis(1) >= Duration::from_micros(span_us),
        "{took:?}"
    );

    // Without stalls the same IOs go as fast as the file takes them; at 400% time scale the
    // gaps are a quarter.
    let fast = format!("{replay}replay_no_stall=1\n");
    let (_, took_fast) = iofit(d, &fast, &[]);
    assert_eq!(lat_log_ios(&d.join("play_lat.1.log")), ios);
    assert!(
        took_fast + Duration::from_millis(60) < took,
        "{took_fast:?} vs {took:?}"
    );
    let quick = format!("{replay}replay_time_scale=400\n");
    let (_, took_quick) = iofit(d, &quick, &[]);
    assert!(
        took_quick + Duration::from_millis(40) < took,
        "{took_quick:?} vs {took:?}"
    );
}

#[test]
fn redirect_scale_and_align_move_the_replayed_ios() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    iofit(d, RECORD, &[]);
    let (ios, _) = log_ios(&d.join("rec.log"));
    let replay = "[play]\nread_iolog=rec.log\nioengine=io_uring\niodepth=8\nreplay_no_stall=1\n\
                  replay_redirect=other\nreplay_scale=3\nreplay_align=8k\nwrite_lat_log=play\nlog_offset=1\n";
    iofit(d, replay, &[]);
    let mut want: Vec<(String, u64, u64)> = ios
        .iter()
        .map(|(dir, offset, len)| (dir.clone(), (offset / 3) & !8191, *len))
        .collect();
    let mut got = lat_log_ios(&d.join("play_lat.1.log"));
    // At depth 8 completions may come back out of order: compare as multisets.
    want.sort();
    got.sort();
    assert_eq!(got, want);
    // Every IO went to the redirect target, laid out to cover the furthest one.
    let furthest = want.iter().map(|(_, o, l)| o + l).max().unwrap();
    assert!(std::fs::metadata(d.join("other")).unwrap().len() >= furthest);
}

#[test]
fn version_2_logs_replay_and_blktrace_logs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("v2.log"),
        "fio version 2 iolog\nf add\nf open\nf write 0 8192\nf wait 30 0\nf read 0 4096\nf sync 0 0\nf close\n",
    )
    .unwrap();
    let (json, took) = iofit(d, "[v2]\nread_iolog=v2.log\nioengine=psync\n", &[]);
    assert_eq!(total_ios(&json, "write"), 1);
    assert_eq!(total_ios(&json, "read"), 1);
    assert_eq!(json["jobs"][0]["read"]["io_bytes"], 4096);
    assert!(
        took >= Duration::from_millis(30),
        "the wait holds the read: {took:?}"
    );

    // Trims (fio's t/jobs t0038: 2 GiB trims, which need no buffer): replayed on the null
    // engine as fio 3.34+ does, left out by replay_skip=trim (trim_cli tests their effect).
    std::fs::write(
        d.join("trims.log"),
        "fio version 3 iolog\n0 /dev/null add\n5 /dev/null trim 0 2147483648\n6 /dev/null write 0 4096\n",
    )
    .unwrap();
    let (json, _) = iofit(d, "[t]\nread_iolog=trims.log\nioengine=null\n", &[]);
    assert_eq!(total_ios(&json, "write"), 1);
    assert_eq!(total_ios(&json, "trim"), 1);
    assert_eq!(json["jobs"][0]["trim"]["io_bytes"], 2_147_483_648u64);
    let skip = "[t]\nread_iolog=trims.log\nreplay_skip=trim\n";
    let (json, _) = iofit(d, skip, &["--allow-overwrite"]);
    assert_eq!(
        (total_ios(&json, "write"), total_ios(&json, "trim")),
        (1, 0)
    );

    let mut trace = 0x6561_7407u32.to_le_bytes().to_vec();
    trace.extend([0u8; 60]);
    std::fs::write(d.join("trace.bin"), trace).unwrap();
    std::fs::write(d.join("job.fio"), "[bt]\nread_iolog=trace.bin\n").unwrap();
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(d)
        .args(["run", "job.fio"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("blktrace binary log"), "{stderr}");
}

/// IO lines (read or write) of each section of a log several clones wrote.
fn section_ios(path: &Path) -> Vec<usize> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.starts_with("fio version 3 iolog\n"), "{text}");
    text.split("fio version 3 iolog\n")
        .skip(1)
        .map(|section| {
            section
                .lines()
                .filter(|l| l.contains(" write ") || l.contains(" read "))
                .count()
        })
        .collect()
}

#[test]
fn each_clone_writes_its_own_section_and_fio_and_iofit_replay_them_all() {
    // fio 3.33 (init_iolog_write): every clone appends its own version line, add lines and
    // IOs to the one write_iolog file.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let record =
        "[rec]\nsize=128k\nbs=4k\nrw=randwrite\nioengine=psync\nnumjobs=2\nwrite_iolog=rec.log\n";
    let (recorded, _) = iofit(d, record, &[]);
    let per_clone: Vec<u64> = (0..2)
        .map(|j| recorded["jobs"][j]["write"]["total_ios"].as_u64().unwrap())
        .collect();
    assert_eq!(per_clone, [32, 32]);
    assert_eq!(section_ios(&d.join("rec.log")), [32, 32]);

    let replay = "[play]\nread_iolog=rec.log\nioengine=psync\nreplay_no_stall=1\n";
    let (played, _) = iofit(d, replay, &[]);
    assert_eq!(total_ios(&played, "write"), 64);

    std::fs::write(d.join("play.fio"), replay).unwrap();
    let Ok(fio) = std::process::Command::new("fio")
        .current_dir(d)
        .args(["--output-format=json", "play.fio"])
        .output()
    else {
        eprintln!("skipped: fio is not installed (.ci/run installs it)");
        return;
    };
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&fio.stdout).unwrap();
    assert_eq!(theirs["jobs"][0]["write"]["total_ios"], 64);
}
