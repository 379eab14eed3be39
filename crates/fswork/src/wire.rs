//! A file system run's results as they travel from a host to the controller (`iofit worker`
//! over ssh): every operation's count, bytes, errors and latency histogram (compact HDR), the
//! interval lines, and the files present, so the controller prints each host's summary as the
//! host would and combines the hosts exactly (merged histograms, intervals summed by number).

use crate::interval::{Interval, IntervalCounts};
use crate::stats::{OpCounter, OpStats};
use crate::{FsOutcome, PhaseResult};
use iofit_model::units::{Bytes, Seconds, UnixMillis};
use iofit_stats::compact::{CompactError, CompactHistogram};
use serde::{Deserialize, Serialize};

/// One operation's totals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireOp {
    pub count: u64,
    pub bytes: Bytes,
    pub errors: u64,
    pub latency: CompactHistogram,
}

/// [`OpStats`] on the wire (operations in [`iofit_jobfile::vdbench::FileOp::ALL`] order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireStats {
    pub ops: Vec<WireOp>,
    pub no_candidate: u64,
}

impl WireStats {
    pub fn encode(stats: &OpStats) -> WireStats {
        WireStats {
            ops: stats
                .ops
                .iter()
                .zip(stats.errors.iter())
                .map(|(op, errors)| WireOp {
                    count: op.count,
                    bytes: op.bytes,
                    errors: *errors,
                    latency: CompactHistogram::encode(&op.latency),
                })
                .collect(),
            no_candidate: stats.no_candidate,
        }
    }

    pub fn decode(&self) -> Result<OpStats, CompactError> {
        let mut stats = OpStats {
            no_candidate: self.no_candidate,
            ..OpStats::default()
        };
        for (i, op) in self.ops.iter().enumerate().take(stats.ops.len()) {
            stats.ops[i] = OpCounter {
                count: op.count,
                bytes: op.bytes,
                latency: op.latency.decode()?,
            };
            stats.errors[i] = op.errors;
        }
        Ok(stats)
    }
}

/// One phase (format or the measured run) on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WirePhase {
    pub stats: WireStats,
    pub seconds: Seconds,
    pub busy_seconds: Seconds,
    pub intervals: Vec<Interval>,
}

impl WirePhase {
    pub fn encode(phase: &PhaseResult) -> WirePhase {
        WirePhase {
            stats: WireStats::encode(&phase.stats),
            seconds: phase.seconds,
            busy_seconds: phase.busy_seconds,
            intervals: phase.intervals.clone(),
        }
    }

    pub fn decode(&self) -> Result<PhaseResult, CompactError> {
        Ok(PhaseResult {
            stats: self.stats.decode()?,
            seconds: self.seconds,
            busy_seconds: self.busy_seconds,
            intervals: self.intervals.clone(),
        })
    }
}

/// A host's whole outcome on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireOutcome {
    pub format: Option<WirePhase>,
    pub run: Option<WirePhase>,
    pub files_per_fsd: Vec<(String, usize, usize)>,
    /// A stop (signal, the controller's `stop`) ended the run before its end.
    #[serde(default)]
    pub interrupted: bool,
}

impl WireOutcome {
    pub fn encode(outcome: &FsOutcome, interrupted: bool) -> WireOutcome {
        WireOutcome {
            format: outcome.format.as_ref().map(WirePhase::encode),
            run: outcome.run.as_ref().map(WirePhase::encode),
            files_per_fsd: outcome.files_per_fsd.clone(),
            interrupted: interrupted || outcome.interrupted,
        }
    }

    pub fn decode(&self) -> Result<FsOutcome, CompactError> {
        Ok(FsOutcome {
            format: self.format.as_ref().map(WirePhase::decode).transpose()?,
            run: self.run.as_ref().map(WirePhase::decode).transpose()?,
            files_per_fsd: self.files_per_fsd.clone(),
            interrupted: self.interrupted,
        })
    }
}

