//! What a clone's writes hold and how its reads are checked: fio `verify=` / vdbench
//! `validate=yes` (through `iofit_blockdata::verifier`) and buffer content (compressible,
//! deduplicable, patterns). The worker calls [`DataState::before_io`] before an IO is handed
//! to the engine and [`DataState::after_io`] after it completed; the verify phase and the
//! backlog checks read units back through the same engine, counted as reads.

use crate::clock::Clock;
use crate::engine::{Completion, Engine, Op};
use crate::worker::{CloneOutput, ClonePlan, Run, SlotMeta, POLL_NS};
use crate::EngineError;
use iofit_blockdata::content::ContentFiller;
use iofit_blockdata::verifier::Verifier;
use iofit_model::data::DataSpec;
use iofit_model::job::{BlockSizeSpec, Direction, JobSpec};
use iofit_stats::{DataError, VerifyResult};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// A clone's data settings, resolved by the runner.
#[derive(Clone, Debug, Default)]
pub struct DataPlan {
    pub spec: DataSpec,
    /// Bytes per verified unit (verify_interval, else the write block size).
    pub unit_bytes: u64,
    /// The write block size (content's dedupe unit for fio).
    pub write_bytes: u64,
    /// Every write has that one size (the verify phase reads back in it).
    pub fixed_write: bool,
    /// The job writes (else there is nothing to verify after it).
    pub has_writes: bool,
    /// The seed in every header: from the job's seed and the clone, not the job's place in
    /// the file, so a later run (verify_only) expects the same.
    pub verify_seed: u64,
    /// `verify_state_save`/`_load` file of this clone.
    pub state_path: Option<PathBuf>,
    /// fio `dedupe_global`: the contents shared with the other jobs that set it.
    pub shared_dedupe: Option<std::sync::Arc<iofit_blockdata::content::SharedDedupe>>,
    /// `--allow-overwrite`: the verify state may replace a file iofit did not write.
    pub allow_overwrite: bool,
}

impl DataPlan {
    pub fn verify_only(&self) -> bool {
        self.spec.verify.mode.is_on() && self.spec.verify.only
    }
}

pub(crate) struct VerifyState {
    verifier: Verifier,
    /// `verify_backlog` and `verify_backlog_batch` (`None`: every unit written since the
    /// last check, which may be a few more than `backlog` when IOs were in flight).
    backlog: Option<u64>,
    batch: Option<u64>,
    /// Where the generations go after the run (`verify_state_save`).
    save_to: Option<PathBuf>,
    seed: u64,
    /// `--allow-overwrite`: the state may replace a file iofit did not write.
    allow_overwrite: bool,
    /// Units of the last writes, for `verify_backlog`.
    recent: VecDeque<(u32, u64)>,
    writes_since_backlog: u64,
    setup_error: Option<String>,
}

/// The clone's data state.
pub(crate) enum DataState {
    /// fio's default buffer as laid out once: nothing per IO.
    Idle,
    Fill(Box<ContentFiller>),
    Verify(Box<VerifyState>),
}

