//! Runs one expanded file system run: claims the anchors, formats as `format=` asks, then
//! runs every fwd's threads for the elapsed time, each doing its operation on files chosen as
//! `fileselect=` says, and merges the per-thread counters.

use crate::buffer::AlignedBuffer;
use crate::interval::{
    cpu_between, cpu_ticks, now_unix_ms, Interval, IntervalCounters, IntervalCounts,
};
use crate::stats::OpStats;
use crate::tree::{splitmix, Tree};
use crate::FsError;
use iofit_jobfile::vdbench::{FileOp, FileSelect, FormatMode, FsRun, FwdRate, SyncFlag, XferSize};
use iofit_safefs::anchor;
use iofit_safefs::beneath::{Beneath, BeneathDir};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ABSENT: u8 = 0;
const PRESENT: u8 = 1;
const BUSY: u8 = 2;
/// Another host's file of a shared fsd (`shared=yes`): never claimed, created or counted here.
const OTHERS: u8 = 3;
/// A run stops after this many failed operations (a full disk must not spin for the run).
const MAX_ERRORS: u64 = 1000;

/// How a run is carried out.
#[derive(Clone, Debug)]
pub struct FsOptions {
    pub allow_overwrite: bool,
    pub stop: Arc<AtomicBool>,
}

/// One fsd's tree and the state of its files and directories during a run.
pub(crate) struct Shared {
    pub tree: Tree,
    /// The anchor, open: every path below it is resolved from here, never through a link
    /// (an anchor subdirectory replaced by a link to a user's directory is not walked into).
    root: Beneath,
    files: Vec<AtomicU8>,
    /// States of `tree.file_dirs` (a directory that holds files may be removed and re-made).
    dirs: Vec<AtomicU8>,
    direct: bool,
    sync: Option<SyncFlag>,
    /// `wss=`: the files a run may pick (None: every file).
    pool: Option<Vec<usize>>,
    /// A shared fsd: other hosts make the same directories (one already made is no error).
    shared_dirs: bool,
    /// The directories that hold files, each opened (beneath the anchor) on its first
    /// delete or getattr and kept: those are then one system call, as fio's, not three (open
    /// the directory, act, close it). An rmdir drops its directory's.
    dir_handles: Vec<Mutex<Option<Arc<BeneathDir>>>>,
}

impl Shared {
    /// The open directory of file `i` (opened on first use).
    fn dir_handle(&self, i: usize) -> std::io::Result<Arc<BeneathDir>> {
        let d = self.tree.file_dir_of(i);
        let mut slot = self.dir_handles[d]
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(dir) = slot.as_ref() {
            return Ok(Arc::clone(dir));
        }
        let dir = Arc::new(self.root.open_dir(self.tree.dir_of_file(i))?);
        *slot = Some(Arc::clone(&dir));
        Ok(dir)
    }

    /// Forgets the open directory `d` (by position among the file directories): removed.
    fn drop_dir_handle(&self, d: usize) {
        if let Some(slot) = self.dir_handles.get(d) {
            *slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = None;
        }
    }
}

/// What one phase (format or the run) measured.
#[derive(Clone, Debug)]
pub struct PhaseResult {
    pub stats: OpStats,
    pub seconds: f64,
    /// From the start of measurement to the last operation: shorter than `seconds` when the
    /// workload ran out of files (every file created, every file deleted).
    pub busy_seconds: f64,
    /// vdbench's interval lines (`interval=`), warmup ones included and marked; the others add
    /// up to `stats`. Empty for the format phase.
    pub intervals: Vec<Interval>,
}

/// What a run measured: the format phase (when one ran) and the measured run.
#[derive(Clone, Debug)]
pub struct FsOutcome {
    pub format: Option<PhaseResult>,
    pub run: Option<PhaseResult>,
    pub files_per_fsd: Vec<(String, usize, usize)>,
    /// A stop (Ctrl-C, SIGTERM: `FsOptions::stop`) ended the format or the run before its
    /// end: the numbers cover what ran until then.
    pub interrupted: bool,
}

