//! The io_uring engine: one ring per clone with as many slots as the job's iodepth. Each slot
//! owns one buffer for as long as the kernel has its IO; buffers and files are registered with
//! the ring when the kernel allows it (fixed buffers skip pinning pages on every O_DIRECT IO,
//! fixed files skip the file-table lookup). Submission batches every IO that fits, so a full
//! queue costs one `io_uring_enter` per batch, not per IO. `ioengine=libaio` runs here too.

use crate::buffer::BufferPool;
use crate::engine::{sync_fd, syncfs_fd, Completion, Engine, Op};
use io_uring::{opcode, squeue, types, IoUring};
use iofit_model::job::UringOptions;
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
    /// One iovec per slot for `nonvectored=0` (readv/writev); the kernel reads a slot's iovec
    /// while its IO is in flight, so the vector is never resized after setup.
    iovecs: Vec<libc::iovec>,
    fds: Vec<i32>,
    _files: Vec<File>,
    fixed_files: bool,
    fixed_buffers: bool,
    vectored: bool,
    /// `force_async=N`: IOSQE_ASYNC on every Nth IO; `async_count` counts up to it.
    force_async_every: u32,
    async_count: u32,
    /// The kernel takes a timeout with the wait (IORING_FEAT_EXT_ARG, Linux 5.11).
    timed_wait: bool,
    /// IOs pushed to the ring whose completion has not been reaped yet.
    inflight: u32,
    /// The sqe ioprio of the IOs queued next (fio cmdprio); 0 leaves the thread's priority.
    ioprio: u16,
    /// Per slot, the result of a trim done at queue time, handed back when the slot's NOP
    /// completes (see `queue`); `None` for a slot whose IO is a read or write.
    trim_results: Vec<Option<i64>>,
}

/// Which optimisations the kernel accepted, for the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UringFeatures {
    pub fixed_files: bool,
    pub fixed_buffers: bool,
    pub timed_wait: bool,
    pub sq_thread_poll: bool,
    pub io_poll: bool,
}

/// How long the SQPOLL kernel thread spins idle before it sleeps (then the next submit wakes it
/// with a syscall): fio leaves the kernel's default, which is 1 s.
const SQPOLL_IDLE_MS: u32 = 1000;

impl UringEngine {
    /// A ring with iofit's defaults (see [`UringOptions`]).
    pub fn new(files: Vec<File>, buffers: BufferPool, depth: u32) -> io::Result<UringEngine> {
        Self::with_options(files, buffers, depth, &UringOptions::default())
    }

    /// A ring set up as fio's io_uring engine options ask. An option the kernel refuses fails
    /// the setup with the kernel's errno, as in fio (`sqthread_poll`, `hipri`, and
    /// `fixedbufs`/`registerfiles` when named); only iofit's own defaults fall back quietly.
    pub fn with_options(
        files: Vec<File>,
        buffers: BufferPool,
        depth: u32,
        options: &UringOptions,
    ) -> io::Result<UringEngine> {
        let entries = depth.max(1).next_power_of_two();
        let ring = build_ring(entries, options)?;
        let fds: Vec<i32> = files.iter().map(|f| f.as_raw_fd()).collect();
        // fio forces registered files with sqthread_poll (kernels before 5.11 need them).
        let files_wanted = options.register_files.unwrap_or(true) || options.sq_thread_poll;
        let fixed_files =
            files_wanted && register(&ring, options.register_files, |s| s.register_files(&fds))?;
        let iovecs = buffers.as_iovecs();
        let buffers_wanted =
            options.fixed_buffers.unwrap_or(true) && iovecs.len() <= u16::MAX as usize;
        // SAFETY: the iovecs point into `buffers`, which the engine owns and frees only after
        // unregistering them with no IO in flight, or never (see `Drop`).
        let fixed_buffers = buffers_wanted
            && register(&ring, options.fixed_buffers, |s| unsafe {
                s.register_buffers(&iovecs)
            })?;
        let timed_wait = ring.params().is_feature_ext_arg();
        Ok(UringEngine {
            ring,
            buffers: ManuallyDrop::new(buffers),
            iovecs,
            fds,
            _files: files,
            fixed_files,
            fixed_buffers,
            vectored: options.nonvectored == Some(false),
            force_async_every: options.force_async_every,
            async_count: 0,
            trim_results: Vec::new(),
            timed_wait,
            inflight: 0,
            ioprio: 0,
        })
    }

    /// The ring's descriptor: `/proc/self/fdinfo/FD` shows what the kernel registered.
    pub fn ring_fd(&self) -> i32 {
        self.ring.as_raw_fd()
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
            sq_thread_poll: self.ring.params().is_setup_sqpoll(),
            io_poll: self.ring.params().is_setup_iopoll(),
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
            let slot = cqe.user_data() as u32;
            let trimmed = self
                .trim_results
                .get_mut(slot as usize)
                .and_then(Option::take);
            out.push(Completion {
                slot,
                result: trimmed.unwrap_or(cqe.result() as i64),
            });
            taken += 1;
        }
        self.inflight -= taken;
        taken
    }
}

