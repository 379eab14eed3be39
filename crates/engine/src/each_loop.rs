//! fio `loops`: a clone runs each loop as its own pass (with `unlink_each_loop`, over files
//! removed and laid out again since the loop before), and reports the loops as one result:
//! IOs, bytes, histograms and runtimes add up. A job that verifies checks its writes after
//! every loop, as fio does.
//!
//! fio's `thread_main` runs `do_io` (and `do_verify` when the job verifies) once per loop; at
//! the start of every loop after the first it closes the files and calls `unlink_all_files`.
//! It does not lay them out again: a write job's open (O_CREAT) makes an empty file, a read
//! job's open fails with ENOENT. iofit lays them out again, as before the first loop, so a
//! read job reads a fresh file each loop. As in fio, the last loop's files stay (unless
//! `unlink=1`), and `time_based` ignores `loops` (one pass until the runtime is over).

use crate::worker::{CloneOutput, ClonePlan, EarlierLoops, EarlierMeasured, ERROR_LINES};
use iofit_model::units::Nanos;
use std::fs::File;

pub use crate::loops::{passes, unlinks_between_loops};

/// Runs `loops` passes of the clone planned by `first` (whose budget is one loop).
/// `ended` says the job was told to end (fio `exitall`, steady state: its `terminate`);
/// `relay_out` opens the clone's files for the next pass (with `unlink_each_loop`, after
/// removing and laying them out again);
/// `run_pass` runs one pass. Stops early on an error, an interruption, or the job's runtime
/// running out across the loops.
pub fn run_loops(
    loops: u32,
    first: &ClonePlan,
    files: Vec<File>,
    ended: impl Fn() -> bool,
    mut relay_out: impl FnMut() -> Result<Vec<File>, crate::EngineError>,
    mut run_pass: impl FnMut(Vec<File>, &ClonePlan) -> CloneOutput,
) -> CloneOutput {
    let mut total = run_pass(files, first);
    let mut intervals = next_interval(0, total.runtime_ns, first.interval_ns);
    for _ in 1..loops {
        if total.error.is_some() || total.interrupted || ended() {
            break;
        }
        let runtime_ns = match first.runtime_ns {
            Some(r) if r <= total.runtime_ns => break,
            Some(r) => Some(r - total.runtime_ns),
            None => None,
        };
        let files = match relay_out() {
            Ok(files) => files,
            Err(e) => {
                total.error = Some(format!("unlink_each_loop: {e}"));
                break;
            }
        };
        let plan = ClonePlan {
            // Once per job in fio: the delay before the first loop, the ramp at its start.
            start_delay_ns: Nanos(0),
            ramp_ns: Nanos(0),
            runtime_ns,
            earlier_loops: EarlierLoops {
                ios: total.read.ios + total.write.ios + total.trim.ios,
                bytes: total.read.io_bytes + total.write.io_bytes + total.trim.io_bytes,
                intervals,
            },
            earlier_measured: Some(std::sync::Arc::new(measured(&total))),
            ..first.clone()
        };
        let next = run_pass(files, &plan);
        intervals = next_interval(intervals, next.runtime_ns, first.interval_ns);
        add_loop(&mut total, next);
    }
    total
}

/// What the loops so far measured, for the next pass's snapshots (an interim report, the
/// results so far a stop bound prints), so that these cover every loop, not only the current.
fn measured(total: &CloneOutput) -> EarlierMeasured {
    EarlierMeasured {
        read: total.read.clone(),
        write: total.write.clone(),
        trim: total.trim.clone(),
        runtime_ns: total.runtime_ns,
    }
}

/// The first interval index free after a pass of `runtime_ns` numbered from `from`: its last,
/// partial interval is `runtime / interval`, so the next pass starts one after it.
fn next_interval(from: u64, runtime_ns: Nanos<u64>, interval_ns: Nanos<u64>) -> u64 {
    from + runtime_ns.get() / interval_ns.get().max(1) + 1
}