/// What a run tells its caller while it goes, from the thread that called [`run_observed`].
#[derive(Debug)]
pub enum FsEvent<'a> {
    /// The format phase ended (before the measured run starts).
    Formatted(&'a PhaseResult),
    /// An interval ended: sent at its boundary, as vdbench prints its interval lines, not
    /// after the run (the last, partial one once the workers have stopped).
    Interval(&'a Interval),
}

/// Runs `run` (already adjusted for the command line's overrides).
pub fn run(run: &FsRun, options: &FsOptions) -> Result<FsOutcome, FsError> {
    run_observed(run, options, &mut |_| {})
}

/// [`run`], telling `on_event` of the format's end and of every interval as it ends.
pub fn run_observed(
    run: &FsRun,
    options: &FsOptions,
    on_event: &mut dyn FnMut(FsEvent<'_>),
) -> Result<FsOutcome, FsError> {
    run_phases(run, options, on_event, false)
}

/// Only what comes before the measured run: the anchors claimed and `format=` carried out
/// (`clean` too), no workload. A host of a multi-host run formats before the common start,
/// then runs with `format=no` once every host is ready.
pub fn format_phase(run: &FsRun, options: &FsOptions) -> Result<FsOutcome, FsError> {
    run_phases(run, options, &mut |_| {}, true)
}

fn run_phases(
    run: &FsRun,
    options: &FsOptions,
    on_event: &mut dyn FnMut(FsEvent<'_>),
    format_only: bool,
) -> Result<FsOutcome, FsError> {
    check_thread_count(run)?;
    let mut shared = Vec::new();
    let mut claims = Vec::new();
    for fsd in &run.fsds {
        claims.push(claim_anchor(fsd, options)?);
        let tree = Tree::new(fsd);
        let fwd_direct = run
            .fwds
            .iter()
            .any(|f| f.fwd.direct && f.fsds.contains(&fsd.name));
        if fsd.direct || fwd_direct {
            check_direct(run, &tree)?;
        }
        let root = Beneath::open(&fsd.anchor)
            .map_err(|e| FsError::io("cannot open anchor", &fsd.anchor, e))?;
        let tree_dirs = tree.file_dir_count();
        let files: Vec<AtomicU8> = match fsd.share {
            None => (0..tree.file_count())
                .map(|_| AtomicU8::new(ABSENT))
                .collect(),
            Some(share) => {
                let states: Vec<AtomicU8> = (0..tree.file_count())
                    .map(|_| AtomicU8::new(OTHERS))
                    .collect();
                for i in tree.shared_files(share.slave, share.slaves) {
                    states[i].store(ABSENT, Ordering::Relaxed);
                }
                states
            }
        };
        shared.push(Shared {
            root,
            files,
            dirs: (0..tree.file_dirs.len())
                .map(|_| AtomicU8::new(ABSENT))
                .collect(),
            pool: match fsd.wss {
                Some(wss) => Some(working_set(&tree, wss.as_u64(), &fsd.name)?),
                None => None,
            },
            tree,
            direct: fsd.direct,
            sync: fsd.sync_writes,
            shared_dirs: fsd.share.is_some(),
            dir_handles: (0..tree_dirs).map(|_| Mutex::new(None)).collect(),
        });
    }
    let mut format = None;
    match run.format {
        FormatMode::Clean => {
            for (fsd, claim) in run.fsds.iter().zip(&claims) {
                // A shared fsd is cleared by its first host alone (the others would race
                // it for the same names).
                if fsd.share.is_none_or(|share| share.slave == 0) {
                    anchor::clear(&fsd.anchor, *claim)?;
                }
            }
            return Ok(outcome(None, None, &shared, run, options));
        }
        FormatMode::Yes | FormatMode::Only => {
            for (fsd, claim) in run.fsds.iter().zip(&claims) {
                anchor::clear(&fsd.anchor, *claim)?;
            }
            format = Some(format_trees(&shared, run, options)?);
        }
        FormatMode::Restart | FormatMode::RestartOnly => {
            scan(&shared);
            format = Some(format_trees(&shared, run, options)?);
        }
        // format=no uses what is there (on a foreign anchor with --allow-overwrite too).
        FormatMode::No => scan(&shared),
    }
    if let Some(format) = &format {
        on_event(FsEvent::Formatted(format));
    }
    let only = matches!(run.format, FormatMode::Only | FormatMode::RestartOnly);
    if only || format_only || options.stop.load(Ordering::Relaxed) {
        return Ok(outcome(format, None, &shared, run, options));
    }
    let measured = run_workload(&shared, run, options, on_event)?;
    Ok(outcome(format, Some(measured), &shared, run, options))
}

fn outcome(
    format: Option<PhaseResult>,
    measured: Option<PhaseResult>,
    shared: &[Shared],
    run: &FsRun,
    options: &FsOptions,
) -> FsOutcome {
    FsOutcome {
        format,
        run: measured,
        // Seen here, after the phases: a stop that came while they ran ended them early.
        interrupted: options.stop.load(Ordering::Relaxed),
        files_per_fsd: run
            .fsds
            .iter()
            .zip(shared)
            .map(|(fsd, s)| {
                let state = |want: u8| {
                    s.files
                        .iter()
                        .filter(|f| f.load(Ordering::Relaxed) == want)
                        .count()
                };
                // A shared fsd's host counts its own files only.
                let own = s.tree.file_count() - state(OTHERS);
                (fsd.name.clone(), state(PRESENT), own)
            })
            .collect(),
    }
}

/// Claims an fsd's anchor. The hosts of a shared fsd claim the same anchor at the same
/// time: one creates and marks it while another may find it half made (no mark yet, or the
/// mark being written), so a shared fsd's claim is retried for a while before its error
/// stands; a foreign anchor is still refused, only later.
fn claim_anchor(
    fsd: &iofit_jobfile::vdbench::FsdDef,
    options: &FsOptions,
) -> Result<anchor::AnchorClaim, FsError> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match anchor::claim(&fsd.anchor, options.allow_overwrite) {
            Ok(claim) => return Ok(claim),
            Err(_) if fsd.share.is_some() && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// vdbench's working set (`wss=`, FileAnchor.createWorkingSetList): files drawn at random
/// with a fixed seed until their sizes reach `wss_bytes`, in index order. Formats ignore it.
fn working_set(tree: &Tree, wss_bytes: u64, fsd: &str) -> Result<Vec<usize>, FsError> {
    let n = tree.file_count();
    let total: u64 = (0..n).map(|i| tree.file_size(i)).sum();
    if wss_bytes > total {
        return Err(FsError::BadInput(format!(
            "fsd={fsd}: wss={wss_bytes} bytes is more than the {total} bytes its files hold; lower wss= or raise files=/sizes="
        )));
    }
    let mut chosen = vec![false; n];
    let (mut bytes, mut rng) = (0u64, 0u64);
    while bytes < wss_bytes {
        rng = splitmix(rng);
        // Fixed seed, as vdbench: the same subset in every run. Probing on from a taken
        // index keeps the draw bounded however full the set gets.
        let start = (rng % n as u64) as usize;
        let i = (0..n)
            .map(|k| (start + k) % n)
            .find(|&i| !chosen[i])
            .expect("wss <= total leaves a file to choose");
        chosen[i] = true;
        bytes += tree.file_size(i);
    }
    Ok((0..n).filter(|&i| chosen[i]).collect())
}

/// The most threads one file system run starts (the engine's limit for clones, as fio's).
pub const MAX_FS_THREADS: u64 = 4096;

/// Refuses, before any anchor is touched or thread spawned, a run whose fwds (or format)
/// ask for more threads than any host runs: `threads=100000` is a typo or an attack, and
/// spawning would fail part way (a panic, or minutes lost) rather than say so.
fn check_thread_count(run: &FsRun) -> Result<(), FsError> {
    let fwd_threads: u64 = run
        .fwds
        .iter()
        .map(|f| u64::from(f.fwd.threads.max(1)))
        .sum();
    let most = fwd_threads.max(u64::from(run.format_threads));
    if most > MAX_FS_THREADS {
        return Err(FsError::BadInput(format!(
            "rd={}: the fwds ask for {most} threads; iofit runs at most {MAX_FS_THREADS} at once. Lower threads= on the fwd= lines",
            run.rd
        )));
    }
    Ok(())
}

fn check_direct(run: &FsRun, tree: &Tree) -> Result<(), FsError> {
    let aligned = |n: u64| n.is_multiple_of(4096);
    let sizes_ok = (0..tree.file_count().min(10_000)).all(|i| aligned(tree.file_size(i)));
    let xfers_ok = run.fwds.iter().all(|f| match &f.fwd.xfersizes {
        XferSize::Fixed(s) => aligned(s.as_u64()),
        XferSize::Distribution(parts) => parts.iter().all(|(s, _)| aligned(s.as_u64())),
    });
    if sizes_ok && xfers_ok && aligned(run.format_xfersize.as_u64()) {
        Ok(())
    } else {
        Err(FsError::BadInput(format!(
            "rd={}: openflags=o_direct needs file sizes and transfer sizes in multiples of 4k; change sizes=/xfersizes= or drop o_direct",
            run.rd
        )))
    }
}

/// Marks every file and directory that exists (format=no or restart).
fn scan(shared: &[Shared]) {
    for s in shared {
        for (i, state) in s.dirs.iter().enumerate() {
            // Through the anchor's descriptor: a directory replaced by a link is not one.
            if s.root.is_dir(&s.tree.dirs[s.tree.file_dirs[i]]) {
                state.store(PRESENT, Ordering::Relaxed);
            }
        }
        for (i, state) in s.files.iter().enumerate() {
            if state.load(Ordering::Relaxed) == OTHERS {
                continue;
            }
            let complete = s
                .root
                .stat(&s.tree.file_path(i))
                .map(|st| {
                    st.st_mode & libc::S_IFMT == libc::S_IFREG
                        && st.st_size as u64 >= s.tree.file_size(i)
                })
                .unwrap_or(false);
            if complete {
                state.store(PRESENT, Ordering::Relaxed);
            }
        }
    }
}

/// Creates every directory and every missing file, full size, with the format threads.
fn format_trees(
    shared: &[Shared],
    run: &FsRun,
    options: &FsOptions,
) -> Result<PhaseResult, FsError> {
    let start = Instant::now();
    let mut stats = OpStats::default();
    for s in shared {
        for dir in &s.tree.dirs {
            if s.root.is_dir(dir) {
                continue;
            }
            let t = Instant::now();
            match s.root.create_dir(dir) {
                Ok(()) => stats.record(FileOp::Mkdir, 0, t.elapsed().as_nanos() as u64),
                // Another host of a shared fsd made it first (vdbench's DIR_CREATE_SHARED).
                Err(_) if s.shared_dirs && s.root.is_dir(dir) => {}
                Err(e) => return Err(FsError::io("cannot create directory", dir, e)),
            }
        }
        for state in &s.dirs {
            state.store(PRESENT, Ordering::Relaxed);
        }
    }
    let threads = run.format_threads.max(1) as usize;
    let xfer = run.format_xfersize.as_u64().max(512);
    let results: Vec<Result<OpStats, FsError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut stats = OpStats::default();
                    let mut buffer = AlignedBuffer::new(xfer as usize, t as u64);
                    for s in shared {
                        for i in (t..s.tree.format_files).step_by(threads) {
                            if options.stop.load(Ordering::Relaxed) {
                                return Ok(stats);
                            }
                            if matches!(s.files[i].load(Ordering::Relaxed), PRESENT | OTHERS) {
                                continue;
                            }
                            create_file(s, i, xfer, &mut buffer, &mut stats)?;
                            s.files[i].store(PRESENT, Ordering::Relaxed);
                        }
                    }
                    Ok(stats)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("format thread"))
            .collect()
    });
    for result in results {
        stats.merge(&result?);
    }
    let seconds = start.elapsed().as_secs_f64();
    Ok(PhaseResult {
        stats,
        seconds,
        busy_seconds: seconds,
        intervals: Vec::new(),
    })
}

fn open_options(s: &Shared, write: bool, create: bool) -> libc::c_int {
    open_options_with(s.direct, s.sync, write, create)
}

/// Open flags: the fsd's `openflags=`, or the fwd's when it gives its own.
fn open_options_with(
    direct: bool,
    sync: Option<SyncFlag>,
    write: bool,
    create: bool,
) -> libc::c_int {
    let mut flags = if write {
        libc::O_WRONLY
    } else {
        libc::O_RDONLY
    };
    if create {
        flags |= libc::O_CREAT | libc::O_EXCL;
    }
    if direct {
        flags |= libc::O_DIRECT;
    }
    if write {
        flags |= match sync {
            Some(SyncFlag::DataSync) => libc::O_DSYNC,
            Some(SyncFlag::Sync) => libc::O_SYNC,
            None => 0,
        };
    }
    flags
}

/// Creates file `i` (it must not exist) and writes it full: create, writes, close.
fn create_file(
    s: &Shared,
    i: usize,
    xfer: u64,
    buffer: &mut AlignedBuffer,
    stats: &mut OpStats,
) -> Result<(), FsError> {
    let path = s.tree.file_path(i);
    let t = Instant::now();
    let file = s
        .root
        .open_file(&path, open_options(s, true, true), 0o644)
        .map_err(|e| FsError::io("cannot create", &path, e))?;
    stats.record(FileOp::Create, 0, t.elapsed().as_nanos() as u64);
    transfer_whole(&file, &path, s.tree.file_size(i), xfer, true, buffer, stats)?;
    let t = Instant::now();
    drop(file);
    stats.record(FileOp::Close, 0, t.elapsed().as_nanos() as u64);
    Ok(())
}

/// Reads or writes a file front to back in `xfer` pieces, each one operation.
fn transfer_whole(
    file: &File,
    path: &Path,
    size: u64,
    xfer: u64,
    write: bool,
    buffer: &mut AlignedBuffer,
    stats: &mut OpStats,
) -> Result<(), FsError> {
    let mut offset = 0;
    while offset < size {
        let len = xfer.min(size - offset) as usize;
        transfer_at(file, path, offset, len, write, buffer, stats)?;
        offset += len as u64;
    }
    Ok(())
}

fn transfer_at(
    file: &File,
    path: &Path,
    offset: u64,
    len: usize,
    write: bool,
    buffer: &mut AlignedBuffer,
    stats: &mut OpStats,
) -> Result<(), FsError> {
    let data = &mut buffer.as_mut_slice()[..len];
    let t = Instant::now();
    if write {
        file.write_all_at(data, offset)
            .map_err(|e| FsError::io("cannot write", path, e))?;
        stats.record(FileOp::Write, len as u64, t.elapsed().as_nanos() as u64);
    } else {
        let n = file
            .read_at(data, offset)
            .map_err(|e| FsError::io("cannot read", path, e))?;
        stats.record(FileOp::Read, n as u64, t.elapsed().as_nanos() as u64);
    }
    Ok(())
}

/// One worker thread of one fwd.
struct Worker<'a> {
    shared: Vec<&'a Shared>,
    op: FileOp,
    rdpct: Option<f64>,
    random_io: bool,
    select: FileSelect,
    xfersizes: Vec<(u64, f64)>,
    stopafter: Option<u64>,
    /// The fwd's own `openflags=` (o_direct, o_sync...), over the fsd's.
    direct: bool,
    sync: Option<SyncFlag>,
    rng: u64,
    cursor: usize,
    buffer: AlignedBuffer,
    stats: OpStats,
    /// fwdrate= on a read/write fwd: one permit per transfer (vdbench's FwgWaiter hands out
    /// one per operation, and a read or write operation is one xfersize transfer), so the
    /// rate counts reads and writes, not the files opened for them.
    pacer: Option<Pacer>,
}

