//! The state of one running clone ([`Run`]): where its next IO goes and when, what it has
//! issued and completed, its rate, think-time and latency-target bookkeeping, and how it
//! accounts a completion. The worker's loops (`crate::worker`) and read-back passes
//! (`crate::read_back`) drive it.

use crate::clock::Clock;
use crate::clone_plan::{
    CloneOutput, ClonePlan, CloneShared, CloneSnapshot, SizePicker, TrimMode, ERROR_LINES, POLL_NS,
};
use crate::distribution::BlockPicker;
use crate::engine::{Engine, Op, SlotMeta};
use crate::error::IoFailure;
use crate::latency_target::{LatencySearch, SearchStep};
use crate::random::{mix64, Permutation, SplitMix64};
use crate::sequence::{SeqState, Sequence};
use iofit_stats::{Ddir, IntervalAccumulator, IntervalBucket};
use std::sync::atomic::Ordering;

/// The minimum-rate window of one clone: what completed since it opened.
#[derive(Default)]
struct MinRateWindow {
    start_ns: u64,
    ios: [u64; 2],
    bytes: [u64; 2],
}

impl SlotMeta {
    /// fio's direction of the IO.
    fn ddir(&self) -> Ddir {
        match (self.op_is_read, self.trim) {
            (true, _) => Ddir::Read,
            (false, true) => Ddir::Trim,
            (false, false) => Ddir::Write,
        }
    }
}

struct FileCursor {
    base: u64,
    len: u64,
    blocks: u64,
    seq: SeqState,
    perm: Permutation,
    perm_pos: u64,
    pass: u64,
    picker: Option<BlockPicker>,
}

/// Offsets: round-robin over files; random (aligned to `blockalign`, by default the smallest
/// block size; each block
/// once per pass unless norandommap) or sequential (wrapping at the region end).
pub(crate) struct OffsetGen {
    files: Vec<FileCursor>,
    chooser: crate::file_service::FileChooser,
    align: u64,
    random_pct: f64,
    norandommap: bool,
    seed: u64,
    sequence: Sequence,
}

impl OffsetGen {
    fn new(plan: &ClonePlan) -> OffsetGen {
        let align = plan.align.max(1);
        let files = plan
            .files
            .iter()
            .enumerate()
            .map(|(i, (_, base, len))| {
                let blocks = (len / align).max(1);
                FileCursor {
                    base: *base,
                    len: *len,
                    blocks,
                    seq: SeqState::default(),
                    perm: Permutation::new(blocks, plan.seed ^ mix64(i as u64 + 1)),
                    perm_pos: 0,
                    pass: 0,
                    picker: plan.pickers.get(i).cloned().flatten(),
                }
            })
            .collect();
        let lengths: Vec<u64> = plan.files.iter().map(|(_, _, len)| *len).collect();
        // The runner checked the service's numbers when it made the plan (`clone_plan`).
        let chooser =
            crate::file_service::FileChooser::new(&plan.file_service, &lengths, plan.seed)
                .or_else(|_| {
                    let default = iofit_model::job::FileService::default();
                    crate::file_service::FileChooser::new(&default, &lengths, plan.seed)
                })
                .expect("round robin has no numbers to refuse");
        OffsetGen {
            files,
            chooser,
            align,
            random_pct: plan.random_pct,
            norandommap: plan.norandommap,
            seed: plan.seed,
            sequence: plan.sequence,
        }
    }

    #[inline]
    pub(crate) fn next(&mut self, len: u32, rng: &mut SplitMix64) -> (u32, u64) {
        let len = len as u64;
        let index = self.chooser.next(len);
        let random =
            self.random_pct >= 100.0 || (self.random_pct > 0.0 && rng.percent() < self.random_pct);
        let cursor = &mut self.files[index];
        if let Some(offset) = self.sequence.continue_run(&mut cursor.seq, len, cursor.len) {
            return (index as u32, cursor.base + offset);
        }
        let offset = if random {
            let block = if let Some(picker) = cursor.picker.as_mut() {
                picker.next_block()
            } else if self.norandommap {
                rng.below(cursor.blocks)
            } else {
                if cursor.perm_pos == cursor.blocks {
                    cursor.pass += 1;
                    cursor.perm = Permutation::new(
                        cursor.blocks,
                        self.seed ^ mix64((index as u64 + 1) ^ (cursor.pass << 32)),
                    );
                    cursor.perm_pos = 0;
                }
                let b = cursor.perm.get(cursor.perm_pos);
                cursor.perm_pos += 1;
                b
            };
            let offset = block * self.align;
            let offset = if offset + len > cursor.len {
                (cursor.len - len) / self.align * self.align
            } else {
                offset
            };
            self.sequence.start_run(&mut cursor.seq, offset, len);
            offset
        } else {
            let jitter = self.sequence.jitter_blocks(len);
            let extra = if jitter > 0 {
                rng.below(jitter) * len
            } else {
                0
            };
            self.sequence
                .next_sequential_plus(&mut cursor.seq, len, cursor.len, extra)
        };
        (index as u32, cursor.base + offset)
    }
}

