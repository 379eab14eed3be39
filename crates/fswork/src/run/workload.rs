//! Running one workload phase: its workers started per fwd, driven until the elapsed time or
//! the operation count, and their counters reported each interval.

use super::worker::{Pacer, Worker};
use super::{FsEvent, FsOptions, PhaseResult, Shared, MAX_ERRORS};
use crate::buffer::AlignedBuffer;
use crate::interval::{
    cpu_between, cpu_ticks, now_unix_ms, Interval, IntervalCounters, IntervalCounts,
};
use crate::stats::OpStats;
use crate::tree::splitmix;
use crate::FsError;
use iofit_jobfile::vdbench::{FileOp, FsRun, FwdRate, XferSize};
use iofit_model::units::Seconds;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Runs the workload's fwds on their threads until the run's elapsed time (or a stop), with
/// the warmup left out of the figures, and reports each interval as it ends.
pub(super) fn run_workload(
    shared: &[Shared],
    run: &FsRun,
    options: &FsOptions,
    on_event: &mut dyn FnMut(FsEvent<'_>),
) -> Result<PhaseResult, FsError> {
    let start = Instant::now();
    let timing = IntervalTiming {
        start,
        interval: run.interval,
        measure_from: start + run.warmup,
        deadline: start + run.elapsed,
    };
    let mut workers = workers_of(shared, run, timing.deadline);
    let counters: Vec<Arc<IntervalCounters>> = workers
        .iter()
        .map(|_| Arc::new(IntervalCounters::default()))
        .collect();
    for ((worker, _), c) in workers.iter_mut().zip(&counters) {
        worker.stats.interval = Some(Arc::clone(c));
    }
    let stop = &options.stop;
    let mut intervals = Vec::new();
    let results: Vec<Result<(OpStats, Instant), FsError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|(worker, pace)| {
                let timing = &timing;
                scope.spawn(move || drive(worker, pace, run.warmup.is_zero(), timing, stop))
            })
            .collect();
        let cpu_before;
        (intervals, cpu_before) = report_intervals(&timing, &counters, &handles, stop, on_event);
        let results = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread"))
            .collect();
        if let Some(last) = last_interval(&timing, &counters, intervals.len(), cpu_before) {
            on_event(FsEvent::Interval(&last));
            intervals.push(last);
        }
        results
    });
    let mut stats = OpStats::default();
    let mut last = timing.measure_from;
    for result in results {
        let (worker_stats, worker_last) = result?;
        stats.merge(&worker_stats);
        last = last.max(worker_last);
    }
    let measured = Instant::now()
        .min(timing.deadline)
        .saturating_duration_since(timing.measure_from.min(timing.deadline));
    Ok(PhaseResult {
        stats,
        seconds: Seconds(measured.as_secs_f64().max(1e-9)),
        busy_seconds: Seconds(
            last.saturating_duration_since(timing.measure_from)
                .as_secs_f64()
                .max(1e-9),
        ),
        intervals,
    })
}

/// One worker per thread of each fwd, on the fsds the fwd names, with the spacing between its
/// steps when `fwdrate` paces whole operations (reads and writes are paced transfer by
/// transfer, inside the worker).
fn workers_of<'a>(
    shared: &'a [Shared],
    run: &FsRun,
    deadline: Instant,
) -> Vec<(Worker<'a>, Option<Duration>)> {
    let mut workers = Vec::new();
    for (f, fwd) in run.fwds.iter().enumerate() {
        let targets: Vec<&Shared> = run
            .fsds
            .iter()
            .zip(shared)
            .filter(|(fsd, _)| fwd.fsds.contains(&fsd.name))
            .map(|(_, s)| s)
            .collect();
        let xfersizes: Vec<(u64, f64)> = match &fwd.fwd.xfersizes {
            XferSize::Fixed(s) => vec![(s.as_u64(), 100.0)],
            XferSize::Distribution(parts) => parts.iter().map(|(s, p)| (s.as_u64(), *p)).collect(),
        };
        let largest = xfersizes.iter().map(|x| x.0).max().unwrap_or(4096).max(512);
        let threads = fwd.fwd.threads.max(1);
        // fwdrate: operations per second of the run, this fwd's share split over its threads.
        let pace = match run.fwdrate {
            FwdRate::Max => None,
            FwdRate::Fixed(rate) => {
                let per_thread = rate * fwd.rate_share / f64::from(threads);
                (per_thread > 0.0).then(|| Duration::from_secs_f64(1.0 / per_thread))
            }
        };
        // Reads and writes take their permits transfer by transfer (Worker::pacer); other
        // operations one per step.
        let transfers =
            fwd.fwd.rdpct.is_some() || matches!(fwd.fwd.operation, FileOp::Read | FileOp::Write);
        let (pace, transfer_pace) = if transfers {
            (None, pace)
        } else {
            (pace, None)
        };
        for t in 0..threads {
            let seed = splitmix((f as u64) << 32 | u64::from(t));
            workers.push((
                Worker {
                    shared: targets.clone(),
                    op: fwd.fwd.operation,
                    rdpct: fwd.fwd.rdpct,
                    random_io: fwd.fwd.random_io,
                    select: fwd.fwd.select,
                    xfersizes: xfersizes.clone(),
                    stopafter: fwd.fwd.stopafter,
                    direct: fwd.fwd.direct,
                    sync: fwd.fwd.sync_writes,
                    rng: seed | 1,
                    cursor: (seed as usize)
                        % targets.first().map(|s| s.files.len().max(1)).unwrap_or(1),
                    buffer: AlignedBuffer::new(largest as usize, seed),
                    stats: OpStats::default(),
                    pacer: transfer_pace.map(|every| Pacer {
                        every,
                        next: Instant::now(),
                        deadline,
                    }),
                },
                pace,
            ));
        }
    }
    workers
}

