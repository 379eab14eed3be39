//! File system operations inside an anchor iofit claimed ([`crate::anchor`]): every path is
//! resolved from the anchor's open directory with `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)`, so a directory below the anchor replaced by a symbolic link (to a
//! user's directory) is never walked through: creates, deletes, renames and attribute changes
//! reach only what is really inside the anchor. The last component is acted on with the `*at`
//! calls, which never follow it.

use crate::sys;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// An anchor's directory, open, and the path it was opened by.
#[derive(Debug)]
pub struct Beneath {
    root: File,
    path: PathBuf,
}

fn not_beneath(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{} is not inside the anchor", path.display()),
    )
}

impl Beneath {
    /// Opens `anchor` (which must be a directory, not a symbolic link).
    pub fn open(anchor: &Path) -> io::Result<Beneath> {
        let root = sys::open(
            anchor,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )?;
        Ok(Beneath {
            root,
            path: anchor.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `path` relative to the anchor, with no `..` and no empty remainder.
    fn relative<'a>(&self, path: &'a Path) -> io::Result<&'a Path> {
        let rel = path
            .strip_prefix(&self.path)
            .map_err(|_| not_beneath(path))?;
        if rel.as_os_str().is_empty()
            || rel.components().any(|c| !matches!(c, Component::Normal(_)))
        {
            return Err(not_beneath(path));
        }
        Ok(rel)
    }

    /// `openat2` of `rel` from the anchor, never through a link, never out of it.
    fn resolve(&self, rel: &Path, flags: libc::c_int, mode: libc::mode_t) -> io::Result<File> {
        let c = sys::cpath(rel)?;
        // SAFETY: a zeroed open_how is valid; its fields are set below.
        let mut how: libc::open_how = unsafe { std::mem::zeroed() };
        how.flags = (flags | libc::O_CLOEXEC) as u64;
        how.mode = if flags & libc::O_CREAT != 0 {
            u64::from(mode)
        } else {
            0
        };
        how.resolve =
            libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
        // SAFETY: a valid directory descriptor, NUL-terminated path and open_how of its size.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                self.root.as_raw_fd(),
                c.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd was just returned by openat2 and nothing else owns it.
        Ok(unsafe { File::from_raw_fd(fd as libc::c_int) })
    }

    /// The directory holding `path` (opened beneath the anchor) and the last component.
    fn parent<'a>(&self, path: &'a Path) -> io::Result<(File, &'a OsStr)> {
        let rel = self.relative(path)?;
        let name = rel.file_name().ok_or_else(|| not_beneath(path))?;
        let dir = match rel.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => self.resolve(parent, libc::O_RDONLY | libc::O_DIRECTORY, 0)?,
            None => self.root.try_clone()?,
        };
        Ok((dir, name))
    }

    /// Opens a directory below the anchor (or the anchor itself) once, never through a link,
    /// for many operations on the names in it ([`BeneathDir`]).
    pub fn open_dir(&self, path: &Path) -> io::Result<BeneathDir> {
        let dir = if path == self.path {
            self.root.try_clone()?
        } else {
            self.resolve(self.relative(path)?, libc::O_RDONLY | libc::O_DIRECTORY, 0)?
        };
        Ok(BeneathDir { dir })
    }

    /// Opens a file below the anchor with `flags` (`O_CREAT|O_EXCL` to create one).
    pub fn open_file(
        &self,
        path: &Path,
        flags: libc::c_int,
        mode: libc::mode_t,
    ) -> io::Result<File> {
        self.resolve(self.relative(path)?, flags, mode)
    }

    /// `lstat` of a path below the anchor (a link is reported as a link, not followed).
    pub fn stat(&self, path: &Path) -> io::Result<libc::stat> {
        let (dir, name) = self.parent(path)?;
        sys::lstatat(&dir, name)
    }

    /// True when `path` is a real directory below the anchor (no link on the way).
    pub fn is_dir(&self, path: &Path) -> bool {
        self.stat(path)
            .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFDIR)
    }

    pub fn create_dir(&self, path: &Path) -> io::Result<()> {
        let (dir, name) = self.parent(path)?;
        let c = sys::cstring(name.as_bytes())?;
        // SAFETY: a valid directory descriptor and NUL-terminated name.
        let rc = unsafe { libc::mkdirat(dir.as_raw_fd(), c.as_ptr(), 0o755) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Removes an empty directory below the anchor (a link of that name is not followed).
    pub fn remove_dir(&self, path: &Path) -> io::Result<()> {
        let (dir, name) = self.parent(path)?;
        let c = sys::cstring(name.as_bytes())?;
        // SAFETY: a valid directory descriptor and NUL-terminated name.
        let rc = unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), libc::AT_REMOVEDIR) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Removes a file below the anchor: the name itself, never what a link points to.
    pub fn remove_file(&self, path: &Path) -> io::Result<()> {
        let (dir, name) = self.parent(path)?;
        sys::unlinkat(&dir, name)
    }

    /// Renames a file below the anchor to another name below it.
    pub fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let (from_dir, from_name) = self.parent(from)?;
        let (to_dir, to_name) = self.parent(to)?;
        let (f, t) = (
            sys::cstring(from_name.as_bytes())?,
            sys::cstring(to_name.as_bytes())?,
        );
        // SAFETY: valid directory descriptors and NUL-terminated names.
        let rc = unsafe {
            libc::renameat(
                from_dir.as_raw_fd(),
                f.as_ptr(),
                to_dir.as_raw_fd(),
                t.as_ptr(),
            )
        };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Sets the permission bits of a regular file below the anchor (opened, never followed).
    pub fn set_mode(&self, path: &Path, mode: libc::mode_t) -> io::Result<()> {
        let file = self.open_file(path, libc::O_RDONLY | libc::O_NONBLOCK, 0)?;
        let st = sys::fstat(&file)?;
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(io::Error::other("not a regular file"));
        }
        // SAFETY: fchmod on an open descriptor.
        let rc = unsafe { libc::fchmod(file.as_raw_fd(), mode) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Copies a file below the anchor into a new file below it; returns the bytes copied.
    pub fn copy(&self, from: &Path, to: &Path) -> io::Result<u64> {
        let mut source = self.open_file(from, libc::O_RDONLY | libc::O_NONBLOCK, 0)?;
        let st = sys::fstat(&source)?;
        if st.st_mode & libc::S_IFMT != libc::S_IFREG {
            return Err(io::Error::other("not a regular file"));
        }
        let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL;
        let mut target = self.open_file(to, flags, 0o644)?;
        std::io::copy(&mut source, &mut target)
    }
}

/// A directory below an anchor, open ([`Beneath::open_dir`]): operations on one name in it
/// need no path walk and no descriptor of their own (a delete is one `unlinkat`, as fio's
/// `unlink`), and they keep acting on this very directory: should its name below the anchor
/// later be replaced (by a link to a user's directory, or by another directory moved there),
/// nothing in the replacement is touched.
#[derive(Debug)]
pub struct BeneathDir {
    dir: File,
}

impl BeneathDir {
    /// A single name in the directory: no `/`, not `.` or `..`.
    fn check(name: &OsStr) -> io::Result<()> {
        let bytes = name.as_bytes();
        if bytes.is_empty() || bytes.contains(&b'/') || bytes == b"." || bytes == b".." {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a name in the directory", name.to_string_lossy()),
            ));
        }
        Ok(())
    }

    /// Removes the file `name` in this directory: the name itself, never what a link points to.
    pub fn remove_file(&self, name: &OsStr) -> io::Result<()> {
        Self::check(name)?;
        sys::unlinkat(&self.dir, name)
    }

    /// `lstat` of `name` in this directory (a link is reported as a link, not followed).
    pub fn stat(&self, name: &OsStr) -> io::Result<libc::stat> {
        Self::check(name)?;
        sys::lstatat(&self.dir, name)
    }
}
