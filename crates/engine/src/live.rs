//! A run's results so far, readable from any thread while the runner works: what a stop bound
//! prints when the process must end before the runner has summed up (a CPU so loaded that the
//! runner's thread does not get its turn, a disk that holds the results' write).
//!
//! The runner keeps it current at the few moments that change it (a set starts, a clone's
//! output is taken, a result is finished); running clones publish a snapshot of their
//! counters and histograms themselves the moment they see the stop, so a snapshot holds
//! whole IOs: bytes = IOs x block size, histogram count = completions.

use crate::run_report::{engine_used, RunReport};
use crate::worker::ProgressCell;
use iofit_model::job::JobSpec;
use iofit_model::units::Nanos;
use iofit_stats::{DirectionStats, JobResult, RunResult};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

/// Shared between the runner (writer) and whoever may need the results before it returns.
#[derive(Default)]
pub struct LiveResults {
    state: Mutex<Option<LiveRun>>,
}

impl std::fmt::Debug for LiveResults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LiveResults")
    }
}

struct LiveRun {
    /// The run's header (tool, host, time); `jobs` empty.
    header: RunResult,
    slots: Vec<LiveSlot>,
    /// The running set: its clones' cells, the slot each reports into, and whether the
    /// runner has taken the clone's output into that slot (then the cell no longer counts).
    cells: Arc<Vec<ProgressCell>>,
    cell_slots: Vec<usize>,
    absorbed: Vec<bool>,
}

struct LiveSlot {
    job_index: usize,
    /// The result's fixed fields (name, group, engine, seed...), numbers empty.
    template: JobResult,
    /// What the clones taken into the slot so far measured, with their longest runtime.
    base: Option<Sums>,
    finished: Option<JobResult>,
}

/// One slot's fixed fields, for [`LiveResults::begin`].
pub(crate) struct SlotTemplate {
    pub job_index: usize,
    pub name: String,
    pub group_id: u32,
    pub clones: u32,
    pub seed: u64,
}

impl LiveResults {
    fn lock(&self) -> MutexGuard<'_, Option<LiveRun>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets the last run: until the next one begins, [`LiveResults::interrupted_report`]
    /// is None (a procedure that runs one run after another must not take the last run's
    /// results for the next one's).
    pub fn clear(&self) {
        *self.lock() = None;
    }

    /// The run starts: its header and one entry per result slot.
    pub(crate) fn begin(&self, header: &RunResult, jobs: &[JobSpec], slots: Vec<SlotTemplate>) {
        let slots = slots
            .into_iter()
            .map(|s| {
                let job = &jobs[s.job_index];
                LiveSlot {
                    job_index: s.job_index,
                    template: JobResult {
                        name: s.name,
                        group_id: s.group_id,
                        clones: s.clones,
                        engine_requested: Some(job.engine),
                        engine_used: Some(engine_used(job.engine)),
                        rw: Some(job.rw),
                        iodepth: job.effective_iodepth(),
                        random_seed: s.seed,
                        ..JobResult::default()
                    },
                    base: None,
                    finished: None,
                }
            })
            .collect();
        *self.lock() = Some(LiveRun {
            header: RunResult {
                jobs: Vec::new(),
                ..header.clone()
            },
            slots,
            cells: Arc::new(Vec::new()),
            cell_slots: Vec::new(),
            absorbed: Vec::new(),
        });
    }

    /// A set of jobs starts: its clones' cells and the slot of each.
    pub(crate) fn start_set(&self, cells: &Arc<Vec<ProgressCell>>, cell_slots: &[usize]) {
        if let Some(run) = self.lock().as_mut() {
            run.cells = Arc::clone(cells);
            run.cell_slots = cell_slots.to_vec();
            run.absorbed = vec![false; cell_slots.len()];
        }
    }

    /// The runner took a clone's output into its slot; `sums` are the slot's sums so far,
    /// made without the lock (the runner's thread may lose the CPU while it holds it). Returns
    /// the sums they replace.
    fn absorbed(&self, cell: usize, slot: usize, sums: Sums) -> Option<Sums> {
        let mut guard = self.lock();
        let run = guard.as_mut()?;
        if let Some(flag) = run.absorbed.get_mut(cell) {
            *flag = true;
        }
        let entry = run.slots.get_mut(slot)?;
        entry.base.replace(sums)
    }

    /// A slot's result is final.
    pub(crate) fn finished(&self, slot: usize, result: &JobResult) {
        let mut guard = self.lock();
        let Some(entry) = guard.as_mut().and_then(|r| r.slots.get_mut(slot)) else {
            return;
        };
        if entry.finished.is_some() {
            return;
        }
        drop(guard);
        // Copied before the lock is taken again (see `absorbed`); only the runner writes.
        let result = Some(result.clone());
        if let Some(entry) = self.lock().as_mut().and_then(|r| r.slots.get_mut(slot)) {
            entry.finished = result;
            entry.base = None;
        }
    }

