//! From a capture to the seed's requirements checklist, per volume, and the sized numbers a
//! design must meet.
//!
//! Sizing follows Azure Migrate's performance-based assessment: optionally reduce the samples to
//! the peak of each window (`window_s`), take the chosen percentile (default p95) of what is
//! left, multiply by a comfort factor (default 1.3) and by expected growth. Every sized number
//! gets a derivation line saying exactly that, with the intermediate values.
//!
//! Percentiles are nearest-rank: p of n sorted values is the ceil(p/100 x n)-th smallest, so a
//! hand count over a small sample gives the same number.

use crate::capture::{Capture, DiskSample};
use crate::error::ProfileError;
use iofit_model::requirements::{HostMetrics, Requirements, SizingTarget, VolumeRequirements};
use iofit_model::units::{Bytes, Iops, MBps, Millis, Seconds};

/// A volume to size: a label and the devices whose counters add up to it.
mod describe;
mod stats;
mod volumes;

pub use stats::{percentile, sequential_share, RANDOM_METHOD};

use describe::{describe_latency_and_queue, describe_shape, guess_role, idle_role};
use stats::{percentiles, tidy};
use volumes::{gather, observe, size_rates, Scratch, Totals};

#[derive(Clone, Debug, PartialEq)]
pub struct VolumeSpec {
    pub label: String,
    pub devices: Vec<String>,
}

/// How to size.
#[derive(Clone, Debug, PartialEq)]
pub struct SizingOptions {
    /// Volumes to size; empty: every device that did IO, one volume each.
    pub volumes: Vec<VolumeSpec>,
    /// Reduce samples to the peak of each window of this many seconds first.
    pub window_s: Option<Seconds>,
    /// Seconds between samples, for captures without time stamps (iostat without -t).
    pub interval_s: Option<Seconds>,
    /// The percentile sizing uses, 1..=100.
    pub percentile: f64,
    /// Head room on top of the percentile.
    pub comfort: f64,
    /// Expected growth of IOPS and throughput.
    pub growth: f64,
    /// Require the observed latency (at the sizing percentile) as `sizing.latency_ms`.
    pub latency_target: bool,
}

impl Default for SizingOptions {
    fn default() -> Self {
        SizingOptions {
            volumes: Vec::new(),
            window_s: None,
            interval_s: None,
            percentile: 95.0,
            comfort: 1.3,
            growth: 1.0,
            latency_target: false,
        }
    }
}

/// From this many reports on, volumes are summarised in parallel.
const PARALLEL_MIN_REPORTS: usize = 20_000;

/// Starts the derivation line of a volume whose capture has no byte counters (the model's, so
/// that a renderer reads it without this crate).
pub use iofit_model::requirements::BYTES_NOT_MEASURED;

/// The IO size a capture without byte counters is planned with (stated as an assumption).
const ASSUMED_IO_SIZE_BYTES: f64 = 8192.0;