/// The ring: SQPOLL (`sqthread_poll`, bound to `sqthread_poll_cpu`) and IOPOLL (`hipri`) when
/// asked, plus what cuts kernel work when one thread owns the ring (ours does):
/// SINGLE_ISSUER with DEFER_TASKRUN (Linux 6.1: completions are posted when the owner waits,
/// not by the kernel thread that did the IO; on tmpfs, where one io-wq worker does every read,
/// case (d) of bench/engine.sh went from 1.08x to 1.23x fio), else COOP_TASKRUN (5.19), else
/// neither. Kernels or flag mixes that refuse one (SQPOLL takes no DEFER_TASKRUN) get the next;
/// the flags the job asked for are never dropped. Every reap enters the kernel to wait
/// (`reap`), which is what DEFER_TASKRUN needs to post completions.
fn build_ring(entries: u32, options: &UringOptions) -> io::Result<IoUring> {
    #[derive(Clone, Copy)]
    enum Owner {
        Deferred,
        Cooperative,
        Plain,
    }
    let asked = |owner: Owner| {
        let mut builder = IoUring::builder();
        match owner {
            Owner::Deferred => {
                builder.setup_single_issuer().setup_defer_taskrun();
            }
            Owner::Cooperative => {
                builder.setup_single_issuer().setup_coop_taskrun();
            }
            Owner::Plain => {}
        }
        if options.sq_thread_poll {
            builder.setup_sqpoll(SQPOLL_IDLE_MS);
            if let Some(cpu) = options.sq_thread_cpu {
                builder.setup_sqpoll_cpu(cpu);
            }
        }
        if options.hipri {
            builder.setup_iopoll();
        }
        builder.build(entries)
    };
    asked(Owner::Deferred)
        .or_else(|_| asked(Owner::Cooperative))
        .or_else(|_| asked(Owner::Plain))
}

/// Registers files or buffers. A refusal is an error only when the job named the option
/// (`Some(true)`), as fio fails then; iofit's own default (`None`) runs unregistered instead.
fn register(
    ring: &IoUring,
    named: Option<bool>,
    call: impl FnOnce(&io_uring::Submitter<'_>) -> io::Result<()>,
) -> io::Result<bool> {
    match call(&ring.submitter()) {
        Ok(()) => Ok(true),
        Err(e) if named == Some(true) => Err(e),
        Err(_) => Ok(false),
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
            (Op::Trim, _) => unreachable!("a trim is queued as a NOP"),
        }
    };
}

/// A readv/writev entry of one iovec (fio's `nonvectored=0`). A macro because the fd types
/// share only a trait the io-uring crate keeps private.
macro_rules! vectored_entry {
    ($fd:expr, $op:ident, $iov:ident, $offset:ident) => {
        match $op {
            Op::Read => opcode::Readv::new($fd, $iov, 1).offset($offset).build(),
            Op::Write => opcode::Writev::new($fd, $iov, 1).offset($offset).build(),
            Op::Trim => unreachable!("a trim is queued as a NOP"),
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
        let mut entry = if op == Op::Trim {
            // A trim is done here, synchronously, as fio's libaio engine does it
            // (FIO_ASYNCIO_SYNC_TRIM): io_uring has no discard for a block device before
            // Linux 6.12. A NOP stands in for it in the ring, so its completion is reaped
            // with the others and carries the trim's result.
            let result = match crate::engine::trim_fd(self.fds[file as usize], offset, len) {
                Ok(n) => n as i64,
                Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
            };
            if self.trim_results.len() <= slot as usize {
                self.trim_results.resize(slot as usize + 1, None);
            }
            self.trim_results[slot as usize] = Some(result);
            opcode::Nop::new().build()
        } else if self.vectored {
            // nonvectored=0: readv/writev of the slot's one iovec, sized to this IO. No IO is
            // in flight on the slot, so the kernel is not reading its iovec now.
            let iov = &mut self.iovecs[slot as usize];
            iov.iov_len = len as usize;
            let iov: *const libc::iovec = iov;
            if self.fixed_files {
                vectored_entry!(types::Fixed(file), op, iov, offset)
            } else {
                vectored_entry!(types::Fd(self.fds[file as usize]), op, iov, offset)
            }
        } else if self.fixed_files {
            let fd = types::Fixed(file);
            rw_entry!(self, fd, op, buf, len, offset, slot)
        } else {
            let fd = types::Fd(self.fds[file as usize]);
            rw_entry!(self, fd, op, buf, len, offset, slot)
        };
        if self.force_async_every > 0 {
            // fio's force_async=N: IOSQE_ASYNC on every Nth IO prepared.
            self.async_count += 1;
            if self.async_count == self.force_async_every {
                self.async_count = 0;
                entry = entry.flags(squeue::Flags::ASYNC);
            }
        }
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
        if self.ring.params().is_setup_sqpoll() {
            // The kernel thread takes the entries on its own; this only wakes it if it slept
            // (looping until the queue looks empty would spin against that thread).
            return self.ring.submit().map(drop);
        }
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

    fn drop_cache(&mut self, file: u32, offset: u64, len: u64) -> io::Result<()> {
        crate::engine::drop_cache_fd(self.fds[file as usize], offset, len)
    }
}
