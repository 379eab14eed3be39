//! Targets: open each file or device a run uses ONCE, decide on the open descriptor whether
//! iofit may write it, and hand out re-opens of that same inode (never of the name) to every
//! job. A name swapped for a symbolic link, a device or another file after the check changes
//! nothing: the jobs use what was checked.

use crate::error::SafeFsError;
use crate::marker::{self, Identity, MarkKind};
use crate::sys;
use iofit_model::units::Bytes;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// What a path turned out to be, on the open descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Regular,
    BlockDevice,
    Directory,
    /// A character device, FIFO or socket.
    Other,
}

/// One opened target. The descriptor is read-only; jobs get their own descriptions of the
/// same inode with [`Target::reopen`].
#[derive(Debug)]
pub struct Target {
    file: File,
    path: PathBuf,
    kind: Kind,
    identity: Identity,
    /// File length (or device size) when opened.
    len_bytes: u64,
    owned: Option<MarkKind>,
    /// iofit created it in this run (so it may remove it if the layout fails).
    created: bool,
}

impl Target {
    pub fn file(&self) -> &File {
        &self.file
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn kind(&self) -> Kind {
        self.kind
    }
    pub fn identity(&self) -> Identity {
        self.identity
    }
    pub fn ownership(&self) -> Option<MarkKind> {
        self.owned
    }
    pub fn created(&self) -> bool {
        self.created
    }
    /// Bytes of data: the length, less the marker trailer of a sidecar-marked file.
    pub fn data_len_bytes(&self) -> u64 {
        match self.owned {
            Some(MarkKind::Sidecar) => self.len_bytes.saturating_sub(marker::TRAILER_BYTES),
            _ => self.len_bytes,
        }
    }

    /// A new open file description of this very inode (through `/proc/self/fd`, which names
    /// the descriptor, not the path), for reading, or reading and writing, with `O_DIRECT`
    /// when asked. Fails if what opens is not the inode that was checked.
    pub fn reopen(&self, write: bool, direct: bool) -> io::Result<File> {
        self.reopen_with(write, direct, 0)
    }

    /// [`CheckedTarget::reopen`] with extra open flags such as `O_SYNC` or `O_DSYNC`.
    pub fn reopen_with(&self, write: bool, direct: bool, extra_flags: i32) -> io::Result<File> {
        let mut flags = if write { libc::O_RDWR } else { libc::O_RDONLY };
        flags |= extra_flags & (libc::O_SYNC | libc::O_DSYNC);
        if direct {
            flags |= libc::O_DIRECT;
        }
        let proc_path = PathBuf::from(format!("/proc/self/fd/{}", self.file.as_raw_fd()));
        let file = sys::open(&proc_path, flags, 0)?;
        let st = sys::fstat(&file)?;
        if st.st_dev != self.identity.dev || st.st_ino != self.identity.ino {
            return Err(io::Error::other(
                "the reopened descriptor is not the checked file",
            ));
        }
        Ok(file)
    }

    /// Seals the content of an xattr-marked file of iofit's as it is now ([`marker::seal`]),
    /// after a layout or a run wrote it.
    pub fn seal(&self) {
        if self.kind == Kind::Regular && self.owned == Some(MarkKind::Xattr) {
            let _ = marker::seal(&self.file);
        }
    }

    /// Lifts the seal before the run writes the file ([`marker::unseal`]).
    pub fn unseal(&self) {
        if self.kind == Kind::Regular && self.owned == Some(MarkKind::Xattr) {
            marker::unseal(&self.file);
        }
    }

    /// Removes the file iofit created in this run (after a failed layout), if the name still
    /// refers to it. Never removes anything else.
    pub fn remove_created(&self) -> Result<(), SafeFsError> {
        if !self.created {
            return Ok(());
        }
        self.unlink_same_inode()
    }

    /// Removes the file if it is iofit's: created by this run, or carrying iofit's marker
    /// from an earlier run (checked on this descriptor when it was opened). Returns whether
    /// it is iofit's; a file without the marker is left alone.
    pub fn remove_own(&self) -> Result<bool, SafeFsError> {
        if self.kind != Kind::Regular || (self.owned.is_none() && !self.created) {
            return Ok(false);
        }
        self.unlink_same_inode()?;
        Ok(true)
    }

    /// Unlinks the name if it still names this target's inode (a name swapped since is left).
    fn unlink_same_inode(&self) -> Result<(), SafeFsError> {
        let (dir, name) =
            sys::split(&self.path).map_err(|e| SafeFsError::io("bad path", &self.path, e))?;
        let dirfd =
            sys::open_dir(&dir).map_err(|e| SafeFsError::io("cannot open directory", &dir, e))?;
        let st = sys::lstatat(&dirfd, name)
            .map_err(|e| SafeFsError::io("cannot inspect", &self.path, e))?;
        if st.st_dev != self.identity.dev || st.st_ino != self.identity.ino {
            return Ok(());
        }
        sys::unlinkat(&dirfd, name).map_err(|e| SafeFsError::io("cannot remove", &self.path, e))?;
        if self.owned == Some(MarkKind::Sidecar) {
            marker::remove_sidecar(&self.path);
        }
        Ok(())
    }
}

/// What the run will do with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Use {
    /// Some job writes it.
    pub writes: bool,
    /// The bytes the jobs need it to hold.
    pub needed_bytes: Bytes,
    /// Writing to block devices and files iofit did not create is allowed.
    pub allow_overwrite: bool,
}

