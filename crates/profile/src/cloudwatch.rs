//! CloudWatch EBS metrics, for users already on AWS: what does the application need, and is
//! it held by the instance's EBS baseline or a volume's burst credits?
//!
//! Input: the output of `aws cloudwatch get-metric-data --metric-data-queries file://q.json
//! --start-time START --end-time END --output json` (`{"MetricDataResults": [{"Id", "Label",
//! "Timestamps": [...], "Values": [...], "StatusCode"}], "Messages": [...]}`), AWS's
//! GetMetricData response. Each result names its metric in its `Label` (CloudWatch's default
//! label is the metric name) or `Id`, and its volume by a `vol-...` token there (`Id`s may not
//! hold `-`: `vol_0abc` works too). Per volume: `VolumeReadOps`, `VolumeWriteOps`,
//! `VolumeReadBytes`, `VolumeWriteBytes` (statistic Sum: a count per period, divided by the
//! period), `VolumeTotalReadTime`/`VolumeTotalWriteTime` (Sum, seconds: latency = time / ops),
//! `VolumeQueueLength` (Average), `VolumeIdleTime` (Sum, seconds idle in the period),
//! `BurstBalance` (gp2/st1 credits, %). Per instance: `EBSIOBalance%` and `EBSByteBalance%`
//! (the instance's EBS burst credits, %).
//!
//! The verdict: an instance whose `EBSIOBalance%`/`EBSByteBalance%` is empty was held to its
//! EBS baseline in that period (AWS: "Instances with a consistently low balance percentage
//! are candidates to size up"); a volume whose `BurstBalance` is empty was held to its
//! baseline IOPS.

use crate::azure::iso8601_s;
use crate::capture::{Capture, DiskSample, Tool};
use crate::error::{excerpt, ProfileError};
use crate::notes::{CaptureNote, EbsBalance};
use serde::Deserialize;

/// A balance at or below this is empty: the resource runs at its baseline.
pub const EMPTY_BALANCE_PCT: f64 = 1.0;