/// Operations spaced `every` apart until `deadline`.
struct Pacer {
    every: Duration,
    next: Instant,
    deadline: Instant,
}

impl Pacer {
    /// Waits for the next permit; false when the run's deadline comes first.
    fn permit(&mut self) -> bool {
        let now = Instant::now();
        if self.next > now {
            if self.next >= self.deadline {
                std::thread::sleep(self.deadline.saturating_duration_since(now));
                return false;
            }
            std::thread::sleep(self.next - now);
        }
        self.next += self.every;
        Instant::now() < self.deadline
    }
}

/// Runs the workload's fwds on their threads until the run's elapsed time (or a stop), with
/// the warmup left out of the figures, and reports each interval as it ends.
fn run_workload(
    shared: &[Shared],
    run: &FsRun,
    options: &FsOptions,
    on_event: &mut dyn FnMut(FsEvent<'_>),
) -> Result<PhaseResult, FsError> {
    let start = Instant::now();
    let timing = IntervalTiming {
        start,
        interval: run.interval,
        measure_from: start + run.warmup,
        deadline: start + run.elapsed,
    };
    let mut workers = workers_of(shared, run, timing.deadline);
    let counters: Vec<Arc<IntervalCounters>> = workers
        .iter()
        .map(|_| Arc::new(IntervalCounters::default()))
        .collect();
    for ((worker, _), c) in workers.iter_mut().zip(&counters) {
        worker.stats.interval = Some(Arc::clone(c));
    }
    let stop = &options.stop;
    let mut intervals = Vec::new();
    let results: Vec<Result<(OpStats, Instant), FsError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .into_iter()
            .map(|(worker, pace)| {
                let timing = &timing;
                scope.spawn(move || drive(worker, pace, run.warmup.is_zero(), timing, stop))
            })
            .collect();
        let cpu_before;
        (intervals, cpu_before) = report_intervals(&timing, &counters, &handles, stop, on_event);
        let results = handles
            .into_iter()
            .map(|h| h.join().expect("worker thread"))
            .collect();
        if let Some(last) = last_interval(&timing, &counters, intervals.len(), cpu_before) {
            on_event(FsEvent::Interval(&last));
            intervals.push(last);
        }
        results
    });
    let mut stats = OpStats::default();
    let mut last = timing.measure_from;
    for result in results {
        let (worker_stats, worker_last) = result?;
        stats.merge(&worker_stats);
        last = last.max(worker_last);
    }
    let measured = Instant::now()
        .min(timing.deadline)
        .saturating_duration_since(timing.measure_from.min(timing.deadline));
    Ok(PhaseResult {
        stats,
        seconds: measured.as_secs_f64().max(1e-9),
        busy_seconds: last
            .saturating_duration_since(timing.measure_from)
            .as_secs_f64()
            .max(1e-9),
        intervals,
    })
}