fn kind_of(mode: libc::mode_t) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => Kind::Regular,
        libc::S_IFBLK => Kind::BlockDevice,
        libc::S_IFDIR => Kind::Directory,
        _ => Kind::Other,
    }
}

/// Opens an existing target once and applies the never-destroy rules on the descriptor.
/// `Ok(None)`: nothing by that name (the caller may [`create`] it).
pub fn open_existing(path: &Path, usage: Use) -> Result<Option<Target>, SafeFsError> {
    // O_NOFOLLOW: a name that must be iofit's regular file is not followed through a link.
    // O_NONBLOCK: opening a FIFO must not hang.
    let base = libc::O_RDONLY | libc::O_NONBLOCK;
    let file = match sys::open(path, base | libc::O_NOFOLLOW, 0) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            if usage.writes && !usage.allow_overwrite {
                return Err(SafeFsError::refused(
                    path,
                    "it is a symbolic link, and iofit writes only to files it created, named \
                     directly. Name the file itself, or pass --allow-overwrite",
                ));
            }
            // Reading through a link is harmless, and --allow-overwrite accepts it; the
            // checks below are still made on what opened.
            match sys::open(path, base, 0) {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(SafeFsError::bad(path, "is a dangling symbolic link"))
                }
                Err(e) => return Err(open_error(path, usage, e)),
            }
        }
        Err(e) => return Err(open_error(path, usage, e)),
    };
    sys::clear_nonblock(&file).map_err(|e| SafeFsError::io("cannot open", path, e))?;
    let st = sys::fstat(&file).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    let kind = kind_of(st.st_mode);
    let identity = Identity::of(&file).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    let len_bytes = match kind {
        Kind::BlockDevice => block_device_size(&file)
            .map_err(|e| SafeFsError::io("cannot read the size of", path, e))?,
        _ => st.st_size as u64,
    };
    let owned = if kind == Kind::Regular {
        marker::ownership(&file, path)
    } else {
        None
    };
    let target = Target {
        file,
        path: path.to_path_buf(),
        kind,
        identity,
        len_bytes,
        owned,
        created: false,
    };
    check_use(&target, usage)?;
    Ok(Some(target))
}

/// An open that failed on a device iofit would refuse anyway (a device cgroup may forbid even
/// opening it) gives the refusal, which says what to do, rather than the OS error.
fn open_error(path: &Path, usage: Use, e: io::Error) -> SafeFsError {
    use std::os::unix::fs::FileTypeExt;
    if usage.writes && !usage.allow_overwrite {
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.file_type().is_block_device() {
                return SafeFsError::refused(path, "it is a block device; writing to it destroys the filesystem or data on it. Use a file or directory for the test, or pass --allow-overwrite if you really mean to overwrite it");
            }
        }
    }
    SafeFsError::io("cannot open", path, e)
}

