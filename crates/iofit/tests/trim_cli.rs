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

/// The rows of a fio averaged log: (time ms, value, ddir).
fn log_rows(path: &Path) -> Vec<(u64, u64, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<u64> = l.split(',').map(|f| f.trim().parse().unwrap()).collect();
            (f[0], f[1], f[2])
        })
        .collect()
}

/// Each row's value times its window's length (from the previous row's time of the same
/// direction; a window shorter than 1 ms counts as 1 ms, as it was rated): bytes for a
/// bandwidth log (KiB/s), IOs for an IOPS log.
fn window_sums(rows: &[(u64, u64, u64)], ddir: u64, unit: f64) -> f64 {
    let mut last_ms = 0;
    let mut sum = 0.0;
    for &(ms, value, _) in rows.iter().filter(|r| r.2 == ddir) {
        sum += value as f64 * unit * (ms - last_ms).max(1) as f64 / 1000.0;
        last_ms = ms;
    }
    sum
}

#[test]
fn trims_have_interval_series_in_averaged_logs_and_the_json_trim_block() {
    let dir = tempfile::tempdir().unwrap();
    run_ok(dir.path(), &job("write", "psync"), &[]);
    let text = format!(
        "{}runtime=1\ntime_based=1\nrate_iops=400\nlog_avg_msec=250\n\
         write_bw_log=tb\nwrite_iops_log=ti\nwrite_lat_log=tl\n",
        job("randtrim", "psync")
    );
    let json = run_ok(dir.path(), &text, &[]);
    let (ios, bytes) = counts(&json, "trim");
    assert!(ios > 0);
    let bw = log_rows(&dir.path().join("tb_bw.1.log"));
    let iops = log_rows(&dir.path().join("ti_iops.1.log"));
    assert!(!bw.is_empty());
    // fio's lines of a trim job are direction 2 only (fio 3.33 writes no 0 or 1 lines).
    for rows in [&bw, &iops, &log_rows(&dir.path().join("tl_lat.1.log"))] {
        assert!(rows.iter().all(|r| r.2 == 2), "{rows:?}");
    }
    // The windows add up to the JSON's totals, within each line's rounding to 1 KiB/s or
    // 1 IO/s (at most a second of windows).
    let logged_bytes = window_sums(&bw, 2, 1024.0);
    assert!(
        (logged_bytes - bytes as f64).abs() <= bw.len() as f64 * 512.0,
        "bw log {logged_bytes} vs JSON {bytes}"
    );
    let logged_ios = window_sums(&iops, 2, 1.0);
    assert!(
        (logged_ios - ios as f64).abs() <= iops.len() as f64 * 0.5,
        "iops log {logged_ios} vs JSON {ios}"
    );
    // The trim block has samples from the same series: its min and max are the log's whole
    // windows', and its mean agrees with bytes over runtime.
    let trim = &json["jobs"][0]["trim"];
    let samples = trim["bw_samples"].as_u64().unwrap();
    assert!(samples >= 3, "{trim}");
    assert_eq!(trim["iops_samples"].as_u64().unwrap(), samples);
    let whole: Vec<u64> = bw.iter().take(samples as usize).map(|r| r.1).collect();
    assert_eq!(trim["bw_min"].as_u64(), whole.iter().min().copied());
    assert_eq!(trim["bw_max"].as_u64(), whole.iter().max().copied());
    let runtime_s = trim["runtime"].as_f64().unwrap() / 1000.0;
    let kib_s = bytes as f64 / 1024.0 / runtime_s;
    let mean = trim["bw_mean"].as_f64().unwrap();
    assert!(
        (mean - kib_s).abs() <= kib_s * 0.3,
        "bw_mean {mean} vs {kib_s} KiB/s"
    );
    assert_eq!(trim["bw_agg"].as_f64(), Some(100.0));
}

