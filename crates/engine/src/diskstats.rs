//! fio's `Disk stats`: the block devices under a run's files, read from `/proc/diskstats`
//! before and after the run. A file's device is its file system's (`st_dev`; `st_rdev` for a
//! block device target), named as `/sys/dev/block/MAJOR:MINOR` names it; a partition is
//! reported as its whole disk, as fio reports it. Files on devices without a block device
//! (tmpfs, overlay) contribute nothing, and a machine without `/proc/diskstats` reports none.

use iofit_model::units::Millis;
use iofit_stats::DiskUtil;
use std::collections::BTreeMap;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use std::time::Instant;

/// The counters of one line of `/proc/diskstats` that fio reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub read_ios: u64,
    pub read_merges: u64,
    pub read_ticks_ms: Millis<u64>,
    pub write_ios: u64,
    pub write_merges: u64,
    pub write_ticks_ms: Millis<u64>,
    pub io_ticks_ms: Millis<u64>,
    pub in_queue_ms: Millis<u64>,
}

/// Parses `/proc/diskstats` text: device name -> counters. Lines too short are skipped.
pub fn parse(text: &str) -> BTreeMap<String, DiskCounters> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 14 {
            continue;
        }
        let n = |i: usize| fields[i].parse::<u64>().unwrap_or(0);
        let ms = |i: usize| Millis(n(i));
        out.insert(
            fields[2].to_string(),
            DiskCounters {
                read_ios: n(3),
                read_merges: n(4),
                read_ticks_ms: ms(6),
                write_ios: n(7),
                write_merges: n(8),
                write_ticks_ms: ms(10),
                io_ticks_ms: ms(12),
                in_queue_ms: ms(13),
            },
        );
    }
    out
}

/// The whole-disk name of the block device holding `path`, if it has one.
pub fn disk_of(path: &Path) -> Option<String> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(_) => std::fs::metadata(path.parent()?).ok()?,
    };
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let sys = std::fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let device = if sys.join("partition").exists() {
        sys.parent()?.to_path_buf()
    } else {
        sys
    };
    Some(device.file_name()?.to_string_lossy().into_owned())
}

/// Counters of the run's disks at its start.
pub struct DiskSampler {
    start: Instant,
    before: BTreeMap<String, DiskCounters>,
}

impl DiskSampler {
    /// Reads the counters of the disks under `paths` now.
    pub fn start<'a>(paths: impl IntoIterator<Item = &'a Path>) -> DiskSampler {
        let mut names: Vec<String> = paths.into_iter().filter_map(disk_of).collect();
        names.sort();
        names.dedup();
        let now = read_all();
        let before = names
            .into_iter()
            .filter_map(|name| Some((name.clone(), *now.get(&name)?)))
            .collect();
        DiskSampler {
            start: Instant::now(),
            before,
        }
    }

    /// The change of every disk's counters since [`DiskSampler::start`].
    pub fn finish(self) -> Vec<DiskUtil> {
        let elapsed = Millis(self.start.elapsed().as_millis().max(1) as f64);
        let now = read_all();
        self.before
            .iter()
            .filter_map(|(name, before)| Some(delta(name, before, now.get(name)?, elapsed)))
            .collect()
    }
}

fn read_all() -> BTreeMap<String, DiskCounters> {
    std::fs::read_to_string("/proc/diskstats")
        .map(|text| parse(&text))
        .unwrap_or_default()
}

/// One disk's use between two readings `elapsed` apart.
pub fn delta(name: &str, a: &DiskCounters, b: &DiskCounters, elapsed: Millis) -> DiskUtil {
    let d = |x: u64, y: u64| y.saturating_sub(x);
    let d_ms = |x: Millis<u64>, y: Millis<u64>| d(x.get(), y.get());
    DiskUtil {
        name: name.to_string(),
        read_ios: d(a.read_ios, b.read_ios),
        write_ios: d(a.write_ios, b.write_ios),
        read_merges: d(a.read_merges, b.read_merges),
        write_merges: d(a.write_merges, b.write_merges),
        read_ticks: d_ms(a.read_ticks_ms, b.read_ticks_ms),
        write_ticks: d_ms(a.write_ticks_ms, b.write_ticks_ms),
        in_queue: d_ms(a.in_queue_ms, b.in_queue_ms),
        util: (d_ms(a.io_ticks_ms, b.io_ticks_ms) as f64 * 100.0 / elapsed.get()).min(100.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_kernels_fields() {
        let text = "   7       0 loop0 2299919 910 33649202 1406861 200381 38854 27345334 136026 0 73616 1544242 0 0 0 0 9600 1354\n bad line\n";
        let all = parse(text);
        let loop0 = all["loop0"];
        assert_eq!(
            (loop0.read_ios, loop0.read_merges, loop0.read_ticks_ms),
            (2_299_919, 910, Millis(1_406_861))
        );
        assert_eq!(
            (loop0.write_ios, loop0.write_merges, loop0.write_ticks_ms),
            (200_381, 38_854, Millis(136_026))
        );
        assert_eq!(
            (loop0.io_ticks_ms, loop0.in_queue_ms),
            (Millis(73_616), Millis(1_544_242))
        );
        assert_eq!(all.len(), 1);
    }

    #[test]
    fn utilisation_is_busy_time_over_wall_time() {
        let a = DiskCounters::default();
        let b = DiskCounters {
            read_ios: 10,
            io_ticks_ms: Millis(250),
            ..a
        };
        let util = delta("vda", &a, &b, Millis(1000.0));
        assert_eq!(util.read_ios, 10);
        assert!((util.util - 25.0).abs() < 1e-9);
    }

    #[test]
    fn the_root_file_system_has_a_disk_here() {
        // Real /proc and /sys: where the root is on a block device, a file on it names one
        // (containers on overlay have none, which is the documented empty answer).
        if let Some(name) = disk_of(Path::new("/")) {
            assert!(
                read_all().contains_key(&name),
                "{name} not in /proc/diskstats"
            );
        }
    }
}
