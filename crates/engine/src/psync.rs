//! Synchronous engines, one IO at a time: `psync` (pread/pwrite), `sync` (lseek then
//! read/write) and `pvsync` (preadv/pwritev). Each is the system call fio's engine of the same
//! name makes, so a result labelled `sync` really ran `lseek`+`read`.

use crate::buffer::BufferPool;
use crate::engine::{sync_fd, syncfs_fd, trim_fd, Completion, Engine, Op};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncFlavor {
    Psync,
    Sync,
    Pvsync,
    /// fio's `falloc`: a fallocate per IO (see [`falloc`]).
    Falloc,
    /// fio's `ftruncate`: a write truncates the file to its offset (see [`ftruncate`]).
    Ftruncate,
}

/// fio's `falloc` engine: a read reserves its range without growing the file
/// (FALLOC_FL_KEEP_SIZE), a write reserves it and grows the file to its end (mode 0), a trim
/// punches it out. No data moves; the IO counts its whole length, as fio's does.
fn falloc(fd: i32, op: Op, offset: u64, len: usize) -> io::Result<usize> {
    let mode = match op {
        Op::Read => libc::FALLOC_FL_KEEP_SIZE,
        Op::Write => 0,
        Op::Trim => libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
    };
    // SAFETY: a plain syscall on an open descriptor; no memory is passed.
    let rc = unsafe { libc::fallocate(fd, mode, offset as libc::off_t, len as libc::off_t) };
    check(rc as isize).map(|_| len)
}

/// fio's `ftruncate` engine: a write sets the file's size to the IO's offset (not its end);
/// a read or trim fails with EINVAL, as fio's engine fails it.
fn ftruncate(fd: i32, op: Op, offset: u64, len: usize) -> io::Result<usize> {
    if op != Op::Write {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: a plain syscall on an open descriptor; no memory is passed.
    let rc = unsafe { libc::ftruncate(fd, offset as libc::off_t) };
    check(rc as isize).map(|_| len)
}

pub struct SyncEngine {
    flavor: SyncFlavor,
    fds: Vec<i32>,
    // Keeps the files open for as long as the engine lives.
    _files: Vec<File>,
    buffers: BufferPool,
    queued: Vec<Completion>,
    /// The thread's IO priority as last set by `set_ioprio` (0: never set by it).
    ioprio: u16,
}

impl SyncEngine {
    pub fn new(flavor: SyncFlavor, files: Vec<File>, buffers: BufferPool) -> SyncEngine {
        SyncEngine {
            flavor,
            fds: files.iter().map(|f| f.as_raw_fd()).collect(),
            _files: files,
            buffers,
            queued: Vec::new(),
            ioprio: 0,
        }
    }
}

fn check(result: isize) -> io::Result<usize> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result as usize)
    }
}

impl Engine for SyncEngine {
    const INLINE: bool = true;

    /// A synchronous IO has no per-IO priority field: the thread's IO priority is changed
    /// (ioprio_set), only when it differs from the last IO's.
    fn set_ioprio(&mut self, ioprio: u16) -> io::Result<()> {
        if ioprio != self.ioprio {
            crate::threads::set_thread_ioprio(ioprio)?;
            self.ioprio = ioprio;
        }
        Ok(())
    }

    #[inline]
    fn execute(
        &mut self,
        slot: u32,
        op: Op,
        file: u32,
        offset: u64,
        len: u32,
    ) -> io::Result<usize> {
        let fd = self.fds[file as usize];
        let buf = self.buffers.slot_ptr(slot as usize) as *mut libc::c_void;
        let len = len as usize;
        let offset = offset as libc::off_t;
        // SAFETY: buf points at a slot buffer of at least `len` bytes (the pool is sized by the
        // job's largest block size) that no other IO uses; fd is open for the engine's life.
        unsafe {
            match (self.flavor, op) {
                (SyncFlavor::Falloc, _) => falloc(fd, op, offset as u64, len),
                (SyncFlavor::Ftruncate, _) => ftruncate(fd, op, offset as u64, len),
                // Every flavour trims the same way (fio's engines call one do_io_u_trim).
                (_, Op::Trim) => trim_fd(fd, offset as u64, len as u32),
                (SyncFlavor::Psync, Op::Read) => check(libc::pread(fd, buf, len, offset)),
                (SyncFlavor::Psync, Op::Write) => check(libc::pwrite(fd, buf, len, offset)),
                (SyncFlavor::Sync, _) => {
                    if libc::lseek(fd, offset, libc::SEEK_SET) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                    match op {
                        Op::Read => check(libc::read(fd, buf, len)),
                        Op::Write | Op::Trim => check(libc::write(fd, buf, len)), // trim: matched above
                    }
                }
                (SyncFlavor::Pvsync, _) => {
                    let iov = libc::iovec {
                        iov_base: buf,
                        iov_len: len,
                    };
                    match op {
                        Op::Read => check(libc::preadv(fd, &iov, 1, offset)),
                        Op::Write | Op::Trim => check(libc::pwritev(fd, &iov, 1, offset)), // trim: above
                    }
                }
            }
        }
    }

    fn queue(&mut self, slot: u32, op: Op, file: u32, offset: u64, len: u32) {
        let result = match self.execute(slot, op, file, offset, len) {
            Ok(n) => n as i64,
            Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
        };
        self.queued.push(Completion { slot, result });
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn reap(
        &mut self,
        _min_complete: u32,
        _timeout_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        out.append(&mut self.queued);
        Ok(())
    }

    unsafe fn slot_buffer(&mut self, slot: u32, len: u32) -> Option<&mut [u8]> {
        // SAFETY: the caller guarantees no IO is in flight on `slot` (the trait's contract).
        Some(unsafe { self.buffers.slot_slice(slot as usize, len as usize) })
    }

    fn sync_file(&mut self, file: u32, data_only: bool) -> io::Result<()> {
        sync_fd(self.fds[file as usize], data_only)
    }

    fn sync_fs(&mut self, file: u32) -> io::Result<()> {
        syncfs_fd(self.fds[file as usize])
    }

    fn drop_cache(&mut self, file: u32, offset: u64, len: u64) -> io::Result<()> {
        crate::engine::drop_cache_fd(self.fds[file as usize], offset, len)
    }
}
