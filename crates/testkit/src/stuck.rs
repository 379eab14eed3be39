//! A device the kernel holds IO on: a loop device over an image, and a cgroup v1 blkio
//! throttle on its reads, for tests of runs stuck in a system call the kernel does not
//! interrupt (a `pread` of 1 MiB at 4 KiB/s takes 256 s). Needs root, `losetup` and the v1 blkio
//! controller; each constructor returns None (saying why) where they are missing.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The cgroup v1 blkio controller's mount.
pub const BLKIO: &str = "/sys/fs/cgroup/blkio";

/// A loop device over an image in a temp dir; detached on drop.
pub struct Loop {
    pub device: PathBuf,
}

impl Loop {
    pub fn attach(image: &Path) -> Option<Loop> {
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(image)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "skipping: losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        let device = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Some(Loop { device })
    }

    pub fn major_minor(&self) -> String {
        let rdev = std::fs::metadata(&self.device).unwrap().rdev();
        format!("{}:{}", libc::major(rdev), libc::minor(rdev))
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        // The abandoned clone may hold the device for a moment after the throttle is lifted.
        for _ in 0..100 {
            let status = Command::new("losetup").arg("-d").arg(&self.device).status();
            if status.is_ok_and(|s| s.success()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A blkio cgroup throttling reads of one device; the limit is lifted and the cgroup removed
/// on drop (after its threads have left).
pub struct Throttle {
    dir: PathBuf,
    device: String,
}

impl Throttle {
    pub fn new(device: String, bytes_per_second: u64) -> Option<Throttle> {
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let number = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = Path::new(BLKIO).join(format!("iofit-stuck-{}-{number}", std::process::id()));
        std::fs::create_dir(&dir).ok()?;
        let throttle = Throttle { dir, device };
        throttle.limit(bytes_per_second).ok()?;
        Some(throttle)
    }

    fn limit(&self, bytes_per_second: u64) -> std::io::Result<()> {
        std::fs::write(
            self.dir.join("blkio.throttle.read_bps_device"),
            format!("{} {bytes_per_second}", self.device),
        )
    }

    /// Moves the calling thread (and the threads it starts afterwards) into the cgroup.
    pub fn enter(&self) {
        // SAFETY: gettid takes no arguments and cannot fail.
        let tid = unsafe { libc::gettid() };
        std::fs::write(self.dir.join("tasks"), tid.to_string()).expect("join the cgroup");
    }
}

impl Throttle {
    /// Moves a whole process (every thread of it) into the cgroup.
    pub fn enter_process(&self, pid: u32) {
        std::fs::write(self.dir.join("cgroup.procs"), pid.to_string()).expect("join the cgroup");
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        // 0 removes the rule: the stuck read completes and its thread ends.
        let _ = self.limit(0);
        for _ in 0..200 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}