impl DataState {
    pub(crate) fn new(plan: &ClonePlan) -> DataState {
        let data = &plan.data;
        let regions: Vec<(u64, u64)> = plan.files.iter().map(|f| (f.1, f.2)).collect();
        if data.spec.verify.mode.is_on() {
            let paths: Vec<PathBuf> = plan.files.iter().map(|f| f.0.clone()).collect();
            let (verifier, mut setup_error) = match Verifier::new(
                &data.spec.verify,
                data.unit_bytes,
                &regions,
                data.verify_seed,
                plan.depth as usize,
                &paths,
            ) {
                Ok(v) => (v, None),
                Err(e) => return DataState::failed(e.to_string()),
            };
            let mut verifier = verifier;
            if !data.has_writes {
                verifier.check_on_disk();
            }
            if let (Some(_), Some(path)) = (&data.spec.verify.state_load, &data.state_path) {
                let first_of_several = data.spec.verify.state_save.is_some() && !path.exists();
                if !first_of_several {
                    if let Err(e) = verifier.generations_mut().load(path, data.verify_seed) {
                        setup_error = Some(e.to_string());
                    }
                }
            }
            let backlog = data.spec.verify.backlog.filter(|&n| n > 0);
            return DataState::Verify(Box::new(VerifyState {
                verifier,
                backlog,
                batch: data.spec.verify.backlog_batch,
                save_to: data
                    .spec
                    .verify
                    .state_save
                    .as_ref()
                    .and(data.state_path.clone()),
                seed: data.verify_seed,
                allow_overwrite: data.allow_overwrite,
                recent: VecDeque::new(),
                writes_since_backlog: 0,
                setup_error,
            }));
        }
        let mut filler =
            ContentFiller::new(&data.spec.content, plan.seed, &regions, data.write_bytes);
        if let Some(shared) = &data.shared_dedupe {
            filler = filler.with_shared(std::sync::Arc::clone(shared));
        }
        if filler.active() && data.has_writes {
            DataState::Fill(Box::new(filler))
        } else {
            DataState::Idle
        }
    }

    fn failed(message: String) -> DataState {
        let verifier = Verifier::new(&Default::default(), 1, &[], 0, 1, &[])
            .expect("verify=none always has a layout");
        DataState::Verify(Box::new(VerifyState {
            verifier,
            backlog: None,
            batch: None,
            save_to: None,
            seed: 0,
            allow_overwrite: false,
            recent: VecDeque::new(),
            writes_since_backlog: 0,
            setup_error: Some(message),
        }))
    }

    pub(crate) fn take_setup_error(&mut self) -> Option<String> {
        match self {
            DataState::Verify(v) => v.setup_error.take(),
            _ => None,
        }
    }

    /// Before `op` is handed to the engine in `slot`: fills a write's buffer, notes a read.
    #[inline]
    pub(crate) fn before_io<E: Engine>(
        &mut self,
        engine: &mut E,
        slot: u32,
        op: Op,
        file: u32,
        offset: u64,
        len: u32,
    ) {
        match (self, op) {
            // A trim moves no data; in trimwrite the write after it records the block anew.
            (DataState::Idle, _) | (DataState::Fill(_) | DataState::Verify(_), Op::Trim) => {}
            (DataState::Fill(_), Op::Read) => {}
            (DataState::Fill(filler), Op::Write) => {
                // SAFETY: the slot is not queued yet, so no IO is in flight on it.
                if let Some(buf) = unsafe { engine.slot_buffer(slot, len) } {
                    filler.fill(buf, file, offset);
                }
            }
            (DataState::Verify(v), Op::Write) => {
                // SAFETY: as above.
                match unsafe { engine.slot_buffer(slot, len) } {
                    Some(buf) => v.verifier.fill_write(buf, file, offset),
                    // The null engine: nothing to fill, the units still count as written.
                    None => v.verifier.note_write(file, offset, len as usize),
                }
            }
            (DataState::Verify(v), Op::Read) => {
                v.verifier.read_issued(slot, file, offset, len as usize)
            }
        }
    }

    /// After the IO in `slot` completed in full: checks a read, records a write.
    #[inline]
    pub(crate) fn after_io<E: Engine>(&mut self, engine: &mut E, slot: u32, meta: &SlotMeta) {
        let DataState::Verify(v) = self else { return };
        if meta.trim {
            return;
        }
        if meta.op_is_read {
            // SAFETY: the IO was reaped, so the kernel is done with the slot.
            if let Some(buf) = unsafe { engine.slot_buffer(slot, meta.len) } {
                v.verifier.read_done(slot, buf, meta.file, meta.offset);
            }
        } else {
            v.verifier
                .write_done(meta.file, meta.offset, meta.len as usize);
            if v.backlog.is_some() {
                let unit = v.verifier.unit_bytes();
                for i in 0..meta.len as u64 / unit {
                    v.recent.push_back((meta.file, meta.offset + i * unit));
                }
                v.writes_since_backlog += 1;
            }
        }
    }

