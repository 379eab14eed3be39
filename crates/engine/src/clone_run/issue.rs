//! What a clone issues next and when: replayed IOs, the read/write choice, rate pacing and
//! the byte budget, block sizes and offsets, IO priorities, logs of issued IOs, and syncs.

use super::{Replayed, Run};
use crate::clock::Clock;
use crate::clone_plan::{SizePicker, TrimMode};
use crate::engine::{Engine, Op};
use crate::error::IoFailure;

impl<'a, C: Clock> Run<'a, C> {
    /// Opens the replayed log, if the clone replays one.
    pub(super) fn open_replay(&mut self) {
        if let Some(spec) = &self.plan.replay {
            match crate::replay::ReplayReader::open(spec, self.plan.clone_index) {
                Ok(reader) => self.replay = Some(reader),
                Err(e) => {
                    self.out.error.get_or_insert(e.to_string());
                    self.replay_done = true;
                }
            }
        }
    }

    /// The replayed log's next IO at `now`, after doing the syncs due before it.
    pub(crate) fn replay_next<E: Engine>(&mut self, engine: &mut E, now: u64) -> Replayed {
        loop {
            let io = match self.replay_peek.take() {
                Some(io) => io,
                None => {
                    let Some(reader) = self.replay.as_mut() else {
                        return Replayed::End;
                    };
                    match reader.next_io() {
                        Ok(Some(io)) => io,
                        Ok(None) => {
                            self.replay_done = true;
                            return Replayed::End;
                        }
                        Err(e) => {
                            self.out.error.get_or_insert(e.to_string());
                            self.replay_done = true;
                            return Replayed::End;
                        }
                    }
                }
            };
            let due_ns = self.start_ns + io.due_ns.get();
            if due_ns > now {
                self.replay_peek = Some(io);
                return Replayed::Wait(due_ns);
            }
            let op = match io.op {
                crate::replay::ReplayOp::Read => Op::Read,
                crate::replay::ReplayOp::Write => Op::Write,
                crate::replay::ReplayOp::Trim => Op::Trim,
                crate::replay::ReplayOp::Sync { data_only } => {
                    if let Err(e) = self.sync_one(engine, io.file, data_only, now) {
                        self.out.error.get_or_insert(e.to_string());
                        self.replay_done = true;
                        return Replayed::End;
                    }
                    continue;
                }
            };
            return Replayed::Io {
                op,
                len: io.len,
                file: io.file,
                offset: io.offset,
                due_ns,
            };
        }
    }

    /// fio write_iolog: one line for an IO, sync or file action at `now`; a write error ends
    /// the job (its log would be partial).
    #[cold]
    pub(super) fn log_action(&mut self, now: u64, file: u32, action: &str, io: Option<(u64, u32)>) {
        let Some(log) = &self.plan.write_iolog else {
            return;
        };
        let time_us = now.saturating_sub(self.iolog_start_ns) / 1000;
        let path = &self.plan.files[file as usize].0;
        if let Err(e) = log.line(time_us, path, action, io) {
            self.out.error.get_or_insert(e.to_string());
        }
    }

    /// fio write_iolog: the line of an IO as it is issued.
    #[inline]
    pub(crate) fn log_issue(&mut self, now: u64, op: Op, file: u32, offset: u64, len: u32) {
        if self.plan.write_iolog.is_some() {
            let action = match op {
                Op::Read => "read",
                Op::Write => "write",
                Op::Trim => "trim",
            };
            self.log_action(now, file, action, Some((offset, len)));
        }
    }

    /// The priority of the next IO (fio cmdprio), handed to the engine; the job's own when
    /// cmdprio does not pick it. Without cmdprio the engine is not told anything.
    #[inline]
    pub(crate) fn io_priority<E: Engine>(&mut self, engine: &mut E, op: Op, len: u32) -> u16 {
        let Some(cmdprio) = &self.plan.cmdprio else {
            return self.plan.ioprio;
        };
        let draw = self.prio_rng.percent();
        let ioprio = cmdprio
            .pick(op as usize, len as u64, draw)
            .unwrap_or(self.plan.ioprio);
        if let Err(e) = engine.set_ioprio(ioprio) {
            self.out.error.get_or_insert(format!(
                "cannot set IO priority class {} level {}: {e} (the realtime class needs root or CAP_SYS_NICE)",
                ioprio >> 13,
                ioprio & 7
            ));
        }
        ioprio
    }