/// The hosts' phases as one: operations merged (histograms too), the longest phase's
/// seconds, and interval `n` of the result the sum of every host's interval `n` (the hosts
/// started at one instant, so their interval `n` covers the same time). Intervals keep the
/// longest length and latest end of the hosts', and the mean of their CPU figures.
pub fn combine(phases: &[&PhaseResult]) -> Option<PhaseResult> {
    let first = phases.first()?;
    let mut stats = OpStats::default();
    let mut intervals: Vec<Interval> = Vec::new();
    let mut cpus: Vec<Vec<crate::interval::CpuPct>> = Vec::new();
    for phase in phases {
        stats.merge(&phase.stats);
        for interval in &phase.intervals {
            let i = interval.index.saturating_sub(1);
            while intervals.len() <= i {
                intervals.push(Interval {
                    index: intervals.len() + 1,
                    end_unix_ms: UnixMillis(0),
                    seconds: Seconds(0.0),
                    warmup: interval.warmup,
                    counts: IntervalCounts::default(),
                    cpu: None,
                });
                cpus.push(Vec::new());
            }
            let sum = &mut intervals[i];
            sum.counts.merge(&interval.counts);
            sum.end_unix_ms = sum.end_unix_ms.max(interval.end_unix_ms);
            sum.seconds = sum.seconds.max(interval.seconds);
            sum.warmup &= interval.warmup;
            cpus[i].extend(interval.cpu);
        }
    }
    for (interval, cpu) in intervals.iter_mut().zip(&cpus) {
        if !cpu.is_empty() {
            let n = cpu.len() as f64;
            interval.cpu = Some(crate::interval::CpuPct {
                total_pct: cpu.iter().map(|c| c.total_pct).sum::<f64>() / n,
                sys_pct: cpu.iter().map(|c| c.sys_pct).sum::<f64>() / n,
            });
        }
    }
    Some(PhaseResult {
        stats,
        seconds: phases
            .iter()
            .map(|p| p.seconds)
            .fold(first.seconds, Seconds::max),
        busy_seconds: phases
            .iter()
            .map(|p| p.busy_seconds)
            .fold(first.busy_seconds, Seconds::max),
        intervals,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_jobfile::vdbench::FileOp;

    fn phase(creates: u64, per_interval: &[u64]) -> PhaseResult {
        let mut stats = OpStats::default();
        for n in 0..creates {
            stats.record(FileOp::Create, 0, 1_000 + n * 1_000);
        }
        let intervals = per_interval
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut counts = IntervalCounts::default();
                counts.count[crate::stats::index(FileOp::Create)] = *n;
                Interval {
                    index: i + 1,
                    end_unix_ms: UnixMillis(1000 * (i as u64 + 1)),
                    seconds: Seconds(1.0),
                    warmup: false,
                    counts,
                    cpu: None,
                }
            })
            .collect();
        PhaseResult {
            stats,
            seconds: Seconds(2.0),
            busy_seconds: Seconds(2.0),
            intervals,
        }
    }

    #[test]
    fn a_phase_survives_the_wire_and_hosts_add_up() {
        let a = phase(30, &[10, 20]);
        let b = phase(7, &[3, 4]);
        let back = WirePhase::encode(&a).decode().unwrap();
        let create = crate::stats::index(FileOp::Create);
        assert_eq!(back.stats.ops[create].count, 30);
        assert_eq!(
            back.stats.ops[create].latency.max_ns(),
            a.stats.ops[create].latency.max_ns()
        );
        let both = combine(&[&back, &b]).unwrap();
        assert_eq!(both.stats.ops[create].count, 37);
        assert_eq!(both.stats.ops[create].latency.count(), 37);
        let per_interval: Vec<u64> = both
            .intervals
            .iter()
            .map(|i| i.counts.count[create])
            .collect();
        assert_eq!(per_interval, vec![13, 24]);
    }

    #[test]
    fn the_wire_keeps_its_number_forms() {
        // Hosts of different versions talk over this JSON: spans stay floats with a decimal
        // point, instants and byte counts stay integers, whatever Rust types hold them.
        let mut a = phase(3, &[2]);
        a.stats.record(FileOp::Write, 4096, 5_000);
        let text = serde_json::to_string(&WirePhase::encode(&a)).unwrap();
        assert!(
            text.contains(r#""seconds":2.0,"busy_seconds":2.0,"#),
            "{text}"
        );
        assert!(
            text.contains(r#""end_unix_ms":1000,"seconds":1.0,"#),
            "{text}"
        );
        let write = crate::stats::index(FileOp::Write);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value["stats"]["ops"][write]["bytes"],
            serde_json::json!(4096)
        );
        assert!(value["stats"]["ops"][write]["bytes"].is_u64());
        let back: WirePhase = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
    }
}
