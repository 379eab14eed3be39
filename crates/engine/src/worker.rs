//! One clone's IO loop. Generic over the engine and the clock, so each combination compiles to
//! its own loop with no dynamic dispatch on the hot path. Per IO the loop makes no allocation,
//! takes no lock and reads the clock only where latency needs it: synchronous engines read it
//! once per IO (the end of one IO is the start of the next), asynchronous ones once per
//! submitted batch and once per reaped batch.

use crate::clock::Clock;
use crate::engine::{Completion, Engine, Op};
use crate::random::{mix64, Permutation, SplitMix64};
use iofit_stats::{DirectionStats, IntervalAccumulator, IntervalBucket, SeriesMerger};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Block sizes of one clone, ready to draw from.
#[derive(Clone, Debug)]
pub enum SizePicker {
    Fixed {
        read: u32,
        write: u32,
    },
    /// Cumulative percent thresholds per direction: (upper bound, size).
    Split {
        read: Vec<(f64, u32)>,
        write: Vec<(f64, u32)>,
    },
}

impl SizePicker {
    #[inline]
    fn pick(&self, op: Op, rng: &mut SplitMix64) -> u32 {
        match self {
            SizePicker::Fixed { read, write } => match op {
                Op::Read => *read,
                Op::Write => *write,
            },
            SizePicker::Split { read, write } => {
                let table = match op {
                    Op::Read => read,
                    Op::Write => write,
                };
                let x = rng.percent();
                table
                    .iter()
                    .find(|(upper, _)| x < *upper)
                    .or(table.last())
                    .map(|(_, size)| *size)
                    .unwrap_or(4096)
            }
        }
    }

    /// The smallest size: random offsets are aligned to it (fio's default `blockalign`).
    pub fn min_size(&self) -> u32 {
        match self {
            SizePicker::Fixed { read, write } => (*read).min(*write).max(1),
            SizePicker::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|(_, s)| *s)
                .min()
                .unwrap_or(4096)
                .max(1),
        }
    }
}

/// Everything one clone needs to run, resolved from its `JobSpec`.
#[derive(Clone, Debug)]
pub struct ClonePlan {
    pub job_name: String,
    pub clone_index: u32,
    /// (path, region start, region length) per file, in the order the engine opened them.
    pub files: Vec<(PathBuf, u64, u64)>,
    pub sizes: SizePicker,
    pub rwmix_read_pct: f64,
    pub random_pct: f64,
    pub norandommap: bool,
    pub seed: u64,
    pub depth: u32,
    pub start_delay_ns: u64,
    pub ramp_ns: u64,
    pub runtime_ns: Option<u64>,
    /// Bytes to move before stopping (size x loops, or io_limit x loops); None: until runtime.
    pub budget_bytes: Option<u64>,
    pub rate_iops: [Option<u64>; 2],
    pub rate_bytes_per_second: [Option<u64>; 2],
    pub fsync_every: u32,
    pub fdatasync_every: u32,
    pub end_fsync: bool,
    pub interval_ns: u64,
    /// Most IOs handed to the kernel in one submit call (fio's `iodepth_batch_submit`).
    pub submit_batch: usize,
}

/// Counters the progress display reads while the clone runs. One writer (the clone).
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct ProgressCell {
    pub ios: AtomicU64,
    pub bytes: AtomicU64,
}

/// What the clone shares with the runner.
pub struct CloneShared<'a> {
    pub stop: &'a AtomicBool,
    pub progress: &'a ProgressCell,
    pub series: &'a Mutex<SeriesMerger>,
}

/// What one clone measured.
#[derive(Debug, Default)]
pub struct CloneOutput {
    pub read: DirectionStats,
    pub write: DirectionStats,
    pub syncs: u64,
    pub runtime_ns: u64,
    pub usr_ns: u64,
    pub sys_ns: u64,
    pub context_switches: u64,
    pub error: Option<String>,
    pub interrupted: bool,
}

#[derive(Clone, Copy, Default)]
struct SlotMeta {
    op_is_read: bool,
    len: u32,
    file: u32,
    offset: u64,
    issue_ns: u64,
    submit_ns: u64,
}

struct FileCursor {
    base: u64,
    len: u64,
    blocks: u64,
    seq_next: u64,
    perm: Permutation,
    perm_pos: u64,
    pass: u64,
}

