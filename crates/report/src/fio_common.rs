//! What fio's text, JSON and terse outputs compute alike from a job's results: the directions
//! to report (`unified_rw_reporting`), the percentile list, fio's latency ranges and IO depth
//! distributions as percentages (with fio's floors for tiny shares), and a pretty JSON writer
//! that keeps numeric keys (percentiles, bins, depths) in fio's numeric order.

use iofit_model::job::{Reporting, UnifiedRw};
use iofit_model::units::Nanos;
use iofit_stats::{
    fio_bins, Ddir, DirectionResult, IntervalSample, JobResult, LatencySummary, FIO_PERCENTILES,
};
use serde_json::Value;
use std::fmt::Write;

/// How fio's output is produced beyond the results themselves.
#[derive(Clone, Debug, Default)]
pub struct FioOutput {
    /// Per job of the run, in order, its reporting options; a missing entry is fio's default.
    pub reporting: Vec<Reporting>,
    /// `--output-format=json+`: every latency histogram's bins as well.
    pub json_plus: bool,
}

impl FioOutput {
    pub fn job(&self, index: usize) -> Reporting {
        self.reporting.get(index).cloned().unwrap_or_default()
    }
}

/// fio's `--output-format` values iofit writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FioFormat {
    #[default]
    Normal,
    Json,
    /// `json+`: JSON with every latency histogram's bins.
    JsonPlus,
    /// fio's terse (`--minimal`) version 3 line, one per job.
    Terse,
    /// Several formats at once (`--output-format=normal,terse`): bits [`FioFormat::TERSE`],
    /// [`FioFormat::JSON`], [`FioFormat::JSON_PLUS`], [`FioFormat::NORMAL`], written in fio's
    /// order (terse, then JSON, then the text report after its header).
    Combined(u8),
}

impl FioFormat {
    /// fio's name: `normal`, `json`, `json+`, `terse`.
    pub const TERSE: u8 = 1;
    pub const JSON: u8 = 2;
    pub const JSON_PLUS: u8 = 4;
    pub const NORMAL: u8 = 8;

    pub fn parse(name: &str) -> Option<FioFormat> {
        if name.contains(',') {
            let mut bits = 0u8;
            for part in name.split(',') {
                bits |= match FioFormat::parse(part.trim())? {
                    FioFormat::Normal => FioFormat::NORMAL,
                    FioFormat::Json => FioFormat::JSON,
                    FioFormat::JsonPlus => FioFormat::JSON_PLUS,
                    FioFormat::Terse => FioFormat::TERSE,
                    FioFormat::Combined(b) => b,
                };
            }
            return Some(FioFormat::Combined(bits));
        }
        Some(match name {
            "normal" => FioFormat::Normal,
            "json" => FioFormat::Json,
            "json+" => FioFormat::JsonPlus,
            "terse" | "minimal" => FioFormat::Terse,
            _ => return None,
        })
    }

    /// JSON or terse: the output carries only results, for a program to read.
    pub fn machine_readable(self) -> bool {
        match self {
            FioFormat::Normal => false,
            FioFormat::Combined(bits) => bits & FioFormat::NORMAL == 0,
            _ => true,
        }
    }
}

/// The percentiles a job reports: its `percentile_list`, else fio's default list.
pub fn percentile_list(reporting: &Reporting) -> Vec<f64> {
    if reporting.percentile_list.is_empty() {
        FIO_PERCENTILES.to_vec()
    } else {
        reporting.percentile_list.clone()
    }
}

/// `(label, direction)` pairs to report: fio's `read`/`write`, or `mixed` (both summed), or all
/// three with `unified_rw_reporting=both`.
pub fn directions(job: &JobResult, unified: UnifiedRw) -> Vec<(&'static str, DirectionResult)> {
    let apart = || vec![("read", job.read.clone()), ("write", job.write.clone())];
    // fio's mixed direction holds every IO, trims too.
    let mixed = || {
        let both = combine(&job.read, &job.write);
        match job.trim.ios {
            0 => ("mixed", both),
            _ => ("mixed", combine(&both, &job.trim)),
        }
    };
    match unified {
        UnifiedRw::None => apart(),
        UnifiedRw::Mixed => vec![mixed()],
        UnifiedRw::Both => {
            let mut all = apart();
            all.push(mixed());
            all
        }
    }
}

