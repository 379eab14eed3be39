//! fio `unlink_each_loop` with loops=N: each loop is a pass over a new file (seen from outside
//! as a new inode per loop), the loops add up to one result, and only iofit's own files are
//! ever removed. Real files in a temporary directory, psync and io_uring; each run well under
//! a second.

use iofit_engine::{run_jobs, EngineError, RunOptions, Silent};
use iofit_model::data::VerifyMode;
use iofit_model::job::{EngineKind, JobSpec, PerDirection, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_stats::JobResult;
use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

const BLOCK: u64 = 4096;

/// 64 KiB (16 blocks) per loop in the directory, three loops, each loop's files removed and
/// laid out again.
fn job(dir: &Path, rw: RwMode) -> JobSpec {
    let mut job = JobSpec::new(
        "uel",
        Target::Directory {
            path: dir.to_path_buf(),
            nrfiles: 1,
        },
    )
    .with_rw(rw);
    job.engine = EngineKind::Psync;
    job.size = Some(SizeSpec::Bytes(Bytes::kib(64)));
    job.loops = 3;
    job.file_sync.unlink_each_loop = true;
    job
}

fn run(job: &JobSpec, allow_overwrite: bool) -> Result<JobResult, EngineError> {
    let options = RunOptions {
        allow_overwrite,
        ..RunOptions::default()
    };
    let report = run_jobs(std::slice::from_ref(job), &options, &mut Silent)?;
    Ok(report.result.jobs.into_iter().next().expect("one job"))
}

/// bytes = IOs x block, every histogram and the interval series count every completion.
fn check_counts(r: &JobResult, ios: u64) {
    let d = if r.read.ios > 0 { &r.read } else { &r.write };
    assert_eq!(d.ios, ios, "IOs over the loops");
    assert_eq!(
        d.io_bytes,
        iofit_model::Bytes(d.ios * BLOCK),
        "bytes = IOs x bs"
    );
    assert_eq!(d.completion_latency.count, d.ios, "clat count");
    assert_eq!(d.total_latency.count, d.ios, "lat count");
    let series: u64 = r.series.iter().map(|s| s.read_ios + s.write_ios).sum();
    assert_eq!(series, d.ios, "the interval series counts every loop");
    assert!(r.error.is_none(), "{:?}", r.error);
}

/// Opens `path` every millisecond while the job runs and keeps what it opened, so that an
/// unlinked inode cannot be reused for the next loop's file: the distinct inodes seen.
fn watch_inodes(path: PathBuf, done: Arc<AtomicBool>) -> std::thread::JoinHandle<BTreeSet<u64>> {
    std::thread::spawn(move || {
        let mut held = Vec::new();
        let mut inodes = BTreeSet::new();
        while !done.load(Ordering::Relaxed) {
            if let Ok(file) = std::fs::File::open(&path) {
                let ino = file.metadata().unwrap().ino();
                if inodes.insert(ino) {
                    held.push(file);
                }
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        inodes
    })
}

#[test]
fn each_loop_reads_a_new_file_and_the_loops_add_up() {
    let dir = tempfile::tempdir().unwrap();
    for engine in [EngineKind::Psync, EngineKind::IoUring] {
        let mut job = job(dir.path(), RwMode::RandRead);
        job.engine = engine;
        // 16 IOs at 200 IOPS: each loop lasts ~80 ms, long enough for the watcher to see it.
        job.rate_iops = PerDirection::both(Some(200));
        let done = Arc::new(AtomicBool::new(false));
        let watcher = watch_inodes(dir.path().join("uel.0.0"), Arc::clone(&done));
        let r = run(&job, false).expect("run");
        done.store(true, Ordering::Relaxed);
        let inodes = watcher.join().unwrap();
        assert_eq!(
            inodes.len(),
            3,
            "{engine:?}: one file per loop, saw {inodes:?}"
        );
        check_counts(&r, 3 * 16);
        // Three loops of ~80 ms: the runtimes add up (one pass would be a third).
        assert!(
            r.read.runtime_ns.get() >= 3 * 70_000_000,
            "{}",
            r.read.runtime_ns.get()
        );
        // As in fio, the last loop's file stays without unlink=1.
        assert!(dir.path().join("uel.0.0").exists());
        std::fs::remove_file(dir.path().join("uel.0.0")).unwrap();
    }
}

#[test]
fn each_loop_verifies_its_own_writes_and_unlink_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = job(dir.path(), RwMode::RandWrite);
    job.numjobs = 2;
    job.group_reporting = true;
    job.data.verify.mode = VerifyMode::Crc32c;
    job.file_sync.unlink = true;
    let r = run(&job, false).expect("run");
    // Two clones x three loops x 16 blocks, as fio 3.33 counts this job (48 writes and 48
    // verify reads per clone).
    assert_eq!(r.write.ios, 2 * 3 * 16);
    assert_eq!(r.write.io_bytes, iofit_model::Bytes(r.write.ios * BLOCK));
    assert_eq!(r.write.completion_latency.count, r.write.ios);
    let verify = r.verify.as_ref().expect("verified");
    assert_eq!(verify.units_checked, 2 * 3 * 16);
    assert_eq!(verify.bad_units, 0);
    assert!(r.error.is_none(), "{:?}", r.error);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "files left: {left:?}");
}

#[test]
fn a_file_shared_by_clones_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared");
    let mut job = job(dir.path(), RwMode::RandWrite);
    job.target = Target::Files(vec![path.clone()]);
    job.numjobs = 2;
    let e = run(&job, false).expect_err("refused").to_string();
    assert!(
        e.contains("unlink_each_loop") && e.contains("2 clones"),
        "{e}"
    );
    assert!(!path.exists(), "nothing laid out");
}

