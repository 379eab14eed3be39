//! Azure Monitor platform metrics of a VM, for users already in Azure: which limit does the
//! deployment hit, and what does the application need?
//!
//! Two inputs:
//! - `az monitor metrics list --resource VM_ID --metric ... --dimension LUN --interval PT1M
//!   --output json`: the Metrics - List REST response (`value[].name.value`,
//!   `value[].timeseries[].metadatavalues[]` with the `LUN` dimension,
//!   `value[].timeseries[].data[].timeStamp/average/maximum`, top-level `interval`), as the
//!   REST API writes it (`"interval": "PT1M"`, `...Z` stamps) or as the CLI reprints it
//!   (`"interval": "0:01:00"`, `+00:00` stamps, `null` for aggregations not asked for).
//! - a metrics explorer CSV download: a time column, then one column per chart line whose
//!   header names the metric (and `LUN = N` when split by LUN). See [`parse_azure_csv`].
//!
//! Disk metrics become devices (`lun0`, `lun1`, ..., `os`) so the usual sizing applies; the
//! consumed-percentage metrics become a [`Verdict`]: for each limit (VM cached / uncached IOPS
//! and bandwidth, each disk's IOPS and bandwidth) the share of intervals it was at the limit.

use crate::capture::{Capture, DiskSample, Tool};
use crate::error::{excerpt, ProfileError};
use crate::notes::CaptureNote;
use crate::num::parse_decimal;
pub use crate::throttling::{AzureLimit, LimitShare, Verdict, THROTTLED_AT_PCT};
use serde::Deserialize;

/// The command whose output [`parse_azure_json`] reads; named in messages.
pub use crate::commands::AZ_COMMAND;

// ---------------------------------------------------------------- the REST response schema

/// The Metrics - List response (api-version 2018-01-01 .. 2023-10-01). Unknown fields
/// (`cost`, `namespace`, `resourceregion`, the CLI's `resourceGroup`) are ignored.
#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    interval: Option<String>,
    value: Vec<Metric>,
}

#[derive(Deserialize)]
struct Metric {
    name: LocalizableString,
    #[serde(default)]
    timeseries: Vec<TimeSeries>,
    #[serde(rename = "errorCode", default)]
    error_code: Option<String>,
}

#[derive(Deserialize)]
struct LocalizableString {
    value: String,
}

#[derive(Deserialize)]
struct TimeSeries {
    #[serde(default)]
    metadatavalues: Vec<MetadataValue>,
    #[serde(default)]
    data: Vec<MetricValue>,
}

#[derive(Deserialize)]
struct MetadataValue {
    name: LocalizableString,
    #[serde(default)]
    value: Option<String>,
}

#[derive(Deserialize)]
struct MetricValue {
    #[serde(rename = "timeStamp")]
    time_stamp: String,
    #[serde(default)]
    average: Option<f64>,
    #[serde(default)]
    maximum: Option<f64>,
}

// ---------------------------------------------------------------- what the metrics mean

