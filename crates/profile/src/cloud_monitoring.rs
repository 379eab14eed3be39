//! Google Cloud Monitoring disk metrics, for users already on Compute Engine: what does the
//! application need, and was a disk held to its Persistent Disk limit?
//!
//! Input: the Monitoring API's `projects.timeSeries.list` response as JSON (`{"timeSeries":
//! [...]}`, as `curl .../v3/projects/PROJECT/timeSeries?filter=...` or the API Explorer gives
//! it) or a bare array of its `TimeSeries`. Each series has `metric.type` (a
//! `compute.googleapis.com/instance/disk/...` metric), `metric.labels.device_name` (the disk as
//! the VM sees it), `resource.labels.instance_id`, and `points`: each with `interval.startTime`
//! / `endTime` and `value.int64Value` (a string, proto3's JSON for 64-bit integers) or
//! `doubleValue`. The disk metrics are DELTA counts: `read_ops_count`, `write_ops_count`,
//! `read_bytes_count`, `write_bytes_count` (divided by their interval give rates), and
//! `throttled_read_ops_count`, `throttled_write_ops_count`, `throttled_read_bytes_count`,
//! `throttled_write_bytes_count` (operations and bytes the disk's limit held back).
//!
//! The verdict: a disk with throttled operations in a period was held to its limit then (the
//! VM's or the disk's), so the sized numbers there are the limit, not the demand.

use crate::azure::iso8601_s;
use crate::capture::{Capture, DiskSample, Tool};
use crate::error::{excerpt, ProfileError};
use crate::notes::CaptureNote;
use serde::Deserialize;
use std::collections::BTreeMap;

/// What [`parse_cloud_monitoring_json`] reads; named in messages.
pub const GCP_QUERY: &str = "the Cloud Monitoring API's timeSeries.list response (JSON) for \
the metrics compute.googleapis.com/instance/disk/read_ops_count, write_ops_count, \
read_bytes_count, write_bytes_count and the throttled_* counts of the VM's disks";