#[test]
fn trimwrite_logs_have_a_line_per_direction_and_status_reports_carry_trims() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}runtime=1\ntime_based=1\nrate_iops=200\nlog_avg_msec=250\nwrite_iops_log=ti\n\
         write_lat_log=tl\n",
        job("randtrimwrite", "psync")
    );
    let output = run_job_text(dir.path(), &text, &["--status-interval", "400ms"]);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let reports: Vec<Value> = serde_json::Deserializer::from_str(&stdout)
        .into_iter::<Value>()
        .map(|v| v.unwrap())
        .collect();
    assert!(reports.len() >= 2, "interim reports and the final one");
    let json = reports.last().unwrap();
    let interim = &reports[0]["jobs"][0];
    assert!(
        interim["trim"]["total_ios"].as_u64().unwrap() > 0,
        "{interim}"
    );
    assert_eq!(
        interim["trim"]["io_bytes"].as_u64().unwrap(),
        interim["trim"]["total_ios"].as_u64().unwrap() * BLOCK_BYTES
    );
    let iops = log_rows(&dir.path().join("ti_iops.1.log"));
    for (ddir, name) in [(1, "write"), (2, "trim")] {
        let logged = window_sums(&iops, ddir, 1.0);
        let ios = counts(json, name).0 as f64;
        assert!(ios > 0.0);
        let lines = iops.iter().filter(|r| r.2 == ddir).count() as f64;
        assert!(
            (logged - ios).abs() <= lines * 0.5,
            "{name}: {logged} vs {ios}"
        );
    }
    assert!(iops.iter().all(|r| r.2 == 1 || r.2 == 2));
    // Latency lines per direction: the trims' own means, not the pooled one.
    let lat = log_rows(&dir.path().join("tl_lat.1.log"));
    assert!(lat.iter().any(|r| r.2 == 1) && lat.iter().any(|r| r.2 == 2));
}

#[test]
fn the_third_block_size_is_the_trims_in_bs_bssplit_and_bsrange() {
    // fio's bs, bssplit and bsrange take READ,WRITE,TRIM; a missing trim value repeats the last
    // one given (fio 3.33 trims these 256 KiB in 16, 16, 8 and 32 IOs).
    for (sizes, trim_bytes) in [
        ("bs=4k,4k,64k", 64 * 1024),
        ("bs=4k,16k", 16 * 1024),
        ("bssplit=4k/100,4k/100,32k/100", 32 * 1024),
        ("bsrange=4k-4k,4k-4k,8k-8k", 8 * 1024),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        run_ok(dir.path(), &job("write", "psync"), &[]);
        let before = std::fs::metadata(&data).unwrap().blocks();
        let text = job("randtrim", "psync").replace("bs=4k\n", &format!("{sizes}\n"))
            + "write_iolog=trims.log\n";
        let json = run_ok(dir.path(), &text, &[]);
        let ios = SIZE_BYTES / trim_bytes;
        assert_eq!(counts(&json, "trim"), (ios, ios * trim_bytes), "{sizes}");
        // Every trim in the IO log is one range of the trim size, on its own boundary.
        let log = std::fs::read_to_string(dir.path().join("trims.log")).unwrap();
        let trims: Vec<(u64, u64)> = log
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f.get(2) == Some(&"trim")).then(|| (f[3].parse().unwrap(), f[4].parse().unwrap()))
            })
            .collect();
        assert_eq!(trims.len() as u64, ios, "{sizes}: {log}");
        assert!(trims
            .iter()
            .all(|&(offset, len)| len == trim_bytes && offset % trim_bytes == 0));
        // The holes are that size: the file reads back as zeros and gives its blocks back.
        let after = std::fs::metadata(&data).unwrap();
        assert!(
            after.blocks() * 512 < SIZE_BYTES / 8,
            "{sizes}: {before} -> {}",
            after.blocks()
        );
        assert!(std::fs::read(&data).unwrap().iter().all(|&b| b == 0));
    }
    // One trim of the third size punches exactly that range: 64 KiB of zeros, data after it.
    let dir = tempfile::tempdir().unwrap();
    let fill = format!("{}buffer_pattern=0xab\n", job("write", "psync"));
    run_ok(dir.path(), &fill, &[]);
    let text = job("trim", "psync").replace("bs=4k\n", "bs=4k,4k,64k\nnumber_ios=1\n");
    let json = run_ok(dir.path(), &text, &[]);
    assert_eq!(counts(&json, "trim"), (1, 65536));
    let content = std::fs::read(dir.path().join("data")).unwrap();
    assert!(content[..65536].iter().all(|&b| b == 0));
    assert!(content[65536..].iter().all(|&b| b == 0xab));
}