/// One worker per thread of each fwd, on the fsds the fwd names, with the spacing between its
/// steps when `fwdrate` paces whole operations (reads and writes are paced transfer by
/// transfer, inside the worker).
fn workers_of<'a>(
    shared: &'a [Shared],
    run: &FsRun,
    deadline: Instant,
) -> Vec<(Worker<'a>, Option<Duration>)> {
    let mut workers = Vec::new();
    for (f, fwd) in run.fwds.iter().enumerate() {
        let targets: Vec<&Shared> = run
            .fsds
            .iter()
            .zip(shared)
            .filter(|(fsd, _)| fwd.fsds.contains(&fsd.name))
            .map(|(_, s)| s)
            .collect();
        let xfersizes: Vec<(u64, f64)> = match &fwd.fwd.xfersizes {
            XferSize::Fixed(s) => vec![(s.as_u64(), 100.0)],
            XferSize::Distribution(parts) => parts.iter().map(|(s, p)| (s.as_u64(), *p)).collect(),
        };
        let largest = xfersizes.iter().map(|x| x.0).max().unwrap_or(4096).max(512);
        let threads = fwd.fwd.threads.max(1);
        // fwdrate: operations per second of the run, this fwd's share split over its threads.
        let pace = match run.fwdrate {
            FwdRate::Max => None,
            FwdRate::Fixed(rate) => {
                let per_thread = rate * fwd.rate_share / f64::from(threads);
                (per_thread > 0.0).then(|| Duration::from_secs_f64(1.0 / per_thread))
            }
        };
        // Reads and writes take their permits transfer by transfer (Worker::pacer); other
        // operations one per step.
        let transfers =
            fwd.fwd.rdpct.is_some() || matches!(fwd.fwd.operation, FileOp::Read | FileOp::Write);
        let (pace, transfer_pace) = if transfers {
            (None, pace)
        } else {
            (pace, None)
        };
        for t in 0..threads {
            let seed = splitmix((f as u64) << 32 | u64::from(t));
            workers.push((
                Worker {
                    shared: targets.clone(),
                    op: fwd.fwd.operation,
                    rdpct: fwd.fwd.rdpct,
                    random_io: fwd.fwd.random_io,
                    select: fwd.fwd.select,
                    xfersizes: xfersizes.clone(),
                    stopafter: fwd.fwd.stopafter,
                    direct: fwd.fwd.direct,
                    sync: fwd.fwd.sync_writes,
                    rng: seed | 1,
                    cursor: (seed as usize)
                        % targets.first().map(|s| s.files.len().max(1)).unwrap_or(1),
                    buffer: AlignedBuffer::new(largest as usize, seed),
                    stats: OpStats::default(),
                    pacer: transfer_pace.map(|every| Pacer {
                        every,
                        next: Instant::now(),
                        deadline,
                    }),
                },
                pace,
            ));
        }
    }
    workers
}

