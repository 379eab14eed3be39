//! End-to-end engine tests on real files in a temp dir (a few MiB, well under a second each).

use iofit_engine::{run_jobs, ClockChoice, EngineError, RunOptions, Silent};
use iofit_model::job::{
    BlockSizeShare, BlockSizeSpec, EngineKind, JobSpec, PerDirection, RwMode, SizeSpec, Target,
};
use iofit_model::units::Bytes;
use iofit_stats::JobResult;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

fn file_job(dir: &Path, name: &str, rw: RwMode, engine: EngineKind) -> JobSpec {
    let mut job = JobSpec::new(
        name,
        Target::Directory {
            path: dir.to_path_buf(),
            nrfiles: 1,
        },
    )
    .with_rw(rw);
    job.engine = engine;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(4)));
    job
}

fn run(jobs: &[JobSpec]) -> Vec<JobResult> {
    run_jobs(jobs, &RunOptions::default(), &mut Silent)
        .expect("run")
        .result
        .jobs
}

/// The engine's accounting invariants, checked on every result the tests see.
fn check_invariants(r: &JobResult) {
    for d in [&r.read, &r.write] {
        assert_eq!(d.completion_latency.count, d.ios, "{}: clat count", r.name);
        assert_eq!(d.total_latency.count, d.ios, "{}: lat count", r.name);
        let series_ios: u64 = r
            .series
            .iter()
            .map(|s| {
                if std::ptr::eq(d, &r.read) {
                    s.read_ios
                } else {
                    s.write_ios
                }
            })
            .sum();
        assert_eq!(series_ios, d.ios, "{}: series sums to the total", r.name);
    }
    assert!(r.error.is_none(), "{}: {:?}", r.name, r.error);
}

#[test]
fn null_engine_with_fake_clock_is_exact() {
    let mut job = JobSpec::new("n", Target::Files(vec!["x".into()])).with_rw(RwMode::RandRead);
    job.engine = EngineKind::Null;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
    let options = RunOptions {
        clock: ClockChoice::Fake { step_ns: 100 },
        ..RunOptions::default()
    };
    let report = run_jobs(&[job], &options, &mut Silent).unwrap();
    let r = &report.result.jobs[0];
    check_invariants(r);
    assert_eq!(r.read.ios, 256);
    assert_eq!(r.read.io_bytes, iofit_model::Bytes(256 * 4096));
    // One clock reading per IO, each 100 ns later: every latency is exactly 100 ns.
    assert_eq!(r.read.completion_latency.min_ns.get(), 100);
    assert_eq!(r.read.completion_latency.max_ns.get(), 100);
    // The first IO starts at the measurement start, so the runtime is exactly the IOs' time.
    assert_eq!(r.read.runtime_ns.get(), 256 * 100);
    assert_eq!(r.engine_used, Some(EngineKind::Null));
}

#[test]
fn psync_randread_covers_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let job = file_job(dir.path(), "r", RwMode::RandRead, EngineKind::Psync);
    let r = &run(&[job])[0];
    check_invariants(r);
    assert_eq!(r.read.ios, 1024);
    assert_eq!(r.read.io_bytes, iofit_model::Bytes(1024 * 4096));
    assert_eq!(r.write.ios, 0);
    assert!(
        dir.path().join("r.0.0").exists(),
        "laid out with fio's name"
    );
}

#[test]
fn sync_and_pvsync_run_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    for engine in [EngineKind::Sync, EngineKind::Pvsync] {
        let job = file_job(dir.path(), engine.fio_name(), RwMode::Write, engine);
        let r = &run(&[job])[0];
        check_invariants(r);
        assert_eq!(r.write.ios, 1024);
        assert_eq!(r.engine_used, Some(engine));
    }
}

#[test]
fn io_uring_direct_randread_at_depth() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "u", RwMode::RandRead, EngineKind::Libaio);
    job.iodepth = 16;
    job.direct = true;
    let r = &run(&[job])[0];
    check_invariants(r);
    assert_eq!(r.read.ios, 1024);
    assert_eq!(r.engine_requested, Some(EngineKind::Libaio));
    assert_eq!(r.engine_used, Some(EngineKind::IoUring));
    assert_eq!(r.iodepth, 16);
    assert_eq!(r.read.submission_latency.count, 1024);
}

