//! One clone's IO loop. Generic over the engine and the clock, so each combination compiles to
//! its own loop with no dynamic dispatch on the hot path. Per IO the loop makes no allocation
//! and takes no lock.
//!
//! Time stamps (what latency is measured from and to):
//! - synchronous engines read the clock once per IO: the reading after one IO returns is that
//!   IO's completion time and the next IO's issue time;
//! - the queued loop (io_uring) works in passes: wait for completions, read the clock once
//!   (*after* the reap, so every completion it stamps was visible before the reading), account
//!   them, then refill every free slot and submit. An IO's issue time is the reading that freed
//!   its slot (or the start), so the loop's own bookkeeping counts inside latency, never
//!   outside; its submit time is a reading taken just *before* the `io_uring_enter` that hands
//!   it to the kernel. With the queue kept full, each slot's time is cut into back-to-back
//!   latencies, so IOPS x mean latency = iodepth (Little's law), which the tests check.
//!
//! Ending: the loop looks at the stop flag and the deadline at every pass and while waiting
//! (every [`POLL_NS`] at most), stops issuing, and gives IOs in flight a bounded time to
//! finish ([`drain_bound_ns`], or [`STOP_DRAIN_NS`] after a stop); what is left is cancelled
//! and, after [`CANCEL_WAIT_NS`], abandoned (counted, never waited for).

use crate::clock::Clock;
pub use crate::clone_plan::{
    drain_bound_ns, overrun_bound_ns, CloneOutput, ClonePlan, CloneShared, CloneSnapshot,
    EarlierLoops, EarlierMeasured, LatencyTargetPlan, MeasurePlan, PacingPlan, ProgressCell,
    SizePicker, TrimMode, CANCEL_WAIT_NS, ERROR_LINES, POLL_NS, STOP_DRAIN_NS,
};
use crate::clone_run::{End, Replayed, Run};
use crate::engine::{Completion, Engine, Op, SlotMeta};
use iofit_stats::IntervalBucket;

/// Longest a synchronous clone keeps its progress counters unpublished.
const PUBLISH_NS: u64 = 10_000_000;

/// Runs one clone to its end (size done, runtime over, Ctrl-C or an IO error).
pub fn run_clone<E: Engine, C: Clock>(
    engine: &mut E,
    clock: &C,
    plan: &ClonePlan,
    shared: &CloneShared<'_>,
) -> CloneOutput {
    let mut run = Run::new(plan, shared, clock);
    if let Some(e) = run.data.take_setup_error() {
        run.out.error = Some(e);
    }
    // Ready: engine, buffers, files and histograms are made. Wait for the set's other clones.
    let gate_ns = shared
        .start
        .and_then(|ticket| ticket.wait())
        .and_then(|opened| clock.ns_at(opened));
    run.start(gate_ns);
    if plan.data.verify_only() {
        return crate::read_back::verify_only(&mut run, engine);
    }
    let series_lock = shared.series;
    let shift = plan.earlier_loops.intervals;
    let log = plan.interval_log.as_ref();
    let mut sink = |b: &IntervalBucket| {
        series_lock
            .lock()
            .expect("series lock")
            .add_shifted(b, shift);
        if let Some(log) = log {
            log.add(b, shift);
        }
    };
    if E::INLINE {
        run_inline(&mut run, engine, &mut sink)
    } else {
        run_queued(&mut run, engine, &mut sink)
    }
}