/// One worker thread: steps (`pace` apart when given) until the deadline or a stop, its
/// figures restarted when the warmup ends. Returns them with the time of its last operation.
fn drive(
    mut worker: Worker<'_>,
    pace: Option<Duration>,
    no_warmup: bool,
    timing: &IntervalTiming,
    stop: &AtomicBool,
) -> Result<(OpStats, Instant), FsError> {
    let (measure_from, deadline) = (timing.measure_from, timing.deadline);
    let mut measuring = no_warmup;
    let mut next = Instant::now();
    let mut last_op = measure_from;
    loop {
        let now = Instant::now();
        if now >= deadline || stop.load(Ordering::Relaxed) {
            break;
        }
        if !measuring && now >= measure_from {
            worker.stats = OpStats {
                interval: worker.stats.interval.take(),
                ..OpStats::default()
            };
            measuring = true;
        }
        if let Some(pace) = pace {
            if next > now {
                std::thread::sleep((next - now).min(deadline - now));
                continue;
            }
            next += pace;
        }
        let before = worker.stats.total_ops();
        worker.step()?;
        if worker.stats.total_ops() > before {
            last_op = Instant::now();
        }
        if worker.stats.total_errors() > MAX_ERRORS {
            return Err(FsError::TooManyErrors(MAX_ERRORS));
        }
    }
    Ok((worker.stats, last_op))
}

