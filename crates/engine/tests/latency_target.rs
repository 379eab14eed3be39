//! fio's latency_target search on an emulated device (mock: it stands for a disk that serves
//! one IO at a time in exactly `SERVICE_NS`, so an IO's latency is the queue ahead of it; no
//! real device is that regular, and a real one cannot be made to queue on demand in a test).
//! The search must settle on the deepest queue whose latency meets the target, report it, and
//! keep only the final window's statistics.

use iofit_engine::clock::{Clock, FakeClock};
use iofit_engine::engine::{Completion, Engine, Op};
use iofit_engine::worker::{
    run_clone, ClonePlan, CloneShared, LatencyTargetPlan, PacingPlan, ProgressCell,
};
use iofit_stats::SeriesMerger;
use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

const SERVICE_NS: u64 = 100_000;

struct SerialDevice<'a> {
    clock: &'a FakeClock,
    queued: Vec<(u32, u32)>,
    /// (done at, slot, len) in service order.
    flying: Vec<(u64, u32, u32)>,
    busy_until: u64,
}

impl Engine for SerialDevice<'_> {
    const INLINE: bool = false;
    fn execute(&mut self, _: u32, _: Op, _: u32, _: u64, _: u32) -> io::Result<usize> {
        unreachable!("queued engine")
    }
    fn queue(&mut self, slot: u32, _op: Op, _file: u32, _offset: u64, len: u32) {
        self.queued.push((slot, len));
    }
    fn submit(&mut self) -> io::Result<()> {
        let now = self.clock.now_ns();
        for (slot, len) in self.queued.drain(..) {
            self.busy_until = self.busy_until.max(now) + SERVICE_NS;
            self.flying.push((self.busy_until, slot, len));
        }
        Ok(())
    }
    fn reap(&mut self, min: u32, timeout_ns: u64, out: &mut Vec<Completion>) -> io::Result<()> {
        let mut now = self.clock.now_ns();
        if let Some(first) = self.flying.iter().map(|f| f.0).min() {
            if min > 0 && first > now {
                self.clock.sleep_until(first.min(now + timeout_ns));
                now = self.clock.now_ns();
            }
        }
        self.flying.retain(|&(done, slot, len)| {
            if done <= now {
                out.push(Completion {
                    slot,
                    result: len as i64,
                });
            }
            done > now
        });
        Ok(())
    }
    fn sync_file(&mut self, _: u32, _: bool) -> io::Result<()> {
        Ok(())
    }
}

fn plan(target_ns: u64, keep_running: bool) -> ClonePlan {
    ClonePlan {
        depth: 64,
        runtime_ns: Some(30_000_000_000),
        pacing: PacingPlan {
            latency_target: Some(LatencyTargetPlan {
                target_ns,
                window_ns: 50_000_000,
                percentile: 99.0,
                keep_running,
            }),
            ..PacingPlan::default()
        },
        ..ClonePlan::random_reads("latency", "x", 64 << 20)
    }
}

fn run(plan: &ClonePlan) -> iofit_engine::worker::CloneOutput {
    let clock = FakeClock::new(10);
    let mut device = SerialDevice {
        clock: &clock,
        queued: Vec::new(),
        flying: Vec::new(),
        busy_until: 0,
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
    run_clone(&mut device, &clock, plan, &shared)
}

#[test]
fn settles_on_the_deepest_queue_that_meets_the_target_and_ends() {
    // Latency at depth d is d x 100 us (plus the fake clock's steps): a 1.05 ms target is met
    // up to depth 10.
    let out = run(&plan(1_050_000, false));
    assert!(out.error.is_none(), "{:?}", out.error);
    assert_eq!(out.latency_depth, Some(10));
    // The job ended after the final window, long before its 30 s runtime.
    assert!(out.runtime_ns < 2_000_000_000, "runtime {}", out.runtime_ns);
    // Statistics cover the final window at depth 10 only: every IO within the target, and
    // Little's law gives 10 outstanding.
    let total = out.read.total.summary();
    assert!(total.max_ns <= 1_050_000, "max latency {}", total.max_ns);
    let iops = out.read.ios as f64 * 1e9 / out.runtime_ns as f64;
    let outstanding = iops * out.read.total.mean_ns() / 1e9;
    assert!(
        (outstanding - 10.0).abs() < 0.5,
        "{outstanding} outstanding"
    );
}

#[test]
fn latency_run_keeps_going_at_the_depth_found() {
    let mut p = plan(1_050_000, true);
    p.runtime_ns = Some(3_000_000_000);
    let out = run(&p);
    assert_eq!(out.latency_depth, Some(10));
    // It ran to its 3 s runtime; the statistics restarted when the search converged (~0.5 s
    // in), so they cover the rest.
    assert!(
        (2_000_000_000..3_000_000_000).contains(&out.runtime_ns),
        "measured {} ns",
        out.runtime_ns
    );
}