#[test]
fn mixed_randrw_follows_rwmixread() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "m", RwMode::RandRw, EngineKind::IoUring);
    job.rwmix_read_pct = 70.0;
    job.iodepth = 8;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(8)));
    let r = &run(&[job])[0];
    check_invariants(r);
    let total = r.read.ios + r.write.ios;
    assert_eq!(total, 2048);
    let read_share = r.read.ios as f64 / total as f64;
    assert!((read_share - 0.70).abs() < 0.04, "read share {read_share}");
}

#[test]
fn rate_iops_is_honoured_within_five_percent() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "rl", RwMode::RandRead, EngineKind::IoUring);
    job.iodepth = 4;
    job.rate_iops = PerDirection::both(Some(2000));
    job.runtime = Some(Duration::from_millis(1000));
    job.time_based = true;
    let r = &run(&[job])[0];
    check_invariants(r);
    assert!(
        (r.read.iops.get() - 2000.0).abs() <= 100.0,
        "iops {} vs 2000",
        r.read.iops.get()
    );
}

#[test]
fn bssplit_sizes_follow_the_split() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "s", RwMode::RandWrite, EngineKind::Psync);
    let shares = vec![
        BlockSizeShare {
            size: Bytes::kib(4),
            pct: 50.0,
        },
        BlockSizeShare {
            size: Bytes::kib(16),
            pct: 50.0,
        },
    ];
    job.block_size = BlockSizeSpec::Split {
        read: shares.clone(),
        write: shares,
    };
    let r = &run(&[job])[0];
    check_invariants(r);
    let mean = r.write.io_bytes.as_f64() / r.write.ios as f64;
    assert!((mean - 10240.0).abs() < 1200.0, "mean size {mean}");
    assert!(r.write.io_bytes >= iofit_model::Bytes(4 * 1024 * 1024));
}

#[test]
fn numjobs_group_reporting_and_stonewall() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = file_job(dir.path(), "a", RwMode::Read, EngineKind::Psync);
    a.numjobs = 2;
    a.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
    let mut b = file_job(dir.path(), "b", RwMode::Write, EngineKind::Psync);
    b.numjobs = 3;
    b.group_reporting = true;
    b.stonewall = true;
    b.group_id = 1;
    b.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
    let results = run(&[a, b]);
    assert_eq!(results.len(), 3, "two clones of a, one merged b");
    assert_eq!(results[0].name, "a");
    assert_eq!(results[0].clones, 1);
    assert_eq!(results[2].name, "b");
    assert_eq!(results[2].clones, 3);
    assert_eq!(results[2].write.ios, 3 * 256);
    for r in &results {
        check_invariants(r);
    }
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_what_was_measured() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "c", RwMode::RandRead, EngineKind::Psync);
    job.runtime = Some(Duration::from_secs(30));
    job.time_based = true;
    let options = RunOptions::default();
    // Stop from the progress callback, once the job has run a little: a stop during the
    // layout ends the run before any job (tested in iofit's reliability suite).
    struct StopWhileRunning {
        stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
        calls: u32,
    }
    impl iofit_engine::Observer for StopWhileRunning {
        fn progress(&mut self, _progress: &iofit_engine::Progress) {
            self.calls += 1;
            if self.calls >= 2 {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }
    let mut observer = StopWhileRunning {
        stop: options.stop.clone(),
        calls: 0,
    };
    let start = Instant::now();
    let report = run_jobs(&[job], &options, &mut observer).unwrap();
    assert!(start.elapsed() < Duration::from_secs(25));
    let r = &report.result.jobs[0];
    assert!(r.interrupted);
    assert!(r.read.ios > 0);
    check_invariants(r);
}

#[test]
fn ramp_time_is_not_measured() {
    let mut job = JobSpec::new("n", Target::Files(vec!["x".into()])).with_rw(RwMode::Read);
    job.engine = EngineKind::Null;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
    job.time_based = true;
    job.runtime = Some(Duration::from_micros(50));
    job.ramp_time = Duration::from_micros(30);
    let options = RunOptions {
        clock: ClockChoice::Fake { step_ns: 1000 },
        ..RunOptions::default()
    };
    let r = &run_jobs(&[job], &options, &mut Silent).unwrap().result.jobs[0];
    check_invariants(r);
    // 80 us at 1 us per IO: about 30 in the ramp (not counted) and 50 measured.
    assert!((49..=51).contains(&r.read.ios), "{}", r.read.ios);
}

#[test]
fn fsync_every_n_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "f", RwMode::Write, EngineKind::Psync);
    job.size = Some(SizeSpec::Bytes(Bytes::kib(400)));
    job.fsync_every = 10;
    job.end_fsync = true;
    let r = &run(&[job])[0];
    assert_eq!(r.write.ios, 100);
    // As fio: a sync after every 10th write but the last (the job's IO is done), then the
    // end_fsync; only the 9 of fsync= are timed (fio's sync block).
    assert_eq!(r.syncs, 9 + 1);
    assert_eq!(r.sync_latency.count, 9);
}

