//! The bounds every crate shares for a job's options: the job-file parsers, the presets, the
//! `bench` and `predict` flags and the engines all check against these, so one number decides.
//! Each says why it is that number.

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
