//! The bounds every crate shares for a job's options: the job-file parsers, the presets, the
//! `bench` and `predict` flags and the engines all check against these, so one number decides.
//! Each says why it is that number.
//!
//! How many clones (threads) a run may start at once, and why:
//!
//! A run keeps its promise to end within its runtime and [`OVERRUN_BUDGET`] only if the machine
//! can start and end all its clones inside that budget. Every clone costs CPU beyond its IO: its
//! thread, its engine and buffers, its latency histograms (about 600 KiB touched once it
//! measures, faulted in, then freed), and the merge of its results at the end. On a 2-vCPU VM
//! beside other builds (load average 30-100), a one-second null-engine job took 1.5-2.0 s in all
//! with 1024 clones, and 6.8 s with 4096 (the last clones ended 3 s past the runtime): about
//! 0.75 ms of wall time per clone on 2 CPUs. [`MAX_CLONES_PER_CPU`] keeps a run's clones within
//! what such a machine ends inside the budget; [`MAX_CLONES`] is the cap on any machine.

use std::time::Duration;

/// The most clones one job, or the jobs of one set (up to the next `stonewall`), start at
/// once on any machine: fio's own limit (`REAL_MAX_JOBS`, 4096). A thread per clone beyond
/// that measures the scheduler, not the storage.
pub const MAX_CLONES: u32 = MAX_NUMJOBS;

/// The most clones per CPU a run starts at once: 512 clones per CPU start and end within
/// [`OVERRUN_BUDGET`] (measured: 1024 clones on 2 vCPUs did, 4096 overran by 3 s; see the
/// module's text). A machine with 8 CPUs or more is capped by [`MAX_CLONES`] instead.
pub const MAX_CLONES_PER_CPU: u32 = 512;

/// How far past its runtime a run may end: the time its clones get to start and to end
/// (the same second the stop bound gives a stopped run).
pub const OVERRUN_BUDGET: Duration = Duration::from_secs(1);

/// The most clones a machine with `cpus` CPUs starts at once.
pub fn max_clones_for(cpus: u32) -> u32 {
    cpus.max(1)
        .saturating_mul(MAX_CLONES_PER_CPU)
        .min(MAX_CLONES)
}

/// The CPUs this process may run on (its affinity mask and cgroup quota count, as
/// `std::thread::available_parallelism` reads them); 1 when they cannot be read.
pub fn cpus_here() -> u32 {
    std::thread::available_parallelism()
        .map(|n| u32::try_from(n.get()).unwrap_or(u32::MAX))
        .unwrap_or(1)
}

/// The most clones this machine starts at once, and its CPU count.
pub fn max_clones_here() -> (u32, u32) {
    let cpus = cpus_here();
    (max_clones_for(cpus), cpus)
}

/// The deepest queue a job may ask for. fio's `options.c` gives `iodepth` a minimum of 1 and no
/// maximum, so the bound is the queue iofit can actually keep: its asynchronous engines queue in
/// an io_uring ring, and the kernel refuses a ring of more than 32,768 entries
/// (`IORING_MAX_ENTRIES`). No device queue is deeper in practice (NVMe allows 65,536 per queue;
/// drives expose 1,023 or fewer), so nothing measurable is lost.
pub const MAX_IODEPTH: u32 = 32_768;

/// The most clones (threads) of one job: fio's `REAL_MAX_JOBS` (4,096 in fio 3.x `fio.h`), the
/// most fio runs at once; the engine applies the same bound to every clone of a run together.
pub const MAX_NUMJOBS: u32 = 4096;

/// The largest IO: Linux moves at most `MAX_RW_COUNT` bytes (`INT_MAX` rounded down to a page,
/// 0x7fff_f000) in one read or write, so a larger block would be a short IO, not one IO.
pub const MAX_BLOCK_SIZE_BYTES: u64 = 0x7fff_f000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_grows_with_cpus_up_to_fios_limit() {
        assert_eq!(max_clones_for(1), 512);
        assert_eq!(max_clones_for(2), 1024);
        assert_eq!(max_clones_for(8), MAX_CLONES);
        assert_eq!(max_clones_for(64), MAX_CLONES);
        assert_eq!(max_clones_for(0), 512, "an unreadable count is one CPU");
        assert_eq!(max_clones_for(u32::MAX), MAX_CLONES);
    }

    #[test]
    fn this_machine_has_a_cap() {
        let (cap, cpus) = max_clones_here();
        assert!(cpus >= 1);
        assert!((MAX_CLONES_PER_CPU..=MAX_CLONES).contains(&cap));
    }

    #[test]
    fn bounds_fit_the_kernel_interfaces_they_come_from() {
        // An io_uring ring is a power of two of entries, and iofit's ring holds iodepth.
        assert!(MAX_IODEPTH.is_power_of_two());
        // A block must fit the 32-bit length of an io_uring request and be page-aligned.
        assert!(MAX_BLOCK_SIZE_BYTES <= u64::from(i32::MAX as u32));
        assert_eq!(MAX_BLOCK_SIZE_BYTES % 4096, 0);
        // fio's REAL_MAX_JOBS is split in segments of 8 jobs.
        assert_eq!(MAX_NUMJOBS % 8, 0);
    }
}