    pub(crate) fn backlog_due(&self) -> bool {
        match self {
            DataState::Verify(v) => v.backlog.is_some_and(|n| v.writes_since_backlog >= n),
            _ => false,
        }
    }

    pub(crate) fn limit_reached(&self) -> bool {
        matches!(self, DataState::Verify(v) if v.verifier.limit_reached())
    }

    pub(crate) fn save_state(&self) -> Result<(), crate::error::LogError> {
        let DataState::Verify(v) = self else {
            return Ok(());
        };
        match &v.save_to {
            Some(path) => v
                .verifier
                .generations()
                .save(path, v.seed, v.allow_overwrite)
                .map_err(crate::error::LogError::from),
            None => Ok(()),
        }
    }

    /// The verify findings for the result, file indexes turned into names.
    pub(crate) fn result(&self, plan: &ClonePlan) -> Option<VerifyResult> {
        let DataState::Verify(v) = self else {
            return None;
        };
        let verifier = &v.verifier;
        Some(VerifyResult {
            mode: format!("{:?}", plan.data.spec.verify.mode).to_lowercase(),
            units_checked: verifier.checked_units,
            bad_units: verifier.bad_count,
            errors: verifier
                .bad
                .iter()
                .map(|bad| DataError {
                    file: plan
                        .files
                        .get(bad.file as usize)
                        .map(|f| f.0.display().to_string())
                        .unwrap_or_default(),
                    offset: bad.offset,
                    length: bad.length,
                    kind: bad.mismatch.kind.name().to_string(),
                    expected: bad.mismatch.expected.clone(),
                    found: bad.mismatch.found.clone(),
                })
                .collect(),
        })
    }
}

/// `verify_backlog`: reads back the units of the last writes (nothing is in flight).
pub(crate) fn check_backlog<E: Engine, C: Clock>(run: &mut Run<'_, C>, engine: &mut E) {
    let units: Vec<(u32, u64)> = match &mut run.data {
        DataState::Verify(v) => {
            v.writes_since_backlog = 0;
            let skip = match v.batch {
                Some(batch) => v.recent.len().saturating_sub(batch as usize),
                None => 0,
            };
            v.recent.drain(..).skip(skip).collect()
        }
        _ => return,
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
    match &run.data {
        // With verify_backlog every write is read back once, in batches as the job goes; as
        // in fio, the end only reads back the writes since the last batch (no second pass).
        DataState::Verify(v) if v.backlog.is_some() => {
            if v.writes_since_backlog > 0 && run.out.error.is_none() && !run.out.interrupted {
                check_backlog(run, engine);
                return run.clock.now_ns();
            }
            return now;
        }
        DataState::Verify(v)
            if run.plan.data.spec.verify.do_verify
                && run.plan.data.has_writes
                && run.out.error.is_none()
                && !run.out.interrupted
                && !v.verifier.limit_reached() => {}
        _ => return now,
    };
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
        run.out.verify_phase_ns = end.saturating_sub(start.max(run.measure_start));
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
            if let DataState::Verify(v) = &mut run.data {
                let unit = v.verifier.unit_bytes();
                for i in 0..len as u64 / unit {
                    let gens = v.verifier.generations_mut();
                    gens.begin_write(file, offset + i * unit);
                    gens.end_write(file, offset + i * unit);
                }
            }
        }
    }
}

/// Reads `units` back (unit-sized reads, all slots in use) and checks each. Counted as reads.
/// Stops on an IO error, a stop, or the job's error limit. Nothing may be in flight.
/// The units a check reads back: a list (the backlog's last writes), or every written unit
/// in file and offset order, walked in the generation table (no list for the verify phase).
enum Units {
    List(std::vec::IntoIter<(u32, u64)>),
    Written {
        file: u32,
        offset: u64,
    },
    /// Every unit of the regions, written or not.
    All {
        file: u32,
        offset: u64,
    },
}