fn check_use(target: &Target, usage: Use) -> Result<(), SafeFsError> {
    let path = &target.path;
    let have = target.data_len_bytes();
    match target.kind {
        Kind::Directory => Err(SafeFsError::bad(
            path,
            "is a directory; use directory= for a directory, filename= for a file",
        )),
        Kind::BlockDevice | Kind::Other => {
            if usage.writes && !usage.allow_overwrite {
                let what = if target.kind == Kind::BlockDevice {
                    "it is a block device; writing to it destroys the filesystem or data on it"
                } else {
                    "it is not a regular file"
                };
                return Err(SafeFsError::refused(path, format!(
                    "{what}. Use a file or directory for the test, or pass --allow-overwrite if you really mean to overwrite it"
                )));
            }
            if target.kind == Kind::BlockDevice && have < usage.needed_bytes.as_u64() {
                return Err(SafeFsError::bad(path, format!(
                    "the jobs need {} but the device holds {}; lower size=",
                    crate::human_bytes(usage.needed_bytes.as_u64()),
                    crate::human_bytes(have)
                )));
            }
            Ok(())
        }
        Kind::Regular if target.owned.is_some() || usage.allow_overwrite => Ok(()),
        Kind::Regular if usage.writes => Err(SafeFsError::refused(
            path,
            "the file exists and iofit did not create it, so it may hold data that a write job would destroy. Point the job at a new file or directory, delete the file yourself, or pass --allow-overwrite",
        )),
        Kind::Regular if have < usage.needed_bytes.as_u64() => Err(SafeFsError::refused(path, format!(
            "the file exists, iofit did not create it, and it holds {have} bytes but the job reads {}; extending it would modify it. Lower size= to at most {have}, use a new file, or pass --allow-overwrite",
            usage.needed_bytes.as_u64()
        ))),
        Kind::Regular => Ok(()),
    }
}

/// Creates `path` (which must not exist: `O_CREAT|O_EXCL|O_NOFOLLOW`), marks it as iofit's
/// before any data is written, and returns it open read-write. A sidecar-marked file gets its
/// trailer at `data_bytes`.
pub fn create(path: &Path, data_bytes: u64) -> Result<(Target, File), SafeFsError> {
    let (dir, name) = sys::split(path).map_err(|e| SafeFsError::io("bad path", path, e))?;
    let dirfd = sys::open_dir(&dir).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            SafeFsError::bad(path, format!(
                "directory {} does not exist; create it (mount the volume there) or point the jobs elsewhere with --directory DIR",
                dir.display()
            ))
        } else {
            SafeFsError::io("cannot open directory", &dir, e)
        }
    })?;
    let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let file = sys::openat(&dirfd, name, flags, 0o644)
        .map_err(|e| SafeFsError::io("cannot create", path, e))?;
    let identity = Identity::of(&file).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    let mut target = Target {
        file,
        path: path.to_path_buf(),
        kind: Kind::Regular,
        identity,
        len_bytes: 0,
        owned: None,
        created: true,
    };
    match marker::mark_new_file(&target.file, path, data_bytes) {
        Ok(kind) => target.owned = Some(kind),
        Err(e) => {
            // Not marked: remove what was just created rather than leave a foreign-looking file.
            let _ = sys::unlinkat(&dirfd, name);
            return Err(e);
        }
    }
    let writer = target
        .reopen(true, false)
        .map_err(|e| SafeFsError::io("cannot open", path, e))?;
    target.len_bytes = sys::fstat(&target.file)
        .map(|s| s.st_size as u64)
        .unwrap_or(0);
    Ok((target, writer))
}

fn block_device_size(file: &File) -> io::Result<u64> {
    let mut size: u64 = 0;
    // BLKGETSIZE64 = _IOR(0x12, 114, size_t)
    const BLKGETSIZE64: libc::c_ulong = 0x8008_1272;
    // SAFETY: the ioctl writes one u64 into `size`; the descriptor is open.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(size)
}
