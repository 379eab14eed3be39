//! What a run needs (memory, threads, open files) against what the machine allows, checked
//! before anything is allocated, created or written: a run that cannot fit is refused with the
//! number it needs and the limit it hits, instead of aborting on a failed allocation, running
//! the machine out of memory, or failing half way with "too many open files".
//!
//! Sizes are computed from the jobs alone (no clone plan, buffer or thread is made first), so
//! `numjobs=100000000` costs nothing to refuse.

use crate::buffer::BUFFER_ALIGN;
use crate::error::EngineError;
use iofit_model::job::{EngineKind, JobSpec, Target};
use iofit_model::units::Bytes;
use iofit_stats::LatencyHistogram;

/// The most clones that run at once on any machine (`iofit_model::limits::MAX_CLONES`, fio's
/// `REAL_MAX_JOBS`); a thread per clone beyond that measures the scheduler, not the storage.
pub const MAX_CLONES: u64 = iofit_model::limits::MAX_CLONES as u64;
/// File descriptors iofit itself holds besides the jobs' (stdio, the output file, the layout).
const OWN_FDS: u64 = 16;
/// Resident memory of a clone's thread (its stack as touched, TLS, kernel task), generously.
const THREAD_BYTES: u64 = 64 << 10;
/// Per IO slot: the worker's slot record, completion and free-list entries, and the ring's
/// submission and completion entries.
const SLOT_STATE_BYTES: u64 = 192;

/// What a run needs at its peak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    pub memory_bytes: Bytes,
    /// Largest number of clones (threads) running at once.
    pub threads: u64,
    pub open_files: u64,
    /// The parts of `memory_bytes`, for the message.
    pub buffer_bytes: Bytes,
    pub clones_total: u64,
}

