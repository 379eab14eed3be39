//! fio as the oracle: fio 3.x and `iofit run` run the same job file, each in its own empty
//! directory on the same file system, and what their JSON means is compared.
//!
//! - Size-bound jobs (no `time_based`) are compared exactly: per direction `total_ios`,
//!   `io_bytes`, `short_ios`, `drop_ios`, and the job's `error`.
//! - Every job is checked for fio's invariants on both tools' output: bytes = IOs x block size
//!   (fixed-size jobs), the latency histogram holds one sample per completion, and Little's law
//!   (mean IOs in flight = IOPS x mean latency, no more than the iodepth asked).
//! - Speeds are compared only where a case says so, within the band it states: this machine is
//!   shared and loaded, so one run of each tool can differ by 2x on its own; the band is wide
//!   enough for that and narrow enough to catch a number that means something else (the page
//!   cache against the disk differs by 10x or more).
//!
//! Where fio is not installed each test prints why it is skipped (CI installs fio: .ci/run).

use iofit_testkit::iofit;
use serde_json::Value;
use std::path::Path;

/// One tool's run of a job file: its exit code, its JSON (when it wrote one) and stderr.
struct Outcome {
    exit: i32,
    json: Option<Value>,
    stderr: String,
    stdout: String,
}

fn outcome(out: std::process::Output) -> Outcome {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    // fio may print notes before its JSON: the JSON starts at the first line that is `{`.
    let json = stdout
        .find("\n{")
        .map(|at| &stdout[at + 1..])
        .or_else(|| stdout.starts_with('{').then_some(stdout.as_str()))
        .and_then(|text| serde_json::from_str(text).ok());
    Outcome {
        exit: out.status.code().unwrap_or(-1),
        json,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        stdout,
    }
}

/// fio's run of `job` (written as `job.fio` in `dir`), or None where fio is missing.
fn run_fio(dir: &Path, job: &str, args: &[&str]) -> Option<Outcome> {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    match std::process::Command::new("fio")
        .current_dir(dir)
        .args(args)
        .arg("job.fio")
        .output()
    {
        Ok(out) => Some(outcome(out)),
        Err(e) => {
            eprintln!("skipped: fio is not installed here ({e}); .ci/run installs it");
            None
        }
    }
}

fn run_iofit(dir: &Path, job: &str, args: &[&str]) -> Outcome {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let out = iofit()
        .current_dir(dir)
        .args(["run", "--quiet", "job.fio"])
        .args(args)
        .output()
        .unwrap();
    outcome(out)
}

/// Both tools' runs of one job file with JSON output, each in its own directory (kept until
/// the pair is dropped, so that a case can look at the files afterwards).
struct Pair {
    fio: Outcome,
    iofit: Outcome,
    fio_dir: tempfile::TempDir,
    iofit_dir: tempfile::TempDir,
}

/// A directory on the file system the repository is on (not /tmp, which may be tmpfs, where
/// the page cache is the storage and cache effects cannot show).
fn scratch() -> tempfile::TempDir {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tempfile::tempdir_in(base).unwrap()
}

fn run_both(job: &str, args: &[&str]) -> Option<Pair> {
    let (fio_dir, iofit_dir) = (scratch(), scratch());
    let mut with_json = vec!["--output-format=json"];
    with_json.extend_from_slice(args);
    let fio = run_fio(fio_dir.path(), job, &with_json)?;
    let iofit = run_iofit(iofit_dir.path(), job, &with_json);
    Some(Pair {
        fio,
        iofit,
        fio_dir,
        iofit_dir,
    })
}

fn jobs(o: &Outcome) -> &Vec<Value> {
    o.json
        .as_ref()
        .unwrap_or_else(|| panic!("no JSON: {}\n{}", o.stdout, o.stderr))["jobs"]
        .as_array()
        .unwrap()
}

fn job<'a>(o: &'a Outcome, name: &str) -> &'a Value {
    jobs(o)
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("no job {name}: {:?}", o.json))
}

fn f64_at(v: &Value, path: &[&str]) -> f64 {
    path.iter()
        .fold(v, |v, key| &v[*key])
        .as_f64()
        .unwrap_or_else(|| panic!("no number at {path:?}"))
}

/// How far apart two speeds are, as a factor >= 1.
fn factor(a: f64, b: f64) -> f64 {
    (a.max(b) / a.min(b).max(1e-9)).max(1.0)
}

/// Whether `dir` is on tmpfs, where the page cache is the storage itself.
fn on_tmpfs(dir: &Path) -> bool {
    let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: statfs writes into the zeroed struct it is given; the path is NUL-terminated.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statfs(path.as_ptr(), &mut fs) };
    rc == 0 && fs.f_type == libc::TMPFS_MAGIC
}

/// fio's default invalidate=1 drops the file's clean pages before the job: a buffered random
/// read of a file the previous job wrote and synced (end_fsync) reads from storage, in fio and
/// in iofit alike. Band: 4x either way (one run each on a shared machine); the page cache is
/// 10-40x faster than this disk, which is the difference the band catches. With invalidate=0
/// iofit reads the cache, far faster than it read storage.
#[test]
fn buffered_randread_after_a_synced_write_reads_storage_as_fio() {
    let text = "[global]\nioengine=psync\nbs=4k\nfilename=data\nsize=16m\n\
                [w]\nrw=write\nend_fsync=1\n\
                [r]\nstonewall\nrw=randread\nio_size=4m\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(
        (pair.fio.exit, pair.iofit.exit),
        (0, 0),
        "{}",
        pair.iofit.stderr
    );
    if on_tmpfs(pair.iofit_dir.path()) {
        eprintln!("skipped the band: the scratch directory is on tmpfs (no cache to drop)");
        return;
    }
    let lat = |o: &Outcome| f64_at(job(o, "r"), &["read", "lat_ns", "mean"]);
    let (mut fio_ns, mut iofit_ns) = (lat(&pair.fio), lat(&pair.iofit));
    // Up to three more runs of each before calling it a difference: the suite's other cases
    // (and other users of this machine) share the disk, and a burst of theirs can slow one
    // run by 4x on its own; a cache-against-disk difference stays at 10x in every run.
    for _ in 0..3 {
        if factor(fio_ns, iofit_ns) < 4.0 {
            break;
        }
        if let Some(again) = run_both(text, &[]) {
            (fio_ns, iofit_ns) = (lat(&again.fio), lat(&again.iofit));
        }
    }
    assert!(
        factor(fio_ns, iofit_ns) < 4.0,
        "buffered randread mean latency: fio {fio_ns:.0} ns, iofit {iofit_ns:.0} ns"
    );
    // The same file, invalidate=0: iofit reads the page cache, well below what it read cold.
    let warm = text.replace("io_size=4m", "io_size=4m\ninvalidate=0");
    let again = run_iofit(pair.iofit_dir.path(), &warm, &["--output-format=json"]);
    assert_eq!(again.exit, 0, "{}", again.stderr);
    let warm_ns = lat(&again);
    assert!(
        warm_ns * 3.0 < iofit_ns,
        "invalidate=0 read {warm_ns:.0} ns, invalidate=1 {iofit_ns:.0} ns: the cache was not dropped"
    );
}