/// Offsets: round-robin over files; random (aligned to the smallest block size, each block
/// once per pass unless norandommap) or sequential (wrapping at the region end).
struct OffsetGen {
    files: Vec<FileCursor>,
    next_file: usize,
    align: u64,
    random_pct: f64,
    norandommap: bool,
    seed: u64,
}

impl OffsetGen {
    fn new(plan: &ClonePlan) -> OffsetGen {
        let align = plan.sizes.min_size() as u64;
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
                    seq_next: 0,
                    perm: Permutation::new(blocks, plan.seed ^ mix64(i as u64 + 1)),
                    perm_pos: 0,
                    pass: 0,
                }
            })
            .collect();
        OffsetGen {
            files,
            next_file: 0,
            align,
            random_pct: plan.random_pct,
            norandommap: plan.norandommap,
            seed: plan.seed,
        }
    }

    #[inline]
    fn next(&mut self, len: u32, rng: &mut SplitMix64) -> (u32, u64) {
        let index = self.next_file;
        self.next_file += 1;
        if self.next_file == self.files.len() {
            self.next_file = 0;
        }
        let len = len as u64;
        let random =
            self.random_pct >= 100.0 || (self.random_pct > 0.0 && rng.percent() < self.random_pct);
        let cursor = &mut self.files[index];
        let offset = if random {
            let block = if self.norandommap {
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
            if offset + len > cursor.len {
                (cursor.len - len) / self.align * self.align
            } else {
                offset
            }
        } else {
            if cursor.seq_next + len > cursor.len {
                cursor.seq_next = 0;
            }
            let offset = cursor.seq_next;
            cursor.seq_next += len;
            offset
        };
        (index as u32, cursor.base + offset)
    }
}

fn thread_cpu() -> (u64, u64, u64) {
    // SAFETY: getrusage fills the struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    (
        tv(usage.ru_utime),
        tv(usage.ru_stime),
        (usage.ru_nvcsw + usage.ru_nivcsw) as u64,
    )
}

/// The state of one running clone.
struct Run<'a, C: Clock> {
    plan: &'a ClonePlan,
    shared: &'a CloneShared<'a>,
    clock: &'a C,
    rng: SplitMix64,
    offsets: OffsetGen,
    out: CloneOutput,
    series: IntervalAccumulator,
    measuring: bool,
    measure_start: u64,
    ramp_end: u64,
    deadline: Option<u64>,
    cpu_start: (u64, u64, u64),
    issued_bytes: u64,
    issued: [u64; 2],
    issued_dir_bytes: [u64; 2],
    rate_start: u64,
    rate_interval_ns: [Option<f64>; 2],
    rate_ns_per_byte: [Option<f64>; 2],
    writes_since_sync: u32,
    completed: u64,
    completed_bytes: u64,
}