impl Units {
    fn next(&mut self, data: &DataState) -> Option<(u32, u64)> {
        match self {
            Units::List(list) => list.next(),
            Units::Written { file, offset } => {
                let DataState::Verify(v) = data else {
                    return None;
                };
                let found = v.verifier.generations().next_written(*file, *offset)?;
                *file = found.0;
                *offset = found.1 + v.verifier.unit_bytes();
                Some(found)
            }
            Units::All { file, offset } => {
                let DataState::Verify(v) = data else {
                    return None;
                };
                let found = v.verifier.generations().next_unit(*file, *offset)?;
                *file = found.0;
                *offset = found.1 + v.verifier.unit_bytes();
                Some(found)
            }
        }
    }
}

fn check_units<E: Engine, C: Clock>(run: &mut Run<'_, C>, engine: &mut E, mut units: Units) {
    let unit = match &run.data {
        DataState::Verify(v) => v.verifier.unit_bytes(),
        _ => return,
    };
    // Read back in the size the blocks were written in (as fio does), each read checking
    // every unit in it; unit by unit when the writes had several sizes.
    let write = run.plan.data.write_bytes;
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
            if let DataState::Verify(v) = &mut run.data {
                // SAFETY: the read was reaped (or ran inline): the kernel is done with the slot.
                if let Some(buf) = unsafe { engine.slot_buffer(c.slot, m.len) } {
                    v.verifier.check_written(buf, m.file, m.offset);
                }
            }
        }
        run.publish_progress();
    }
}

/// Adds one clone's verify findings to a result's.
pub(crate) fn merge_verify(into: &mut Option<VerifyResult>, found: VerifyResult) {
    match into {
        None => *into = Some(found),
        Some(r) => {
            r.units_checked += found.units_checked;
            r.bad_units += found.bad_units;
            let room = iofit_blockdata::verifier::KEEP_BAD.saturating_sub(r.errors.len());
            r.errors.extend(found.errors.into_iter().take(room));
        }
    }
}

/// The write block size when it is one size, else `None`.
fn fixed_write_bytes(job: &JobSpec) -> Option<u64> {
    match &job.block_size {
        BlockSizeSpec::Fixed(sizes) => Some(sizes.write.as_u64()),
        BlockSizeSpec::Split { write, read } => {
            let shares = if write.is_empty() { read } else { write };
            let first = shares.first()?.size;
            shares
                .iter()
                .all(|s| s.size == first)
                .then(|| first.as_u64())
        }
    }
}

/// Refuses data settings the engine cannot honour, before anything runs.
pub(crate) fn check_job(job: &JobSpec) -> Result<(), EngineError> {
    let verify = &job.data.verify;
    if !verify.mode.is_on() {
        return Ok(());
    }
    // ioengine=null moves no data: its reads are issued and counted, and nothing is checked
    // (fio's verify.c: a FIO_FAKEIO engine "pretends we verified everything"); the null
    // engine hands out no buffers, so the verifier never sees one.
    if job.numjobs > 1 && matches!(job.target, iofit_model::job::Target::Files(_)) {
        return Err(EngineError::invalid(
            &job.name,
            "verify with numjobs above 1 on filename=: every clone would take the others' writes for corruption; use directory= (a file per clone) or numjobs=1 with a deeper iodepth",
        ));
    }
    let unit = verify_unit(job);
    let sizes: Vec<u64> = match &job.block_size {
        BlockSizeSpec::Fixed(s) => vec![s.write.as_u64(), s.read.as_u64()],
        BlockSizeSpec::Split { read, write } => {
            read.iter().chain(write).map(|s| s.size.as_u64()).collect()
        }
    };
    if unit == 0 || sizes.iter().any(|s| s % unit != 0) {
        return Err(EngineError::invalid(
            &job.name,
            format!("verify_interval={unit} must divide every block size ({sizes:?}); pick a divisor such as 4k or 512"),
        ));
    }
    if let Some(align) = job.block_align {
        if align.as_u64() % unit != 0 {
            return Err(EngineError::invalid(
                &job.name,
                "blockalign must be a multiple of the verify unit (verify_interval or bs)",
            ));
        }
    }
    if job.seq_add_bytes % unit as i64 != 0 {
        return Err(EngineError::invalid(
            &job.name,
            "rw=MODE:N with verify needs N a multiple of the verify unit",
        ));
    }
    iofit_blockdata::verify::Layout::new(
        verify.mode,
        unit as usize,
        verify.header_offset_bytes as usize,
    )
    .map_err(|e| EngineError::invalid(&job.name, e.to_string()))?;
    if verify.mode == iofit_model::data::VerifyMode::Pattern && verify.pattern.is_empty() {
        return Err(EngineError::invalid(
            &job.name,
            "verify=pattern needs verify_pattern= (for example verify_pattern=0xdeadbeef)",
        ));
    }
    if verify.only && verify.state_load.is_none() && job.time_based {
        return Err(EngineError::invalid(
            &job.name,
            "verify_only with time_based cannot replay the writes; add verify_state_load=1 (and verify_state_save=1 on the writing run) or drop time_based",
        ));
    }
    Ok(())
}

