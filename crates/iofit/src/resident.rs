//! Keeps iofit's code in memory for the commands that run IO, so that the stop bound's thread
//! never waits for the disk to read its own instructions.
//!
//! Why: a soak with a peer process saturating the disk (`CONTEND=1 bench/soak.sh`) caught the
//! stop-bound thread in uninterruptible sleep inside a page fault (`filemap_fault`, waiting for
//! a page of a file mapping to be read) 1.25 s after SIGTERM: the code that gathers and writes
//! the results so far had to come from the disk the run was saturating. The executable and the
//! shared libraries are file mappings the kernel may drop and read again at any time; a stop is
//! exactly when that read is slowest.
//!
//! What it does, once at start-up: every mapping of a file (the executable, the dynamic loader,
//! the C library) is locked in RAM with `mlock(2)`, which also reads it in now. Where locking is
//! not allowed (an unprivileged user's `RLIMIT_MEMLOCK`, often 8 MiB, is smaller than the code),
//! the mapping is populated instead (`MADV_POPULATE_READ`, Linux 5.14): present now, though the
//! kernel could still drop it under memory pressure. Anonymous memory (heap, stacks) is not
//! locked: it is only read back from swap, and the machines iofit measures rarely swap.
//!
//! ```no_run
//! // In main, before a command that runs IO:
//! // let kept = resident::keep_code_resident();
//! // assert!(kept.locked_bytes + kept.populated_bytes > Bytes::ZERO);
//! // if let Some(error) = kept.lock_refused { /* say so when running as root */ }
//! ```

use iofit_model::units::Bytes;

/// What [`keep_code_resident`] did.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// Bytes of file mappings locked in RAM.
    pub locked_bytes: Bytes,
    /// Bytes of file mappings read in but not locked (locking was refused).
    pub populated_bytes: Bytes,
    /// The error of the first refused lock (after retries), if any: `EPERM`/`ENOMEM` from a
    /// memlock limit is expected for an unprivileged user; for root it is worth saying.
    pub lock_refused: Option<std::io::Error>,
}

impl Kept {
    /// The refusal worth telling the user about: one despite `CAP_IPC_LOCK`, which exempts a
    /// process from the memlock limit. Without it (an unprivileged user, or root in a container
    /// that drops the capability) the limit refuses as expected and the code is populated
    /// instead, every run, so saying so would be noise.
    pub(crate) fn unexpected_refusal(&self) -> Option<&std::io::Error> {
        let refused = self.lock_refused.as_ref()?;
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        has_ipc_lock(&status).then_some(refused)
    }
}

/// Whether a `/proc/PID/status` text's effective capabilities include `CAP_IPC_LOCK` (bit 14).
fn has_ipc_lock(status: &str) -> bool {
    const CAP_IPC_LOCK_BIT: u32 = 14;
    status
        .lines()
        .find_map(|line| line.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|caps| caps & (1 << CAP_IPC_LOCK_BIT) != 0)
}

/// Attempts per mapping. `EAGAIN` is the kernel saying it could not fault the pages in just
/// now (memory pressure: `mlock` turns the page-in's ENOMEM into EAGAIN), which passes.
const LOCK_ATTEMPTS: u32 = 3;
const LOCK_RETRY_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);

/// More than any executable and its libraries: a mapping list beyond it is not iofit's code
/// (say, a data file mapped by something before start-up) and is left alone.
const MAPPED_CODE_MAX_BYTES: u64 = 512 << 20;

/// Locks (else populates) every file mapping of this process; best effort: a mapping the
/// kernel refuses both for is left as it was.
pub(crate) fn keep_code_resident() -> Kept {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return Kept::default();
    };
    let mut kept = Kept::default();
    let mut total_bytes = 0u64;
    for (start, end) in maps.lines().filter_map(file_mapping) {
        let len_bytes = end - start;
        total_bytes += len_bytes;
        if total_bytes > MAPPED_CODE_MAX_BYTES {
            break;
        }
        let (address, len) = (start as *mut libc::c_void, len_bytes as usize);
        match lock(address, len) {
            Ok(()) => kept.locked_bytes += Bytes(len_bytes),
            Err(error) => {
                kept.lock_refused.get_or_insert(error);
                // SAFETY: as in `lock`: one whole mapping of this process; populating only
                // faults its pages in.
                if unsafe { libc::madvise(address, len, libc::MADV_POPULATE_READ) } == 0 {
                    kept.populated_bytes += Bytes(len_bytes);
                }
            }
        }
    }
    kept
}

/// `mlock` of one mapping, tried again on `EAGAIN`.
fn lock(address: *mut libc::c_void, len: usize) -> std::io::Result<()> {
    let mut attempt = 1;
    loop {
        // SAFETY: the range is one whole mapping of this process as /proc/self/maps lists it;
        // mlock only faults its pages in and pins them, it changes no data.
        if unsafe { libc::mlock(address, len) } == 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EAGAIN) || attempt >= LOCK_ATTEMPTS {
            return Err(error);
        }
        attempt += 1;
        std::thread::sleep(LOCK_RETRY_PAUSE);
    }
}

/// A `/proc/self/maps` line's address range when it maps a file that holds code or constants
/// (a path and an inode; readable). `[vdso]`, `[stack]`, the heap and anonymous memory are not.
fn file_mapping(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    let range = fields.next()?;
    let perms = fields.next()?;
    let _offset = fields.next()?;
    let _device = fields.next()?;
    let inode: u64 = fields.next()?.parse().ok()?;
    let path = fields.next()?;
    if inode == 0 || !path.starts_with('/') || !perms.starts_with('r') {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    let start = u64::from_str_radix(start, 16).ok()?;
    let end = u64::from_str_radix(end, 16).ok()?;
    (end > start).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_readable_file_mappings_are_taken() {
        let lines = [
            (
                "55d0c0a00000-55d0c1400000 r-xp 00200000 fd:01 1234 /usr/bin/iofit",
                Some((0x55d0_c0a0_0000, 0x55d0_c140_0000)),
            ),
            (
                "7f00aa000000-7f00aa028000 r--p 00000000 fd:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6",
                Some((0x7f00_aa00_0000, 0x7f00_aa02_8000)),
            ),
            ("55d0c2000000-55d0c2100000 rw-p 00000000 00:00 0 [heap]", None),
            ("7ffd1000-7ffd3000 r-xp 00000000 00:00 0 [vdso]", None),
            ("7f00ab000000-7f00ab100000 rw-p 00000000 00:00 0 ", None),
            ("7f00ac000000-7f00ac001000 ---p 00000000 fd:01 99 /usr/lib/libc.so.6", None),
            ("garbage", None),
        ];
        for (line, expected) in lines {
            assert_eq!(file_mapping(line), expected, "{line}");
        }
    }

    #[test]
    fn the_lock_capability_is_read_from_the_effective_set() {
        let root = "Name:\tiofit\nCapInh:\t0000000000000000\nCapEff:\t000001ffffffffff\n";
        let docker = "CapEff:\t00000000a80425fb\n";
        let user = "CapEff:\t0000000000000000\n";
        assert!(has_ipc_lock(root));
        assert!(
            !has_ipc_lock(docker),
            "Docker's default set has no CAP_IPC_LOCK"
        );
        assert!(!has_ipc_lock(user));
        assert!(!has_ipc_lock("no such line"));
    }

    #[test]
    fn the_test_binary_keeps_its_code_in_memory() {
        let kept = keep_code_resident();
        assert!(
            kept.locked_bytes + kept.populated_bytes > Bytes::ZERO,
            "nothing locked or populated: {kept:?}"
        );
    }
}