/// The prefix every disk metric iofit reads carries.
pub const METRIC_PREFIX: &str = "compute.googleapis.com/instance/disk/";

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListResponse {
    #[serde(default)]
    time_series: Vec<TimeSeries>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TimeSeries {
    metric: MetricDescriptor,
    #[serde(default)]
    resource: Option<Resource>,
    #[serde(default)]
    points: Vec<Point>,
}

#[derive(Deserialize)]
struct MetricDescriptor {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Resource {
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Point {
    interval: Interval,
    value: TypedValue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Interval {
    #[serde(default)]
    start_time: Option<String>,
    end_time: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TypedValue {
    #[serde(default)]
    int64_value: Option<serde_json::Value>,
    #[serde(default)]
    double_value: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Metric {
    ReadOps,
    WriteOps,
    ReadBytes,
    WriteBytes,
    ThrottledReadOps,
    ThrottledWriteOps,
    ThrottledReadBytes,
    ThrottledWriteBytes,
}

const METRICS: &[(&str, Metric)] = &[
    ("read_ops_count", Metric::ReadOps),
    ("write_ops_count", Metric::WriteOps),
    ("read_bytes_count", Metric::ReadBytes),
    ("write_bytes_count", Metric::WriteBytes),
    ("throttled_read_ops_count", Metric::ThrottledReadOps),
    ("throttled_write_ops_count", Metric::ThrottledWriteOps),
    ("throttled_read_bytes_count", Metric::ThrottledReadBytes),
    ("throttled_write_bytes_count", Metric::ThrottledWriteBytes),
];

struct Series {
    metric: Metric,
    device: String,
    /// (end time s, rate per second, count in the interval)
    points: Vec<(f64, f64, f64)>,
}

fn syntax(file: &str, line: u64, e: impl std::fmt::Display) -> ProfileError {
    ProfileError::syntax(
        file,
        line,
        None,
        format!("not a Cloud Monitoring timeSeries.list JSON response: {e}"),
        format!("give the unedited {GCP_QUERY}"),
    )
}

/// Reads a timeSeries.list response into a capture: one device per disk.
pub fn parse_cloud_monitoring_json(bytes: &[u8], file: &str) -> Result<Capture, ProfileError> {
    let json: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| syntax(file, e.line() as u64, &e))?;
    let list: Vec<TimeSeries> = if json.is_array() {
        serde_json::from_value(json).map_err(|e| syntax(file, 1, e))?
    } else {
        serde_json::from_value::<ListResponse>(json)
            .map_err(|e| syntax(file, 1, e))?
            .time_series
    };
    let instances: std::collections::BTreeSet<&str> = list
        .iter()
        .filter_map(|s| s.resource.as_ref()?.labels.get("instance_id"))
        .map(String::as_str)
        .collect();
    let mut series = Vec::new();
    let mut notes = Vec::new();
    for (index, item) in list.iter().enumerate() {
        let name = item.metric.kind.as_str();
        let metric = name
            .strip_prefix(METRIC_PREFIX)
            .and_then(|short| METRICS.iter().find(|(n, _)| *n == short))
            .map(|(_, m)| *m);
        let Some(metric) = metric else {
            notes.push(CaptureNote::GcpSeriesLeftOut {
                file: file.to_string(),
                index,
                metric: name.to_string(),
            });
            continue;
        };
        let Some(device) = item.metric.labels.get("device_name") else {
            return Err(ProfileError::content(
                file,
                format!("timeSeries[{index}] ('{}') has no metric.labels.device_name", excerpt(name)),
                "give the unedited response: each disk series names its disk in metric.labels.device_name",
            ));
        };
        // Two VMs' disks may share a device name: then the instance tells them apart.
        let device = match item
            .resource
            .as_ref()
            .and_then(|r| r.labels.get("instance_id"))
        {
            Some(instance) if instances.len() > 1 => format!("{instance}:{device}"),
            _ => device.clone(),
        };
        let points = points_of(item, index, file)?;
        series.push(Series {
            metric,
            device,
            points,
        });
    }
    let mut capture = build(&series, file)?;
    capture.notes.extend(notes);
    capture.notes.extend(verdict(&series, file));
    Ok(capture)
}

/// A series' points as (end time, rate per second, count), oldest first (the API lists the
/// newest first). A DELTA point's rate is its count over its interval.
fn points_of(
    item: &TimeSeries,
    index: usize,
    file: &str,
) -> Result<Vec<(f64, f64, f64)>, ProfileError> {
    let name = excerpt(&item.metric.kind);
    let time = |text: &str| {
        iso8601_s(text).ok_or_else(|| {
            ProfileError::content(
                file,
                format!(
                    "timeSeries[{index}] ('{name}'): '{}' is not an RFC 3339 time",
                    excerpt(text)
                ),
                "give the unedited JSON; times look like 2026-11-20T00:01:00Z",
            )
        })
    };
    let mut points = Vec::with_capacity(item.points.len());
    for point in &item.points {
        let end = time(&point.interval.end_time)?;
        let count = match (&point.value.int64_value, point.value.double_value) {
            (Some(serde_json::Value::String(text)), _) => text.trim().parse::<f64>().ok(),
            (Some(serde_json::Value::Number(n)), _) => n.as_f64(),
            (None, Some(x)) => Some(x),
            _ => None,
        }
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| {
            ProfileError::content(
                file,
                format!(
                    "timeSeries[{index}] ('{name}') at {}: the value is not a count >= 0",
                    excerpt(&point.interval.end_time)
                ),
                "give the unedited JSON; a count is value.int64Value (\"60000\")",
            )
        })?;
        let seconds = match &point.interval.start_time {
            Some(start) => end - time(start)?,
            None => 0.0,
        };
        points.push((
            end,
            if seconds > 0.0 {
                count / seconds
            } else {
                f64::NAN
            },
            count,
        ));
    }
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    // A point without an interval (a GAUGE written as one) spans the gap to the one before.
    let gaps: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
    for (i, point) in points.iter_mut().enumerate() {
        if point.1.is_nan() {
            let gap = gaps.get(i.saturating_sub(1)).copied().unwrap_or(0.0);
            if gap > 0.0 {
                point.1 = point.2 / gap;
            }
        }
    }
    Ok(points)
}

fn build(series: &[Series], file: &str) -> Result<Capture, ProfileError> {
    let mut times: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let period = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|gap| *gap > 0.0)
        .min_by(f64::total_cmp);
    let has_ops = series.iter().any(|s| s.metric == Metric::ReadOps);
    let (Some(period), true) = (period, has_ops) else {
        return Err(ProfileError::content(
            file,
            "no read_ops_count series with two or more points",
            format!("capture {GCP_QUERY}"),
        ));
    };
    let start = times[0];
    let report_of = |t: f64| times.binary_search_by(|x| x.total_cmp(&t)).unwrap_or(0);
    let mut capture = Capture::new(file.to_string(), Tool::CloudMonitoring);
    for &t in &times {
        capture.push_report(t - start);
    }
    capture.interval_s = Some(iofit_model::units::Seconds(period));
    let mut devices: Vec<&str> = series.iter().map(|s| s.device.as_str()).collect();
    devices.sort();
    devices.dedup();
    for device in devices {
        let mut row: Vec<DiskSample> = (0..times.len() as u32).map(DiskSample::empty).collect();
        for s in series.iter().filter(|s| s.device == device) {
            for &(t, rate, _) in &s.points {
                let sample = &mut row[report_of(t)];
                match s.metric {
                    Metric::ReadOps => sample.read_iops = iofit_model::Iops(rate),
                    Metric::WriteOps => sample.write_iops = iofit_model::Iops(rate),
                    Metric::ReadBytes => sample.read_bytes_s = iofit_model::BytesPerSecond(rate),
                    Metric::WriteBytes => sample.write_bytes_s = iofit_model::BytesPerSecond(rate),
                    _ => {}
                }
            }
        }
        capture.push_metric_device(device.to_string(), row);
    }
    if capture.devices.is_empty() {
        return Err(ProfileError::content(
            file,
            "no disk has both read_ops_count and write_ops_count at the same times",
            format!("capture both: {GCP_QUERY}"),
        ));
    }
    Ok(capture)
}

/// What the throttled counts say, per disk: in how many periods its limit held IO back, and
/// how much of it.
fn verdict(series: &[Series], file: &str) -> Vec<CaptureNote> {
    let throttled = |m: Metric| {
        matches!(
            m,
            Metric::ThrottledReadOps
                | Metric::ThrottledWriteOps
                | Metric::ThrottledReadBytes
                | Metric::ThrottledWriteBytes
        )
    };
    let mut devices: Vec<&str> = series
        .iter()
        .filter(|s| throttled(s.metric))
        .map(|s| s.device.as_str())
        .collect();
    devices.sort();
    devices.dedup();
    if devices.is_empty() {
        return vec![CaptureNote::GcpNoThrottledMetrics {
            file: file.to_string(),
        }];
    }
    let mut lines = Vec::new();
    for device in devices {
        let mine = |m: Metric| {
            series
                .iter()
                .filter(move |s| s.device == device && s.metric == m)
        };
        let total = |m: Metric| {
            mine(m)
                .flat_map(|s| s.points.iter().map(|p| p.2))
                .sum::<f64>()
        };
        let mut held: Vec<f64> = mine(Metric::ThrottledReadOps)
            .chain(mine(Metric::ThrottledWriteOps))
            .chain(mine(Metric::ThrottledReadBytes))
            .chain(mine(Metric::ThrottledWriteBytes))
            .flat_map(|s| s.points.iter().filter(|p| p.2 > 0.0).map(|p| p.0))
            .collect();
        held.sort_by(f64::total_cmp);
        held.dedup();
        let periods = mine(Metric::ReadOps)
            .map(|s| s.points.len())
            .max()
            .unwrap_or(0)
            .max(held.len());
        let share = |throttled: f64, done: f64| {
            if done > 0.0 {
                100.0 * throttled / done
            } else {
                0.0
            }
        };
        let ops = total(Metric::ThrottledReadOps) + total(Metric::ThrottledWriteOps);
        let done = total(Metric::ReadOps) + total(Metric::WriteOps);
        lines.push(if held.is_empty() {
            CaptureNote::GcpNeverThrottled {
                device: device.to_string(),
            }
        } else {
            CaptureNote::GcpThrottled {
                device: device.to_string(),
                held: held.len(),
                periods,
                throttled_per_100: share(ops, done),
            }
        });
    }
    lines
}

#[cfg(test)]
#[path = "cloud_monitoring_tests.rs"]
mod tests;
