//! Running one stonewall set: its byte budget, its clones spawned behind one gate, and the
//! loop that waits for them (interim results, steady state, stop and time-outs).

use super::Observer;

use super::collect::{
    absorb, finish_slot, give_up, publish_finished, Interim, PROGRESS_EVERY, STOP_GRACE,
};
use super::start::{
    cache_hints, lock_layout, open_files, pre_read, setup_failed, spawn_clone, CloneStart,
};
use super::{Progress, RunOptions, Slot};
use crate::error::EngineError;
use crate::layout::Layout;
use crate::run_report::RunReport;
use crate::steadystate::SteadyStateTracker;
use crate::worker::{CloneOutput, ClonePlan, ProgressCell};
use iofit_model::job::JobSpec;
use iofit_model::units::Bytes;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// What every set of a run shares: the jobs, their clones' plans, the slot each clone
/// reports into, the run's options and layout, and its clock origin.
pub(super) struct RunShared<'a> {
    pub(super) jobs: &'a [JobSpec],
    pub(super) plans: &'a [Vec<ClonePlan>],
    pub(super) slot_of: &'a [Vec<usize>],
    pub(super) options: &'a RunOptions,
    pub(super) layout: &'a Arc<Mutex<Layout>>,
    pub(super) origin: Instant,
    pub(super) set_count: usize,
}

/// The run's results as the sets fill them in.
pub(super) struct RunState {
    pub(super) slots: Vec<Slot>,
    pub(super) report: RunReport,
    pub(super) live_feed: crate::live::LiveFeed,
    pub(super) next_status: Option<Instant>,
}

/// The longest planned time of a set's jobs (runtime, ramp and start delay; None when one
/// has no runtime) and the bytes its clones will move (None when one has no budget).
fn set_budget(
    jobs: &[JobSpec],
    plans: &[Vec<ClonePlan>],
    set: &[usize],
) -> (Option<Duration>, Option<Bytes>) {
    let planned = set
        .iter()
        .map(|&j| {
            jobs[j]
                .runtime
                .map(|r| r + jobs[j].ramp_time + jobs[j].start_delay)
        })
        .try_fold(Duration::ZERO, |acc, d| d.map(|d| acc.max(d)));
    let budget_bytes = set
        .iter()
        .flat_map(|&j| {
            let passes = u64::from(crate::each_loop::passes(&jobs[j]).unwrap_or(1));
            plans[j]
                .iter()
                .map(move |p| p.budget_bytes.map(|b| b * passes))
        })
        .try_fold(Bytes::ZERO, |acc, b| b.map(|b| acc + b));
    (planned, budget_bytes)
}

