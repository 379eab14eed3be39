//! Runs one expanded file system run: claims the anchors, formats as `format=` asks, then
//! runs every fwd's threads for the elapsed time, each doing its operation on files chosen as
//! `fileselect=` says, and merges the per-thread counters.

use crate::interval::Interval;
use crate::stats::OpStats;
use crate::tree::{splitmix, Tree};
use crate::FsError;
use iofit_jobfile::vdbench::{FormatMode, FsRun, SyncFlag, XferSize};
use iofit_model::units::Seconds;
use iofit_safefs::anchor;
use iofit_safefs::beneath::{Beneath, BeneathDir};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod files;
mod worker;
mod workload;

use files::format_trees;
use workload::run_workload;

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
    pub seconds: Seconds,
    /// From the start of measurement to the last operation: shorter than `seconds` when the
    /// workload ran out of files (every file created, every file deleted).
    pub busy_seconds: Seconds,
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