/// Adds a later loop's output to the clone's: the loops ran one after another, so counts,
/// histograms and runtimes add; the first error, thread and start time stay.
pub fn add_loop(total: &mut CloneOutput, next: CloneOutput) {
    total.read.merge(&next.read);
    total.write.merge(&next.write);
    total.trim.merge(&next.trim);
    total.syncs += next.syncs;
    total.sync_latency.merge(&next.sync_latency);
    total.runtime_ns += next.runtime_ns;
    total.verify_phase_ns += next.verify_phase_ns;
    total.usr_ns += next.usr_ns;
    total.sys_ns += next.sys_ns;
    total.context_switches += next.context_switches;
    total.interrupted |= next.interrupted;
    total.cancelled_ios += next.cancelled_ios;
    if let Some(found) = next.verify {
        crate::data::merge_verify(&mut total.verify, found);
    }
    total.io_depths.merge(&next.io_depths);
    total.major_faults += next.major_faults;
    total.minor_faults += next.minor_faults;
    if total.start_epoch_ms.get() == 0 {
        total.start_epoch_ms = next.start_epoch_ms;
    }
    if total.tid == 0 {
        total.tid = next.tid;
    }
    total.latency_depth = next.latency_depth.or(total.latency_depth);
    total.total_err += next.total_err;
    if total.first_error == 0 {
        total.first_error = next.first_error;
    }
    let room = ERROR_LINES.saturating_sub(total.error_lines.len());
    total
        .error_lines
        .extend(next.error_lines.into_iter().take(room));
    if total.error.is_none() {
        total.error = next.error;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(ios: u64, runtime_ns: u64) -> CloneOutput {
        let mut out = CloneOutput {
            runtime_ns: Nanos(runtime_ns),
            ..CloneOutput::default()
        };
        for i in 0..ios {
            out.write.ios += 1;
            out.write.io_bytes += iofit_model::Bytes(4096);
            out.write.total.record(1000 + i);
        }
        out
    }

    #[test]
    fn loops_add_up_and_later_passes_start_after_the_earlier() {
        let first = ClonePlan {
            ramp_ns: Nanos(5),
            start_delay_ns: Nanos(7),
            interval_ns: Nanos(100),
            ..ClonePlan::random_reads("l", "x", 1 << 20)
        };
        let mut relayouts = 0;
        let mut seen = Vec::new();
        let out = run_loops(
            3,
            &first,
            Vec::new(),
            || false,
            || {
                relayouts += 1;
                Ok(Vec::new())
            },
            |_, plan| {
                seen.push((plan.earlier_loops, plan.ramp_ns, plan.start_delay_ns));
                pass(10, 250)
            },
        );
        assert_eq!(relayouts, 2);
        assert_eq!(out.write.ios, 30);
        assert_eq!(out.write.io_bytes, iofit_model::Bytes(30 * 4096));
        assert_eq!(out.write.total.count(), 30);
        assert_eq!(out.runtime_ns, Nanos(750));
        assert_eq!(seen[0], (EarlierLoops::default(), Nanos(5), Nanos(7)));
        let second = EarlierLoops {
            ios: 10,
            bytes: iofit_model::Bytes(10 * 4096),
            intervals: 3,
        };
        assert_eq!(seen[1], (second, Nanos(0), Nanos(0)));
        assert_eq!(seen[2].0.intervals, 6);
        assert_eq!(seen[2].0.ios, 20);
    }

    #[test]
    fn a_failed_layout_or_the_runtime_ends_the_loops() {
        let first = ClonePlan::random_reads("l", "x", 1 << 20);
        let out = run_loops(
            4,
            &first,
            Vec::new(),
            || false,
            || {
                Err(crate::EngineError::Resources {
                    message: "no space".into(),
                })
            },
            |_, _| pass(2, 10),
        );
        assert_eq!(out.write.ios, 2);
        assert_eq!(out.error.as_deref(), Some("unlink_each_loop: no space"));

        let timed = ClonePlan {
            runtime_ns: Some(Nanos(25)),
            ..first.clone()
        };
        let mut runtimes = Vec::new();
        let out = run_loops(
            9,
            &timed,
            Vec::new(),
            || false,
            || Ok(Vec::new()),
            |_, plan| {
                runtimes.push(plan.runtime_ns);
                pass(1, 10)
            },
        );
        assert_eq!(runtimes, [Some(Nanos(25)), Some(Nanos(15)), Some(Nanos(5))]);
        assert_eq!(out.write.ios, 3);

        // Told to end (exitall, steady state): no further loop starts.
        let passes = std::cell::Cell::new(0);
        let out = run_loops(
            9,
            &first,
            Vec::new(),
            || passes.get() >= 2,
            || Ok(Vec::new()),
            |_, _| {
                passes.set(passes.get() + 1);
                pass(1, 10)
            },
        );
        assert_eq!((passes.get(), out.write.ios), (2, 2));
    }
}
