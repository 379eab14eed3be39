//! The io_uring engine: one ring per clone with as many slots as the job's iodepth. Each slot
//! owns one buffer for as long as the kernel has its IO; buffers and files are registered with
//! the ring when the kernel allows it (fixed buffers skip pinning pages on every O_DIRECT IO,
//! fixed files skip the file-table lookup). Submission batches every IO that fits, so a full
//! queue costs one `io_uring_enter` per batch, not per IO. `ioengine=libaio` runs here too.

use crate::buffer::BufferPool;
use crate::engine::{sync_fd, Completion, Engine, Op};
use io_uring::{opcode, squeue, types, IoUring};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

pub struct UringEngine {
    ring: IoUring,
    buffers: BufferPool,
    fds: Vec<i32>,
    _files: Vec<File>,
    fixed_files: bool,
    fixed_buffers: bool,
    queued: u32,
}

/// Which optimisations the kernel accepted, for the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UringFeatures {
    pub fixed_files: bool,
    pub fixed_buffers: bool,
}

impl UringEngine {
    pub fn new(files: Vec<File>, buffers: BufferPool, depth: u32) -> io::Result<UringEngine> {
        let entries = depth.max(1).next_power_of_two();
        // SINGLE_ISSUER and COOP_TASKRUN cut kernel work when one thread owns the ring (ours
        // does); older kernels reject them, so fall back to a plain ring.
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_coop_taskrun()
            .build(entries)
            .or_else(|_| IoUring::new(entries))?;
        let fds: Vec<i32> = files.iter().map(|f| f.as_raw_fd()).collect();
        let fixed_files = ring.submitter().register_files(&fds).is_ok();
        let iovecs = buffers.as_iovecs();
        // SAFETY: the iovecs point into `buffers`, which the engine owns and drops after the
        // ring (field order: `ring` is dropped first).
        let fixed_buffers = iovecs.len() <= u16::MAX as usize
            && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(UringEngine {
            ring,
            buffers,
            fds,
            _files: files,
            fixed_files,
            fixed_buffers,
            queued: 0,
        })
    }

    /// Whether io_uring can be set up here at all (kernels before 5.1, seccomp profiles of
    /// some containers and `kernel.io_uring_disabled` refuse it): a one-entry ring, dropped at
    /// once. The typed error lets a caller choose another engine without reading messages.
    pub fn probe() -> Result<(), crate::EngineError> {
        IoUring::new(1)
            .map(drop)
            .map_err(|e| crate::EngineError::Setup {
                engine: "io_uring",
                message: format!("io_uring is not available here ({e})"),
            })
    }

    pub fn features(&self) -> UringFeatures {
        UringFeatures {
            fixed_files: self.fixed_files,
            fixed_buffers: self.fixed_buffers,
        }
    }

    fn push(&mut self, entry: squeue::Entry) {
        // The SQ has at least `depth` entries and at most `depth` IOs are queued between
        // submits, but guard anyway: submit to make room rather than drop an IO.
        loop {
            // SAFETY: the entry's buffer belongs to a slot the worker will not reuse until the
            // IO completes; the file stays open for the ring's life.
            let pushed = unsafe { self.ring.submission().push(&entry) }.is_ok();
            if pushed {
                self.queued += 1;
                return;
            }
            let _ = self.ring.submit();
        }
    }
}

macro_rules! rw_entry {
    ($self:ident, $fd:expr, $op:ident, $buf:ident, $len:ident, $offset:ident, $slot:ident) => {
        match ($op, $self.fixed_buffers) {
            (Op::Read, true) => opcode::ReadFixed::new($fd, $buf, $len, $slot as u16)
                .offset($offset)
                .build(),
            (Op::Write, true) => opcode::WriteFixed::new($fd, $buf, $len, $slot as u16)
                .offset($offset)
                .build(),
            (Op::Read, false) => opcode::Read::new($fd, $buf, $len).offset($offset).build(),
            (Op::Write, false) => opcode::Write::new($fd, $buf, $len).offset($offset).build(),
        }
    };
}

impl Engine for UringEngine {
    const INLINE: bool = false;

    fn execute(
        &mut self,
        slot: u32,
        op: Op,
        file: u32,
        offset: u64,
        len: u32,
    ) -> io::Result<usize> {
        self.queue(slot, op, file, offset, len);
        self.submit()?;
        let mut out = Vec::with_capacity(1);
        self.reap(1, &mut out)?;
        let result = out[0].result;
        if result < 0 {
            Err(io::Error::from_raw_os_error(-result as i32))
        } else {
            Ok(result as usize)
        }
    }

    #[inline]
    fn queue(&mut self, slot: u32, op: Op, file: u32, offset: u64, len: u32) {
        let buf = self.buffers.slot_ptr(slot as usize);
        let entry = if self.fixed_files {
            let fd = types::Fixed(file);
            rw_entry!(self, fd, op, buf, len, offset, slot)
        } else {
            let fd = types::Fd(self.fds[file as usize]);
            rw_entry!(self, fd, op, buf, len, offset, slot)
        };
        self.push(entry.user_data(slot as u64));
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        while self.queued > 0 {
            match self.ring.submit() {
                Ok(n) => self.queued = self.queued.saturating_sub(n as u32),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e)
                    if e.raw_os_error() == Some(libc::EBUSY)
                        || e.raw_os_error() == Some(libc::EAGAIN) =>
                {
                    // The CQ is full or the kernel is short of memory: let completions drain.
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    #[inline]
    fn reap(&mut self, min_complete: u32, out: &mut Vec<Completion>) -> io::Result<()> {
        let mut reaped = 0u32;
        loop {
            for cqe in self.ring.completion() {
                out.push(Completion {
                    slot: cqe.user_data() as u32,
                    result: cqe.result() as i64,
                });
                reaped += 1;
            }
            if reaped >= min_complete {
                return Ok(());
            }
            match self.ring.submit_and_wait((min_complete - reaped) as usize) {
                Ok(n) => self.queued = self.queued.saturating_sub(n as u32),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {}
                Err(e) => return Err(e),
            }
        }
    }

    fn sync_file(&mut self, file: u32, data_only: bool) -> io::Result<()> {
        // A blocking sync keeps the worker simple; in-flight IOs keep running meanwhile.
        sync_fd(self.fds[file as usize], data_only)
    }
}
