//! Thin wrappers over the system calls safefs needs (openat with flags std does not expose,
//! fgetxattr/fsetxattr, statx birth time, getrandom). Every `unsafe` is here.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

pub(crate) fn cstring(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a path"))
}

pub(crate) fn cpath(path: &Path) -> io::Result<CString> {
    cstring(path.as_os_str().as_bytes())
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// The directory a path lives in ("." for a bare name) and its last component.
pub(crate) fn split(path: &Path) -> io::Result<(PathBuf, &OsStr)> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((dir.to_path_buf(), name))
}

/// `open(2)` with explicit flags; `O_CLOEXEC` is always added.
pub(crate) fn open(path: &Path, flags: libc::c_int, mode: libc::mode_t) -> io::Result<File> {
    let c = cpath(path)?;
    // SAFETY: a valid NUL-terminated path; the returned descriptor is owned by the File.
    let fd =
        check(unsafe { libc::open(c.as_ptr(), flags | libc::O_CLOEXEC, mode as libc::c_uint) })?;
    // SAFETY: fd was just returned by open and nothing else owns it.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// `openat(2)` relative to an open directory; `O_CLOEXEC` is always added.
pub(crate) fn openat(
    dir: &File,
    name: &OsStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<File> {
    let c = cstring(name.as_bytes())?;
    // SAFETY: valid directory descriptor and NUL-terminated name; the fd is owned by the File.
    let fd = check(unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            flags | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    })?;
    // SAFETY: fd was just returned by openat and nothing else owns it.
    Ok(unsafe { File::from_raw_fd(fd) })
}

pub(crate) fn open_dir(dir: &Path) -> io::Result<File> {
    open(dir, libc::O_RDONLY | libc::O_DIRECTORY, 0)
}

pub(crate) fn unlinkat(dir: &File, name: &OsStr) -> io::Result<()> {
    let c = cstring(name.as_bytes())?;
    // SAFETY: valid directory descriptor and NUL-terminated name. unlinkat removes the name
    // itself, never what a symbolic link points to.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) }).map(|_| ())
}

pub(crate) fn renameat(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (f, t) = (cstring(from.as_bytes())?, cstring(to.as_bytes())?);
    // SAFETY: valid directory descriptor and NUL-terminated names.
    check(unsafe { libc::renameat(dir.as_raw_fd(), f.as_ptr(), dir.as_raw_fd(), t.as_ptr()) })
        .map(|_| ())
}

/// `renameat2(2)` with `RENAME_NOREPLACE`: fails with EEXIST rather than replace a name.
pub(crate) fn renameat_noreplace(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (f, t) = (cstring(from.as_bytes())?, cstring(to.as_bytes())?);
    // SAFETY: valid directory descriptor and NUL-terminated names.
    check(unsafe {
        libc::renameat2(
            dir.as_raw_fd(),
            f.as_ptr(),
            dir.as_raw_fd(),
            t.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    })
    .map(|_| ())
    .or_else(|e| {
        // A filesystem without RENAME_NOREPLACE: look, then rename (a narrow window).
        if e.raw_os_error() != Some(libc::EINVAL) {
            return Err(e);
        }
        match lstatat(dir, to) {
            Ok(_) => Err(io::Error::from_raw_os_error(libc::EEXIST)),
            Err(_) => renameat(dir, from, to),
        }
    })
}

/// `fstatat(2)` without following a final symbolic link.
pub(crate) fn lstatat(dir: &File, name: &OsStr) -> io::Result<libc::stat> {
    let c = cstring(name.as_bytes())?;
    // SAFETY: zeroed stat is a valid out-buffer; valid descriptor and name.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    check(unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            c.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    })?;
    Ok(st)
}

pub(crate) fn fstat(file: &File) -> io::Result<libc::stat> {
    // SAFETY: zeroed stat is a valid out-buffer; the descriptor is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    check(unsafe { libc::fstat(file.as_raw_fd(), &mut st) })?;
    Ok(st)
}

/// Birth time (seconds, nanoseconds) where the filesystem records it.
pub(crate) fn birth_time(file: &File) -> Option<(i64, u32)> {
    // SAFETY: zeroed statx is a valid out-buffer; AT_EMPTY_PATH with "" stats the descriptor.
    let mut stx: libc::statx = unsafe { std::mem::zeroed() };
    let rc = unsafe {
        libc::statx(
            file.as_raw_fd(),
            c"".as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_BTIME,
            &mut stx,
        )
    };
    if rc != 0 || stx.stx_mask & libc::STATX_BTIME == 0 {
        return None;
    }
    Some((stx.stx_btime.tv_sec, stx.stx_btime.tv_nsec))
}

pub(crate) fn fgetxattr(file: &File, name: &str, buf: &mut [u8]) -> io::Result<usize> {
    let c = cstring(name.as_bytes())?;
    // SAFETY: open descriptor, NUL-terminated name, buffer of the length passed.
    let n = unsafe {
        libc::fgetxattr(
            file.as_raw_fd(),
            c.as_ptr(),
            buf.as_mut_ptr() as *mut libc::c_void,
            buf.len(),
        )
    };
    if n < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(n as usize)
    }
}

pub(crate) fn fsetxattr(file: &File, name: &str, value: &[u8]) -> io::Result<()> {
    let c = cstring(name.as_bytes())?;
    // SAFETY: open descriptor, NUL-terminated name, value of the length passed.
    check(unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            c.as_ptr(),
            value.as_ptr() as *const libc::c_void,
            value.len(),
            0,
        )
    })
    .map(|_| ())
}

pub(crate) fn fremovexattr(file: &File, name: &str) -> io::Result<()> {
    let c = cstring(name.as_bytes())?;
    // SAFETY: open descriptor, NUL-terminated name.
    check(unsafe { libc::fremovexattr(file.as_raw_fd(), c.as_ptr()) }).map(|_| ())
}

/// Clears O_NONBLOCK (set only so that opening a FIFO cannot hang).
pub(crate) fn clear_nonblock(file: &File) -> io::Result<()> {
    // SAFETY: fcntl on an open descriptor with integer arguments.
    let flags = check(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) })?;
    check(unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK) })
        .map(|_| ())
}

/// True when the calling process may create files in `dir`.
pub(crate) fn can_write_in(dir: &Path) -> bool {
    cpath(dir)
        // SAFETY: valid NUL-terminated path.
        .map(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0)
        .unwrap_or(false)
}

/// 128 random bits from the kernel (getrandom(2)).
pub(crate) fn random_u128() -> io::Result<u128> {
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        // SAFETY: writes at most the remaining length into the buffer.
        let n = unsafe {
            libc::getrandom(
                bytes[filled..].as_mut_ptr() as *mut libc::c_void,
                bytes.len() - filled,
                0,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(u128::from_le_bytes(bytes))
}
