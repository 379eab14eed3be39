//! The io_uring engine: one ring per clone with as many slots as the job's iodepth. Each slot
//! owns one buffer for as long as the kernel has its IO; buffers and files are registered with
//! the ring when the kernel allows it (fixed buffers skip pinning pages on every O_DIRECT IO,
//! fixed files skip the file-table lookup). Submission batches every IO that fits, so a full
//! queue costs one `io_uring_enter` per batch, not per IO. `ioengine=libaio` runs here too.

use crate::buffer::BufferPool;
use crate::engine::{sync_fd, syncfs_fd, Completion, Engine, Op};
use io_uring::{opcode, squeue, types, IoUring};
use std::fs::File;
use std::io;
use std::mem::ManuallyDrop;
use std::os::fd::AsRawFd;
use std::time::Duration;

/// `user_data` of the cancel request, told apart from IO slots (which are below 2^32).
const CANCEL_TAG: u64 = u64::MAX;

pub struct UringEngine {
    ring: IoUring,
    /// Freed in `Drop` only when no IO is in flight: an IO the kernel still has may write into
    /// its buffer, so the pool is leaked rather than handed back to the allocator.
    buffers: ManuallyDrop<BufferPool>,
    fds: Vec<i32>,
    _files: Vec<File>,
    fixed_files: bool,
    fixed_buffers: bool,
    /// The kernel takes a timeout with the wait (IORING_FEAT_EXT_ARG, Linux 5.11).
    timed_wait: bool,
    /// IOs pushed to the ring whose completion has not been reaped yet.
    inflight: u32,
    /// The sqe ioprio of the IOs queued next (fio cmdprio); 0 leaves the thread's priority.
    ioprio: u16,
}

/// Which optimisations the kernel accepted, for the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UringFeatures {
    pub fixed_files: bool,
    pub fixed_buffers: bool,
    pub timed_wait: bool,
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
        // SAFETY: the iovecs point into `buffers`, which the engine owns and frees only after
        // unregistering them with no IO in flight, or never (see `Drop`).
        let fixed_buffers = iovecs.len() <= u16::MAX as usize
            && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let timed_wait = ring.params().is_feature_ext_arg();
        Ok(UringEngine {
            ring,
            buffers: ManuallyDrop::new(buffers),
            fds,
            _files: files,
            fixed_files,
            fixed_buffers,
            timed_wait,
            inflight: 0,
            ioprio: 0,
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
            timed_wait: self.timed_wait,
        }
    }

    /// IOs handed to the ring whose completion has not been reaped.
    pub fn inflight(&self) -> u32 {
        self.inflight
    }

    /// Puts `entry` in the submission queue, submitting what is there first if it is full.
    /// Returns false when there is still no room (the kernel refused the submit); never loops.
    fn push(&mut self, entry: &squeue::Entry) -> bool {
        for _ in 0..2 {
            // SAFETY: an IO entry's buffer belongs to a slot the worker will not reuse until the
            // IO completes, and the pool outlives every IO (see `Drop`); the files stay open
            // for the ring's life. The cancel entry points at nothing.
            if unsafe { self.ring.submission().push(entry) }.is_ok() {
                return true;
            }
            let _ = self.ring.submit();
        }
        false
    }

    /// Moves every visible completion to `out`; returns how many IO completions it moved.
    #[inline]
    fn take_completions(&mut self, out: &mut Vec<Completion>) -> u32 {
        let mut taken = 0u32;
        for cqe in self.ring.completion() {
            if cqe.user_data() == CANCEL_TAG {
                continue;
            }
            out.push(Completion {
                slot: cqe.user_data() as u32,
                result: cqe.result() as i64,
            });
            taken += 1;
        }
        self.inflight -= taken;
        taken
    }
}

impl Drop for UringEngine {
    fn drop(&mut self) {
        if self.inflight == 0 {
            let _ = self.ring.submitter().unregister_buffers();
            // SAFETY: no IO is in flight and the buffers are no longer registered, so the
            // kernel holds no reference into the pool; it is dropped exactly once, here.
            unsafe { ManuallyDrop::drop(&mut self.buffers) }
        }
        // Otherwise the pool is leaked on purpose: an IO abandoned after a cancel may still
        // write into its buffer, and memory the kernel writes must never be reused.
    }
}