#[derive(Clone, Copy, Debug, PartialEq)]
enum Quantity {
    ReadBytes,
    WriteBytes,
    ReadOps,
    WriteOps,
    QueueDepth,
    LatencyMs,
    Consumed(AzureLimit),
    Cpu,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Disk {
    Data,
    Os,
    Vm,
}

/// Metric name (case-insensitive, as `name.value` or the portal's display name) -> meaning.
fn metric_of(name: &str) -> Option<(Disk, Quantity)> {
    let lower = name.trim().to_lowercase();
    let (disk, rest) = if let Some(rest) = lower.strip_prefix("data disk ") {
        (Disk::Data, rest)
    } else if let Some(rest) = lower.strip_prefix("os disk ") {
        (Disk::Os, rest)
    } else {
        let quantity = match lower.as_str() {
            "vm cached iops consumed percentage" => Quantity::Consumed(AzureLimit::VmCachedIops),
            "vm cached bandwidth consumed percentage" => {
                Quantity::Consumed(AzureLimit::VmCachedBandwidth)
            }
            "vm uncached iops consumed percentage" => {
                Quantity::Consumed(AzureLimit::VmUncachedIops)
            }
            "vm uncached bandwidth consumed percentage" => {
                Quantity::Consumed(AzureLimit::VmUncachedBandwidth)
            }
            "percentage cpu" => Quantity::Cpu,
            _ => return None,
        };
        return Some((Disk::Vm, quantity));
    };
    let quantity = match rest {
        "read bytes/sec" => Quantity::ReadBytes,
        "write bytes/sec" => Quantity::WriteBytes,
        "read operations/sec" => Quantity::ReadOps,
        "write operations/sec" => Quantity::WriteOps,
        "queue depth" => Quantity::QueueDepth,
        "latency" | "latency (preview)" => Quantity::LatencyMs,
        "iops consumed percentage" => Quantity::Consumed(AzureLimit::DiskIops),
        "bandwidth consumed percentage" => Quantity::Consumed(AzureLimit::DiskBandwidth),
        _ => return None,
    };
    Some((disk, quantity))
}

/// One series, whatever the input format: a metric, its LUN, and (time, value) points.
struct Series {
    disk: Disk,
    quantity: Quantity,
    lun: Option<String>,
    points: Vec<(f64, f64)>,
}

// ---------------------------------------------------------------- JSON

/// Reads `az monitor metrics list --output json` (or the REST response) of a VM.
pub fn parse_azure_json(bytes: &[u8], file: &str) -> Result<Capture, ProfileError> {
    let response: Response = serde_json::from_slice(bytes).map_err(|e| {
        ProfileError::syntax(
            file,
            e.line() as u64,
            None,
            format!("not the Metrics - List JSON response: {e}"),
            format!("give the unedited output of {AZ_COMMAND}"),
        )
    })?;
    let mut series = Vec::new();
    let mut failed = Vec::new();
    let mut empty = Vec::new();
    let mut gaps = 0usize;
    for metric in &response.value {
        if let Some(code) = metric.error_code.as_deref() {
            if !code.eq_ignore_ascii_case("success") {
                failed.push(format!("{} ({code})", metric.name.value));
            }
        }
        let Some((disk, quantity)) = metric_of(&metric.name.value) else {
            continue;
        };
        for ts in &metric.timeseries {
            let lun = ts
                .metadatavalues
                .iter()
                .find(|m| m.name.value.eq_ignore_ascii_case("lun"))
                .and_then(|m| m.value.clone());
            let mut points = Vec::with_capacity(ts.data.len());
            for point in &ts.data {
                let Some(time_s) = iso8601_s(&point.time_stamp) else {
                    return Err(ProfileError::syntax(
                        file,
                        line_near(bytes, &metric.name.value, &point.time_stamp),
                        Some("timeStamp"),
                        format!(
                            "'{}' of metric '{}' is not an ISO 8601 time",
                            excerpt(&point.time_stamp),
                            metric.name.value
                        ),
                        "give the unedited JSON; times look like 2026-11-20T00:01:00Z",
                    ));
                };
                // Consumed % may come as Maximum only; rates use the interval's Average.
                let value = match quantity {
                    Quantity::Consumed(_) => point.average.or(point.maximum),
                    _ => point.average,
                };
                match value.filter(|v| v.is_finite()) {
                    Some(value) => {
                        check_value(quantity, value, bytes, file, metric, &point.time_stamp)?;
                        points.push((time_s, value));
                    }
                    // The interval still open when the CLI ran, or a gap in the metric.
                    None => gaps += 1,
                }
            }
            series.push(Series {
                disk,
                quantity,
                lun,
                points,
            });
        }
        let has_points = series
            .iter()
            .rev()
            .take(metric.timeseries.len())
            .any(|s| !s.points.is_empty());
        if !has_points {
            empty.push(metric.name.value.clone());
        }
    }
    let interval_s = response.interval.as_deref().and_then(duration_s);
    let mut capture = build(series, file, interval_s)?;
    if !empty.is_empty() {
        capture.notes.push(CaptureNote::AzureNoValues {
            file: file.to_string(),
            metrics: empty,
        });
    }
    if gaps > 0 {
        capture.notes.push(CaptureNote::AzureGaps {
            file: file.to_string(),
            points: gaps,
        });
    }
    if !failed.is_empty() {
        capture.notes.push(CaptureNote::AzureNoData {
            file: file.to_string(),
            metrics: failed,
        });
    }
    Ok(capture)
}

/// The line of `time_stamp` in the metric `name`'s part of the JSON text (0 when not found):
/// the typed response keeps no positions, and an error must name the line.
fn line_near(bytes: &[u8], name: &str, time_stamp: &str) -> u64 {
    let from = memchr::memmem::find(bytes, name.as_bytes()).unwrap_or(0);
    match memchr::memmem::find(&bytes[from..], time_stamp.as_bytes()) {
        Some(at) => 1 + memchr::memchr_iter(b'\n', &bytes[..from + at]).count() as u64,
        None => 0,
    }
}

/// Refuses a value no disk or VM reports: a negative rate, bytes beyond 1 TB/s, IOPS beyond
/// 100 million, a consumed share or CPU beyond 100 % (with Azure's rounding).
fn check_value(
    quantity: Quantity,
    value: f64,
    bytes: &[u8],
    file: &str,
    metric: &Metric,
    time_stamp: &str,
) -> Result<(), ProfileError> {
    let most = match quantity {
        Quantity::ReadBytes | Quantity::WriteBytes => 1e12,
        Quantity::ReadOps | Quantity::WriteOps => 1e8,
        Quantity::QueueDepth => 1e6,
        Quantity::LatencyMs => 86_400_000.0,
        Quantity::Consumed(_) | Quantity::Cpu => 101.0,
    };
    if (0.0..=most).contains(&value) {
        return Ok(());
    }
    Err(ProfileError::syntax(
        file,
        line_near(bytes, &metric.name.value, time_stamp),
        Some(&metric.name.value),
        format!(
            "{value} at {} is {}",
            excerpt(time_stamp),
            if value < 0.0 {
                "negative; no disk reports that"
            } else {
                "beyond any disk or VM"
            }
        ),
        "the file is damaged or edited: give the unedited output of `az monitor metrics list`",
    ))
}

// ---------------------------------------------------------------- CSV

/// Reads a metrics explorer CSV download: rows before the header are skipped; the header is the
/// first row whose cells after the first name known VM metrics (`Data Disk Read Bytes/Sec`, or
/// with the resource and aggregation around it: `vm01 - Data Disk Read Bytes/Sec (Avg), LUN =
/// 0`); the first column holds times (ISO 8601 or `11/20/2026 00:01[:00] [AM|PM]`); empty
/// cells are missing points. Columns of a Maximum aggregation are used only for consumed %.
pub fn parse_azure_csv(text: &str, file: &str) -> Result<Capture, ProfileError> {
    let mut columns: Option<Vec<Option<Column>>> = None;
    let mut series: Vec<Series> = Vec::new();
    let mut slots: Vec<Option<usize>> = Vec::new();
    let mut cells = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line_no = index as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        split_csv_line(line, &mut cells);
        let Some(known) = columns.as_ref() else {
            let parsed: Vec<_> = cells.iter().skip(1).map(|c| column_of(c)).collect();
            if parsed.iter().any(Option::is_some) {
                for column in &parsed {
                    slots.push(column.as_ref().and_then(|(disk, quantity, lun, maximum)| {
                        let wanted = !*maximum || matches!(quantity, Quantity::Consumed(_));
                        wanted.then(|| {
                            series.push(Series {
                                disk: *disk,
                                quantity: *quantity,
                                lun: lun.clone(),
                                points: Vec::new(),
                            });
                            series.len() - 1
                        })
                    }));
                }
                columns = Some(parsed);
            }
            continue;
        };
        let Some(time_s) = csv_time_s(cells[0].trim()) else {
            return Err(ProfileError::syntax(
                file,
                line_no,
                Some("time"),
                format!("'{}' is not a time", excerpt(&cells[0])),
                "give the metrics explorer's CSV download unedited (ISO 8601 or M/D/YYYY times)",
            ));
        };
        if cells.len() > known.len() + 1 {
            return Err(ProfileError::syntax(
                file,
                line_no,
                None,
                format!(
                    "the row has {} cells but the header {}",
                    cells.len(),
                    known.len() + 1
                ),
                "the file looks edited; download the chart's CSV again",
            ));
        }
        for (cell, slot) in cells[1..].iter().zip(&slots) {
            let Some(slot) = slot else { continue };
            let text = cell.trim();
            if text.is_empty() {
                continue;
            }
            let Some(value) = parse_decimal(text.as_bytes()) else {
                return Err(ProfileError::syntax(
                    file,
                    line_no,
                    None,
                    format!("'{}' is not a number", excerpt(text)),
                    "values must be numbers; download the chart's CSV again",
                ));
            };
            series[*slot].points.push((time_s, value));
        }
    }
    if columns.is_none() {
        return Err(ProfileError::content(
            file,
            "no header row naming Azure VM disk metrics (e.g. 'Data Disk Read Bytes/Sec')",
            format!(
                "chart Data Disk Read/Write Bytes/Sec and Operations/Sec split by LUN in metrics \
                 explorer and download the CSV, or use {AZ_COMMAND}"
            ),
        ));
    }
    build(series, file, None)
}

