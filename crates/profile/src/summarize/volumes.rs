//! One volume's figures from a capture: its points (one per interval), idle intervals filled
//! in, the percentiles of IOPS, throughput, IO sizes, latency and queue depth observed, and
//! the peaks of its busiest windows.

use super::stats::{
    fmt_duration, fmt_num, percentile, percentiles, percentiles_and, refill, round_up,
    sequential_share, tidy,
};
use super::{Point, SizingOptions, VolumeSpec};

use crate::capture::{Capture, Tool};
use crate::error::ProfileError;
use iofit_model::requirements::ObservedMetrics;

/// The vectors one volume's summary fills, kept for the next volume summarised on the same
/// core: on a 100 MB capture a volume's come to ~7 MB, ~1,700 page faults when new.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) points: Vec<Point>,
    /// The series being summarised (iops, throughput, read %, ...), one after the other.
    pub(super) column: Vec<f64>,
}

/// What gathering a volume's reports found.
pub(super) struct Gathered {
    /// Reports where a device's missing row was taken as idle (`iostat -z`).
    pub(super) idle_filled: usize,
    /// Whether the capture counts bytes (else bytes are 0 and every byte figure says so).
    pub(super) bytes_known: bool,
    pub(super) missing_is_idle: bool,
}

/// Adds up the volume's devices per report into `points`, keeping only reports where every
/// device has a sample.
pub(super) fn gather(
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
pub(super) struct Totals {
    pub(super) ios: f64,
    pub(super) reads: f64,
    pub(super) bytes: f64,
    pub(super) merges: f64,
    pub(super) merges_known: bool,
    latency_weighted: f64,
    latency_ios: f64,
}

impl Totals {
    pub(super) fn of(points: &[Point]) -> Totals {
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
pub(super) struct AtPercentile {
    iops: f64,
    throughput_mb_s: f64,
    pub(super) latency_ms: Option<f64>,
    pub(super) queue_depth: Option<f64>,
}

/// The observed metrics of a volume and the values at the sizing percentile `p`.
pub(super) fn observe(
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
pub(super) fn size_rates(
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
            let (mut iops_peaks, mut throughput_peaks, windows) = window_peaks(
                capture,
                points,
                window.get(),
                options.interval_s,
                &spec.label,
            )?;
            (
                percentile(&mut iops_peaks, p).unwrap_or(0.0),
                percentile(&mut throughput_peaks, p).unwrap_or(0.0),
                format!(
                    "p{} of the peaks of {} windows of {}",
                    fmt_num(p),
                    windows,
                    fmt_duration(window.get())
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

/// The peak IOPS and MB/s of each window; windows never span two files.
pub(super) fn window_peaks(
    capture: &Capture,
    points: &[Point],
    window_s: f64,
    interval_s: Option<iofit_model::units::Seconds>,
    label: &str,
) -> Result<(Vec<f64>, Vec<f64>, usize), ProfileError> {
    let interval = interval_s.or(capture.interval_s).map(|s| s.get());
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
