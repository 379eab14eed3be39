//! Real load for tests that must hold under it: a busy disk (threads writing 64 KiB O_DIRECT
//! blocks at random offsets of the very file a run reads) and a busy CPU (threads spinning on
//! every core). Both stop and join when dropped, also when the test fails.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::fs::OpenOptions;
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Threads writing to a file until dropped.
pub struct DiskContention {
    stop: Arc<AtomicBool>,
    writes: Arc<AtomicU64>,
    threads: Vec<JoinHandle<()>>,
}

impl DiskContention {
    /// `threads` writers over the first `file_bytes` of `path` (which must exist, at least
    /// that long, on a file system that takes O_DIRECT).
    pub fn start(path: &Path, file_bytes: u64, threads: usize) -> DiskContention {
        let stop = Arc::new(AtomicBool::new(false));
        let writes = Arc::new(AtomicU64::new(0));
        let threads = (0..threads as u64)
            .map(|seed| {
                let (stop, writes, path) = (stop.clone(), writes.clone(), path.to_path_buf());
                std::thread::spawn(move || write_until(&path, file_bytes, &stop, &writes, seed))
            })
            .collect();
        DiskContention {
            stop,
            writes,
            threads,
        }
    }

    /// Blocks written so far (a test checks the disk really was busy).
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
}

impl Drop for DiskContention {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

const BLOCK: usize = 64 << 10;

fn write_until(path: &Path, file_bytes: u64, stop: &AtomicBool, writes: &AtomicU64, seed: u64) {
    let file = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .expect("open the file O_DIRECT for the contending writer");
    let blocks = (file_bytes / BLOCK as u64).max(1);
    let layout = Layout::from_size_align(BLOCK, 4096).expect("a valid layout");
    // SAFETY: non-zero size; freed below with the same layout.
    let buf = unsafe { alloc_zeroed(layout) };
    assert!(!buf.is_null());
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    while !stop.load(Ordering::Relaxed) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let offset = (x % blocks) * BLOCK as u64;
        // SAFETY: buf holds BLOCK bytes, aligned for O_DIRECT; the fd is open.
        let n = unsafe { libc::pwrite(file.as_raw_fd(), buf.cast(), BLOCK, offset as i64) };
        assert_eq!(n, BLOCK as isize, "contending write");
        writes.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: allocated above with this layout.
    unsafe { dealloc(buf, layout) };
}

/// Threads spinning until dropped: a loaded CPU, as on a machine where other work runs.
pub struct CpuLoad {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
}

impl CpuLoad {
    /// `per_core` spinning threads for every core this process may use.
    pub fn start(per_core: usize) -> CpuLoad {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..cores * per_core)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005) ^ 1);
                    }
                })
            })
            .collect();
        CpuLoad { stop, threads }
    }
}

impl Drop for CpuLoad {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}