/// The command whose output [`parse_cloudwatch_json`] reads; named in messages.
pub const AWS_COMMAND: &str =
    "`aws cloudwatch get-metric-data --metric-data-queries file://queries.json \
--start-time START --end-time END --output json > metrics.json` with one query per volume and \
metric (VolumeReadOps, VolumeWriteOps, VolumeReadBytes, VolumeWriteBytes: Stat Sum; \
VolumeQueueLength: Average; Label naming the volume, e.g. \"vol-0abc VolumeReadOps\") and the \
instance's EBSIOBalance% and EBSByteBalance% (Average)";

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Response {
    metric_data_results: Vec<MetricResult>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct MetricResult {
    id: String,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    timestamps: Vec<String>,
    #[serde(default)]
    values: Vec<f64>,
    #[serde(default)]
    status_code: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Metric {
    ReadOps,
    WriteOps,
    ReadBytes,
    WriteBytes,
    TotalReadTime,
    TotalWriteTime,
    QueueLength,
    IdleTime,
    BurstBalance,
    InstanceIoBalance,
    InstanceByteBalance,
}

/// Longer names first: `VolumeTotalReadTime` before `VolumeReadOps` cannot clash, but
/// `EBSIOBalance` must not be read as a volume's `BurstBalance`.
const METRICS: &[(&str, Metric)] = &[
    ("volumetotalreadtime", Metric::TotalReadTime),
    ("volumetotalwritetime", Metric::TotalWriteTime),
    ("volumereadops", Metric::ReadOps),
    ("volumewriteops", Metric::WriteOps),
    ("volumereadbytes", Metric::ReadBytes),
    ("volumewritebytes", Metric::WriteBytes),
    ("volumequeuelength", Metric::QueueLength),
    ("volumeidletime", Metric::IdleTime),
    ("ebsiobalance", Metric::InstanceIoBalance),
    ("ebsbytebalance", Metric::InstanceByteBalance),
    ("burstbalance", Metric::BurstBalance),
];

fn metric_of(text: &str) -> Option<Metric> {
    let plain: String = text
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || c.is_whitespace() || *c == '-' || *c == '_')
        .collect();
    METRICS
        .iter()
        .find(|(name, _)| plain.contains(name))
        .map(|(_, metric)| *metric)
}

/// The `vol-...` (or `vol_...`) token of a label or id.
fn volume_of(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .find_map(|word| {
            let rest = word
                .strip_prefix("vol-")
                .or_else(|| word.strip_prefix("vol_"))?;
            let hex: String = rest.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
            (!hex.is_empty()).then(|| format!("vol-{hex}"))
        })
}

struct Series {
    metric: Metric,
    volume: Option<String>,
    points: Vec<(f64, f64)>,
}

/// Reads a GetMetricData response into a capture: one device per EBS volume.
pub fn parse_cloudwatch_json(bytes: &[u8], file: &str) -> Result<Capture, ProfileError> {
    let response: Response = serde_json::from_slice(bytes).map_err(|e| {
        ProfileError::syntax(
            file,
            e.line() as u64,
            None,
            format!("not the GetMetricData JSON response: {e}"),
            format!("give the unedited output of {AWS_COMMAND}"),
        )
    })?;
    let mut series = Vec::new();
    let mut notes = Vec::new();
    for (index, result) in response.metric_data_results.iter().enumerate() {
        let name = result.label.clone().unwrap_or_default() + " " + &result.id;
        let Some(metric) = metric_of(&name) else {
            notes.push(CaptureNote::CloudWatchResultLeftOut {
                file: file.to_string(),
                index,
                name,
            });
            continue;
        };
        if result.timestamps.len() != result.values.len() {
            return Err(ProfileError::content(
                file,
                format!(
                    "MetricDataResults[{index}] ('{}'): {} Timestamps but {} Values",
                    excerpt(&name),
                    result.timestamps.len(),
                    result.values.len()
                ),
                "give the unedited output of `aws cloudwatch get-metric-data`",
            ));
        }
        if let Some(code) = &result.status_code {
            if code != "Complete" {
                notes.push(CaptureNote::CloudWatchIncomplete {
                    file: file.to_string(),
                    name: name.clone(),
                    status_code: code.clone(),
                });
            }
        }
        let volume = volume_of(&name);
        let is_volume_metric = !matches!(
            metric,
            Metric::InstanceIoBalance | Metric::InstanceByteBalance
        );
        if is_volume_metric && volume.is_none() {
            return Err(ProfileError::content(
                file,
                format!(
                    "MetricDataResults[{index}] ('{}') is a volume metric without a volume id",
                    excerpt(&name)
                ),
                "name the volume in the query's Label, e.g. \"Label\": \"vol-0abc123 VolumeReadOps\"",
            ));
        }
        let mut points = Vec::with_capacity(result.values.len());
        for (stamp, &value) in result.timestamps.iter().zip(&result.values) {
            let time_s = iso8601_s(stamp).ok_or_else(|| {
                ProfileError::content(
                    file,
                    format!(
                        "'{}' of '{}' is not an ISO 8601 time",
                        excerpt(stamp),
                        excerpt(&name)
                    ),
                    "give the unedited JSON; times look like 2026-11-20T00:05:00Z",
                )
            })?;
            if !(value.is_finite() && value >= 0.0) {
                return Err(ProfileError::content(
                    file,
                    format!("'{}' at {}: {value} is negative or not a number", excerpt(&name), excerpt(stamp)),
                    "the file is damaged or edited: give the unedited output of `aws cloudwatch get-metric-data`",
                ));
            }
            points.push((time_s, value));
        }
        // GetMetricData lists the newest first unless ScanBy says otherwise.
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        series.push(Series {
            metric,
            volume,
            points,
        });
    }
    let mut capture = build(&series, file)?;
    capture.notes.extend(notes);
    capture.notes.extend(verdict(&series, file));
    Ok(capture)
}

/// The period: the least gap between two points of one series.
fn period_s(series: &[Series]) -> Option<f64> {
    series
        .iter()
        .flat_map(|s| s.points.windows(2).map(|w| w[1].0 - w[0].0))
        .filter(|gap| *gap > 0.0)
        .min_by(f64::total_cmp)
}

fn build(series: &[Series], file: &str) -> Result<Capture, ProfileError> {
    let has_ops = series
        .iter()
        .any(|s| s.metric == Metric::ReadOps && !s.points.is_empty());
    let Some(period) = period_s(series).filter(|_| has_ops) else {
        return Err(ProfileError::content(
            file,
            "no VolumeReadOps series with two or more points (the period is the gap between them)",
            format!("capture the volumes' metrics with {AWS_COMMAND}"),
        ));
    };
    let mut times: Vec<f64> = series
        .iter()
        .filter(|s| s.volume.is_some())
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let start = times[0];
    let report_of = |t: f64| times.binary_search_by(|x| x.total_cmp(&t)).unwrap_or(0);
    let mut capture = Capture::new(file.to_string(), Tool::CloudWatch);
    for &t in &times {
        capture.push_report(t - start);
    }
    capture.interval_s = Some(iofit_model::units::Seconds(period));
    let mut volumes: Vec<String> = series.iter().filter_map(|s| s.volume.clone()).collect();
    volumes.sort();
    volumes.dedup();
    for volume in volumes {
        let mut row: Vec<DiskSample> = (0..times.len() as u32).map(DiskSample::empty).collect();
        let mut read_time = vec![f64::NAN; times.len()];
        let mut write_time = vec![f64::NAN; times.len()];
        for s in series
            .iter()
            .filter(|s| s.volume.as_deref() == Some(&volume))
        {
            for &(t, v) in &s.points {
                let i = report_of(t);
                let sample = &mut row[i];
                match s.metric {
                    Metric::ReadOps => sample.read_iops = iofit_model::Iops(v / period),
                    Metric::WriteOps => sample.write_iops = iofit_model::Iops(v / period),
                    Metric::ReadBytes => {
                        sample.read_bytes_s = iofit_model::BytesPerSecond(v / period)
                    }
                    Metric::WriteBytes => {
                        sample.write_bytes_s = iofit_model::BytesPerSecond(v / period)
                    }
                    Metric::QueueLength => sample.queue_depth = v,
                    Metric::TotalReadTime => read_time[i] = v,
                    Metric::TotalWriteTime => write_time[i] = v,
                    _ => {}
                }
            }
        }
        for (i, sample) in row.iter_mut().enumerate() {
            let ms = |time_s: f64, ops_s: f64| {
                (ops_s > 0.0 && time_s.is_finite()).then(|| time_s * 1000.0 / (ops_s * period))
            };
            if let Some(ms) = ms(read_time[i], sample.read_iops.get()) {
                sample.read_latency_ms = iofit_model::units::Millis(ms);
            }
            if let Some(ms) = ms(write_time[i], sample.write_iops.get()) {
                sample.write_latency_ms = iofit_model::units::Millis(ms);
            }
        }
        capture.push_metric_device(volume, row);
    }
    if capture.devices.is_empty() {
        return Err(ProfileError::content(
            file,
            "no volume has both VolumeReadOps and VolumeWriteOps at the same times",
            format!("capture both with {AWS_COMMAND}"),
        ));
    }
    Ok(capture)
}

/// What the balances say: which burst credits ran out, and for what share of the periods.
fn verdict(series: &[Series], file: &str) -> Vec<CaptureNote> {
    let mut lines = Vec::new();
    let mut any = false;
    for s in series {
        let balance = match s.metric {
            Metric::InstanceIoBalance => EbsBalance::InstanceIo,
            Metric::InstanceByteBalance => EbsBalance::InstanceBytes,
            Metric::BurstBalance => EbsBalance::Volume(s.volume.clone()),
            _ => continue,
        };
        any = true;
        let empty = s.points.iter().filter(|p| p.1 <= EMPTY_BALANCE_PCT).count();
        let lowest = s.points.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        lines.push(if empty > 0 {
            CaptureNote::BalanceEmpty {
                balance,
                empty,
                periods: s.points.len(),
            }
        } else {
            CaptureNote::BalanceKept {
                balance,
                lowest_pct: lowest,
            }
        });
    }
    if !any {
        lines.push(CaptureNote::CloudWatchNoBalances {
            file: file.to_string(),
        });
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written response in GetMetricData's documented shape: one gp3 volume, 5-minute
    /// periods (newest first, as CloudWatch lists them), and an instance whose EBS IO balance
    /// runs out in the last period.
    const SAMPLE: &str = r#"{
      "MetricDataResults": [
        {"Id": "r", "Label": "vol-0abc123 VolumeReadOps", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [900000, 600000, 300000]},
        {"Id": "w", "Label": "vol-0abc123 VolumeWriteOps", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [300000, 300000, 300000]},
        {"Id": "rb", "Label": "vol-0abc123 VolumeReadBytes", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [7372800000, 4915200000, 2457600000]},
        {"Id": "wb", "Label": "vol-0abc123 VolumeWriteBytes", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [2457600000, 2457600000, 2457600000]},
        {"Id": "rt", "Label": "vol-0abc123 VolumeTotalReadTime", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [900, 300, 150]},
        {"Id": "q", "Label": "vol-0abc123 VolumeQueueLength", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [12.0, 4.0, 2.0]},
        {"Id": "io", "Label": "EBSIOBalance%", "StatusCode": "Complete",
         "Timestamps": ["2026-11-20T00:10:00Z", "2026-11-20T00:05:00Z", "2026-11-20T00:00:00Z"],
         "Values": [0.0, 35.0, 100.0]}
      ],
      "Messages": []
    }"#;

    #[test]
    fn reads_volumes_rates_latency_and_the_instance_verdict() {
        let capture = parse_cloudwatch_json(SAMPLE.as_bytes(), "cw.json").unwrap();
        assert_eq!(capture.tool, Tool::CloudWatch);
        assert_eq!(capture.interval_s, Some(iofit_model::units::Seconds(300.0)));
        assert_eq!(capture.reports(), 3);
        assert_eq!(capture.devices.len(), 1);
        let volume = &capture.devices[0];
        assert_eq!(volume.name, "vol-0abc123");
        // Sums per 300 s period: 300,000 reads -> 1,000/s; 2,457,600,000 B -> 8,192,000 B/s.
        let first = volume.samples[0];
        assert_eq!(
            (first.read_iops.get(), first.write_iops.get()),
            (1000.0, 1000.0)
        );
        assert_eq!(first.read_bytes_s, iofit_model::BytesPerSecond(8_192_000.0));
        // 150 s of read time over 300,000 reads = 0.5 ms each.
        assert!((first.read_latency_ms.get() - 0.5).abs() < 1e-12);
        assert_eq!(volume.samples[2].queue_depth, 12.0);
        let verdict: Vec<&CaptureNote> = capture
            .notes
            .iter()
            .filter(|n| {
                matches!(
                    n,
                    CaptureNote::BalanceEmpty { .. } | CaptureNote::BalanceKept { .. }
                )
            })
            .collect();
        assert_eq!(
            verdict,
            [&CaptureNote::BalanceEmpty {
                balance: EbsBalance::InstanceIo,
                empty: 1,
                periods: 3
            }]
        );
        assert!(
            verdict[0].to_string().contains("EBSIOBalance%")
                && verdict[0].to_string().contains("1 of 3 periods"),
            "{verdict:?}"
        );
    }

    #[test]
    fn detected_by_content_and_sized_as_any_capture() {
        let capture =
            crate::parse_bytes(SAMPLE.as_bytes(), "cw.json", &Default::default()).unwrap();
        assert_eq!(capture.tool, Tool::CloudWatch);
        let requirements = crate::requirements(&capture, &Default::default()).unwrap();
        assert_eq!(requirements.volumes.len(), 1);
        let sizing = &requirements.volumes[0].sizing;
        // 8 KiB reads and writes, IOPS between 2,000 and 4,000 before the comfort factor.
        assert_eq!(sizing.io_size_bytes, iofit_model::Bytes(8192));
        assert!(sizing.iops.get() > 2_000.0, "{}", sizing.iops.get());
    }

    #[test]
    fn a_volume_metric_without_a_volume_says_how_to_name_it() {
        let text = SAMPLE.replace("vol-0abc123 VolumeQueueLength", "VolumeQueueLength");
        let error = parse_cloudwatch_json(text.as_bytes(), "cw.json")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cw.json") && error.contains("Label"),
            "{error}"
        );
        let error = parse_cloudwatch_json(b"{\"MetricDataResults\": 3}", "cw.json")
            .unwrap_err()
            .to_string();
        assert!(error.contains("GetMetricData"), "{error}");
    }
}
