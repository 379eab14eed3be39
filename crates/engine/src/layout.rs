//! Test files: resolve every job's files and regions, refuse anything that could destroy data,
//! then create and fill files before timing starts (as fio lays out its files).
//!
//! Never destroy data: writing to a block device (or any non-regular file), or to an existing
//! regular file that iofit did not create, is refused unless the caller allows overwriting.
//! Extending a foreign file counts as writing to it. Reading anything is fine.
//!
//! Every target is opened ONCE, by [`iofit_safefs::target`], when the layout is planned; the
//! ownership check (an xattr, or a sidecar plus a trailer inside the file, naming a random id,
//! the device, inode and birth time) is made on that descriptor, and every job later gets a
//! re-open of that same inode from [`Layout::open_for_job`], never of the name. A name swapped
//! for a link to another file or a device between two stonewalled jobs changes nothing.

use crate::error::EngineError;
use crate::random::SplitMix64;
use iofit_model::job::{JobSpec, SizeSpec};
use iofit_model::units::Bytes;
use iofit_safefs::marker::{self, MarkKind};
use iofit_safefs::target::{self, Kind, Target, Use};
use iofit_safefs::{human_bytes, SafeFsError};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One file of one clone: where the job's region starts and how long it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRegion {
    pub path: PathBuf,
    pub offset: u64,
    pub length: u64,
}

/// What a run needs from one path, summed over every job that uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileNeed {
    pub path: PathBuf,
    /// Bytes the file must hold (largest region end).
    pub size: u64,
    pub writes: bool,
    /// The file exists (or will be created) as a regular file.
    pub action: LayoutAction,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutAction {
    /// Exists, large enough, and may be used as it is.
    UseAsIs,
    /// Does not exist: create and fill.
    Create,
    /// Exists but is shorter than needed: fill up to the size (only our own, or allowed).
    Extend { from: u64 },
}

/// The checked plan of a run's files plus the open descriptor of every target.
#[derive(Debug, Default)]
pub struct Layout {
    pub needs: Vec<FileNeed>,
    targets: BTreeMap<PathBuf, Target>,
}

impl Layout {
    /// Bytes the layout writes and files it creates or extends.
    pub fn to_write(&self) -> (u64, usize) {
        let bytes = self.needs.iter().map(bytes_to_write).sum();
        let files = self
            .needs
            .iter()
            .filter(|n| n.action != LayoutAction::UseAsIs)
            .count();
        (bytes, files)
    }

    /// Removes `path` if this run created it (fio `unlink`) and the name still names that
    /// file. Returns whether it was removed; a file that existed before the run stays.
    /// Seals every file of iofit's as the run leaves it (safefs's content seal): a user's
    /// copy into one of them afterwards makes it foreign.
    pub fn seal_all(&self) {
        self.targets.values().for_each(Target::seal);
    }

