//! Real job files' options that fio accepts, run end to end on real files by their effect:
//! where clones start (offset_increment, offset=N%), flow control between jobs, overlapping
//! IO serialised, per-IO logs, errors counted.

use assert_cmd::Command;
use iofit_testkit::{assert_exit, run_job_text, Tmpfs};
use serde_json::Value;
use std::path::Path;

/// Runs `text` as a job file in `dir` with JSON output; the JSON and stderr.
fn run_in(dir: &Path, text: &str, extra: &[&str]) -> (Value, String) {
    let output = run_job_text(dir, text, extra);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    (
        serde_json::from_slice(&output.stdout).expect("one JSON document"),
        stderr,
    )
}

/// Which 4 KiB blocks of `path` hold `pattern` in every byte.
fn pattern_blocks(path: &Path, pattern: u8) -> Vec<bool> {
    std::fs::read(path)
        .unwrap()
        .chunks(4096)
        .map(|block| block.iter().all(|&b| b == pattern))
        .collect()
}

#[test]
fn offset_increment_puts_each_clone_in_its_own_stripe() {
    // fio's cross-stripe-verify.fio shape: clone N writes from offset + N x offset_increment.
    let dir = tempfile::tempdir().unwrap();
    run_in(
        dir.path(),
        "[stripes]\nfilename=data\nrw=write\nbs=4k\nsize=16k\noffset=8k\n\
         offset_increment=64k\nnumjobs=3\nbuffer_pattern=0xab\n",
        &[],
    );
    let blocks = pattern_blocks(&dir.path().join("data"), 0xab);
    // Each clone's 4 blocks at 8k + N x 64k; every other block is the layout's content.
    let expected: Vec<bool> = (0..blocks.len())
        .map(|b| (0..3).any(|n| (2 + 16 * n..6 + 16 * n).contains(&b)))
        .collect();
    assert_eq!(
        blocks.len(),
        2 + 16 * 2 + 4,
        "the file ends at the last clone's end"
    );
    assert_eq!(blocks, expected);
}

#[test]
fn offset_in_percent_is_of_the_file_size_rounded_to_the_block() {
    let dir = tempfile::tempdir().unwrap();
    // An existing 1000 KiB file: 25% is 256,000 bytes, rounded up to 64k blocks = 262,144.
    std::fs::write(dir.path().join("data"), vec![0u8; 1000 * 1024]).unwrap();
    run_in(
        dir.path(),
        "[pct]\nfilename=data\nrw=write\nbs=4k\nsize=8k\noffset=25%\noffset_align=64k\n\
         buffer_pattern=0xcd\n",
        &["--allow-overwrite"],
    );
    let blocks = pattern_blocks(&dir.path().join("data"), 0xcd);
    let written: Vec<usize> = (0..blocks.len()).filter(|&b| blocks[b]).collect();
    assert_eq!(written, vec![64, 65]);
}

/// Completed IOs of each job, in the order of the file.
fn ios_per_job(json: &Value) -> Vec<f64> {
    json["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap())
                as f64
        })
        .collect()
}

#[test]
fn flow_keeps_jobs_in_the_ratio_of_their_weights() {
    // fio's examples/flow.fio shape: a 1:8 flow between a writer and a random reader, on a real
    // file with psync (each IO's pace is the disk's), and on io_uring at depth 8.
    for engine in ["psync", "io_uring\niodepth=8"] {
        let dir = tempfile::tempdir().unwrap();
        let (json, _) = run_in(
            dir.path(),
            &format!(
                "[global]\nfilename=data\nsize=1m\nbs=4k\ntime_based\nruntime=1\n\
                 ioengine={engine}\nflow_sleep=100\n\
                 [job2]\nrw=write\nflow=1\n[job1]\nrw=randread\nflow=8\n"
            ),
            &[],
        );
        let ios = ios_per_job(&json);
        let ratio = ios[1] / ios[0];
        assert!(ios[0] > 50.0, "{engine}: {ios:?}");
        assert!(
            (7.0..=9.0).contains(&ratio),
            "{engine}: 1:8 flow gave {ios:?}"
        );
    }
}

#[test]
fn serialize_overlap_runs_io_uring_at_depth_32_over_a_tiny_file() {
    // 4 blocks, 32 IOs wanted in flight: at most 4 can be, one per block (the invariant itself
    // is checked on every queued IO in crates/engine/tests/overlap.rs).
    let dir = tempfile::tempdir().unwrap();
    let (json, _) = run_in(
        dir.path(),
        "[tiny]\nfilename=data\nsize=16k\nbs=4k\nrw=randwrite\nnorandommap\n\
         ioengine=io_uring\niodepth=32\nserialize_overlap=1\nnumber_ios=2000\n",
        &[],
    );
    let job = &json["jobs"][0];
    assert_eq!(job["write"]["total_ios"], 2000, "every IO ran");
    assert_eq!(job["write"]["io_bytes"], 2000 * 4096);
    // fio's depth distribution: never more than 4 in flight (the ">=8" bins stay empty).
    let depths = &job["iodepth_level"];
    for bin in ["8", "16", "32", ">=64"] {
        assert_eq!(depths[bin].as_f64().unwrap_or(0.0), 0.0, "{bin}: {depths}");
    }
}

