//! Effects of fio's max_latency, exitall_on_error and disable_lat/clat/slat on real runs over
//! files in the temp dir (each well under a second).

use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_stats::JobResult;
use std::path::Path;
use std::time::{Duration, Instant};

fn job(dir: &Path, name: &str, engine: EngineKind) -> JobSpec {
    let mut job = JobSpec::new(
        name,
        Target::Directory {
            path: dir.to_path_buf(),
            nrfiles: 1,
        },
    )
    .with_rw(RwMode::RandRead);
    job.engine = engine;
    job.iodepth = 4;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
    job
}

fn run(jobs: &[JobSpec]) -> Vec<JobResult> {
    run_jobs(jobs, &RunOptions::default(), &mut Silent)
        .expect("run")
        .result
        .jobs
}

#[test]
fn max_latency_below_every_io_ends_the_job_with_etimedout_after_the_first() {
    let dir = tempfile::tempdir().unwrap();
    for engine in [EngineKind::Psync, EngineKind::IoUring] {
        let mut strict = job(dir.path(), "strict", engine);
        strict.measurement.max_latency.read = Some(Duration::from_nanos(1));
        let r = &run(&[strict])[0];
        let error = r.error.as_deref().expect("max_latency fails the job");
        assert!(error.contains("exceeds specified max (1 nsec)"), "{error}");
        assert!(error.contains("os error 110"), "ETIMEDOUT: {error}");
        // It stops at once: the IOs already in flight at most, not the 256 of the file.
        assert!(
            r.read.ios >= 1 && r.read.ios <= 4,
            "{engine:?}: {} IOs",
            r.read.ios
        );

        let mut loose = job(dir.path(), "loose", engine);
        loose.measurement.max_latency.read = Some(Duration::from_secs(10));
        // Only reads are limited; a write limit does not apply to a read job.
        loose.measurement.max_latency.write = Some(Duration::from_nanos(1));
        let r = &run(&[loose])[0];
        assert!(r.error.is_none(), "{:?}", r.error);
        assert_eq!(r.read.ios, 256);
    }
}

#[test]
fn max_latency_is_not_checked_when_total_latency_is_not_measured() {
    // fio checks max_latency against the total latency, which disable_lat turns off.
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), "unmeasured", EngineKind::Psync);
    j.measurement.max_latency.read = Some(Duration::from_nanos(1));
    j.measurement.disable_lat = true;
    let r = &run(&[j])[0];
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.read.ios, 256);
}

#[test]
fn exitall_on_error_ends_the_other_jobs_when_one_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut failing = job(dir.path(), "failing", EngineKind::Psync);
    failing.measurement.max_latency.read = Some(Duration::from_nanos(1));
    failing.thread_control.exit_all_on_error = true;
    let mut long = job(dir.path(), "long", EngineKind::Psync);
    long.runtime = Some(Duration::from_secs(20));
    long.time_based = true;
    let started = Instant::now();
    let results = run(&[failing, long]);
    assert!(results[0].error.is_some());
    assert!(results[1].error.is_none(), "{:?}", results[1].error);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the 20 s job ended with the failing one: {:?}",
        started.elapsed()
    );
}

#[test]
fn disable_lat_clat_slat_leave_their_histograms_empty_and_keep_the_counts() {
    let dir = tempfile::tempdir().unwrap();
    // Queued engine: slat, clat and lat are three histograms.
    let cases: [(bool, bool, bool); 4] = [
        (true, false, false),
        (false, true, false),
        (false, false, true),
        (true, true, true),
    ];
    for (lat, clat, slat) in cases {
        let mut j = job(dir.path(), "uring", EngineKind::IoUring);
        j.measurement.disable_lat = lat;
        j.measurement.disable_clat = clat;
        j.measurement.disable_slat = slat;
        let r = &run(&[j])[0];
        assert!(r.error.is_none(), "{:?}", r.error);
        let d = &r.read;
        assert_eq!(d.ios, 256, "IOs are still counted");
        assert_eq!(d.io_bytes, iofit_model::Bytes(256 * 4096));
        let expect = |off: bool| if off { 0 } else { d.ios };
        assert_eq!(
            d.total_latency.count,
            expect(lat),
            "lat with {:?}",
            (lat, clat, slat)
        );
        assert_eq!(d.completion_latency.count, expect(clat), "clat");
        assert_eq!(d.submission_latency.count, expect(slat), "slat");
    }
    // Synchronous engine: clat and lat are one sample; each switch still removes only its own.
    for (lat, clat) in [(true, false), (false, true)] {
        let mut j = job(dir.path(), "psync", EngineKind::Psync);
        j.measurement.disable_lat = lat;
        j.measurement.disable_clat = clat;
        let r = &run(&[j])[0];
        let d = &r.read;
        assert_eq!(d.ios, 256);
        assert_eq!(d.total_latency.count, if lat { 0 } else { 256 });
        assert_eq!(d.completion_latency.count, if clat { 0 } else { 256 });
    }
}