/// Runs one set of jobs (those between two stonewalls) to its end: every clone started at
/// once, results taken as they come, progress and status reported while they run.
pub(super) fn run_set(
    shared: &RunShared<'_>,
    state: &mut RunState,
    set_index: usize,
    set: &[usize],
    observer: &mut dyn Observer,
) -> Result<(), EngineError> {
    let RunShared {
        jobs,
        plans,
        slot_of,
        options,
        set_count,
        ..
    } = *shared;
    let RunState {
        slots,
        report,
        live_feed,
        next_status,
    } = state;
    let (planned, budget_bytes) = set_budget(jobs, plans, set);
    let cells: Arc<Vec<ProgressCell>> = Arc::new(
        (0..set.iter().map(|&j| plans[j].len()).sum::<usize>())
            .map(|_| ProgressCell::default())
            .collect(),
    );
    let (tx, rx) = mpsc::channel::<(usize, usize, CloneOutput)>();
    // One flag per job of the set: set, the job's clones end as when their runtime is
    // over (steady state reached, or another job's exitall).
    let end_flags: Arc<Vec<AtomicBool>> =
        Arc::new(set.iter().map(|_| AtomicBool::new(false)).collect());
    // Per cell: the clone's output was taken into its slot (its snapshot no longer counts).
    let mut absorbed = vec![false; cells.len()];
    // Every clone of the set gets ready, then all start at once (see `gate`).
    let gate = Arc::new(crate::gate::StartGate::new());
    let Spawned {
        mut steady,
        mut handles,
        cell_slots,
        spawned,
    } = spawn_set(shared, slots, set, &cells, &tx, &end_flags, &gate)?;
    let cell = cell_slots.len();
    drop(tx);
    if let Some(live) = &options.live {
        live.start_set(&cells, &cell_slots);
    }
    // Time zero of the set: every clone's runtime, ramp and start delay count from here.
    let set_start = gate.open_when_ready(spawned, &options.stop);
    let mut outstanding = cell;
    let mut stop_seen: Option<Instant> = None;
    while outstanding > 0 {
        if stop_seen.is_none() && options.stop.load(Ordering::Relaxed) {
            stop_seen = Some(Instant::now());
        }
        let wait = match stop_seen {
            Some(seen) => STOP_GRACE.saturating_sub(seen.elapsed()),
            None => PROGRESS_EVERY,
        };
        if wait.is_zero() {
            // A clone blocked in the kernel past the grace: report without it.
            let unfinished = set.iter().flat_map(|&j| slot_of[j].iter().copied());
            give_up(slots, unfinished, jobs);
            publish_finished(slots, report, observer, options);
            // Its thread is left to end on its own; it owns everything it touches.
            handles.clear();
            break;
        }
        sample_steady_state(&mut steady, &cells, &end_flags, set_start);
        // Wake for the next steady-state sample too (at least 1 ms on).
        let next_sample = steady
            .iter()
            .filter(|s| !s.tracker.attained())
            .map(|s| {
                Duration::from_nanos(s.tracker.next_sample_ns())
                    .saturating_sub(set_start.elapsed())
                    .max(Duration::from_millis(1))
            })
            .fold(PROGRESS_EVERY, Duration::min);
        let until_status = next_status.map_or(PROGRESS_EVERY, |at| {
            at.saturating_duration_since(Instant::now())
        });
        match rx.recv_timeout(wait.min(next_sample).min(until_status)) {
            Ok((slot_index, cell_index, output)) => {
                absorbed[cell_index] = true;
                outstanding -= 1;
                let slot = &mut slots[slot_index];
                let taken = absorb(slot, output);
                if let Some(live) = &options.live {
                    live_feed.absorbed(live, cell_index, slot_index, taken);
                }
                if slot.clones_done == slot.clones_expected {
                    let job = &jobs[slot.job_index];
                    let mut result = finish_slot(slot, job);
                    result.steadystate = steady
                        .iter()
                        .find(|s| s.job == slot.job_index)
                        .map(|s| s.tracker.result());
                    slot.finished = Some(result);
                    publish_finished(slots, report, observer, options);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let (ios, bytes) = cells.iter().fold((0, 0), |(i, b), c| {
                    (
                        i + c.ios.load(Ordering::Relaxed),
                        b + c.bytes.load(Ordering::Relaxed),
                    )
                });
                observer.progress(&Progress {
                    set_index,
                    sets: set_count,
                    elapsed: set_start.elapsed(),
                    planned,
                    ios,
                    bytes: Bytes(bytes),
                    budget_bytes,
                });
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        if let (Some(at), Some(every), None) = (*next_status, options.status_interval, stop_seen) {
            if Instant::now() >= at {
                let interim = Interim {
                    slots,
                    cells: &cells,
                    cell_slots: &cell_slots,
                    absorbed: &absorbed,
                    jobs,
                };
                observer.status(&interim.report(report));
                *next_status = Some(at + every);
            }
        }
    }
    for handle in handles {
        if handle.join().is_err() {
            return Err(EngineError::Setup {
                engine: "runner",
                message: "a worker thread panicked".to_string(),
            });
        }
    }
    Ok(())
}

/// A set's clones once started: the steady-state trackers of its jobs, the threads, the
/// slot each progress cell reports into, and how many threads run.
struct Spawned {
    steady: Vec<SteadyJob>,
    handles: Vec<std::thread::JoinHandle<()>>,
    cell_slots: Vec<usize>,
    spawned: usize,
}

/// Opens every clone's files of a set and starts its thread (each waits at `gate`); a clone
/// whose files fail to open reports that at once through `tx`, as do create_only clones.
fn spawn_set(
    shared: &RunShared<'_>,
    slots: &[Slot],
    set: &[usize],
    cells: &Arc<Vec<ProgressCell>>,
    tx: &mpsc::Sender<(usize, usize, CloneOutput)>,
    end_flags: &Arc<Vec<AtomicBool>>,
    gate: &Arc<crate::gate::StartGate>,
) -> Result<Spawned, EngineError> {
    let RunShared {
        jobs,
        plans,
        slot_of,
        options,
        layout,
        origin,
        ..
    } = *shared;
    let mut steady: Vec<SteadyJob> = Vec::new();
    let mut handles = Vec::new();
    let mut cell = 0usize;
    // The slot each progress cell's clone reports into.
    let mut cell_slots: Vec<usize> = Vec::new();
    let mut spawned = 0usize;
    for (position, &j) in set.iter().enumerate() {
        let job = &jobs[j];
        if let Some(spec) = &job.steady_state {
            steady.push(SteadyJob {
                job: j,
                position,
                cells: cell..cell + plans[j].len(),
                tracker: SteadyStateTracker::new(spec, 0),
            });
        }
        for (c, plan) in plans[j].iter().enumerate() {
            let slot = slot_of[j][c];
            let opened = open_files(job, plan, &lock_layout(layout)).and_then(|files| {
                pre_read(job, plan, &files)?;
                cache_hints(job, plan, &files)?;
                Ok(files)
            });
            if job.file_sync.create_only {
                // fio's create_only: the files are laid out; no IO runs or is reported.
                let output = match opened {
                    Ok(_) => CloneOutput::default(),
                    Err(e) => setup_failed(e.to_string()),
                };
                let _ = tx.send((slot, cell, output));
                cell_slots.push(slot);
                cell += 1;
                continue;
            }
            let files = match opened {
                Ok(files) => files,
                Err(e) => {
                    // Tell the loop below this clone is done, with the error.
                    let _ = tx.send((
                        slot,
                        cell,
                        CloneOutput {
                            error: Some(e.to_string()),
                            ..CloneOutput::default()
                        },
                    ));
                    cell_slots.push(slot);
                    cell += 1;
                    continue;
                }
            };
            let plan = plan.clone();
            let tx = tx.clone();
            let stop = Arc::clone(&options.stop);
            let cells = Arc::clone(cells);
            let series = Arc::clone(&slots[slot].series);
            let engine = job.engine;
            // fio numbers threads over every clone of every job, in job order.
            let thread_index = plans[..j].iter().map(Vec::len).sum::<usize>() + c;
            let thread_control = job.thread_control.for_thread(thread_index);
            let uring = job.uring.clone();
            let end_flags = Arc::clone(end_flags);
            let gate_of_set = Arc::clone(gate);
            let clock_choice = options.clock;
            let my_cell = cell;
            let each_loop = crate::each_loop::passes(job).map(|loops| {
                let unlink = crate::each_loop::unlinks_between_loops(job);
                (loops, unlink, Arc::clone(layout), job.clone())
            });
            cell_slots.push(slot);
            cell += 1;
            let start = CloneStart {
                thread_name: format!("{}.{}", job.name, c),
                plan,
                files,
                tx,
                stop,
                cells,
                series,
                engine,
                thread_control,
                uring,
                end_flags,
                gate_of_set,
                clock_choice,
                my_cell,
                each_loop,
                slot,
                position,
                origin,
            };
            handles.push(spawn_clone(start, gate)?);
            spawned += 1;
        }
    }
    Ok(Spawned {
        steady,
        handles,
        cell_slots,
        spawned,
    })
}

/// A job of the running set with a steady-state criterion: its clones' progress cells.
struct SteadyJob {
    job: usize,
    /// Its place in the set (its end flag).
    position: usize,
    cells: std::ops::Range<usize>,
    tracker: SteadyStateTracker,
}

/// Samples every steady-state job that is due (its clones' completed IOs and bytes, summed),
/// and ends the ones that are steady. Times count from the start of the set.
fn sample_steady_state(
    steady: &mut [SteadyJob],
    cells: &[ProgressCell],
    end_flags: &[AtomicBool],
    set_start: Instant,
) {
    let now_ns = set_start.elapsed().as_nanos() as u64;
    for job in steady.iter_mut() {
        if job.tracker.attained() || now_ns < job.tracker.next_sample_ns() {
            continue;
        }
        let (ios, bytes) = cells[job.cells.clone()].iter().fold((0, 0), |(i, b), c| {
            (
                i + c.ios.load(Ordering::Relaxed),
                b + c.bytes.load(Ordering::Relaxed),
            )
        });
        if job.tracker.sample(now_ns, ios, bytes) {
            end_flags[job.position].store(true, Ordering::Relaxed);
        }
    }
}