/// Reads and writes as one direction: sums of IOs, bytes and rates; latencies pooled.
pub fn combine(a: &DirectionResult, b: &DirectionResult) -> DirectionResult {
    DirectionResult {
        ios: a.ios + b.ios,
        io_bytes: a.io_bytes + b.io_bytes,
        runtime_ns: a.runtime_ns.max(b.runtime_ns),
        iops: a.iops + b.iops,
        bandwidth_bytes_per_second: a.bandwidth_bytes_per_second + b.bandwidth_bytes_per_second,
        submission_latency: pool(&a.submission_latency, &b.submission_latency),
        completion_latency: pool(&a.completion_latency, &b.completion_latency),
        total_latency: pool(&a.total_latency, &b.total_latency),
        prios: Vec::new(),
    }
}

/// Two latency summaries as one: exact count, extremes, mean and sample deviation (from the
/// moments); bins and ranges added; percentiles recomputed from the bins as fio does.
pub fn pool(a: &LatencySummary, b: &LatencySummary) -> LatencySummary {
    if a.count == 0 {
        return b.clone();
    }
    if b.count == 0 {
        return a.clone();
    }
    let (na, nb) = (a.count as f64, b.count as f64);
    let n = na + nb;
    let mean = (a.mean_ns.get() * na + b.mean_ns.get() * nb) / n;
    // Sums of squares from each sample deviation (n-1) and mean, then the pooled deviation.
    let squares = |s: &LatencySummary, k: f64| {
        s.stdev_ns.get().powi(2) * (k - 1.0) + k * s.mean_ns.get().powi(2)
    };
    let variance = ((squares(a, na) + squares(b, nb) - n * mean * mean) / (n - 1.0)).max(0.0);
    let mut bins = a.fio_bins.clone();
    bins.extend_from_slice(&b.fio_bins);
    bins.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(bins.len());
    for (value, count) in bins {
        match merged.last_mut() {
            Some((last, n)) if *last == value => *n += count,
            _ => merged.push((value, count)),
        }
    }
    let ranges = if a.fio_ranges.len() == b.fio_ranges.len() {
        a.fio_ranges
            .iter()
            .zip(&b.fio_ranges)
            .map(|(x, y)| x + y)
            .collect()
    } else {
        Vec::new()
    };
    let percentiles_ns = a
        .percentiles_ns
        .iter()
        .map(|(p, _)| (*p, fio_bins::percentile_ns(&merged, *p)))
        .collect();
    LatencySummary {
        count: a.count + b.count,
        min_ns: a.min_ns.min(b.min_ns),
        max_ns: a.max_ns.max(b.max_ns),
        mean_ns: Nanos(mean),
        stdev_ns: Nanos(variance.sqrt()),
        percentiles_ns,
        fio_bins: merged,
        fio_ranges: ranges,
    }
}

/// Per-interval (KiB/s, IOPS) of one direction, from whole intervals only: a final interval
/// shorter than half the nominal one would distort min and max, and a run shorter than half a
/// second has no sample at all (fio samples bandwidth every 500 ms).
pub fn interval_rates(series: &[IntervalSample], ddir: Ddir) -> (Vec<f64>, Vec<f64>) {
    let nominal = series
        .iter()
        .map(|s| s.interval_ms.get())
        .max()
        .unwrap_or(0);
    let mut bw = Vec::new();
    let mut iops = Vec::new();
    for sample in series {
        let interval_ms = sample.interval_ms.get();
        let too_short = interval_ms * 2 < nominal
            || (series.len() == 1 && interval_ms < 500)
            || interval_ms == 0;
        if too_short {
            continue;
        }
        let seconds = interval_ms as f64 / 1000.0;
        let (ios, bytes) = sample.of(ddir);
        bw.push(bytes as f64 / 1024.0 / seconds);
        iops.push(ios as f64 / seconds);
    }
    (bw, iops)
}