/// What the workers did after the last full interval's boundary (`full` intervals reported):
/// the last, often partial, interval; `None` when nothing happened and no time is left in it.
fn last_interval(
    timing: &IntervalTiming,
    counters: &[Arc<IntervalCounters>],
    full: usize,
    cpu_before: Option<(u64, u64, u64)>,
) -> Option<Interval> {
    let tail = collect(counters);
    let end = Instant::now().min(timing.deadline);
    let from = timing.start + timing.interval.max(MIN_INTERVAL) * full as u32;
    if tail.total_ops() == 0 && tail.errors.iter().sum::<u64>() == 0 && end <= from {
        return None;
    }
    Some(Interval {
        index: full + 1,
        end_unix_ms: now_unix_ms(),
        seconds: end.saturating_duration_since(from).as_secs_f64().max(1e-9),
        warmup: end <= timing.measure_from,
        counts: tail,
        cpu: cpu_between(cpu_before, cpu_ticks()),
    })
}

thread_local! {
    /// Consecutive steps of this worker thread (one per worker) that found no file or
    /// directory to work on.
    static IDLE_STEPS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A step found nothing to work on (every file created, every one deleted): yield the first
/// few times, then sleep, doubling up to about 1 ms, so a worker out of work waits for
/// another fwd to make some rather than scan the file states in a loop. Spinning held a core
/// for the rest of the run (a create run that ended its files in 5 s of 12 spent 56 % of its
/// CPU scanning), slowing whatever else ran: the other fwds, or other programs.
fn idle() {
    let streak = IDLE_STEPS.with(|c| {
        let n = c.get();
        c.set(n.saturating_add(1));
        n
    });
    if streak < 8 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(1 << (streak - 8).min(10)));
    }
}

/// The shortest interval reported (a typo like interval=0 must not spin the reporter).
const MIN_INTERVAL: Duration = Duration::from_millis(100);

struct IntervalTiming {
    start: Instant,
    interval: Duration,
    measure_from: Instant,
    deadline: Instant,
}

fn collect(counters: &[Arc<IntervalCounters>]) -> IntervalCounts {
    let mut sum = IntervalCounts::default();
    for c in counters {
        sum.merge(&c.take());
    }
    sum
}

