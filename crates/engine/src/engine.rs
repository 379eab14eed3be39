//! The engine interface: a fixed set of slots (one per IO in flight, each with its own buffer),
//! `queue` an IO into a free slot, `submit` what was queued, `reap` completions. Synchronous
//! engines (`INLINE = true`) complete the IO inside `execute` and the worker takes a shorter
//! path with one clock reading per IO.

use std::io;

/// Direction of one IO.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// Discard the range (fio's `DDIR_TRIM`): see [`trim_fd`].
    Trim,
}

impl Op {
    /// The index of the op's direction in per-direction arrays of two (read, write): a trim
    /// shares the write's, as a trim changes what the target holds.
    #[inline]
    pub fn dir_index(self) -> usize {
        match self {
            Op::Read => 0,
            Op::Write | Op::Trim => 1,
        }
    }
}

/// Trims `len` bytes at `offset` of an open descriptor; returns `len` when done. A block
/// device gets `BLKDISCARD` (what fio's `os_trim` does on Linux); a regular file gets a hole
/// punched, `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`, which is what fio's
/// `falloc` engine does for a trim (fio's psync/libaio/io_uring engines send BLKDISCARD to a
/// regular file too and fail with ENOTTY; iofit punches the hole instead, so that a trim job
/// runs on a file). The range then reads back as zeros, and a file's blocks are freed.
pub fn trim_fd(fd: i32, offset: u64, len: u32) -> io::Result<usize> {
    // SAFETY: fstat fills the stat buffer we own; the descriptor is open (the caller's).
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } < 0 {
        return Err(io::Error::last_os_error());
    }
    let rc = if st.st_mode & libc::S_IFMT == libc::S_IFBLK {
        let range: [u64; 2] = [offset, len as u64];
        // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer, which points at
        // `range`, alive for the call.
        unsafe { libc::ioctl(fd, BLKDISCARD, range.as_ptr()) }
    } else {
        // SAFETY: a plain syscall on an open descriptor; no memory is passed.
        unsafe {
            libc::fallocate(
                fd,
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                offset as libc::off_t,
                len as libc::off_t,
            )
        }
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(len as usize)
    }
}

/// `_IO(0x12, 119)` from linux/fs.h (libc does not export it).
const BLKDISCARD: libc::c_ulong = 0x1277;

/// One finished IO: its slot and the kernel's result (bytes moved, or `-errno`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i64,
}

pub trait Engine {
    /// True when IOs complete inside [`Engine::execute`] (no queue, submit or reap).
    const INLINE: bool;

    /// Runs one IO to completion (synchronous engines). Returns bytes moved.
    fn execute(&mut self, slot: u32, op: Op, file: u32, offset: u64, len: u32)
        -> io::Result<usize>;

    /// Prepares one IO in `slot` (asynchronous engines). Not yet visible to the kernel.
    fn queue(&mut self, slot: u32, op: Op, file: u32, offset: u64, len: u32);

    /// Hands every queued IO to the kernel.
    fn submit(&mut self) -> io::Result<()>;

    /// Appends completions to `out`, waiting until at least `min_complete` are available or
    /// `timeout_ns` has passed, whichever comes first (a signal may also end the wait early).
    /// `min_complete == 0` only looks at what has already completed.
    fn reap(
        &mut self,
        min_complete: u32,
        timeout_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<()>;

    /// Asks the kernel to cancel every IO in flight. Each comes back through
    /// [`Engine::reap`], with `-ECANCELED` if it was cancelled or its real result if it had
    /// already finished. Engines with nothing in flight between calls have nothing to do.
    fn cancel_all(&mut self) -> io::Result<()> {
        Ok(())
    }

    /// Slot `slot`'s buffer (its first `len` bytes), for filling a write's data or checking a
    /// read's; `None` for engines without buffers (null).
    ///
    /// # Safety
    /// No IO may be in flight on `slot` while the slice lives: call it for a slot before it is
    /// queued or after its completion was reaped.
    unsafe fn slot_buffer(&mut self, _slot: u32, _len: u32) -> Option<&mut [u8]> {
        None
    }

    /// The IO priority (ioprio value: class << 13 | level) of the IOs queued or executed from
    /// now on (fio `cmdprio*`). Engines without a per-IO priority ignore it.
    fn set_ioprio(&mut self, _ioprio: u16) -> io::Result<()> {
        Ok(())
    }

    /// fsync (or fdatasync when `data_only`) of file `file`.
    fn sync_file(&mut self, file: u32, data_only: bool) -> io::Result<()>;

    /// syncfs of the file system holding file `file` (fio `end_syncfs`). Engines without
    /// files have nothing to sync.
    fn sync_fs(&mut self, _file: u32) -> io::Result<()> {
        Ok(())
    }

    /// Drops `len` bytes at `offset` of file `file` from the page cache (fio `invalidate`).
    /// Engines without files have nothing cached.
    fn drop_cache(&mut self, _file: u32, _offset: u64, _len: u64) -> io::Result<()> {
        Ok(())
    }
}

/// posix_fadvise(DONTNEED) of a range of an open descriptor: its clean pages leave the cache.
pub fn drop_cache_fd(fd: i32, offset: u64, len: u64) -> io::Result<()> {
    // SAFETY: posix_fadvise reads only its integer arguments, on a descriptor the calling
    // engine keeps open.
    let rc = unsafe {
        libc::posix_fadvise(
            fd,
            offset as libc::off_t,
            len as libc::off_t,
            libc::POSIX_FADV_DONTNEED,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::from_raw_os_error(rc))
    }
}

/// syncfs of the file system holding an open descriptor.
pub fn syncfs_fd(fd: i32) -> io::Result<()> {
    // SAFETY: a plain syscall on a descriptor the calling engine keeps open.
    if unsafe { libc::syncfs(fd) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// fsync (or fdatasync when `data_only`) of an open descriptor: [`Engine::sync_file`] for the
/// engines that own real files.
pub fn sync_fd(fd: i32, data_only: bool) -> io::Result<()> {
    // SAFETY: plain syscalls on a descriptor the calling engine keeps open.
    let rc = unsafe {
        if data_only {
            libc::fdatasync(fd)
        } else {
            libc::fsync(fd)
        }
    };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// What the worker knows of the IO in a slot while the engine holds it: what it is, where it
/// goes and when it was issued (the data checks read it on completion too).
#[derive(Clone, Copy, Default)]
pub(crate) struct SlotMeta {
    pub(crate) op_is_read: bool,
    pub(crate) len: u32,
    pub(crate) file: u32,
    pub(crate) offset: u64,
    pub(crate) issue_ns: u64,
    pub(crate) submit_ns: u64,
    /// When the slot was last freed: the earliest issue time of its next IO.
    pub(crate) free_ns: u64,
    /// The IO's ioprio value (fio cmdprio, or the job's priority).
    pub(crate) ioprio: u16,
    /// The IO is a trim (`op_is_read` is false then).
    pub(crate) trim: bool,
}
