//! Gathering results while a set runs and after: interim status for the observer, each
//! clone's output absorbed into its job's slot, and a finished slot turned into a
//! [`JobResult`].

use super::Observer;

use super::{RunOptions, Slot};
use crate::run_report::{engine_used, RunReport};
use crate::worker::{CloneOutput, ProgressCell};
use iofit_model::job::{BlockSizeSpec, JobSpec};
use iofit_model::units::Nanos;
use iofit_stats::{JobResult, RunResult, SeriesMerger};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The running set's state, for an interim (`--status-interval`) report.
pub(super) struct Interim<'a> {
    pub(super) slots: &'a [Slot],
    pub(super) cells: &'a [ProgressCell],
    pub(super) cell_slots: &'a [usize],
    pub(super) absorbed: &'a [bool],
    pub(super) jobs: &'a [JobSpec],
}

/// Longest the runner waits for the running clones' snapshots; a clone that has not answered
/// by then (in a long thinktime, or a slow IO) is reported with its previous snapshot.
const STATUS_WAIT: Duration = Duration::from_millis(100);

impl Interim<'_> {
    /// The report so far: every finished result, then each running result with what its
    /// finished clones returned plus its running clones' snapshots (a clone that finished but
    /// whose output the runner has not taken yet counts with its last snapshot).
    pub(super) fn report(&self, finished: &RunReport) -> RunReport {
        let generation = |c: &ProgressCell| {
            c.snapshot
                .lock()
                .expect("snapshot lock")
                .as_ref()
                .map_or(0, |s| s.generation)
        };
        let before: Vec<u64> = self.cells.iter().map(generation).collect();
        for c in self.cells.iter() {
            c.snapshot_wanted.store(true, Ordering::Relaxed);
        }
        let asked = Instant::now();
        let waiting = || {
            self.cells
                .iter()
                .zip(&before)
                .zip(self.absorbed)
                .any(|((c, &g), &absorbed)| {
                    !absorbed && !c.finished.load(Ordering::Relaxed) && generation(c) == g
                })
        };
        while waiting() && asked.elapsed() < STATUS_WAIT {
            std::thread::sleep(Duration::from_millis(2));
        }
        let mut report = RunReport {
            result: RunResult {
                jobs: Vec::new(),
                ..finished.result.clone()
            },
            ..RunReport::default()
        };
        for (index, slot) in self.slots.iter().enumerate() {
            let result = match &slot.finished {
                Some(done) => Some(done.clone()),
                None => self.running(index, slot),
            };
            if let Some(result) = result {
                report.result.jobs.push(result);
                report.job_index.push(slot.job_index);
            }
        }
        report
    }

    /// A running slot's measurements so far; None for a slot of another set.
    fn running(&self, index: usize, slot: &Slot) -> Option<JobResult> {
        let mine: Vec<usize> = (0..self.cell_slots.len())
            .filter(|&c| self.cell_slots[c] == index)
            .collect();
        if mine.is_empty() {
            return None;
        }
        let (mut read, mut write, mut runtime_ns) =
            (slot.read.clone(), slot.write.clone(), slot.runtime_ns);
        let mut trim = slot.trim.clone();
        for c in mine {
            let cell = &self.cells[c];
            // An absorbed clone is in the slot's counters already; one that finished but is
            // not absorbed yet counts with its last snapshot.
            if self.absorbed[c] {
                continue;
            }
            if let Some(snap) = cell.snapshot.lock().expect("snapshot lock").as_ref() {
                read.merge(&snap.read);
                write.merge(&snap.write);
                trim.merge(&snap.trim);
                runtime_ns = runtime_ns.max(snap.runtime_ns);
            }
        }
        let job = &self.jobs[slot.job_index];
        Some(JobResult {
            name: slot.name.clone(),
            group_id: slot.group_id,
            clones: slot.clones_expected,
            engine_requested: Some(job.engine),
            engine_used: Some(engine_used(job.engine)),
            rw: Some(job.rw),
            iodepth: job.effective_iodepth(),
            read: read.to_result(runtime_ns.get()),
            write: write.to_result(runtime_ns.get()),
            trim: trim.to_result(runtime_ns.get()),
            random_seed: slot.seed,
            ..JobResult::default()
        })
    }
}