#[test]
fn writing_a_foreign_file_is_refused_and_it_stays_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.db");
    let original = vec![0x42u8; 4 * 1024 * 1024];
    std::fs::write(&path, &original).unwrap();
    let mut job = JobSpec::new("w", Target::Files(vec![path.clone()])).with_rw(RwMode::Write);
    job.size = Some(SizeSpec::Bytes(Bytes::mib(4)));
    let err = run_jobs(&[job.clone()], &RunOptions::default(), &mut Silent).unwrap_err();
    assert!(matches!(err, EngineError::Refused { .. }));
    assert!(err.is_bad_input());
    assert_eq!(std::fs::read(&path).unwrap(), original);
    // Reading it is allowed.
    job = job.with_rw(RwMode::RandRead);
    let r = &run(&[job])[0];
    assert_eq!(r.read.ios, 1024);
    assert_eq!(std::fs::read(&path).unwrap(), original);
}

#[test]
fn io_limit_and_loops_bound_the_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "l", RwMode::Read, EngineKind::Psync);
    job.io_limit = Some(Bytes::mib(1));
    job.loops = 3;
    let r = &run(&[job])[0];
    assert_eq!(r.read.io_bytes, iofit_model::Bytes(3 * 1024 * 1024));
}

#[test]
fn rate_in_bytes_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "rb", RwMode::RandRead, EngineKind::Psync);
    // 4 MiB/s in 4 KiB IOs is 1,024 IOPS.
    job.rate_bytes_per_second = PerDirection::both(Some(4 * 1024 * 1024));
    job.runtime = Some(Duration::from_millis(1000));
    job.time_based = true;
    let r = &run(&[job])[0];
    check_invariants(r);
    let mib_s = r.read.bandwidth_bytes_per_second / (1024.0 * 1024.0);
    assert!((mib_s - 4.0).abs() <= 0.2, "{mib_s} MiB/s vs 4");
}

#[test]
fn sequential_time_based_wraps_at_the_region_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "wrap", RwMode::Read, EngineKind::Psync);
    job.size = Some(SizeSpec::Bytes(Bytes::kib(256)));
    job.runtime = Some(Duration::from_millis(200));
    job.time_based = true;
    let r = &run(&[job])[0];
    check_invariants(r);
    assert!(r.read.ios > 64, "only {} IOs: did not wrap", r.read.ios);
}

#[test]
fn start_delay_is_outside_the_measured_window() {
    let mut job = JobSpec::new("d", Target::Files(vec!["x".into()])).with_rw(RwMode::Read);
    job.engine = EngineKind::Null;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
    job.time_based = true;
    job.start_delay = Duration::from_micros(500);
    job.runtime = Some(Duration::from_micros(100));
    let options = RunOptions {
        clock: ClockChoice::Fake { step_ns: 1000 },
        ..RunOptions::default()
    };
    let r = &run_jobs(&[job], &options, &mut Silent).unwrap().result.jobs[0];
    // 100 us measured at 1 us per IO, whatever the 500 us delay before it.
    assert!((99..=101).contains(&r.read.ios), "{}", r.read.ios);
    assert!(
        r.read.runtime_ns.get() <= 102_000,
        "{}",
        r.read.runtime_ns.get()
    );
}

#[test]
fn norandommap_still_covers_the_bytes_asked() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "nrm", RwMode::RandWrite, EngineKind::IoUring);
    job.norandommap = true;
    job.iodepth = 4;
    let r = &run(&[job])[0];
    check_invariants(r);
    assert_eq!(r.write.io_bytes, iofit_model::Bytes(4 * 1024 * 1024));
}

#[test]
fn direct_io_with_an_odd_block_size_is_bad_input_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = file_job(dir.path(), "odd", RwMode::Read, EngineKind::IoUring);
    job.direct = true;
    job.block_size = BlockSizeSpec::fixed(Bytes(1000));
    let err = run_jobs(&[job], &RunOptions::default(), &mut Silent).unwrap_err();
    assert!(err.is_bad_input());
    assert!(err.to_string().contains("512"), "{err}");
    assert!(!dir.path().join("odd.0.0").exists(), "nothing laid out");
}