    /// The report as a stop leaves it: every finished result whole, and each result of the
    /// running set with what its clones had measured when they saw the stop, marked
    /// interrupted. A clone with nothing to show (it had not seen the stop: blocked in the
    /// kernel) is left out, and its result says so. None before the run has begun, or when
    /// the runner holds the results past `deadline` (its thread lost the CPU while it held
    /// them).
    pub fn interrupted_report(&self, deadline: Instant) -> Option<RunReport> {
        let guard = loop {
            match self.state.try_lock() {
                Ok(guard) => break guard,
                Err(TryLockError::Poisoned(e)) => break e.into_inner(),
                Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(TryLockError::WouldBlock) => return None,
            }
        };
        let run = guard.as_ref()?;
        let mut report = RunReport {
            result: run.header.clone(),
            ..RunReport::default()
        };
        for (index, slot) in run.slots.iter().enumerate() {
            let result = match &slot.finished {
                Some(done) => Some(done.clone()),
                None => run.running(index, slot),
            };
            if let Some(result) = result {
                report.result.jobs.push(result);
                report.job_index.push(slot.job_index);
            }
        }
        Some(report)
    }
}

/// A slot's (or one clone's) sums, owned: per direction, and the longest runtime.
#[derive(Default, Clone)]
pub(crate) struct Sums {
    pub read: DirectionStats,
    pub write: DirectionStats,
    pub trim: DirectionStats,
    pub runtime_ns: Nanos<u64>,
}

impl Sums {
    fn merge(&mut self, other: &Sums) {
        self.read.merge(&other.read);
        self.write.merge(&other.write);
        self.trim.merge(&other.trim);
        self.runtime_ns = self.runtime_ns.max(other.runtime_ns);
    }
}

/// The runner's side of the live results: keeps every slot's published sums current at the
/// cost of two merges of one clone's histograms per clone taken in, never a copy of the
/// slot's. Copying whole sums at each clone (fresh histograms of 270 KiB each: page faults,
/// then unmaps) took a third of the system time of a 1024-clone run.
///
/// Per slot it holds the published sums less the clone taken in last (`spare`), and that
/// clone's sums (`last`): the next clone's sums are `spare + last + taken`, made without the
/// lock, and the sums they replace become the next `spare`.
pub(crate) struct LiveFeed {
    slots: Vec<(Sums, Option<Sums>)>,
}

impl LiveFeed {
    pub(crate) fn new(slots: usize) -> LiveFeed {
        LiveFeed {
            slots: (0..slots).map(|_| (Sums::default(), None)).collect(),
        }
    }

    /// The runner took `taken` (one clone's sums, on `cell`) into `slot`.
    pub(crate) fn absorbed(&mut self, live: &LiveResults, cell: usize, slot: usize, taken: Sums) {
        let Some((spare, last)) = self.slots.get_mut(slot) else {
            return;
        };
        let mut next = std::mem::take(spare);
        if let Some(previous) = last.take() {
            next.merge(&previous);
        }
        next.merge(&taken);
        *spare = live.absorbed(cell, slot, next).unwrap_or_default();
        *last = Some(taken);
    }
}

impl LiveRun {
    /// A running slot's numbers from its absorbed clones and its running clones' snapshots;
    /// None for a slot that is not in the running set.
    fn running(&self, index: usize, slot: &LiveSlot) -> Option<JobResult> {
        let mine: Vec<usize> = (0..self.cell_slots.len())
            .filter(|&c| self.cell_slots[c] == index)
            .collect();
        if mine.is_empty() {
            return None;
        }
        let mut sums = slot.base.clone().unwrap_or_default();
        let mut missing = 0u32;
        for c in mine {
            if self.absorbed[c] {
                continue;
            }
            let snapshot = self.cells[c]
                .snapshot
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match snapshot.as_ref() {
                Some(snap) => {
                    sums.read.merge(&snap.read);
                    sums.write.merge(&snap.write);
                    sums.trim.merge(&snap.trim);
                    sums.runtime_ns = sums.runtime_ns.max(snap.runtime_ns);
                }
                None => missing += 1,
            }
        }
        let mut result = JobResult {
            read: sums.read.to_result(sums.runtime_ns.get()),
            write: sums.write.to_result(sums.runtime_ns.get()),
            trim: sums.trim.to_result(sums.runtime_ns.get()),
            interrupted: true,
            ..slot.template.clone()
        };
        if missing > 0 {
            result.error = Some(format!(
                "{missing} clone(s) had not seen the stop when the stop bound ended the run \
                 (blocked in the kernel); their IOs are not in the results"
            ));
        }
        Some(result)
    }
}
