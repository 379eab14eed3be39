//! Starting one clone: its files opened, pre-read and hinted, its engine (psync, io_uring or
//! null) built and run on its own thread, and a setup failure turned into its output.

use crate::clock::Clock;
use crate::engine::Engine;

use super::ClockChoice;
use crate::buffer::BufferPool;
use crate::clock::{FakeClock, MonotonicClock};
use crate::error::EngineError;
use crate::layout::Layout;
use crate::null::{NullEngine, NullQueue};
use crate::psync::{SyncEngine, SyncFlavor};
use crate::uring::UringEngine;
use crate::worker::{run_clone, CloneOutput, ClonePlan, CloneShared, ProgressCell, SizePicker};
use iofit_model::job::{EngineKind, JobSpec, OpenSync, UringOptions};
use iofit_stats::SeriesMerger;
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Instant;

/// The run's layout; a clone that panicked while holding it left nothing half-changed that
/// the others could not use (a relayout's partial file is its own), so a poisoned lock is taken.
pub(super) fn lock_layout(layout: &Mutex<Layout>) -> std::sync::MutexGuard<'_, Layout> {
    layout
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The clone's files: re-opens of the descriptors checked at layout, never the names again.
pub(super) fn open_files(
    job: &JobSpec,
    plan: &ClonePlan,
    layout: &Layout,
) -> Result<Vec<File>, EngineError> {
    if job.engine == EngineKind::Null {
        return Ok(Vec::new());
    }
    plan.files
        .iter()
        .map(|(path, _, _)| {
            let write = job.rw.has_writes() || crate::layout::modifies_files(job);
            layout.open_for_job_with(path, write, job.direct, sync_flags(job))
        })
        .collect()
}

/// fio's `pre_read`: the clone's region of every file read into the page cache before the
/// job starts, through the job's own (buffered) descriptors. A direct job reads nothing: its
/// IO bypasses the cache (the job's notes say so).
pub(super) fn pre_read(job: &JobSpec, plan: &ClonePlan, files: &[File]) -> Result<(), EngineError> {
    use std::os::unix::fs::FileExt;
    if !job.file_sync.pre_read || job.direct || job.engine == EngineKind::Null {
        return Ok(());
    }
    let mut buffer = vec![0u8; 1 << 20];
    for (file, (path, start, len)) in files.iter().zip(&plan.files) {
        let mut done = 0u64;
        while done < *len {
            let want = (*len - done).min(buffer.len() as u64) as usize;
            match file.read_at(&mut buffer[..want], start + done) {
                Ok(0) => break,
                Ok(n) => done += n as u64,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(EngineError::from_io("pre_read: cannot read", path, e)),
            }
        }
    }
    Ok(())
}

/// fio's `invalidate` and `fadvise_hint`, applied as fio's `td_io_open_file` does at every open:
/// the clone's region of each file is dropped from the page cache (POSIX_FADV_DONTNEED), then
/// the job's access pattern is declared. As in fio, nothing is synced first: clean pages (the
/// layout's, which it fsyncs, or those after an `end_fsync`) are dropped, while dirty pages a
/// previous job left only start their writeback and stay cached. The kernel may also keep
/// pages another process has mapped or locked, which fio cannot drop either.
pub(super) fn cache_hints(
    job: &JobSpec,
    plan: &ClonePlan,
    files: &[File],
) -> Result<(), EngineError> {
    use iofit_model::job::FadviseHint;
    use std::os::fd::AsRawFd;
    if job.engine == EngineKind::Null {
        return Ok(());
    }
    for (file, (path, start, len)) in files.iter().zip(&plan.files) {
        let (offset, length) = (*start as libc::off_t, *len as libc::off_t);
        if job.file_sync.invalidate {
            // SAFETY: posix_fadvise reads only its integer arguments; the descriptor is open.
            let rc = unsafe {
                libc::posix_fadvise(file.as_raw_fd(), offset, length, libc::POSIX_FADV_DONTNEED)
            };
            if rc != 0 {
                let e = std::io::Error::from_raw_os_error(rc);
                return Err(EngineError::from_io(
                    "invalidate: cannot drop the cache of",
                    path,
                    e,
                ));
            }
        }
        if let Some(hint) = job.file_sync.write_hint {
            set_write_hint(file, job.direct, hint)
                .map_err(|e| EngineError::from_io("fcntl write hint", path, e))?;
        }
        let advice = match job.file_sync.fadvise {
            None => continue,
            Some(FadviseHint::Random) => libc::POSIX_FADV_RANDOM,
            Some(FadviseHint::Sequential) => libc::POSIX_FADV_SEQUENTIAL,
        };
        // fio only warns when the hint fails; so does nothing here (it is advice).
        // SAFETY: as above.
        let _ = unsafe { libc::posix_fadvise(file.as_raw_fd(), offset, length, advice) };
    }
    Ok(())
}

