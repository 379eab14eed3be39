//! Live sampling of Linux's own counters: `/proc/diskstats` (per device), `/proc/stat` (CPU)
//! and `/proc/meminfo` (memory). The parsers take text, so they are tested on captured files;
//! [`Snapshot::read`] reads the live files and [`LiveRecorder`] turns successive snapshots
//! into a [`Capture`] with the same arithmetic iostat uses.

use crate::capture::{Capture, DiskSample, Tool};
use crate::error::{excerpt, ProfileError};
use iofit_model::units::Millis;
use std::path::Path;

/// One line of /proc/diskstats (fields 1-14 of the kernel's iostats documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub name: String,
    pub reads: u64,
    pub reads_merged: u64,
    pub sectors_read: u64,
    pub read_ms: Millis<u64>,
    pub writes: u64,
    pub writes_merged: u64,
    pub sectors_written: u64,
    pub write_ms: Millis<u64>,
    pub in_flight: u64,
    pub io_ms: Millis<u64>,
    pub weighted_io_ms: Millis<u64>,
}

/// Parses /proc/diskstats text; `file` names it in errors.
pub fn parse_diskstats(text: &str, file: &str) -> Result<Vec<DiskCounters>, ProfileError> {
    let mut disks = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 14 {
            return Err(ProfileError::syntax(
                file,
                index as u64 + 1,
                None,
                format!(
                    "{} fields in '{}', /proc/diskstats lines have at least 14",
                    fields.len(),
                    excerpt(line)
                ),
                "give an unedited copy of /proc/diskstats (Linux 2.6.25 or later)",
            ));
        }
        let number = |i: usize, key: &str| -> Result<u64, ProfileError> {
            fields[i].parse().map_err(|_| {
                ProfileError::syntax(
                    file,
                    index as u64 + 1,
                    Some(key),
                    format!("'{}' is not a counter", excerpt(fields[i])),
                    "give an unedited copy of /proc/diskstats",
                )
            })
        };
        disks.push(DiskCounters {
            name: fields[2].to_string(),
            reads: number(3, "reads completed")?,
            reads_merged: number(4, "reads merged")?,
            sectors_read: number(5, "sectors read")?,
            read_ms: Millis(number(6, "time reading")?),
            writes: number(7, "writes completed")?,
            writes_merged: number(8, "writes merged")?,
            sectors_written: number(9, "sectors written")?,
            write_ms: Millis(number(10, "time writing")?),
            in_flight: number(11, "in flight")?,
            io_ms: Millis(number(12, "time doing IO")?),
            weighted_io_ms: Millis(number(13, "weighted time doing IO")?),
        });
    }
    Ok(disks)
}

/// CPU time counters of the `cpu` line of /proc/stat, in clock ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub busy: u64,
    pub idle: u64,
}

/// Parses the aggregate `cpu` line of /proc/stat; idle time includes iowait (as iostat's
/// %idle + %iowait: the CPU had nothing to run).
pub fn parse_stat(text: &str, file: &str) -> Result<CpuTimes, ProfileError> {
    for (index, line) in text.lines().enumerate() {
        let mut fields = line.split_whitespace();
        if fields.next() != Some("cpu") {
            continue;
        }
        let values: Result<Vec<u64>, _> = fields.map(str::parse::<u64>).collect();
        let values = values.map_err(|_| {
            ProfileError::syntax(
                file,
                index as u64 + 1,
                Some("cpu"),
                format!("'{}' holds a non-number", excerpt(line)),
                "give an unedited copy of /proc/stat",
            )
        })?;
        if values.len() < 4 {
            return Err(ProfileError::syntax(
                file,
                index as u64 + 1,
                Some("cpu"),
                "fewer than 4 CPU time fields",
                "give an unedited copy of /proc/stat",
            ));
        }
        // user nice system idle iowait irq softirq steal [guest guest_nice: already in user]
        let idle = values[3] + values.get(4).copied().unwrap_or(0);
        let busy: u64 = values.iter().take(8).sum::<u64>() - idle;
        return Ok(CpuTimes { busy, idle });
    }
    Err(ProfileError::content(
        file,
        "no aggregate `cpu` line",
        "give an unedited copy of /proc/stat",
    ))
}

/// Memory in use, percent: (MemTotal - MemAvailable) / MemTotal.
pub fn parse_meminfo(text: &str, file: &str) -> Result<f64, ProfileError> {
    let value = |key: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|rest| rest.trim_start_matches(':').split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    match (value("MemTotal"), value("MemAvailable")) {
        (Some(total), Some(available)) if total > 0.0 => {
            Ok(((total - available) / total * 100.0).clamp(0.0, 100.0))
        }
        _ => Err(ProfileError::content(
            file,
            "no MemTotal and MemAvailable lines",
            "give an unedited copy of /proc/meminfo (Linux 3.14 or later)",
        )),
    }
}

