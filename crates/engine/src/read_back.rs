//! The read-back passes of fio `verify=`: the `verify_backlog` batches while the job
//! runs, the verify phase after its writes (`do_verify`), and `verify_only`. They drive the
//! clone's [`Run`] (its clock, slots, counters and stop) through the same engine as the job's
//! IOs, counted as reads; what a unit should hold and whether it does is the data module's
//! [`DataState`](crate::data::DataState).

use crate::clock::Clock;
use crate::clone_plan::{CloneOutput, POLL_NS};
use crate::clone_run::Run;
use crate::data::Units;
use crate::engine::{Completion, Engine, Op, SlotMeta};
use iofit_model::units::Nanos;
use std::sync::atomic::Ordering;

/// `verify_backlog`: reads back the units of the last writes (nothing is in flight).
pub(crate) fn check_backlog<E: Engine, C: Clock>(run: &mut Run<'_, C>, engine: &mut E) {
    let Some(units) = run.data.take_backlog() else {
        return;
    };
    check_units(run, engine, Units::List(units.into_iter()));
}

/// After the writes (fio `do_verify`): reads back every unit written and checks it. Returns
/// the time it ended.
pub(crate) fn verify_phase<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    now: u64,
) -> u64 {
    // With verify_backlog every write is read back once, in batches as the job goes; as in
    // fio, the end only reads back the writes since the last batch (no second pass).
    if let Some(pending) = run.data.backlog_pending() {
        if pending && run.out.error.is_none() && !run.out.interrupted {
            check_backlog(run, engine);
            return run.clock.now_ns();
        }
        return now;
    }
    let verify_now = run.data.verifies()
        && run.plan.data.spec.verify.do_verify
        && run.plan.data.has_writes
        && run.out.error.is_none()
        && !run.out.interrupted
        && !run.data.limit_reached();
    if !verify_now {
        return now;
    }
    // As fio does before its verify phase: the writes reach storage first (a buffered job
    // then reads back what the page cache holds, as fio with invalidate=0).
    if let Err(e) = run.sync_all(engine, false) {
        run.out.error.get_or_insert(e.to_string());
        return run.clock.now_ns();
    }
    // fio's do_verify: synced, then (invalidate=1) dropped from the cache, so that a buffered
    // job reads back what storage holds.
    if run.plan.invalidate {
        for (file, (path, start, len)) in run.plan.files.iter().enumerate() {
            if let Err(e) = engine.drop_cache(file as u32, *start, *len) {
                let path = path.display();
                run.out.error.get_or_insert(format!(
                    "invalidate: cannot drop the cache of {path} before verifying: {e}"
                ));
                return run.clock.now_ns();
            }
        }
    }
    // fio's write runtime ends where its verify phase begins (after the sync); the phase's
    // time is the read runtime.
    let start = run.clock.now_ns();
    check_units(run, engine, Units::Written { file: 0, offset: 0 });
    let end = run.clock.now_ns();
    if run.measuring {
        run.out.verify_phase_ns = Nanos(end.saturating_sub(start.max(run.measure_start)));
    }
    end
}

/// fio `verify_only`: no writes; the generations come from `verify_state_load` or from
/// replaying the job's writes (same seed, same offsets), then every written unit is checked.
pub(crate) fn verify_only<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
) -> CloneOutput {
    if run.plan.data.spec.verify.state_load.is_none() {
        replay_writes(run);
    }
    let now = run.clock.now_ns();
    if !run.measuring {
        run.begin_measuring(now);
    }
    // A job that never writes (rw=read with verify_only) checks what is on storage: every
    // unit of its regions, each against its own header, as fio's read of each block does.
    let units = if run.plan.data.has_writes {
        Units::Written { file: 0, offset: 0 }
    } else {
        Units::All { file: 0, offset: 0 }
    };
    if run.out.error.is_none() {
        check_units(run, engine, units);
    }
    let end = run.clock.now_ns();
    run.finish(engine, end)
}