/// A CSV column: disk, quantity, LUN, and whether it holds the Maximum aggregation.
type Column = (Disk, Quantity, Option<String>, bool);

/// A CSV header cell -> its column.
fn column_of(header: &str) -> Option<Column> {
    let lower = header.to_lowercase();
    // The metric name is the longest known name the header contains.
    const NAMES: [&str; 20] = [
        "data disk read bytes/sec",
        "data disk write bytes/sec",
        "data disk read operations/sec",
        "data disk write operations/sec",
        "data disk queue depth",
        "data disk latency",
        "data disk iops consumed percentage",
        "data disk bandwidth consumed percentage",
        "os disk read bytes/sec",
        "os disk write bytes/sec",
        "os disk read operations/sec",
        "os disk write operations/sec",
        "os disk queue depth",
        "os disk iops consumed percentage",
        "os disk bandwidth consumed percentage",
        "vm cached iops consumed percentage",
        "vm cached bandwidth consumed percentage",
        "vm uncached iops consumed percentage",
        "vm uncached bandwidth consumed percentage",
        "percentage cpu",
    ];
    let name = NAMES
        .iter()
        .filter(|n| lower.contains(*n))
        .max_by_key(|n| n.len())?;
    let (disk, quantity) = metric_of(name)?;
    let lun = lower.find("lun").and_then(|at| {
        let digits: String = lower[at + 3..]
            .trim_start_matches([' ', '=', ':', '('])
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        (!digits.is_empty()).then_some(digits)
    });
    let maximum = lower.contains("(max)") || lower.contains("maximum");
    Some((disk, quantity, lun, maximum))
}