fn run_inline<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    sink: &mut impl FnMut(&IntervalBucket),
) -> CloneOutput {
    let clock = run.clock;
    let mut now = run.start_ns;
    let mut since_publish = 0u32;
    let mut last_publish = now;
    loop {
        if run.end_reason(now).is_some() {
            break;
        }
        if !run.measuring && now >= run.ramp_end {
            run.begin_measuring(now);
        }
        if let Some(wait_ns) = run.flow_hold() {
            // Ahead of its flow share: wait (fio's flow_sleep), then look again.
            now = if wait_ns == 0 {
                std::thread::yield_now();
                clock.now_ns()
            } else {
                run.pause_until(run.deadline.map_or(now + wait_ns, |d| d.min(now + wait_ns)))
            };
            continue;
        }
        let (op, len, file, offset, issue_ns) = if run.replay.is_some() || run.replay_done {
            match run.replay_next(engine, now) {
                Replayed::Io {
                    op,
                    len,
                    file,
                    offset,
                    ..
                } => (op, len, file, offset, now),
                Replayed::Wait(due) => {
                    now = run.pause_until(run.deadline.map_or(due, |d| d.min(due)));
                    continue;
                }
                // The loop's check ends the run.
                Replayed::End => continue,
            }
        } else {
            let op = run.choose_op();
            let len = run.pick_len(op);
            let mut issue_ns = now;
            if let Some(due) = run.due_ns(op) {
                if due > now {
                    let until = run.deadline.map_or(due, |d| d.min(due));
                    now = run.pause_until(until);
                    if now < due {
                        // The deadline or a stop came first: the loop's check ends the run.
                        continue;
                    }
                    // Latency counts from when the IO was due, not from before the wait.
                    issue_ns = now;
                }
            }
            let (file, offset) = run.pick_offset(op, len);
            (op, len, file, offset, issue_ns)
        };
        run.log_issue(issue_ns, op, file, offset, len);
        run.note_issue(op, len);
        let ioprio = run.io_priority(engine, op, len);
        run.data.before_io(engine, 0, op, file, offset, len);
        let result = match engine.execute(0, op, file, offset, len) {
            Ok(n) => n as i64,
            Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
        };
        now = clock.now_ns();
        let meta = SlotMeta {
            op_is_read: op == Op::Read,
            len,
            file,
            offset,
            issue_ns,
            submit_ns: issue_ns,
            free_ns: 0,
            ioprio,
            trim: op == Op::Trim,
        };
        if run.measuring {
            run.series.advance(now - run.measure_start, sink);
        }
        if run.measuring {
            // A synchronous IO is a queue of one: submitted alone, completed alone.
            let depths = &mut run.out.io_depths;
            depths.mark_depth(1, 1);
            depths.submit[1] += 1;
            depths.complete[1] += 1;
        }
        match run.complete(&meta, result, now, true) {
            Ok(true) => run.data.after_io(engine, 0, &meta),
            Ok(false) => {}
            Err(e) => {
                run.out.error = Some(e.to_string());
                break;
            }
        }
        if run.data.backlog_due() {
            crate::read_back::check_backlog(run, engine);
            now = clock.now_ns();
        }
        match run.maybe_sync(engine) {
            // The next IO's latency starts after the sync, not before it.
            Ok(true) => now = clock.now_ns(),
            Ok(false) => {}
            Err(e) => {
                run.out.error = Some(e.to_string());
                break;
            }
        }
        if let Err(e) = run.check_min_rate(now) {
            run.out.error = Some(e.to_string());
            break;
        }
        run.step_latency_search(now, 0);
        since_publish += 1;
        // Every 256 IOs, or every 10 ms for slow jobs: the runner samples these counters
        // once a second for steady state.
        if since_publish == 256 || now.saturating_sub(last_publish) > PUBLISH_NS {
            since_publish = 0;
            last_publish = now;
            run.publish_progress();
        }
    }
    let now = crate::read_back::verify_phase(run, engine, now);
    run.finish(engine, now)
}

/// The queued loop's slots: which are free, what each busy one is doing, and the completions
/// of the current pass.
struct Slots {
    /// Free slots; refilled from the end.
    free: Vec<u32>,
    meta: Vec<SlotMeta>,
    /// Slots queued in the engine but not yet handed to the kernel.
    batch: Vec<u32>,
    completions: Vec<Completion>,
    /// Slots handed to the kernel and not yet reaped.
    inflight: usize,
    submit_batch: usize,
    /// Slots with an IO queued or in flight (for serialize_overlap).
    busy: Vec<bool>,
    /// An IO drawn but held back because it overlaps one in flight (fio
    /// `serialize_overlap`): (op, len, file, offset, issue time); issued first once it can.
    held: Option<(Op, u32, u32, u64, u64)>,
}