/// One worker thread: steps (`pace` apart when given) until the deadline or a stop, its
/// figures restarted when the warmup ends. Returns them with the time of its last operation.
fn drive(
    mut worker: Worker<'_>,
    pace: Option<Duration>,
    no_warmup: bool,
    timing: &IntervalTiming,
    stop: &AtomicBool,
) -> Result<(OpStats, Instant), FsError> {
    let (measure_from, deadline) = (timing.measure_from, timing.deadline);
    let mut measuring = no_warmup;
    let mut next = Instant::now();
    let mut last_op = measure_from;
    loop {
        let now = Instant::now();
        if now >= deadline || stop.load(Ordering::Relaxed) {
            break;
        }
        if !measuring && now >= measure_from {
            worker.stats = OpStats {
                interval: worker.stats.interval.take(),
                ..OpStats::default()
            };
            measuring = true;
        }
        if let Some(pace) = pace {
            if next > now {
                std::thread::sleep((next - now).min(deadline - now));
                continue;
            }
            next += pace;
        }
        let before = worker.stats.total_ops();
        worker.step()?;
        if worker.stats.total_ops() > before {
            last_op = Instant::now();
        }
        if worker.stats.total_errors() > MAX_ERRORS {
            return Err(FsError::TooManyErrors(MAX_ERRORS));
        }
    }
    Ok((worker.stats, last_op))
}

/// What the workers did after the last full interval's boundary (`full` intervals reported):
/// the last, often partial, interval; `None` when nothing happened and no time is left in it.
fn last_interval(
    timing: &IntervalTiming,
    counters: &[Arc<IntervalCounters>],
    full: usize,
    cpu_before: Option<(u64, u64, u64)>,
) -> Option<Interval> {
    let tail = collect(counters);
    let end = Instant::now().min(timing.deadline);
    let from = timing.start + timing.interval.max(MIN_INTERVAL) * full as u32;
    if tail.total_ops() == 0 && tail.errors.iter().sum::<u64>() == 0 && end <= from {
        return None;
    }
    Some(Interval {
        index: full + 1,
        end_unix_ms: now_unix_ms(),
        seconds: Seconds(end.saturating_duration_since(from).as_secs_f64().max(1e-9)),
        warmup: end <= timing.measure_from,
        counts: tail,
        cpu: cpu_between(cpu_before, cpu_ticks()),
    })
}

/// The shortest interval reported (a typo like interval=0 must not spin the reporter).
const MIN_INTERVAL: Duration = Duration::from_millis(100);

struct IntervalTiming {
    start: Instant,
    interval: Duration,
    measure_from: Instant,
    deadline: Instant,
}

fn collect(counters: &[Arc<IntervalCounters>]) -> IntervalCounts {
    let mut sum = IntervalCounts::default();
    for c in counters {
        sum.merge(&c.take());
    }
    sum
}

/// Every full interval before the deadline (or until the workers stop), each counted at its
/// boundary; the partial one at the end is collected by the caller after the workers join
/// (from the returned CPU sample on).
fn report_intervals<T>(
    timing: &IntervalTiming,
    counters: &[Arc<IntervalCounters>],
    handles: &[std::thread::ScopedJoinHandle<'_, T>],
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(FsEvent<'_>),
) -> (Vec<Interval>, Option<(u64, u64, u64)>) {
    let step = timing.interval.max(MIN_INTERVAL);
    let mut intervals = Vec::new();
    let mut cpu_before = cpu_ticks();
    loop {
        let boundary = timing.start + step * (intervals.len() as u32 + 1);
        if boundary >= timing.deadline {
            return (intervals, cpu_before);
        }
        loop {
            let now = Instant::now();
            if now >= boundary {
                break;
            }
            if stop.load(Ordering::Relaxed) || handles.iter().all(|h| h.is_finished()) {
                return (intervals, cpu_before);
            }
            std::thread::sleep((boundary - now).min(Duration::from_millis(50)));
        }
        let cpu_after = cpu_ticks();
        let interval = Interval {
            index: intervals.len() + 1,
            end_unix_ms: now_unix_ms(),
            seconds: Seconds(step.as_secs_f64()),
            warmup: boundary <= timing.measure_from,
            counts: collect(counters),
            cpu: cpu_between(cpu_before, cpu_after),
        };
        on_event(FsEvent::Interval(&interval));
        intervals.push(interval);
        cpu_before = cpu_after;
    }
}