/// All three files at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub disks: Vec<DiskCounters>,
    pub cpu: CpuTimes,
    pub memory_pct: f64,
}

impl Snapshot {
    /// Reads `<root>/diskstats`, `<root>/stat` and `<root>/meminfo` (root is `/proc` live).
    pub fn read(root: &Path) -> Result<Snapshot, ProfileError> {
        let read = |name: &str| -> Result<(String, String), ProfileError> {
            let path = root.join(name);
            let file = path.display().to_string();
            std::fs::read_to_string(&path)
                .map(|text| (text, file.clone()))
                .map_err(|source| ProfileError::Io { file, source })
        };
        let (diskstats, diskstats_file) = read("diskstats")?;
        let (stat, stat_file) = read("stat")?;
        let (meminfo, meminfo_file) = read("meminfo")?;
        Ok(Snapshot {
            disks: parse_diskstats(&diskstats, &diskstats_file)?,
            cpu: parse_stat(&stat, &stat_file)?,
            memory_pct: parse_meminfo(&meminfo, &meminfo_file)?,
        })
    }
}

/// The interval sample of one device between two snapshots `elapsed_s` apart, computed as
/// iostat computes its -x columns.
pub fn disk_delta(
    before: &DiskCounters,
    after: &DiskCounters,
    elapsed_s: f64,
    report: u32,
) -> DiskSample {
    let d = |a: u64, b: u64| b.wrapping_sub(a) as f64;
    let reads = d(before.reads, after.reads);
    let writes = d(before.writes, after.writes);
    let per_io = |ms: f64, ios: f64| if ios > 0.0 { ms / ios } else { 0.0 };
    DiskSample {
        report,
        read_iops: iofit_model::Iops(reads / elapsed_s),
        write_iops: iofit_model::Iops(writes / elapsed_s),
        read_bytes_s: iofit_model::BytesPerSecond(
            d(before.sectors_read, after.sectors_read) * 512.0 / elapsed_s,
        ),
        write_bytes_s: iofit_model::BytesPerSecond(
            d(before.sectors_written, after.sectors_written) * 512.0 / elapsed_s,
        ),
        read_latency_ms: Millis(per_io(d(before.read_ms.get(), after.read_ms.get()), reads)),
        write_latency_ms: Millis(per_io(
            d(before.write_ms.get(), after.write_ms.get()),
            writes,
        )),
        latency_ms: Millis(f64::NAN),
        queue_depth: d(before.weighted_io_ms.get(), after.weighted_io_ms.get())
            / (elapsed_s * 1000.0),
        read_merges_per_s: d(before.reads_merged, after.reads_merged) / elapsed_s,
        write_merges_per_s: d(before.writes_merged, after.writes_merged) / elapsed_s,
    }
}

/// Builds a capture from successive snapshots.
pub struct LiveRecorder {
    capture: Capture,
    previous: Option<(Snapshot, f64)>,
}

impl LiveRecorder {
    pub fn new(source: &str, interval_s: f64) -> LiveRecorder {
        let mut capture = Capture::new(source.to_string(), Tool::Live);
        capture.interval_s = Some(iofit_model::units::Seconds(interval_s));
        LiveRecorder {
            capture,
            previous: None,
        }
    }

    /// Adds a snapshot taken `at_s` seconds after the start; from the second on, each one
    /// closes an interval.
    pub fn push(&mut self, snapshot: Snapshot, at_s: f64) {
        if let Some((before, before_s)) = self.previous.take() {
            let elapsed = (at_s - before_s).max(1e-3);
            let report = self.capture.push_report(before_s);
            let cpu_total = snapshot.cpu.busy.wrapping_sub(before.cpu.busy)
                + snapshot.cpu.idle.wrapping_sub(before.cpu.idle);
            let host = &mut self.capture.host[report as usize];
            if cpu_total > 0 {
                host.cpu_pct = snapshot.cpu.busy.wrapping_sub(before.cpu.busy) as f64
                    / cpu_total as f64
                    * 100.0;
            }
            host.memory_pct = snapshot.memory_pct;
            for after in &snapshot.disks {
                if let Some(old) = before.disks.iter().find(|d| d.name == after.name) {
                    let sample = disk_delta(old, after, elapsed, report);
                    let index = self.capture.device_index(after.name.as_bytes(), usize::MAX);
                    self.capture.devices[index].samples.push(sample);
                }
            }
        }
        self.previous = Some((snapshot, at_s));
    }