impl<'a, C: Clock> Run<'a, C> {
    fn new(plan: &'a ClonePlan, shared: &'a CloneShared<'a>, clock: &'a C) -> Self {
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
            series: IntervalAccumulator::new(plan.interval_ns),
            measuring: false,
            measure_start: 0,
            ramp_end: 0,
            deadline: None,
            cpu_start: (0, 0, 0),
            issued_bytes: 0,
            issued: [0; 2],
            issued_dir_bytes: [0; 2],
            rate_start: 0,
            rate_interval_ns,
            rate_ns_per_byte,
            writes_since_sync: 0,
            completed: 0,
            completed_bytes: 0,
        }
    }

    fn start(&mut self) {
        let t = self.clock.now_ns();
        if self.plan.start_delay_ns > 0 {
            self.clock.sleep_until(t + self.plan.start_delay_ns);
        }
        let start = self.clock.now_ns();
        self.rate_start = start;
        self.ramp_end = start + self.plan.ramp_ns;
        self.deadline = self.plan.runtime_ns.map(|r| self.ramp_end + r);
        if self.plan.ramp_ns == 0 {
            self.begin_measuring(start);
        }
    }

    fn begin_measuring(&mut self, now: u64) {
        self.measuring = true;
        self.measure_start = now;
        self.out.read.reset();
        self.out.write.reset();
        self.series.restart();
        self.cpu_start = thread_cpu();
    }

    #[inline]
    fn choose_op(&mut self) -> Op {
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
    #[inline]
    fn due_ns(&self, op: Op) -> Option<u64> {
        let d = op as usize;
        let by_iops = self.rate_interval_ns[d].map(|ns| self.issued[d] as f64 * ns);
        let by_bytes = self.rate_ns_per_byte[d].map(|ns| self.issued_dir_bytes[d] as f64 * ns);
        match (by_iops, by_bytes) {
            (None, None) => None,
            (a, b) => Some(self.rate_start + a.unwrap_or(0.0).max(b.unwrap_or(0.0)) as u64),
        }
    }

    #[inline]
    fn budget_left(&self) -> bool {
        match self.plan.budget_bytes {
            Some(budget) => self.issued_bytes < budget,
            None => true,
        }
    }

    #[inline]
    fn note_issue(&mut self, op: Op, len: u32) {
        let d = op as usize;
        self.issued[d] += 1;
        self.issued_dir_bytes[d] += len as u64;
        self.issued_bytes += len as u64;
    }

    /// Accounts one completed IO. Returns an error message for a failed or short IO.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn complete(
        &mut self,
        meta: &SlotMeta,
        result: i64,
        done_ns: u64,
        inline: bool,
        sink: &mut impl FnMut(&IntervalBucket),
    ) -> Result<(), String> {
        if result != meta.len as i64 {
            let (path, _, _) = &self.plan.files[meta.file as usize];
            let what = if meta.op_is_read { "read" } else { "write" };
            return Err(if result < 0 {
                format!(
                    "{what} of {} bytes at offset {} of {} failed: {}",
                    meta.len,
                    meta.offset,
                    path.display(),
                    std::io::Error::from_raw_os_error(-result as i32)
                )
            } else {
                format!(
                    "short {what}: {result} of {} bytes at offset {} of {}",
                    meta.len,
                    meta.offset,
                    path.display()
                )
            });
        }
        self.completed += 1;
        self.completed_bytes += meta.len as u64;
        if self.measuring {
            let stats = if meta.op_is_read {
                &mut self.out.read
            } else {
                &mut self.out.write
            };
            stats.ios += 1;
            stats.io_bytes += meta.len as u64;
            let total = done_ns.saturating_sub(meta.issue_ns);
            if inline {
                // Completion and total latency are the same sample for a synchronous IO:
                // record it once; `finish` copies the histogram.
                stats.completion.record(total);
            } else {
                stats
                    .submission
                    .record(meta.submit_ns.saturating_sub(meta.issue_ns));
                stats
                    .completion
                    .record(done_ns.saturating_sub(meta.submit_ns));
                stats.total.record(total);
            }
            self.series
                .record(meta.op_is_read, meta.len as u64, 1, total);
            let _ = sink;
        }
        if !meta.op_is_read {
            self.writes_since_sync += 1;
        }
        Ok(())
    }

    fn maybe_sync<E: Engine>(&mut self, engine: &mut E) -> Result<(), String> {
        let every = if self.plan.fsync_every > 0 {
            self.plan.fsync_every
        } else {
            self.plan.fdatasync_every
        };
        if every == 0 || self.writes_since_sync < every {
            return Ok(());
        }
        self.writes_since_sync = 0;
        let data_only = self.plan.fsync_every == 0;
        self.sync_all(engine, data_only)
    }

    fn sync_all<E: Engine>(&mut self, engine: &mut E, data_only: bool) -> Result<(), String> {
        for file in 0..self.plan.files.len() as u32 {
            engine.sync_file(file, data_only).map_err(|e| {
                format!(
                    "sync of {} failed: {e}",
                    self.plan.files[file as usize].0.display()
                )
            })?;
            self.out.syncs += 1;
        }
        Ok(())
    }

    #[inline]
    fn publish_progress(&self) {
        self.shared
            .progress
            .ios
            .store(self.completed, Ordering::Relaxed);
        self.shared
            .progress
            .bytes
            .store(self.completed_bytes, Ordering::Relaxed);
    }

    fn finish<E: Engine>(&mut self, engine: &mut E, end_ns: u64) -> CloneOutput {
        self.publish_progress();
        if E::INLINE {
            self.out.read.total = self.out.read.completion.clone();
            self.out.write.total = self.out.write.completion.clone();
        }
        if self.measuring {
            self.out.runtime_ns = end_ns.saturating_sub(self.measure_start);
            let cpu = thread_cpu();
            self.out.usr_ns = cpu.0.saturating_sub(self.cpu_start.0);
            self.out.sys_ns = cpu.1.saturating_sub(self.cpu_start.1);
            self.out.context_switches = cpu.2.saturating_sub(self.cpu_start.2);
            let series = self.shared.series;
            let mut sink = |b: &IntervalBucket| series.lock().expect("series lock").add(b);
            self.series.finish(self.out.runtime_ns, &mut sink);
        }
        if self.plan.end_fsync && self.out.error.is_none() {
            if let Err(e) = self.sync_all(engine, false) {
                self.out.error = Some(e);
            }
        }
        std::mem::take(&mut self.out)
    }
}