/// The lines of a log: (time ms, value, ddir, bs, offset when logged, last column).
fn log_lines(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| l.split(", ").map(str::to_string).collect())
        .collect()
}

#[test]
fn per_io_logs_have_one_line_per_io_in_fios_columns() {
    // ssd-steadystate.fio's shape (no log_avg_msec, group_reporting, numjobs) on a mixed job.
    let dir = tempfile::tempdir().unwrap();
    let (json, _) = run_in(
        dir.path(),
        "[first]\nfilename=data\nsize=256k\nrw=write\nbs=64k\n\
         [mixed]\nstonewall\nfilename=data\nsize=256k\nrw=randrw\nbs=4k\nnumjobs=2\n\
         group_reporting\nioengine=io_uring\niodepth=4\nwrite_lat_log=m\nwrite_bw_log=m\n\
         write_iops_log=m\nlog_offset=1\n",
        &[],
    );
    let mixed = &json["jobs"][1];
    let (reads, writes) = (
        mixed["read"]["total_ios"].as_u64().unwrap(),
        mixed["write"]["total_ios"].as_u64().unwrap(),
    );
    assert_eq!(reads + writes, 2 * 64, "two clones over 64 blocks each");
    // Clones 2 and 3 of the run (the first job is thread 1), as fio numbers them.
    let mut lat_sum_ns = 0u64;
    let mut per_dir = [0u64; 2];
    for clone in [2, 3] {
        let lat = log_lines(&dir.path().join(format!("m_lat.{clone}.log")));
        assert_eq!(lat.len(), 64, "one line per IO of the clone");
        for line in &lat {
            assert_eq!(
                line.len(),
                6,
                "time, value, ddir, bs, offset, prio: {line:?}"
            );
            assert_eq!(line[3], "4096");
            let offset: u64 = line[4].parse().unwrap();
            assert!(offset < 256 << 10 && offset.is_multiple_of(4096));
            assert_eq!(line[5], "0");
            lat_sum_ns += line[1].parse::<u64>().unwrap();
            per_dir[line[2].parse::<usize>().unwrap()] += 1;
        }
        let iops = log_lines(&dir.path().join(format!("m_iops.{clone}.log")));
        assert!(iops.iter().all(|l| l[1] == "1"));
        for kind in ["clat", "slat", "bw"] {
            assert_eq!(
                log_lines(&dir.path().join(format!("m_{kind}.{clone}.log"))).len(),
                64
            );
        }
    }
    assert_eq!(
        per_dir,
        [reads, writes],
        "the ddir column matches the JSON's counts"
    );
    // The lines' mean is the JSON's mean total latency (the same IOs, the same clock).
    let json_mean_ns = (mixed["read"]["lat_ns"]["mean"].as_f64().unwrap() * reads as f64
        + mixed["write"]["lat_ns"]["mean"].as_f64().unwrap() * writes as f64)
        / (reads + writes) as f64;
    let log_mean_ns = lat_sum_ns as f64 / (reads + writes) as f64;
    assert!(
        (log_mean_ns - json_mean_ns).abs() <= 1.0 + json_mean_ns * 1e-6,
        "{log_mean_ns} vs {json_mean_ns}"
    );
    assert!(
        !dir.path().join("m_lat.1.log").exists(),
        "the first job logs nothing"
    );
}

/// (block size, priority column) of every line of a per-IO log.
fn prio_column(path: &Path) -> Vec<(String, String)> {
    log_lines(path)
        .into_iter()
        .map(|l| (l[3].clone(), l[4].clone()))
        .collect()
}

#[test]
fn cmdprio_gives_the_share_of_ios_their_priority_and_log_prio_shows_it() {
    // fio's cmdprio-percentage.fio shape: 20% realtime, the rest idle (the job's prioclass),
    // on io_uring (sqe ioprio) and on psync (the thread's ioprio, set per IO).
    for engine in ["io_uring\niodepth=8", "psync"] {
        let dir = tempfile::tempdir().unwrap();
        run_in(
            dir.path(),
            &format!(
                "[p]\nfilename=data\nsize=8m\nbs=4k\nrw=randread\nioengine={engine}\n\
                 prioclass=3\ncmdprio_percentage=20\ncmdprio_class=1\nwrite_lat_log=p\nlog_prio=1\n"
            ),
            &[],
        );
        let lines = prio_column(&dir.path().join("p_lat.1.log"));
        assert_eq!(lines.len(), 2048);
        let realtime = lines.iter().filter(|(_, p)| p == "0x2000").count();
        // The idle class (3 << 13); its level is whatever prioclass gave the job.
        let idle = lines.iter().filter(|(_, p)| p.starts_with("0x6")).count();
        assert_eq!(
            realtime + idle,
            2048,
            "{engine}: every IO is one or the other"
        );
        // 20% of 2048 is 410; the binomial's deviation is 18.
        assert!(
            (330..=490).contains(&realtime),
            "{engine}: {realtime} realtime IOs"
        );
    }
    // fio's cmdprio-bssplit.fio shape: every 4k read realtime level 1, no 8k read.
    let dir = tempfile::tempdir().unwrap();
    run_in(
        dir.path(),
        "[b]\nfilename=data\nsize=8m\nbssplit=4k/50:8k/50\nrw=randread\nioengine=io_uring\n\
         iodepth=4\ncmdprio_bssplit=4k/100/1/1:8k/0\nwrite_lat_log=b\nlog_prio=1\n",
        &[],
    );
    let lines = prio_column(&dir.path().join("b_lat.1.log"));
    assert!(lines.iter().any(|(bs, _)| bs == "8192"));
    for (bs, prio) in &lines {
        let expected = if bs == "4096" { "0x2001" } else { "0x0000" };
        assert_eq!(prio, expected, "{bs}");
    }
}

