//! One worker thread of a workload phase: its pacing, which file or directory it takes next,
//! and each vdbench operation (read, write, create, delete, getattr, copy, move, ...).

use super::files::{create_file, open_options, open_options_with, transfer_at};
use super::{Shared, ABSENT, BUSY, PRESENT};
use crate::buffer::AlignedBuffer;
use crate::stats::OpStats;
use crate::tree::splitmix;
use crate::FsError;
use iofit_jobfile::vdbench::{FileOp, FileSelect, SyncFlag};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// One worker thread of one fwd.
pub(super) struct Worker<'a> {
    pub(super) shared: Vec<&'a Shared>,
    pub(super) op: FileOp,
    pub(super) rdpct: Option<f64>,
    pub(super) random_io: bool,
    pub(super) select: FileSelect,
    pub(super) xfersizes: Vec<(u64, f64)>,
    pub(super) stopafter: Option<u64>,
    /// The fwd's own `openflags=` (o_direct, o_sync...), over the fsd's.
    pub(super) direct: bool,
    pub(super) sync: Option<SyncFlag>,
    pub(super) rng: u64,
    pub(super) cursor: usize,
    pub(super) buffer: AlignedBuffer,
    pub(super) stats: OpStats,
    /// fwdrate= on a read/write fwd: one permit per transfer (vdbench's FwgWaiter hands out
    /// one per operation, and a read or write operation is one xfersize transfer), so the
    /// rate counts reads and writes, not the files opened for them.
    pub(super) pacer: Option<Pacer>,
}

/// Operations spaced `every` apart until `deadline`.
pub(super) struct Pacer {
    pub(super) every: Duration,
    pub(super) next: Instant,
    pub(super) deadline: Instant,
}

impl Pacer {
    /// Waits for the next permit; false when the run's deadline comes first.
    fn permit(&mut self) -> bool {
        let now = Instant::now();
        if self.next > now {
            if self.next >= self.deadline {
                std::thread::sleep(self.deadline.saturating_duration_since(now));
                return false;
            }
            std::thread::sleep(self.next - now);
        }
        self.next += self.every;
        Instant::now() < self.deadline
    }
}