    /// fio flow control: `Some(wait_ns)` when this clone is ahead of its share of its flow
    /// group and must not issue now; `None` (the IO counted) when it may.
    #[inline]
    pub(crate) fn flow_hold(&mut self) -> Option<u64> {
        self.flow.as_mut()?.hold()
    }

    #[inline]
    pub(crate) fn choose_op(&mut self) -> Op {
        match self.plan.trim {
            TrimMode::Off => {}
            TrimMode::Trim => return Op::Trim,
            TrimMode::TrimWrite if self.trimmed.is_some() => return Op::Write,
            TrimMode::TrimWrite => return Op::Trim,
        }
        let pct = self.plan.rwmix_read_pct;
        if pct >= 100.0 {
            Op::Read
        } else if pct <= 0.0 {
            Op::Write
        } else if self.rng.percent() < pct {
            Op::Read
        } else {
            Op::Write
        }
    }

    /// The earliest time the next IO of `op` may start under the rate caps. The byte cap counts
    /// the bytes already issued, so the size of the IO about to start does not enter.
    /// A thinktime pause holds every IO back until it ends.
    #[inline]
    pub(crate) fn due_ns(&self, op: Op) -> Option<u64> {
        // A trim is paced by the write's rate (a trim job's `rate` is its write entry); in
        // trimwrite the trims go unpaced and the writes after them set the pace of the pairs.
        if op == Op::Trim && self.plan.trim == TrimMode::TrimWrite {
            return (self.think_until != 0).then_some(self.think_until);
        }
        let d = op.dir_index();
        let by_rate = if self.plan.pacing.poisson {
            (self.rate_interval_ns[d].is_some() || self.rate_ns_per_byte[d].is_some())
                .then(|| self.rate_start + self.arrival_ns[d] as u64)
        } else {
            let by_iops = self.rate_interval_ns[d].map(|ns| self.issued[d] as f64 * ns);
            let by_bytes = self.rate_ns_per_byte[d].map(|ns| self.issued_dir_bytes[d] as f64 * ns);
            match (by_iops, by_bytes) {
                (None, None) => None,
                (a, b) => Some(self.rate_start + a.unwrap_or(0.0).max(b.unwrap_or(0.0)) as u64),
            }
        };
        if self.think_until == 0 {
            by_rate
        } else {
            Some(by_rate.map_or(self.think_until, |due| due.max(self.think_until)))
        }
    }

    #[inline]
    pub(crate) fn budget_left(&self) -> bool {
        match self.plan.budget_bytes {
            Some(budget) => self.issued_bytes < budget.as_u64(),
            None => true,
        }
    }

    /// The size of the next IO of `op`: trimwrite's write has the length of the trim before it.
    #[inline]
    pub(crate) fn pick_len(&mut self, op: Op) -> u32 {
        let len = match self.trimmed {
            Some((len, _, _)) if op == Op::Write => len,
            _ => self.plan.sizes.pick(op, &mut self.rng),
        };
        self.fit_budget(len)
    }

    /// With several block sizes, the last IO of a size-bound job is cut to what is left (in
    /// multiples of the smallest size), as fio picks a size that still fits: the job moves
    /// exactly its size, never a block more.
    #[inline]
    fn fit_budget(&self, len: u32) -> u32 {
        let (SizePicker::Split { .. }, Some(budget)) = (&self.plan.sizes, self.plan.budget_bytes)
        else {
            return len;
        };
        let left = budget.as_u64().saturating_sub(self.issued_bytes);
        let min = u64::from(self.plan.sizes.min_size());
        if u64::from(len) <= left || left < min {
            return len;
        }
        (left / min * min) as u32
    }

