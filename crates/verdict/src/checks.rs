//! One metric's check: required against measured by the metric's rule, pass/fail with margin.

use crate::limits::LimitBar;
use iofit_model::design::HostCaching;
use iofit_model::units::group_thousands;
use serde::{Deserialize, Serialize};

/// What the design under test is, as far as the advice needs it. Everything optional: compare
/// advises on what it knows and says nothing about what it does not.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CompareContext {
    /// Member disks of the volume (a stripe when > 1).
    pub disks: Option<u32>,
    /// Host caching of the volume's disks.
    pub caching: Option<HostCaching>,
    /// The design's limits from a prediction (VM, disks, cache), the binding one marked.
    pub limits: Vec<LimitBar>,
    /// Highest acceptable 99th percentile latency, ms (requirements carry only the average).
    pub latency_ms_p99: Option<f64>,
    /// The design in words ("Standard_DS13, 4 x P30, caching None; binding: ..."), for the
    /// heading.
    pub design: Option<String>,
}

/// A metric compare checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Iops,
    ThroughputMbS,
    LatencyMsAvg,
    LatencyMsP99,
    ReadPct,
    IoSizeBytes,
    QueueDepth,
}

impl Metric {
    pub fn label(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ThroughputMbS => "throughput",
            Metric::LatencyMsAvg => "latency avg",
            Metric::LatencyMsP99 => "latency p99",
            Metric::ReadPct => "read share",
            Metric::IoSizeBytes => "IO size",
            Metric::QueueDepth => "queue depth",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::ThroughputMbS => "MB/s",
            Metric::LatencyMsAvg | Metric::LatencyMsP99 => "ms",
            Metric::ReadPct => "%",
            Metric::IoSizeBytes => "KiB",
            Metric::QueueDepth => "IOs",
        }
    }

    /// A value of this metric as printed (IO size is stored in bytes and printed in KiB).
    pub fn format(self, value: f64) -> String {
        match self {
            Metric::Iops | Metric::ThroughputMbS => group_thousands(value),
            Metric::LatencyMsAvg | Metric::LatencyMsP99 => format!("{value:.3}"),
            Metric::ReadPct => format!("{value:.1}"),
            Metric::IoSizeBytes => group_thousands(value / 1024.0),
            Metric::QueueDepth => group_thousands(value),
        }
    }
}

/// How the measured value must relate to the required one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Rule {
    /// measured >= required (rates).
    AtLeast,
    /// measured <= required (latency).
    AtMost,
    /// |measured - required| <= tolerance, in percent of required.
    WithinPct { tolerance: f64 },
    /// |measured - required| <= tolerance, in percentage points (shares).
    WithinPoints { tolerance: f64 },
}

impl Rule {
    /// The requirement as a reader should see it: ">= 16,000", "<= 5.000", "8 ±10%".
    pub fn describe(self, metric: Metric, required: f64) -> String {
        let value = metric.format(required);
        match self {
            Rule::AtLeast => format!(">= {value}"),
            Rule::AtMost => format!("<= {value}"),
            Rule::WithinPct { tolerance } => format!("{value} ±{tolerance}%"),
            Rule::WithinPoints { tolerance } => format!("{value} ±{tolerance}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    /// No requirement, or nothing measured: shown, not judged.
    NotChecked,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "FAIL",
            Verdict::NotChecked => "-",
        }
    }
}

/// One row: required vs measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub metric: Metric,
    pub unit: String,
    pub required: Option<f64>,
    pub measured: Option<f64>,
    pub rule: Rule,
    pub verdict: Verdict,
    /// AtLeast/AtMost: headroom in percent of the requirement, negative when short.
    /// WithinPct: deviation in percent; WithinPoints: deviation in percentage points.
    pub margin: Option<f64>,
    /// Where the number came from when that is not obvious.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Check {
    pub(crate) fn judge(
        metric: Metric,
        required: Option<f64>,
        measured: Option<f64>,
        rule: Rule,
        note: Option<String>,
    ) -> Check {
        let (verdict, margin) = match (required, measured) {
            (Some(required), Some(measured)) => judge(rule, required, measured),
            _ => (Verdict::NotChecked, None),
        };
        Check {
            metric,
            unit: metric.unit().to_string(),
            required,
            measured,
            rule,
            verdict,
            margin,
            note,
        }
    }

    /// "+7.7%", "-2.0 pts", or "" when there is no margin.
    pub fn margin_text(&self) -> String {
        match (self.margin, self.rule) {
            (None, _) => String::new(),
            (Some(margin), Rule::WithinPoints { .. }) => format!("{margin:+.1} pts"),
            (Some(margin), _) => format!("{margin:+.1}%"),
        }
    }

    pub fn required_text(&self) -> String {
        self.required
            .map(|required| self.rule.describe(self.metric, required))
            .unwrap_or_else(|| "-".to_string())
    }

    pub fn measured_text(&self) -> String {
        self.measured
            .map(|measured| self.metric.format(measured))
            .unwrap_or_else(|| "-".to_string())
    }
}

fn judge(rule: Rule, required: f64, measured: f64) -> (Verdict, Option<f64>) {
    let relative = |difference: f64| (required > 0.0).then(|| difference / required * 100.0);
    match rule {
        Rule::AtLeast => {
            let verdict = if measured >= required {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, relative(measured - required))
        }
        Rule::AtMost => {
            let verdict = if measured <= required {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, relative(required - measured))
        }
        Rule::WithinPct { tolerance } => {
            let deviation = relative(measured - required).unwrap_or(0.0);
            let verdict = if deviation.abs() <= tolerance + 1e-9 {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, Some(deviation))
        }
        Rule::WithinPoints { tolerance } => {
            let deviation = measured - required;
            let verdict = if deviation.abs() <= tolerance + 1e-9 {
                Verdict::Pass
            } else {
                Verdict::Fail
            };
            (verdict, Some(deviation))
        }
    }
}
