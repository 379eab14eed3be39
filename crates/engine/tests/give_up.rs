//! The runner's give-up bound: a clone blocked in a system call the kernel does not interrupt
//! must not hold a stopped run past [`STOP_GRACE`]. The clone here is really stuck: it reads a
//! loop device whose reads the kernel throttles (cgroup v1 `blkio.throttle.read_bps_device`)
//! to 4 KiB/s, so one 1 MiB O_DIRECT `pread` would take 256 s. Needs root, a loop device and
//! the v1 blkio controller (this project's machines have them); elsewhere it says why it skips.

use iofit_engine::{run_jobs, RunOptions, RunReport, Silent, STOP_GRACE};
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_testkit::stuck::{Loop, Throttle, BLKIO};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

fn stuck_job(device: &Path) -> JobSpec {
    let mut job =
        JobSpec::new("stuck", Target::Files(vec![device.to_path_buf()])).with_rw(RwMode::Read);
    job.engine = EngineKind::Psync;
    job.direct = true;
    job.block_size = BlockSizeSpec::fixed(Bytes::mib(1));
    job.size = Some(SizeSpec::Bytes(Bytes::mib(4)));
    job.runtime = Some(Duration::from_secs(30));
    job.time_based = true;
    job
}

#[test]
fn a_clone_stuck_in_a_read_does_not_hold_a_stop_past_the_grace() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || !Path::new(BLKIO).join("tasks").exists() {
        eprintln!("skipping: needs root and the cgroup v1 blkio controller");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("stall.img");
    std::fs::write(&image, vec![0u8; 8 << 20]).unwrap();
    let Some(device) = Loop::attach(&image) else {
        return;
    };
    let Some(throttle) = Throttle::new(device.major_minor(), 4096) else {
        eprintln!("skipping: cannot make a blkio cgroup under {BLKIO}");
        return;
    };
    let throttle = Arc::new(throttle);
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel::<Result<RunReport, String>>();
    let runner = {
        let (throttle, stop, job) = (throttle.clone(), stop.clone(), stuck_job(&device.device));
        std::thread::spawn(move || {
            throttle.enter();
            let options = RunOptions {
                allow_overwrite: true,
                stop,
                ..RunOptions::default()
            };
            let _ = tx.send(run_jobs(&[job], &options, &mut Silent).map_err(|e| e.to_string()));
        })
    };
    // Long enough for the clone to start and block in its first read.
    std::thread::sleep(Duration::from_millis(800));
    let stopped = Instant::now();
    stop.store(true, Ordering::SeqCst);
    let outcome = rx.recv_timeout(Duration::from_secs(10));
    let waited = stopped.elapsed();
    let report = outcome
        .expect("the runner answered within 10 s of the stop")
        .expect("the run itself did not fail");
    runner.join().unwrap();
    assert!(
        waited < STOP_GRACE + Duration::from_millis(500),
        "the stop took {waited:?}; the bound is {STOP_GRACE:?} plus one poll"
    );
    eprintln!("stop to report: {waited:?}");
    let job = &report.result.jobs[0];
    assert!(job.interrupted);
    assert_eq!(job.read.ios, 0, "the throttled read never completed");
    let error = job.error.as_deref().unwrap_or("");
    let said = format!("did not stop within {} ms", STOP_GRACE.as_millis());
    assert!(error.contains(&said), "{error}");
    drop(throttle);
}
