//! Kernel control files (cgroup and sysfs): the emulator's throttles write `io.max`,
//! `cgroup.procs` and the like, and make and remove cgroup directories. They go through here,
//! and only onto a cgroup, sysfs or proc file system: a path that does not lead there (a
//! user's file at a mistyped path, a link) is refused, and nothing is created or truncated.

use crate::error::SafeFsError;
use crate::sys;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::Path;

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;
const CGROUP_SUPER_MAGIC: i64 = 0x0027_e0eb;
const SYSFS_MAGIC: i64 = 0x6265_6572;
const PROC_SUPER_MAGIC: i64 = 0x9fa0;

fn is_kernel_fs(file: &std::fs::File) -> bool {
    // SAFETY: a zeroed statfs is a valid out-buffer; the descriptor is open.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut st) } != 0 {
        return false;
    }
    matches!(
        st.f_type as i64,
        CGROUP2_SUPER_MAGIC | CGROUP_SUPER_MAGIC | SYSFS_MAGIC | PROC_SUPER_MAGIC
    )
}

fn not_kernel(path: &Path) -> SafeFsError {
    SafeFsError::refused(
        path,
        "it is not on a cgroup, sysfs or proc file system; iofit writes kernel control files only there",
    )
}

/// Opens an existing kernel control file for writing (never created, truncated or followed;
/// close-on-exec), for a caller that writes it later, such as a child between fork and exec.
pub fn open_control(path: &Path) -> Result<std::fs::File, SafeFsError> {
    let file = sys::open(path, libc::O_WRONLY | libc::O_NOFOLLOW, 0)
        .map_err(|e| SafeFsError::io("cannot open", path, e))?;
    if !is_kernel_fs(&file) {
        return Err(not_kernel(path));
    }
    Ok(file)
}

/// Writes `text` to an existing kernel control file (never created, truncated or followed).
pub fn write_control(path: &Path, text: &str) -> Result<(), SafeFsError> {
    let mut file = open_control(path)?;
    file.write_all(text.as_bytes())
        .map_err(|e| SafeFsError::io("cannot write", path, e))
}

fn parent_on_kernel_fs(path: &Path) -> Result<(std::fs::File, std::ffi::OsString), SafeFsError> {
    let (dir, name) = sys::split(path).map_err(|e| SafeFsError::io("bad path", path, e))?;
    let dirfd = sys::open_dir(&dir).map_err(|e| SafeFsError::io("cannot open", &dir, e))?;
    if !is_kernel_fs(&dirfd) {
        return Err(not_kernel(path));
    }
    Ok((dirfd, name.to_os_string()))
}

/// Makes a control directory (a cgroup) under a cgroup file system.
pub fn make_control_dir(path: &Path) -> Result<(), SafeFsError> {
    use std::os::unix::ffi::OsStrExt;
    let (dirfd, name) = parent_on_kernel_fs(path)?;
    let c = sys::cstring(name.as_bytes()).map_err(|e| SafeFsError::io("bad path", path, e))?;
    // SAFETY: a valid directory descriptor and NUL-terminated name.
    if unsafe { libc::mkdirat(dirfd.as_raw_fd(), c.as_ptr(), 0o755) } != 0 {
        return Err(SafeFsError::io(
            "cannot create",
            path,
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

/// Removes a control directory (a cgroup) on a cgroup file system.
pub fn remove_control_dir(path: &Path) -> Result<(), SafeFsError> {
    use std::os::unix::ffi::OsStrExt;
    let (dirfd, name) = parent_on_kernel_fs(path)?;
    let c = sys::cstring(name.as_bytes()).map_err(|e| SafeFsError::io("bad path", path, e))?;
    // SAFETY: a valid directory descriptor and NUL-terminated name.
    if unsafe { libc::unlinkat(dirfd.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) } != 0 {
        return Err(SafeFsError::io(
            "cannot remove",
            path,
            std::io::Error::last_os_error(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_not_a_control_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("io.max");
        std::fs::write(&path, b"user data").unwrap();
        let err = write_control(&path, "8:0 rbps=1").unwrap_err();
        assert!(err.to_string().contains("cgroup"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"user data");
        assert!(make_control_dir(&dir.path().join("g")).is_err());
        assert!(!dir.path().join("g").exists());
    }
}