fn thread_cpu() -> (u64, u64, u64) {
    let usage = thread_usage();
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    (
        tv(usage.ru_utime),
        tv(usage.ru_stime),
        (usage.ru_nvcsw + usage.ru_nivcsw) as u64,
    )
}

/// (major, minor) page faults of this thread so far.
/// The wall-clock time (ms since the Unix epoch) of `at_ns` on `clock`, not of this call: a
/// clone the CPU scheduled late after its start gate still began its window when the gate
/// opened. The clock and the wall clock are read back to back; a pair the CPU split (the
/// thread preempted between them) is read again, a few times at most.
fn epoch_ms_at<C: Clock>(clock: &C, at_ns: u64) -> u64 {
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
    const TIGHT_NS: u64 = 50_000;
    let mut wall = SystemTime::now();
    let mut late_ns = 0;
    for _ in 0..5 {
        let Some(before) = clock.ns_at(Instant::now()) else {
            break; // a clock of its own (tests): the wall clock now
        };
        wall = SystemTime::now();
        let after = clock.ns_at(Instant::now()).unwrap_or(before);
        late_ns = before.saturating_sub(at_ns);
        if after.saturating_sub(before) < TIGHT_NS {
            break;
        }
    }
    wall.checked_sub(Duration::from_nanos(late_ns))
        .unwrap_or(wall)
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn thread_faults() -> (u64, u64) {
    let usage = thread_usage();
    (usage.ru_majflt as u64, usage.ru_minflt as u64)
}

fn thread_usage() -> libc::rusage {
    // SAFETY: rusage is plain integers, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes the struct it is given, which lives for the call.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    usage
}

/// The state of one running clone.
pub(crate) struct Run<'a, C: Clock> {
    pub(crate) plan: &'a ClonePlan,
    pub(crate) shared: &'a CloneShared<'a>,
    pub(crate) clock: &'a C,
    pub(crate) rng: SplitMix64,
    pub(crate) offsets: OffsetGen,
    pub(crate) out: CloneOutput,
    /// Fills writes and checks reads (verify, content); idle when the job asks for neither.
    pub(crate) data: crate::data::DataState,
    pub(crate) series: IntervalAccumulator,
    pub(crate) measuring: bool,
    pub(crate) measure_start: u64,
    pub(crate) ramp_end: u64,
    pub(crate) deadline: Option<u64>,
    cpu_start: (u64, u64, u64),
    faults_start: (u64, u64),
    issued_bytes: u64,
    issued: [u64; 2],
    issued_dir_bytes: [u64; 2],
    rate_start: u64,
    rate_interval_ns: [Option<f64>; 2],
    rate_ns_per_byte: [Option<f64>; 2],
    writes_since_sync: u32,
    completed: u64,
    completed_bytes: u64,
    /// The longest total latency seen (ramp included): sizes the drain at the end.
    pub(crate) longest_ns: u64,
    /// When the clone started issuing (after any start delay).
    pub(crate) start_ns: u64,
    /// No IO issues before this (a thinktime pause); 0: none.
    think_until: u64,
    /// Spin rather than sleep until this (thinktime_spin).
    spin_until: u64,
    completed_since_think: u32,
    /// With Poisson arrivals, when the next IO of each direction is due, from `rate_start`.
    arrival_ns: [f64; 2],
    arrivals: SplitMix64,
    min_rate: MinRateWindow,
    /// fio's latency_target depth search; `search_done`: its final window is over.
    search: Option<LatencySearch>,
    search_done: bool,
    /// When the search last let more IOs in flight: a slot it held back issues its next IO
    /// from then, not from when the slot was last free.
    pub(crate) depth_opened_ns: u64,
    /// This clone's place in its flow group (fio `flow`), left when the run is dropped.
    flow: Option<crate::flow::FlowMember>,
    /// Draws for per-IO priorities: their own stream, so offsets stay as without cmdprio.
    prio_rng: SplitMix64,
    /// fio fill_device: a write found the file system full; issuing ends.
    filled: bool,
    /// trimwrite: the (len, file, offset) just trimmed, which the next IO writes.
    trimmed: Option<(u32, u32, u64)>,
    /// fio read_iolog: the log being replayed, the IO read from it but not yet due, and
    /// whether its end was reached.
    pub(crate) replay: Option<crate::replay::ReplayReader>,
    replay_peek: Option<crate::replay::ReplayIo>,
    pub(crate) replay_done: bool,
    /// fio write_iolog: the time its lines count from.
    iolog_start_ns: u64,
}