    /// The capture so far; devices that did no IO at all are dropped (loop, ram, idle disks).
    pub fn finish(mut self) -> Capture {
        self.capture.devices.retain(|d| {
            d.samples
                .iter()
                .any(|s| s.read_iops + s.write_iops > iofit_model::Iops(0.0))
        });
        self.capture
    }
}

/// Where a live capture's time comes from: the wall clock, or a fake one in tests.
pub trait LiveClock {
    /// Seconds since the capture started.
    fn now_s(&mut self) -> f64;
    /// Waits until `at_s` seconds after the start (returns at once if that has passed).
    fn sleep_until(&mut self, at_s: f64);
}

/// The wall clock, started when made.
pub struct WallClock(std::time::Instant);

impl WallClock {
    pub fn start() -> WallClock {
        WallClock(std::time::Instant::now())
    }
}

impl LiveClock for WallClock {
    fn now_s(&mut self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }

    fn sleep_until(&mut self, at_s: f64) {
        let due = std::time::Duration::from_secs_f64(at_s.max(0.0));
        if let Some(wait) = due.checked_sub(self.0.elapsed()) {
            std::thread::sleep(wait);
        }
    }
}

/// At most this many snapshots in one live capture (a week at 1 s is 604,800).
pub const LIVE_MAX_SAMPLES: f64 = 1_000_000.0;