/// Runs one clone to its end (size done, runtime over, Ctrl-C or an IO error).
pub fn run_clone<E: Engine, C: Clock>(
    engine: &mut E,
    clock: &C,
    plan: &ClonePlan,
    shared: &CloneShared<'_>,
) -> CloneOutput {
    let mut run = Run::new(plan, shared, clock);
    run.start();
    let series_lock = shared.series;
    let mut sink = |b: &IntervalBucket| series_lock.lock().expect("series lock").add(b);
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
    let stop = run.shared.stop;
    let mut now = clock.now_ns();
    let mut since_publish = 0u32;
    loop {
        if stop.load(Ordering::Relaxed) {
            run.out.interrupted = true;
            break;
        }
        if run.deadline.is_some_and(|d| now >= d) || !run.budget_left() {
            break;
        }
        if !run.measuring && now >= run.ramp_end {
            run.begin_measuring(now);
        }
        let op = run.choose_op();
        let len = run.plan.sizes.pick(op, &mut run.rng);
        let mut issue_ns = now;
        if let Some(due) = run.due_ns(op) {
            if due > now {
                if run.deadline.is_some_and(|d| due >= d) {
                    clock.sleep_until(run.deadline.unwrap_or(due));
                    now = clock.now_ns();
                    break;
                }
                clock.sleep_until(due);
                // Latency counts from when the IO was due, not from before the wait.
                issue_ns = clock.now_ns();
            }
        }
        let (file, offset) = run.offsets.next(len, &mut run.rng);
        run.note_issue(op, len);
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
        };
        if run.measuring {
            run.series.advance(now - run.measure_start, sink);
        }
        if let Err(e) = run.complete(&meta, result, now, true, sink) {
            run.out.error = Some(e);
            break;
        }
        if let Err(e) = run.maybe_sync(engine) {
            run.out.error = Some(e);
            break;
        }
        since_publish += 1;
        if since_publish == 256 {
            since_publish = 0;
            run.publish_progress();
        }
    }
    run.finish(engine, now)
}

/// The loop state that accounting completions touches.
struct Reaped<'a> {
    done_ns: u64,
    free: &'a mut Vec<u32>,
    meta: &'a [SlotMeta],
    inflight: &'a mut usize,
    issuing: &'a mut bool,
}

/// Accounts every completion in `completions` at `done_ns` and frees their slots.
fn absorb<C: Clock>(
    run: &mut Run<'_, C>,
    completions: &mut Vec<Completion>,
    reaped: Reaped<'_>,
    sink: &mut impl FnMut(&IntervalBucket),
) {
    if run.measuring {
        run.series
            .advance(reaped.done_ns.saturating_sub(run.measure_start), sink);
    }
    for c in completions.drain(..) {
        *reaped.inflight -= 1;
        reaped.free.push(c.slot);
        let m = reaped.meta[c.slot as usize];
        if let Err(e) = run.complete(&m, c.result, reaped.done_ns, false, sink) {
            if run.out.error.is_none() {
                run.out.error = Some(e);
            }
            *reaped.issuing = false;
        }
    }
}

/// Hands the IOs queued in `batch` to the kernel: they count as in flight and their submit
/// time is stamped (latency from submit starts there). A failed submit is recorded and stops
/// issuing. Returns the submit time.
fn submit<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    batch: &mut Vec<u32>,
    meta: &mut [SlotMeta],
    inflight: &mut usize,
    issuing: &mut bool,
) -> u64 {
    if let Err(e) = engine.submit() {
        run.out.error = Some(format!("io_uring submit failed: {e}"));
        *issuing = false;
    }
    let submitted = run.clock.now_ns();
    *inflight += batch.len();
    for slot in batch.drain(..) {
        meta[slot as usize].submit_ns = submitted;
    }
    submitted
}

