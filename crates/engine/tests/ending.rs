//! Runs end on time: every run ends within its runtime plus the stated drain bound, also while
//! other threads saturate the same disk file with O_DIRECT writes; a stop ends a run at once.
//! Real files on the local disk (the temp dir), real direct IO.

use iofit_engine::worker::{overrun_bound_ns, CANCEL_WAIT_NS, POLL_NS, STOP_DRAIN_NS};
use iofit_engine::{run_jobs, RunOptions, Silent, STOP_GRACE};
use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_testkit::load::DiskContention;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const FILE_BYTES: u64 = 16 << 20;

fn job(path: &Path, engine: EngineKind, depth: u32, runtime: Duration) -> JobSpec {
    let mut job =
        JobSpec::new("end", Target::Files(vec![path.to_path_buf()])).with_rw(RwMode::RandRead);
    job.engine = engine;
    job.iodepth = depth;
    job.direct = true;
    job.block_size = iofit_model::job::BlockSizeSpec::fixed(Bytes::kib(8));
    job.size = Some(SizeSpec::Bytes(Bytes::mib(FILE_BYTES >> 20)));
    job.runtime = Some(runtime);
    job.time_based = true;
    job
}

/// A 16 MiB file iofit lays out (and so owns).
fn laid_out_file(dir: &Path) -> PathBuf {
    let path = dir.join("busy.dat");
    let mut layout = job(&path, EngineKind::Psync, 1, Duration::from_millis(1));
    layout.time_based = false;
    layout.runtime = None;
    layout.rw = RwMode::Read;
    layout.block_size = iofit_model::job::BlockSizeSpec::fixed(Bytes::mib(1));
    run_jobs(&[layout], &RunOptions::default(), &mut Silent).expect("lay out the file");
    path
}

#[test]
fn twenty_short_runs_on_a_busy_file_each_end_within_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let path = laid_out_file(dir.path());
    let contention = DiskContention::start(&path, FILE_BYTES, 2);
    // Thread start, file open and ring setup: outside the runtime, well under this.
    let setup = Duration::from_millis(300);
    let cases = [
        (EngineKind::IoUring, 128),
        (EngineKind::IoUring, 32),
        (EngineKind::IoUring, 1),
        (EngineKind::Psync, 1),
    ];
    for run in 0..20u32 {
        let (engine, depth) = cases[run as usize % cases.len()];
        let runtime = Duration::from_millis(300 + 50 * (run as u64 % 5));
        let started = Instant::now();
        let report = run_jobs(
            &[job(&path, engine, depth, runtime)],
            &RunOptions::default(),
            &mut Silent,
        )
        .expect("run");
        let elapsed = started.elapsed();
        let r = &report.result.jobs[0];
        assert!(r.error.is_none(), "run {run}: {:?}", r.error);
        assert!(r.read.ios > 0, "run {run}: no IO");
        let longest_ns = r.read.total_latency.max_ns.get();
        let bound = runtime + Duration::from_nanos(overrun_bound_ns(longest_ns)) + setup;
        assert!(
            elapsed <= bound,
            "run {run} ({engine:?} QD{depth}, runtime {runtime:?}) took {elapsed:?}, bound {bound:?}"
        );
        eprintln!(
            "run {run}: {engine:?} QD{depth} runtime {runtime:?}: ended after {elapsed:?}, longest IO {} us, bound {bound:?}",
            longest_ns / 1000
        );
        // The measured window ends with the last completion: the runtime plus the drain.
        assert!(
            r.read.runtime_ns.get() <= (runtime.as_nanos() as u64) + overrun_bound_ns(longest_ns),
            "run {run}: measured {} ns",
            r.read.runtime_ns.get()
        );
    }
    assert!(
        contention.writes() > 0,
        "the contending writers wrote nothing"
    );
}

#[test]
fn a_stop_ends_a_deep_queue_on_a_busy_file_within_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let path = laid_out_file(dir.path());
    let _contention = DiskContention::start(&path, FILE_BYTES, 2);
    for depth in [128, 1] {
        let options = RunOptions::default();
        let stop = options.stop.clone();
        let job = job(&path, EngineKind::IoUring, depth, Duration::from_secs(60));
        let runner = std::thread::spawn(move || run_jobs(&[job], &options, &mut Silent));
        std::thread::sleep(Duration::from_millis(400));
        let stopped = Instant::now();
        stop.store(true, Ordering::Relaxed);
        let report = runner.join().unwrap().expect("run");
        let took = stopped.elapsed();
        // The runner's grace is the hard limit (plus finishing the result)...
        assert!(
            took < STOP_GRACE + Duration::from_millis(200),
            "QD{depth}: stop took {took:?}"
        );
        let r = &report.result.jobs[0];
        // ...and the clone ended by itself, within the stop drain, the cancel wait and a poll,
        // instead of being given up on.
        let given_up = r
            .error
            .as_deref()
            .is_some_and(|e| e.contains("did not stop"));
        assert!(!given_up, "QD{depth}: {:?} (stop took {took:?})", r.error);
        eprintln!(
            "QD{depth}: stopped in {took:?} (clone bound {} ms)",
            (STOP_DRAIN_NS + CANCEL_WAIT_NS + POLL_NS) / 1_000_000
        );
        assert!(r.interrupted, "QD{depth}: marked interrupted");
        assert!(r.read.ios > 0, "QD{depth}: kept what was measured");
        assert_eq!(r.read.total_latency.count, r.read.ios);
    }
}