/// What the machine allows; `None` where it could not be read (that check is skipped).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The CPUs this process runs on: a run starts at most
    /// `iofit_model::limits::max_clones_for(cpus)` clones at once.
    pub cpus: Option<u32>,
    /// Memory available to this process, and where that figure comes from.
    pub memory_bytes: Option<(Bytes, &'static str)>,
    /// Threads this process may start, and the limit's name.
    pub threads: Option<(u64, &'static str)>,
    /// Open file descriptors allowed (soft RLIMIT_NOFILE) and already in use.
    pub open_files: Option<(u64, u64)>,
}

/// Bytes of IO buffers one clone of `job` allocates: iodepth slots of the largest block size.
pub fn buffer_bytes_per_clone(job: &JobSpec) -> u64 {
    if job.engine == EngineKind::Null {
        return 0;
    }
    let slot = job
        .block_size
        .max_size()
        .as_u64()
        .max(1)
        .div_ceil(BUFFER_ALIGN as u64)
        .saturating_mul(BUFFER_ALIGN as u64);
    slot.saturating_mul(job.effective_iodepth() as u64)
}

/// Latency histograms of the directions a clone of `job` uses: three per direction when
/// queued (submission, completion, total), two when synchronous.
fn histogram_bytes_per_clone(job: &JobSpec) -> u64 {
    let directions = u64::from(job.rw.has_reads()) + u64::from(job.rw.has_writes());
    let per_direction = if job.engine.is_synchronous() || job.engine == EngineKind::Null {
        2
    } else {
        3
    };
    directions * per_direction * LatencyHistogram::bytes_when_used(3)
}

/// A running clone's statistics and bookkeeping: its histograms, interval histograms (its
/// own and the merger's), per-slot state and its thread. Freed when the clone ends.
fn running_bytes_per_clone(job: &JobSpec) -> u64 {
    let intervals = 2 * LatencyHistogram::bytes_when_used(2);
    let slots = SLOT_STATE_BYTES.saturating_mul(job.effective_iodepth() as u64);
    histogram_bytes_per_clone(job) + intervals + slots + THREAD_BYTES + verify_table_bytes(job)
}

/// Data verification keeps 4 bytes per verified unit of every file (the generations).
fn verify_table_bytes(job: &JobSpec) -> u64 {
    if !job.data.verify.mode.is_on() {
        return 0;
    }
    let Some(iofit_model::job::SizeSpec::Bytes(size)) = job.size else {
        return 0; // sized by the files themselves: known only at layout
    };
    let unit = crate::data::verify_unit(job);
    let files = files_per_clone(job).max(1);
    size.as_u64() / unit * 4 * files
}

fn files_per_clone(job: &JobSpec) -> u64 {
    let files = match (&job.target, job.engine) {
        (_, EngineKind::Null) => 0,
        (Target::Files(files), _) => files.len() as u64,
        (Target::Directory { nrfiles, .. }, _) => (*nrfiles).max(1) as u64,
    };
    let ring = u64::from(matches!(
        job.engine,
        EngineKind::IoUring | EngineKind::Libaio
    ));
    files + ring
}

/// Test files the layout keeps open for the whole run (one descriptor per distinct file,
/// checked once and re-opened by each clone). Counted without listing clones.
fn layout_files(jobs: &[JobSpec]) -> u64 {
    let mut named = std::collections::HashSet::new();
    let mut per_clone_names = 0u64;
    for job in jobs.iter().filter(|j| j.engine != EngineKind::Null) {
        match &job.target {
            Target::Files(files) => named.extend(files.iter()),
            Target::Directory { nrfiles, .. } => {
                per_clone_names = per_clone_names
                    .saturating_add(((*nrfiles).max(1) as u64).saturating_mul(job.numjobs as u64));
            }
        }
    }
    per_clone_names.saturating_add(named.len() as u64)
}

/// The peak needs of `jobs`, run as the runner does: jobs up to the next stonewall together.
pub fn needs(jobs: &[JobSpec]) -> Needs {
    let mut peak = Needs::default();
    let mut set = Needs::default();
    let mut results_bytes = 0u64;
    for (index, job) in jobs.iter().enumerate() {
        if index > 0 && job.stonewall {
            peak = peak_of(peak, set);
            set = Needs::default();
        }
        let clones = job.numjobs.max(1) as u64;
        let buffers = buffer_bytes_per_clone(job).saturating_mul(clones);
        set.buffer_bytes = Bytes(set.buffer_bytes.as_u64().saturating_add(buffers));
        set.memory_bytes = Bytes(
            set.memory_bytes
                .as_u64()
                .saturating_add(buffers)
                .saturating_add(running_bytes_per_clone(job).saturating_mul(clones)),
        );
        set.threads = set.threads.saturating_add(clones);
        set.open_files = set
            .open_files
            .saturating_add(files_per_clone(job).saturating_mul(clones));
        // A result keeps its merged histograms until the run ends (one per clone unless
        // group_reporting merges them; counted per clone, the larger).
        results_bytes =
            results_bytes.saturating_add(histogram_bytes_per_clone(job).saturating_mul(clones));
        peak.clones_total = peak.clones_total.saturating_add(clones);
    }
    let mut peak = peak_of(peak, set);
    peak.memory_bytes = Bytes(peak.memory_bytes.as_u64().saturating_add(results_bytes));
    peak.open_files = peak.open_files.saturating_add(layout_files(jobs));
    peak
}

fn peak_of(a: Needs, b: Needs) -> Needs {
    Needs {
        memory_bytes: a.memory_bytes.max(b.memory_bytes),
        threads: a.threads.max(b.threads),
        open_files: a.open_files.max(b.open_files),
        buffer_bytes: a.buffer_bytes.max(b.buffer_bytes),
        clones_total: a.clones_total,
    }
}

/// Refuses `needs` that do not fit `limits`, with one line naming the need and the limit.
pub fn check(needs: &Needs, limits: &Limits) -> Result<(), EngineError> {
    if needs.threads > MAX_CLONES {
        return Err(too_big(format!(
            "the run starts {} clones (threads) at once; iofit runs at most {MAX_CLONES} at once, as fio does; lower numjobs (threads= in a vdbench file) or put a stonewall between jobs",
            needs.threads
        )));
    }
    if let Some(cpus) = limits.cpus {
        use iofit_model::limits::{max_clones_for, MAX_CLONES_PER_CPU, OVERRUN_BUDGET};
        let limit = u64::from(max_clones_for(cpus));
        if needs.threads > limit {
            return Err(too_big(format!(
                "the run starts {} clones (threads) at once, more than this machine starts and ends within {} s of the runtime: at most {limit} ({cpus} CPU(s) x {MAX_CLONES_PER_CPU}, iofit_model::limits); lower numjobs (threads= in a vdbench file), put a stonewall between jobs, or run on a machine with more CPUs",
                needs.threads,
                OVERRUN_BUDGET.as_secs()
            )));
        }
    }
    if let Some((limit, name)) = limits.threads {
        if needs.threads + 1 > limit {
            return Err(too_big(format!(
                "the run starts {} threads at once but {name} allows {limit}; lower numjobs",
                needs.threads
            )));
        }
    }
    if let Some((limit, in_use)) = limits.open_files {
        let need = needs.open_files + OWN_FDS;
        if need + in_use > limit {
            return Err(too_big(format!(
                "the run opens {} files at once (test files, each clone's re-opens and io_uring rings, plus {OWN_FDS} for iofit) but the open-file limit is {limit} with {in_use} in use (RLIMIT_NOFILE); raise it (ulimit -n {}) or lower numjobs",
                need,
                (need + in_use).next_power_of_two()
            )));
        }
    }
    if let Some((available, source)) = limits.memory_bytes {
        if needs.memory_bytes > available {
            return Err(too_big(format!(
                "the run needs {} of memory ({} of IO buffers: iodepth x bs per clone; the rest statistics) but {} is available ({source}); lower iodepth, bs or numjobs",
                show_bytes(needs.memory_bytes.as_u64()),
                show_bytes(needs.buffer_bytes.as_u64()),
                show_bytes(available.as_u64())
            )));
        }
    }
    Ok(())
}

fn too_big(message: String) -> EngineError {
    EngineError::Resources { message }
}

/// Bytes in binary units with a precision that shows them (1.5 KiB, 20.8 GiB, 32 TiB).
pub fn show_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else if value >= 100.0 || value.fract() == 0.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The limits of this machine and process.
pub fn limits() -> Limits {
    Limits {
        cpus: Some(iofit_model::limits::cpus_here()),
        memory_bytes: available_memory(),
        threads: thread_limit(),
        open_files: open_file_limit(),
    }
}

fn available_memory() -> Option<(Bytes, &'static str)> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let candidates = [
        Some((kib * 1024, "MemAvailable in /proc/meminfo")),
        cgroup_memory_left().map(|left| (left, "the cgroup's memory.max less memory.current")),
        data_limit_left().map(|left| (left, "RLIMIT_DATA (ulimit -d) less the data in use")),
    ];
    candidates
        .into_iter()
        .flatten()
        .min_by_key(|(bytes, _)| *bytes)
        .map(|(bytes, source)| (Bytes(bytes), source))
}