fn split_csv_line(line: &str, out: &mut Vec<String>) {
    out.clear();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    out.push(field);
}

fn csv_time_s(text: &str) -> Option<f64> {
    if let Some(t) = iso8601_s(text) {
        return Some(t);
    }
    // M/D/YYYY H:MM[:SS] [AM|PM]
    let (date, clock) = text.split_once(' ')?;
    let mut parts = date.split('/');
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    let year: i64 = parts.next()?.parse().ok()?;
    let time = crate::clock::time_of_day_s(clock).or_else(|| {
        // "00:01" without seconds
        let (h, m) = clock.trim().split_once(':')?;
        Some(h.parse::<f64>().ok()? * 3600.0 + m.get(..2)?.parse::<f64>().ok()? * 60.0)
    })?;
    Some(days_from_civil(year, month, day)? as f64 * 86400.0 + time)
}

// ---------------------------------------------------------------- series -> capture

fn build(
    series: Vec<Series>,
    file: &str,
    interval_s: Option<f64>,
) -> Result<Capture, ProfileError> {
    let mut times: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let has_ops = |disk: Disk| {
        series
            .iter()
            .any(|s| s.disk == disk && s.quantity == Quantity::ReadOps)
    };
    if times.is_empty() || !(has_ops(Disk::Data) || has_ops(Disk::Os)) {
        return Err(ProfileError::content(
            file,
            "no Data Disk or OS Disk Read/Write Operations/Sec with values",
            format!("capture the disk metrics of the VM with {AZ_COMMAND}"),
        ));
    }
    let start = times[0];
    let report_of = |t: f64| times.binary_search_by(|x| x.total_cmp(&t)).unwrap_or(0);
    let mut capture = Capture::new(file.to_string(), Tool::AzureMonitor);
    for &t in &times {
        capture.push_report(t - start);
    }
    capture.interval_s = interval_s
        .or_else(|| (times.len() > 1).then(|| times[1] - times[0]))
        .map(iofit_model::units::Seconds);
    // Per-LUN series when there are any; else the metric summed over all data disks.
    let per_lun = series
        .iter()
        .any(|s| s.disk == Disk::Data && s.lun.is_some());
    let device_name = |s: &Series| -> Option<String> {
        match s.disk {
            Disk::Os => Some("os".to_string()),
            Disk::Data if per_lun => s.lun.as_ref().map(|l| format!("lun{l}")),
            Disk::Data => Some("data disks".to_string()),
            Disk::Vm => None,
        }
    };
    let mut samples: Vec<(String, Vec<DiskSample>)> = Vec::new();
    let mut verdict = Verdict {
        interval_s: capture.interval_s,
        ..Verdict::default()
    };
    for s in &series {
        if let Quantity::Consumed(limit) = s.quantity {
            if s.disk == Disk::Data && per_lun && s.lun.is_none() {
                continue;
            }
            if let Some(share) = limit_share(s, limit) {
                verdict.limits.push(share);
            }
            continue;
        }
        if s.quantity == Quantity::Cpu {
            for &(t, v) in &s.points {
                capture.host[report_of(t)].cpu_pct = v;
            }
            continue;
        }
        let Some(name) = device_name(s) else { continue };
        let index = match samples.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                let empty = (0..times.len() as u32).map(DiskSample::empty).collect();
                samples.push((name, empty));
                samples.len() - 1
            }
        };
        let row = &mut samples[index].1;
        for &(t, v) in &s.points {
            let sample = &mut row[report_of(t)];
            match s.quantity {
                Quantity::ReadBytes => sample.read_bytes_s = iofit_model::BytesPerSecond(v),
                Quantity::WriteBytes => sample.write_bytes_s = iofit_model::BytesPerSecond(v),
                Quantity::ReadOps => sample.read_iops = iofit_model::Iops(v),
                Quantity::WriteOps => sample.write_iops = iofit_model::Iops(v),
                Quantity::QueueDepth => sample.queue_depth = v,
                Quantity::LatencyMs => sample.latency_ms = iofit_model::units::Millis(v),
                Quantity::Consumed(_) | Quantity::Cpu => {}
            }
        }
    }
    samples.sort_by_key(|(name, _)| device_order(name));
    let mut bytes_missing = false;
    for (name, row) in samples {
        let mut kept: Vec<DiskSample> = row
            .into_iter()
            .filter(|s| !(s.read_iops.get().is_nan() || s.write_iops.get().is_nan()))
            .collect();
        if kept
            .iter()
            .all(|s| s.read_bytes_s.0.is_nan() && s.write_bytes_s.0.is_nan())
        {
            bytes_missing = true;
        } else {
            kept.retain(|s| !(s.read_bytes_s.0.is_nan() || s.write_bytes_s.0.is_nan()));
        }
        if !kept.is_empty() {
            capture.devices.push(crate::capture::DeviceSeries {
                name,
                logical: false,
                samples: kept.into(),
            });
        }
    }
    if bytes_missing {
        capture.bytes_missing = true;
        capture.notes.push(CaptureNote::AzureNoBytes {
            file: file.to_string(),
        });
    }
    verdict.limits.sort_by(|a, b| {
        b.throttled_share_pct
            .total_cmp(&a.throttled_share_pct)
            .then(b.average_consumed_pct.total_cmp(&a.average_consumed_pct))
    });
    if verdict.limits.is_empty() {
        capture.notes.push(CaptureNote::AzureNoConsumedPct {
            file: file.to_string(),
        });
    }
    capture.azure = Some(verdict);
    Ok(capture)
}

