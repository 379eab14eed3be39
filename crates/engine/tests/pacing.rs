//! Effects of fio's pacing, sync and run-control options on real runs: thinktime pauses the
//! job (and stays out of latency), rate_min ends a job that is too slow, Poisson arrivals
//! vary the per-interval count as a Poisson process does, fsync_on_close/end_syncfs sync,
//! sync=dsync opens with O_DSYNC, exitall ends the set, and cpus_allowed/nice/prio reach the
//! clone's thread. Each test runs well under a second.

use iofit_engine::{run_jobs, ClockChoice, RunOptions, Silent};
use iofit_model::job::{
    EngineKind, IoPriority, JobSpec, OpenSync, PerDirection, RwMode, SizeSpec, Target,
};
use iofit_model::units::Bytes;
use iofit_stats::JobResult;
use std::time::{Duration, Instant};

fn null_job(name: &str, ios: u64) -> JobSpec {
    let mut job = JobSpec::new(name, Target::Files(vec!["unused".into()])).with_rw(RwMode::Read);
    job.engine = EngineKind::Null;
    job.size = Some(SizeSpec::Bytes(Bytes(ios * 4096)));
    job
}

fn run(jobs: &[JobSpec]) -> Vec<JobResult> {
    run_jobs(jobs, &RunOptions::default(), &mut Silent)
        .expect("run")
        .result
        .jobs
}

#[test]
fn thinktime_pauses_between_blocks_and_stays_out_of_latency() {
    let mut job = null_job("think", 40);
    job.pacing.think_time = Duration::from_millis(2);
    job.pacing.think_blocks = 4;
    let started = Instant::now();
    let r = &run(&[job])[0];
    let elapsed = started.elapsed();
    assert_eq!(r.read.ios, 40);
    // 10 blocks of 4 IOs: a pause after each, the last one before the job sees it is done.
    assert!(
        r.read.runtime_ns.get() >= 9 * 2_000_000,
        "runtime {} ns",
        r.read.runtime_ns.get()
    );
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    // A null IO takes well under a pause: the pause is not counted as latency.
    assert!(
        r.read.total_latency.mean_ns.get() < 1_000_000.0,
        "mean latency {} ns",
        r.read.total_latency.mean_ns.get()
    );
}

#[test]
fn thinktime_spin_burns_cpu_instead_of_sleeping() {
    let mut job = null_job("spin", 20);
    job.pacing.think_time = Duration::from_millis(5);
    job.pacing.think_spin = Duration::from_millis(5);
    job.pacing.think_blocks = 1;
    let r = &run(&[job])[0];
    // ~95 ms of spinning: on an idle machine most of the runtime is CPU time of the clone;
    // on a loaded one the spinner gets its share of a core, still far above a sleeper's.
    let cpu_pct = r.usr_cpu_pct + r.sys_cpu_pct;
    assert!(cpu_pct > 5.0, "cpu {cpu_pct}%");
    let mut sleeper = null_job("sleep", 20);
    sleeper.pacing.think_time = Duration::from_millis(5);
    sleeper.pacing.think_blocks = 1;
    let s = &run(&[sleeper])[0];
    assert!(
        s.usr_cpu_pct + s.sys_cpu_pct < cpu_pct / 3.0,
        "sleeping {}% vs spinning {cpu_pct}%",
        s.usr_cpu_pct + s.sys_cpu_pct
    );
}

#[test]
fn rate_iops_min_ends_a_job_slower_than_the_minimum() {
    let mut slow = null_job("slow", 1_000_000);
    slow.time_based = true;
    slow.runtime = Some(Duration::from_millis(600));
    slow.rate_iops = PerDirection::both(Some(200));
    slow.pacing.min_iops = PerDirection::both(Some(1000));
    slow.pacing.rate_cycle = Some(Duration::from_millis(100));
    let r = &run(&[slow])[0];
    let error = r.error.as_deref().expect("a job below rate_iops_min fails");
    assert!(error.contains("rate_iops_min 1000"), "{error}");
    assert!(
        r.read.runtime_ns.get() < 400_000_000,
        "ended early: {}",
        r.read.runtime_ns.get()
    );

    let mut fine = null_job("fine", 1_000_000);
    fine.time_based = true;
    fine.runtime = Some(Duration::from_millis(300));
    fine.rate_iops = PerDirection::both(Some(2000));
    fine.pacing.min_iops = PerDirection::both(Some(500));
    fine.pacing.min_bytes_per_second = PerDirection::both(Some(1 << 20));
    fine.pacing.rate_cycle = Some(Duration::from_millis(100));
    let r = &run(&[fine])[0];
    assert!(r.error.is_none(), "{:?}", r.error);
}