/// Per-interval (KiB/s, IOPS) of reads and writes together (`mixed`), whole intervals only.
pub fn mixed_rates(series: &[IntervalSample]) -> (Vec<f64>, Vec<f64>) {
    // Every direction's rates come from the same intervals, so the lists line up.
    let mut sum: (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    for ddir in Ddir::ALL {
        let (bw, iops) = interval_rates(series, ddir);
        for (total, rates) in [(&mut sum.0, bw), (&mut sum.1, iops)] {
            total.resize(rates.len(), 0.0);
            total.iter_mut().zip(rates).for_each(|(t, r)| *t += r);
        }
    }
    sum
}

/// fio's percentages of a distribution (`stat_calc_dist`/`stat_calc_lat`): a share of
/// `total`, raised to `floor` when it is not zero but would print as zero.
pub fn shares(counts: &[u64], total: u64, floor: f64) -> Vec<f64> {
    counts
        .iter()
        .map(|&count| {
            if total == 0 {
                return 0.0;
            }
            let pct = count as f64 * 100.0 / total as f64;
            if count > 0 && pct < floor {
                floor
            } else {
                pct
            }
        })
        .collect()
}

/// fio's latency ranges of a job (completion latency of reads and writes), as percentages of
/// its completed IOs: ns (10), µs (10), ms (12).
pub fn latency_range_shares(job: &JobResult) -> Vec<f64> {
    let mut counts = vec![0u64; fio_bins::RANGES];
    for summary in [&job.read.completion_latency, &job.write.completion_latency] {
        for (total, count) in counts.iter_mut().zip(&summary.fio_ranges) {
            *total += count;
        }
    }
    shares(&counts, job.read.ios + job.write.ios, 0.01)
}

/// Key labels of fio's depth (`IO depths`) and batch (`submit`, `complete`) distributions.
pub const DEPTH_LABELS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
pub const BATCH_LABELS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

/// (depth, submit, complete) percentages as fio computes them.
pub fn depth_shares(job: &JobResult) -> [Vec<f64>; 3] {
    let d = &job.fio.io_depths;
    let sum = |a: &[u64; 7]| a.iter().sum::<u64>();
    [
        shares(&d.issued, sum(&d.issued), 0.1),
        shares(&d.submit, sum(&d.submit), 0.1),
        shares(&d.complete, sum(&d.complete), 0.1),
    ]
}

/// Pretty JSON as fio lays it out, with objects whose keys are all numbers (percentiles, bins,
/// depths, `>=64`) in numeric order rather than serde_json's string order.
pub fn to_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

fn numeric_key(key: &str) -> Option<f64> {
    match key.strip_prefix(">=") {
        Some(rest) => rest.parse::<f64>().ok().map(|v| v + 0.5),
        None => key.parse().ok(),
    }
}

fn write_value(out: &mut String, value: &Value, indent: usize) {
    let pad = |n: usize| "  ".repeat(n);
    match value {
        Value::Object(map) if !map.is_empty() => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            let numbers: Option<Vec<f64>> = map.keys().map(|k| numeric_key(k)).collect();
            if let Some(numbers) = numbers {
                let mut keyed: Vec<(f64, (&String, &Value))> =
                    numbers.into_iter().zip(entries).collect();
                keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
                entries = keyed.into_iter().map(|(_, e)| e).collect();
            }
            out.push_str("{\n");
            for (i, (key, item)) in entries.iter().enumerate() {
                let _ = write!(
                    out,
                    "{}{} : ",
                    pad(indent + 1),
                    Value::String((*key).clone())
                );
                write_value(out, item, indent + 1);
                out.push_str(if i + 1 < entries.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{}}}", pad(indent));
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                write_value(out, item, indent + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{}]", pad(indent));
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_stats::LatencyHistogram;

    #[test]
    fn numeric_keys_in_numeric_order() {
        let value = serde_json::json!({"percentile": {"5.000000": 1, "10.000000": 2, "1.000000": 3,
            "99.990000": 4}, "depth": {">=64": 0, "2": 1, "16": 2}, "b": [1, 2], "a": {}});
        let text = to_pretty(&value);
        let order = |keys: &[&str]| {
            let at: Vec<usize> = keys.iter().map(|k| text.find(k).unwrap()).collect();
            at.windows(2).all(|w| w[0] < w[1])
        };
        assert!(order(&[
            "\"1.000000\"",
            "\"5.000000\"",
            "\"10.000000\"",
            "\"99.990000\""
        ]));
        assert!(order(&["\"2\"", "\"16\"", "\">=64\""]));
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn pooling_equals_recording_together() {
        let (mut a, mut b, mut all) = (
            LatencyHistogram::new(),
            LatencyHistogram::new(),
            LatencyHistogram::new(),
        );
        for v in 1..=3000u64 {
            let value = v * 37 % 5000 + 100;
            if v % 3 == 0 {
                a.record(value)
            } else {
                b.record(value)
            }
            all.record(value);
        }
        let pooled = pool(&a.summary(), &b.summary());
        let whole = all.summary();
        assert_eq!(pooled.count, whole.count);
        assert_eq!((pooled.min_ns, pooled.max_ns), (whole.min_ns, whole.max_ns));
        assert!((pooled.mean_ns - whole.mean_ns).get().abs() < 1e-6);
        assert!((pooled.stdev_ns - whole.stdev_ns).get().abs() < 1e-3);
        assert_eq!(pooled.fio_bins, whole.fio_bins);
        assert_eq!(pooled.fio_ranges, whole.fio_ranges);
    }

    #[test]
    fn shares_floor_like_fio() {
        let got = shares(&[1, 99_999], 100_000, 0.01);
        assert_eq!(got[0], 0.01);
        assert!((got[1] - 99.999).abs() < 1e-9);
        assert_eq!(shares(&[0, 0], 0, 0.1), vec![0.0, 0.0]);
    }
}