/// `os` first, then LUNs in number order.
fn device_order(name: &str) -> (u8, u64) {
    match name.strip_prefix("lun").and_then(|n| n.parse().ok()) {
        Some(lun) => (1, lun),
        None if name == "os" => (0, 0),
        None => (2, 0),
    }
}

fn limit_share(s: &Series, limit: AzureLimit) -> Option<LimitShare> {
    if s.points.is_empty() {
        return None;
    }
    let values: Vec<f64> = s.points.iter().map(|p| p.1).collect();
    let throttled = values.iter().filter(|v| **v >= THROTTLED_AT_PCT).count();
    let scope = match (s.disk, &s.lun) {
        (Disk::Vm, _) => "VM".to_string(),
        (Disk::Os, _) => "OS disk".to_string(),
        (Disk::Data, Some(lun)) => format!("LUN {lun}"),
        (Disk::Data, None) => "data disks".to_string(),
    };
    Some(LimitShare {
        limit,
        scope,
        intervals: values.len(),
        throttled_intervals: throttled,
        throttled_share_pct: round2(100.0 * throttled as f64 / values.len() as f64),
        average_consumed_pct: round2(values.iter().sum::<f64>() / values.len() as f64),
        max_consumed_pct: values.iter().copied().fold(0.0, f64::max),
    })
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

// ---------------------------------------------------------------- time

/// `2026-11-20T00:01:00Z`, `...00:01:00.0000000Z`, `...00:01:00+00:00` -> seconds since 1970.
pub fn iso8601_s(text: &str) -> Option<f64> {
    let text = text.trim();
    let b = text.as_bytes();
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<u32>().ok();
    let year = number(0..4)? as i64;
    let (month, day) = (number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    if b[13] != b':' || b[16] != b':' || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    let mut fraction = 0.0;
    if let Some(after) = rest.strip_prefix('.') {
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        fraction = format!("0.{}", &after[..digits]).parse().ok()?;
        rest = &after[digits..];
    }
    let offset_s = match rest {
        "" | "Z" | "z" => 0.0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1.0,
                b'-' => -1.0,
                _ => return None,
            };
            let digits: String = rest[1..].chars().filter(char::is_ascii_digit).collect();
            if digits.len() != 4 {
                return None;
            }
            let h: f64 = digits[..2].parse().ok()?;
            let m: f64 = digits[2..].parse().ok()?;
            sign * (h * 3600.0 + m * 60.0)
        }
    };
    let days = days_from_civil(year, month, day)?;
    Some(days as f64 * 86400.0 + (hour * 3600 + minute * 60 + second) as f64 + fraction - offset_s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> Option<i64> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146097 + doe - 719468)
}