impl Slots {
    fn new(depth: usize, submit_batch: usize, start_ns: u64) -> Slots {
        Slots {
            free: (0..depth as u32).rev().collect(),
            meta: vec![
                SlotMeta {
                    free_ns: start_ns,
                    ..SlotMeta::default()
                };
                depth
            ],
            batch: Vec::with_capacity(depth),
            completions: Vec::with_capacity(depth),
            inflight: 0,
            submit_batch: submit_batch.clamp(1, depth),
            busy: vec![false; depth],
            held: None,
        }
    }

    /// Whether bytes `[offset, offset + len)` of `file` overlap an IO queued or in flight.
    fn overlaps_busy(&self, file: u32, offset: u64, len: u32) -> bool {
        let end = offset + len as u64;
        self.meta.iter().zip(&self.busy).any(|(m, &busy)| {
            busy && m.file == file && m.offset < end && offset < m.offset + m.len as u64
        })
    }
}

/// Where the queued loop is: issuing, or draining what is in flight until `until_ns`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Issuing,
    Draining {
        until_ns: u64,
        cancelled: bool,
        after_stop: bool,
    },
}

/// Hands the queued IOs to the kernel. Their submit time is read before the call, so it is
/// never later than the moment the kernel can start them. A failed submit is recorded (it
/// ends issuing).
fn submit_queued<E: Engine, C: Clock>(run: &mut Run<'_, C>, engine: &mut E, q: &mut Slots) {
    // The submit time splits slat from clat; with both off (fio's disable_slat and
    // disable_clat) the clock is not read here and the IOs keep their issue time. The reading
    // after each reap stays: it is also the time the loop ends the run by.
    let measure = &run.plan.measure;
    let submit_ns = if measure.slat || measure.clat {
        Some(run.clock.now_ns())
    } else {
        None
    };
    if run.measuring {
        // fio (`td_io_commit`): the IOs of a commit count at the depth they make together.
        let batch = q.batch.len() as u64;
        let depths = &mut run.out.io_depths;
        depths.submit[iofit_stats::IoDepthCounts::batch_index(batch)] += 1;
        depths.mark_depth(q.inflight as u64 + batch, batch);
    }
    q.inflight += q.batch.len();
    for slot in q.batch.drain(..) {
        if let Some(submit_ns) = submit_ns {
            q.meta[slot as usize].submit_ns = submit_ns;
        }
    }
    if let Err(e) = engine.submit() {
        run.out
            .error
            .get_or_insert(format!("io_uring submit failed: {e}"));
    }
}

/// Prepares an IO in every free slot and submits them in sub-batches of `submit_batch`.
/// Returns the time a rate-limited IO is due when it had to stop for one. Completions are not
/// looked at here: the pass is bounded by the queue depth, and the queue ends it full.
fn refill<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    q: &mut Slots,
    pending: &mut Option<(Op, u32)>,
    now: u64,
) -> Option<u64> {
    let mut due_at = None;
    let limit = run.depth_limit(q.meta.len());
    while let Some(&slot) = q.free.last() {
        if !run.budget_left()
            || run.out.error.is_some()
            || run.data.backlog_due()
            || q.inflight + q.batch.len() >= limit
        {
            break;
        }
        // The slot's IO counts from when the slot was free to take one: its last completion,
        // or when the latency_target search last let more IOs in flight if it held the slot
        // back until then.
        let ready_ns = q.meta[slot as usize].free_ns.max(run.depth_opened_ns);
        let (op, len, file, offset, issue_ns) = match q.held.take() {
            Some((op, len, file, offset, held_ns)) => {
                (op, len, file, offset, held_ns.max(ready_ns))
            }
            None if run.replay.is_some() || run.replay_done => match run.replay_next(engine, now) {
                Replayed::Io {
                    op,
                    len,
                    file,
                    offset,
                    due_ns,
                } => (op, len, file, offset, ready_ns.max(due_ns)),
                Replayed::Wait(due) => {
                    due_at = Some(due);
                    break;
                }
                Replayed::End => break,
            },
            None => {
                if pending.is_none() {
                    if let Some(wait_ns) = run.flow_hold() {
                        // Ahead of its flow share: look again after fio's flow_sleep.
                        if wait_ns == 0 {
                            std::thread::yield_now();
                        }
                        due_at = Some(now + wait_ns);
                        break;
                    }
                }
                let (op, len) = match pending.take() {
                    Some(p) => p,
                    None => {
                        let op = run.choose_op();
                        (op, run.pick_len(op))
                    }
                };
                let mut issue_ns = ready_ns;
                if let Some(due) = run.due_ns(op) {
                    if due > now {
                        *pending = Some((op, len));
                        due_at = Some(due);
                        break;
                    }
                    // A slot free before its IO was due: latency counts from when it was due.
                    issue_ns = issue_ns.max(due);
                }
                let (file, offset) = run.pick_offset(op, len);
                (op, len, file, offset, issue_ns)
            }
        };
        if run.plan.pacing.serialize_overlap && q.overlaps_busy(file, offset, len) {
            // Wait for the overlapping IO to complete; this one goes first after it.
            q.held = Some((op, len, file, offset, issue_ns));
            break;
        }
        q.free.pop();
        q.busy[slot as usize] = true;
        run.log_issue(now, op, file, offset, len);
        run.note_issue(op, len);
        let ioprio = run.io_priority(engine, op, len);
        run.data.before_io(engine, slot, op, file, offset, len);
        engine.queue(slot, op, file, offset, len);
        q.meta[slot as usize] = SlotMeta {
            op_is_read: op == Op::Read,
            len,
            file,
            offset,
            issue_ns,
            submit_ns: issue_ns,
            free_ns: issue_ns,
            ioprio,
            trim: op == Op::Trim,
        };
        q.batch.push(slot);
        if q.batch.len() >= q.submit_batch {
            // Hand this sub-batch over now: a device starts on the first IO sooner, instead of
            // waiting for the whole refill to be prepared.
            submit_queued(run, engine, q);
        }
    }
    if !q.batch.is_empty() {
        submit_queued(run, engine, q);
    }
    due_at
}