/// Flips one byte of `dir/name` at `at`.
fn flip_byte(path: &Path, at: u64) {
    use std::os::unix::fs::FileExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .unwrap();
    let mut byte = [0u8; 1];
    file.read_exact_at(&mut byte, at).unwrap();
    file.write_all_at(&[byte[0] ^ 0x55], at).unwrap();
}

/// verify_only over a read job (and verify= on a plain read job) checks what is on storage: each tool writes a file with
/// verify=crc32c (its own header format), one byte of the third block is flipped, and
/// `rw=read verify_only=1` reports that block: the job's error is 84 (EILSEQ) and the exit is
/// not 0 (fio's is 1; iofit's is 4, its documented code for bad data). fio stops the job at
/// the bad block; iofit reads on and counts every bad unit, so the read counts differ.
#[test]
fn verify_only_over_a_read_job_finds_a_flipped_byte_as_fio() {
    let write = "[w]\nfilename=data\nsize=1m\nbs=4k\nrw=write\nverify=crc32c\ndo_verify=0\n";
    let Some(pair) = run_both(write, &[]) else {
        return;
    };
    assert_eq!(
        (pair.fio.exit, pair.iofit.exit),
        (0, 0),
        "{}",
        pair.iofit.stderr
    );
    for dir in [pair.fio_dir.path(), pair.iofit_dir.path()] {
        flip_byte(&dir.join("data"), 10_000);
    }
    let read = "[r]\nfilename=data\nsize=1m\nbs=4k\nrw=read\nverify=crc32c\nverify_only=1\n";
    let args = ["--output-format=json"];
    let fio = run_fio(pair.fio_dir.path(), read, &args).unwrap();
    let ours = run_iofit(pair.iofit_dir.path(), read, &args);
    assert_eq!(fio.exit, 1, "{}", fio.stderr);
    assert!(fio.stderr.contains("offset 8192"), "{}", fio.stderr);
    assert_eq!(ours.exit, 4, "{}", ours.stderr);
    for tool in [&fio, &ours] {
        assert_eq!(job(tool, "r")["error"], 84, "{}", tool.stdout);
        assert_eq!(job(tool, "r")["write"]["total_ios"], 0);
    }
    // Without verify_only, a read job with verify= checks each block it reads, as fio's.
    let plain = read.replace("verify_only=1\n", "");
    let fio_plain = run_fio(pair.fio_dir.path(), &plain, &args).unwrap();
    let ours_plain = run_iofit(pair.iofit_dir.path(), &plain, &args);
    assert_eq!(job(&fio_plain, "r")["error"], 84, "{}", fio_plain.stdout);
    assert_eq!(job(&ours_plain, "r")["error"], 84, "{}", ours_plain.stdout);
    let verify = &job(&ours, "r")["iofit"]["verify"];
    assert_eq!(verify["bad_units"], 1, "{verify}");
    assert_eq!(verify["units_checked"], 256, "{verify}");
    assert_eq!(verify["errors"][0]["offset"], 8192, "{verify}");
    // The untouched file reads back clean in both tools: exit 0, error 0.
    let clean = read.replace("filename=data", "filename=clean");
    let write_clean = write.replace("filename=data", "filename=clean");
    for dir in [pair.fio_dir.path(), pair.iofit_dir.path()] {
        let wrote = if dir == pair.fio_dir.path() {
            run_fio(dir, &write_clean, &args).unwrap()
        } else {
            run_iofit(dir, &write_clean, &args)
        };
        assert_eq!(wrote.exit, 0, "{}", wrote.stderr);
    }
    let fio = run_fio(pair.fio_dir.path(), &clean, &args).unwrap();
    let ours = run_iofit(pair.iofit_dir.path(), &clean, &args);
    assert_eq!((fio.exit, ours.exit), (0, 0), "{}", ours.stderr);
    assert_eq!(job(&ours, "r")["iofit"]["verify"]["units_checked"], 256);
    assert_eq!(job(&fio, "r")["error"], job(&ours, "r")["error"]);
}

/// fdatasync=1 on a 64k write job: each sync is timed into the "sync" block (lat_ns with
/// percentiles, one sample per sync), as fio's; no sync follows the last write (fio's count);
/// and the sync time stays out of the writes' latencies. Exact: the number of syncs. Meaning:
/// psync's writes have no submission latency in either tool (a sync timed into the next IO
/// would show there).
#[test]
fn fdatasync_latency_is_its_own_block_as_fio() {
    for engine in ["psync", "io_uring"] {
        let text = format!(
            "[s]\nfilename=data\nsize=1m\nbs=64k\nrw=write\nfdatasync=1\nioengine={engine}\n"
        );
        let Some(pair) = run_both(&text, &[]) else {
            return;
        };
        assert_eq!(
            (pair.fio.exit, pair.iofit.exit),
            (0, 0),
            "{}",
            pair.iofit.stderr
        );
        let sync = |o: &Outcome| job(o, "s")["sync"]["lat_ns"].clone();
        let (theirs, ours) = (sync(&pair.fio), sync(&pair.iofit));
        assert_eq!(theirs["N"], 15, "{engine}: fio {theirs}");
        assert_eq!(ours["N"], theirs["N"], "{engine}: iofit {ours}");
        assert!(
            ours["percentile"]["50.000000"].as_u64().unwrap() > 0,
            "{ours}"
        );
        assert_eq!(job(&pair.iofit, "s")["sync"]["total_ios"], 15);
        // psync has no submission latency: a sync timed into it would show as one.
        if engine == "psync" {
            for (tool, o) in [("fio", &pair.fio), ("iofit", &pair.iofit)] {
                let slat = &job(o, "s")["write"]["slat_ns"];
                assert_eq!(slat["N"].as_u64().unwrap_or(0), 0, "{tool}: {slat}");
            }
        }
        assert!(f64_at(&ours, &["mean"]) > 0.0, "{ours}");
        // The text report has fio's sync lines.
        let text_out = run_iofit(pair.iofit_dir.path(), &text.replace("[s]", "[t]"), &[]);
        assert_eq!(text_out.exit, 0, "{}", text_out.stderr);
        let fio_text = run_fio(pair.fio_dir.path(), &text.replace("[s]", "[t]"), &[]).unwrap();
        for line in [
            "  fsync/fdatasync/sync_file_range:",
            "    sync (",
            "    sync percentiles (",
        ] {
            assert!(fio_text.stdout.contains(line), "fio: {}", fio_text.stdout);
            assert!(text_out.stdout.contains(line), "iofit: {}", text_out.stdout);
        }
    }
}