/// ISO 8601 durations (`PT1M`, `PT30S`, `PT1H`, `P1D`) and the CLI's `0:01:00` / `1 day,
/// 0:00:00` -> seconds.
pub fn duration_s(text: &str) -> Option<f64> {
    let text = text.trim();
    if let Some(iso) = text.strip_prefix('P') {
        let (days, time) = iso.split_once('T').unwrap_or((iso, ""));
        let mut total = 0.0;
        if !days.is_empty() {
            total += days.strip_suffix('D')?.parse::<f64>().ok()? * 86400.0;
        }
        let mut number = String::new();
        for c in time.chars() {
            match c {
                'H' => total += number.parse::<f64>().ok()? * 3600.0,
                'M' => total += number.parse::<f64>().ok()? * 60.0,
                'S' => total += number.parse::<f64>().ok()?,
                _ => {
                    number.push(c);
                    continue;
                }
            }
            number.clear();
        }
        return (total > 0.0).then_some(total);
    }
    let (days, clock) = match text.split_once(", ") {
        Some((d, c)) => (d.split_whitespace().next()?.parse::<f64>().ok()?, c),
        None => (0.0, text),
    };
    let mut parts = clock.split(':');
    let h: f64 = parts.next()?.parse().ok()?;
    let m: f64 = parts.next()?.parse().ok()?;
    let s: f64 = parts.next()?.parse().ok()?;
    let total = days * 86400.0 + h * 3600.0 + m * 60.0 + s;
    (total > 0.0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_durations() {
        assert_eq!(iso8601_s("1970-01-02T00:00:00Z"), Some(86400.0));
        assert_eq!(
            iso8601_s("2026-11-20T00:01:00+00:00"),
            iso8601_s("2026-11-20T00:01:00Z")
        );
        assert_eq!(
            iso8601_s("2026-11-20T01:01:00+01:00"),
            iso8601_s("2026-11-20T00:01:00.0000000Z")
        );
        assert_eq!(
            iso8601_s("2026-03-01T00:00:00Z").unwrap() - iso8601_s("2026-02-28T00:00:00Z").unwrap(),
            86400.0
        );
        assert_eq!(iso8601_s("2026-11-20"), None);
        assert_eq!(duration_s("PT1M"), Some(60.0));
        assert_eq!(duration_s("PT1H30M"), Some(5400.0));
        assert_eq!(duration_s("P1D"), Some(86400.0));
        assert_eq!(duration_s("0:01:00"), Some(60.0));
        assert_eq!(duration_s("1 day, 0:00:00"), Some(86400.0));
        assert_eq!(duration_s("soon"), None);
    }

    #[test]
    fn metric_names_are_case_insensitive() {
        assert_eq!(
            metric_of("Data Disk Read Bytes/Sec"),
            Some((Disk::Data, Quantity::ReadBytes))
        );
        assert_eq!(
            metric_of("OS Disk Write Operations/Sec"),
            Some((Disk::Os, Quantity::WriteOps))
        );
        assert_eq!(
            metric_of("VM Uncached IOPS Consumed Percentage"),
            Some((Disk::Vm, Quantity::Consumed(AzureLimit::VmUncachedIops)))
        );
        assert_eq!(metric_of("Network In Total"), None);
        assert_eq!(
            column_of("vm01 - Data Disk IOPS Consumed Percentage (Max), LUN = 1"),
            Some((
                Disk::Data,
                Quantity::Consumed(AzureLimit::DiskIops),
                Some("1".to_string()),
                true
            ))
        );
    }

    #[test]
    fn bad_json_names_line_and_command() {
        let error = parse_azure_json(b"{\n \"value\": [ }", "m.json")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("m.json:2") && error.contains("az monitor metrics list"),
            "{error}"
        );
    }
}