/// Walks the job's writes without doing them, counting each unit's generation.
fn replay_writes<C: Clock>(run: &mut Run<'_, C>) {
    while run.budget_left() {
        let op = run.choose_op();
        let len = run.pick_len(op);
        let (file, offset) = run.offsets.next(len, &mut run.rng);
        run.note_issue(op, len);
        if op == Op::Write {
            run.data.count_write(file, offset, len);
        }
    }
}

/// Reads `units` back (unit-sized reads, all slots in use) and checks each. Counted as reads.
/// Stops on an IO error, a stop, or the job's error limit. Nothing may be in flight.
fn check_units<E: Engine, C: Clock>(run: &mut Run<'_, C>, engine: &mut E, mut units: Units) {
    let Some(unit) = run.data.unit_bytes() else {
        return;
    };
    // Read back in the size the blocks were written in (as fio does), each read checking
    // every unit in it; unit by unit when the writes had several sizes.
    let write = run.plan.data.write_bytes.as_u64();
    let io = if run.plan.data.fixed_write && write.is_multiple_of(unit) {
        write
    } else {
        unit
    };
    // The next block to read: the block of the next unit, each block once.
    let mut last: Option<(u32, u64)> = None;
    let mut next_block = |run: &Run<'_, C>| loop {
        let (file, offset) = units.next(&run.data)?;
        let base = run.plan.files.get(file as usize).map_or(0, |f| f.1);
        let block = (file, base + (offset - base) / io * io);
        if last != Some(block) {
            last = Some(block);
            return Some(block);
        }
    };
    let unit = io as u32;
    let depth = if E::INLINE {
        1
    } else {
        run.plan.depth.max(1) as usize
    };
    let mut meta = vec![SlotMeta::default(); depth];
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut inflight = 0usize;
    let mut completions: Vec<Completion> = Vec::with_capacity(depth);
    loop {
        let stopping = run.shared.stop.load(Ordering::Relaxed)
            || run.out.error.is_some()
            || run.data.limit_reached();
        // Queue (or, inline, run) a read in every free slot.
        while let (false, Some(&slot)) = (stopping, free.last()) {
            let Some((file, offset)) = next_block(run) else {
                break;
            };
            free.pop();
            let now = run.clock.now_ns();
            meta[slot as usize] = SlotMeta {
                op_is_read: true,
                len: unit,
                file,
                offset,
                issue_ns: now,
                submit_ns: now,
                ..SlotMeta::default()
            };
            if E::INLINE {
                let result = match engine.execute(slot, Op::Read, file, offset, unit) {
                    Ok(n) => n as i64,
                    Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
                };
                completions.push(Completion { slot, result });
                break;
            }
            engine.queue(slot, Op::Read, file, offset, unit);
            inflight += 1;
        }
        if !E::INLINE && inflight > 0 {
            if let Err(e) = engine.submit() {
                run.out
                    .error
                    .get_or_insert(format!("io_uring submit failed: {e}"));
            }
            if let Err(e) = engine.reap(1, POLL_NS, &mut completions) {
                run.out
                    .error
                    .get_or_insert(format!("io_uring wait failed: {e}"));
                run.out.cancelled_ios += inflight as u64;
                return;
            }
        }
        if completions.is_empty() && inflight == 0 {
            return;
        }
        let done = run.clock.now_ns();
        for c in std::mem::take(&mut completions) {
            if !E::INLINE {
                inflight -= 1;
            }
            free.push(c.slot);
            let m = meta[c.slot as usize];
            match run.complete(&m, c.result, done, E::INLINE) {
                Ok(true) => {}
                // A read error the job goes on after (continue_on_error): nothing to check.
                Ok(false) => continue,
                Err(e) => {
                    run.out.error.get_or_insert(e.to_string());
                    continue;
                }
            }
            if run.data.verifies() {
                // SAFETY: the read was reaped (or ran inline): the kernel is done with the slot.
                if let Some(buf) = unsafe { engine.slot_buffer(c.slot, m.len) } {
                    run.data.check_written(buf, m.file, m.offset);
                }
            }
        }
        run.publish_progress();
    }
}
