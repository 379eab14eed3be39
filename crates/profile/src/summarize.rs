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

use crate::capture::{Capture, DiskSample, Tool};
use crate::error::ProfileError;
use iofit_model::requirements::{
    HostMetrics, ObservedMetrics, Percentiles, Requirements, SizingTarget, VolumeRequirements,
    VolumeRole,
};

/// A volume to size: a label and the devices whose counters add up to it.
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
    pub window_s: Option<f64>,
    /// Seconds between samples, for captures without time stamps (iostat without -t).
    pub interval_s: Option<f64>,
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

/// Nearest-rank percentile of `values` (sorted in place). `None` when empty.
pub fn percentile(values: &mut [f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * values.len() as f64).ceil() as usize;
    // Selection, not a full sort: O(n) per percentile (long captures have 10^5+ samples).
    let (_, value, _) =
        values.select_nth_unstable_by(rank.clamp(1, values.len()) - 1, |a, b| a.total_cmp(b));
    Some(*value)
}

/// p50, p90 and p99 by nested selection (see [`select_percentiles`]).
fn percentiles(values: &mut [f64]) -> Option<Percentiles> {
    let [p50, p90, p99] = select_percentiles(values, [50.0, 90.0, 99.0])?;
    Some(Percentiles {
        p50: tidy(p50),
        p90: tidy(p90),
        p99: tidy(p99),
    })
}

/// p50, p90, p99 and the sizing percentile `p` of one series in one nested selection.
fn percentiles_and(values: &mut [f64], p: f64) -> Option<(Percentiles, f64)> {
    let [p50, p90, p99, at] = select_percentiles(values, [50.0, 90.0, 99.0, p])?;
    Some((
        Percentiles {
            p50: tidy(p50),
            p90: tidy(p90),
            p99: tidy(p99),
        },
        at,
    ))
}

/// Nearest-rank percentiles `ps` of `values` by nested selection: the ranks are selected in
/// ascending order, each among the values above the one before (after selecting a rank every
/// value above it is larger), so p50, p90, p95 and p99 cost one pass over n, then n/2, n/10
/// and n/20 values instead of four passes over n; the same nearest ranks as [`percentile`].
/// `None` when empty.
fn select_percentiles<const N: usize>(values: &mut [f64], ps: [f64; N]) -> Option<[f64; N]> {
    if values.is_empty() {
        return None;
    }
    let len = values.len();
    let rank = |p: f64| ((p / 100.0) * len as f64).ceil().clamp(1.0, len as f64) as usize - 1;
    let mut order: [usize; N] = std::array::from_fn(|i| i);
    order.sort_by_key(|&i| rank(ps[i]));
    let mut found = [0.0; N];
    let mut from = 0;
    let mut last = 0.0;
    for i in order {
        let index = rank(ps[i]);
        if index >= from {
            let (_, value, _) =
                values[from..].select_nth_unstable_by(index - from, |a, b| a.total_cmp(b));
            last = *value;
            from = index + 1;
        }
        // A rank equal to the one before: the same value.
        found[i] = last;
    }
    Some(found)
}

/// Rounds to 4 decimals so the TOML reads well; far below any measurement's precision.
fn tidy(value: f64) -> f64 {
    (value * 1e4).round() / 1e4
}

/// Rounds a sized rate up to 2 decimals (up: a requirement must not shrink by rounding).
fn round_up(value: f64) -> f64 {
    // `+ 0.0` turns the -0.0 that ceil(-1e-9) gives for an idle volume into 0.
    (value * 100.0 - 1e-9).ceil() / 100.0 + 0.0
}