#[test]
fn rate_min_checks_bandwidth() {
    let mut job = null_job("bw", 1_000_000);
    job.time_based = true;
    job.runtime = Some(Duration::from_millis(400));
    job.rate_bytes_per_second = PerDirection::both(Some(400 * 1024));
    job.pacing.min_bytes_per_second = PerDirection::both(Some(1 << 20));
    job.pacing.rate_cycle = Some(Duration::from_millis(100));
    let r = &run(&[job])[0];
    let error = r.error.as_deref().expect("below rate_min");
    assert!(error.contains("below rate_min 1048576 B/s"), "{error}");
}

/// Counts per 50 ms interval at 3000 IOPS over 10 s of the fake clock (exact, and no real
/// sleeping): evenly spaced IOs give 150 in every interval; a Poisson process gives counts
/// whose variance is their mean.
fn interval_counts(poisson: bool) -> Vec<u64> {
    let mut job = null_job(if poisson { "poisson" } else { "linear" }, 1_000_000);
    job.time_based = true;
    job.runtime = Some(Duration::from_secs(10));
    job.rate_iops = PerDirection::both(Some(3000));
    job.pacing.poisson = poisson;
    job.log_interval = Duration::from_millis(50);
    let options = RunOptions {
        clock: ClockChoice::Fake { step_ns: 1000 },
        ..RunOptions::default()
    };
    let report = run_jobs(&[job], &options, &mut Silent).expect("run");
    let r = &report.result.jobs[0];
    assert!(r.error.is_none(), "{:?}", r.error);
    let iops = r.read.iops.get();
    assert!((2850.0..=3150.0).contains(&iops), "mean rate {iops} IOPS");
    let samples = &r.series[1..r.series.len() - 1];
    samples.iter().map(|s| s.read_ios).collect()
}

fn variance(counts: &[u64]) -> (f64, f64) {
    let n = counts.len() as f64;
    let mean = counts.iter().sum::<u64>() as f64 / n;
    let var = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var)
}

#[test]
fn rate_process_poisson_spreads_arrivals_as_a_poisson_process() {
    let (linear_mean, linear_var) = variance(&interval_counts(false));
    let (poisson_mean, poisson_var) = variance(&interval_counts(true));
    assert!(linear_var < 1.0, "linear {linear_mean} {linear_var}");
    // Variance/mean of a Poisson count is 1 (from ~200 samples the estimate is within
    // 0.7..1.3 but for one run in ~10^4; the seed is fixed, so the run is repeatable).
    let ratio = poisson_var / poisson_mean;
    assert!((0.7..=1.3).contains(&ratio), "poisson var/mean {ratio}");
}

fn file_job(dir: &std::path::Path, name: &str) -> JobSpec {
    let mut job = JobSpec::new(
        name,
        Target::Directory {
            path: dir.to_path_buf(),
            nrfiles: 2,
        },
    )
    .with_rw(RwMode::Write);
    job.size = Some(SizeSpec::Bytes(Bytes::kib(256)));
    job
}

#[test]
fn fsync_on_close_and_end_syncfs_sync_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let plain = file_job(dir.path(), "plain");
    let mut on_close = file_job(dir.path(), "close");
    on_close.stonewall = true;
    on_close.file_sync.fsync_on_close = true;
    let mut syncfs = file_job(dir.path(), "syncfs");
    syncfs.stonewall = true;
    syncfs.file_sync.end_syncfs = true;
    let results = run(&[plain, on_close, syncfs]);
    let syncs: Vec<u64> = results.iter().map(|r| r.syncs).collect();
    assert_eq!(syncs, vec![0, 2, 2], "one sync per file");
    assert!(results.iter().all(|r| r.error.is_none()));
}

/// The open flags (octal, from /proc/self/fdinfo) of every descriptor on a file in `dir`.
fn open_flags_in(dir: &std::path::Path) -> Vec<u32> {
    let mut flags = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(target) = std::fs::read_link(entry.path()) else {
            continue;
        };
        if !target.starts_with(dir) {
            continue;
        }
        let info = std::fs::read_to_string(format!(
            "/proc/self/fdinfo/{}",
            entry.file_name().to_string_lossy()
        ))
        .unwrap_or_default();
        if let Some(octal) = info.lines().find_map(|l| l.strip_prefix("flags:")) {
            flags.push(u32::from_str_radix(octal.trim(), 8).unwrap());
        }
    }
    flags
}