/// A data-size limit (ulimit -d) caps every allocation, IO buffers included.
fn data_limit_left() -> Option<u64> {
    let limit = rlimit(libc::RLIMIT_DATA)?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let in_use_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmData:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(limit.saturating_sub(in_use_kib * 1024))
}

/// In a container the host's MemAvailable overstates what this process may use.
fn cgroup_memory_left() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?; // "max" does not parse: no limit
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

fn rlimit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(limit.rlim_cur)
}

fn thread_limit() -> Option<(u64, &'static str)> {
    let threads_max = std::fs::read_to_string("/proc/sys/kernel/threads-max")
        .ok()
        .and_then(|t| t.trim().parse::<u64>().ok())
        .map(|n| (n, "kernel.threads-max"));
    let nproc = rlimit(libc::RLIMIT_NPROC).map(|n| (n, "RLIMIT_NPROC (ulimit -u)"));
    match (threads_max, nproc) {
        (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

fn open_file_limit() -> Option<(u64, u64)> {
    let limit = rlimit(libc::RLIMIT_NOFILE)?;
    let in_use = std::fs::read_dir("/proc/self/fd")
        .map(|dir| dir.count() as u64)
        .unwrap_or(0);
    Some((limit, in_use))
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::job::{BlockSizeSpec, RwMode, SizeSpec};
    use iofit_model::units::Bytes;

    fn job(engine: EngineKind, numjobs: u32, iodepth: u32, bs: Bytes) -> JobSpec {
        let mut job = JobSpec::new("a", Target::Files(vec!["f".into()])).with_rw(RwMode::RandRead);
        job.engine = engine;
        job.numjobs = numjobs;
        job.iodepth = iodepth;
        job.block_size = BlockSizeSpec::fixed(bs);
        job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
        job
    }

    fn roomy() -> Limits {
        Limits {
            cpus: Some(64),
            memory_bytes: Some((Bytes::gib(64), "test")),
            threads: Some((100_000, "test threads")),
            open_files: Some((1 << 20, 3)),
        }
    }

    #[test]
    fn buffers_are_iodepth_times_the_aligned_block_size() {
        let j = job(EngineKind::IoUring, 1, 32768, Bytes::mib(1));
        assert_eq!(buffer_bytes_per_clone(&j), 32 << 30);
        let j = job(EngineKind::Psync, 1, 32, Bytes(5000));
        assert_eq!(
            buffer_bytes_per_clone(&j),
            8192,
            "synchronous: one slot, 4 KiB aligned"
        );
        let j = job(EngineKind::Null, 1, 32, Bytes::mib(1));
        assert_eq!(buffer_bytes_per_clone(&j), 0);
    }

    #[test]
    fn a_clone_of_a_small_job_needs_about_one_mib() {
        let one = needs(&[job(EngineKind::IoUring, 1, 1, Bytes::kib(4))]);
        // Read-only, queued: 3 histograms in the clone and 3 in its result.
        assert!(one.memory_bytes < Bytes::mib(2), "{}", one.memory_bytes);
        assert!(one.memory_bytes > Bytes::mib(1), "{}", one.memory_bytes);
        assert_eq!(one.threads, 1);
        assert_eq!(
            one.open_files, 3,
            "the checked file, the clone's re-open, the ring"
        );
    }

    #[test]
    fn thirty_two_gib_of_buffers_is_refused_naming_both_numbers() {
        let n = needs(&[job(EngineKind::IoUring, 1, 32768, Bytes::mib(1))]);
        let limits = Limits {
            memory_bytes: Some((Bytes::gib(20), "MemAvailable in /proc/meminfo")),
            ..roomy()
        };
        let e = check(&n, &limits).unwrap_err().to_string();
        assert!(e.contains("32 GiB of IO buffers"), "{e}");
        assert!(e.contains("20 GiB is available (MemAvailable"), "{e}");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn twenty_thousand_clones_are_refused_before_anything_is_made() {
        let n = needs(&[job(EngineKind::Psync, 20_000, 1, Bytes::kib(4))]);
        assert_eq!(n.threads, 20_000);
        let e = check(&n, &roomy()).unwrap_err().to_string();
        assert!(e.contains("20000 clones"), "{e}");
        assert!(e.contains("4096"), "{e}");
        // A hundred million costs no more to refuse.
        let n = needs(&[job(EngineKind::Psync, 100_000_000, 1, Bytes::kib(4))]);
        assert!(check(&n, &roomy()).is_err());
    }

    #[test]
    fn open_files_beyond_the_limit_are_refused_with_the_limit() {
        let n = needs(&[job(EngineKind::IoUring, 300, 1, Bytes::kib(4))]);
        assert_eq!(
            n.open_files, 601,
            "one checked file, 300 re-opens, 300 rings"
        );
        let limits = Limits {
            open_files: Some((128, 4)),
            ..roomy()
        };
        let e = check(&n, &limits).unwrap_err().to_string();
        assert!(e.contains("opens 617 files"), "{e}");
        assert!(e.contains("limit is 128"), "{e}");
    }

    #[test]
    fn stonewalled_sets_need_their_largest_set_of_threads() {
        let a = job(EngineKind::Psync, 3000, 1, Bytes::kib(4));
        let mut b = job(EngineKind::Psync, 3000, 1, Bytes::kib(4));
        b.stonewall = true;
        let n = needs(&[a, b]);
        assert_eq!(n.threads, 3000);
        assert_eq!(n.clones_total, 6000);
        assert!(check(&n, &roomy()).is_ok());
    }

    #[test]
    fn more_clones_than_the_cpus_start_in_time_are_refused_naming_the_cpus() {
        let n = needs(&[job(EngineKind::Null, 1025, 1, Bytes::kib(4))]);
        let two_cpus = Limits {
            cpus: Some(2),
            ..roomy()
        };
        let e = check(&n, &two_cpus).unwrap_err().to_string();
        assert!(e.contains("1025 clones"), "{e}");
        assert!(e.contains("at most 1024 (2 CPU(s) x 512"), "{e}");
        assert!(e.contains("lower numjobs"), "{e}");
        let n = needs(&[job(EngineKind::Null, 1024, 1, Bytes::kib(4))]);
        assert!(
            check(&n, &two_cpus).is_ok(),
            "1024 clones start in time on 2 CPUs"
        );
    }

    #[test]
    fn sizes_read_as_units() {
        assert_eq!(show_bytes(512), "512 bytes");
        assert_eq!(show_bytes(1536), "1.5 KiB");
        assert_eq!(show_bytes(32 << 30), "32 GiB");
        assert_eq!(show_bytes(22_340_000_000), "20.8 GiB");
    }

    #[test]
    fn this_machine_has_readable_limits() {
        let l = limits();
        assert!(l.memory_bytes.is_some(), "MemAvailable readable on Linux");
        assert!(l.threads.is_some());
    }
}
