//! Corner cases of fio's own test jobs (axboe/fio t/jobs), each in a small job file of ours and
//! checked by its effect: the bytes a mixed `buffer_pattern` writes (t0028), and where the
//! clones of `cpus_allowed_policy=split` run (t0009).

use std::path::Path;
use std::process::Command;

fn iofit_run(dir: &Path, job: &str) -> std::process::Output {
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .current_dir(dir)
        .args(["run", "--quiet", "--output-format=json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// t0028: `"abcd"-120xdeadface` is the string, -12 as a 32-bit little-endian int, then the hex
/// bytes (fio's lib/pattern.c), repeated from the start of every block.
#[test]
fn a_mixed_buffer_pattern_writes_fios_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[test]\nfilename=pat\nsize=16k\nbs=4k\nreadwrite=write\n\
               buffer_pattern=\"abcd\"-120xdeadface\nioengine=psync\n";
    iofit_run(dir.path(), job);
    let written = std::fs::read(dir.path().join("pat")).unwrap();
    let pattern = [
        0x61, 0x62, 0x63, 0x64, 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce,
    ];
    let block: Vec<u8> = pattern.iter().copied().cycle().take(4096).collect();
    assert_eq!(written.len(), 16384);
    for (i, chunk) in written.chunks(4096).enumerate() {
        assert!(chunk == block.as_slice(), "block {i} differs");
    }
}

/// The CPUs a running thread of this process named `name` may use, from /proc.
fn cpus_allowed_of(name: &str) -> Option<String> {
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim() == name {
            let status = std::fs::read_to_string(task.path().join("status")).ok()?;
            return status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .map(|v| v.trim().to_string());
        }
    }
    None
}

/// t0009: `cpus_allowed_policy=split` gives each clone its own CPU of the set, in turn over
/// every thread of the run (fio's `fio_cpus_split`); `verify_async` is accepted (iofit
/// verifies in the job's thread). The clones' threads are read from /proc while they run, so
/// this runs iofit's engine in-process through the job file parser.
#[test]
fn split_gives_each_clone_one_cpu_of_the_set() {
    let online = std::thread::available_parallelism().map_or(1, |n| n.get());
    if online < 2 {
        eprintln!("skipped: needs 2 CPUs");
        return;
    }
    let text = "[global]\nioengine=null\nsize=1g\nrw=randwrite\ntime_based=1\nruntime=1\n\
                cpus_allowed=0-1\ncpus_allowed_policy=split\nverify_async=6\n\
                [a]\nnumjobs=3\n[b]\n";
    let jobs = iofit_jobfile::fio::parse_str(text, "t.fio", &Default::default()).unwrap();
    let watcher = std::thread::spawn(|| {
        let mut seen = std::collections::BTreeMap::new();
        let start = std::time::Instant::now();
        while seen.len() < 4 && start.elapsed() < std::time::Duration::from_secs(3) {
            for name in ["a.0", "a.1", "a.2", "b.0"] {
                if let Some(cpus) = cpus_allowed_of(name) {
                    seen.insert(name, cpus);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        seen
    });
    let report =
        iofit_engine::run_jobs(&jobs, &Default::default(), &mut iofit_engine::Silent).unwrap();
    assert!(report.result.jobs.iter().all(|j| j.error.is_none()));
    let seen = watcher.join().unwrap();
    // Threads 0..3 of the run: CPUs 0, 1, 0 for job a's clones, 1 for job b.
    let want: Vec<(&str, String)> = vec![
        ("a.0", "0".into()),
        ("a.1", "1".into()),
        ("a.2", "0".into()),
        ("b.0", "1".into()),
    ];
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), want);
}

/// t0009 runs verify on ioengine=null: as fio (a FIO_FAKEIO engine "pretends we verified
/// everything"), the verify reads are issued and counted, and nothing is checked.
#[test]
fn verify_on_the_null_engine_issues_the_reads_and_checks_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let job =
        "[n]\nioengine=null\nsize=1m\nbs=4k\nrw=randwrite\nverify=crc32c\nverify_backlog=1k\n";
    let out = iofit_run(dir.path(), job);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let j = &json["jobs"][0];
    assert_eq!(j["write"]["total_ios"], 256);
    assert_eq!(j["read"]["total_ios"], 256, "every written block read back");
    assert_eq!(j["iofit"]["verify"]["units_checked"], 0);
    assert_eq!(j["iofit"]["verify"]["bad_units"], 0);
}
