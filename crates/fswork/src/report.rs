//! The file system summary of a run: one line per operation that happened (operations, rate,
//! MB/s, mean and maximum response time, as vdbench's fsd summary has, plus HDR percentiles),
//! and a total line.

use crate::stats::{index, OpStats};
use iofit_jobfile::vdbench::FileOp;
use iofit_model::units::{Bytes, MiBps, Millis, Seconds};
use serde::Serialize;

/// One operation's line.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OpLine {
    pub operation: String,
    pub ops: u64,
    pub ops_per_s: f64,
    /// Megabytes of 1,048,576 bytes per second, as vdbench's MB/sec (Report.MB = 1024 * 1024):
    /// MiB/s in iofit's names. The JSON key stays vdbench's `mb_per_s`.
    #[serde(rename = "mb_per_s")]
    pub mib_s: MiBps,
    pub bytes: Bytes,
    pub resp_mean_ms: Millis,
    pub resp_max_ms: Millis,
    pub resp_p50_ms: Millis,
    pub resp_p90_ms: Millis,
    pub resp_p99_ms: Millis,
    pub resp_p999_ms: Millis,
    pub errors: u64,
}

/// Every operation's line and the total of a phase lasting `seconds`.
pub fn op_lines(stats: &OpStats, seconds: Seconds) -> Vec<OpLine> {
    let seconds = seconds.get();
    let ms = |ns: u64| Millis(ns as f64 / 1e6);
    let mut lines: Vec<OpLine> = FileOp::ALL
        .iter()
        .filter(|op| stats.ops[index(**op)].count > 0 || stats.errors[index(**op)] > 0)
        .map(|op| {
            let c = &stats.ops[index(*op)];
            OpLine {
                operation: op.name().to_string(),
                ops: c.count,
                ops_per_s: c.count as f64 / seconds,
                mib_s: MiBps(c.bytes.as_u64() as f64 / 1_048_576.0 / seconds),
                bytes: c.bytes,
                resp_mean_ms: Millis(c.latency.mean_ns() / 1e6),
                resp_max_ms: ms(c.latency.summary().max_ns.get()),
                resp_p50_ms: ms(c.latency.percentile_ns(50.0)),
                resp_p90_ms: ms(c.latency.percentile_ns(90.0)),
                resp_p99_ms: ms(c.latency.percentile_ns(99.0)),
                resp_p999_ms: ms(c.latency.percentile_ns(99.9)),
                errors: stats.errors[index(*op)],
            }
        })
        .collect();
    let mut total = iofit_stats::LatencyHistogram::new();
    for c in &stats.ops {
        total.merge(&c.latency);
    }
    let count = stats.total_ops();
    let bytes: u64 = stats.ops.iter().map(|c| c.bytes.as_u64()).sum();
    lines.push(OpLine {
        operation: "total".into(),
        ops: count,
        ops_per_s: count as f64 / seconds,
        mib_s: MiBps(bytes as f64 / 1_048_576.0 / seconds),
        bytes: Bytes(bytes),
        resp_mean_ms: if count > 0 {
            Millis(total.mean_ns() / 1e6)
        } else {
            Millis(0.0)
        },
        resp_max_ms: ms(total.summary().max_ns.get()),
        resp_p50_ms: if count > 0 {
            ms(total.percentile_ns(50.0))
        } else {
            Millis(0.0)
        },
        resp_p90_ms: if count > 0 {
            ms(total.percentile_ns(90.0))
        } else {
            Millis(0.0)
        },
        resp_p99_ms: if count > 0 {
            ms(total.percentile_ns(99.0))
        } else {
            Millis(0.0)
        },
        resp_p999_ms: if count > 0 {
            ms(total.percentile_ns(99.9))
        } else {
            Millis(0.0)
        },
        errors: stats.total_errors(),
    });
    lines
}

/// The lines as text, vdbench-style columns.
pub fn render(title: &str, lines: &[OpLine]) -> String {
    let mut out = format!("{title}\n");
    out.push_str(&format!(
        "{:<9} {:>10} {:>11} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>7}\n",
        "operation",
        "ops",
        "ops/s",
        "MB/sec",
        "resp_ms",
        "max_ms",
        "p50_ms",
        "p99_ms",
        "p99.9_ms",
        "errors"
    ));
    for l in lines {
        out.push_str(&format!(
            "{:<9} {:>10} {:>11.1} {:>9.2} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>7}\n",
            l.operation,
            l.ops,
            l.ops_per_s,
            l.mib_s.get(),
            l.resp_mean_ms.get(),
            l.resp_max_ms.get(),
            l.resp_p50_ms.get(),
            l.resp_p99_ms.get(),
            l.resp_p999_ms.get(),
            l.errors
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_state_mib_per_second_and_milliseconds_under_vdbench_s_keys() {
        let mut stats = OpStats::default();
        stats.record(FileOp::Write, 1 << 20, 2_000_000);
        stats.record(FileOp::Write, 1 << 20, 4_000_000);
        let lines = op_lines(&stats, Seconds(2.0));
        let write = &lines[0];
        assert_eq!(write.operation, "write");
        assert_eq!(write.bytes, Bytes(2 << 20));
        // 2 MiB over 2 s: vdbench's "MB/sec" counts 1,048,576-byte megabytes.
        assert_eq!(write.mib_s, MiBps(1.0));
        assert!((write.resp_mean_ms.get() - 3.0).abs() < 0.01, "{write:?}");
        assert_eq!(lines.last().unwrap().operation, "total");
        let json = serde_json::to_value(write).unwrap();
        assert_eq!(json["mb_per_s"], serde_json::json!(1.0));
        assert_eq!(json["bytes"], serde_json::json!(2 << 20));
        assert!(json["resp_max_ms"].is_f64() && json.get("mib_s").is_none());
    }
}