/// Accounts every completion in `q.completions` at `done_ns` (a reading taken after they were
/// reaped) and frees their slots. IOs that come back cancelled while draining are counted
/// apart.
fn absorb<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    q: &mut Slots,
    done_ns: u64,
    cancelling: bool,
    sink: &mut impl FnMut(&IntervalBucket),
) {
    if run.measuring {
        run.series
            .advance(done_ns.saturating_sub(run.measure_start), sink);
        let index = iofit_stats::IoDepthCounts::batch_index(q.completions.len() as u64);
        run.out.io_depths.complete[index] += 1;
    }
    for c in q.completions.drain(..) {
        q.inflight -= 1;
        q.free.push(c.slot);
        q.busy[c.slot as usize] = false;
        let meta = &mut q.meta[c.slot as usize];
        meta.free_ns = done_ns;
        let meta = *meta;
        if cancelling && c.result == -(libc::ECANCELED as i64) {
            run.out.cancelled_ios += 1;
            continue;
        }
        match run.complete(&meta, c.result, done_ns, false) {
            Ok(true) => run.data.after_io(engine, c.slot, &meta),
            Ok(false) => {}
            Err(e) => {
                run.out.error.get_or_insert(e.to_string());
            }
        }
    }
}

/// How long the next wait may block: until a completion, but never past the next poll, the
/// deadline while issuing, a rate-limited IO's due time, or the end of the drain.
fn wait_budget_ns<C: Clock>(run: &Run<'_, C>, phase: Phase, due: Option<u64>, now: u64) -> u64 {
    let mut until = now + POLL_NS;
    match phase {
        Phase::Issuing => {
            if let Some(deadline) = run.deadline {
                until = until.min(deadline);
            }
            if let Some(due) = due {
                until = until.min(due);
            }
        }
        Phase::Draining { until_ns, .. } => until = until.min(until_ns),
    }
    until.saturating_sub(now)
}