/// Builds the requirements of `capture` under `options`.
pub fn requirements(
    capture: &Capture,
    options: &SizingOptions,
) -> Result<Requirements, ProfileError> {
    check_options(options)?;
    let volumes = resolve_volumes(capture, options)?;
    // Volumes are independent: a long capture sums them on every core, each core taking the
    // next volume left and reusing its scratch vectors (fresh ones cost a page fault per 4 KiB).
    let out = if capture.reports() >= PARALLEL_MIN_REPORTS && volumes.len() > 1 {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut done: Vec<(usize, Result<VolumeRequirements, ProfileError>)> =
            std::thread::scope(|scope| {
                let workers: Vec<_> = (0..cores.min(volumes.len()))
                    .map(|_| {
                        scope.spawn(|| {
                            let mut scratch = Scratch::default();
                            let mut done = Vec::new();
                            loop {
                                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(spec) = volumes.get(index) else {
                                    return done;
                                };
                                done.push((index, volume(capture, spec, options, &mut scratch)));
                            }
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .flat_map(|w| w.join().expect("a summary thread does not panic"))
                    .collect()
            });
        done.sort_by_key(|(index, _)| *index);
        done.into_iter()
            .map(|(_, result)| result)
            .collect::<Result<Vec<_>, _>>()?
    } else {
        let mut scratch = Scratch::default();
        volumes
            .iter()
            .map(|spec| volume(capture, spec, options, &mut scratch))
            .collect::<Result<Vec<_>, _>>()?
    };
    let mut cpu: Vec<f64> = capture
        .host
        .iter()
        .map(|h| h.cpu_pct)
        .filter(|v| !v.is_nan())
        .collect();
    let mut memory: Vec<f64> = capture
        .host
        .iter()
        .map(|h| h.memory_pct)
        .filter(|v| !v.is_nan())
        .collect();
    let mean = |v: &[f64]| (!v.is_empty()).then(|| tidy(v.iter().sum::<f64>() / v.len() as f64));
    let host = HostMetrics {
        cpu_pct_avg: mean(&cpu),
        memory_pct_avg: mean(&memory),
        cpu_pct: percentiles(&mut cpu),
        memory_pct: percentiles(&mut memory),
        vcpu_min: None,
        memory_gib_min: None,
    };
    Ok(Requirements {
        source: format!("{}: {}", capture.tool.name(), capture.source.join(", ")),
        growth_factor: options.growth,
        host,
        volumes: out,
    })
}

/// The largest comfort or growth factor: a hundredfold is beyond any sizing, and keeps every
/// sized number finite.
const MAX_FACTOR: f64 = 100.0;

fn check_options(options: &SizingOptions) -> Result<(), ProfileError> {
    if !(options.percentile > 0.0 && options.percentile <= 100.0) {
        return Err(ProfileError::option(
            format!("--percentile {} is outside 1..=100", options.percentile),
            "give the percentile sizing uses, e.g. --percentile 95",
        ));
    }
    if !(options.comfort >= 1.0 && options.comfort <= MAX_FACTOR) {
        return Err(ProfileError::option(
            format!("--comfort {} is outside 1..={MAX_FACTOR}", options.comfort),
            "give a comfort factor of 1 or more, e.g. --comfort 1.3",
        ));
    }
    if !(options.growth > 0.0 && options.growth <= MAX_FACTOR) {
        return Err(ProfileError::option(
            format!("--growth {} is outside 0..={MAX_FACTOR}", options.growth),
            "give the expected growth as a factor, e.g. --growth 1.3 for 30 % more",
        ));
    }
    if let Some(window) = options.window_s {
        if !(window.get().is_finite() && window.get() > 0.0) {
            return Err(ProfileError::option(
                "--window must be a positive duration",
                "e.g. --window 10m",
            ));
        }
    }
    Ok(())
}

fn resolve_volumes(
    capture: &Capture,
    options: &SizingOptions,
) -> Result<Vec<VolumeSpec>, ProfileError> {
    let known: Vec<&str> = capture.devices.iter().map(|d| d.name.as_str()).collect();
    if options.volumes.is_empty() {
        let any_physical = capture.devices.iter().any(|d| !d.logical);
        let stacked = crate::devices::left_out(capture);
        let busy: Vec<VolumeSpec> = capture
            .devices
            .iter()
            .filter(|d| !(any_physical && d.logical))
            .filter(|d| !stacked.iter().any(|s| s.device == d.name))
            .filter(|d| {
                d.samples
                    .iter()
                    .any(|s| s.read_iops + s.write_iops > iofit_model::Iops(0.0))
            })
            .map(|d| VolumeSpec {
                label: d.name.clone(),
                devices: vec![d.name.clone()],
            })
            .collect();
        if busy.is_empty() {
            return Err(ProfileError::option(
                format!(
                    "no device did any IO in the capture (devices: {})",
                    list(&known)
                ),
                "capture while the application runs, or name a device with --device NAME",
            ));
        }
        return Ok(busy);
    }
    let mut resolved = Vec::new();
    for spec in &options.volumes {
        let mut devices = Vec::new();
        for wanted in &spec.devices {
            let found = known
                .iter()
                .find(|k| **k == wanted)
                .or_else(|| known.iter().find(|k| k.eq_ignore_ascii_case(wanted)))
                .or_else(|| {
                    // "E:" finds PerfMon's physical "1 E:"; "/dev/sdb" finds "sdb".
                    let bare = wanted.trim_start_matches("/dev/");
                    known.iter().find(|k| {
                        k.eq_ignore_ascii_case(bare)
                            || k.rsplit(' ')
                                .next()
                                .is_some_and(|t| t.eq_ignore_ascii_case(bare))
                    })
                });
            match found {
                Some(name) => devices.push(name.to_string()),
                None => {
                    return Err(ProfileError::option(
                        format!(
                            "device '{wanted}' (volume '{}') is not in the capture",
                            spec.label
                        ),
                        format!("use one of: {}", list(&known)),
                    ))
                }
            }
        }
        resolved.push(VolumeSpec {
            label: spec.label.clone(),
            devices,
        });
    }
    let selected: Vec<&str> = resolved
        .iter()
        .flat_map(|v| v.devices.iter().map(String::as_str))
        .collect();
    if let Some((a, b)) = crate::devices::counted_twice(capture, &selected) {
        let message = if a == b {
            format!("device '{a}' is named twice: its IO would be counted twice")
        } else {
            format!("'{a}' is a partition of '{b}': the disk's counters include its IO, so it would be counted twice")
        };
        return Err(ProfileError::option(
            message,
            "name either the disk or its partitions, each once",
        ));
    }
    Ok(resolved)
}

/// Partitions whose whole disk is in the capture too (`iostat -p ALL`, `sar -d -p` on a
/// partitioned disk): by default they are not sized, since the disk's counters include them.
/// Returns (partition, disk) pairs.
pub fn partitions_left_out(capture: &Capture) -> Vec<(String, String)> {
    crate::devices::left_out(capture)
        .into_iter()
        .filter(|l| matches!(l.kind, crate::devices::DeviceKind::Partition { .. }))
        .map(|l| (l.device, l.under))
        .collect()
}

fn list(names: &[&str]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn volume(
    capture: &Capture,
    spec: &VolumeSpec,
    options: &SizingOptions,
    scratch: &mut Scratch,
) -> Result<VolumeRequirements, ProfileError> {
    let Scratch { points, column } = scratch;
    let gathered = gather(capture, spec, points)?;
    let totals = Totals::of(points);
    let (observed, at) = observe(capture, points, column, options.percentile, &totals);
    let mut derivation = Vec::new();
    let (sized_iops, sized_throughput) =
        size_rates(capture, points, spec, options, &at, &mut derivation)?;
    let shape = describe_shape(capture, &totals, gathered.bytes_known, &mut derivation);
    let latency_ms = describe_latency_and_queue(options, &at, &mut derivation);
    derivation.push(
        "capacity_gib: not in IO counters; add sizing.capacity_gib by hand (df -h / Disk Management)"
            .into(),
    );
    if gathered.missing_is_idle && gathered.idle_filled > 0 {
        derivation.push(format!(
            "{} reports had no row for a device of this volume and count as idle \
             (iostat -z leaves idle devices out)",
            gathered.idle_filled
        ));
    }
    let (role, why) = if totals.ios > 0.0 {
        guess_role(
            &spec.label,
            100.0 - shape.read_pct,
            totals.merges_known.then_some(shape.sequential),
            shape.io_size_bytes,
        )
    } else {
        idle_role(&spec.label)
    };
    derivation.push(why);

    Ok(VolumeRequirements {
        label: spec.label.clone(),
        role,
        devices: spec.devices.clone(),
        sizing: SizingTarget {
            iops: Iops(sized_iops),
            throughput_mb_s: MBps(sized_throughput),
            latency_ms: latency_ms.map(Millis),
            io_size_bytes: Bytes(shape.io_size_bytes as u64),
            read_pct: shape.read_pct,
            random_pct: shape.random_pct,
            capacity_gib: None,
            queue_depth: at.queue_depth,
        },
        observed: Some(observed),
        derivation,
    })
}

/// One volume over one report: the device samples added up.
#[derive(Clone, Copy, Debug)]
pub(super) struct Point {
    pub(super) report: u32,
    read_iops: f64,
    write_iops: f64,
    read_bytes_s: f64,
    write_bytes_s: f64,
    /// Sum of IOs x latency over the devices, and the IOs it covers.
    latency_weighted: f64,
    latency_ios: f64,
    queue_depth: f64,
    merges_s: f64,
    devices: u32,
}

impl Point {
    fn new(report: u32) -> Point {
        Point {
            report,
            read_iops: 0.0,
            write_iops: 0.0,
            read_bytes_s: 0.0,
            write_bytes_s: 0.0,
            latency_weighted: 0.0,
            latency_ios: 0.0,
            queue_depth: 0.0,
            merges_s: 0.0,
            devices: 0,
        }
    }

    fn add(&mut self, s: &DiskSample) {
        let (read_iops, write_iops) = (s.read_iops.get(), s.write_iops.get());
        self.read_iops += read_iops;
        self.write_iops += write_iops;
        self.read_bytes_s += s.read_bytes_s.0;
        self.write_bytes_s += s.write_bytes_s.0;
        let ios = read_iops + write_iops;
        let (read_ms, write_ms) = (s.read_latency_ms.get(), s.write_latency_ms.get());
        if !read_ms.is_nan() && !write_ms.is_nan() {
            self.latency_weighted += read_iops * read_ms + write_iops * write_ms;
            self.latency_ios += ios;
        } else if !s.latency_ms.get().is_nan() {
            self.latency_weighted += ios * s.latency_ms.get();
            self.latency_ios += ios;
        }
        self.queue_depth += s.queue_depth; // NaN stays NaN: unknown
        self.merges_s += s.read_merges_per_s + s.write_merges_per_s;
        self.devices += 1;
    }

    pub(super) fn iops(&self) -> f64 {
        self.read_iops + self.write_iops
    }
    pub(super) fn bytes_s(&self) -> f64 {
        self.read_bytes_s + self.write_bytes_s
    }
}

#[cfg(test)]
mod tests {
    use crate::devices::partition_parent;

    /// A volume summarised with scratch vectors another volume used first (longer, shorter,
    /// windowed or not) equals one summarised with new vectors (the plain path it replaces).
    #[test]
    fn reused_scratch_gives_what_new_vectors_give() {
        let capture = crate::example::db_server_capture().unwrap();
        let mut specs = crate::example::db_server_volumes();
        specs.extend(capture.devices.iter().map(|d| VolumeSpec {
            label: d.name.clone(),
            devices: vec![d.name.clone()],
        }));
        assert!(specs.len() >= 3);
        for window_s in [None, Some(Seconds(300.0))] {
            let options = SizingOptions {
                window_s,
                ..SizingOptions::default()
            };
            let fresh: Vec<_> = specs
                .iter()
                .map(|spec| volume(&capture, spec, &options, &mut Scratch::default()).unwrap())
                .collect();
            let mut scratch = Scratch::default();
            for (spec, expected) in specs.iter().zip(&fresh).rev() {
                let reused = volume(&capture, spec, &options, &mut scratch).unwrap();
                assert_eq!(&reused, expected, "{}", spec.label);
            }
            // `requirements` refuses a device named twice (its IO would count twice): size
            // each device once, the example's volumes first.
            let once: Vec<usize> = (0..specs.len())
                .filter(|&i| !specs[..i].iter().any(|s| s.devices == specs[i].devices))
                .collect();
            assert!(once.len() >= 3);
            let options = SizingOptions {
                volumes: once.iter().map(|&i| specs[i].clone()).collect(),
                ..options
            };
            let expected: Vec<_> = once.iter().map(|&i| fresh[i].clone()).collect();
            assert_eq!(requirements(&capture, &options).unwrap().volumes, expected);
        }
    }

    use super::*;

    use crate::iostat::{parse_iostat, IostatOptions};

    fn report(rows: &[(&str, f64, f64)]) -> String {
        let mut text = String::from(
            "Device            r/s     rkB/s   rrqm/s w/s     wkB/s   wrqm/s  aqu-sz\n",
        );
        for (device, r, w) in rows {
            text.push_str(&format!(
                "{device} {r} {} 0.00 {w} {} 0.00 1.00\n",
                r * 8.0,
                w * 8.0
            ));
        }
        text + "\n"
    }

    fn capture(reports: &[&[(&str, f64, f64)]]) -> Capture {
        let text: String = reports.iter().map(|r| report(r)).collect();
        parse_iostat(text.as_bytes(), "z.txt", IostatOptions::default()).unwrap()
    }

    #[test]
    fn iostat_z_missing_rows_count_as_idle() {
        // Report 2 lists only sdb (iostat -z): sdc was idle then.
        let capture = capture(&[
            &[("sdb", 1.0, 1.0), ("sdc", 1.0, 1.0)],
            &[("sdb", 100.0, 0.0), ("sdc", 50.0, 0.0)],
            &[("sdb", 200.0, 0.0)],
            &[("sdb", 300.0, 0.0), ("sdc", 50.0, 0.0)],
        ]);
        let options = SizingOptions {
            volumes: vec![VolumeSpec {
                label: "both".into(),
                devices: vec!["sdb".into(), "sdc".into()],
            }],
            ..SizingOptions::default()
        };
        let req = requirements(&capture, &options).unwrap();
        let observed = req.volumes[0].observed.as_ref().unwrap();
        assert_eq!(observed.samples, 3);
        assert_eq!(observed.iops.p50, 200.0); // 150, 200, 350
        assert!(req.volumes[0]
            .derivation
            .iter()
            .any(|d| d.contains("count as idle")));
    }

    #[test]
    fn windows_never_span_files() {
        let one = capture(&[
            &[("sdb", 1.0, 0.0)],
            &[("sdb", 100.0, 0.0)],
            &[("sdb", 300.0, 0.0)],
        ]);
        let mut both = one.clone();
        both.append(one);
        let options = SizingOptions {
            window_s: Some(Seconds(3600.0)),
            interval_s: Some(Seconds(1.0)),
            percentile: 50.0,
            comfort: 1.0,
            ..SizingOptions::default()
        };
        let req = requirements(&both, &options).unwrap();
        // two files, one window each, peak 300 in both
        assert!(req.volumes[0].derivation[0].contains("2 windows of 1 h"));
        assert_eq!(req.volumes[0].sizing.iops.get(), 300.0);
        assert_eq!(req.volumes[0].observed.as_ref().unwrap().samples, 4);
    }

    #[test]
    fn partitions_and_their_disks() {
        assert_eq!(partition_parent("sda1"), Some("sda"));
        assert_eq!(partition_parent("sda12"), Some("sda"));
        assert_eq!(partition_parent("nvme0n1p2"), Some("nvme0n1"));
        assert_eq!(partition_parent("mmcblk0p1"), Some("mmcblk0"));
        assert_eq!(
            partition_parent("ata-Hitachi_HDS723020BLA642_MN1240F33J1XND-part3"),
            Some("ata-Hitachi_HDS723020BLA642_MN1240F33J1XND")
        );
        assert_eq!(partition_parent("nvme0n1"), None);
        assert_eq!(partition_parent("dm-2"), None);
        assert_eq!(partition_parent("sda"), None);
        assert_eq!(partition_parent("md0"), None);
    }
}