/// Every full interval before the deadline (or until the workers stop), each counted at its
/// boundary; the partial one at the end is collected by the caller after the workers join
/// (from the returned CPU sample on).
fn report_intervals<T>(
    timing: &IntervalTiming,
    counters: &[Arc<IntervalCounters>],
    handles: &[std::thread::ScopedJoinHandle<'_, T>],
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(FsEvent<'_>),
) -> (Vec<Interval>, Option<(u64, u64, u64)>) {
    let step = timing.interval.max(MIN_INTERVAL);
    let mut intervals = Vec::new();
    let mut cpu_before = cpu_ticks();
    loop {
        let boundary = timing.start + step * (intervals.len() as u32 + 1);
        if boundary >= timing.deadline {
            return (intervals, cpu_before);
        }
        loop {
            let now = Instant::now();
            if now >= boundary {
                break;
            }
            if stop.load(Ordering::Relaxed) || handles.iter().all(|h| h.is_finished()) {
                return (intervals, cpu_before);
            }
            std::thread::sleep((boundary - now).min(Duration::from_millis(50)));
        }
        let cpu_after = cpu_ticks();
        let interval = Interval {
            index: intervals.len() + 1,
            end_unix_ms: now_unix_ms(),
            seconds: step.as_secs_f64(),
            warmup: boundary <= timing.measure_from,
            counts: collect(counters),
            cpu: cpu_between(cpu_before, cpu_after),
        };
        on_event(FsEvent::Interval(&interval));
        intervals.push(interval);
        cpu_before = cpu_after;
    }
}

impl Worker<'_> {
    /// The next fwdrate permit for a transfer (true at once when the fwd is not paced).
    fn permit(&mut self) -> bool {
        self.pacer.as_mut().is_none_or(Pacer::permit)
    }

    fn random(&mut self) -> u64 {
        self.rng = splitmix(self.rng);
        self.rng
    }

    fn xfer(&mut self) -> u64 {
        if self.xfersizes.len() == 1 {
            return self.xfersizes[0].0;
        }
        let point = (self.random() % 10_000) as f64 / 100.0;
        let mut acc = 0.0;
        for (size, pct) in &self.xfersizes {
            acc += pct;
            if point < acc {
                return *size;
            }
        }
        self.xfersizes[self.xfersizes.len() - 1].0
    }

    /// One operation (a read or write of a whole file is its opens, transfers and close).
    fn step(&mut self) -> Result<(), FsError> {
        let op = match self.rdpct {
            Some(pct) => {
                if (self.random() % 10_000) as f64 / 100.0 < pct {
                    FileOp::Read
                } else {
                    FileOp::Write
                }
            }
            None => self.op,
        };
        let which = if self.shared.len() > 1 {
            (self.random() % self.shared.len() as u64) as usize
        } else {
            0
        };
        let Some(s) = self.shared.get(which).copied() else {
            return Ok(());
        };
        let result = match op {
            FileOp::Mkdir | FileOp::Rmdir => self.dir_op(s, op),
            FileOp::Create => self.with_file(s, ABSENT, op, |w, i| w.create(s, i)),
            FileOp::Copy | FileOp::Move => self.copy_or_move(s, op),
            _ => self.with_file(s, PRESENT, op, |w, i| w.file_op(s, i, op)),
        };
        match result {
            Ok(()) => Ok(()),
            Err(FsError::Io { .. }) => {
                self.stats.error(op);
                Ok(())
            }
            Err(other) => Err(other),
        }
    }

    /// Claims a file in state `want` (as `fileselect=` picks), runs `f` on it, and sets its
    /// new state from the operation.
    fn with_file(
        &mut self,
        s: &Shared,
        want: u8,
        op: FileOp,
        f: impl FnOnce(&mut Self, usize) -> Result<(), FsError>,
    ) -> Result<(), FsError> {
        let Some(i) = self.claim(&s.files, s.pool.as_deref(), want) else {
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let result = f(self, i);
        let after = match (op, &result) {
            (FileOp::Create, Ok(())) => PRESENT,
            (FileOp::Delete, Ok(())) => ABSENT,
            _ => want,
        };
        s.files[i].store(after, Ordering::Release);
        result
    }

    /// Finds a file (or directory) in state `want`, among `pool` when given (`wss=`), and
    /// marks it busy.
    fn claim(&mut self, states: &[AtomicU8], pool: Option<&[usize]>, want: u8) -> Option<usize> {
        let n = pool.map_or(states.len(), <[usize]>::len);
        if n == 0 {
            return None;
        }
        let start = match self.select {
            FileSelect::Random => (self.random() % n as u64) as usize,
            FileSelect::Sequential => {
                self.cursor = (self.cursor + 1) % n;
                self.cursor
            }
        };
        (0..n)
            .map(|k| {
                let at = (start + k) % n;
                pool.map_or(at, |p| p[at])
            })
            .find(|&i| {
                states[i]
                    .compare_exchange(want, BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            })
            .inspect(|_| IDLE_STEPS.with(|c| c.set(0)))
    }

    /// delete and getattr: one call on the file's open directory ([`Shared::dir_handle`]).
    fn name_op(&mut self, s: &Shared, i: usize, op: FileOp) -> Result<(), FsError> {
        let name = s.tree.file_name(i);
        let t = Instant::now();
        let result = s.dir_handle(i).and_then(|dir| match op {
            FileOp::Delete => dir.remove_file(name.as_ref()),
            _ => dir.stat(name.as_ref()).map(|_| ()),
        });
        let context = match op {
            FileOp::Delete => "cannot delete",
            _ => "cannot stat",
        };
        result.map_err(|e| FsError::io(context, &s.tree.file_path(i), e))?;
        self.stats.record(op, 0, t.elapsed().as_nanos() as u64);
        Ok(())
    }

    fn file_op(&mut self, s: &Shared, i: usize, op: FileOp) -> Result<(), FsError> {
        if matches!(op, FileOp::Delete | FileOp::Getattr) {
            return self.name_op(s, i, op);
        }
        let path = s.tree.file_path(i);
        let t = Instant::now();
        let ns = |t: Instant| t.elapsed().as_nanos() as u64;
        match op {
            FileOp::Read | FileOp::Write => {
                let write = op == FileOp::Write;
                let flags =
                    open_options_with(s.direct || self.direct, self.sync.or(s.sync), write, false);
                let file = s
                    .root
                    .open_file(&path, flags, 0)
                    .map_err(|e| FsError::io("cannot open", &path, e))?;
                self.stats.record(FileOp::Open, 0, ns(t));
                let size = s.tree.file_size(i);
                let xfer = self.xfer();
                if self.random_io {
                    // fileio=random: as many random transfers as the file holds, or stopafter=.
                    let blocks = (size / xfer).max(1);
                    for _ in 0..self.stopafter.unwrap_or(blocks) {
                        if !self.permit() {
                            break;
                        }
                        let offset = (self.random() % blocks) * xfer;
                        let len = xfer.min(size.saturating_sub(offset)).max(1) as usize;
                        transfer_at(
                            &file,
                            &path,
                            offset,
                            len,
                            write,
                            &mut self.buffer,
                            &mut self.stats,
                        )?;
                    }
                } else {
                    // stopafter= on sequential IO: that many transfers from the start.
                    let size = match self.stopafter {
                        Some(n) => size.min(n.saturating_mul(xfer)),
                        None => size,
                    };
                    let mut offset = 0;
                    while offset < size && self.permit() {
                        let len = xfer.min(size - offset) as usize;
                        transfer_at(
                            &file,
                            &path,
                            offset,
                            len,
                            write,
                            &mut self.buffer,
                            &mut self.stats,
                        )?;
                        offset += len as u64;
                    }
                }
                let t = Instant::now();
                drop(file);
                self.stats.record(FileOp::Close, 0, ns(t));
            }
            FileOp::Setattr => {
                let mode = if self.random().is_multiple_of(2) {
                    0o644
                } else {
                    0o640
                };
                s.root
                    .set_mode(&path, mode)
                    .map_err(|e| FsError::io("cannot set attributes of", &path, e))?;
                self.stats.record(op, 0, ns(t));
            }
            FileOp::Access => {
                let c =
                    std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
                        FsError::BadInput(format!("{}: a NUL in the path", path.display()))
                    })?;
                // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
                let rc = unsafe { libc::access(c.as_ptr(), libc::R_OK) };
                if rc != 0 {
                    return Err(FsError::io(
                        "cannot access",
                        &path,
                        std::io::Error::last_os_error(),
                    ));
                }
                self.stats.record(op, 0, ns(t));
            }
            FileOp::Open | FileOp::Close => {
                let file = s
                    .root
                    .open_file(&path, open_options(s, false, false), 0)
                    .map_err(|e| FsError::io("cannot open", &path, e))?;
                self.stats.record(FileOp::Open, 0, ns(t));
                let t = Instant::now();
                drop(file);
                self.stats.record(FileOp::Close, 0, ns(t));
            }
            _ => {}
        }
        Ok(())
    }

    fn create(&mut self, s: &Shared, i: usize) -> Result<(), FsError> {
        // A directory removed by an rmdir makes the open fail with ENOENT (counted as a failed
        // create); no stat of the directory first, which cost a path walk per file.
        let xfer = self.xfer();
        create_file(s, i, xfer, &mut self.buffer, &mut self.stats)
    }

    /// mkdir takes an absent file directory, rmdir a present one whose files are all gone.
    fn dir_op(&mut self, s: &Shared, op: FileOp) -> Result<(), FsError> {
        let want = if op == FileOp::Mkdir { ABSENT } else { PRESENT };
        let Some(d) = self.claim(&s.dirs, None, want) else {
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let path = &s.tree.dirs[s.tree.file_dirs[d]];
        let t = Instant::now();
        let result = if op == FileOp::Mkdir {
            s.root.create_dir(path).map(|_| PRESENT)
        } else if s
            .tree
            .files_in_dir(d)
            .any(|i| s.files[i].load(Ordering::Acquire) != ABSENT)
        {
            s.dirs[d].store(PRESENT, Ordering::Release);
            self.stats.no_candidate += 1;
            return Ok(());
        } else {
            let removed = s.root.remove_dir(path).map(|_| ABSENT);
            if removed.is_ok() {
                s.drop_dir_handle(d);
            }
            removed
        };
        match result {
            Ok(state) => {
                self.stats.record(op, 0, t.elapsed().as_nanos() as u64);
                s.dirs[d].store(state, Ordering::Release);
                Ok(())
            }
            Err(e) => {
                s.dirs[d].store(want, Ordering::Release);
                Err(FsError::io("cannot change directory", path, e))
            }
        }
    }

    /// copy: an existing file into an absent one; move: renames it there.
    fn copy_or_move(&mut self, s: &Shared, op: FileOp) -> Result<(), FsError> {
        let Some(from) = self.claim(&s.files, s.pool.as_deref(), PRESENT) else {
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let Some(to) = self.claim(&s.files, s.pool.as_deref(), ABSENT) else {
            s.files[from].store(PRESENT, Ordering::Release);
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let (src, dst) = (s.tree.file_path(from), s.tree.file_path(to));
        let t = Instant::now();
        let result = if op == FileOp::Copy {
            s.root.copy(&src, &dst).map(|bytes| (PRESENT, bytes))
        } else {
            s.root.rename(&src, &dst).map(|_| (ABSENT, 0))
        };
        match result {
            Ok((from_state, bytes)) => {
                self.stats.record(op, bytes, t.elapsed().as_nanos() as u64);
                s.files[from].store(from_state, Ordering::Release);
                s.files[to].store(PRESENT, Ordering::Release);
                Ok(())
            }
            Err(e) => {
                s.files[from].store(PRESENT, Ordering::Release);
                s.files[to].store(ABSENT, Ordering::Release);
                Err(FsError::io("cannot copy or move", &src, e))
            }
        }
    }
}