/// `iofit profile --live`: snapshots of `<root>`'s counters every `interval_s` for
/// `duration_s` (one more than the intervals, so the first interval has a start), as a capture.
pub fn record_live(
    root: &Path,
    duration_s: f64,
    interval_s: f64,
    clock: &mut dyn LiveClock,
) -> Result<Capture, ProfileError> {
    let option = |message: String, fix: &str| ProfileError::Option {
        message,
        fix: fix.to_string(),
    };
    if interval_s > duration_s {
        return Err(option(
            format!("--interval {interval_s} s is longer than --live {duration_s} s"),
            "sample at least once",
        ));
    }
    let samples = (duration_s / interval_s).round().max(1.0);
    if samples > LIVE_MAX_SAMPLES {
        return Err(option(
            format!(
                "--interval {interval_s} s over --live {duration_s} s is {samples} samples; at \
                 most {LIVE_MAX_SAMPLES}"
            ),
            "raise --interval",
        ));
    }
    let mut recorder = LiveRecorder::new(&format!("{} (live)", root.display()), interval_s);
    for step in 0..=samples as u32 {
        clock.sleep_until(interval_s * f64::from(step));
        recorder.push(Snapshot::read(root)?, clock.now_s());
    }
    Ok(recorder.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 30008 7611 4087050 10437 2315 10448 1185904 3260 0 4872 13980 3581 66 130032 278 102 4
";
    const AFTER: &str = "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 30208 7631 4090250 10637 2415 10458 1187504 3760 1 5372 14680 3581 66 130032 278 102 4
";

    #[test]
    fn delta_matches_iostat_arithmetic() {
        let before = parse_diskstats(BEFORE, "a").unwrap();
        let after = parse_diskstats(AFTER, "b").unwrap();
        let sample = disk_delta(&before[1], &after[1], 2.0, 0);
        assert_eq!(sample.read_iops, iofit_model::Iops(100.0)); // 200 reads in 2 s
        assert_eq!(sample.write_iops, iofit_model::Iops(50.0));
        assert_eq!(
            sample.read_bytes_s,
            iofit_model::BytesPerSecond(3200.0 * 512.0 / 2.0)
        );
        assert_eq!(sample.read_latency_ms, Millis(1.0)); // 200 ms over 200 reads
        assert_eq!(sample.write_latency_ms, Millis(5.0));
        assert_eq!(sample.queue_depth, 0.35); // 700 weighted ms in 2000 ms
        assert_eq!(sample.read_merges_per_s, 10.0);
    }

    #[test]
    fn stat_and_meminfo() {
        let cpu = parse_stat(
            "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n",
            "stat",
        )
        .unwrap();
        assert_eq!(
            cpu,
            CpuTimes {
                busy: 150,
                idle: 850
            }
        );
        let memory = parse_meminfo(
            "MemTotal:  1000 kB\nMemFree: 100 kB\nMemAvailable:   250 kB\n",
            "m",
        )
        .unwrap();
        assert_eq!(memory, 75.0);
    }

    #[test]
    fn recorder_builds_reports() {
        let snapshot = |disks: &str, busy: u64, idle: u64| Snapshot {
            disks: parse_diskstats(disks, "d").unwrap(),
            cpu: CpuTimes { busy, idle },
            memory_pct: 40.0,
        };
        let mut recorder = LiveRecorder::new("live", 2.0);
        recorder.push(snapshot(BEFORE, 100, 900), 0.0);
        recorder.push(snapshot(AFTER, 150, 1050), 2.0);
        let capture = recorder.finish();
        assert_eq!(capture.reports(), 1);
        assert_eq!(capture.devices.len(), 1, "idle loop0 dropped");
        assert_eq!(capture.host[0].cpu_pct, 25.0);
        assert_eq!(
            capture.devices[0].samples[0].write_iops,
            iofit_model::Iops(50.0)
        );
    }

    #[test]
    fn captured_snapshots_of_a_direct_8k_writer() {
        // tests/data/diskstats: /proc copied twice about 2 s apart while
        // `dd bs=8k oflag=direct` wrote to vda (see tests/data/README.md).
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/diskstats");
        let t0 = Snapshot::read(&root.join("linux-6.18_t0")).unwrap();
        let t1 = Snapshot::read(&root.join("linux-6.18_t1")).unwrap();
        let mut recorder = LiveRecorder::new("captured", 2.0);
        recorder.push(t0, 0.0);
        recorder.push(t1, 2.0);
        let capture = recorder.finish();
        let vda = capture.devices.iter().find(|d| d.name == "vda").unwrap();
        let s = vda.samples[0];
        // writes 1128385 -> 1143886, sectors 92805744 -> 93053752
        assert_eq!(s.write_iops, iofit_model::Iops(15501.0 / 2.0));
        let write_size = s.write_bytes_s.0 / s.write_iops.get();
        assert!((write_size - 248008.0 * 512.0 / 15501.0).abs() < 1e-6);
        assert!(
            (write_size - 8192.0).abs() < 8.0,
            "8 KiB writes: {write_size}"
        );
        // cpu busy +47 user +45 system +10 softirq = 102; idle +232 +49 iowait = 281
        assert!((capture.host[0].cpu_pct - 102.0 / 383.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn live_proc_is_readable() {
        // Real /proc on the machine running the tests (Linux only).
        if Path::new("/proc/diskstats").exists() {
            let snapshot = Snapshot::read(Path::new("/proc")).unwrap();
            assert!(snapshot.memory_pct > 0.0);
        }
    }

    /// A fake clock: sleeping moves it to the due time; each snapshot file is swapped in by
    /// the test's `on_sleep` before it is read.
    struct FakeClock<'a> {
        now_s: f64,
        on_sleep: &'a mut dyn FnMut(f64),
    }

    impl LiveClock for FakeClock<'_> {
        fn now_s(&mut self) -> f64 {
            self.now_s
        }
        fn sleep_until(&mut self, at_s: f64) {
            self.now_s = self.now_s.max(at_s);
            (self.on_sleep)(self.now_s);
        }
    }

    #[test]
    fn a_live_capture_samples_on_its_clock_and_refuses_impossible_intervals() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        std::fs::write(root.join("stat"), "cpu  100 0 100 800 0 0 0 0 0 0\n").unwrap();
        std::fs::write(
            root.join("meminfo"),
            "MemTotal: 1000 kB\nMemAvailable: 500 kB\n",
        )
        .unwrap();
        let mut sleeps = Vec::new();
        let mut on_sleep = |at: f64| {
            // Every second 200 more reads: 200 IOPS in every interval.
            let text = AFTER.replace("30208", &(30008 + 200 * at as u64).to_string());
            std::fs::write(root.join("diskstats"), text).unwrap();
            sleeps.push(at);
        };
        let mut clock = FakeClock {
            now_s: 0.0,
            on_sleep: &mut on_sleep,
        };
        let capture = record_live(&root, 3.0, 1.0, &mut clock).unwrap();
        assert_eq!(capture.interval_s, Some(iofit_model::units::Seconds(1.0)));
        let vda = capture.devices.iter().find(|d| d.name == "vda").unwrap();
        let iops: Vec<f64> = vda.samples.iter().map(|s| s.read_iops.get()).collect();
        assert_eq!(iops, [200.0, 200.0, 200.0]);
        assert_eq!(sleeps, [0.0, 1.0, 2.0, 3.0]);
        let mut idle = FakeClock {
            now_s: 0.0,
            on_sleep: &mut |_| {},
        };
        let error = record_live(&root, 1.0, 2.0, &mut idle).unwrap_err();
        assert!(error
            .to_string()
            .contains("--interval 2 s is longer than --live 1 s"));
        let error = record_live(&root, 1e7, 1e-3, &mut idle).unwrap_err();
        assert!(error.to_string().contains("raise --interval"), "{error}");
    }
}