#[test]
fn sync_dsync_and_sync_open_the_files_with_those_flags() {
    for (mode, flag) in [
        (OpenSync::Dsync, libc::O_DSYNC),
        (OpenSync::Sync, libc::O_SYNC),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut job = file_job(dir.path(), "dsync");
        job.time_based = true;
        job.runtime = Some(Duration::from_millis(400));
        job.rate_iops = PerDirection::both(Some(500));
        job.file_sync.open_sync = mode;
        let path = dir.path().to_path_buf();
        let watcher = std::thread::spawn(move || {
            // The checked targets stay open without the flag; the job's own opens of its two
            // files carry it.
            // Up to 5 s: on a loaded machine the job may open its files a second or more
            // after the watcher starts.
            let mut seen = Vec::new();
            for _ in 0..500 {
                std::thread::sleep(Duration::from_millis(10));
                seen = open_flags_in(&path);
                if seen
                    .iter()
                    .filter(|&&f| f & flag as u32 == flag as u32)
                    .count()
                    >= 2
                {
                    break;
                }
            }
            seen
        });
        let r = &run(&[job])[0];
        assert!(r.error.is_none(), "{:?}", r.error);
        let flags = watcher.join().unwrap();
        let with_flag = flags
            .iter()
            .filter(|&&f| f & flag as u32 == flag as u32)
            .count();
        assert_eq!(with_flag, 2, "{mode:?}: open flags (octal) {flags:?}");
    }
}

#[test]
fn exitall_ends_the_other_jobs_of_the_set_when_one_finishes() {
    let mut quick = null_job("quick", 256);
    quick.rate_iops = PerDirection::both(Some(2000)); // ~0.13 s
    quick.thread_control.exit_all = true;
    let mut long = null_job("long", 1_000_000);
    long.time_based = true;
    long.runtime = Some(Duration::from_secs(20));
    long.rate_iops = PerDirection::both(Some(1000));
    let started = Instant::now();
    let results = run(&[quick, long]);
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let long = results.iter().find(|r| r.name == "long").unwrap();
    assert!(
        !long.interrupted && long.error.is_none(),
        "ends normally: {long:?}"
    );
    assert!(long.read.ios > 0 && long.read.runtime_ns.get() < 2_000_000_000);
}

/// The clone thread named `comm`: its nice value, allowed CPUs and IO priority, read from
/// /proc and ioprio_get while it runs.
fn observe_thread(comm: &str) -> Option<(i64, String, i64)> {
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let path = entry.ok()?.path();
        let name = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        if name.trim() != comm {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("stat")).ok()?;
        // Fields after the ")" of comm: state is field 3, nice is field 19.
        let after = &stat[stat.rfind(')')? + 2..];
        let nice: i64 = after.split_whitespace().nth(16)?.parse().ok()?;
        let status = std::fs::read_to_string(path.join("status")).ok()?;
        let cpus = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?
            .trim()
            .to_string();
        let tid: i64 = path.file_name()?.to_str()?.parse().ok()?;
        // SAFETY: ioprio_get takes integers only and reads a thread's IO priority.
        let prio = unsafe { libc::syscall(libc::SYS_ioprio_get, 1, tid) };
        return Some((nice, cpus, prio));
    }
    None
}

#[test]
fn cpus_allowed_nice_and_prio_reach_the_clone_thread() {
    let mut job = null_job("sched", 1_000_000);
    job.time_based = true;
    job.runtime = Some(Duration::from_millis(700));
    job.rate_iops = PerDirection::both(Some(1000));
    job.thread_control.cpus = vec![0];
    job.thread_control.nice = 5;
    job.thread_control.io_priority = Some(IoPriority { class: 3, level: 0 });
    let watcher = std::thread::spawn(|| {
        // The thread is named before it sets its scheduling: watch until the IO priority (set
        // last) shows, or the run ends.
        let mut seen = None;
        for _ in 0..60 {
            seen = observe_thread("sched.0").or(seen);
            if seen.as_ref().is_some_and(|s| s.2 != 0) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        seen
    });
    let r = &run(&[job])[0];
    assert!(r.error.is_none(), "{:?}", r.error);
    let (nice, cpus, prio) = watcher.join().unwrap().expect("saw the clone thread");
    assert_eq!(nice, 5);
    assert_eq!(cpus, "0");
    assert_eq!(prio, 3 << 13, "idle class, level 0");
}

#[test]
fn unlink_removes_only_the_files_the_run_created() {
    let dir = tempfile::tempdir().unwrap();
    let mut made = file_job(dir.path(), "made");
    made.file_sync.unlink = true;
    let files = made.files_for_clone(0);
    // A file that was there before the run: read, never removed.
    let theirs = dir.path().join("theirs.dat");
    std::fs::write(&theirs, vec![7u8; 128 * 1024]).unwrap();
    let mut reader =
        JobSpec::new("reader", Target::Files(vec![theirs.clone()])).with_rw(RwMode::Read);
    reader.file_sync.unlink = true;
    let results = run(&[made, reader]);
    assert!(results.iter().all(|r| r.error.is_none()), "{results:?}");
    assert_eq!(
        results[0].write.io_bytes,
        iofit_model::Bytes(2 * 256 * 1024),
        "the job ran on its files"
    );
    for file in &files {
        assert!(!file.exists(), "{} was removed", file.display());
    }
    assert!(theirs.exists(), "a file the run did not create stays");
}