impl Worker<'_> {
    /// The next fwdrate permit for a transfer (true at once when the fwd is not paced).
    fn permit(&mut self) -> bool {
        self.pacer.as_mut().is_none_or(Pacer::permit)
    }

    fn random(&mut self) -> u64 {
        self.rng = splitmix(self.rng);
        self.rng
    }

    fn xfer(&mut self) -> u64 {
        if self.xfersizes.len() == 1 {
            return self.xfersizes[0].0;
        }
        let point = (self.random() % 10_000) as f64 / 100.0;
        let mut acc = 0.0;
        for (size, pct) in &self.xfersizes {
            acc += pct;
            if point < acc {
                return *size;
            }
        }
        self.xfersizes[self.xfersizes.len() - 1].0
    }

    /// One operation (a read or write of a whole file is its opens, transfers and close).
    pub(super) fn step(&mut self) -> Result<(), FsError> {
        let op = match self.rdpct {
            Some(pct) => {
                if (self.random() % 10_000) as f64 / 100.0 < pct {
                    FileOp::Read
                } else {
                    FileOp::Write
                }
            }
            None => self.op,
        };
        let which = if self.shared.len() > 1 {
            (self.random() % self.shared.len() as u64) as usize
        } else {
            0
        };
        let Some(s) = self.shared.get(which).copied() else {
            return Ok(());
        };
        let result = match op {
            FileOp::Mkdir | FileOp::Rmdir => self.dir_op(s, op),
            FileOp::Create => self.with_file(s, ABSENT, op, |w, i| w.create(s, i)),
            FileOp::Copy | FileOp::Move => self.copy_or_move(s, op),
            _ => self.with_file(s, PRESENT, op, |w, i| w.file_op(s, i, op)),
        };
        match result {
            Ok(()) => Ok(()),
            Err(FsError::Io { .. }) => {
                self.stats.error(op);
                Ok(())
            }
            Err(other) => Err(other),
        }
    }

    /// Claims a file in state `want` (as `fileselect=` picks), runs `f` on it, and sets its
    /// new state from the operation.
    fn with_file(
        &mut self,
        s: &Shared,
        want: u8,
        op: FileOp,
        f: impl FnOnce(&mut Self, usize) -> Result<(), FsError>,
    ) -> Result<(), FsError> {
        let Some(i) = self.claim(&s.files, s.pool.as_deref(), want) else {
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let result = f(self, i);
        let after = match (op, &result) {
            (FileOp::Create, Ok(())) => PRESENT,
            (FileOp::Delete, Ok(())) => ABSENT,
            _ => want,
        };
        s.files[i].store(after, Ordering::Release);
        result
    }

    /// Finds a file (or directory) in state `want`, among `pool` when given (`wss=`), and
    /// marks it busy.
    fn claim(&mut self, states: &[AtomicU8], pool: Option<&[usize]>, want: u8) -> Option<usize> {
        let n = pool.map_or(states.len(), <[usize]>::len);
        if n == 0 {
            return None;
        }
        let start = match self.select {
            FileSelect::Random => (self.random() % n as u64) as usize,
            FileSelect::Sequential => {
                self.cursor = (self.cursor + 1) % n;
                self.cursor
            }
        };
        (0..n)
            .map(|k| {
                let at = (start + k) % n;
                pool.map_or(at, |p| p[at])
            })
            .find(|&i| {
                states[i]
                    .compare_exchange(want, BUSY, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            })
            .inspect(|_| IDLE_STEPS.with(|c| c.set(0)))
    }

    /// delete and getattr: one call on the file's open directory ([`Shared::dir_handle`]).
    fn name_op(&mut self, s: &Shared, i: usize, op: FileOp) -> Result<(), FsError> {
        let name = s.tree.file_name(i);
        let t = Instant::now();
        let result = s.dir_handle(i).and_then(|dir| match op {
            FileOp::Delete => dir.remove_file(name.as_ref()),
            _ => dir.stat(name.as_ref()).map(|_| ()),
        });
        let context = match op {
            FileOp::Delete => "cannot delete",
            _ => "cannot stat",
        };
        result.map_err(|e| FsError::io(context, &s.tree.file_path(i), e))?;
        self.stats.record(op, 0, t.elapsed().as_nanos() as u64);
        Ok(())
    }

    fn file_op(&mut self, s: &Shared, i: usize, op: FileOp) -> Result<(), FsError> {
        if matches!(op, FileOp::Delete | FileOp::Getattr) {
            return self.name_op(s, i, op);
        }
        let path = s.tree.file_path(i);
        let t = Instant::now();
        let ns = |t: Instant| t.elapsed().as_nanos() as u64;
        match op {
            FileOp::Read | FileOp::Write => {
                let write = op == FileOp::Write;
                let flags =
                    open_options_with(s.direct || self.direct, self.sync.or(s.sync), write, false);
                let file = s
                    .root
                    .open_file(&path, flags, 0)
                    .map_err(|e| FsError::io("cannot open", &path, e))?;
                self.stats.record(FileOp::Open, 0, ns(t));
                let size = s.tree.file_size(i);
                let xfer = self.xfer();
                if self.random_io {
                    // fileio=random: as many random transfers as the file holds, or stopafter=.
                    let blocks = (size / xfer).max(1);
                    for _ in 0..self.stopafter.unwrap_or(blocks) {
                        if !self.permit() {
                            break;
                        }
                        let offset = (self.random() % blocks) * xfer;
                        let len = xfer.min(size.saturating_sub(offset)).max(1) as usize;
                        transfer_at(
                            &file,
                            &path,
                            offset,
                            len,
                            write,
                            &mut self.buffer,
                            &mut self.stats,
                        )?;
                    }
                } else {
                    // stopafter= on sequential IO: that many transfers from the start.
                    let size = match self.stopafter {
                        Some(n) => size.min(n.saturating_mul(xfer)),
                        None => size,
                    };
                    let mut offset = 0;
                    while offset < size && self.permit() {
                        let len = xfer.min(size - offset) as usize;
                        transfer_at(
                            &file,
                            &path,
                            offset,
                            len,
                            write,
                            &mut self.buffer,
                            &mut self.stats,
                        )?;
                        offset += len as u64;
                    }
                }
                let t = Instant::now();
                drop(file);
                self.stats.record(FileOp::Close, 0, ns(t));
            }
            FileOp::Setattr => {
                let mode = if self.random().is_multiple_of(2) {
                    0o644
                } else {
                    0o640
                };
                s.root
                    .set_mode(&path, mode)
                    .map_err(|e| FsError::io("cannot set attributes of", &path, e))?;
                self.stats.record(op, 0, ns(t));
            }
            FileOp::Access => {
                let c =
                    std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
                        FsError::BadInput(format!("{}: a NUL in the path", path.display()))
                    })?;
                // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
                let rc = unsafe { libc::access(c.as_ptr(), libc::R_OK) };
                if rc != 0 {
                    return Err(FsError::io(
                        "cannot access",
                        &path,
                        std::io::Error::last_os_error(),
                    ));
                }
                self.stats.record(op, 0, ns(t));
            }
            FileOp::Open | FileOp::Close => {
                let file = s
                    .root
                    .open_file(&path, open_options(s, false, false), 0)
                    .map_err(|e| FsError::io("cannot open", &path, e))?;
                self.stats.record(FileOp::Open, 0, ns(t));
                let t = Instant::now();
                drop(file);
                self.stats.record(FileOp::Close, 0, ns(t));
            }
            _ => {}
        }
        Ok(())
    }

    fn create(&mut self, s: &Shared, i: usize) -> Result<(), FsError> {
        // A directory removed by an rmdir makes the open fail with ENOENT (counted as a failed
        // create); no stat of the directory first, which cost a path walk per file.
        let xfer = self.xfer();
        create_file(s, i, xfer, &mut self.buffer, &mut self.stats)
    }

    /// mkdir takes an absent file directory, rmdir a present one whose files are all gone.
    fn dir_op(&mut self, s: &Shared, op: FileOp) -> Result<(), FsError> {
        let want = if op == FileOp::Mkdir { ABSENT } else { PRESENT };
        let Some(d) = self.claim(&s.dirs, None, want) else {
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let path = &s.tree.dirs[s.tree.file_dirs[d]];
        let t = Instant::now();
        let result = if op == FileOp::Mkdir {
            s.root.create_dir(path).map(|_| PRESENT)
        } else if s
            .tree
            .files_in_dir(d)
            .any(|i| s.files[i].load(Ordering::Acquire) != ABSENT)
        {
            s.dirs[d].store(PRESENT, Ordering::Release);
            self.stats.no_candidate += 1;
            return Ok(());
        } else {
            let removed = s.root.remove_dir(path).map(|_| ABSENT);
            if removed.is_ok() {
                s.drop_dir_handle(d);
            }
            removed
        };
        match result {
            Ok(state) => {
                self.stats.record(op, 0, t.elapsed().as_nanos() as u64);
                s.dirs[d].store(state, Ordering::Release);
                Ok(())
            }
            Err(e) => {
                s.dirs[d].store(want, Ordering::Release);
                Err(FsError::io("cannot change directory", path, e))
            }
        }
    }

    /// copy: an existing file into an absent one; move: renames it there.
    fn copy_or_move(&mut self, s: &Shared, op: FileOp) -> Result<(), FsError> {
        let Some(from) = self.claim(&s.files, s.pool.as_deref(), PRESENT) else {
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let Some(to) = self.claim(&s.files, s.pool.as_deref(), ABSENT) else {
            s.files[from].store(PRESENT, Ordering::Release);
            self.stats.no_candidate += 1;
            idle();
            return Ok(());
        };
        let (src, dst) = (s.tree.file_path(from), s.tree.file_path(to));
        let t = Instant::now();
        let result = if op == FileOp::Copy {
            s.root.copy(&src, &dst).map(|bytes| (PRESENT, bytes))
        } else {
            s.root.rename(&src, &dst).map(|_| (ABSENT, 0))
        };
        match result {
            Ok((from_state, bytes)) => {
                self.stats.record(op, bytes, t.elapsed().as_nanos() as u64);
                s.files[from].store(from_state, Ordering::Release);
                s.files[to].store(PRESENT, Ordering::Release);
                Ok(())
            }
            Err(e) => {
                s.files[from].store(PRESENT, Ordering::Release);
                s.files[to].store(ABSENT, Ordering::Release);
                Err(FsError::io("cannot copy or move", &src, e))
            }
        }
    }
}

thread_local! {
    /// Consecutive steps of this worker thread (one per worker) that found no file or
    /// directory to work on.
    static IDLE_STEPS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// A step found nothing to work on (every file created, every one deleted): yield the first
/// few times, then sleep, doubling up to about 1 ms, so a worker out of work waits for
/// another fwd to make some rather than scan the file states in a loop. Spinning held a core
/// for the rest of the run (a create run that ended its files in 5 s of 12 spent 56 % of its
/// CPU scanning), slowing whatever else ran: the other fwds, or other programs.
fn idle() {
    let streak = IDLE_STEPS.with(|c| {
        let n = c.get();
        c.set(n.saturating_add(1));
        n
    });
    if streak < 8 {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(1 << (streak - 8).min(10)));
    }
}
