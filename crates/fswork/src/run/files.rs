//! The file primitives the format phase and the workers share: open flags from the run's
//! options, creating a file beneath the anchor, whole-file and positioned transfers, and the
//! format phase that creates the trees.

use super::{FsOptions, PhaseResult, Shared, OTHERS, PRESENT};
use crate::buffer::AlignedBuffer;
use crate::stats::OpStats;
use crate::FsError;
use iofit_jobfile::vdbench::{FileOp, FsRun, SyncFlag};
use iofit_model::units::Seconds;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Creates every directory and every missing file, full size, with the format threads.
pub(super) fn format_trees(
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
    let seconds = Seconds(start.elapsed().as_secs_f64());
    Ok(PhaseResult {
        stats,
        seconds,
        busy_seconds: seconds,
        intervals: Vec::new(),
    })
}

pub(super) fn open_options(s: &Shared, write: bool, create: bool) -> libc::c_int {
    open_options_with(s.direct, s.sync, write, create)
}

/// Open flags: the fsd's `openflags=`, or the fwd's when it gives its own.
pub(super) fn open_options_with(
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
pub(super) fn create_file(
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

pub(super) fn transfer_at(
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