/// (smallest, largest) block size of one direction (fio's `min_bs`/`max_bs`).
fn size_range(job: &JobSpec, direction: Direction) -> (u64, u64) {
    let sizes: Vec<u64> = match &job.block_size {
        BlockSizeSpec::Fixed(s) => vec![s.get(direction).as_u64()],
        BlockSizeSpec::Split { read, write } => {
            let mine = if direction == Direction::Write {
                write
            } else {
                read
            };
            // A direction without its own split uses the other's (as the runner does).
            let shares = if mine.is_empty() {
                read.iter().chain(write)
            } else {
                mine.iter().chain(&[])
            };
            shares.map(|s| s.size.as_u64()).collect()
        }
    };
    let min = sizes.iter().copied().min().unwrap_or(4096);
    let max = sizes.iter().copied().max().unwrap_or(4096);
    (min, max)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Bytes per verified unit, as fio 3.33's `fixup_options` (init.c) settles `verify_interval`:
/// unset with several write sizes, the smallest write size; never above the smallest write
/// (or, in a job that reads, read) size; and when it does not divide both the smallest and the
/// largest write size, their greatest common divisor. Unset with one size: that size.
pub(crate) fn verify_unit(job: &JobSpec) -> u64 {
    let (min_write, max_write) = size_range(job, Direction::Write);
    let (min_read, _) = size_range(job, Direction::Read);
    let mut unit = job.data.verify.interval_bytes.unwrap_or(0);
    if max_write != min_write && unit == 0 {
        unit = min_write;
    }
    if unit > min_write {
        unit = min_write;
    } else if job.rw.has_reads() && unit > min_read {
        unit = min_read;
    }
    if unit == 0 || min_write % unit != 0 || max_write % unit != 0 {
        unit = gcd(min_write, max_write);
    }
    unit.max(1)
}

/// The clone's data plan.
pub(crate) fn data_plan(job: &JobSpec, clone: u32) -> Result<DataPlan, EngineError> {
    let verify = &job.data.verify;
    let dir = verify.state_save.as_ref().or(verify.state_load.as_ref());
    Ok(DataPlan {
        spec: job.data.clone(),
        unit_bytes: verify_unit(job),
        write_bytes: job.block_size.mean_size(Direction::Write).as_u64().max(1),
        fixed_write: fixed_write_bytes(job).is_some(),
        has_writes: job.rw.has_writes() && job.rwmix_read_pct < 100.0,
        verify_seed: iofit_blockdata::random::key(&[job.random_seed, clone as u64]),
        state_path: dir.map(|d| {
            let stem = verify.state_name.as_deref().unwrap_or(&job.name);
            d.join(format!("{stem}-{clone}-verify.state"))
        }),
        // Set by the runner, which sees every job (runner::share_dedupe).
        shared_dedupe: None,
        // Set by the runner with the run's options (runner::check_verify_states).
        allow_overwrite: false,
    })
}
