//! The kernel's block-layer throttling for one process group: cgroup v2 `io.max`, or on
//! machines that still mount cgroup v1, `blkio.throttle.*`.
//!
//! Both throttle per device and per direction (reads and writes apart) and count requests as
//! the block layer sees them. v1 throttles direct IO and reads only: buffered writes that the
//! kernel flushes later are not charged to the group (v2 charges them through the memory
//! controller); the emulation says so when it runs on v1.

use crate::EmulateError;
use iofit_model::units::Bytes;
use std::fs;
use std::path::{Path, PathBuf};

pub use iofit_model::emulation::{CgroupVersion, DeviceNumber};

/// The device number of a block device node; refuses anything else.
pub fn device_number_of(path: &Path) -> Result<DeviceNumber, EmulateError> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = fs::metadata(path).map_err(|e| EmulateError::Io {
        what: format!("reading {}", path.display()),
        source: e,
    })?;
    if !meta.file_type().is_block_device() {
        return Err(EmulateError::Input(format!(
            "{} is not a block device; --map takes a device such as /dev/sdb or /dev/loop3",
            path.display()
        )));
    }
    let rdev = meta.rdev();
    Ok(DeviceNumber {
        major: libc::major(rdev),
        minor: libc::minor(rdev),
    })
}

/// Caps for one device, in requests and bytes per second; `None` is unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeviceCaps {
    // Bare u64: the whole numbers the kernel's throttle files take (Iops is an f64 rate).
    pub read_iops: Option<u64>,
    pub write_iops: Option<u64>,
    // Bare u64: whole bytes per second, as `io.max` and `blkio.throttle.*` take them.
    pub read_bytes_s: Option<u64>,
    pub write_bytes_s: Option<u64>,
}

/// What the group did on one device since it was made (cumulative).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceCounters {
    pub read_ios: u64,
    pub write_ios: u64,
    pub read_bytes: Bytes,
    pub write_bytes: Bytes,
}

/// A cgroup made for one emulation; removed by `remove` (and by `Drop` as a last resort).
#[derive(Debug)]
pub struct ThrottleGroup {
    pub version: CgroupVersion,
    pub dir: PathBuf,
    removed: bool,
    /// The caps last written per device. Every write of a limit file restarts the kernel's
    /// throttle slice, and a queued request that needs longer than the control tick to become
    /// due (a 1 MiB write at 8 MB/s waits 131 ms) would wait forever if the same values were
    /// written every tick; so only changes are written, and only changes beyond `HYSTERESIS`.
    written: std::collections::HashMap<DeviceNumber, DeviceCaps>,
}

/// A cap rises only when the new value is more than this share above the written one.
pub const HYSTERESIS: f64 = 0.05;

const V1_ROOT: &str = "/sys/fs/cgroup/blkio";
const V2_ROOTS: [&str; 2] = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"];

/// The cgroup interface that can throttle block IO here, or what is missing.
pub fn detect() -> Result<(CgroupVersion, PathBuf), EmulateError> {
    for root in V2_ROOTS {
        let controllers = Path::new(root).join("cgroup.controllers");
        if let Ok(text) = fs::read_to_string(&controllers) {
            if text.split_whitespace().any(|c| c == "io") {
                return Ok((CgroupVersion::V2, PathBuf::from(root)));
            }
        }
    }
    if Path::new(V1_ROOT)
        .join("blkio.throttle.read_iops_device")
        .exists()
    {
        return Ok((CgroupVersion::V1, PathBuf::from(V1_ROOT)));
    }
    Err(EmulateError::Unsupported(
        "no block-throttling controller: neither cgroup v2 with the 'io' controller \
         (/sys/fs/cgroup/cgroup.controllers) nor cgroup v1 blkio (/sys/fs/cgroup/blkio) is \
         mounted; mount one (e.g. `mount -t cgroup -o blkio none /sys/fs/cgroup/blkio`)"
            .into(),
    ))
}

impl ThrottleGroup {
    /// Makes a new group named `name` under the detected hierarchy.
    pub fn create(name: &str) -> Result<ThrottleGroup, EmulateError> {
        let (version, root) = detect()?;
        if version == CgroupVersion::V2 {
            // Children get the io controller only when the parent hands it down.
            let _ = write_file(&root.join("cgroup.subtree_control"), "+io");
        }
        let dir = root.join(name);
        iofit_safefs::control::make_control_dir(&dir).map_err(|e| {
            let e = e.into_io();
            let hint = if e.kind() == std::io::ErrorKind::PermissionDenied {
                " (emulate needs root to make a cgroup)"
            } else {
                ""
            };
            EmulateError::Io {
                what: format!("creating cgroup {}{hint}", dir.display()),
                source: e,
            }
        })?;
        Ok(ThrottleGroup {
            version,
            dir,
            removed: false,
            written: Default::default(),
        })
    }

