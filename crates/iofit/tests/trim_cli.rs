//! fio's trim modes run end to end on real files, checked by their effect: trimmed ranges read
//! back as zeros and give their blocks back to the file system, trimwrite trims each block and
//! then writes it, the JSON counts trims in fio's `trim` block (bytes = IOs x bs), per-IO logs
//! carry them as ddir 2, and what iofit cannot do for trims is refused with its reason.

use iofit_testkit::run_job_text;
use serde_json::Value;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

const SIZE_BYTES: u64 = 256 * 1024;
const BLOCK_BYTES: u64 = 4096;

/// Runs `text` as a job file in `dir` with JSON output; exit status, JSON (if any) and stderr.
fn run_in(dir: &Path, text: &str, extra: &[&str]) -> (bool, Option<Value>, String) {
    let output = run_job_text(dir, text, extra);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let json = serde_json::from_slice(&output.stdout).ok();
    (output.status.success(), json, stderr)
}

fn run_ok(dir: &Path, text: &str, extra: &[&str]) -> Value {
    let (ok, json, stderr) = run_in(dir, text, extra);
    assert!(ok, "{stderr}");
    json.expect("one JSON document")
}

/// (total_ios, io_bytes) of one direction of the first job.
fn counts(json: &Value, direction: &str) -> (u64, u64) {
    let d = &json["jobs"][0][direction];
    (
        d["total_ios"].as_u64().unwrap(),
        d["io_bytes"].as_u64().unwrap(),
    )
}

fn job(rw: &str, engine: &str) -> String {
    format!("[t]\nfilename=data\nsize={SIZE_BYTES}\nbs=4k\nrw={rw}\nioengine={engine}\niodepth=4\n")
}

#[test]
fn randtrim_punches_every_block_of_a_file_iofit_created() {
    for engine in ["psync", "io_uring"] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        // Lay the file out and fill it with a write pass first, so that it holds data.
        run_ok(dir.path(), &job("write", engine), &[]);
        let before = std::fs::metadata(&data).unwrap();
        assert!(before.blocks() * 512 >= SIZE_BYTES, "the file is allocated");

        let json = run_ok(dir.path(), &job("randtrim", engine), &[]);
        let ios = SIZE_BYTES / BLOCK_BYTES;
        assert_eq!(counts(&json, "trim"), (ios, ios * BLOCK_BYTES), "{engine}");
        assert_eq!(counts(&json, "write"), (0, 0));
        assert_eq!(counts(&json, "read"), (0, 0));
        assert_eq!(json["jobs"][0]["error"], 0);
        assert_eq!(json["jobs"][0]["job options"]["rw"], "randtrim");

        let after = std::fs::metadata(&data).unwrap();
        assert_eq!(after.len(), SIZE_BYTES, "KEEP_SIZE: the length stays");
        assert!(
            after.blocks() * 512 < SIZE_BYTES / 8,
            "{engine}: blocks given back: {} -> {} sectors",
            before.blocks(),
            after.blocks()
        );
        let content = std::fs::read(&data).unwrap();
        assert!(
            content.iter().all(|&b| b == 0),
            "{engine}: every trimmed range reads back as zeros"
        );
    }
}

#[test]
fn trimwrite_trims_then_writes_each_block_and_counts_both() {
    for rw in ["trimwrite", "randtrimwrite"] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("{}buffer_pattern=0xab\n", job(rw, "psync"));
        let json = run_ok(dir.path(), &text, &[]);
        let ios = SIZE_BYTES / BLOCK_BYTES;
        // fio counts only the writes towards the size: as many trims as writes, each size.
        assert_eq!(counts(&json, "trim"), (ios, ios * BLOCK_BYTES), "{rw}");
        assert_eq!(counts(&json, "write"), (ios, ios * BLOCK_BYTES), "{rw}");
        // Every block was written after its trim: the pattern, not zeros, is what is left.
        let content = std::fs::read(dir.path().join("data")).unwrap();
        assert!(content.iter().all(|&b| b == 0xab), "{rw}");
        let blocks = std::fs::metadata(dir.path().join("data")).unwrap().blocks();
        assert!(
            blocks * 512 >= SIZE_BYTES,
            "{rw}: written blocks are allocated"
        );
    }
}

#[test]
fn per_io_logs_carry_trims_as_ddir_2_and_trimwrite_pairs_share_offsets() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}write_lat_log=tw\nlog_offset=1\n",
        job("randtrimwrite", "psync")
    );
    let json = run_ok(dir.path(), &text, &[]);
    let log = std::fs::read_to_string(dir.path().join("tw_lat.1.log")).unwrap();
    let rows: Vec<Vec<u64>> = log
        .lines()
        .map(|l| l.split(',').map(|f| f.trim().parse().unwrap()).collect())
        .collect();
    let trims = rows.iter().filter(|r| r[2] == 2).count() as u64;
    let writes = rows.iter().filter(|r| r[2] == 1).count() as u64;
    assert_eq!(trims, counts(&json, "trim").0);
    assert_eq!(writes, counts(&json, "write").0);
    // At depth 1 each trim is followed by the write of the same block and length.
    let dir1 = tempfile::tempdir().unwrap();
    let text = format!(
        "{}write_lat_log=tw\nlog_offset=1\niodepth=1\n",
        job("randtrimwrite", "psync")
    );
    run_ok(dir1.path(), &text, &[]);
    let log = std::fs::read_to_string(dir1.path().join("tw_lat.1.log")).unwrap();
    let rows: Vec<Vec<u64>> = log
        .lines()
        .map(|l| l.split(',').map(|f| f.trim().parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len() as u64, 2 * SIZE_BYTES / BLOCK_BYTES);
    for pair in rows.chunks(2) {
        assert_eq!((pair[0][2], pair[1][2]), (2, 1), "trim, then write");
        assert_eq!(pair[0][3..5], pair[1][3..5], "same length and offset");
    }
}

#[test]
fn a_file_iofit_did_not_create_is_not_trimmed_without_allow_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(&data, vec![0x5a; SIZE_BYTES as usize]).unwrap();
    let (ok, _, stderr) = run_in(dir.path(), &job("randtrim", "psync"), &[]);
    assert!(!ok);
    assert!(stderr.contains("--allow-overwrite"), "{stderr}");
    let content = std::fs::read(&data).unwrap();
    assert!(
        content.iter().all(|&b| b == 0x5a),
        "the file keeps its data"
    );
}

#[test]
fn what_iofit_cannot_do_for_trims_is_refused_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, expect) in [
        ("verify=md5\n", "verification of a trimwrite job"),
        ("write_bw_log=x\nlog_avg_msec=100\n", "averaged"),
        ("trim_percentage=10\nverify=md5\n", "verify-trim"),
    ] {
        let text = format!("{}{extra}", job("trimwrite", "psync"));
        let (ok, _, stderr) = run_in(dir.path(), &text, &[]);
        assert!(!ok, "{extra}");
        assert!(stderr.contains(expect), "{extra}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
    // verify on a job that only trims checks nothing in fio: it runs, with a note.
    let text = format!("{}verify=md5\n", job("randtrim", "psync"));
    let (ok, _, stderr) = run_in(dir.path(), &text, &[]);
    assert!(ok, "{stderr}");
}
