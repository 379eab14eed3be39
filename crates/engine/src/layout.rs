//! Test files: resolve every job's files and regions, refuse anything that could destroy data,
//! then create and fill files before timing starts (as fio lays out its files).
//!
//! Never destroy data: writing to a block device (or any non-regular file), or to an existing
//! regular file that iofit did not create, is refused unless the caller allows overwriting.
//! Extending a foreign file counts as writing to it. Reading anything is fine. A file iofit
//! creates is marked, so a later run recognises it as its own: the extended attribute
//! `user.iofit` when the filesystem supports it, else a sidecar `.<name>.iofit` holding the
//! file's device and inode (so a different file later put under the same name is not trusted).

use crate::error::EngineError;
use crate::random::SplitMix64;
use iofit_model::job::{JobSpec, SizeSpec};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

const XATTR_NAME: &str = "user.iofit";
const XATTR_VALUE: &[u8] = b"created-by-iofit";

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

/// Size of a file or block device, if it exists.
pub fn existing_size(path: &Path) -> Result<Option<u64>, EngineError> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.file_type().is_block_device() => block_device_size(path).map(Some),
        Ok(meta) => Ok(Some(meta.len())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EngineError::io("cannot inspect", path, e)),
    }
}

fn block_device_size(path: &Path) -> Result<u64, EngineError> {
    let file = File::open(path).map_err(|e| EngineError::io("cannot open", path, e))?;
    let mut size: u64 = 0;
    // BLKGETSIZE64 = _IOR(0x12, 114, size_t)
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    // SAFETY: the ioctl writes one u64 into `size`.
    let rc = unsafe {
        libc::ioctl(
            std::os::fd::AsRawFd::as_raw_fd(&file),
            BLKGETSIZE64 as _,
            &mut size,
        )
    };
    if rc < 0 {
        return Err(EngineError::io(
            "cannot read the size of",
            path,
            std::io::Error::last_os_error(),
        ));
    }
    Ok(size)
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
    let offset = job.offset.as_u64();
    let max_bs = job.block_size.max_size().as_u64().max(1);
    let mut regions = Vec::with_capacity(files.len());
    for path in files {
        let length = match job.size {
            Some(SizeSpec::Bytes(bytes)) => bytes.as_u64(),
            Some(SizeSpec::PercentOfTarget(pct)) => {
                let existing = existing_size(&path)?.ok_or_else(|| {
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
                let existing = existing_size(&path)?.ok_or_else(|| {
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
        };
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
        regions.push(FileRegion {
            path,
            offset,
            length,
        });
    }
    Ok(regions)
}

/// Every path the jobs use, what they need from it, and the safety verdict. Nothing is written.
pub fn plan_layout(jobs: &[JobSpec], allow_overwrite: bool) -> Result<Vec<FileNeed>, EngineError> {
    let mut needs: BTreeMap<PathBuf, (u64, bool)> = BTreeMap::new();
    for job in jobs {
        let writes = job.rw.has_writes();
        for clone in 0..job.numjobs.max(1) {
            for region in regions_for_clone(job, clone)? {
                let entry = needs.entry(region.path.clone()).or_insert((0, false));
                entry.0 = entry.0.max(region.offset + region.length);
                entry.1 |= writes;
            }
        }
    }
    let mut out = Vec::with_capacity(needs.len());
    for (path, (size, writes)) in needs {
        let action = check_path(&path, size, writes, allow_overwrite)?;
        out.push(FileNeed {
            path,
            size,
            writes,
            action,
        });
    }
    check_free_space(&out)?;
    Ok(out)
}

/// Refuses a layout that would fill a filesystem, before writing anything (a run that dies of
/// ENOSPC half-way would leave huge files behind and measure nothing).
fn check_free_space(needs: &[FileNeed]) -> Result<(), EngineError> {
    let mut per_fs: BTreeMap<u64, (PathBuf, u64)> = BTreeMap::new();
    for need in needs {
        let to_write = match need.action {
            LayoutAction::Create => need.size,
            LayoutAction::Extend { from } => need.size - from,
            LayoutAction::UseAsIs => continue,
        };
        let dir = need
            .path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dev = std::fs::metadata(dir).map(|m| m.dev()).unwrap_or(0);
        let entry = per_fs.entry(dev).or_insert((dir.to_path_buf(), 0));
        entry.1 += to_write;
    }
    for (dir, bytes) in per_fs.into_values() {
        let Some(free) = free_bytes(&dir) else {
            continue;
        };
        if bytes > free {
            return Err(EngineError::BadPath {
                path: dir,
                message: format!(
                    "laying out the test files needs {:.1} GiB but the filesystem has {:.1} GiB free; lower size= (for example --size 1g)",
                    bytes as f64 / (1u64 << 30) as f64,
                    free as f64 / (1u64 << 30) as f64
                ),
            });
        }
    }
    Ok(())
}

fn free_bytes(dir: &Path) -> Option<u64> {
    let cpath = CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs fills the struct for a valid C path.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(cpath.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    Some(stat.f_bavail as u64 * stat.f_frsize as u64)
}

fn check_path(
    path: &Path,
    size: u64,
    writes: bool,
    allow_overwrite: bool,
) -> Result<LayoutAction, EngineError> {
    let meta = match std::fs::symlink_metadata(path).and_then(|_| std::fs::metadata(path)) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(parent) = parent {
                if !parent.is_dir() {
                    return Err(EngineError::BadPath {
                        path: path.to_path_buf(),
                        message: format!(
                            "directory {} does not exist; create it (mount the volume there) or point the jobs elsewhere with --directory DIR",
                            parent.display()
                        ),
                    });
                }
            }
            return Ok(LayoutAction::Create);
        }
        Err(e) => return Err(EngineError::io("cannot inspect", path, e)),
    };
    let file_type = meta.file_type();
    if !file_type.is_file() {
        let what = if file_type.is_block_device() {
            "it is a block device; writing to it destroys the filesystem or data on it"
        } else if file_type.is_dir() {
            return Err(EngineError::BadPath {
                path: path.to_path_buf(),
                message: "is a directory; use directory= for a directory, filename= for a file"
                    .to_string(),
            });
        } else {
            "it is not a regular file"
        };
        if writes && !allow_overwrite {
            return Err(EngineError::Refused {
                path: path.to_path_buf(),
                reason: format!(
                    "{what}. Use a file or directory for the test, or pass --allow-overwrite if you really mean to overwrite it"
                ),
            });
        }
        let existing = existing_size(path)?.unwrap_or(0);
        if existing < size {
            return Err(EngineError::BadPath {
                path: path.to_path_buf(),
                message: format!(
                    "the jobs need {size} bytes but the device holds {existing}; lower size="
                ),
            });
        }
        return Ok(LayoutAction::UseAsIs);
    }
    let ours = is_iofit_file(path, &meta);
    let existing = meta.len();
    if !ours && !allow_overwrite {
        if writes {
            return Err(EngineError::Refused {
                path: path.to_path_buf(),
                reason: "the file exists and iofit did not create it, so it may hold data that a write job would destroy. Point the job at a new file or directory, delete the file yourself, or pass --allow-overwrite".to_string(),
            });
        }
        if existing < size {
            return Err(EngineError::Refused {
                path: path.to_path_buf(),
                reason: format!(
                    "the file exists, iofit did not create it, and it holds {existing} bytes but the job reads {size}; extending it would modify it. Lower size= to at most {existing}, use a new file, or pass --allow-overwrite"
                ),
            });
        }
    }
    if existing < size {
        Ok(LayoutAction::Extend { from: existing })
    } else {
        Ok(LayoutAction::UseAsIs)
    }
}

/// True when `path` carries iofit's marker (xattr, or a sidecar naming this very inode).
pub fn is_iofit_file(path: &Path, meta: &std::fs::Metadata) -> bool {
    if let Ok(cpath) = CString::new(path.as_os_str().as_bytes()) {
        let name = CString::new(XATTR_NAME).expect("static name");
        let mut value = [0u8; 32];
        // SAFETY: valid C strings and a buffer of the given length.
        let n = unsafe {
            libc::getxattr(
                cpath.as_ptr(),
                name.as_ptr(),
                value.as_mut_ptr() as *mut libc::c_void,
                value.len(),
            )
        };
        if n > 0 && &value[..n as usize] == XATTR_VALUE {
            return true;
        }
    }
    match std::fs::read_to_string(sidecar_path(path)) {
        Ok(text) => text.trim() == sidecar_text(meta),
        Err(_) => false,
    }
}

fn sidecar_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.iofit"))
}

fn sidecar_text(meta: &std::fs::Metadata) -> String {
    format!("created-by-iofit dev={} ino={}", meta.dev(), meta.ino())
}

/// Marks `file` (at `path`) as created by iofit.
pub fn mark_as_iofit(path: &Path, file: &File) -> Result<(), EngineError> {
    let name = CString::new(XATTR_NAME).expect("static name");
    // SAFETY: valid fd, C string and value buffer.
    let rc = unsafe {
        libc::fsetxattr(
            std::os::fd::AsRawFd::as_raw_fd(file),
            name.as_ptr(),
            XATTR_VALUE.as_ptr() as *const libc::c_void,
            XATTR_VALUE.len(),
            0,
        )
    };
    if rc == 0 {
        return Ok(());
    }
    // No user xattrs on this filesystem: fall back to the sidecar.
    let meta = file
        .metadata()
        .map_err(|e| EngineError::io("cannot inspect", path, e))?;
    std::fs::write(sidecar_path(path), sidecar_text(&meta) + "\n")
        .map_err(|e| EngineError::io("cannot write the iofit marker next to", path, e))
}

/// Creates or extends every file that needs it, filling with pseudo-random data, and syncs.
/// Returns the bytes written. Stops early (with an error) when `stop` is set.
pub fn lay_out(needs: &[FileNeed], stop: &AtomicBool) -> Result<u64, EngineError> {
    let mut written = 0u64;
    const CHUNK: usize = 1 << 20;
    let mut chunk = vec![0u8; CHUNK];
    let mut rng = SplitMix64::new(0x1A70_0700);
    for word in chunk.chunks_exact_mut(8) {
        word.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    for need in needs {
        let (mut file, from) = match need.action {
            LayoutAction::UseAsIs => continue,
            LayoutAction::Create => {
                let file = OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o644)
                    .open(&need.path)
                    .map_err(|e| EngineError::io("cannot create", &need.path, e))?;
                // Mark first, so a layout cut short is still recognised as ours.
                mark_as_iofit(&need.path, &file)?;
                (file, 0)
            }
            LayoutAction::Extend { from } => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(&need.path)
                    .map_err(|e| EngineError::io("cannot open", &need.path, e))?;
                (file, from)
            }
        };
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(from))
            .map_err(|e| EngineError::io("cannot seek in", &need.path, e))?;
        let mut remaining = need.size - from;
        while remaining > 0 {
            if stop.load(Ordering::Relaxed) {
                return Err(EngineError::Interrupted);
            }
            let n = remaining.min(CHUNK as u64) as usize;
            file.write_all(&chunk[..n])
                .map_err(|e| EngineError::io("cannot lay out", &need.path, e))?;
            remaining -= n as u64;
            written += n as u64;
        }
        file.sync_all()
            .map_err(|e| EngineError::io("cannot sync", &need.path, e))?;
    }
    Ok(written)
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
    fn files_iofit_created_are_recognised_later() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine");
        let jobs = [job(&path, RwMode::Write)];
        let needs = plan_layout(&jobs, false).unwrap();
        assert_eq!(needs[0].action, LayoutAction::Create);
        let stop = AtomicBool::new(false);
        assert_eq!(lay_out(&needs, &stop).unwrap(), 64 * 1024);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 64 * 1024);
        // A second run may write it again.
        let needs = plan_layout(&jobs, false).unwrap();
        assert_eq!(needs[0].action, LayoutAction::UseAsIs);
        let meta = std::fs::metadata(&path).unwrap();
        assert!(is_iofit_file(&path, &meta));
    }

    #[test]
    fn a_replaced_file_loses_the_sidecar_trust() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        std::fs::write(sidecar_path(&path), sidecar_text(&meta)).unwrap();
        assert!(is_iofit_file(&path, &meta));
        std::fs::remove_file(&path).unwrap();
        // Hold the old inode number so the new file gets a different one.
        let _other = std::fs::write(dir.path().join("g"), b"y");
        std::fs::write(&path, b"new data").unwrap();
        let meta2 = std::fs::metadata(&path).unwrap();
        if meta2.ino() != meta.ino() {
            assert!(!is_iofit_file(&path, &meta2));
        }
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