/// Moves the phase on at `now`: from issuing to draining when issuing must end, a drain that
/// runs out to a cancel, and a stop during a drain shortens it. Returns false when the loop
/// must end with IOs still in flight (the cancel did not bring them back in time).
fn advance_phase<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    phase: &mut Phase,
    inflight: usize,
    now: u64,
) -> bool {
    match *phase {
        Phase::Issuing => {
            if let Some(end) = run.end_reason(now) {
                let bound = match end {
                    End::Stop => STOP_DRAIN_NS,
                    End::Done => drain_bound_ns(run.longest_ns),
                };
                *phase = Phase::Draining {
                    until_ns: now + bound,
                    cancelled: false,
                    after_stop: end == End::Stop,
                };
            }
            true
        }
        Phase::Draining {
            until_ns,
            cancelled,
            after_stop,
        } => {
            if !after_stop && run.end_reason(now) == Some(End::Stop) {
                *phase = Phase::Draining {
                    until_ns: until_ns.min(now + STOP_DRAIN_NS),
                    cancelled,
                    after_stop: true,
                };
                return true;
            }
            if now < until_ns || inflight == 0 {
                return true;
            }
            if cancelled {
                // Still in flight after the cancel: abandon them (the engine keeps their
                // buffers alive) rather than wait on a device that does not answer.
                run.out.cancelled_ios += inflight as u64;
                return false;
            }
            if let Err(e) = engine.cancel_all() {
                run.out
                    .error
                    .get_or_insert(format!("io_uring cancel failed: {e}"));
            }
            *phase = Phase::Draining {
                until_ns: now + CANCEL_WAIT_NS,
                cancelled: true,
                after_stop,
            };
            true
        }
    }
}

fn run_queued<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    sink: &mut impl FnMut(&IntervalBucket),
) -> CloneOutput {
    let clock = run.clock;
    let depth = run.plan.depth.max(1) as usize;
    let mut q = Slots::new(depth, run.plan.submit_batch, run.start_ns);
    let mut phase = Phase::Issuing;
    let mut pending: Option<(Op, u32)> = None;
    // The latest clock reading: taken after every reap, it stamps what was reaped and is the
    // time the loop decides by.
    let mut now = run.start_ns;
    let mut last_done = now;
    loop {
        if !advance_phase(run, engine, &mut phase, q.inflight, now) {
            break;
        }
        if !run.measuring && now >= run.ramp_end {
            run.begin_measuring(now);
        }
        let due = if phase == Phase::Issuing {
            refill(run, engine, &mut q, &mut pending, now)
        } else {
            None
        };
        if q.inflight == 0 && phase == Phase::Issuing && run.data.backlog_due() {
            crate::read_back::check_backlog(run, engine);
            now = clock.now_ns();
            continue;
        }
        if q.inflight == 0 {
            match (phase, due) {
                (Phase::Draining { .. }, _) => break,
                (Phase::Issuing, Some(due)) => {
                    let until = run.deadline.map_or(due, |d| d.min(due));
                    now = run.pause_until(until);
                }
                // Nothing in flight and nothing due: the size is done or an error came
                // (the next phase check ends the loop).
                (Phase::Issuing, None) => now = clock.now_ns(),
            }
            continue;
        }
        let budget_ns = wait_budget_ns(run, phase, due, now);
        if let Err(e) = engine.reap(1, budget_ns, &mut q.completions) {
            // The IOs in flight cannot be waited for: abandon them (the engine keeps their
            // buffers alive).
            run.out
                .error
                .get_or_insert(format!("io_uring wait failed: {e}"));
            run.out.cancelled_ios += q.inflight as u64;
            break;
        }
        // After the reap: every completion just taken was visible before this reading.
        now = clock.now_ns();
        if q.completions.is_empty() {
            continue;
        }
        last_done = now;
        let cancelling = matches!(
            phase,
            Phase::Draining {
                cancelled: true,
                ..
            }
        );
        absorb(run, engine, &mut q, now, cancelling, sink);
        if phase == Phase::Issuing {
            match run.maybe_sync(engine) {
                // The IOs queued next count from after the sync, not from before it.
                Ok(true) => now = clock.now_ns(),
                Ok(false) => {}
                Err(e) => {
                    run.out.error.get_or_insert(e.to_string());
                }
            }
            if let Err(e) = run.check_min_rate(now) {
                run.out.error.get_or_insert(e.to_string());
            }
            run.step_latency_search(now, q.inflight);
        }
        run.publish_progress();
    }
    let last_done = if q.inflight == 0 {
        crate::read_back::verify_phase(run, engine, last_done)
    } else {
        last_done
    };
    run.finish(engine, last_done)
}
