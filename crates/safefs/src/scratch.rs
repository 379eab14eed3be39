//! Directories iofit makes for itself (a demo's run directory, a run's keys directory, a
//! report's default directory) and what it writes into them.
//!
//! A scratch directory is created new, mode 0700, with a random name under a parent the user
//! chose (the temp directory), so no one can have planted anything in it; it is removed when
//! dropped. A fixed-name private directory ([`private_dir`]) is used only when it is a real
//! directory of this user, never a symbolic link planted at that name.

use crate::error::SafeFsError;
use crate::sys;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

/// A directory this process created, removed with everything in it when dropped (unless
/// [`Scratch::keep`] was called). The removal never follows a symbolic link.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    keep: bool,
}

impl Scratch {
    /// Creates `PARENT/PREFIX-PID-RANDOM`, mode 0700.
    pub fn create(parent: &Path, prefix: &str) -> Result<Scratch, SafeFsError> {
        for _ in 0..16 {
            let id =
                sys::random_u128().map_err(|e| SafeFsError::io("no random name in", parent, e))?;
            let path = parent.join(format!(
                "{prefix}-{}-{:012x}",
                std::process::id(),
                id as u64 & 0xffff_ffff_ffff
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(Scratch { path, keep: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(SafeFsError::io("cannot create directory", &path, e)),
            }
        }
        Err(SafeFsError::bad(
            parent,
            "no free directory name after 16 tries; clean up the temp directory",
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leaves the directory in place; returns its path.
    pub fn keep(mut self) -> PathBuf {
        self.keep = true;
        self.path.clone()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = remove_tree(&self.path);
        }
    }
}

/// Removes a directory iofit made and everything in it. A symbolic link inside is removed as
/// a name, never followed; `path` itself must be a real directory, not a link.
pub fn remove_tree(path: &Path) -> Result<(), SafeFsError> {
    let meta =
        std::fs::symlink_metadata(path).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    if !meta.is_dir() {
        return Err(SafeFsError::refused(
            path,
            "it is not a directory iofit made (a link or a file); it is left alone",
        ));
    }
    // std's remove_dir_all walks with openat/unlinkat and does not follow links.
    std::fs::remove_dir_all(path).map_err(|e| SafeFsError::io("cannot remove", path, e))
}

/// `path` as a private directory of this user: created (0700) when missing; an existing one
/// must be a real directory owned by this user (a symbolic link, a file or another user's
/// directory planted at a fixed name such as `$TMPDIR/iofit-demo` is refused).
pub fn private_dir(path: &Path) -> Result<PathBuf, SafeFsError> {
    dir_of_this_user(path, 0o077)
}

/// `path` as a directory of this user that no one else can write in: created (0700) when
/// missing; an existing one must be a real directory of this user without group or other
/// write permission (a link or another user's directory at a fixed name is refused).
pub fn own_dir(path: &Path) -> Result<PathBuf, SafeFsError> {
    dir_of_this_user(path, 0o022)
}

fn dir_of_this_user(path: &Path, forbidden_mode: u32) -> Result<PathBuf, SafeFsError> {
    match std::fs::DirBuilder::new().mode(0o700).create(path) {
        Ok(()) => return Ok(path.to_path_buf()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(SafeFsError::io("cannot create directory", path, e)),
    }
    let meta =
        std::fs::symlink_metadata(path).map_err(|e| SafeFsError::io("cannot inspect", path, e))?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(SafeFsError::refused(
            path,
            "it is a symbolic link or not a directory; iofit writes only into a real directory there. Remove it, or give another path",
        ));
    }
    if meta.uid() != me || meta.mode() & forbidden_mode != 0 {
        return Err(SafeFsError::refused(
            path,
            "the directory is another user's or open to others, not a directory only this user controls; remove it, or give another path",
        ));
    }
    Ok(path.to_path_buf())
}

/// Whether `O_DIRECT` works in `dir` (tmpfs, for one, refuses it): a probe file created new
/// (`O_EXCL|O_NOFOLLOW`) in a directory iofit made, one aligned block written, then removed.
pub fn direct_io_works(dir: &Path) -> std::io::Result<()> {
    let dirfd = sys::open_dir(dir)?;
    let name = std::ffi::OsStr::new(".iofit-direct-probe");
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_DIRECT;
    let file = sys::openat(&dirfd, name, flags, 0o600)?;
    let outcome = write_aligned_block(&file);
    drop(file);
    let _ = sys::unlinkat(&dirfd, name);
    outcome
}

fn write_aligned_block(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    let layout = std::alloc::Layout::from_size_align(4096, 4096)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    // SAFETY: a non-zero-sized layout; the buffer is freed below on every path.
    let buffer = unsafe { std::alloc::alloc_zeroed(layout) };
    if buffer.is_null() {
        return Err(std::io::Error::other("out of memory"));
    }
    // SAFETY: `buffer` points to 4096 initialised (zeroed) bytes.
    let slice = unsafe { std::slice::from_raw_parts(buffer, 4096) };
    let written = file.write_all_at(slice, 0);
    // SAFETY: allocated above with this layout.
    unsafe { std::alloc::dealloc(buffer, layout) };
    written
}

/// Makes a directory (and its missing parents) for outputs the user asked for in it (a fleet
/// run's per-server directory). Every component must be a real directory: a symbolic link on
/// the way is refused rather than followed.
pub fn create_output_dirs(path: &Path) -> Result<(), SafeFsError> {
    let mut so_far = PathBuf::new();
    for component in path.components() {
        so_far.push(component);
        if matches!(
            component,
            std::path::Component::RootDir | std::path::Component::CurDir
        ) {
            continue;
        }
        match std::fs::symlink_metadata(&so_far) {
            Ok(meta) if meta.is_dir() => continue,
            // Links on the way that existed before (like /var/run) are the system's or the
            // user's choice; only the last component, the directory itself, may not be one.
            Ok(meta) if meta.file_type().is_symlink() && so_far != path => continue,
            Ok(_) => {
                return Err(SafeFsError::refused(
                    &so_far,
                    "it is a symbolic link or a file where iofit makes an output directory; remove it, or give another directory",
                ))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir(&so_far)
                    .or_else(|e| match e.kind() {
                        std::io::ErrorKind::AlreadyExists => Ok(()),
                        _ => Err(e),
                    })
                    .map_err(|e| SafeFsError::io("cannot create directory", &so_far, e))?;
            }
            Err(e) => return Err(SafeFsError::io("cannot inspect", &so_far, e)),
        }
    }
    Ok(())
}

/// Removes the name `path` (a file or link iofit made, such as an emulator's image): the name
/// itself, never what a link there points to.
pub fn remove_name(path: &Path) -> std::io::Result<()> {
    let (dir, name) = sys::split(path)?;
    let dirfd = sys::open_dir(&dir)?;
    sys::unlinkat(&dirfd, name)
}

/// Removes `path` if it is an empty directory (never a link or anything else).
pub fn remove_empty_dir(path: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let (dir, name) = sys::split(path)?;
    let dirfd = sys::open_dir(&dir)?;
    let c = sys::cstring(name.as_bytes())?;
    // SAFETY: a valid directory descriptor and NUL-terminated name.
    if unsafe { libc::unlinkat(dirfd.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Creates a new empty directory (never over anything, never through a link at that name).
pub fn create_dir(path: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new().create(path)
}

/// Creates a new file of `len_bytes` (`O_CREAT|O_EXCL|O_NOFOLLOW`: never an existing file or
/// link), such as an emulator's scratch image.
pub fn create_sized_file(path: &Path, len_bytes: u64) -> std::io::Result<std::fs::File> {
    let (dir, name) = sys::split(path)?;
    let dirfd = sys::open_dir(&dir)?;
    let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let file = sys::openat(&dirfd, name, flags, 0o600)?;
    file.set_len(len_bytes)?;
    Ok(file)
}

/// An unnamed temporary file in `dir` (`O_TMPFILE`; where the file system lacks it, a random
/// `O_EXCL|O_NOFOLLOW` name removed at once): no name exists that anyone could have planted or
/// that could be left behind. Used to spool a section of a log before appending it whole.
pub fn unnamed_in(dir: &Path) -> std::io::Result<std::fs::File> {
    match sys::open(dir, libc::O_TMPFILE | libc::O_RDWR, 0o600) {
        Ok(file) => return Ok(file),
        Err(e)
            if !matches!(
                e.raw_os_error(),
                Some(libc::EOPNOTSUPP) | Some(libc::EISDIR)
            ) =>
        {
            return Err(e)
        }
        Err(_) => {}
    }
    let dirfd = sys::open_dir(dir)?;
    let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    let name =
        std::ffi::OsString::from(format!(".iofit-spool-{:016x}", sys::random_u128()? as u64));
    let file = sys::openat(&dirfd, &name, flags, 0o600)?;
    sys::unlinkat(&dirfd, &name)?;
    Ok(file)
}
