//! Per-direction counters of one clone: IOs, bytes and the three latency histograms.

use crate::histogram::LatencyHistogram;
use crate::result::DirectionResult;

/// What one direction of one clone (or a merged group) did.
#[derive(Clone, Debug, Default)]
pub struct DirectionStats {
    pub ios: u64,
    pub io_bytes: u64,
    /// Submission latency: from the moment the IO was issued to the return of the submit call.
    pub submission: LatencyHistogram,
    /// Completion latency: from submission to completion.
    pub completion: LatencyHistogram,
    /// Total latency: from issue to completion.
    pub total: LatencyHistogram,
}

impl DirectionStats {
    /// Adds `other`'s IOs and samples.
    pub fn merge(&mut self, other: &DirectionStats) {
        self.ios += other.ios;
        self.io_bytes += other.io_bytes;
        self.submission.merge(&other.submission);
        self.completion.merge(&other.completion);
        self.total.merge(&other.total);
    }

    pub fn reset(&mut self) {
        self.ios = 0;
        self.io_bytes = 0;
        self.submission.reset();
        self.completion.reset();
        self.total.reset();
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
            (self.ios as f64 / seconds, self.io_bytes as f64 / seconds)
        } else {
            (0.0, 0.0)
        };
        DirectionResult {
            ios: self.ios,
            io_bytes: self.io_bytes,
            runtime_ns,
            iops,
            bandwidth_bytes_per_second: bandwidth,
            submission_latency: self.submission.summary(),
            completion_latency: self.completion.summary(),
            total_latency: self.total.summary(),
        }
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
            d.io_bytes += 4096;
            d.submission.record(100);
            d.completion.record(900);
            d.total.record(1000);
        }
        let r = d.to_result(2_000_000_000);
        assert_eq!(r.ios, 1000);
        assert_eq!(r.io_bytes, 1000 * 4096);
        assert!((r.iops - 500.0).abs() < 1e-9);
        assert!((r.bandwidth_bytes_per_second - 2_048_000.0).abs() < 1e-6);
        assert_eq!(r.completion_latency.count, r.ios);
        assert_eq!(r.total_latency.mean_ns, 1000.0);
    }

    #[test]
    fn empty_direction_has_zero_runtime() {
        let d = DirectionStats::default();
        assert_eq!(d.to_result(5).runtime_ns, 0);
    }
}