/// A write job with verify=crc32c: as fio, the write runtime is the write phase and the read
/// runtime the verify phase (read back after a sync and, with fio's default invalidate=1, from
/// storage); the job's runtime is both. Exact: the counts. Invariants for both tools: the
/// phases add up to the job's runtime (ms rounding: 2 ms), and each direction's IOPS is its
/// IOs over its own runtime.
#[test]
fn write_then_verify_reports_each_phase_runtime_as_fio() {
    let text = "[v]\nfilename=data\nsize=4m\nbs=4k\nrw=write\nverify=crc32c\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(
        (pair.fio.exit, pair.iofit.exit),
        (0, 0),
        "{}",
        pair.iofit.stderr
    );
    for (tool, o) in [("fio", &pair.fio), ("iofit", &pair.iofit)] {
        let j = job(o, "v");
        assert_eq!(j["write"]["total_ios"], 1024, "{tool}");
        assert_eq!(j["read"]["total_ios"], 1024, "{tool}");
        let runtime = |d: &str| f64_at(j, &[d, "runtime"]);
        let job_ms = f64_at(j, &["job_runtime"]);
        let sum = runtime("read") + runtime("write");
        assert!(
            (sum - job_ms).abs() <= 2.0,
            "{tool}: read {} ms + write {} ms against job {job_ms} ms",
            runtime("read"),
            runtime("write")
        );
        for d in ["read", "write"] {
            let ms = runtime(d).max(1.0);
            let iops = f64_at(j, &[d, "iops"]);
            // IOPS from the exact ns runtime; the JSON's ms are rounded down.
            let expected = 1024.0 / (ms / 1000.0);
            assert!(
                iops >= expected * 0.5 && iops <= 1024.0 / ((ms - 1.0).max(0.5) / 1000.0) * 1.01,
                "{tool} {d}: {iops} IOPS over {ms} ms"
            );
        }
    }
}

/// rw=trim on a regular file: fio 3.33's psync, libaio and io_uring send BLKDISCARD, which a
/// file refuses, so the job fails on its first trim with error 25 (ENOTTY), exit 1. iofit
/// punches holes (fio's falloc engine's trim) and says so in a note: a documented difference,
/// not a silent one. This case pins both sides, so a change in either shows.
#[test]
fn trim_on_a_regular_file_fails_in_fio_and_iofit_says_how_it_differs() {
    let text = "[t]\nfilename=data\nsize=1m\nbs=4k\nrw=trim\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(pair.fio.exit, 1, "{}", pair.fio.stdout);
    let theirs = job(&pair.fio, "t");
    assert_eq!(theirs["error"], 25, "{theirs}");
    assert_eq!(theirs["trim"]["total_ios"], 1, "{theirs}");
    assert_eq!(pair.iofit.exit, 0, "{}", pair.iofit.stderr);
    assert_eq!(job(&pair.iofit, "t")["trim"]["total_ios"], 256);
    let data = std::fs::read(pair.iofit_dir.path().join("data")).unwrap();
    assert!(
        data.iter().all(|&b| b == 0),
        "the trimmed file reads back as zeros"
    );
    let loud = iofit()
        .current_dir(pair.iofit_dir.path())
        .args(["run", "--parse-only", "job.fio"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&loud.stderr);
    let stdout = String::from_utf8_lossy(&loud.stdout);
    assert!(
        stderr.contains("error 25 (ENOTTY") || stdout.contains("error 25 (ENOTTY"),
        "no note: {stderr}{stdout}"
    );
}

/// fio names each job after its section; `name=` in `[global]` names none, one in the section
/// does. latency_target, latency_window and latency_percentile are echoed as asked (fio's
/// units: the target in ns, the window in us), in the JSON and the text.
#[test]
fn jobnames_and_latency_target_echo_as_fio() {
    let text = "[global]\nname=gname\nsize=64k\nbs=4k\nrw=read\nfilename=data\n\
                latency_target=5ms\nlatency_window=100ms\nlatency_percentile=90\n\
                [job1]\n[job2]\nname=own\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(
        (pair.fio.exit, pair.iofit.exit),
        (0, 0),
        "{}",
        pair.iofit.stderr
    );
    let names = |o: &Outcome| -> Vec<String> {
        jobs(o)
            .iter()
            .map(|j| j["jobname"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&pair.fio), ["job1", "own"]);
    assert_eq!(names(&pair.iofit), names(&pair.fio));
    for name in ["job1", "own"] {
        for key in ["latency_target", "latency_window", "latency_percentile"] {
            let (theirs, ours) = (&job(&pair.fio, name)[key], &job(&pair.iofit, name)[key]);
            assert_eq!(theirs.as_f64(), ours.as_f64(), "{name} {key}");
        }
    }
    let fio_text = run_fio(pair.fio_dir.path(), text, &[]).unwrap();
    let ours = run_iofit(pair.iofit_dir.path(), text, &[]);
    let line = "latency   : target=5000000, window=100000, percentile=90.00%";
    assert_eq!(
        fio_text.stdout.matches(line).count(),
        2,
        "{}",
        fio_text.stdout
    );
    assert_eq!(ours.stdout.matches(line).count(), 2, "{}", ours.stdout);
}

/// The exact counts of a size-bound job: per direction total_ios, io_bytes, short and dropped
/// IOs, and the job's error.
fn exact_counts(j: &Value) -> Vec<(String, Value)> {
    let mut out = vec![("error".to_string(), j["error"].clone())];
    for d in ["read", "write", "trim"] {
        for key in ["total_ios", "io_bytes", "short_ios", "drop_ios"] {
            out.push((format!("{d}.{key}"), j[d][key].clone()));
        }
    }
    out
}

/// Both tools ran `text` with `args`: both exit 0, the same job names in the same order, and
/// for every job the same exact counts (size-bound jobs) and fio's invariants on iofit's side.
fn assert_same_counts(case: &str, text: &str, args: &[&str]) {
    let Some(pair) = run_both(text, args) else {
        return;
    };
    assert_eq!(
        pair.fio.exit, 0,
        "{case}: fio failed: {}{}",
        pair.fio.stdout, pair.fio.stderr
    );
    assert_eq!(
        pair.iofit.exit, 0,
        "{case}: iofit failed: {}",
        pair.iofit.stderr
    );
    let names =
        |o: &Outcome| -> Vec<Value> { jobs(o).iter().map(|j| j["jobname"].clone()).collect() };
    assert_eq!(names(&pair.fio), names(&pair.iofit), "{case}: job names");
    for (theirs, ours) in jobs(&pair.fio).iter().zip(jobs(&pair.iofit)) {
        assert_eq!(exact_counts(theirs), exact_counts(ours), "{case}: counts");
        invariants(case, ours);
    }
}

/// fio's own invariants, on one job of either tool: every completed IO is one latency sample
/// (histogram count = completions, where latencies were kept), and bytes over IOs is within
/// the job's block sizes.
fn invariants(case: &str, j: &Value) {
    for d in ["read", "write", "trim"] {
        let ios = j[d]["total_ios"].as_u64().unwrap_or(0);
        let bytes = j[d]["io_bytes"].as_u64().unwrap_or(0);
        let samples = j[d]["clat_ns"]["N"].as_u64().unwrap_or(0);
        if ios == 0 {
            assert_eq!(bytes, 0, "{case} {d}: bytes without IOs");
            continue;
        }
        // Short IOs and errors end early; otherwise every issued IO is a sample.
        let short = j[d]["short_ios"].as_u64().unwrap_or(0);
        if j["error"] == 0 && short == 0 && samples > 0 {
            assert_eq!(samples, ios, "{case} {d}: latency samples against IOs");
        }
        assert!(bytes >= ios * 512, "{case} {d}: {bytes} bytes in {ios} IOs");
    }
}

/// Options fio 3.33 runs that iofit refused before: each in a small size-bound job, both tools
/// exit 0 with the same counts (an option iofit only notes must not change them either).
#[test]
fn options_fio_accepts_run_with_the_same_counts() {
    let base = "[a]\nfilename=data\nsize=64k\nbs=4k\n";
    let cases = [
        "rw=write\nverify=crc32",
        "rw=write\nverify=crc16",
        "mem=malloc",
        "iomem=mmap",
        "ioengine=splice",
        "fadvise_hint=random",
        "fadvise_hint=0",
        "bwavgtime=500\niopsavgtime=500",
        "thread=8",
        "rw=write\nwrite_hint=short",
        "rw=write\natomic=1",
        "clocksource=clock_gettime",
        "allow_file_create=1",
        "invalidate=1",
        "invalidate=0",
    ];
    for case in cases {
        assert_same_counts(case, &format!("{base}{case}\n"), &[]);
    }
    // fio's size suffixes Ki/Mi/Gi are powers of two.
    assert_same_counts("size=1Mi", "[a]\nfilename=data\nsize=1Mi\nbs=64k\n", &[]);
    // fio program options.
    assert_same_counts("--eta-newline", base, &["--eta-newline=1"]);
}

/// rate_iops with a size suffix (public job files write `rate_iops=3k`): fio reads it as an
/// integer option, whose suffixes are kb_base multiples, so `10k` paces 10,240 IOs a second,
/// not 10,000. 10,240 null IOs at that pace take 1.0 s (1.024 s at 10,000): both tools' IOPS
/// must sit nearer 10,240 than 10,000, and within 2% of it.
#[test]
fn rate_iops_with_a_suffix_paces_as_fio() {
    let text = "[r]\nioengine=null\nsize=40m\nbs=4k\nrw=randread\nrate_iops=10k\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    for (tool, o) in [("fio", &pair.fio), ("iofit", &pair.iofit)] {
        assert_eq!(o.exit, 0, "{tool}: {}{}", o.stdout, o.stderr);
        let j = job(o, "r");
        assert_eq!(j["read"]["total_ios"], 10_240, "{tool}");
        let iops = f64_at(j, &["read", "iops"]);
        assert!(
            iops > 10_120.0 && iops < 10_240.0 * 1.02,
            "{tool}: {iops:.0} IOPS for rate_iops=10k"
        );
    }
}

