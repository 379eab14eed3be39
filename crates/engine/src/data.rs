//! What a clone's writes hold and how its reads are checked: fio `verify=` / vdbench
//! `validate=yes` (through `iofit_blockdata::verifier`) and buffer content (compressible,
//! deduplicable, patterns). The worker calls [`DataState::before_io`] before an IO is handed
//! to the engine and [`DataState::after_io`] after it completed; the verify phase and backlog
//! checks (`crate::read_back`) walk the [`Units`] to read back and check each block with
//! [`DataState::check_written`]. Nothing here knows the worker or the running clone.

use crate::engine::{Engine, Op, SlotMeta};
use crate::EngineError;
use iofit_blockdata::content::ContentFiller;
use iofit_blockdata::verifier::Verifier;
use iofit_model::data::DataSpec;
use iofit_model::job::{BlockSizeSpec, Direction, JobSpec};
use iofit_model::units::Bytes;
use iofit_stats::{DataError, VerifyResult};
use std::collections::VecDeque;
use std::path::PathBuf;

/// A clone's data settings, resolved by the runner.
#[derive(Clone, Debug, Default)]
pub struct DataPlan {
    pub spec: DataSpec,
    /// Bytes per verified unit (verify_interval, else the write block size).
    pub unit_bytes: Bytes,
    /// The write block size (content's dedupe unit for fio).
    pub write_bytes: Bytes,
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
    /// The clone's data state from its plan: its `files` (path, start, length), its queue
    /// `depth` and its content `seed`.
    pub(crate) fn new(
        data: &DataPlan,
        files: &[(PathBuf, u64, u64)],
        depth: u32,
        seed: u64,
    ) -> DataState {
        let regions: Vec<(u64, u64)> = files.iter().map(|f| (f.1, f.2)).collect();
        if data.spec.verify.mode.is_on() {
            let paths: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
            let (verifier, mut setup_error) = match Verifier::new(
                &data.spec.verify,
                data.unit_bytes.as_u64(),
                &regions,
                data.verify_seed,
                depth as usize,
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
        let mut filler = ContentFiller::new(
            &data.spec.content,
            seed,
            &regions,
            data.write_bytes.as_u64(),
        );
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

    /// `verify_backlog`: the units of the last writes to read back (the batch's share of them),
    /// and the count restarts; `None` when the job does not verify.
    pub(crate) fn take_backlog(&mut self) -> Option<Vec<(u32, u64)>> {
        let DataState::Verify(v) = self else {
            return None;
        };
        v.writes_since_backlog = 0;
        let skip = match v.batch {
            Some(batch) => v.recent.len().saturating_sub(batch as usize),
            None => 0,
        };
        Some(v.recent.drain(..).skip(skip).collect())
    }

    /// With `verify_backlog`: whether writes wait to be read back; `None` without a backlog
    /// (or without verify).
    pub(crate) fn backlog_pending(&self) -> Option<bool> {
        match self {
            DataState::Verify(v) if v.backlog.is_some() => Some(v.writes_since_backlog > 0),
            _ => None,
        }
    }

    /// The job verifies what it wrote (it may have been stopped by its error limit since).
    pub(crate) fn verifies(&self) -> bool {
        matches!(self, DataState::Verify(_))
    }

    /// Bytes per verified unit; `None` when the job does not verify.
    pub(crate) fn unit_bytes(&self) -> Option<u64> {
        match self {
            DataState::Verify(v) => Some(v.verifier.unit_bytes()),
            _ => None,
        }
    }

    /// Counts a write of `len` bytes at `offset` as done without doing it (verify_only's
    /// replay of the job's writes): each unit's generation moves on.
    pub(crate) fn count_write(&mut self, file: u32, offset: u64, len: u32) {
        if let DataState::Verify(v) = self {
            let unit = v.verifier.unit_bytes();
            for i in 0..len as u64 / unit {
                let gens = v.verifier.generations_mut();
                gens.begin_write(file, offset + i * unit);
                gens.end_write(file, offset + i * unit);
            }
        }
    }

    /// Checks a block read back after the writes against what was written there.
    pub(crate) fn check_written(&mut self, buf: &[u8], file: u32, offset: u64) {
        if let DataState::Verify(v) = self {
            v.verifier.check_written(buf, file, offset);
        }
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
    pub(crate) fn result(
        &self,
        data: &DataPlan,
        files: &[(PathBuf, u64, u64)],
    ) -> Option<VerifyResult> {
        let DataState::Verify(v) = self else {
            return None;
        };
        let verifier = &v.verifier;
        Some(VerifyResult {
            mode: format!("{:?}", data.spec.verify.mode).to_lowercase(),
            units_checked: verifier.checked_units,
            bad_units: verifier.bad_count,
            errors: verifier
                .bad
                .iter()
                .map(|bad| DataError {
                    file: files
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

/// The units a check reads back: a list (the backlog's last writes), or every written unit
/// in file and offset order, walked in the generation table (no list for the verify phase).
pub(crate) enum Units {
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
    pub(crate) fn next(&mut self, data: &DataState) -> Option<(u32, u64)> {
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
        Bytes(unit),
        verify.header_offset_bytes.as_u64() as usize,
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
    let mut unit = job
        .data
        .verify
        .interval_bytes
        .map_or(0, iofit_model::Bytes::as_u64);
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
        unit_bytes: Bytes(verify_unit(job)),
        write_bytes: job.block_size.mean_size(Direction::Write).max(Bytes(1)),
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