    pub fn remove_if_created(&self, path: &Path) -> Result<bool, EngineError> {
        let created = self
            .needs
            .iter()
            .any(|n| n.path == path && n.action == LayoutAction::Create);
        match self.targets.get(path) {
            Some(target) if created => {
                target.remove_created()?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// fio `unlink_each_loop`, between two loops of a clone: removes each of `paths` and lays
    /// it out again as a new file (the next loop starts on a fresh inode). Only iofit's own
    /// files are removed ([`check_unlink_each_loop`] refused any other before the run); a
    /// block device is skipped, as fio's `unlink_all_files` skips anything but a file. Returns
    /// the bytes written.
    pub fn relay_out(&mut self, paths: &[PathBuf], stop: &AtomicBool) -> Result<u64, EngineError> {
        let chunk = fill_chunk();
        let mut written = 0;
        for path in paths {
            let Some(at) = self.needs.iter().position(|n| &n.path == path) else {
                continue;
            };
            if let Some(target) = self.targets.get(path) {
                if target.kind() != Kind::Regular {
                    continue;
                }
                if !target.remove_own()? {
                    return Err(EngineError::BadPath {
                        path: path.clone(),
                        message: "unlink_each_loop: not a file iofit created; it is left as it is"
                            .to_string(),
                    });
                }
            }
            self.targets.remove(path);
            // Laid out as a file this run created, so `unlink` removes the last loop's too.
            self.needs[at].action = LayoutAction::Create;
            let need = self.needs[at].clone();
            match lay_out_one(
                self,
                &need,
                &chunk,
                stop,
                &mut Vec::new(),
                &AtomicU64::new(0),
            ) {
                Ok(bytes) => written += bytes,
                Err(e) => {
                    // As `lay_out`: a file cut short is not left behind.
                    if let Some(t) = self.targets.remove(path) {
                        let _ = t.remove_created();
                    }
                    return Err(e);
                }
            }
        }
        Ok(written)
    }

    /// A descriptor for one job on `path`: a re-open of the inode checked at planning time.
    pub fn open_for_job(
        &self,
        path: &Path,
        write: bool,
        direct: bool,
    ) -> Result<File, EngineError> {
        self.open_for_job_with(path, write, direct, 0)
    }

    /// [`Layout::open_for_job`] with extra open flags (O_SYNC, O_DSYNC for fio's `sync=`).
    pub fn open_for_job_with(
        &self,
        path: &Path,
        write: bool,
        direct: bool,
        extra_flags: i32,
    ) -> Result<File, EngineError> {
        let target = self.targets.get(path).ok_or_else(|| EngineError::BadPath {
            path: path.to_path_buf(),
            message: "was not checked before the run (internal error: every job file is checked at layout)".to_string(),
        })?;
        target.reopen_with(write, direct, extra_flags).map_err(|e| {
            let context = if direct && e.raw_os_error() == Some(libc::EINVAL) {
                "cannot open with O_DIRECT (direct=1; the filesystem may not support it, try direct=0)"
            } else {
                "cannot open"
            };
            EngineError::from_io(context, path, e)
        })
    }
}

fn bytes_to_write(need: &FileNeed) -> u64 {
    match need.action {
        LayoutAction::Create => need.size,
        LayoutAction::Extend { from } => need.size - from,
        LayoutAction::UseAsIs => 0,
    }
}

impl From<SafeFsError> for EngineError {
    fn from(e: SafeFsError) -> Self {
        match e {
            SafeFsError::Refused { path, reason } => EngineError::Refused { path, reason },
            SafeFsError::BadInput { path, message } => EngineError::BadPath { path, message },
            SafeFsError::Io {
                context,
                path,
                error,
            } => EngineError::from_io(context, path, error),
        }
    }
}

/// Size of a file or block device, if it exists. A sidecar-marked file of iofit's counts its
/// data only (not the marker trailer at its end).
pub fn existing_size(path: &Path) -> Result<Option<u64>, EngineError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(EngineError::from_io("cannot inspect", path, e)),
    };
    let sidecar_marked = meta.is_file() && marker::sidecar_path(path).exists();
    if !meta.file_type().is_block_device() && !sidecar_marked {
        return Ok(Some(meta.len()));
    }
    let usage = Use {
        writes: false,
        needed_bytes: Bytes::ZERO,
        allow_overwrite: false,
    };
    match target::open_existing(path, usage) {
        Ok(Some(t)) => Ok(Some(t.data_len_bytes())),
        Ok(None) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The regions clone `clone` of `job` uses, with sizes resolved.
pub fn regions_for_clone(job: &JobSpec, clone: u32) -> Result<Vec<FileRegion>, EngineError> {
    let files = job.files_for_clone(clone);
    if files.is_empty() {
        return Err(EngineError::invalid(
            &job.name,
            "no file to do IO on; give filename= or directory=",
        ));
    }
    let max_bs = job.block_size.max_size().as_u64().max(1);
    let mut regions = Vec::with_capacity(files.len());
    for path in files {
        let offset = start_offset(job, &path, clone)?;
        let length = region_length(job, &path, offset)?;
        // Whole blocks only: the region is a multiple of the largest block size's alignment.
        if length < max_bs {
            return Err(EngineError::invalid(
                &job.name,
                format!(
                    "the region of {} is {length} bytes, smaller than the block size {max_bs}; raise size= or lower bs=",
                    path.display()
                ),
            ));
        }
        // Offsets are signed 64-bit in every system call: the region must end below 2^63.
        if offset
            .checked_add(length)
            .is_none_or(|end| end > i64::MAX as u64)
        {
            return Err(EngineError::invalid(
                &job.name,
                format!(
                    "offset={offset} plus a region of {length} bytes ends past the largest file offset (2^63-1); lower offset= or size="
                ),
            ));
        }
        regions.push(FileRegion {
            path,
            offset,
            length,
        });
    }
    Ok(regions)
}

/// Where clone `clone` starts in `path` (fio's `get_start_offset`): a percentage is of the
/// existing file's size, or, for a file iofit creates, of the size per file (as fio takes
/// `size / nrfiles` for a file that does not exist yet).
fn start_offset(job: &JobSpec, path: &Path, clone: u32) -> Result<u64, EngineError> {
    let min_bs = job.block_size.min_size().as_u64().max(1);
    let file_size = if job.start.needs_file_size() {
        match (existing_size(path)?, job.size) {
            (Some(existing), _) => existing,
            (None, Some(SizeSpec::Bytes(bytes))) => bytes.as_u64(),
            (None, _) => {
                return Err(EngineError::invalid(
                    &job.name,
                    format!(
                        "offset or offset_increment in percent needs the file's size, but {} does not exist and size= is not in bytes; give size= in bytes (for example size=1g)",
                        path.display()
                    ),
                ))
            }
        }
    } else {
        0
    };
    Ok(job
        .start
        .for_clone(job.offset.as_u64(), clone, file_size, min_bs))
}

fn region_length(job: &JobSpec, path: &Path, offset: u64) -> Result<u64, EngineError> {
    if job.fill_device && !matches!(job.size, Some(SizeSpec::Bytes(_))) {
        // fio fill_device: the file system's free space, and a block more, so that the
        // writes end at ENOSPC (the worker takes that as the end) as fio's do.
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let free = free_bytes(dir).unwrap_or(0);
        let max_bs = job.block_size.max_size().as_u64().max(1);
        return Ok((free / max_bs + 1) * max_bs);
    }
    Ok(match job.size {
        Some(SizeSpec::Bytes(bytes)) => bytes.as_u64(),
        Some(SizeSpec::PercentOfTarget(pct)) => {
            let existing = existing_size(path)?.ok_or_else(|| {
                EngineError::invalid(
                    &job.name,
                    format!(
                        "size={pct}% needs an existing file, but {} does not exist; give an absolute size such as size=1g",
                        path.display()
                    ),
                )
            })?;
            (existing.saturating_sub(offset) as f64 * pct / 100.0) as u64
        }
        None => {
            let existing = existing_size(path)?.ok_or_else(|| {
                EngineError::invalid(
                    &job.name,
                    format!(
                        "{} does not exist and the job has no size; give size= (for example size=1g) so iofit can create it",
                        path.display()
                    ),
                )
            })?;
            existing.saturating_sub(offset)
        }
    })
}

/// Whether the job changes its files: writes (but not verify_only, which reads what a write
/// job would have written), and every IO of the falloc and ftruncate engines, which open
/// read-write whatever the direction (a falloc read still allocates blocks).
pub fn modifies_files(job: &JobSpec) -> bool {
    use iofit_model::job::EngineKind;
    (job.rw.has_writes() && !job.data.verify.only)
        || matches!(job.engine, EngineKind::Falloc | EngineKind::Ftruncate)
}

/// Every path the jobs use, what they need from it, and the safety verdict, each target opened
/// once and checked on its descriptor. Nothing is written.
pub fn plan_layout(jobs: &[JobSpec], allow_overwrite: bool) -> Result<Layout, EngineError> {
    let mut wanted: BTreeMap<PathBuf, (u64, bool)> = BTreeMap::new();
    for job in jobs {
        let writes = modifies_files(job);
        for clone in 0..job.numjobs.max(1) {
            for region in regions_for_clone(job, clone)? {
                let entry = wanted.entry(region.path.clone()).or_insert((0, false));
                // fill_device: created empty; the job's writes fill it (to ENOSPC).
                if !job.fill_device {
                    entry.0 = entry.0.max(region.offset + region.length);
                }
                entry.1 |= writes;
            }
        }
    }
    check_open_file_limit(jobs, wanted.len())?;
    let mut layout = Layout::default();
    for (path, (size, writes)) in wanted {
        let usage = Use {
            writes,
            needed_bytes: Bytes(size),
            allow_overwrite,
        };
        let action = match target::open_existing(&path, usage)? {
            None => {
                check_parent(&path)?;
                LayoutAction::Create
            }
            Some(t) => {
                if writes {
                    // The run will change the content: sealed again when it ends.
                    t.unseal();
                }
                let have = t.data_len_bytes();
                let action = if t.kind() == Kind::Regular && have < size {
                    LayoutAction::Extend { from: have }
                } else {
                    LayoutAction::UseAsIs
                };
                layout.targets.insert(path.clone(), t);
                action
            }
        };
        layout.needs.push(FileNeed {
            path,
            size,
            writes,
            action,
        });
    }
    check_free_space(&layout.needs)?;
    Ok(layout)
}

/// fio `unlink_each_loop` with loops > 1: each clone removes its files between its loops, so
/// (a) no file of such a clone may be used by another clone or job (it would vanish under
/// them), and (b) every regular file must be iofit's (created now, or marked by an earlier
/// run): fio would delete a user's file reached with `--allow-overwrite`, iofit refuses.
pub fn check_unlink_each_loop(
    jobs: &[JobSpec],
    layout: &Layout,
    each_loop: impl Fn(&JobSpec) -> bool,
) -> Result<(), EngineError> {
    let mut users: BTreeMap<PathBuf, Vec<(usize, u32)>> = BTreeMap::new();
    for (j, job) in jobs.iter().enumerate() {
        for clone in 0..job.numjobs.max(1) {
            for path in job.files_for_clone(clone) {
                users.entry(path).or_default().push((j, clone));
            }
        }
    }
    for job in jobs.iter().filter(|job| each_loop(job)) {
        for path in (0..job.numjobs.max(1)).flat_map(|c| job.files_for_clone(c)) {
            let invalid = |message: String| Err(EngineError::invalid(&job.name, message));
            let shared = users.get(&path).map_or(0, Vec::len);
            if shared > 1 {
                return invalid(format!(
                    "unlink_each_loop: {} is used by {shared} clones or jobs, and each clone removes its files between its loops; give each clone its own file (leave out filename=, or set filename_format=$jobname.$jobnum.$filenum)",
                    path.display()
                ));
            }
            let need = layout.needs.iter().find(|n| n.path == path);
            let foreign = match (need.map(|n| n.action), layout.targets.get(&path)) {
                (Some(LayoutAction::Create), _) | (None, _) => false,
                (_, Some(t)) => t.kind() == Kind::Regular && t.ownership().is_none(),
                (_, None) => false,
            };
            if foreign {
                return invalid(format!(
                    "unlink_each_loop: {} existed before the run and is not a file iofit created (it is used through --allow-overwrite); fio would delete it between loops, iofit never deletes a file it did not create: point filename= at a new file, or drop unlink_each_loop",
                    path.display()
                ));
            }
        }
    }
    Ok(())
}

/// Descriptors a run holds at its peak: every target once (held by the layout), plus, in the
/// largest set of jobs that run together, one per file of every clone and one ring per
/// io_uring clone, plus a margin for stdio, the Ctrl-C handler and outputs.
fn open_files_needed(jobs: &[JobSpec], targets: usize) -> u64 {
    const MARGIN: u64 = 32;
    let mut peak = 0u64;
    let mut current = 0u64;
    for (i, job) in jobs.iter().enumerate() {
        if i > 0 && job.stonewall {
            peak = peak.max(current);
            current = 0;
        }
        let ring = matches!(
            job.engine,
            iofit_model::job::EngineKind::IoUring | iofit_model::job::EngineKind::Libaio
        ) as u64;
        let per_clone = job.files_for_clone(0).len() as u64 + ring;
        current = current.saturating_add(per_clone.saturating_mul(job.numjobs.max(1) as u64));
    }
    (targets as u64)
        .saturating_add(peak.max(current))
        .saturating_add(MARGIN)
}

/// Refuses a run that would hit the open-file limit half-way (EMFILE), naming the limit and
/// the need. Raises the soft limit up to the hard one when that is enough.
fn check_open_file_limit(jobs: &[JobSpec], targets: usize) -> Result<(), EngineError> {
    let need = open_files_needed(jobs, targets);
    // SAFETY: getrlimit/setrlimit fill or read a plain struct.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 || limit.rlim_cur >= need {
        return Ok(());
    }
    if limit.rlim_max >= need {
        let raised = libc::rlimit {
            rlim_cur: need,
            rlim_max: limit.rlim_max,
        };
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            return Ok(());
        }
    }
    Err(EngineError::Invalid {
        job: jobs.first().map(|j| j.name.clone()).unwrap_or_default(),
        message: format!(
            "the jobs need about {need} open files ({targets} test file(s), one descriptor per file per clone, one io_uring ring per clone) but the open-file limit (ulimit -n) is {}; raise it with `ulimit -n {need}` or lower numjobs= / nrfiles=",
            limit.rlim_max
        ),
    })
}

fn check_parent(path: &Path) -> Result<(), EngineError> {
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
    match parent {
        Some(parent) if !parent.is_dir() => Err(EngineError::BadPath {
            path: path.to_path_buf(),
            message: format!(
                "directory {} does not exist; create it (mount the volume there) or point the jobs elsewhere with --directory DIR",
                parent.display()
            ),
        }),
        _ => Ok(()),
    }
}

/// Refuses a layout that would fill a filesystem, before writing anything (a run that dies of
/// ENOSPC half-way would leave huge files behind and measure nothing).
fn check_free_space(needs: &[FileNeed]) -> Result<(), EngineError> {
    let mut per_fs: BTreeMap<u64, (PathBuf, u64)> = BTreeMap::new();
    for need in needs {
        let mut to_write = bytes_to_write(need);
        if to_write == 0 {
            continue;
        }
        if need.action == LayoutAction::Create {
            // Room for a marker trailer, where the filesystem has no xattrs.
            to_write += marker::TRAILER_BYTES;
        }
        let dir = need
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dev = std::fs::metadata(dir).map(|m| m.dev()).unwrap_or(0);
        let entry = per_fs.entry(dev).or_insert((dir.to_path_buf(), 0));
        entry.1 = entry.1.saturating_add(to_write);
    }
    for (dir, bytes) in per_fs.into_values() {
        let Some(free) = free_bytes(&dir) else {
            continue;
        };
        if bytes > free {
            return Err(EngineError::BadPath {
                path: dir,
                message: format!(
                    "laying out the test files needs {} but the filesystem has {} free; lower size= so the files fit in {} (or free space, or point the job at a larger filesystem)",
                    human_bytes(bytes),
                    human_bytes(free),
                    human_bytes(free)
                ),
            });
        }
    }
    Ok(())
}

/// Free bytes for an unprivileged writer, or `None` when the filesystem does not say: ramfs
/// (and some FUSE filesystems) report zero blocks in total, so "0 free" means "unknown" there.
fn free_bytes(dir: &Path) -> Option<u64> {
    let cpath = CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the zeroed struct for a valid C path.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(cpath.as_ptr(), &mut stat) } != 0 || stat.f_blocks == 0 {
        return None;
    }
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

/// The fill pattern: one MiB of pseudo-random bytes (incompressible, deduplication-proof
/// enough for a test file).
fn fill_chunk() -> Vec<u8> {
    let mut chunk = vec![0u8; 1 << 20];
    let mut rng = SplitMix64::new(0x1A70_0700);
    for word in chunk.chunks_exact_mut(8) {
        word.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    chunk
}

/// Creates or extends every file that needs it, filling with pseudo-random data, and syncs.
/// Returns the bytes written. Stops early (with an error) when `stop` is set. On any error,
/// the files this call created are removed again (a partial file is not left behind).
pub fn lay_out(layout: &mut Layout, stop: &AtomicBool) -> Result<u64, EngineError> {
    lay_out_counting(layout, stop, &AtomicU64::new(0))
}

/// [`lay_out`], adding the bytes written to `written` as they go (a progress display reads it
/// from another thread).
pub fn lay_out_counting(
    layout: &mut Layout,
    stop: &AtomicBool,
    written_so_far: &AtomicU64,
) -> Result<u64, EngineError> {
    let chunk = fill_chunk();
    let mut written = 0u64;
    let mut created: Vec<PathBuf> = Vec::new();
    let needs = layout.needs.clone();
    for need in &needs {
        let result = lay_out_one(layout, need, &chunk, stop, &mut created, written_so_far);
        match result {
            Ok(bytes) => written += bytes,
            Err(e) => {
                let mut removed = 0;
                for path in &created {
                    if let Some(t) = layout.targets.remove(path) {
                        removed += t.remove_created().is_ok() as usize;
                    }
                }
                return Err(match e {
                    EngineError::Io {
                        context,
                        path,
                        error,
                    } if removed > 0 && iofit_safefs::error::is_user_setup_error(&error) => {
                        EngineError::BadPath {
                            message: format!(
                                "{context} it: {}; the {removed} file(s) this layout created were removed",
                                iofit_safefs::error::describe(&error)
                            ),
                            path,
                        }
                    }
                    other => other,
                });
            }
        }
    }
    Ok(written)
}

fn lay_out_one(
    layout: &mut Layout,
    need: &FileNeed,
    chunk: &[u8],
    stop: &AtomicBool,
    created: &mut Vec<PathBuf>,
    written_so_far: &AtomicU64,
) -> Result<u64, EngineError> {
    let (writer, from) = match need.action {
        LayoutAction::UseAsIs => return Ok(0),
        LayoutAction::Create => {
            // Created with O_EXCL|O_NOFOLLOW and marked before any data is written, so a
            // layout cut short is still recognised as ours.
            let (t, writer) = target::create(&need.path, need.size)?;
            layout.targets.insert(need.path.clone(), t);
            created.push(need.path.clone());
            (writer, 0)
        }
        LayoutAction::Extend { from } => {
            let t = &layout.targets[&need.path];
            let writer = t
                .reopen(true, false)
                .map_err(|e| EngineError::from_io("cannot open", &need.path, e))?;
            if t.ownership() == Some(MarkKind::Sidecar) {
                // The trailer moves to the new end first, so a cut-short extend stays ours.
                marker::move_trailer(&writer, &need.path, need.size)?;
            }
            (writer, from)
        }
    };
    let mut offset = from;
    while offset < need.size {
        if stop.load(Ordering::Relaxed) {
            return Err(EngineError::Interrupted);
        }
        let n = (need.size - offset).min(chunk.len() as u64) as usize;
        writer
            .write_all_at(&chunk[..n], offset)
            .map_err(|e| EngineError::from_io("cannot lay out", &need.path, e))?;
        // Start writing the chunk back now, so the closing fsync has little left to wait for:
        // a thread inside an fsync holds a stopped process's end until the disk answers.
        // SAFETY: sync_file_range on an open descriptor; it only starts writeback (a hint:
        // its failure changes nothing, the fsync below is what counts).
        unsafe {
            libc::sync_file_range(
                writer.as_raw_fd(),
                offset as libc::off64_t,
                n as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            )
        };
        offset += n as u64;
        written_so_far.fetch_add(n as u64, Ordering::Relaxed);
    }
    if stop.load(Ordering::Relaxed) {
        // Stopped: no fsync to wait for; the file is whole and ours, and the next run finds it.
        return Err(EngineError::Interrupted);
    }
    writer
        .sync_all()
        .map_err(|e| EngineError::from_io("cannot sync", &need.path, e))?;
    drop_laid_out_pages(&writer, from, need.size);
    Ok(need.size - from)
}

/// fio's `setup_files` drops what `extend_file` wrote from the page cache whatever the job's
/// `invalidate` says (`__file_invalidate_cache(old_len, extend_len)` right after the layout),
/// so a job starts with its new file cold. Without this, a buffered read job (or any job with
/// `invalidate=0`) read the layout's pages from memory: 10-40x fio's IOPS. The pages are clean
/// (synced just before), so POSIX_FADV_DONTNEED does drop them. A failure is only advice lost:
/// fio also just notes it and goes on.
fn drop_laid_out_pages(file: &std::fs::File, from: u64, to: u64) {
    if to <= from {
        return; // Nothing laid out (a length of 0 would mean "to the end of the file").
    }
    // SAFETY: posix_fadvise reads only its integer arguments; the descriptor is open.
    let _ = unsafe {
        libc::posix_fadvise(
            file.as_raw_fd(),
            from as libc::off_t,
            (to - from) as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::job::{RwMode, Target};
    use iofit_model::units::Bytes;

    fn job(path: &Path, rw: RwMode) -> JobSpec {
        let mut job = JobSpec::new("t", Target::Files(vec![path.to_path_buf()])).with_rw(rw);
        job.size = Some(SizeSpec::Bytes(Bytes::kib(64)));
        job
    }

    #[test]
    fn refuses_to_write_a_foreign_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("precious.db");
        std::fs::write(&path, vec![7u8; 128 * 1024]).unwrap();
        let err = plan_layout(&[job(&path, RwMode::RandWrite)], false).unwrap_err();
        assert!(matches!(err, EngineError::Refused { .. }), "{err}");
        assert!(err.to_string().contains("--allow-overwrite"));
        // Reading it is fine, and allowing overwrite lifts the refusal.
        assert!(plan_layout(&[job(&path, RwMode::RandRead)], false).is_ok());
        assert!(plan_layout(&[job(&path, RwMode::RandWrite)], true).is_ok());
        assert_eq!(std::fs::read(&path).unwrap(), vec![7u8; 128 * 1024]);
    }

    #[test]
    fn refuses_to_extend_a_foreign_file_even_for_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small");
        std::fs::write(&path, vec![1u8; 4096]).unwrap();
        let err = plan_layout(&[job(&path, RwMode::Read)], false).unwrap_err();
        assert!(matches!(err, EngineError::Refused { .. }));
    }

    #[test]
    fn the_layout_counts_its_bytes_as_it_writes() {
        let dir = tempfile::tempdir().unwrap();
        let jobs = [job(&dir.path().join("counted"), RwMode::Write)];
        let mut layout = plan_layout(&jobs, false).unwrap();
        let written = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let total = lay_out_counting(&mut layout, &stop, &written).unwrap();
        assert_eq!(
            (total, written.load(Ordering::Relaxed)),
            (64 * 1024, 64 * 1024)
        );
    }

    /// Pages of `path` in the page cache: mincore over a read-only shared mapping.
    fn resident_pages(path: &Path) -> usize {
        let file = File::open(path).unwrap();
        let len = file.metadata().unwrap().len() as usize;
        let page = 4096;
        let mut vec = vec![0u8; len.div_ceil(page)];
        // SAFETY: a read-only shared mapping of an open file, `len` bytes long; mincore writes
        // one byte per page into `vec`, which holds that many; the mapping is removed after.
        unsafe {
            let addr = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            );
            assert_ne!(addr, libc::MAP_FAILED);
            assert_eq!(libc::mincore(addr, len, vec.as_mut_ptr()), 0);
            libc::munmap(addr, len);
        }
        vec.iter().filter(|b| *b & 1 == 1).count()
    }

    /// A directory on a disk-backed file system (tmpfs pages cannot leave the cache), or None.
    fn disk_dir() -> Option<tempfile::TempDir> {
        let dir = tempfile::tempdir_in("/var/tmp").ok()?;
        // SAFETY: statfs fills the struct it is given; the path is a valid C string.
        let mut st: libc::statfs = unsafe { std::mem::zeroed() };
        let c = CString::new(dir.path().as_os_str().as_encoded_bytes()).unwrap();
        let rc = unsafe { libc::statfs(c.as_ptr(), &mut st) };
        (rc == 0 && st.f_type != libc::TMPFS_MAGIC).then_some(dir)
    }

    #[test]
    fn a_fresh_layout_leaves_no_pages_in_the_cache_as_fio() {
        let Some(dir) = disk_dir() else {
            eprintln!("skipped: /var/tmp is tmpfs, whose pages the kernel cannot drop");
            return;
        };
        let path = dir.path().join("cold");
        let mut spec = job(&path, RwMode::RandRead);
        spec.size = Some(SizeSpec::Bytes(Bytes::mib(8)));
        let mut layout = plan_layout(&[spec.clone()], false).unwrap();
        lay_out(&mut layout, &AtomicBool::new(false)).unwrap();
        // fio's setup_files drops the extended range after extend_file (whatever `invalidate`
        // says): its jobs start cold. A few pages may come back through the marker's reads.
        let resident = resident_pages(&path);
        assert!(
            resident <= 8,
            "{resident} of 2048 pages still cached after the layout"
        );
        // Extending it drops the new range too.
        spec.size = Some(SizeSpec::Bytes(Bytes::mib(16)));
        let mut layout = plan_layout(&[spec], false).unwrap();
        assert!(matches!(
            layout.needs[0].action,
            LayoutAction::Extend { .. }
        ));
        assert_eq!(std::fs::read(&path).unwrap().len(), 8 << 20);
        lay_out(&mut layout, &AtomicBool::new(false)).unwrap();
        let resident = resident_pages(&path);
        assert!(
            (2048..=2048 + 8).contains(&resident),
            "{resident} pages cached: the first 8 MiB (read before) stay, the new 8 MiB leave"
        );
    }

    #[test]
    fn files_iofit_created_are_recognised_later() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine");
        let jobs = [job(&path, RwMode::Write)];
        let mut layout = plan_layout(&jobs, false).unwrap();
        assert_eq!(layout.needs[0].action, LayoutAction::Create);
        let stop = AtomicBool::new(false);
        assert_eq!(lay_out(&mut layout, &stop).unwrap(), 64 * 1024);
        assert_eq!(existing_size(&path).unwrap(), Some(64 * 1024));
        // A second run may write it again, through the descriptor it checked.
        let layout = plan_layout(&jobs, false).unwrap();
        assert_eq!(layout.needs[0].action, LayoutAction::UseAsIs);
        let file = layout.open_for_job(&path, true, false).unwrap();
        file.write_all_at(b"ok", 0).unwrap();
    }