/// How often the observer hears about progress.
pub(super) const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// After a stop, how long the runner waits for clones to report before it reports without
/// them. A clone ends within [`STOP_DRAIN_NS`](crate::worker::STOP_DRAIN_NS) plus the cancel
/// wait and one poll (0.4 s) unless it is blocked in a system call the kernel does not
/// interrupt (an fsync on a stalled disk); this bounds the stop at 0.5 s even then.
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// Each slot's fixed fields, for the live results.
pub(super) fn slot_templates(slots: &[Slot]) -> Vec<crate::live::SlotTemplate> {
    slots
        .iter()
        .map(|s| crate::live::SlotTemplate {
            job_index: s.job_index,
            name: s.name.clone(),
            group_id: s.group_id,
            clones: s.clones_expected,
            seed: s.seed,
        })
        .collect()
}

/// Hands every finished result so far to the observer (and to the live results).
pub(super) fn publish_finished(
    slots: &[Slot],
    report: &mut RunReport,
    observer: &mut dyn Observer,
    options: &RunOptions,
) {
    report.result.jobs.clear();
    report.job_index.clear();
    for (index, s) in slots.iter().enumerate() {
        if let Some(finished) = &s.finished {
            if let Some(live) = &options.live {
                live.finished(index, finished);
            }
            report.result.jobs.push(finished.clone());
            report.job_index.push(s.job_index);
        }
    }
    observer.job_done(report);
}

/// Finishes the results among `indices` whose clones have not all reported, as interrupted
/// and saying how many clones are missing.
pub(super) fn give_up(slots: &mut [Slot], indices: impl Iterator<Item = usize>, jobs: &[JobSpec]) {
    for index in indices {
        let slot = &mut slots[index];
        if slot.finished.is_some() {
            continue;
        }
        let missing = slot.clones_expected - slot.clones_done;
        slot.interrupted = true;
        slot.errors.push(format!(
            "{missing} clone(s) did not stop within {} ms of the stop (blocked in the kernel); their IOs are not in the results",
            STOP_GRACE.as_millis()
        ));
        slot.finished = Some(finish_slot(slot, &jobs[slot.job_index]));
    }
}

/// Takes a clone's output into its slot; returns the clone's sums (for the live results).
pub(super) fn absorb(slot: &mut Slot, output: CloneOutput) -> crate::live::Sums {
    slot.clones_done += 1;
    slot.read.merge(&output.read);
    slot.write.merge(&output.write);
    slot.trim.merge(&output.trim);
    slot.syncs += output.syncs;
    slot.sync_latency.merge(&output.sync_latency);
    slot.runtime_ns = slot.runtime_ns.max(output.runtime_ns);
    if output.verify_phase_ns.get() > 0 {
        let write_phase = Nanos(
            output
                .runtime_ns
                .get()
                .saturating_sub(output.verify_phase_ns.get()),
        );
        slot.write_phase_ns = slot.write_phase_ns.max(write_phase);
        slot.verify_phase_ns = slot.verify_phase_ns.max(output.verify_phase_ns);
    }
    slot.runtime_sum_ns += output.runtime_ns;
    slot.usr_ns += output.usr_ns;
    slot.sys_ns += output.sys_ns;
    slot.ctx += output.context_switches;
    slot.fio.io_depths.merge(&output.io_depths);
    if slot.fio.pid == 0 {
        slot.fio.pid = output.tid;
    }
    let start_epoch_ms = output.start_epoch_ms;
    if slot.fio.start_epoch_ms.get() == 0 || start_epoch_ms < slot.fio.start_epoch_ms {
        slot.fio.start_epoch_ms = start_epoch_ms;
    }
    slot.fio.total_err += output.total_err;
    if slot.fio.first_error == 0 {
        slot.fio.first_error = output.first_error;
    }
    let room = crate::worker::ERROR_LINES.saturating_sub(slot.fio.error_lines.len());
    slot.fio
        .error_lines
        .extend(output.error_lines.into_iter().take(room));
    slot.fio.major_faults += output.major_faults;
    slot.fio.minor_faults += output.minor_faults;
    slot.interrupted |= output.interrupted;
    if let Some(found) = output.verify {
        crate::data::merge_verify(&mut slot.verify, found);
    }
    if let Some(depth) = output.latency_depth {
        slot.latency_depth = Some(slot.latency_depth.map_or(depth, |d| d.min(depth)));
    }
    if let Some(e) = output.error {
        slot.errors.push(e);
    }
    if output.cancelled_ios > 0 {
        let when = if output.interrupted {
            "after the stop"
        } else {
            "after the run's end"
        };
        slot.errors.push(format!(
            "{} IO(s) still in flight {when} were cancelled or abandoned; their latency is not in the results",
            output.cancelled_ios
        ));
    }
    crate::live::Sums {
        read: output.read,
        write: output.write,
        trim: output.trim,
        runtime_ns: output.runtime_ns,
    }
}