fn run_queued<E: Engine, C: Clock>(
    run: &mut Run<'_, C>,
    engine: &mut E,
    sink: &mut impl FnMut(&IntervalBucket),
) -> CloneOutput {
    let clock = run.clock;
    let stop = run.shared.stop;
    let depth = run.plan.depth.max(1) as usize;
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    let mut meta = vec![SlotMeta::default(); depth];
    let mut batch: Vec<u32> = Vec::with_capacity(depth);
    let submit_batch = run.plan.submit_batch.clamp(1, depth);
    let mut completions: Vec<Completion> = Vec::with_capacity(depth);
    let mut inflight = 0usize;
    let mut issuing = true;
    let mut pending: Option<(Op, u32)> = None;
    let mut last_done = clock.now_ns();
    loop {
        let now = clock.now_ns();
        if issuing {
            if stop.load(Ordering::Relaxed) {
                run.out.interrupted = true;
                issuing = false;
            } else if run.deadline.is_some_and(|d| now >= d) || !run.budget_left() {
                issuing = false;
            }
        }
        if !run.measuring && now >= run.ramp_end {
            run.begin_measuring(now);
        }
        let mut wait_until = None;
        // Issue time of the IOs being queued; moves on after each submitted sub-batch.
        let mut now = now;
        if issuing {
            while let Some(&slot) = free.last() {
                if !run.budget_left() {
                    issuing = false;
                    break;
                }
                let (op, len) = match pending.take() {
                    Some(p) => p,
                    None => {
                        let op = run.choose_op();
                        (op, run.plan.sizes.pick(op, &mut run.rng))
                    }
                };
                if let Some(due) = run.due_ns(op) {
                    if due > now {
                        pending = Some((op, len));
                        wait_until = Some(due);
                        break;
                    }
                }
                free.pop();
                let (file, offset) = run.offsets.next(len, &mut run.rng);
                run.note_issue(op, len);
                engine.queue(slot, op, file, offset, len);
                meta[slot as usize] = SlotMeta {
                    op_is_read: op == Op::Read,
                    len,
                    file,
                    offset,
                    issue_ns: now,
                    submit_ns: now,
                };
                batch.push(slot);
                if batch.len() >= submit_batch {
                    // Hand this sub-batch to the kernel now: a device starts on the first IO
                    // sooner, instead of waiting for the whole refill to be prepared.
                    now = submit(
                        run,
                        engine,
                        &mut batch,
                        &mut meta,
                        &mut inflight,
                        &mut issuing,
                    );
                    if !issuing {
                        break;
                    }
                    // A submit call that blocked on a saturated device queue leaves
                    // completions behind it: take them now, so their slots are refilled in
                    // this pass instead of idling until it ends. (No syscall: a CQ peek.)
                    if engine.reap(0, &mut completions).is_ok() && !completions.is_empty() {
                        last_done = now;
                        let reaped = Reaped {
                            done_ns: now,
                            free: &mut free,
                            meta: &meta,
                            inflight: &mut inflight,
                            issuing: &mut issuing,
                        };
                        absorb(run, &mut completions, reaped, sink);
                        if !issuing {
                            break;
                        }
                    }
                }
            }
        }
        if !batch.is_empty() {
            submit(
                run,
                engine,
                &mut batch,
                &mut meta,
                &mut inflight,
                &mut issuing,
            );
        }
        if inflight == 0 {
            match wait_until {
                Some(due) if issuing => {
                    if run.deadline.is_some_and(|d| due >= d) {
                        clock.sleep_until(run.deadline.unwrap_or(due));
                        last_done = clock.now_ns();
                        issuing = false;
                        continue;
                    }
                    clock.sleep_until(due);
                    continue;
                }
                _ if issuing => continue,
                _ => break,
            }
        }
        // A rate-limited IO is due later: look at completions without blocking, then sleep
        // until it is due. Otherwise block for at least one completion.
        let min_complete = if wait_until.is_some() { 0 } else { 1 };
        if let Err(e) = engine.reap(min_complete, &mut completions) {
            run.out.error = Some(format!("io_uring wait failed: {e}"));
            break;
        }
        if completions.is_empty() {
            if let Some(due) = wait_until {
                clock.sleep_until(due);
            }
            continue;
        }
        let done = clock.now_ns();
        last_done = done;
        let reaped = Reaped {
            done_ns: done,
            free: &mut free,
            meta: &meta,
            inflight: &mut inflight,
            issuing: &mut issuing,
        };
        absorb(run, &mut completions, reaped, sink);
        if let Err(e) = run.maybe_sync(engine) {
            run.out.error = Some(e);
            issuing = false;
        }
        run.publish_progress();
    }
    run.finish(engine, last_done)
}