macro_rules! rw_entry {
    ($self:ident, $fd:expr, $op:ident, $buf:ident, $len:ident, $offset:ident, $slot:ident) => {
        match ($op, $self.fixed_buffers) {
            (Op::Read, true) => opcode::ReadFixed::new($fd, $buf, $len, $slot as u16)
                .offset($offset)
                .ioprio($self.ioprio)
                .build(),
            (Op::Write, true) => opcode::WriteFixed::new($fd, $buf, $len, $slot as u16)
                .offset($offset)
                .ioprio($self.ioprio)
                .build(),
            (Op::Read, false) => opcode::Read::new($fd, $buf, $len)
                .offset($offset)
                .ioprio($self.ioprio)
                .build(),
            (Op::Write, false) => opcode::Write::new($fd, $buf, $len)
                .offset($offset)
                .ioprio($self.ioprio)
                .build(),
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
        while out.is_empty() {
            self.reap(1, 1_000_000_000, &mut out)?;
        }
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
        // Cannot fail: the SQ holds at least `depth` entries, and the IOs not yet submitted are
        // among the at most `depth` in flight (the worker has `depth` slots).
        let pushed = self.push(&entry.user_data(slot as u64));
        assert!(
            pushed,
            "io_uring submission queue full with {} IOs in flight",
            self.inflight
        );
        self.inflight += 1;
    }

    fn set_ioprio(&mut self, ioprio: u16) -> io::Result<()> {
        self.ioprio = ioprio;
        Ok(())
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        while !self.ring.submission().is_empty() {
            match self.ring.submit() {
                Ok(0) => return Ok(()), // nothing taken: the next wait submits the rest
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e)
                    if e.raw_os_error() == Some(libc::EBUSY)
                        || e.raw_os_error() == Some(libc::EAGAIN) =>
                {
                    // The CQ is full or the kernel is short of memory: let completions drain
                    // (the next wait submits what is left).
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    #[inline]
    fn reap(
        &mut self,
        min_complete: u32,
        timeout_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<()> {
        let reaped = self.take_completions(out);
        if reaped >= min_complete {
            return Ok(());
        }
        let want = (min_complete - reaped) as usize;
        // One bounded wait: the caller loops, looking at its deadline and stop flag between
        // waits, so a stalled device cannot hold the clone past either.
        let waited = if self.timed_wait {
            let timeout = types::Timespec::from(Duration::from_nanos(timeout_ns));
            let args = types::SubmitArgs::new().timespec(&timeout);
            self.ring.submitter().submit_with_args(want, &args)
        } else {
            // Before Linux 5.11 the wait takes no timeout; the stop flag is then seen after
            // the next completion.
            self.ring.submit_and_wait(want)
        };
        match waited {
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY)
                ) => {}
            Err(e) => return Err(e),
        }
        self.take_completions(out);
        Ok(())
    }

    fn cancel_all(&mut self) -> io::Result<()> {
        if self.inflight == 0 {
            return Ok(());
        }
        let entry = opcode::AsyncCancel2::new(types::CancelBuilder::any())
            .build()
            .user_data(CANCEL_TAG);
        if !self.push(&entry) {
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        }
        self.submit()
    }

    unsafe fn slot_buffer(&mut self, slot: u32, len: u32) -> Option<&mut [u8]> {
        // SAFETY: the caller guarantees no IO is in flight on `slot` (the trait's contract).
        Some(unsafe { self.buffers.slot_slice(slot as usize, len as usize) })
    }

    fn sync_file(&mut self, file: u32, data_only: bool) -> io::Result<()> {
        // A blocking sync keeps the worker simple; in-flight IOs keep running meanwhile.
        sync_fd(self.fds[file as usize], data_only)
    }

    fn sync_fs(&mut self, file: u32) -> io::Result<()> {
        syncfs_fd(self.fds[file as usize])
    }
}