    /// The file a process writes "0" into to join the group (see `session::spawn`).
    pub fn procs_file(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Sets one device's caps; `None` lifts that cap. Writes only what changed by more than
    /// `HYSTERESIS` (see `written`).
    pub fn set(&mut self, device: DeviceNumber, caps: &DeviceCaps) -> Result<(), EmulateError> {
        let caps = match self.written.get(&device) {
            Some(old) => settle(old, caps),
            None => *caps,
        };
        if self.written.get(&device) == Some(&caps) {
            return Ok(());
        }
        let old = self.written.get(&device).copied();
        self.write_caps(device, &caps, old.as_ref())?;
        self.written.insert(device, caps);
        Ok(())
    }

    fn write_caps(
        &self,
        device: DeviceNumber,
        caps: &DeviceCaps,
        old: Option<&DeviceCaps>,
    ) -> Result<(), EmulateError> {
        match self.version {
            CgroupVersion::V1 => {
                // v1 takes one value per file; 0 means unlimited.
                let pairs = [
                    ("blkio.throttle.read_iops_device", caps.read_iops),
                    ("blkio.throttle.write_iops_device", caps.write_iops),
                    ("blkio.throttle.read_bps_device", caps.read_bytes_s),
                    ("blkio.throttle.write_bps_device", caps.write_bytes_s),
                ];
                let old_values =
                    old.map(|o| [o.read_iops, o.write_iops, o.read_bytes_s, o.write_bytes_s]);
                for (index, (file, value)) in pairs.into_iter().enumerate() {
                    if old_values.is_some_and(|o| o[index] == value) {
                        continue;
                    }
                    let line = format!("{device} {}", value.map(|v| v.max(1)).unwrap_or(0));
                    write_file(&self.dir.join(file), &line)?;
                }
                Ok(())
            }
            CgroupVersion::V2 => {
                let value = |v: Option<u64>| match v {
                    Some(v) => v.max(1).to_string(),
                    None => "max".into(),
                };
                let line = format!(
                    "{device} riops={} wiops={} rbps={} wbps={}",
                    value(caps.read_iops),
                    value(caps.write_iops),
                    value(caps.read_bytes_s),
                    value(caps.write_bytes_s)
                );
                write_file(&self.dir.join("io.max"), &line)
            }
        }
    }

    /// The caps last written for `device` (`None` before any).
    pub fn written(&self, device: DeviceNumber) -> Option<DeviceCaps> {
        self.written.get(&device).copied()
    }

    /// The group's cumulative counters on `device` (zero before its first IO).
    pub fn counters(&self, device: DeviceNumber) -> Result<DeviceCounters, EmulateError> {
        match self.version {
            CgroupVersion::V1 => {
                let ios = read_file(&self.dir.join("blkio.throttle.io_serviced"))?;
                let bytes = read_file(&self.dir.join("blkio.throttle.io_service_bytes"))?;
                let (read_ios, write_ios) = parse_v1(&ios, device);
                let (read_bytes, write_bytes) = parse_v1(&bytes, device);
                Ok(DeviceCounters {
                    read_ios,
                    write_ios,
                    read_bytes: Bytes(read_bytes),
                    write_bytes: Bytes(write_bytes),
                })
            }
            CgroupVersion::V2 => {
                let text = read_file(&self.dir.join("io.stat"))?;
                Ok(parse_v2(&text, device))
            }
        }
    }

    /// Process ids still in the group.
    pub fn members(&self) -> Vec<i32> {
        read_file(&self.procs_file())
            .map(|text| text.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Kills whatever is left in the group and removes it.
    pub fn remove(&mut self) -> Result<(), EmulateError> {
        if self.removed {
            return Ok(());
        }
        for _ in 0..50 {
            let members = self.members();
            if members.is_empty() {
                break;
            }
            for pid in members {
                // SAFETY: kill(2) with a pid read from the group's own member list.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        iofit_safefs::control::remove_control_dir(&self.dir).map_err(|e| EmulateError::Io {
            what: format!("removing cgroup {}", self.dir.display()),
            source: e.into_io(),
        })?;
        self.removed = true;
        Ok(())
    }
}

impl Drop for ThrottleGroup {
    fn drop(&mut self) {
        let _ = self.remove();
    }
}

/// Keeps each old value where the new one is at most `HYSTERESIS` above it; a lower value is
/// always written. So a cap in force is never above the one the controller asked for, and caps
/// that the controller made add up to a limit never pass it (one direction's cap kept while the
/// other's rose would). But where one direction's cap falls while the other's rises (the split
/// between them moved), both are written as asked: keeping the rising one at its old value
/// while writing the falling one lost a few % of the total at every move (a ratchet), and the
/// two still add up to no more than was asked.
pub fn settle(old: &DeviceCaps, new: &DeviceCaps) -> DeviceCaps {
    let pick = |o: Option<u64>, n: Option<u64>| match (o, n) {
        (Some(o), Some(n)) if n >= o && (n - o) as f64 <= HYSTERESIS * o as f64 => Some(o),
        _ => n,
    };
    let moved = |o: (Option<u64>, Option<u64>), n: (Option<u64>, Option<u64>)| match (o, n) {
        ((Some(or), Some(ow)), (Some(nr), Some(nw))) => {
            (nr < or && nw > ow) || (nw < ow && nr > or)
        }
        _ => false,
    };
    let iops_moved = moved(
        (old.read_iops, old.write_iops),
        (new.read_iops, new.write_iops),
    );
    let bytes_moved = moved(
        (old.read_bytes_s, old.write_bytes_s),
        (new.read_bytes_s, new.write_bytes_s),
    );
    // A pair (reads and writes) of which one is written anyway is written whole, as asked:
    // both rising, the one past `HYSTERESIS` written and the other kept handed the whole rise
    // to one direction, so the parts drifted off the workload's mix (a 70/30 stream held at
    // 68/32 ran at its read part / 0.7, 87 % of its cap, in closed_loop.rs).
    let pair = |(o_read, o_write): (Option<u64>, Option<u64>),
                (n_read, n_write): (Option<u64>, Option<u64>),
                moved: bool| {
        let kept = (pick(o_read, n_read), pick(o_write, n_write));
        if moved || kept != (o_read, o_write) {
            (n_read, n_write)
        } else {
            kept
        }
    };
    let (read_iops, write_iops) = pair(
        (old.read_iops, old.write_iops),
        (new.read_iops, new.write_iops),
        iops_moved,
    );
    let (read_bytes_s, write_bytes_s) = pair(
        (old.read_bytes_s, old.write_bytes_s),
        (new.read_bytes_s, new.write_bytes_s),
        bytes_moved,
    );
    DeviceCaps {
        read_iops,
        write_iops,
        read_bytes_s,
        write_bytes_s,
    }
}

/// What a device itself completed since it appeared (`/sys/dev/block/MAJ:MIN/stat`) and what
/// it has in flight (`inflight`: reads, writes), from every process; `None` where unpublished.
pub fn device_view(device: DeviceNumber) -> Option<(DeviceCounters, (u64, u64))> {
    let stat = fs::read_to_string(format!("/sys/dev/block/{device}/stat")).ok()?;
    let inflight = fs::read_to_string(format!("/sys/dev/block/{device}/inflight")).ok()?;
    let numbers = |text: &str| -> Option<Vec<u64>> {
        text.split_whitespace().map(|f| f.parse().ok()).collect()
    };
    let (stat, inflight) = (numbers(&stat)?, numbers(&inflight)?);
    if stat.len() < 7 || inflight.len() < 2 {
        return None;
    }
    let done = DeviceCounters {
        read_ios: stat[0],
        read_bytes: Bytes(stat[2] * 512),
        write_ios: stat[4],
        write_bytes: Bytes(stat[6] * 512),
    };
    Some((done, (inflight[0], inflight[1])))
}

/// v1 `io_serviced`/`io_service_bytes` lines: "7:0 Read 123", "7:0 Write 45".
fn parse_v1(text: &str, device: DeviceNumber) -> (u64, u64) {
    let key = device.to_string();
    let (mut read, mut write) = (0, 0);
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        if parts.next() != Some(key.as_str()) {
            continue;
        }
        match (
            parts.next(),
            parts.next().and_then(|v| v.parse::<u64>().ok()),
        ) {
            (Some("Read"), Some(v)) => read = v,
            (Some("Write"), Some(v)) => write = v,
            _ => {}
        }
    }
    (read, write)
}

/// v2 `io.stat` line: "7:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0".
fn parse_v2(text: &str, device: DeviceNumber) -> DeviceCounters {
    let key = device.to_string();
    let mut counters = DeviceCounters::default();
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        if parts.next() != Some(key.as_str()) {
            continue;
        }
        for pair in parts {
            let Some((name, value)) = pair.split_once('=') else {
                continue;
            };
            let value = value.parse().unwrap_or(0);
            match name {
                "rbytes" => counters.read_bytes = Bytes(value),
                "wbytes" => counters.write_bytes = Bytes(value),
                "rios" => counters.read_ios = value,
                "wios" => counters.write_ios = value,
                _ => {}
            }
        }
    }
    counters
}

fn write_file(path: &Path, text: &str) -> Result<(), EmulateError> {
    // Only onto a cgroup/sysfs file, never created, truncated or followed (safefs).
    iofit_safefs::control::write_control(path, text).map_err(|e| EmulateError::Io {
        what: format!("writing '{text}' to {}", path.display()),
        source: e.into_io(),
    })
}

fn read_file(path: &Path) -> Result<String, EmulateError> {
    fs::read_to_string(path).map_err(|e| EmulateError::Io {
        what: format!("reading {}", path.display()),
        source: e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOOP0: DeviceNumber = DeviceNumber { major: 7, minor: 0 };

    #[test]
    fn reads_v1_counters_of_one_device() {
        let text = "7:0 Read 502\n7:0 Write 3\n7:0 Sync 505\n7:1 Read 9\nTotal 514\n";
        assert_eq!(parse_v1(text, LOOP0), (502, 3));
    }

    #[test]
    fn small_moves_keep_the_written_cap() {
        let old = DeviceCaps {
            read_iops: Some(1000),
            write_iops: Some(10),
            read_bytes_s: Some(8_000_000),
            write_bytes_s: Some(8_000_000),
        };
        // Both directions up by 4 %: kept.
        let up = DeviceCaps {
            read_iops: Some(1040),
            write_iops: Some(10),
            read_bytes_s: Some(8_320_000),
            write_bytes_s: Some(8_320_000),
        };
        assert_eq!(settle(&old, &up), old);
        // Down by any amount: written.
        let lower = DeviceCaps {
            read_iops: Some(990),
            ..old
        };
        assert_eq!(settle(&old, &lower), lower);
        // A cap lifted (`None`) is written too.
        let lifted = DeviceCaps {
            write_bytes_s: None,
            ..old
        };
        assert_eq!(settle(&old, &lifted), lifted);
    }

    #[test]
    fn a_pair_with_one_cap_written_is_written_whole() {
        // Reads up 4 % (kept alone), writes up 10 % (written): both written as asked, or the
        // whole rise would go to the writes and the parts leave the workload's mix.
        let old = DeviceCaps {
            read_iops: Some(3056),
            write_iops: Some(1308),
            read_bytes_s: Some(8_000_000),
            write_bytes_s: Some(8_000_000),
        };
        let new = DeviceCaps {
            read_iops: Some(3178),
            write_iops: Some(1439),
            read_bytes_s: Some(8_100_000),
            write_bytes_s: Some(8_000_000),
        };
        let settled = settle(&old, &new);
        assert_eq!(
            (settled.read_iops, settled.write_iops),
            (Some(3178), Some(1439))
        );
        // The MB/s pair moved by less than the hysteresis on both sides: kept.
        assert_eq!(
            (settled.read_bytes_s, settled.write_bytes_s),
            (Some(8_000_000), Some(8_000_000))
        );
    }

    #[test]
    fn a_split_that_moved_is_written_whole() {
        let old = DeviceCaps {
            read_iops: Some(3000),
            write_iops: Some(1400),
            read_bytes_s: Some(8_000_000),
            write_bytes_s: Some(8_000_000),
        };
        // Reads down 3 %, writes up 4 %: both written, not the fall alone.
        let new = DeviceCaps {
            read_iops: Some(2910),
            write_iops: Some(1456),
            ..old
        };
        assert_eq!(settle(&old, &new), new);
        // Both up a little: both kept.
        let up = DeviceCaps {
            read_iops: Some(3090),
            write_iops: Some(1442),
            ..old
        };
        assert_eq!(settle(&old, &up), old);
    }

    #[test]
    fn reads_v2_counters_of_one_device() {
        let text = "7:1 rbytes=1 wbytes=1 rios=1 wios=1\n\
                    7:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n";
        let c = parse_v2(text, LOOP0);
        assert_eq!(
            (c.read_bytes, c.write_bytes, c.read_ios, c.write_ios),
            (Bytes(4096), Bytes(8192), 1, 2)
        );
    }
}
