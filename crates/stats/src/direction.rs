//! Per-direction counters of one clone: IOs, bytes and the three latency histograms.

use crate::histogram::LatencyHistogram;
use crate::result::{DirectionResult, PrioLatency};
use iofit_model::units::{Bytes, Iops, Nanos};

/// What one direction of one clone (or a merged group) did.
#[derive(Clone, Debug, Default)]
pub struct DirectionStats {
    pub ios: u64,
    pub io_bytes: Bytes,
    /// Submission latency: from the moment the IO was issued to the return of the submit call.
    pub submission: LatencyHistogram,
    /// Completion latency: from submission to completion.
    pub completion: LatencyHistogram,
    /// Total latency: from issue to completion.
    pub total: LatencyHistogram,
    /// Per IO priority, for jobs with per-IO priorities (fio `cmdprio*`); empty otherwise.
    pub prios: Vec<PrioStats>,
}

/// The latencies of one IO priority's IOs (fio's `clat_prio` statistics).
#[derive(Clone, Debug, Default)]
pub struct PrioStats {
    /// The ioprio value: class << 13 | level.
    pub ioprio: u16,
    pub completion: LatencyHistogram,
    pub total: LatencyHistogram,
}

impl PrioStats {
    fn of(prios: &mut Vec<PrioStats>, ioprio: u16) -> &mut PrioStats {
        let at = match prios.iter().position(|p| p.ioprio == ioprio) {
            Some(at) => at,
            None => {
                prios.push(PrioStats {
                    ioprio,
                    ..PrioStats::default()
                });
                prios.len() - 1
            }
        };
        &mut prios[at]
    }
}

impl DirectionStats {
    /// Adds `other`'s IOs and samples.
    pub fn merge(&mut self, other: &DirectionStats) {
        self.ios += other.ios;
        self.io_bytes += other.io_bytes;
        self.submission.merge(&other.submission);
        self.completion.merge(&other.completion);
        self.total.merge(&other.total);
        for theirs in &other.prios {
            let mine = PrioStats::of(&mut self.prios, theirs.ioprio);
            mine.completion.merge(&theirs.completion);
            mine.total.merge(&theirs.total);
        }
    }

    /// Adds one IO's completion and total latency to its priority's histograms.
    pub fn record_prio(&mut self, ioprio: u16, completion_ns: u64, total_ns: u64) {
        let prio = PrioStats::of(&mut self.prios, ioprio);
        prio.completion.record(completion_ns);
        prio.total.record(total_ns);
    }

    pub fn reset(&mut self) {
        self.ios = 0;
        self.io_bytes = Bytes::ZERO;
        self.submission.reset();
        self.completion.reset();
        self.total.reset();
        self.prios.clear();
    }

    /// The result over a measured window of `runtime_ns`. A direction without IO reports a
    /// runtime of 0, as fio does.
    pub fn to_result(&self, runtime_ns: u64) -> DirectionResult {
        // The engine's own invariant: every completion is in the completion and total
        // histograms, unless the job turned that measurement off (fio `disable_clat`,
        // `disable_lat`), which leaves the histogram empty.
        for count in [self.completion.count(), self.total.count()] {
            debug_assert!(
                count == self.ios || count == 0,
                "{count} samples for {} IOs",
                self.ios
            );
        }
        if self.ios == 0 {
            return DirectionResult::default();
        }
        let seconds = runtime_ns as f64 / 1e9;
        let (iops, bandwidth) = if seconds > 0.0 {
            (self.ios as f64 / seconds, self.io_bytes.as_f64() / seconds)
        } else {
            (0.0, 0.0)
        };
        DirectionResult {
            ios: self.ios,
            io_bytes: self.io_bytes,
            runtime_ns: Nanos(runtime_ns),
            iops: Iops(iops),
            bandwidth_bytes_per_second: bandwidth,
            submission_latency: self.submission.summary(),
            completion_latency: self.completion.summary(),
            total_latency: self.total.summary(),
            prios: self.prio_results(),
        }
    }

    /// The per-priority latencies, by ioprio value.
    fn prio_results(&self) -> Vec<PrioLatency> {
        let mut prios: Vec<PrioLatency> = self
            .prios
            .iter()
            .map(|p| PrioLatency {
                ioprio: p.ioprio,
                completion_latency: p.completion.summary(),
                total_latency: p.total.summary(),
            })
            .collect();
        prios.sort_by_key(|p| p.ioprio);
        prios
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_and_bandwidth_follow_from_counts() {
        let mut d = DirectionStats::default();
        for _ in 0..1000 {
            d.ios += 1;
            d.io_bytes += Bytes(4096);
            d.submission.record(100);
            d.completion.record(900);
            d.total.record(1000);
        }
        let r = d.to_result(2_000_000_000);
        assert_eq!(r.ios, 1000);
        assert_eq!(r.io_bytes, Bytes(1000 * 4096));
        assert!((r.iops.get() - 500.0).abs() < 1e-9);
        assert!((r.bandwidth_bytes_per_second - 2_048_000.0).abs() < 1e-6);
        assert_eq!(r.completion_latency.count, r.ios);
        assert_eq!(r.total_latency.mean_ns, Nanos(1000.0));
    }

    #[test]
    fn empty_direction_has_zero_runtime() {
        let d = DirectionStats::default();
        assert_eq!(d.to_result(5).runtime_ns, Nanos(0));
    }
}