/// Averaged logs of a job with group_reporting (public job files set it out of habit): one
/// clone alone in its group is the group's result, so both tools write the same per-clone log
/// files, of the same kinds and line format, a line per 250 ms window.
#[test]
fn averaged_logs_with_group_reporting_of_one_clone_as_fio() {
    let text = "[j]\nfilename=data\nsize=4m\nbs=4k\nrw=randread\nruntime=1\ntime_based=1\n\
                group_reporting\nlog_avg_msec=250\nwrite_bw_log=j\nwrite_iops_log=j\nwrite_lat_log=j\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(pair.fio.exit, 0, "{}", pair.fio.stderr);
    assert_eq!(pair.iofit.exit, 0, "{}", pair.iofit.stderr);
    let logs = |dir: &Path| -> Vec<(String, Vec<String>)> {
        let mut out: Vec<(String, Vec<String>)> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.ends_with(".log").then(|| {
                    let text = std::fs::read_to_string(dir.join(&name)).unwrap();
                    (name, text.lines().map(str::to_string).collect())
                })
            })
            .collect();
        out.sort();
        out
    };
    let (theirs, ours) = (logs(pair.fio_dir.path()), logs(pair.iofit_dir.path()));
    let names = |l: &[(String, Vec<String>)]| l.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&theirs), names(&ours));
    assert!(
        names(&ours).contains(&"j_iops.1.log".to_string()),
        "{:?}",
        names(&ours)
    );
    for ((name, fio_lines), (_, our_lines)) in theirs.iter().zip(&ours) {
        // 1 s in 250 ms windows: 3 to 5 lines each (fio 3.33 writes 3 or 4), or none for
        // the slat log of a synchronous engine.
        assert_eq!(fio_lines.is_empty(), our_lines.is_empty(), "{name}");
        assert!(
            our_lines.len() <= 5 && (fio_lines.is_empty() || our_lines.len() >= 3),
            "{name}: {our_lines:?}"
        );
        for line in our_lines {
            let fields: Vec<&str> = line.split(", ").collect();
            assert_eq!(
                fields.len(),
                fio_lines[0].split(", ").count(),
                "{name}: {line}"
            );
            assert_eq!(fields[2], "0", "{name}: reads: {line}");
        }
    }
}

/// Sections of the same name (public job files repeat `[Rand-Read]` with other block sizes, as
/// CrystalDiskMark-style files do): fio runs each as a job of that name, and so does iofit,
/// with the same counts; without filename= the same-named jobs share fio's file names.
#[test]
fn sections_of_the_same_name_run_as_jobs_as_fio() {
    let explicit = "[global]\nfilename=data\nsize=64k\nrw=randread\nwait_for_previous\n\
                    [r]\nbs=4k\n[r]\nbs=16k\n[w]\nrw=randwrite\nbs=8k\n[w]\nrw=randwrite\nbs=32k\n";
    assert_same_counts("same names, one file", explicit, &[]);
    let implicit = "[global]\nsize=64k\nbs=4k\n[a]\nrw=write\n[a]\nrw=read\nstonewall\n";
    assert_same_counts("same names, fio's file names", implicit, &[]);
    let Some(pair) = run_both(implicit, &[]) else {
        return;
    };
    let files = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n != "job.fio")
            .collect();
        names.sort();
        names
    };
    assert_eq!(files(pair.fio_dir.path()), files(pair.iofit_dir.path()));
}

