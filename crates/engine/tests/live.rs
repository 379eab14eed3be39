//! `LiveResults`: what a stop bound prints when the runner's thread cannot sum up in time. The
//! runner here is held inside its observer (as a starved thread would be) from the stop until
//! the clones have ended; the live report taken then must be whole (bytes = IOs x block size,
//! histogram counts = completions), marked interrupted, and equal to what the runner reports
//! once it gets its turn.

use iofit_engine::{run_jobs, LiveResults, Observer, Progress, RunOptions, RunReport};
use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// At its first progress event: stops the run, waits (holding the runner) for the clones to
/// end, and takes the live report.
struct HoldsTheRunner {
    stop: Arc<AtomicBool>,
    live: Arc<LiveResults>,
    taken: Option<RunReport>,
}

impl Observer for HoldsTheRunner {
    fn progress(&mut self, _progress: &Progress) {
        if self.taken.is_some() || self.stop.load(Ordering::SeqCst) {
            return;
        }
        self.stop.store(true, Ordering::SeqCst);
        // Past the clones' drain after a stop (250 ms) with room for a loaded machine.
        std::thread::sleep(Duration::from_millis(600));
        let deadline = Instant::now() + Duration::from_secs(1);
        self.taken = Some(self.live.interrupted_report(deadline).expect("a report"));
    }
}

fn null_job(name: &str, clones: u32, group: bool) -> JobSpec {
    let mut job =
        JobSpec::new(name, Target::Files(vec!["unused".into()])).with_rw(RwMode::RandRead);
    job.engine = EngineKind::Null;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(4)));
    job.runtime = Some(Duration::from_secs(30));
    job.time_based = true;
    job.numjobs = clones;
    job.group_reporting = group;
    job
}

fn run_held(jobs: &[JobSpec]) -> (RunReport, RunReport) {
    let stop = Arc::new(AtomicBool::new(false));
    let live = Arc::new(LiveResults::default());
    let options = RunOptions {
        stop: Arc::clone(&stop),
        live: Some(Arc::clone(&live)),
        ..RunOptions::default()
    };
    let mut observer = HoldsTheRunner {
        stop,
        live,
        taken: None,
    };
    let report = run_jobs(jobs, &options, &mut observer).unwrap();
    (observer.taken.expect("the observer ran"), report)
}

#[test]
fn the_live_report_of_a_held_runner_is_whole_and_equals_the_final_one() {
    let (taken, report) = run_held(&[null_job("one", 1, false), null_job("group", 3, true)]);
    assert_eq!(taken.result.jobs.len(), 2);
    for (live, done) in taken.result.jobs.iter().zip(&report.result.jobs) {
        let read = &live.read;
        assert!(live.interrupted, "{}", live.name);
        assert!(live.error.is_none(), "{}: {:?}", live.name, live.error);
        assert!(read.ios > 0, "{}", live.name);
        assert_eq!(
            read.io_bytes,
            iofit_model::Bytes(read.ios * 4096),
            "{}",
            live.name
        );
        assert_eq!(read.completion_latency.count, read.ios, "{}", live.name);
        assert_eq!(read.total_latency.count, read.ios, "{}", live.name);
        assert!(read.iops.get() > 0.0, "{}", live.name);
        // Each clone published its final numbers when it ended: the same IOs the runner sums.
        assert_eq!(live.name, done.name);
        assert_eq!(live.clones, done.clones);
        assert_eq!(read.ios, done.read.ios, "{}", live.name);
    }
}

#[test]
fn before_a_run_begins_there_is_no_live_report() {
    let live = LiveResults::default();
    assert!(live.interrupted_report(Instant::now()).is_none());
}