/// fio's `write_hint`, set as fio sets it: on the open file for direct IO
/// (F_SET_FILE_RW_HINT, which kernels since 5.17 refuse with EINVAL, so the job fails as
/// fio's does), on the inode for buffered IO (F_SET_RW_HINT).
fn set_write_hint(file: &File, direct: bool, hint: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // linux/fcntl.h: F_LINUX_SPECIFIC_BASE (1024) + 12 and + 14 (libc exports neither).
    const F_SET_RW_HINT: libc::c_int = 1024 + 12;
    const F_SET_FILE_RW_HINT: libc::c_int = 1024 + 14;
    let command = if direct {
        F_SET_FILE_RW_HINT
    } else {
        F_SET_RW_HINT
    };
    // SAFETY: the command reads one u64 through the pointer, which points at `hint`, alive for
    // the call; the descriptor is open.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), command, &hint as *const u64) };
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// fio's `sync=`: O_SYNC or O_DSYNC on every open of the job's files.
fn sync_flags(job: &JobSpec) -> i32 {
    match job.file_sync.open_sync {
        OpenSync::None => 0,
        OpenSync::Sync => libc::O_SYNC,
        OpenSync::Dsync => libc::O_DSYNC,
    }
}

/// Runs the clone on the engine the job names; returns the output.
fn run_engine<C: Clock>(
    job_engine: EngineKind,
    uring: &UringOptions,
    files: Vec<File>,
    plan: &ClonePlan,
    clock: &C,
    shared: &CloneShared<'_>,
) -> CloneOutput {
    let max_bs = match &plan.sizes {
        SizePicker::Fixed { read, write } => (*read).max(*write),
        SizePicker::Split { read, write } => read
            .iter()
            .chain(write.iter())
            .map(|(_, s)| *s)
            .max()
            .unwrap_or(4096),
    } as usize;
    fn go<E: Engine, C: Clock>(
        mut engine: E,
        plan: &ClonePlan,
        clock: &C,
        shared: &CloneShared<'_>,
    ) -> CloneOutput {
        run_clone(&mut engine, clock, plan, shared)
    }
    match job_engine {
        // fio's null engine completes inline at iodepth 1 and at the next reap when deeper.
        EngineKind::Null if plan.depth <= 1 => go(NullEngine::new(), plan, clock, shared),
        EngineKind::Null => go(NullQueue::new(plan.depth as usize), plan, clock, shared),
        EngineKind::Psync
        | EngineKind::Sync
        | EngineKind::Pvsync
        | EngineKind::Falloc
        | EngineKind::Ftruncate => {
            let flavor = match job_engine {
                EngineKind::Sync => SyncFlavor::Sync,
                EngineKind::Pvsync => SyncFlavor::Pvsync,
                EngineKind::Falloc => SyncFlavor::Falloc,
                EngineKind::Ftruncate => SyncFlavor::Ftruncate,
                _ => SyncFlavor::Psync,
            };
            match BufferPool::new(1, max_bs, plan.seed) {
                Ok(buffers) => go(SyncEngine::new(flavor, files, buffers), plan, clock, shared),
                Err(e) => setup_failed(e.to_string()),
            }
        }
        EngineKind::IoUring | EngineKind::Libaio => {
            let buffers = match BufferPool::new(plan.depth as usize, max_bs, plan.seed) {
                Ok(buffers) => buffers,
                Err(e) => return setup_failed(e.to_string()),
            };
            match UringEngine::with_options(files, buffers, plan.depth, uring) {
                Ok(engine) => go(engine, plan, clock, shared),
                Err(e) if e.raw_os_error() == Some(libc::EMFILE) => setup_failed(format!(
                    "cannot set up io_uring: {e} (the open-file limit, ulimit -n, is too low for this many clones)"
                )),
                Err(e) if !uring.is_default() => setup_failed(uring_refused(uring, &e)),
                Err(e) => setup_failed(format!(
                    "io_uring is not available here ({e}); use ioengine=psync"
                )),
            }
        }
    }
}

/// The kernel refused a ring with the job's io_uring options: which ones, and the errno.
fn uring_refused(uring: &UringOptions, e: &std::io::Error) -> String {
    let mut asked = Vec::new();
    if uring.sq_thread_poll {
        asked.push("sqthread_poll (IORING_SETUP_SQPOLL)");
    }
    if uring.hipri {
        asked.push("hipri (IORING_SETUP_IOPOLL)");
    }
    if uring.fixed_buffers == Some(true) {
        asked.push("fixedbufs (IORING_REGISTER_BUFFERS)");
    }
    if uring.register_files == Some(true) {
        asked.push("registerfiles (IORING_REGISTER_FILES)");
    }
    format!(
        "the kernel refused the io_uring setup the job asks for, {}: {e}; remove the option to run without it",
        asked.join(", ")
    )
}

pub(super) fn setup_failed(message: String) -> CloneOutput {
    CloneOutput {
        error: Some(message),
        ..CloneOutput::default()
    }
}

/// Everything one clone's thread takes with it.
pub(super) struct CloneStart {
    pub(super) thread_name: String,
    pub(super) plan: ClonePlan,
    pub(super) files: Vec<File>,
    pub(super) tx: mpsc::Sender<(usize, usize, CloneOutput)>,
    pub(super) stop: Arc<AtomicBool>,
    pub(super) cells: Arc<Vec<ProgressCell>>,
    pub(super) series: Arc<Mutex<SeriesMerger>>,
    pub(super) engine: EngineKind,
    pub(super) thread_control: iofit_model::job::ThreadControl,
    pub(super) uring: UringOptions,
    pub(super) end_flags: Arc<Vec<AtomicBool>>,
    pub(super) gate_of_set: Arc<crate::gate::StartGate>,
    pub(super) clock_choice: ClockChoice,
    pub(super) my_cell: usize,
    pub(super) each_loop: Option<(u32, bool, Arc<Mutex<Layout>>, JobSpec)>,
    pub(super) slot: usize,
    pub(super) position: usize,
    pub(super) origin: Instant,
}

/// Starts one clone's thread: it waits at the set's gate, runs the clone (its loops as
/// separate passes where fio's each-loop rules say so) and sends its output.
pub(super) fn spawn_clone(
    start: CloneStart,
    gate: &crate::gate::StartGate,
) -> Result<std::thread::JoinHandle<()>, EngineError> {
    let CloneStart {
        thread_name,
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
    } = start;
    let ends_on_error = Arc::clone(&end_flags);
    std::thread::Builder::new()
        .name(thread_name)
        .spawn(move || {
            // Timer slack of 1 us so that rate-limited sleeps end on time.
            // SAFETY: PR_SET_TIMERSLACK takes integer arguments only and changes
            // this thread's timer slack, nothing else.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0, 0, 0) };
            // Dropped unused if the clone fails before its first IO: it counts
            // as ready, so the gate never waits for it.
            let ticket = crate::gate::StartTicket::new(&gate_of_set);
            let shared = CloneShared {
                stop: &stop,
                end_set: Some(&end_flags[position]),
                progress: &cells[my_cell],
                series: &series,
                start: Some(&ticket),
            };
            if let Err(e) = crate::threads::apply_to_current_thread(&thread_control) {
                let _ = tx.send((slot, my_cell, setup_failed(e.to_string())));
                return;
            }
            let run_pass = |files: Vec<File>, plan: &ClonePlan| match clock_choice {
                ClockChoice::Monotonic => {
                    let clock = MonotonicClock::with_origin(origin);
                    run_engine(engine, &uring, files, plan, &clock, &shared)
                }
                ClockChoice::Fake { step_ns } => {
                    let clock = FakeClock::new(step_ns);
                    run_engine(engine, &uring, files, plan, &clock, &shared)
                }
            };
            let output = match each_loop {
                None => run_pass(files, &plan),
                Some((loops, unlink, layout, job)) => {
                    // fio's clear_io_state closes the files between loops; they
                    // are opened again (after a new layout with unlink_each_loop).
                    let relay_out = || {
                        let mut layout = lock_layout(&layout);
                        if !unlink {
                            let files = open_files(&job, &plan, &layout)?;
                            cache_hints(&job, &plan, &files)?;
                            return Ok(files);
                        }
                        let paths: Vec<_> = plan.files.iter().map(|f| f.0.clone()).collect();
                        layout.relay_out(&paths, &stop)?;
                        let files = open_files(&job, &plan, &layout)?;
                        pre_read(&job, &plan, &files)?;
                        cache_hints(&job, &plan, &files)?;
                        Ok(files)
                    };
                    let ended = || {
                        stop.load(Ordering::Relaxed) || end_flags[position].load(Ordering::Relaxed)
                    };
                    crate::each_loop::run_loops(loops, &plan, files, ended, relay_out, run_pass)
                }
            };
            if thread_control.exit_all
                || (thread_control.exit_all_on_error && output.error.is_some())
            {
                // fio exitall: the first job of the set to finish ends the others.
                for flag in end_flags.iter() {
                    flag.store(true, Ordering::Relaxed);
                }
            }
            cells[my_cell].finished.store(true, Ordering::Relaxed);
            let _ = tx.send((slot, my_cell, output));
        })
        .map_err(|e| {
            // The clones already started must not wait at the gate for ever.
            for flag in ends_on_error.iter() {
                flag.store(true, Ordering::Relaxed);
            }
            gate.open_now();
            EngineError::Setup {
                engine: "runner",
                message: format!("cannot start a thread: {e}"),
            }
        })
}
