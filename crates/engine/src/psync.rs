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