/// Distinct 4 KiB blocks in each file, and the distinct blocks found in both.
fn block_sets(a: &Path, b: &Path) -> (usize, usize, usize) {
    use std::collections::HashSet;
    let blocks = |p: &Path| -> HashSet<Vec<u8>> {
        std::fs::read(p)
            .unwrap()
            .chunks(4096)
            .map(<[u8]>::to_vec)
            .collect()
    };
    let (a, b) = (blocks(a), blocks(b));
    (a.len(), b.len(), a.intersection(&b).count())
}

#[test]
fn dedupe_global_shares_duplicates_across_jobs() {
    // fio's dedupe-global.fio shape: two jobs, half of all writes repeat, in one shared pool.
    for global in [1, 0] {
        let dir = tempfile::tempdir().unwrap();
        run_in(
            dir.path(),
            &format!(
                "[global]\nsize=1m\nbs=4k\nrw=write\ndedupe_percentage=50\n\
                 dedupe_global={global}\n[a]\nfilename=a\n[b]\nfilename=b\n"
            ),
            &[],
        );
        let (in_a, in_b, in_both) = block_sets(&dir.path().join("a"), &dir.path().join("b"));
        if global == 1 {
            // 512 writes, 256 of them repeats of any content made so far by either job.
            assert!(
                in_both > 20,
                "duplicates span the jobs: {in_a} {in_b} {in_both}"
            );
            let distinct = in_a + in_b - in_both;
            assert!(
                (240..=272).contains(&distinct),
                "half the blocks distinct: {distinct}"
            );
        } else {
            assert_eq!(in_both, 0, "each job dedupes only within itself");
            assert!((120..=136).contains(&in_a), "{in_a}");
        }
    }
}

#[test]
fn fill_device_writes_until_the_file_system_is_full() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_tmpfs) = Tmpfs::mount(&mnt, "8m") else {
        eprintln!("fill_device: cannot mount a tmpfs here (needs root); not run");
        return;
    };
    std::fs::write(mnt.join("theirs"), b"keep").unwrap();
    // fio's surface-scan.fio write phase, on an 8 MiB file system.
    let (json, _) = run_in(
        dir.path(),
        "[fill]\ndirectory=mnt\nfilename=fill\nrw=write\nbs=64k\nfill_device=1\n",
        &[],
    );
    let written = json["jobs"][0]["write"]["io_bytes"].as_u64().unwrap();
    let file_len = std::fs::metadata(mnt.join("fill")).unwrap().len();
    // The file holds what the job wrote, and the part of the last write that fit (short,
    // so not counted as an IO of the job's block size).
    assert!(
        (written..written + (64 << 10)).contains(&file_len),
        "{file_len} {written}"
    );
    // Every block the file system had: the writes ended at ENOSPC.
    assert!((8 << 20) - written <= 64 << 10, "{written}");
    let stat = nix_free_bytes(&mnt);
    assert!(
        stat < 64 << 10,
        "the file system is full: {stat} bytes free"
    );
    assert_eq!(json["jobs"][0]["error"], 0, "full is the end, not an error");
    // Someone else's file (made before the fill) is not filled without --allow-overwrite.
    let out = Command::cargo_bin("iofit")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "run",
            "--quiet",
            "--name=f",
            "--filename=mnt/theirs",
            "--rw=write",
        ])
        .args(["--bs=4k", "--fill_device=1"])
        .output()
        .unwrap();
    assert_exit(&out, 2);
    assert_eq!(std::fs::read(mnt.join("theirs")).unwrap(), b"keep");
}

/// Free bytes of the file system at `path` (df's avail).
fn nix_free_bytes(path: &Path) -> u64 {
    let out = std::process::Command::new("df")
        .args(["--output=avail", "-B1"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn experimental_verify_still_checks_every_written_block() {
    // fio's t/jobs/t0025.fio shape: every block written is read back and checked.
    let dir = tempfile::tempdir().unwrap();
    let (json, _) = run_in(
        dir.path(),
        "[job]\nfilename=data\nsize=128k\nrw=write\ndo_verify=1\nverify=md5\nexperimental_verify=1\n",
        &[],
    );
    let job = &json["jobs"][0];
    assert_eq!(job["write"]["total_ios"], 32);
    assert_eq!(
        job["read"]["total_ios"], 32,
        "the verify phase read every block"
    );
    assert_eq!(job["error"], 0);
}