pub(super) fn finish_slot(slot: &mut Slot, job: &JobSpec) -> JobResult {
    let series = std::mem::replace(
        &mut slot.series,
        Arc::new(Mutex::new(SeriesMerger::new(1, 1))),
    );
    let series = match Arc::try_unwrap(series) {
        Ok(mutex) => mutex.into_inner().expect("series lock").finish(),
        Err(shared) => {
            let mut guard = shared.lock().expect("series lock");
            std::mem::replace(&mut *guard, SeriesMerger::new(1, 1)).finish()
        }
    };
    let cpu_pct = |ns: Nanos<u64>| {
        if slot.runtime_sum_ns.get() == 0 {
            0.0
        } else {
            ns.get() as f64 * 100.0 / slot.runtime_sum_ns.get() as f64
        }
    };
    // The engine's accounting, stated where it can be checked: with a fixed block size every
    // completed IO moved exactly one block (a replay's IOs are the log's sizes).
    if let BlockSizeSpec::Fixed(sizes) = &job.block_size {
        if !job.group_reporting && job.replay.is_none() {
            debug_assert_eq!(
                slot.read.io_bytes,
                iofit_model::Bytes(slot.read.ios * sizes.read.as_u64())
            );
            debug_assert_eq!(
                slot.write.io_bytes,
                iofit_model::Bytes(slot.write.ios * sizes.write.as_u64())
            );
            debug_assert_eq!(
                slot.trim.io_bytes,
                iofit_model::Bytes(slot.trim.ios * sizes.write.as_u64())
            );
        }
    }
    let mut errors = std::mem::take(&mut slot.errors);
    errors.dedup();
    // A write job with a verify phase: as fio, the writes' runtime is the write phase and the
    // reads' (the verify reads) the verify phase; the job's runtime is both.
    let phases = slot.verify_phase_ns.get() > 0 && !job.rw.has_reads();
    let (read_runtime_ns, write_runtime_ns) = if phases {
        (slot.verify_phase_ns, slot.write_phase_ns)
    } else {
        (slot.runtime_ns, slot.runtime_ns)
    };
    JobResult {
        name: slot.name.clone(),
        group_id: slot.group_id,
        clones: slot.clones_expected,
        engine_requested: Some(job.engine),
        engine_used: Some(engine_used(job.engine)),
        rw: Some(job.rw),
        iodepth: job.effective_iodepth(),
        read: slot.read.to_result(read_runtime_ns.get()),
        write: slot.write.to_result(write_runtime_ns.get()),
        trim: slot.trim.to_result(slot.runtime_ns.get()),
        syncs: slot.syncs,
        sync_latency: slot.sync_latency.summary(),
        series,
        usr_cpu_pct: cpu_pct(slot.usr_ns),
        sys_cpu_pct: cpu_pct(slot.sys_ns),
        context_switches: slot.ctx,
        random_seed: slot.seed,
        error: if errors.is_empty() {
            None
        } else {
            Some(errors.join("; "))
        },
        interrupted: slot.interrupted,
        verify: slot.verify.take(),
        fio: iofit_stats::FioJobExtras {
            bw_measurement_off: job.measurement.disable_bw,
            continue_on_error: job.thread_control.errors.continue_on != 0,
            job_runtime_ns: if phases {
                slot.runtime_ns
            } else {
                iofit_model::units::Nanos(0)
            },
            // fio echoes the latency_target settings asked, whether or not a search ran.
            latency_target: job
                .latency_target
                .as_ref()
                .map(|t| iofit_stats::LatencyTargetResult {
                    target_us: iofit_model::units::Micros(t.target.as_micros() as u64),
                    window_us: iofit_model::units::Micros(t.window.as_micros() as u64),
                    percentile: t.percentile,
                    depth: slot.latency_depth.unwrap_or(job.effective_iodepth()),
                }),
            ..std::mem::take(&mut slot.fio)
        },
        steadystate: None,
        latency_depth_found: slot.latency_depth,
    }
}

pub(super) fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
