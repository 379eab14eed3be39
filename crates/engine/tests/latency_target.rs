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
use iofit_model::units::Nanos;
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
        runtime_ns: Some(Nanos(30_000_000_000)),
        pacing: PacingPlan {
            latency_target: Some(LatencyTargetPlan {
                target_ns: Nanos(target_ns),
                window_ns: Nanos(50_000_000),
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
    assert!(
        out.runtime_ns < Nanos(2_000_000_000),
        "runtime {:?}",
        out.runtime_ns
    );
    // Statistics cover the final window at depth 10 only: every IO within the target, and
    // Little's law gives 10 outstanding.
    let total = out.read.total.summary();
    assert!(
        total.max_ns.get() <= 1_050_000,
        "max latency {}",
        total.max_ns.get()
    );
    let iops = out.read.ios as f64 * 1e9 / out.runtime_ns.get() as f64;
    let outstanding = iops * out.read.total.mean_ns() / 1e9;
    assert!(
        (outstanding - 10.0).abs() < 0.5,
        "{outstanding} outstanding"
    );
}

#[test]
fn latency_run_keeps_searching_for_the_whole_runtime() {
    let mut p = plan(1_050_000, true);
    p.runtime_ns = Some(Nanos(3_000_000_000));
    let out = run(&p);
    assert!(out.error.is_none(), "{:?}", out.error);
    // As fio's latency_run: no final window and no restart of the statistics, which cover
    // the whole 3 s runtime (search included: the latencies of depths 11 to 16 are in them).
    assert!(
        (3_000_000_000..3_100_000_000).contains(&out.runtime_ns.get()),
        "measured {} ns",
        out.runtime_ns.get()
    );
    assert!(out.read.total.summary().max_ns.get() > 1_100_000);
    // It stays around the deepest queue that meets the target: 10, with fio's retry of 11
    // after three successes in a row at 10.
    assert!(
        matches!(out.latency_depth, Some(10 | 11)),
        "{:?}",
        out.latency_depth
    );
}

/// A device that serves every IO in exactly `PARALLEL_NS`, however many are queued (mock: it
/// stands for a device with more channels than the queue is deep). Any latency the worker
/// stamps beyond that is time the worker added.
struct ParallelDevice<'a> {
    clock: &'a FakeClock,
    queued: Vec<(u32, u32)>,
    flying: Vec<(u64, u32, u32)>,
}

const PARALLEL_NS: u64 = 100_000;

impl Engine for ParallelDevice<'_> {
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
            self.flying.push((now + PARALLEL_NS, slot, len));
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

/// A 16-deep job whose target every depth meets, windows of 10 ms, on the parallel device.
fn parallel_plan(runtime_ns: u64) -> ClonePlan {
    ClonePlan {
        depth: 16,
        runtime_ns: Some(Nanos(runtime_ns)),
        pacing: PacingPlan {
            latency_target: Some(LatencyTargetPlan {
                target_ns: Nanos(20_000_000),
                window_ns: Nanos(10_000_000),
                percentile: 90.0,
                keep_running: false,
            }),
            ..PacingPlan::default()
        },
        ..ClonePlan::random_reads("latency", "x", 64 << 20)
    }
}

fn run_parallel(plan: &ClonePlan) -> iofit_engine::worker::CloneOutput {
    let clock = FakeClock::new(10);
    let mut device = ParallelDevice {
        clock: &clock,
        queued: Vec::new(),
        flying: Vec::new(),
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

/// The report's own invariants for a 16-deep job: one latency sample per IO, no latency
/// beyond the device's (plus the fake clock's steps), and at most 16 IOs in flight on average
/// (Little's law).
fn assert_report_holds(out: &iofit_engine::worker::CloneOutput, what: &str) {
    assert!(out.error.is_none(), "{what}: {:?}", out.error);
    let total = out.read.total.summary();
    assert_eq!(total.count, out.read.ios, "{what}: samples");
    assert_eq!(
        out.read.io_bytes,
        iofit_model::Bytes(out.read.ios * 4096),
        "{what}: bytes"
    );
    assert!(
        total.max_ns.get() < PARALLEL_NS + 50_000,
        "{what}: an IO of {} ns on a device that takes {PARALLEL_NS} ns",
        total.max_ns.get()
    );
    if out.read.ios > 0 {
        assert!(
            out.runtime_ns.get() > 0,
            "{what}: {} IOs in 0 ns",
            out.read.ios
        );
        let in_flight =
            out.read.total.mean_ns() * out.read.ios as f64 / out.runtime_ns.get() as f64;
        assert!(
            in_flight <= 16.0 * 1.001,
            "{what}: {} IOs in {} ns at a mean of {:.0} ns = {in_flight:.2} in flight at iodepth 16",
            out.read.ios,
            out.runtime_ns.get(),
            out.read.total.mean_ns()
        );
    }
}

#[test]
fn a_deeper_queue_starts_its_new_slots_when_the_depth_grows() {
    // 45 ms: depths 1, 2, 4, 8 and then 16 for the last ~5 ms, the statistics never restarted.
    // The slots the search held back must count their first IO from when the depth let them
    // go, not from when they were last free (the start): 40 ms "latencies" broke Little's law.
    let out = run_parallel(&parallel_plan(45_000_000));
    assert_eq!(out.latency_depth, Some(16));
    assert_report_holds(&out, "45 ms");
    // Depth 1, 2, 4, 8 for 10 ms each and 16 for 5: (10 + 20 + 40 + 80 + 80) / 45 = 5.11 in
    // flight on average.
    let in_flight = out.read.total.mean_ns() * out.read.ios as f64 / out.runtime_ns.get() as f64;
    assert!((4.9..5.3).contains(&in_flight), "{in_flight:.2} in flight");
}

#[test]
fn a_search_that_converges_at_the_deadline_reports_only_whole_ios() {
    // The 5th window (depth 16) ends at ~50 ms and the search converges: the statistics
    // restart for a final window. With the runtime ending just after that, a restart that
    // kept the IOs then in flight reported them over a few microseconds (15 IOs "in 0 ms",
    // fio-oracle CI: 58 in flight at depth 16). Every runtime around the convergence, in
    // steps of the device time, must give a report that holds.
    let mut runtime_ns = 49_800_000;
    while runtime_ns < 50_600_000 {
        let out = run_parallel(&parallel_plan(runtime_ns));
        assert_report_holds(&out, &format!("runtime {runtime_ns} ns"));
        runtime_ns += 7_000;
    }
}