mod stalled {
    //! A device that never answers (emulated: a real disk cannot be made to hang on demand
    //! here) sharing an injected clock with the worker: the run still ends at its deadline
    //! plus the stated bound, cancelling what is in flight and abandoning what the cancel does
    //! not bring back.

    use iofit_engine::clock::{Clock, FakeClock};
    use iofit_engine::engine::{Completion, Engine, Op};
    use iofit_engine::worker::{
        drain_bound_ns, overrun_bound_ns, run_clone, CloneOutput, ClonePlan, CloneShared,
        ProgressCell,
    };
    use iofit_stats::SeriesMerger;
    use std::io;
    use std::sync::atomic::AtomicBool;
    use std::sync::Mutex;

    /// Completes IOs only for the first `answered` of them; after that it holds every IO
    /// until cancelled (or for ever, when `honours_cancel` is false).
    struct StallingDevice<'a> {
        clock: &'a FakeClock,
        answered: u64,
        honours_cancel: bool,
        queued: Vec<(u32, u32)>,
        flying: Vec<(u32, u32)>,
        cancelled: Vec<u32>,
        completed: u64,
    }

    impl Engine for StallingDevice<'_> {
        const INLINE: bool = false;
        fn execute(&mut self, _: u32, _: Op, _: u32, _: u64, _: u32) -> io::Result<usize> {
            unreachable!("queued engine")
        }
        fn queue(&mut self, slot: u32, _op: Op, _file: u32, _offset: u64, len: u32) {
            self.queued.push((slot, len));
        }
        fn submit(&mut self) -> io::Result<()> {
            self.flying.append(&mut self.queued);
            Ok(())
        }
        fn reap(&mut self, min: u32, timeout_ns: u64, out: &mut Vec<Completion>) -> io::Result<()> {
            for slot in self.cancelled.drain(..) {
                out.push(Completion {
                    slot,
                    result: -(libc::ECANCELED as i64),
                });
            }
            while self.completed < self.answered {
                let Some((slot, len)) = self.flying.pop() else {
                    break;
                };
                self.completed += 1;
                out.push(Completion {
                    slot,
                    result: len as i64,
                });
            }
            if out.is_empty() && min > 0 {
                // Nothing comes: the wait runs to its timeout.
                let now = self.clock.now_ns();
                self.clock.sleep_until(now + timeout_ns);
            }
            Ok(())
        }
        fn cancel_all(&mut self) -> io::Result<()> {
            if self.honours_cancel {
                self.cancelled
                    .extend(self.flying.drain(..).map(|(slot, _)| slot));
            }
            Ok(())
        }
        fn sync_file(&mut self, _: u32, _: bool) -> io::Result<()> {
            Ok(())
        }
    }

    fn run(honours_cancel: bool) -> (CloneOutput, u64, u64) {
        const DEPTH: u32 = 8;
        const RUNTIME_NS: u64 = 2_000_000_000;
        let clock = FakeClock::new(1_000);
        let mut device = StallingDevice {
            clock: &clock,
            answered: 1_000,
            honours_cancel,
            queued: Vec::new(),
            flying: Vec::new(),
            cancelled: Vec::new(),
            completed: 0,
        };
        let plan = ClonePlan {
            depth: DEPTH,
            runtime_ns: Some(iofit_model::units::Nanos(RUNTIME_NS)),
            ..ClonePlan::random_reads("stall", "x", 64 << 20)
        };
        let stop = AtomicBool::new(false);
        let progress = ProgressCell::default();
        let series = Mutex::new(SeriesMerger::new(1_000_000_000, 1));
        let shared = CloneShared {
            stop: &stop,
            end_set: None,
            progress: &progress,
            series: &series,
            start: None,
        };
        let out = run_clone(&mut device, &clock, &plan, &shared);
        let ended = clock.now_ns();
        (out, ended, RUNTIME_NS)
    }

    #[test]
    fn a_device_that_stops_answering_is_cancelled_within_the_bound() {
        let (out, ended, runtime) = run(true);
        assert_eq!(out.read.ios, 1_000, "what completed is kept");
        assert_eq!(
            out.cancelled_ios, 8,
            "every IO in flight came back cancelled"
        );
        assert!(out.error.is_none(), "{:?}", out.error);
        // The device stalled early, so the deadline passes while waiting; the longest latency
        // seen is tiny, so the drain is the 1 s floor.
        assert!(
            ended >= runtime + drain_bound_ns(0),
            "drained first: {ended}"
        );
        assert!(ended <= runtime + overrun_bound_ns(0), "ended at {ended}");
    }

    #[test]
    fn a_device_that_ignores_the_cancel_is_abandoned_within_the_bound() {
        let (out, ended, runtime) = run(false);
        assert_eq!(out.read.ios, 1_000);
        assert_eq!(out.cancelled_ios, 8, "abandoned, and counted");
        assert!(ended <= runtime + overrun_bound_ns(0), "ended at {ended}");
    }
}