    #[test]
    fn an_interrupted_layout_removes_the_file_it_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cut");
        let mut layout = plan_layout(&[job(&path, RwMode::Write)], false).unwrap();
        let stop = AtomicBool::new(true);
        assert!(matches!(
            lay_out(&mut layout, &stop),
            Err(EngineError::Interrupted)
        ));
        assert!(!path.exists());
    }

    #[test]
    fn an_offset_near_the_top_of_u64_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = job(&dir.path().join("o"), RwMode::Read);
        j.offset = Bytes(u64::MAX);
        let err = plan_layout(&[j], false).unwrap_err();
        assert!(
            err.is_bad_input() && err.to_string().contains("offset="),
            "{err}"
        );
    }

    #[test]
    fn refuses_block_devices() {
        // Any block device on the machine will do; none is touched (the check fails first).
        let device = ["/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/loop0"]
            .iter()
            .map(Path::new)
            .find(|p| {
                std::fs::metadata(p)
                    .map(|m| m.file_type().is_block_device())
                    .unwrap_or(false)
            });
        let Some(device) = device else {
            eprintln!("no block device visible; skipping");
            return;
        };
        let err = plan_layout(&[job(device, RwMode::Write)], false).unwrap_err();
        assert!(err.to_string().contains("block device"), "{err}");
    }

    #[test]
    fn missing_file_without_size_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = job(&dir.path().join("nope"), RwMode::Read);
        j.size = None;
        let err = plan_layout(&[j], false).unwrap_err();
        assert!(err.to_string().contains("size="), "{err}");
        assert!(err.is_bad_input());
    }

    #[test]
    fn a_layout_larger_than_the_free_space_is_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = job(&dir.path().join("huge"), RwMode::Write);
        j.size = Some(SizeSpec::Bytes(Bytes::tib(1024)));
        let err = plan_layout(&[j], false).unwrap_err();
        assert!(err.to_string().contains("free"), "{err}");
        assert!(err.to_string().contains("1.00 PiB"), "{err}");
        assert!(err.is_bad_input());
        assert!(!dir.path().join("huge").exists());
    }

    #[test]
    fn block_size_larger_than_region_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = job(&dir.path().join("x"), RwMode::Read);
        j.size = Some(SizeSpec::Bytes(Bytes::kib(4)));
        j.block_size = iofit_model::job::BlockSizeSpec::fixed(Bytes::kib(8));
        assert!(plan_layout(&[j], false).is_err());
    }
}