/// The runs of equal bytes of `content`: (byte, offset, length).
fn runs(content: &[u8]) -> Vec<(u8, usize, usize)> {
    let mut out: Vec<(u8, usize, usize)> = Vec::new();
    for (i, &b) in content.iter().enumerate() {
        match out.last_mut() {
            Some(run) if run.0 == b => run.2 += 1,
            _ => out.push((b, i, 1)),
        }
    }
    out
}

#[test]
fn trims_in_replayed_v2_and_v3_logs_punch_their_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let fill = format!("{}buffer_pattern=0xab\n", job("write", "psync"));
    run_ok(dir.path(), &fill, &[]);
    let d = data.display();
    // fio 3.34+ replays these (fio 3.33 drops trims with "bad ddir: 2").
    let v2 = format!(
        "fio version 2 iolog\n{d} add\n{d} open\n{d} trim 0 8192\n{d} read 8192 4096\n\
         {d} trim 65536 16384\n{d} close\n"
    );
    let v3 = format!(
        "fio version 3 iolog\n0 {d} add\n1 {d} open\n10 {d} trim 131072 4096\n\
         20 {d} write 200704 4096\n30 {d} trim 139264 4096\n40 {d} close\n"
    );
    for (name, log, trims, other) in [
        ("v2.log", v2, (2, 24576), ("read", (1, 4096))),
        ("v3.log", v3, (2, 8192), ("write", (1, 4096))),
    ] {
        std::fs::write(dir.path().join(name), log).unwrap();
        for engine in ["psync", "io_uring"] {
            let text = format!("[t]\nread_iolog={name}\nioengine={engine}\nbuffer_pattern=0xab\n");
            let json = run_ok(dir.path(), &text, &[]);
            assert_eq!(counts(&json, "trim"), trims, "{name} {engine}");
            assert_eq!(counts(&json, other.0), other.1, "{name} {engine}");
        }
    }
    // The trimmed ranges read back as zeros; everything else keeps its data.
    let content = std::fs::read(&data).unwrap();
    let zeros: Vec<(usize, usize)> = runs(&content)
        .into_iter()
        .filter(|r| r.0 == 0)
        .map(|r| (r.1, r.2))
        .collect();
    assert_eq!(
        zeros,
        [(0, 8192), (65536, 16384), (131072, 4096), (139264, 4096)]
    );
    assert!(content.iter().all(|&b| b == 0 || b == 0xab));

    // A trim job's own write_iolog replays to the same trims.
    let record =
        job("randtrim", "psync").replace("bs=4k\n", "bs=4k,4k,16k\n") + "write_iolog=rec.log\n";
    let recorded = run_ok(dir.path(), &record, &[]);
    let replayed = run_ok(dir.path(), "[t]\nread_iolog=rec.log\n", &[]);
    assert_eq!(counts(&replayed, "trim"), counts(&recorded, "trim"));
    assert_eq!(counts(&replayed, "trim"), (SIZE_BYTES / 16384, SIZE_BYTES));
}

#[test]
fn a_replayed_trim_does_not_touch_a_file_iofit_did_not_create() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("theirs");
    std::fs::write(&data, vec![0x5a; SIZE_BYTES as usize]).unwrap();
    let log = format!(
        "fio version 2 iolog\n{0} add\n{0} trim 0 4096\n",
        data.display()
    );
    std::fs::write(dir.path().join("t.log"), log).unwrap();
    let (ok, _, stderr) = run_in(dir.path(), "[t]\nread_iolog=t.log\n", &[]);
    assert!(!ok);
    assert!(stderr.contains("--allow-overwrite"), "{stderr}");
    assert!(std::fs::read(&data).unwrap().iter().all(|&b| b == 0x5a));
}

#[test]
fn a_trim_job_is_paced_by_its_third_rate_value() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{}runtime=1\ntime_based=1\nrate_iops=5000,5000,100\n",
        job("randtrim", "psync")
    );
    let json = run_ok(dir.path(), &text, &[]);
    let (ios, _) = counts(&json, "trim");
    // 100 trims a second, never more than the schedule (one due at t = 0 included): not the
    // 5000 of the first value. Fewer where the disk is slow to punch holes: under CI load
    // (six test rounds in a row beside other work) one run got 46.
    assert!(
        (20..=101).contains(&ios),
        "{ios} trims in 1 s at rate_iops=,,100"
    );
}