/// What a replayed log asks for next.
pub(crate) enum Replayed {
    /// An IO to issue now; it was due at `due_ns`.
    Io {
        op: Op,
        len: u32,
        file: u32,
        offset: u64,
        due_ns: u64,
    },
    /// Nothing before this time.
    Wait(u64),
    /// The log is done (or could not be read: the error is recorded).
    End,
}

/// Why a clone stops issuing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// Ctrl-C or SIGTERM.
    Stop,
    /// Runtime over, size done, or an error.
    Done,
}

impl<'a, C: Clock> Run<'a, C> {
    pub(crate) fn new(plan: &'a ClonePlan, shared: &'a CloneShared<'a>, clock: &'a C) -> Self {
        let rate_interval_ns = [
            plan.rate_iops[0].filter(|&r| r > 0).map(|r| 1e9 / r as f64),
            plan.rate_iops[1].filter(|&r| r > 0).map(|r| 1e9 / r as f64),
        ];
        let rate_ns_per_byte = [
            plan.rate_bytes_per_second[0]
                .filter(|&r| r > 0)
                .map(|r| 1e9 / r as f64),
            plan.rate_bytes_per_second[1]
                .filter(|&r| r > 0)
                .map(|r| 1e9 / r as f64),
        ];
        Run {
            plan,
            shared,
            clock,
            rng: SplitMix64::new(plan.seed),
            offsets: OffsetGen::new(plan),
            out: CloneOutput::default(),
            data: crate::data::DataState::new(&plan.data, &plan.files, plan.depth, plan.seed),
            series: IntervalAccumulator::new(plan.interval_ns),
            measuring: false,
            measure_start: 0,
            ramp_end: 0,
            deadline: None,
            cpu_start: (0, 0, 0),
            faults_start: (0, 0),
            issued_bytes: 0,
            issued: [0; 2],
            issued_dir_bytes: [0; 2],
            rate_start: 0,
            rate_interval_ns,
            rate_ns_per_byte,
            writes_since_sync: 0,
            completed: 0,
            completed_bytes: 0,
            longest_ns: 0,
            start_ns: 0,
            think_until: 0,
            spin_until: 0,
            completed_since_think: 0,
            arrival_ns: [0.0; 2],
            // Its own stream, so that Poisson gaps do not change the offsets drawn.
            arrivals: SplitMix64::new(plan.seed ^ 0x9e37_79b9_7f4a_7c15),
            min_rate: MinRateWindow::default(),
            search: None,
            search_done: false,
            depth_opened_ns: 0,
            flow: plan.pacing.flow.as_ref().map(crate::flow::FlowMember::join),
            prio_rng: SplitMix64::new(plan.seed ^ 0x5851_f42d_4c95_7f2d),
            filled: false,
            trimmed: None,
            replay: None,
            replay_peek: None,
            replay_done: false,
            iolog_start_ns: 0,
        }
    }