/// Share of sequential IO, 0..=1, estimated from IO size and merges; see [`RANDOM_METHOD`].
pub fn sequential_share(io_size_bytes: f64, merged_per_s: f64, completed_per_s: f64) -> f64 {
    let kib = io_size_bytes / 1024.0;
    let size_score = if kib > 0.0 {
        ((kib / 16.0).log2() / 4.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let merge_score = if merged_per_s.is_finite() && merged_per_s + completed_per_s > 0.0 {
        (2.0 * merged_per_s / (merged_per_s + completed_per_s)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    size_score.max(merge_score)
}

/// How random % is estimated; printed in the derivation.
pub const RANDOM_METHOD: &str = "method: random % = 100 x (1 - max(size score, merge \
score)); size score = log2(IO size / 16 KiB) / 4 in 0..1 (16 KiB or less: random, 256 KiB or \
more: sequential); merge score = 2 x merged / (merged + completed) in 0..1 (only adjacent \
requests merge)";

/// One volume over one report: the device samples added up.
#[derive(Clone, Copy, Debug)]
struct Point {
    report: u32,
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
        self.read_iops += s.read_iops;
        self.write_iops += s.write_iops;
        self.read_bytes_s += s.read_bytes_s;
        self.write_bytes_s += s.write_bytes_s;
        let ios = s.read_iops + s.write_iops;
        if !s.read_latency_ms.is_nan() && !s.write_latency_ms.is_nan() {
            self.latency_weighted +=
                s.read_iops * s.read_latency_ms + s.write_iops * s.write_latency_ms;
            self.latency_ios += ios;
        } else if !s.latency_ms.is_nan() {
            self.latency_weighted += ios * s.latency_ms;
            self.latency_ios += ios;
        }
        self.queue_depth += s.queue_depth; // NaN stays NaN: unknown
        self.merges_s += s.read_merges_s + s.write_merges_s;
        self.devices += 1;
    }

    fn iops(&self) -> f64 {
        self.read_iops + self.write_iops
    }
    fn bytes_s(&self) -> f64 {
        self.read_bytes_s + self.write_bytes_s
    }
}

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
        if !(window.is_finite() && window > 0.0) {
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
            .filter(|d| d.samples.iter().any(|s| s.read_iops + s.write_iops > 0.0))
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

/// The vectors one volume's summary fills, kept for the next volume summarised on the same
/// core: on a 100 MB capture a volume's come to ~7 MB, ~1,700 page faults when new.
#[derive(Default)]
struct Scratch {
    points: Vec<Point>,
    /// The series being summarised (iops, throughput, read %, ...), one after the other.
    column: Vec<f64>,
}

/// Refills `column` with `values` (at most `most` of them), keeping its memory.
fn refill(column: &mut Vec<f64>, most: usize, values: impl Iterator<Item = f64>) -> &mut Vec<f64> {
    column.clear();
    column.reserve(most);
    column.extend(values);
    column
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
            iops: sized_iops,
            throughput_mb_s: sized_throughput,
            latency_ms,
            io_size_bytes: shape.io_size_bytes as u64,
            read_pct: shape.read_pct,
            random_pct: shape.random_pct,
            capacity_gib: None,
            queue_depth: at.queue_depth,
        },
        observed: Some(observed),
        derivation,
    })
}

/// What gathering a volume's reports found.
struct Gathered {
    /// Reports where a device's missing row was taken as idle (`iostat -z`).
    idle_filled: usize,
    /// Whether the capture counts bytes (else bytes are 0 and every byte figure says so).
    bytes_known: bool,
    missing_is_idle: bool,
}

/// Adds up the volume's devices per report into `points`, keeping only reports where every
/// device has a sample.
fn gather(
    capture: &Capture,
    spec: &VolumeSpec,
    points: &mut Vec<Point>,
) -> Result<Gathered, ProfileError> {
    points.clear();
    points.extend((0..capture.reports() as u32).map(Point::new));
    for name in &spec.devices {
        let series = capture
            .devices
            .iter()
            .find(|d| &d.name == name)
            .expect("resolved above");
        for sample in &series.samples {
            if let Some(point) = points.get_mut(sample.report as usize) {
                point.add(sample);
            }
        }
    }
    let wanted = spec.devices.len() as u32;
    // `iostat -z` leaves idle devices out of a report: there a missing row means no IO. Other
    // sources list every device each time, so a missing sample is unknown and the report is
    // left out of the volume.
    let missing_is_idle = matches!(capture.tool, Tool::Iostat | Tool::IostatJson);
    let idle_filled = if missing_is_idle {
        fill_idle(capture, spec, points)
    } else {
        0
    };
    // A capture of IO counts without byte counters: bytes count as 0 so that IOPS and read %
    // can be sized, and every number made of bytes says it was not measured.
    let bytes_known = !capture.bytes_missing
        || points
            .iter()
            .filter(|p| p.devices == wanted && p.iops().is_finite())
            .all(|p| p.bytes_s().is_finite());
    if !bytes_known {
        for point in points.iter_mut() {
            point.read_bytes_s = 0.0;
            point.write_bytes_s = 0.0;
        }
    }
    points.retain(|p| p.devices == wanted && p.iops().is_finite() && p.bytes_s().is_finite());
    if points.is_empty() {
        return Err(ProfileError::option(
            format!(
                "volume '{}' has no report with samples of all its devices ({})",
                spec.label,
                spec.devices.join(", ")
            ),
            "check that the devices were captured at the same times",
        ));
    }
    Ok(Gathered {
        idle_filled,
        bytes_known,
        missing_is_idle,
    })
}

/// Counts a device's missing row as idle, only within files where every device of the volume
/// shows up at least once; returns how many reports were filled.
fn fill_idle(capture: &Capture, spec: &VolumeSpec, points: &mut [Point]) -> usize {
    let wanted = spec.devices.len() as u32;
    let mut seen: Vec<Vec<u16>> = vec![Vec::new(); spec.devices.len()];
    for (i, name) in spec.devices.iter().enumerate() {
        if let Some(series) = capture.devices.iter().find(|d| &d.name == name) {
            for sample in &series.samples {
                let segment = capture.report_segment[sample.report as usize];
                if !seen[i].contains(&segment) {
                    seen[i].push(segment);
                }
            }
        }
    }
    let fillable = |point: &Point| {
        let segment = capture.report_segment[point.report as usize];
        point.devices < wanted && seen.iter().all(|s| s.contains(&segment))
    };
    let mut filled = 0;
    for point in points.iter_mut() {
        if fillable(point) {
            filled += 1;
            point.devices = wanted;
            if point.queue_depth.is_nan() {
                point.queue_depth = 0.0;
            }
        }
    }
    filled
}

/// Sums over every kept report of a volume.
struct Totals {
    ios: f64,
    reads: f64,
    bytes: f64,
    merges: f64,
    merges_known: bool,
    latency_weighted: f64,
    latency_ios: f64,
}

impl Totals {
    fn of(points: &[Point]) -> Totals {
        Totals {
            ios: points.iter().map(Point::iops).sum(),
            reads: points.iter().map(|p| p.read_iops).sum(),
            bytes: points.iter().map(Point::bytes_s).sum(),
            merges: points.iter().map(|p| p.merges_s).sum(),
            merges_known: points.iter().all(|p| p.merges_s.is_finite()),
            latency_weighted: points.iter().map(|p| p.latency_weighted).sum(),
            latency_ios: points.iter().map(|p| p.latency_ios).sum(),
        }
    }
}

/// The series' values at the sizing percentile.
struct AtPercentile {
    iops: f64,
    throughput_mb_s: f64,
    latency_ms: Option<f64>,
    queue_depth: Option<f64>,
}

/// The observed metrics of a volume and the values at the sizing percentile `p`.
fn observe(
    capture: &Capture,
    points: &[Point],
    column: &mut Vec<f64>,
    p: f64,
    totals: &Totals,
) -> (ObservedMetrics, AtPercentile) {
    // Reports with IO (read %, IO size, random % and latency are per IO).
    let busy = || points.iter().filter(|p| p.iops() > 0.0);
    let most = points.len();
    // One column at a time in the same vector: each series is filled, its sums taken and its
    // percentiles selected before the next (seven columns at once were 56 bytes a report).
    // The sizing percentile p of a series comes out of the same nested selection.
    let iops = refill(column, most, points.iter().map(Point::iops));
    let iops_max = iops.iter().copied().fold(0.0, f64::max);
    let (iops_percentiles, iops_at) = percentiles_and(iops, p).unwrap_or_default();
    let throughput = refill(column, most, points.iter().map(|p| p.bytes_s() / 1e6));
    let throughput_avg = throughput.iter().sum::<f64>() / throughput.len() as f64;
    let throughput_max = throughput.iter().copied().fold(0.0, f64::max);
    let (throughput_percentiles, throughput_at) =
        percentiles_and(throughput, p).unwrap_or_default();
    let read_pct = refill(column, most, busy().map(|p| p.read_iops / p.iops() * 100.0));
    let read_pct = percentiles(read_pct).unwrap_or_default();
    let io_size = refill(column, most, busy().map(|p| p.bytes_s() / p.iops()));
    let io_size = percentiles(io_size).unwrap_or_default();
    let merges_known = totals.merges_known;
    let random = refill(
        column,
        most,
        busy().map(|p| {
            let merged = if merges_known { p.merges_s } else { f64::NAN };
            100.0 * (1.0 - sequential_share(p.bytes_s() / p.iops(), merged, p.iops()))
        }),
    );
    let random = percentiles(random);
    let latency = refill(
        column,
        most,
        busy()
            .filter(|p| p.latency_ios > 0.0)
            .map(|p| p.latency_weighted / p.latency_ios),
    );
    let latency_min = latency.iter().copied().reduce(f64::min);
    let latency_stats = percentiles_and(latency, p);
    let queue = refill(
        column,
        most,
        points.iter().map(|p| p.queue_depth).filter(|q| !q.is_nan()),
    );
    let queue_stats = percentiles_and(queue, p);
    let observed = ObservedMetrics {
        samples: points.len() as u64,
        iops: iops_percentiles,
        read_pct,
        read_pct_estimated: capture.read_split_estimated,
        random_pct: random,
        random_pct_estimated: true,
        io_size_bytes: io_size,
        throughput_mb_s: throughput_percentiles,
        throughput_mb_s_avg: tidy(throughput_avg),
        throughput_mb_s_max: tidy(throughput_max),
        latency_ms: latency_stats.map(|(found, _)| found),
        latency_ms_min: latency_min.map(tidy),
        latency_ms_avg: (totals.latency_ios > 0.0)
            .then(|| tidy(totals.latency_weighted / totals.latency_ios)),
        queue_depth: queue_stats.map(|(found, _)| found),
        iops_max: tidy(iops_max),
    };
    let at = AtPercentile {
        iops: iops_at,
        throughput_mb_s: throughput_at,
        latency_ms: latency_stats.map(|(_, at)| at),
        queue_depth: queue_stats.map(|(_, at)| tidy(at)),
    };
    (observed, at)
}

/// The sized IOPS and MB/s (the percentile of samples, or of window peaks, times comfort and
/// growth), each with its derivation line.
fn size_rates(
    capture: &Capture,
    points: &[Point],
    spec: &VolumeSpec,
    options: &SizingOptions,
    at: &AtPercentile,
    derivation: &mut Vec<String>,
) -> Result<(f64, f64), ProfileError> {
    let p = options.percentile;
    let (iops_at, throughput_at, basis) = match options.window_s {
        Some(window) => {
            let (mut iops_peaks, mut throughput_peaks, windows) =
                window_peaks(capture, points, window, options.interval_s, &spec.label)?;
            (
                percentile(&mut iops_peaks, p).unwrap_or(0.0),
                percentile(&mut throughput_peaks, p).unwrap_or(0.0),
                format!(
                    "p{} of the peaks of {} windows of {}",
                    fmt_num(p),
                    windows,
                    fmt_duration(window)
                ),
            )
        }
        None => (
            at.iops,
            at.throughput_mb_s,
            format!("p{} of {} samples", fmt_num(p), points.len()),
        ),
    };
    let factor = options.comfort * options.growth;
    let mut sized = |at: f64, what: &str, unit: &str| {
        let value = round_up(at * factor);
        let growth = if options.growth != 1.0 {
            format!(" x growth {}", fmt_num(options.growth))
        } else {
            String::new()
        };
        derivation.push(format!(
            "{what} {} {unit} = {basis} ({} {unit}) x comfort {}{growth}",
            fmt_num(value),
            fmt_num(tidy(at)),
            fmt_num(options.comfort),
        ));
        value
    };
    let sized_iops = sized(iops_at, "iops", "IOPS");
    let sized_throughput = sized(throughput_at, "throughput_mb_s", "MB/s");
    Ok((sized_iops, sized_throughput))
}

/// The workload's shape over the whole capture.
struct Shape {
    io_size_bytes: f64,
    read_pct: f64,
    random_pct: f64,
    /// Share of sequential IO, 0..1 (the role guess uses it).
    sequential: f64,
}

/// IO size, read % and random % over the whole capture, each with its derivation line.
fn describe_shape(
    capture: &Capture,
    totals: &Totals,
    bytes_known: bool,
    derivation: &mut Vec<String>,
) -> Shape {
    let io_size_bytes = if !bytes_known {
        ASSUMED_IO_SIZE_BYTES
    } else if totals.ios > 0.0 {
        (totals.bytes / totals.ios).round().max(1.0)
    } else {
        4096.0
    };
    if !bytes_known {
        derivation.push(format!(
            "{BYTES_NOT_MEASURED}: the capture has IO counts but no byte counters (Disk Read \
             Bytes/sec, Disk Write Bytes/sec); throughput_mb_s 0 and io_size_bytes {} are \
             placeholders (8 KiB, SQL Server's page), not measurements: capture the byte \
             counters and profile again",
            ASSUMED_IO_SIZE_BYTES
        ));
    } else if totals.ios > 0.0 {
        derivation.push(format!(
            "io_size_bytes {} = all bytes / all IOs over the capture ({:.1} KiB)",
            io_size_bytes,
            io_size_bytes / 1024.0
        ));
    } else {
        derivation.push("io_size_bytes 4096: no IO in the capture, a placeholder".into());
    }
    let read_pct = if totals.ios > 0.0 {
        tidy(totals.reads / totals.ios * 100.0)
    } else {
        0.0
    };
    if totals.ios > 0.0 {
        derivation.push(format!(
            "read_pct {} = reads / all IOs over the capture{}",
            fmt_num(read_pct),
            if capture.read_split_estimated {
                " (an estimate: sar gives transfers only, split into reads and writes by byte \
                 share)"
            } else {
                ""
            }
        ));
    } else {
        derivation.push("read_pct 0: no IO in the capture, a placeholder".into());
    }
    let merged_total = if totals.merges_known {
        totals.merges
    } else {
        f64::NAN
    };
    let sequential = if totals.ios > 0.0 {
        sequential_share(totals.bytes / totals.ios, merged_total, totals.ios)
    } else {
        0.0
    };
    let random_pct = tidy(100.0 * (1.0 - sequential));
    if !bytes_known {
        derivation.push(
            "random_pct 100: assumed (no IO sizes or merges to estimate it from)".to_string(),
        );
    } else {
        derivation.push(format!(
            "random_pct {} estimated from the capture's IO size{} ({RANDOM_METHOD})",
            fmt_num(random_pct),
            if totals.merges_known {
                " and merges (rrqm/s + wrqm/s)"
            } else {
                " only (this source has no merge counts)"
            }
        ));
    }
    Shape {
        io_size_bytes,
        read_pct,
        random_pct,
        sequential,
    }
}

/// The latency requirement (only with --latency-target) and the queue depth's derivation.
fn describe_latency_and_queue(
    options: &SizingOptions,
    at: &AtPercentile,
    derivation: &mut Vec<String>,
) -> Option<f64> {
    let p = options.percentile;
    let observed_latency = at.latency_ms.filter(|l| *l > 0.0).map(tidy);
    // Today's latency often comes from local disks far faster than any cloud disk, so it is a
    // hard requirement only when asked for; otherwise it stays in `observed` for comparison.
    let latency_ms = observed_latency.filter(|_| options.latency_target);
    match (observed_latency, options.latency_target) {
        (Some(l), true) => derivation.push(format!(
            "latency_ms {} = p{} of the per-sample average latency (IO-weighted r_await/w_await; \
             --latency-target): the design must be at least as fast; comfort and growth do \
             not apply to latency",
            fmt_num(l),
            fmt_num(p)
        )),
        (Some(l), false) => derivation.push(format!(
            "latency_ms: not required; the application sees {} ms at p{} today (observed; \
             pass --latency-target to require it, or set sizing.latency_ms by hand)",
            fmt_num(l),
            fmt_num(p)
        )),
        (None, _) => {
            derivation.push("latency_ms: none, the capture has no latency counters".into())
        }
    }
    if let Some(q) = at.queue_depth {
        derivation.push(format!(
            "queue_depth {} = p{} of the average queue size (aqu-sz / Current Disk Queue Length)",
            fmt_num(q),
            fmt_num(p)
        ));
    }
    latency_ms
}

/// The peak IOPS and MB/s of each window; windows never span two files.
fn window_peaks(
    capture: &Capture,
    points: &[Point],
    window_s: f64,
    interval_s: Option<f64>,
    label: &str,
) -> Result<(Vec<f64>, Vec<f64>, usize), ProfileError> {
    let interval = interval_s.or(capture.interval_s);
    let mut keys: Vec<(u16, i64)> = Vec::with_capacity(points.len());
    for point in points {
        let report = point.report as usize;
        let time = capture.report_time_s[report];
        let time = if time.is_finite() {
            time
        } else if let Some(interval) = interval {
            let segment = capture.report_segment[report];
            let first = capture
                .report_segment
                .iter()
                .position(|s| *s == segment)
                .unwrap_or(0);
            (report - first) as f64 * interval
        } else {
            return Err(ProfileError::option(
                format!(
                    "--window needs sample times, and the capture of volume '{label}' has none"
                ),
                "capture with time stamps (`iostat -x -t`), or give the sampling interval with \
                 --interval 1s",
            ));
        };
        keys.push((
            capture.report_segment[report],
            (time / window_s).floor() as i64,
        ));
    }
    let mut iops_peaks = Vec::new();
    let mut throughput_peaks = Vec::new();
    let mut current: Option<(u16, i64)> = None;
    for (point, key) in points.iter().zip(keys) {
        if current != Some(key) {
            current = Some(key);
            iops_peaks.push(0.0f64);
            throughput_peaks.push(0.0f64);
        }
        let last = iops_peaks.len() - 1;
        iops_peaks[last] = iops_peaks[last].max(point.iops());
        throughput_peaks[last] = throughput_peaks[last].max(point.bytes_s() / 1e6);
    }
    let windows = iops_peaks.len();
    Ok((iops_peaks, throughput_peaks, windows))
}

/// An idle volume's role: from its label's words, else data by default, never guessed from an
/// IO pattern it does not have.
fn idle_role(label: &str) -> (VolumeRole, String) {
    let (role, words) = guess_role(label, 0.0, None, 0.0);
    if words.contains("(guessed)") {
        (
            VolumeRole::Data,
            "role data (default): no IO in the capture, so no pattern to tell a log from \
             data; name the volume (--label log) or set role by hand"
                .into(),
        )
    } else {
        (role, words)
    }
}

/// Role from the label's words, else from the IO pattern: mostly sequential small writes are a
/// database log.
/// `sequential` is `None` when the source has no merge counts (PerfMon, sar): then a
/// write-only volume of small IOs is taken for a log.
fn guess_role(
    label: &str,
    write_pct: f64,
    sequential: Option<f64>,
    io_size_bytes: f64,
) -> (VolumeRole, String) {
    let lower = label.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if has(&["log", "wal", "redo", "journal", "xlog"]) {
        return (
            VolumeRole::Log,
            format!("role log: from the label '{label}'"),
        );
    }
    if has(&["temp", "tmp"]) {
        return (
            VolumeRole::Temp,
            format!("role temp: from the label '{label}'"),
        );
    }
    if lower == "os" || has(&["boot", "system"]) {
        return (VolumeRole::Os, format!("role os: from the label '{label}'"));
    }
    let small = io_size_bytes <= 256.0 * 1024.0;
    let Some(sequential) = sequential else {
        if write_pct >= 90.0 && small {
            return (
                VolumeRole::Log,
                format!(
                    "role log (guessed): {write_pct:.0} % writes of {:.0} KiB; this source has no \
                     merge counts to show sequential IO, so a write-only disk of small IOs is \
                     taken for a log; pass --label to override",
                    io_size_bytes / 1024.0
                ),
            );
        }
        return (
            VolumeRole::Data,
            format!(
                "role data (guessed): {write_pct:.0} % writes; a log would be nearly all writes"
            ),
        );
    };
    if write_pct >= 80.0 && sequential >= 0.5 && small {
        return (
            VolumeRole::Log,
            format!(
                "role log (guessed): {:.0} % writes, {:.0} % sequential (estimated), {:.0} KiB \
                 IOs: the pattern of a database log",
                write_pct,
                sequential * 100.0,
                io_size_bytes / 1024.0
            ),
        );
    }
    (
        VolumeRole::Data,
        format!(
            "role data (guessed): {:.0} % writes, {:.0} % sequential (estimated); a log would be \
             mostly sequential small writes",
            write_pct,
            sequential * 100.0
        ),
    )
}

fn fmt_num(value: f64) -> String {
    if value == value.trunc() && value.abs() < 1e15 {
        format!("{}", value as i64)
    } else {
        let text = format!("{value:.4}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn fmt_duration(seconds: f64) -> String {
    if seconds >= 3600.0 && seconds % 3600.0 == 0.0 {
        format!("{} h", seconds / 3600.0)
    } else if seconds >= 60.0 && seconds % 60.0 == 0.0 {
        format!("{} min", seconds / 60.0)
    } else {
        format!("{} s", fmt_num(seconds))
    }
}

#[cfg(test)]
mod tests {
    use crate::devices::partition_parent;

    #[test]
    fn nested_selection_gives_the_same_ranks_as_three_selections() {
        let mut state = 0x0bad_5eed_1234_5678u64;
        for len in 1..300usize {
            let values: Vec<f64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 50) as f64 // many ties
                })
                .collect();
            let mut one = values.clone();
            let got = super::percentiles(&mut one).unwrap();
            let mut three = values.clone();
            let expected =
                [50.0, 90.0, 99.0].map(|p| super::tidy(super::percentile(&mut three, p).unwrap()));
            assert_eq!([got.p50, got.p90, got.p99], expected, "{values:?}");
        }
    }

    /// The sizing percentile selected with p50/p90/p99 in one nested selection equals a
    /// selection of its own on the series in its original order (the plain path it replaces),
    /// for sizing percentiles below, between, at and above the three.
    #[test]
    fn sizing_percentile_from_the_nested_selection_equals_its_own_selection() {
        let mut state = 0x5eed_0000_abcd_ef01u64;
        for len in 1..200usize {
            let values: Vec<f64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 97) as f64 / 4.0
                })
                .collect();
            for p in [1.0, 37.5, 50.0, 90.0, 95.0, 99.0, 99.9, 100.0] {
                let mut nested = values.clone();
                let (found, at) = super::percentiles_and(&mut nested, p).unwrap();
                let mut own = values.clone();
                assert_eq!(
                    at,
                    super::percentile(&mut own, p).unwrap(),
                    "p{p} of {values:?}"
                );
                let mut three = values.clone();
                assert_eq!(found, super::percentiles(&mut three).unwrap());
            }
        }
        assert_eq!(super::percentiles_and(&mut [], 95.0), None);
    }

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
        for window_s in [None, Some(300.0)] {
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
            window_s: Some(3600.0),
            interval_s: Some(1.0),
            percentile: 50.0,
            comfort: 1.0,
            ..SizingOptions::default()
        };
        let req = requirements(&both, &options).unwrap();
        // two files, one window each, peak 300 in both
        assert!(req.volumes[0].derivation[0].contains("2 windows of 1 h"));
        assert_eq!(req.volumes[0].sizing.iops, 300.0);
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

    #[test]
    fn nearest_rank() {
        let mut values = vec![400.0, 100.0, 300.0, 200.0];
        assert_eq!(percentile(&mut values, 50.0), Some(200.0));
        assert_eq!(percentile(&mut values, 90.0), Some(400.0));
        assert_eq!(percentile(&mut values, 25.0), Some(100.0));
        assert_eq!(percentile(&mut [], 50.0), None);
    }

    #[test]
    fn random_estimate() {
        // 8 KiB, no merges: random.
        assert_eq!(sequential_share(8192.0, 0.0, 100.0), 0.0);
        // 256 KiB: sequential by size.
        assert_eq!(sequential_share(262144.0, 0.0, 100.0), 1.0);
        // 64 KiB: half way in log scale.
        assert_eq!(sequential_share(65536.0, f64::NAN, 100.0), 0.5);
        // 8 KiB with one merge per three completed: 2 x 1/4 = 0.5.
        assert_eq!(sequential_share(8192.0, 100.0, 300.0), 0.5);
    }
}
