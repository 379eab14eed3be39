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
}

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