    /// Where the next IO of `op` goes: trimwrite's write goes to the block just trimmed, and
    /// a trimwrite trim is remembered for the write after it.
    #[inline]
    pub(crate) fn pick_offset(&mut self, op: Op, len: u32) -> (u32, u64) {
        if self.plan.trim != TrimMode::TrimWrite {
            return self.offsets.next(len, &mut self.rng);
        }
        match (op, self.trimmed.take()) {
            (Op::Write, Some((_, file, offset))) => (file, offset),
            _ => {
                let (file, offset) = self.offsets.next(len, &mut self.rng);
                if op == Op::Trim {
                    self.trimmed = Some((len, file, offset));
                }
                (file, offset)
            }
        }
    }

    #[inline]
    pub(crate) fn note_issue(&mut self, op: Op, len: u32) {
        if op == Op::Trim && self.plan.trim == TrimMode::TrimWrite {
            // fio counts only the writes of a trimwrite job towards its size.
            return;
        }
        let d = op.dir_index();
        self.issued[d] += 1;
        self.issued_dir_bytes[d] += len as u64;
        self.issued_bytes += len as u64;
        if self.plan.pacing.poisson {
            // The mean gap is what the linear schedule spaces this IO by; the gap itself is
            // exponential with that mean (inverse transform of a uniform draw in (0, 1]).
            let mean = self.rate_interval_ns[d]
                .unwrap_or(0.0)
                .max(self.rate_ns_per_byte[d].unwrap_or(0.0) * len as f64);
            let uniform = 1.0 - self.arrivals.percent() / 100.0;
            self.arrival_ns[d] += -uniform.max(f64::MIN_POSITIVE).ln() * mean;
        }
    }

    /// fio's `fsync=N`/`fdatasync=N`: a sync of every file after each N writes, each call timed
    /// into the job's sync latency (fio's "sync" block), never into an IO's. As fio, no sync
    /// follows the job's last write (its IO is done; `end_fsync` is what syncs at the end).
    /// Returns true when it synced (the caller's clock reading is then stale).
    pub(crate) fn maybe_sync<E: Engine>(&mut self, engine: &mut E) -> Result<bool, IoFailure> {
        let every = if self.plan.fsync_every > 0 {
            self.plan.fsync_every
        } else {
            self.plan.fdatasync_every
        };
        if every == 0 || self.writes_since_sync < every {
            return Ok(false);
        }
        self.writes_since_sync = 0;
        if !self.budget_left() {
            return Ok(false);
        }
        let data_only = self.plan.fsync_every == 0;
        let now = self.clock.now_ns();
        for file in 0..self.plan.files.len() as u32 {
            let start = self.clock.now_ns();
            self.sync_one(engine, file, data_only, now)?;
            if self.measuring {
                let took = self.clock.now_ns().saturating_sub(start);
                self.out.sync_latency.record(took);
            }
        }
        Ok(true)
    }

    pub(crate) fn sync_all<E: Engine>(
        &mut self,
        engine: &mut E,
        data_only: bool,
    ) -> Result<(), IoFailure> {
        let now = if self.plan.write_iolog.is_some() {
            self.clock.now_ns()
        } else {
            0
        };
        for file in 0..self.plan.files.len() as u32 {
            self.sync_one(engine, file, data_only, now)?;
        }
        Ok(())
    }

    /// fsync (or fdatasync) one file, counted, and logged with write_iolog.
    fn sync_one<E: Engine>(
        &mut self,
        engine: &mut E,
        file: u32,
        data_only: bool,
        now: u64,
    ) -> Result<(), IoFailure> {
        let action = if data_only { "datasync" } else { "sync" };
        self.log_action(now, file, action, Some((0, 0)));
        engine
            .sync_file(file, data_only)
            .map_err(|error| IoFailure::Sync {
                path: self.plan.files[file as usize].0.clone(),
                error,
            })?;
        self.out.syncs += 1;
        Ok(())
    }
}