#[test]
fn a_users_file_is_never_unlinked_and_an_earlier_run_of_iofit_s_is() {
    let dir = tempfile::tempdir().unwrap();
    let user = dir.path().join("users-file");
    std::fs::write(&user, vec![7u8; 64 << 10]).unwrap();
    let mut job = job(dir.path(), RwMode::RandRead);
    job.target = Target::Files(vec![user.clone()]);
    let e = run(&job, true).expect_err("refused").to_string();
    assert!(e.contains("not a file iofit created"), "{e}");
    assert_eq!(std::fs::read(&user).unwrap(), vec![7u8; 64 << 10]);

    // A file an earlier iofit run laid out (it carries iofit's marker) is iofit's to remove.
    let own = dir.path().join("own");
    let mut first = job.clone();
    first.target = Target::Files(vec![own.clone()]);
    first.file_sync.unlink_each_loop = false;
    first.loops = 1;
    run(&first, false).expect("first run");
    let before = std::fs::metadata(&own).unwrap().ino();
    let _hold = std::fs::File::open(&own).unwrap();
    let mut again = first.clone();
    again.file_sync.unlink_each_loop = true;
    again.loops = 2;
    let r = run(&again, false).expect("second run");
    check_counts(&r, 2 * 16);
    assert_ne!(std::fs::metadata(&own).unwrap().ino(), before);
}

#[test]
fn time_based_ignores_loops_and_unlinks_nothing_as_fio_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = job(dir.path(), RwMode::RandRead);
    job.time_based = true;
    job.runtime = Some(Duration::from_millis(150));
    let done = Arc::new(AtomicBool::new(false));
    let watcher = watch_inodes(dir.path().join("uel.0.0"), Arc::clone(&done));
    let r = run(&job, false).expect("run");
    done.store(true, Ordering::Relaxed);
    assert_eq!(watcher.join().unwrap().len(), 1, "one file, never replaced");
    let runtime_ms = r.read.runtime_ns.get() / 1_000_000;
    assert!((140..400).contains(&runtime_ms), "{runtime_ms} ms");
}

#[test]
fn plain_loops_are_passes_over_the_same_file_each_verified_as_fio_does() {
    // fio 3.33, loops=3 verify=crc32c on 64 KiB: 48 writes and 48 verify reads (do_verify
    // after every loop), one file throughout.
    let dir = tempfile::tempdir().unwrap();
    let mut job = job(dir.path(), RwMode::RandWrite);
    job.file_sync.unlink_each_loop = false;
    job.data.verify.mode = VerifyMode::Crc32c;
    let done = Arc::new(AtomicBool::new(false));
    let watcher = watch_inodes(dir.path().join("uel.0.0"), Arc::clone(&done));
    let r = run(&job, false).expect("run");
    done.store(true, Ordering::Relaxed);
    assert_eq!(watcher.join().unwrap().len(), 1, "one file, never replaced");
    assert_eq!((r.write.ios, r.read.ios), (48, 48));
    assert_eq!(r.write.io_bytes, iofit_model::Bytes(r.write.ios * BLOCK));
    let verify = r.verify.as_ref().expect("verified");
    assert_eq!((verify.units_checked, verify.bad_units), (48, 0));
}