/// An unset `${NAME}` is empty, as fio reads it: `write_bw_log=${UNSET}` logs under the job's
/// name in both tools (iofit adds a note), and `bs=${UNSET}` is refused by both.
#[test]
fn an_unset_environment_variable_reads_as_empty_as_fio() {
    let text = "[j]\nfilename=data\nsize=64k\nbs=4k\nrw=read\n\
                write_bw_log=${IOFIT_ORACLE_UNSET_VARIABLE}\nlog_avg_msec=100\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(pair.fio.exit, 0, "{}", pair.fio.stderr);
    assert_eq!(pair.iofit.exit, 0, "{}", pair.iofit.stderr);
    for dir in [pair.fio_dir.path(), pair.iofit_dir.path()] {
        assert!(dir.join("j_bw.1.log").exists(), "{}", dir.display());
    }
    // The note (a --quiet run prints none): with the run's own output.
    let noted = iofit()
        .current_dir(pair.iofit_dir.path())
        .args(["run", "job.fio", "--output-format=json"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&noted.stderr);
    assert!(
        stderr.contains("note:") && stderr.contains("IOFIT_ORACLE_UNSET_VARIABLE"),
        "{stderr}"
    );
    let empty_bs = "[j]\nfilename=data\nsize=64k\nbs=${IOFIT_ORACLE_UNSET_VARIABLE}\n";
    let Some(pair) = run_both(empty_bs, &[]) else {
        return;
    };
    assert_ne!(pair.fio.exit, 0, "{}", pair.fio.stdout);
    assert_eq!(pair.iofit.exit, 2, "{}", pair.iofit.stderr);
}

/// latency_target at fio's default latency_percentile=100: an IO over the target at depth 1
/// ends the job with ETIMEDOUT (fio's lat_fatal), exit 1, error 110 in the JSON; below 100 the
/// same job only stays at depth 1 and completes.
#[test]
fn latency_target_at_percentile_100_fails_a_late_io_at_depth_1_as_fio() {
    let text = "[j]\nfilename=data\nsize=1m\nbs=4k\nrw=randread\nlatency_target=1us\nlatency_window=100ms\n";
    let Some(pair) = run_both(text, &[]) else {
        return;
    };
    assert_eq!(pair.fio.exit, 1, "{}", pair.fio.stdout);
    assert_eq!(pair.iofit.exit, 1, "{}", pair.iofit.stderr);
    for (tool, o) in [("fio", &pair.fio), ("iofit", &pair.iofit)] {
        assert_eq!(job(o, "j")["error"], 110, "{tool}");
        assert!(
            (o.stdout.clone() + &o.stderr).contains("exceeds specified max (1000 nsec)"),
            "{tool}: {}{}",
            o.stdout,
            o.stderr
        );
    }
    let lenient = text.replace("latency_window", "latency_percentile=99\nlatency_window");
    assert_same_counts("latency_percentile=99", &lenient, &[]);
}

/// fio's --readonly refuses a job that writes; so does iofit (exit 2 with the reason, where
/// fio exits 1).
#[test]
fn readonly_refuses_a_writing_job_as_fio() {
    let text = "[w]\nfilename=data\nsize=64k\nrw=write\n";
    let Some(pair) = run_both(text, &["--readonly"]) else {
        return;
    };
    assert_ne!(pair.fio.exit, 0, "{}", pair.fio.stdout);
    assert_eq!(pair.iofit.exit, 2, "{}", pair.iofit.stderr);
    assert!(
        pair.iofit.stderr.contains("readonly"),
        "{}",
        pair.iofit.stderr
    );
    assert!(
        !pair.iofit_dir.path().join("data").exists(),
        "nothing was laid out"
    );
}

/// --output-format=normal,terse writes both, terse first, as fio does.
#[test]
fn two_output_formats_at_once_as_fio() {
    let dir = scratch();
    let out = run_iofit(
        dir.path(),
        "[a]\nfilename=data\nsize=64k\n",
        &["--output-format=normal,terse"],
    );
    assert_eq!(out.exit, 0, "{}", out.stderr);
    let terse = out.stdout.find("3;iofit").expect("a terse line");
    let text = out.stdout.find("a: (groupid=0").expect("the text report");
    assert!(terse < text, "{}", out.stdout);
    // The same as iofit's own flag, before the job file.
    let flag = iofit()
        .current_dir(dir.path())
        .args(["run", "--quiet", "--output-format=terse,json", "job.fio"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&flag.stdout);
    assert_eq!(
        flag.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&flag.stderr)
    );
    assert!(stdout.starts_with("3;iofit"), "{stdout}");
    assert!(stdout.contains("\"jobs\""), "{stdout}");
}

/// `--parse-only` lists every option iofit refuses, each with its file, line and reason, and
/// exits 2; a run stops at the first. fio refuses the unknown option too (its own first).
#[test]
fn parse_only_lists_every_refusal_a_run_stops_at_the_first() {
    let text = "[global]\nsize=1m\nzonemode=zbd\n[a]\nrw=read\nexec_prerun=ls\nbogus_opt=1\n\
                [b]\nioengine=rbd\ncgroup=x\n";
    let dir = scratch();
    let listed = run_iofit(dir.path(), text, &["--parse-only"]);
    assert_eq!(listed.exit, 2, "{}", listed.stderr);
    for (line, key) in [
        (3, "zonemode"),
        (6, "exec_prerun"),
        (7, "bogus_opt"),
        (9, "rbd"),
        (10, "cgroup"),
    ] {
        let wanted = format!("job.fio:{line}: ");
        let found = listed.stderr.lines().find(|l| l.starts_with(&wanted));
        let found = found.unwrap_or_else(|| panic!("no line {line}: {}", listed.stderr));
        assert!(found.contains(key), "{found}");
    }
    let run = run_iofit(dir.path(), text, &[]);
    assert_eq!(run.exit, 2, "{}", run.stderr);
    assert_eq!(run.stderr.matches("job.fio:").count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("job.fio:3:"), "{}", run.stderr);
    if let Some(fio) = run_fio(dir.path(), text, &["--parse-only"]) {
        assert_ne!(fio.exit, 0, "fio accepted it: {}", fio.stdout);
    }
}

/// A `--runtime` given to shorten a file bounds its startdelay too, with a note; the job runs
/// in seconds, not after the 1,470 s the file asks.
#[test]
fn runtime_override_bounds_startdelay() {
    let dir = scratch();
    let started = std::time::Instant::now();
    std::fs::write(
        dir.path().join("job.fio"),
        "[a]\nfilename=data\nsize=64k\nstartdelay=1470\n",
    )
    .unwrap();
    let out = iofit()
        .current_dir(dir.path())
        .args(["run", "job.fio", "--runtime=1", "--output-format=json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("startdelay=1470s is longer than --runtime"),
        "{stderr}"
    );
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

// ---------------------------------------------------------------------------------------------
// The differential suite: many job shapes, each run by both tools.

/// What a size-bound case compares exactly.
#[derive(Clone, Copy, PartialEq)]
enum Exact {
    /// Every direction's counts (fixed block size, no random choice between directions).
    Directions,
    /// A mixed job: which direction each IO takes is random (each tool its own generator), so
    /// the sum over directions is compared exactly and each share within 15 points of rwmix.
    Totals,
    /// Random block sizes (bssplit, bsrange): the bytes are exact, the IO count is not.
    Bytes,
}

fn sum_of(j: &Value, key: &str) -> u64 {
    ["read", "write", "trim"]
        .iter()
        .map(|d| j[d][key].as_u64().unwrap_or(0))
        .sum()
}

/// Runs one size-bound shape in both tools and compares it as `exact` says.
fn size_bound(case: &str, body: &str, exact: Exact) {
    let text = format!("[j]\nfilename=data\n{body}\n");
    let Some(pair) = run_both(&text, &[]) else {
        return;
    };
    assert_eq!(
        pair.fio.exit, 0,
        "{case}: fio failed: {}{}",
        pair.fio.stdout, pair.fio.stderr
    );
    assert_eq!(
        pair.iofit.exit, 0,
        "{case}: iofit failed: {}",
        pair.iofit.stderr
    );
    let (theirs, ours) = (jobs(&pair.fio), jobs(&pair.iofit));
    assert_eq!(theirs.len(), ours.len(), "{case}: number of job reports");
    for (t, o) in theirs.iter().zip(ours) {
        assert_eq!(t["jobname"], o["jobname"], "{case}");
        assert_eq!(t["error"], o["error"], "{case}: error");
        match exact {
            Exact::Directions if body.contains("fsync=") || body.contains("fdatasync=") => {
                // fio counts its fsync/fdatasync calls in read.short_ios (its text shows them
                // as "issued rwts: short=N"): a quirk of fio's accounting iofit does not copy;
                // the syncs are compared in fdatasync_latency_is_its_own_block_as_fio.
                let without = |j: &Value| {
                    let mut c = exact_counts(j);
                    c.retain(|(k, _)| k != "read.short_ios");
                    c
                };
                assert_eq!(without(t), without(o), "{case}");
            }
            Exact::Directions => assert_eq!(exact_counts(t), exact_counts(o), "{case}"),
            Exact::Totals => {
                assert_eq!(
                    sum_of(t, "total_ios"),
                    sum_of(o, "total_ios"),
                    "{case}: IOs"
                );
                assert_eq!(
                    sum_of(t, "io_bytes"),
                    sum_of(o, "io_bytes"),
                    "{case}: bytes"
                );
                let share = |j: &Value| {
                    j["read"]["total_ios"].as_u64().unwrap_or(0) as f64 * 100.0
                        / sum_of(j, "total_ios").max(1) as f64
                };
                assert!(
                    (share(t) - share(o)).abs() < 15.0,
                    "{case}: read shares {} {}",
                    share(t),
                    share(o)
                );
            }
            Exact::Bytes => {
                assert_eq!(
                    sum_of(t, "io_bytes"),
                    sum_of(o, "io_bytes"),
                    "{case}: bytes"
                );
            }
        }
        invariants(case, o);
        invariants(case, t);
    }
}

/// Runs every case, then fails with all the cases that differ (not only the first).
fn run_cases(cases: &[(String, Exact)]) {
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|(body, exact)| {
            let case = body.replace('\n', " ");
            std::panic::catch_unwind(|| size_bound(&case, body, *exact))
                .err()
                .map(|e| {
                    e.downcast_ref::<String>()
                        .cloned()
                        .unwrap_or_else(|| case.clone())
                })
        })
        .collect();
    eprintln!("{} cases, {} differ", cases.len(), failed.len());
    assert!(
        failed.is_empty(),
        "{} of {} cases differ:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n")
    );
}

/// Engines and rw modes, fixed block size: every count exact.
#[test]
fn suite_engines_and_modes() {
    let modes = ["read", "write", "randread", "randwrite"];
    let engines = [
        "psync",
        "sync",
        "pvsync",
        "io_uring\niodepth=4",
        "libaio\niodepth=4\ndirect=1",
        "posixaio\niodepth=2",
        "mmap",
        "null",
    ];
    let mut cases = Vec::new();
    for engine in engines {
        for rw in modes {
            let body = format!("size=256k\nbs=4k\nrw={rw}\nioengine={engine}");
            cases.push((body, Exact::Directions));
        }
    }
    run_cases(&cases);
}

/// Block sizes, depths, offsets and limits.
#[test]
fn suite_sizes_depths_and_limits() {
    let cases: &[(&str, Exact)] = &[
        ("size=1m\nbs=64k\nrw=read", Exact::Directions),
        (
            "size=1m\nbs=128k\nrw=randwrite\nioengine=io_uring\niodepth=16",
            Exact::Directions,
        ),
        ("size=1m\nbs=4k,64k\nrw=write", Exact::Directions),
        ("size=256k\nbs=4k\nrw=read\noffset=64k", Exact::Directions),
        (
            "size=256k\nbs=4k\nrw=randread\nio_size=64k",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=read\nnumber_ios=10",
            Exact::Directions,
        ),
        ("size=256k\nbs=4k\nrw=read\nloops=3", Exact::Directions),
        ("size=256k\nbs=4k\nrw=write\nloops=2", Exact::Directions),
        (
            "size=256k\nbs=16k\nrw=read\nzero_buffers=1",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randread\nnorandommap=1\nrandrepeat=0",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randread\nrandom_distribution=zipf:1.2",
            Exact::Directions,
        ),
        ("size=256k\nbs=4k\nrw=read:8k", Exact::Directions),
        ("size=512k\nbs=4k\nrw=read\ndirect=1", Exact::Directions),
        (
            "size=512k\nbs=4k\nrw=randwrite\ndirect=1\nioengine=io_uring\niodepth=8",
            Exact::Directions,
        ),
        ("size=512k\nbssplit=4k/50:64k/50\nrw=randread", Exact::Bytes),
        ("size=512k\nbsrange=4k-16k\nrw=write", Exact::Bytes),
        ("size=512k\nbs=4k\nrw=randrw\nrwmixread=70", Exact::Totals),
        ("size=512k\nbs=4k\nrw=rw\nrwmixread=50", Exact::Totals),
        (
            "size=512k\nbs=4k\nrw=randrw\nrwmixwrite=80\nioengine=io_uring\niodepth=4",
            Exact::Totals,
        ),
        ("size=256k\nbs=4k\nrw=read\nnrfiles=2", Exact::Directions),
        (
            "filesize=128k\nnrfiles=2\nbs=4k\nrw=write",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randread\npercentage_random=50",
            Exact::Directions,
        ),
        ("size=256k\nbs=4k\nrw=read\nnumjobs=2", Exact::Directions),
        ("size=256k\nbs=4k\nrw=randread\nnumjobs=2\ngroup_reporting=1", Exact::Directions),
        ("size=256k\nbs=4k\nrw=randwrite\nnumjobs=2\ngroup_reporting=1\nioengine=io_uring\niodepth=4", Exact::Directions),
        ("size=128k\nbs=4k\nrw=read\nnumjobs=2\noffset_increment=128k", Exact::Directions),
        ("size=256k\nbs=8k\nrw=randread\nblockalign=8k", Exact::Directions),
        ("size=256k\nbs=4k\nrw=read\nioengine=io_uring\niodepth=8\niodepth_batch=4", Exact::Directions),
        ("size=256k\nbs=4k\nrw=randread\nioengine=io_uring\niodepth=4\nfixedbufs=1\nregisterfiles=1", Exact::Directions),
        ("size=256k\nbs=4k\nrw=randread\nrandom_generator=lfsr", Exact::Directions),
        ("size=256k\nbs=4k\nrw=write\nunified_rw_reporting=1", Exact::Directions),
        ("size=300k\nbs=64k\nrw=read", Exact::Directions),
    ];
    let cases: Vec<(String, Exact)> = cases.iter().map(|(b, e)| (b.to_string(), *e)).collect();
    run_cases(&cases);
}

/// Syncs, buffered and direct, rates, verify: every count exact.
#[test]
fn suite_syncs_rates_and_verify() {
    let cases: &[(&str, Exact)] = &[
        ("size=256k\nbs=4k\nrw=write\nfsync=4", Exact::Directions),
        ("size=256k\nbs=4k\nrw=write\nfdatasync=2", Exact::Directions),
        ("size=256k\nbs=4k\nrw=write\nsync=1", Exact::Directions),
        (
            "size=256k\nbs=4k\nrw=write\nsync=dsync\nioengine=io_uring\niodepth=4",
            Exact::Directions,
        ),
        ("size=256k\nbs=4k\nrw=write\nend_fsync=1", Exact::Directions),
        (
            "size=256k\nbs=4k\nrw=randwrite\nfsync_on_close=1",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randread\ninvalidate=0",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randread\nbuffered=1\ninvalidate=1",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randread\npre_read=1",
            Exact::Directions,
        ),
        (
            "size=128k\nbs=4k\nrw=read\nrate_iops=200",
            Exact::Directions,
        ),
        ("size=256k\nbs=4k\nrw=write\nrate=2m", Exact::Directions),
        (
            "size=256k\nbs=4k\nrw=write\nverify=crc32c",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randwrite\nverify=md5",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=8k\nrw=write\nverify=sha256\nverify_interval=4k",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nverify=xxhash\nioengine=io_uring\niodepth=4",
            Exact::Directions,
        ),
        ("size=256k\nbs=4k\nrw=write\nverify=meta", Exact::Directions),
        (
            "size=256k\nbs=4k\nrw=write\nverify=pattern\nverify_pattern=0xdeadbeef",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nverify=crc32c\ndo_verify=0",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randwrite\nverify=crc32c\nverify_backlog=16",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nverify=crc32\n",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nbuffer_compress_percentage=50\nrefill_buffers=1",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nthinktime=100\nthinktime_blocks=16",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=randwrite\nverify=crc32c\nverify_state_save=1",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nverify=crc32c\nverify_fatal=1",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nverify=crc32c\nverify_offset=512",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nbuffer_pattern=0xaa",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\ndedupe_percentage=50",
            Exact::Directions,
        ),
        (
            "size=256k\nbs=4k\nrw=write\nfdatasync=8\nioengine=io_uring\niodepth=4",
            Exact::Directions,
        ),
        (
            "size=64k\nbs=4k\nrw=randwrite\nrate_iops=500\nrate_process=poisson",
            Exact::Directions,
        ),
    ];
    let cases: Vec<(String, Exact)> = cases.iter().map(|(b, e)| (b.to_string(), *e)).collect();
    run_cases(&cases);
}

/// Little's law on one job: the mean number of IOs in flight (IOPS x mean latency) is at most
/// the iodepth asked (10% and 0.05 of slack for clock reads around each IO).
fn littles_law(case: &str, j: &Value, iodepth: f64) {
    for d in ["read", "write"] {
        let iops = f64_at(j, &[d, "iops"]);
        let lat_s = f64_at(j, &[d, "lat_ns", "mean"]) / 1e9;
        let in_flight = iops * lat_s;
        assert!(
            in_flight <= iodepth * 1.1 + 0.05,
            "{case} {d}: {iops:.0} IOPS x {lat_s:.6} s = {in_flight:.2} in flight at iodepth {iodepth}"
        );
    }
}

/// fio's counts of a time-bound job: bytes = completed IOs x bs and one latency sample per
/// completed IO. fio counts `total_ios` when an IO is queued and `io_bytes` when it completes;
/// a latency_target job that ends after its final window (`td->done`) leaves the IOs then in
/// flight out of `io_bytes` and the latencies (fio 3.33: 15 of 16, in 3 runs of 40), so there
/// `total_ios` may exceed the completed IOs by less than the iodepth.
fn fio_time_bound_counts(case: &str, j: &Value, iodepth: f64) {
    for d in ["read", "write"] {
        let ios = j[d]["total_ios"].as_u64().unwrap_or(0);
        let bytes = j[d]["io_bytes"].as_u64().unwrap_or(0);
        assert_eq!(bytes % 4096, 0, "{case} fio {d}: {bytes} bytes");
        let completed = bytes / 4096;
        let uncounted = if case.contains("latency_target") {
            iodepth as u64
        } else {
            0
        };
        assert!(
            (completed..=completed + uncounted).contains(&ios),
            "{case} fio {d}: {ios} IOs, {bytes} bytes"
        );
        let samples = j[d]["clat_ns"]["N"].as_u64().unwrap_or(0);
        if j["error"] == 0 && samples > 0 {
            assert_eq!(samples, completed, "{case} fio {d}: latency samples");
        }
    }
}

/// Time-bound shapes (runtime 500 ms each): both tools exit 0 with the same job names; on each
/// tool's side, bytes = IOs x bs (bs=4k) and one latency sample per IO (for fio, per completed
/// IO: `fio_time_bound_counts`); on iofit's, Little's law; and where a case names one, a band
/// between the tools or against what the job asked.
#[test]
fn suite_time_bound() {
    struct Case {
        body: &'static str,
        iodepth: f64,
        /// Largest factor allowed between the tools' total IOPS (0: not compared).
        band: f64,
    }
    // A documented refusal: fio runs it, iofit refuses it (exit 2) with this reason.
    let refused = [(
        "rw=randread\nss=iops:50%\nss_dur=200ms",
        "a window of fewer than two one-second samples",
    )];
    let cases = [
        // Direct random reads of a small file at depth 1: both tools wait on the same disk.
        // Band 4x: one 500 ms run each on a shared, loaded machine. At depth the tools are not
        // banded here: `cargo test` runs iofit's debug build, which spends several times the
        // CPU per IO of fio's optimised one, and that shows once the disk is not the limit
        // (the release engine's speed against fio is bench/engine.sh's to measure).
        Case {
            body: "rw=randread\ndirect=1",
            iodepth: 1.0,
            band: 4.0,
        },
        Case {
            body: "rw=randread\ndirect=1\nioengine=io_uring\niodepth=8",
            iodepth: 8.0,
            band: 0.0,
        },
        Case {
            body: "rw=randwrite\ndirect=1\nioengine=libaio\niodepth=4",
            iodepth: 4.0,
            band: 0.0,
        },
        Case {
            body: "rw=randrw\ndirect=1\nrwmixread=60",
            iodepth: 1.0,
            band: 4.0,
        },
        Case {
            body: "rw=read\nioengine=null",
            iodepth: 1.0,
            band: 0.0,
        },
        Case {
            body: "rw=randread\nnumjobs=2",
            iodepth: 1.0,
            band: 0.0,
        },
        // Two jobs of depth 1 in one report: two IOs in flight at most.
        Case {
            body: "rw=randread\nnumjobs=2\ngroup_reporting=1",
            iodepth: 2.0,
            band: 0.0,
        },
        Case {
            body: "rw=randread\nramp_time=200ms",
            iodepth: 1.0,
            band: 0.0,
        },
        // The depth search: 1, 2, 4, 8, 16 in 100 ms windows, then (when the 5th window ends
        // before the runtime) a final window at 16 after the IOs in flight are in. Little's law
        // holds on iofit's side whichever way the race with the runtime goes (issue 29: slots
        // the search had held back counted their idle time, and statistics restarted with IOs
        // in flight, up to 58 "in flight" at depth 16; engine tests/latency_target.rs
        // reproduces both on an emulated device).
        Case {
            body: "rw=randread\ndirect=1\nioengine=io_uring\niodepth=16\nlatency_target=20ms\nlatency_window=100ms\nlatency_percentile=90",
            iodepth: 16.0,
            band: 0.0,
        },
    ];
    let mut failed = Vec::new();
    for c in &cases {
        let case = c.body.replace('\n', " ");
        let text = format!(
            "[j]\nfilename=data\nsize=4m\nbs=4k\nruntime=500ms\ntime_based=1\n{}\n",
            c.body
        );
        let outcome = std::panic::catch_unwind(|| {
            let Some(pair) = run_both(&text, &[]) else {
                return;
            };
            assert_eq!(pair.fio.exit, 0, "{case}: fio: {}", pair.fio.stdout);
            assert_eq!(pair.iofit.exit, 0, "{case}: iofit: {}", pair.iofit.stderr);
            let names = |o: &Outcome| -> Vec<Value> {
                jobs(o).iter().map(|j| j["jobname"].clone()).collect()
            };
            assert_eq!(names(&pair.fio), names(&pair.iofit), "{case}: job reports");
            for j in jobs(&pair.iofit) {
                for d in ["read", "write"] {
                    let ios = j[d]["total_ios"].as_u64().unwrap_or(0);
                    assert_eq!(
                        j[d]["io_bytes"].as_u64().unwrap_or(0),
                        ios * 4096,
                        "{case} {d}"
                    );
                }
                invariants(&case, j);
            }
            for j in jobs(&pair.fio) {
                fio_time_bound_counts(&case, j, c.iodepth);
            }
            // Little's law on iofit's numbers (fio's own break it now and then: a
            // latency_target run of fio 3.33 may end after ~100 ms and report IOPS over a
            // shorter time than its latencies were taken in).
            for j in jobs(&pair.iofit) {
                littles_law(&case, j, c.iodepth);
            }
            if c.band > 0.0 {
                let iops = |o: &Outcome| {
                    f64_at(&jobs(o)[0], &["read", "iops"]) + f64_at(&jobs(o)[0], &["write", "iops"])
                };
                let (mut theirs, mut ours) = (iops(&pair.fio), iops(&pair.iofit));
                if factor(theirs, ours) >= c.band {
                    // One more run of each before calling it a difference: a peer's burst on
                    // this shared disk can slow one 500 ms run by 4x on its own.
                    if let Some(again) = run_both(&text, &[]) {
                        (theirs, ours) = (iops(&again.fio), iops(&again.iofit));
                    }
                }
                assert!(
                    factor(theirs, ours) < c.band,
                    "{case}: IOPS fio {theirs:.0}, iofit {ours:.0}"
                );
            }
        });
        if let Err(e) = outcome {
            failed.push(e.downcast_ref::<String>().cloned().unwrap_or(case));
        }
    }
    for (body, why) in refused {
        let text =
            format!("[j]\nfilename=data\nsize=4m\nbs=4k\nruntime=500ms\ntime_based=1\n{body}\n");
        let Some(pair) = run_both(&text, &[]) else {
            return;
        };
        if pair.fio.exit != 0 || pair.iofit.exit != 2 || !pair.iofit.stderr.contains(why) {
            failed.push(format!(
                "{body}: fio exit {}, iofit exit {}: {}",
                pair.fio.exit, pair.iofit.exit, pair.iofit.stderr
            ));
        }
    }
    eprintln!(
        "{} time-bound cases, {} differ",
        cases.len() + refused.len(),
        failed.len()
    );
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// write_hint is set as fio sets it: on the inode for buffered IO (works), on the open file for
/// direct IO (F_SET_FILE_RW_HINT, which kernels since 5.17 refuse): both tools then fail the
/// job with error 22 (EINVAL).
#[test]
fn write_hint_is_set_as_fio_sets_it() {
    let direct = "[w]\nfilename=data\nsize=64k\nrw=write\ndirect=1\nwrite_hint=short\n";
    let Some(pair) = run_both(direct, &[]) else {
        return;
    };
    let (theirs, ours) = (
        job(&pair.fio, "w")["error"].clone(),
        job(&pair.iofit, "w")["error"].clone(),
    );
    assert_eq!(theirs, ours, "{}", pair.iofit.stdout);
    assert!(theirs == 22 || theirs == 0, "fio: {theirs}");
    assert_eq!(
        pair.fio.exit == 0,
        pair.iofit.exit == 0,
        "{}",
        pair.iofit.stderr
    );
}