    /// Opens the replayed log, if the clone replays one.
    fn open_replay(&mut self) {
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
            let due_ns = self.start_ns + io.due_ns;
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
    fn log_action(&mut self, now: u64, file: u32, action: &str, io: Option<(u64, u32)>) {
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

    /// Starts the clone's clock: at `gate_ns` (when its set's start gate opened, on this
    /// clock) when given, else now. A clone the CPU scheduled late after the gate still counts
    /// from the gate, as every other clone of the set does: the group's IOs are then summed over
    /// one window, the set's wall time.
    pub(crate) fn start(&mut self, gate_ns: Option<u64>) {
        let t = gate_ns.unwrap_or_else(|| self.clock.now_ns());
        self.iolog_start_ns = t;
        self.open_replay();
        if self.plan.write_iolog.is_some() {
            for file in 0..self.plan.files.len() as u32 {
                self.log_action(t, file, "open", None);
            }
        }
        let delay_ns = self.plan.start_delay_ns;
        let start = match gate_ns {
            // From the gate, the delay ends when it is due (a stop may end it sooner).
            Some(gate) if delay_ns > 0 => self.pause_until(gate + delay_ns).min(gate + delay_ns),
            Some(gate) => gate,
            None => {
                if delay_ns > 0 {
                    self.pause_until(t + delay_ns);
                }
                self.clock.now_ns()
            }
        };
        self.start_ns = start;
        self.rate_start = start;
        self.ramp_end = start + self.plan.ramp_ns;
        self.deadline = self.plan.runtime_ns.map(|r| self.ramp_end + r);
        self.search = self.plan.pacing.latency_target.as_ref().map(|t| {
            LatencySearch::new(
                t.target_ns,
                t.window_ns,
                t.percentile,
                self.plan.depth,
                start,
            )
            .with_latency_run(t.keep_running)
        });
        if self.plan.ramp_ns == 0 {
            self.begin_measuring(start);
        }
    }

    /// Sleeps until `until_ns`, waking every [`POLL_NS`] to look at the stop flag. Returns the
    /// time it woke.
    pub(crate) fn pause_until(&self, until_ns: u64) -> u64 {
        loop {
            let now = self.clock.now_ns();
            if now >= until_ns || self.shared.stop.load(Ordering::Relaxed) {
                return now;
            }
            if now < self.spin_until {
                // thinktime_spin: burn the CPU as the application being modelled would.
                std::hint::spin_loop();
                continue;
            }
            self.clock.sleep_until(until_ns.min(now + POLL_NS));
        }
    }

    /// Whether issuing must end at `now`, and why. A stop is recorded as an interruption.
    #[inline]
    pub(crate) fn end_reason(&mut self, now: u64) -> Option<End> {
        if self.shared.stop.load(Ordering::Relaxed) {
            if !self.out.interrupted {
                self.out.interrupted = true;
                // What was measured up to the stop, for a stop bound that cannot wait for
                // this clone's output (`live::LiveResults`).
                self.publish_snapshot();
            }
            Some(End::Stop)
        } else if self.deadline.is_some_and(|d| now >= d)
            || !self.budget_left()
            || self.out.error.is_some()
            || self.data.limit_reached()
            || self.search_done
            || self.filled
            || self.replay_done
            || self
                .shared
                .end_set
                .is_some_and(|e| e.load(Ordering::Relaxed))
        {
            Some(End::Done)
        } else {
            None
        }
    }

    pub(crate) fn begin_measuring(&mut self, now: u64) {
        self.measuring = true;
        self.measure_start = now;
        self.min_rate = MinRateWindow {
            start_ns: now,
            ..MinRateWindow::default()
        };
        self.out.read.reset();
        self.out.write.reset();
        self.out.trim.reset();
        self.series.restart();
        self.cpu_start = thread_cpu();
        self.faults_start = thread_faults();
        // SAFETY: gettid has no preconditions and cannot fail.
        self.out.tid = unsafe { libc::gettid() } as u32;
        self.out.start_epoch_ms = epoch_ms_at(self.clock, now);
        if let Some(log) = &self.plan.interval_log {
            log.begin(self.out.start_epoch_ms);
        }
        self.out.io_depths = Default::default();
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
            Some(budget) => self.issued_bytes < budget,
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
        let left = budget.saturating_sub(self.issued_bytes);
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

    /// Counts a completion towards the next thinktime pause and the minimum-rate window.
    #[inline]
    fn pace_completion(&mut self, is_read: bool, len: u32, done_ns: u64) {
        let pacing = &self.plan.pacing;
        if pacing.think_ns > 0 {
            self.completed_since_think += 1;
            if self.completed_since_think >= pacing.think_blocks.max(1) {
                self.completed_since_think = 0;
                self.think_until = done_ns + pacing.think_ns;
                self.spin_until = done_ns + pacing.think_spin_ns.min(pacing.think_ns);
            }
        }
        let d = usize::from(!is_read);
        self.min_rate.ios[d] += 1;
        self.min_rate.bytes[d] += len as u64;
    }

    /// The latency_target search at `now`, with `in_flight` IOs issued and not complete: a
    /// converged search, once those are in, restarts the statistics for its final window;
    /// after that window the job ends (with latency_run the search never converges).
    pub(crate) fn step_latency_search(&mut self, now: u64, in_flight: usize) {
        let Some(search) = self.search.as_mut() else {
            return;
        };
        let limit_before = search.issue_limit();
        let step = search.check(now, in_flight);
        if search.issue_limit() > limit_before {
            self.depth_opened_ns = now;
        }
        self.out.latency_depth = Some(search.depth);
        match step {
            SearchStep::Continue => {}
            SearchStep::RestartStats => {
                if self.measuring {
                    self.begin_measuring(now);
                }
            }
            SearchStep::Done => self.search_done = true,
        }
    }

    /// The most IOs the queue may hold now: iodepth, or the latency_target search's depth.
    #[inline]
    pub(crate) fn depth_limit(&self, depth: usize) -> usize {
        self.search
            .as_ref()
            .map_or(depth, |s| (s.issue_limit() as usize).min(depth))
    }

    /// fio's `rate_min`/`rate_iops_min`: at the end of each `rate_cycle` window (while
    /// measuring), a direction the job does IO in that fell below its minimum ends the clone.
    pub(crate) fn check_min_rate(&mut self, now: u64) -> Result<(), IoFailure> {
        let pacing = &self.plan.pacing;
        if !self.measuring || !pacing.checks_min_rate() {
            return Ok(());
        }
        let elapsed_ns = now.saturating_sub(self.min_rate.start_ns);
        if elapsed_ns < pacing.rate_cycle_ns {
            return Ok(());
        }
        let seconds = elapsed_ns as f64 / 1e9;
        let reads = self.plan.rwmix_read_pct > 0.0;
        let writes = self.plan.rwmix_read_pct < 100.0;
        for (d, name, active) in [(0, "read", reads), (1, "write", writes)] {
            if !active {
                continue;
            }
            let bw = self.min_rate.bytes[d] as f64 / seconds;
            let iops = self.min_rate.ios[d] as f64 / seconds;
            if let Some(min) = pacing.min_bytes_per_second[d].filter(|&m| bw < m as f64) {
                return Err(IoFailure::BelowMinRate(format!(
                    "{name} bandwidth {bw:.0} B/s over the last {} ms is below rate_min {min} B/s",
                    elapsed_ns / 1_000_000
                )));
            }
            if let Some(min) = pacing.min_iops[d].filter(|&m| iops < m as f64) {
                return Err(IoFailure::BelowMinRate(format!(
                    "{name} IOPS {iops:.1} over the last {} ms are below rate_iops_min {min}",
                    elapsed_ns / 1_000_000
                )));
            }
        }
        self.min_rate = MinRateWindow {
            start_ns: now,
            ..MinRateWindow::default()
        };
        Ok(())
    }

    /// Accounts one completed IO: `Ok(true)` when it counts, `Ok(false)` when it failed in a
    /// way the job goes on after (fio's continue_on_error, fill_device). Returns an error for
    /// a failed or short IO that ends the clone.
    #[inline]
    pub(crate) fn complete(
        &mut self,
        meta: &SlotMeta,
        result: i64,
        done_ns: u64,
        inline: bool,
    ) -> Result<bool, IoFailure> {
        if result < 0 && self.plan.errors.continue_on != 0 && self.non_fatal(meta, result) {
            return Ok(false);
        }
        if self.plan.fill_device
            && !meta.op_is_read
            && !meta.trim
            && (result == -(libc::ENOSPC as i64) || (0..meta.len as i64).contains(&result))
        {
            // fio fill_device: the file system is full, which is the job's end, not a failure.
            // The write that found it full is not counted (fio neither).
            self.filled = true;
            return Ok(false);
        }
        if result != meta.len as i64 {
            let path = self.plan.files[meta.file as usize].0.clone();
            let what = match (meta.op_is_read, meta.trim) {
                (true, _) => "read",
                (false, true) => "trim",
                (false, false) => "write",
            };
            return Err(if result < 0 {
                IoFailure::Failed {
                    what,
                    len: meta.len,
                    offset: meta.offset,
                    path,
                    error: std::io::Error::from_raw_os_error(-result as i32),
                }
            } else {
                IoFailure::Short {
                    what,
                    done: result,
                    len: meta.len,
                    offset: meta.offset,
                    path,
                }
            });
        }
        self.completed += 1;
        self.completed_bytes += meta.len as u64;
        self.pace_completion(meta.op_is_read, meta.len, done_ns);
        if let Some(search) = self.search.as_mut() {
            // fio judges the target on total latency, and only while it is measured.
            let latency_ns = if self.plan.measure.lat {
                done_ns.saturating_sub(meta.issue_ns)
            } else {
                0
            };
            if search.record(meta.issue_ns, latency_ns) {
                return Err(IoFailure::MaxLatency {
                    latency_ns,
                    max_ns: search.target_ns(),
                    path: self.plan.files[meta.file as usize].0.clone(),
                    what: if meta.op_is_read { "read" } else { "write" },
                    offset: meta.offset,
                    len: meta.len,
                });
            }
        }
        self.longest_ns = self.longest_ns.max(done_ns.saturating_sub(meta.issue_ns));
        if self.measuring {
            self.record(meta, done_ns, inline);
        }
        if !meta.op_is_read && !meta.trim {
            self.writes_since_sync += 1;
        }
        self.check_max_latency(meta, done_ns).map(|()| true)
    }

    /// fio's td_non_fatal_error for a failed IO: when the job goes on after it, the error is
    /// counted (and a line kept, unless error_dump=0) and the IO is not.
    #[cold]
    fn non_fatal(&mut self, meta: &SlotMeta, result: i64) -> bool {
        let errno = (-result) as i32;
        let policy = &self.plan.errors;
        let error_type = iofit_model::job::ErrorPolicy::error_type(meta.op_is_read, errno);
        if !policy.non_fatal(error_type, errno) {
            return false;
        }
        self.out.total_err += 1;
        if self.out.first_error == 0 {
            self.out.first_error = errno;
        }
        if !policy.quiet && self.out.error_lines.len() < ERROR_LINES {
            let what = match (meta.op_is_read, meta.trim) {
                (true, _) => "read",
                (false, true) => "trim",
                (false, false) => "write",
            };
            // fio's "io_u error on file F: STRERROR: DDIR offset=N, buflen=N".
            let text = std::io::Error::from_raw_os_error(errno).to_string();
            let strerror = text.split(" (os error").next().unwrap_or(&text);
            self.out.error_lines.push(format!(
                "io_u error on file {}: {strerror}: {what} offset={}, buflen={}",
                self.plan.files[meta.file as usize].0.display(),
                meta.offset,
                meta.len
            ));
        }
        true
    }

    /// Adds a completed IO to the clone's counters and to the histograms the job measures
    /// (fio's `disable_*` leave theirs empty, as fio's JSON shows zeros for them).
    #[inline]
    fn record(&mut self, meta: &SlotMeta, done_ns: u64, inline: bool) {
        let measure = &self.plan.measure;
        let stats = if meta.op_is_read {
            &mut self.out.read
        } else if meta.trim {
            &mut self.out.trim
        } else {
            &mut self.out.write
        };
        stats.ios += 1;
        stats.io_bytes += meta.len as u64;
        let total = done_ns.saturating_sub(meta.issue_ns);
        if inline {
            // Completion and total latency are the same sample for a synchronous IO: with
            // both measured, record it once; `finish` copies the histogram.
            if measure.clat {
                stats.completion.record(total);
            } else if measure.lat {
                stats.total.record(total);
            }
        } else {
            if measure.slat {
                stats
                    .submission
                    .record(meta.submit_ns.saturating_sub(meta.issue_ns));
            }
            if measure.clat {
                stats
                    .completion
                    .record(done_ns.saturating_sub(meta.submit_ns));
            }
            if measure.lat {
                stats.total.record(total);
            }
        }
        if self.plan.cmdprio.is_some() {
            // fio's per-priority latencies (its JSON `prios`).
            let completion = if inline {
                total
            } else {
                done_ns.saturating_sub(meta.submit_ns)
            };
            stats.record_prio(meta.ioprio, completion, total);
        }
        if let Some(log) = &self.plan.io_log {
            self.log_io(log, meta, done_ns, inline);
        }
        let ddir = meta.ddir();
        self.series.record(ddir, meta.len as u64, 1, total);
        if inline {
            self.series.record_parts(ddir, total, None);
        } else {
            self.series.record_parts(
                ddir,
                done_ns.saturating_sub(meta.submit_ns),
                Some(meta.submit_ns.saturating_sub(meta.issue_ns)),
            );
        }
    }

    /// fio's `max_latency`: a total latency above it fails the clone with ETIMEDOUT (checked
    /// only while total latency is measured, as fio checks it).
    #[inline]
    fn check_max_latency(&self, meta: &SlotMeta, done_ns: u64) -> Result<(), IoFailure> {
        let max_ns = self.plan.measure.max_latency_ns[usize::from(!meta.op_is_read)];
        let latency_ns = done_ns.saturating_sub(meta.issue_ns);
        match max_ns {
            Some(max_ns) if self.plan.measure.lat && latency_ns > max_ns => {
                Err(IoFailure::MaxLatency {
                    latency_ns,
                    max_ns,
                    path: self.plan.files[meta.file as usize].0.clone(),
                    what: if meta.op_is_read { "read" } else { "write" },
                    offset: meta.offset,
                    len: meta.len,
                })
            }
            _ => Ok(()),
        }
    }

    /// One line per per-IO log for a measured completion; a write error ends the job (its
    /// logs would be partial).
    #[cold]
    fn log_io(
        &mut self,
        log: &crate::iolog::IoLogPlan,
        meta: &SlotMeta,
        done_ns: u64,
        inline: bool,
    ) {
        if self.out.error.is_some() {
            return;
        }
        let base_ms = if log.unix_epoch {
            self.out.start_epoch_ms
        } else {
            0
        };
        let total_ns = done_ns.saturating_sub(meta.issue_ns);
        let record = crate::iolog::IoRecord {
            time_ms: base_ms + done_ns.saturating_sub(self.measure_start) / 1_000_000,
            is_read: meta.op_is_read,
            is_trim: meta.trim,
            len: meta.len,
            offset: meta.offset,
            total_ns,
            completion_ns: if inline {
                total_ns
            } else {
                done_ns.saturating_sub(meta.submit_ns)
            },
            submission_ns: (!inline).then(|| meta.submit_ns.saturating_sub(meta.issue_ns)),
            ioprio: meta.ioprio,
        };
        if let Err(e) = log.record(&record) {
            self.out.error = Some(e.to_string());
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

    #[inline]
    pub(crate) fn publish_progress(&self) {
        let cell = self.shared.progress;
        let earlier = &self.plan.earlier_loops;
        cell.ios
            .store(earlier.ios + self.completed, Ordering::Relaxed);
        cell.bytes
            .store(earlier.bytes + self.completed_bytes, Ordering::Relaxed);
        // One relaxed load per publication; the copy happens once per status interval.
        if cell.snapshot_wanted.load(Ordering::Relaxed) {
            cell.snapshot_wanted.store(false, Ordering::Relaxed);
            self.publish_snapshot();
        }
    }

    /// Copies the measurements so far into the progress cell (`--status-interval`).
    #[cold]
    fn publish_snapshot(&self) {
        let (mut read, mut write) = (self.out.read.clone(), self.out.write.clone());
        let mut trim = self.out.trim.clone();
        for d in [&mut read, &mut write, &mut trim] {
            // A synchronous engine records total latency into completion until `finish`.
            if d.total.count() == 0 && self.plan.measure.lat && self.plan.measure.clat {
                d.total = d.completion.clone();
            }
        }
        let mut runtime_ns = if self.measuring {
            self.clock.now_ns().saturating_sub(self.measure_start)
        } else {
            0
        };
        if let Some(earlier) = &self.plan.earlier_measured {
            read.merge(&earlier.read);
            write.merge(&earlier.write);
            trim.merge(&earlier.trim);
            runtime_ns += earlier.runtime_ns;
        }
        let mut slot = self.shared.progress.snapshot.lock().expect("snapshot lock");
        let generation = slot.as_ref().map_or(0, |s| s.generation) + 1;
        *slot = Some(CloneSnapshot {
            read,
            write,
            trim,
            runtime_ns,
            generation,
        });
    }

    pub(crate) fn finish<E: Engine>(&mut self, engine: &mut E, end_ns: u64) -> CloneOutput {
        self.publish_progress();
        if self.out.interrupted {
            // The drain's completions too, should the runner not take this output in time.
            self.publish_snapshot();
        }
        if E::INLINE && self.plan.measure.lat && self.plan.measure.clat {
            self.out.read.total = self.out.read.completion.clone();
            self.out.write.total = self.out.write.completion.clone();
        }
        if self.measuring {
            self.out.runtime_ns = end_ns.saturating_sub(self.measure_start);
            let cpu = thread_cpu();
            self.out.usr_ns = cpu.0.saturating_sub(self.cpu_start.0);
            self.out.sys_ns = cpu.1.saturating_sub(self.cpu_start.1);
            self.out.context_switches = cpu.2.saturating_sub(self.cpu_start.2);
            let faults = thread_faults();
            self.out.major_faults = faults.0.saturating_sub(self.faults_start.0);
            self.out.minor_faults = faults.1.saturating_sub(self.faults_start.1);
            let series = self.shared.series;
            let shift = self.plan.earlier_loops.intervals;
            let log = self.plan.interval_log.as_ref();
            let mut sink = |b: &IntervalBucket| {
                series.lock().expect("series lock").add_shifted(b, shift);
                if let Some(log) = log {
                    log.add(b, shift);
                }
            };
            self.series.finish(self.out.runtime_ns, &mut sink);
        }
        // The logs hold every window up to here, also after a stop.
        if let Some(Err(e)) = self.plan.interval_log.as_ref().map(|log| log.finish()) {
            self.out.error.get_or_insert(e.to_string());
        }
        // An interrupted run ends now: a final fsync on a busy disk could take seconds.
        let ending_well = self.out.error.is_none() && !self.out.interrupted;
        if (self.plan.end_fsync || self.plan.fsync_on_close) && ending_well {
            if let Err(e) = self.sync_all(engine, false) {
                self.out.error = Some(e.to_string());
            }
        }
        if self.plan.end_syncfs && ending_well && self.out.error.is_none() {
            // One syncfs per file: files of a job on the same file system cost one extra
            // (cheap) syncfs each, and no file system is missed.
            for file in 0..self.plan.files.len() as u32 {
                if let Err(e) = engine.sync_fs(file) {
                    let path = self.plan.files[file as usize].0.display();
                    self.out.error = Some(format!("syncfs of {path} failed: {e}"));
                    break;
                }
                self.out.syncs += 1;
            }
        }
        if let Err(e) = self.data.save_state() {
            self.out.error.get_or_insert(e.to_string());
        }
        if let Some(Err(e)) = self.plan.io_log.as_ref().map(|log| log.flush()) {
            self.out.error.get_or_insert(e.to_string());
        }
        if let Some(log) = self.plan.write_iolog.clone() {
            let now = self.clock.now_ns();
            for file in 0..self.plan.files.len() as u32 {
                self.log_action(now, file, "close", None);
            }
            if let Err(e) = log.flush() {
                self.out.error.get_or_insert(e.to_string());
            }
        }
        self.out.verify = self.data.result(&self.plan.data, &self.plan.files);
        std::mem::take(&mut self.out)
    }
}

#[cfg(test)]
mod stride_tests {
    use super::*;
    use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
    use iofit_model::units::Bytes;

    /// The offsets a clone of a strided job would issue (the null engine needs no file).
    fn offsets(min: u64, max: u64, count: usize) -> Vec<u64> {
        let mut job = JobSpec::new("stride", Target::Files(vec!["/nonexistent/x".into()]))
            .with_rw(RwMode::Read);
        job.engine = EngineKind::Null;
        job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
        job.seq_add_bytes = min as i64;
        job.seq_add_jitter_bytes = max - min;
        let plan = crate::runner::clone_plan(&job, 0, 7).unwrap();
        let mut gen = OffsetGen::new(&plan);
        let mut rng = SplitMix64::new(11);
        (0..count).map(|_| gen.next(4096, &mut rng).1).collect()
    }

    #[test]
    fn a_fixed_stride_skips_the_same_bytes_and_wraps_at_the_end() {
        // stride=(12k,12k) with 4k IOs: 0, 16k, 32k ... up to the 1 MiB end, then 0 again.
        let got = offsets(12288, 12288, 70);
        for (i, offset) in got.iter().take(64).enumerate() {
            assert_eq!(*offset, i as u64 * 16384);
        }
        assert_eq!(got[64], 0);
    }

    #[test]
    fn a_stride_range_spreads_the_gaps_over_whole_transfers() {
        // stride=(8k,24k), 4k IOs: gaps of 8k + 0..3 transfers (vdbench: (max-min)/xfersize
        // choices), each about a quarter of the time.
        let got = offsets(8192, 24576, 4000);
        let mut histogram = [0u32; 4];
        for pair in got.windows(2) {
            if pair[1] < pair[0] {
                continue; // wrapped to the start
            }
            let gap = pair[1] - pair[0] - 4096;
            assert!(gap >= 8192 && (gap - 8192) % 4096 == 0, "gap {gap}");
            histogram[((gap - 8192) / 4096) as usize] += 1;
        }
        let total: u32 = histogram.iter().sum();
        for count in histogram {
            let share = f64::from(count) / f64::from(total);
            assert!((0.20..0.30).contains(&share), "{histogram:?}");
        }
    }
}
