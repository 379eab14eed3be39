//! Latency histograms: HDR histograms in nanoseconds plus exact count, sum, sum of squares,
//! min and max, so that mean and standard deviation are exact (as fio's are) while percentiles
//! come from the histogram (3 significant digits, a relative error below 0.1%).

use crate::result::LatencySummary;
use hdrhistogram::Histogram;
use iofit_model::units::Nanos;
use std::borrow::Cow;

/// fio's default `percentile_list`, the percentiles every summary carries.
pub const FIO_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// The largest latency tracked exactly: one hour. Longer samples are clamped (and counted).
pub const MAX_TRACKED_NS: u64 = 3_600_000_000_000;

/// A latency distribution in nanoseconds. Recording costs a few nanoseconds and allocates only
/// once: the HDR histogram (about 270 KB at 3 digits) is created at the first sample, so a
/// direction a job never uses, or a result before its clones report, costs no memory.
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    histogram: Option<Histogram<u64>>,
    significant_digits: u8,
    count: u64,
    sum_ns: u128,
    /// Sum of squares in f64: exact enough for a standard deviation (53-bit mantissa).
    sum_sq_ns2: f64,
    min_ns: u64,
    max_ns: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram covering 1 ns .. 1 h at 3 significant digits.
    pub fn new() -> LatencyHistogram {
        Self::with_precision(3)
    }

    /// An empty histogram with `significant_digits` (1..=5) of precision. Lower precision uses
    /// less memory (per-interval histograms use 2).
    pub fn with_precision(significant_digits: u8) -> LatencyHistogram {
        LatencyHistogram {
            histogram: None,
            significant_digits: significant_digits.clamp(1, 5),
            count: 0,
            sum_ns: 0,
            sum_sq_ns2: 0.0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    /// Bytes a histogram of `significant_digits` holds once it has a sample.
    pub fn bytes_when_used(significant_digits: u8) -> u64 {
        let counts = hdr(significant_digits.clamp(1, 5)).distinct_values() as u64;
        counts * std::mem::size_of::<u64>() as u64 + std::mem::size_of::<LatencyHistogram>() as u64
    }

    #[inline]
    fn hdr_mut(&mut self) -> &mut Histogram<u64> {
        let digits = self.significant_digits;
        self.histogram.get_or_insert_with(|| hdr(digits))
    }

    /// Records one sample.
    #[inline]
    pub fn record(&mut self, latency_ns: u64) {
        self.hdr_mut().saturating_record(latency_ns.max(1));
        self.count += 1;
        self.sum_ns += latency_ns as u128;
        let value = latency_ns as f64;
        self.sum_sq_ns2 += value * value;
        self.min_ns = self.min_ns.min(latency_ns);
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// Records `n` samples of the same value (IOs reaped together share a completion time).
    #[inline]
    pub fn record_n(&mut self, latency_ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        self.hdr_mut().saturating_record_n(latency_ns.max(1), n);
        self.count += n;
        self.sum_ns += latency_ns as u128 * n as u128;
        let value = latency_ns as f64;
        self.sum_sq_ns2 += value * value * n as f64;
        self.min_ns = self.min_ns.min(latency_ns);
        self.max_ns = self.max_ns.max(latency_ns);
    }

    /// Number of samples recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Adds every sample of `other` (merging clones or jobs of a reporting group).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        // Both histograms have the same bounds, so `add` cannot fail on range; if precision
        // differs, hdrhistogram re-buckets the values.
        if let Some(theirs) = &other.histogram {
            self.hdr_mut()
                .add(theirs)
                .expect("histograms share bounds 1..1h");
        }
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.sum_sq_ns2 += other.sum_sq_ns2;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    /// Forgets every sample (end of ramp time, start of a new interval).
    pub fn reset(&mut self) {
        if let Some(histogram) = &mut self.histogram {
            histogram.reset();
        }
        self.count = 0;
        self.sum_ns = 0;
        self.sum_sq_ns2 = 0.0;
        self.min_ns = u64::MAX;
        self.max_ns = 0;
    }

    /// The longest sample, ns (0 when empty).
    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// Sum of the squares of the samples, ns².
    pub fn sum_sq_ns2(&self) -> f64 {
        self.sum_sq_ns2
    }

    /// Exact mean in nanoseconds (0 when empty).
    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    /// Population standard deviation in nanoseconds, as fio computes it (0 when empty).
    pub fn stdev_ns(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let n = self.count as f64;
        let mean = self.sum_ns as f64 / n;
        let variance = (self.sum_sq_ns2 / n - mean * mean).max(0.0);
        // fio divides by n-1 (sample deviation); keep its convention.
        (variance * n / (n - 1.0)).sqrt()
    }

    /// The value at `percentile` (0..=100), from the histogram: the highest value equivalent
    /// to the bucket that holds it, as fio reports bucket values.
    pub fn percentile_ns(&self, percentile: f64) -> u64 {
        let Some(histogram) = self.histogram.as_ref().filter(|_| self.count > 0) else {
            return 0;
        };
        let value = histogram.value_at_quantile(percentile / 100.0);
        // Never report beyond the exact extremes the histogram's rounding could exceed.
        value.clamp(self.min_ns, self.max_ns)
    }

    /// The HDR histogram (an empty one when nothing was recorded) and the exact moments, for
    /// [`crate::compact`].
    pub(crate) fn parts(&self) -> (Cow<'_, Histogram<u64>>, u128, f64, u64, u64) {
        (
            match &self.histogram {
                Some(histogram) => Cow::Borrowed(histogram),
                None => Cow::Owned(hdr(self.significant_digits)),
            },
            self.sum_ns,
            self.sum_sq_ns2,
            self.min_ns,
            self.max_ns,
        )
    }

    /// Rebuilds a histogram from [`LatencyHistogram::parts`]; the count is the HDR's own.
    pub(crate) fn from_parts(
        histogram: Histogram<u64>,
        sum_ns: u128,
        sum_sq_ns2: f64,
        min_ns: u64,
        max_ns: u64,
    ) -> LatencyHistogram {
        LatencyHistogram {
            count: histogram.len(),
            significant_digits: histogram.sigfig(),
            histogram: Some(histogram),
            sum_ns,
            sum_sq_ns2,
            min_ns,
            max_ns,
        }
    }

    /// Summary with fio's default percentile list.
    pub fn summary(&self) -> LatencySummary {
        self.summary_with(&FIO_PERCENTILES)
    }

    /// Summary with the given percentiles.
    pub fn summary_with(&self, percentiles: &[f64]) -> LatencySummary {
        if self.count == 0 {
            return LatencySummary::default();
        }
        LatencySummary {
            count: self.count,
            min_ns: Nanos(self.min_ns),
            max_ns: Nanos(self.max_ns),
            mean_ns: Nanos(self.mean_ns()),
            stdev_ns: Nanos(self.stdev_ns()),
            percentiles_ns: percentiles
                .iter()
                .map(|&p| (p, self.percentile_ns(p)))
                .collect(),
            fio_bins: self.fio_bins(),
            fio_ranges: self.fio_ranges(),
        }
    }

    /// Sample counts in fio's latency ranges (`latency_ns`, `latency_us`, `latency_ms`; see
    /// [`crate::fio_bins::range_index`]), 32 entries.
    pub fn fio_ranges(&self) -> Vec<u64> {
        let mut ranges = vec![0; crate::fio_bins::RANGES];
        if let Some(histogram) = self.histogram.as_ref() {
            for bucket in histogram.iter_recorded() {
                let value = histogram.median_equivalent(bucket.value_iterated_to());
                ranges[crate::fio_bins::range_index(value)] += bucket.count_at_value();
            }
        }
        ranges
    }

    /// The samples in fio's bucket layout (see [`crate::fio_bins`]): (bucket value, count),
    /// ascending, only buckets with samples.
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        let mut bins = Vec::new();
        let Some(histogram) = self.histogram.as_ref() else {
            return bins;
        };
        for bucket in histogram.iter_recorded() {
            let value = histogram.median_equivalent(bucket.value_iterated_to());
            crate::fio_bins::push(&mut bins, value, bucket.count_at_value());
        }
        bins
    }
}

fn hdr(significant_digits: u8) -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKED_NS, significant_digits)
        .expect("bounds 1..1h with 1..=5 digits are valid for hdrhistogram")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_comes_with_the_first_sample() {
        let mut h = LatencyHistogram::new();
        assert!(h.histogram.is_none(), "an unused histogram holds no counts");
        let empty = LatencyHistogram::new();
        h.merge(&empty);
        assert!(h.histogram.is_none(), "merging nothing allocates nothing");
        h.record(1_000);
        assert!(h.histogram.is_some());
        assert!(LatencyHistogram::bytes_when_used(3) > 100_000);
        assert!(LatencyHistogram::bytes_when_used(2) < LatencyHistogram::bytes_when_used(3));
        let mut merged = LatencyHistogram::new();
        merged.merge(&h);
        assert_eq!(merged.summary().count, 1);
        assert_eq!(merged.percentile_ns(50.0), 1_000);
    }

    #[test]
    fn count_equals_recorded_samples() {
        let mut h = LatencyHistogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 100);
        }
        h.record_n(5_000, 7);
        assert_eq!(h.count(), 10_007);
        assert_eq!(h.summary().count, 10_007);
    }

    #[test]
    fn percentiles_of_uniform_data() {
        let mut h = LatencyHistogram::new();
        // 1..=100_000 ns: the p-th percentile is p*1000 ns, within HDR's 0.1% precision.
        for v in 1..=100_000u64 {
            h.record(v);
        }
        for p in FIO_PERCENTILES {
            let expected = p * 1000.0;
            let got = h.percentile_ns(p) as f64;
            assert!(
                (got - expected).abs() <= expected * 0.001 + 1.0,
                "p{p}: got {got}, expected {expected}"
            );
        }
        let s = h.summary();
        assert_eq!(s.min_ns, Nanos(1));
        assert_eq!(s.max_ns, Nanos(100_000));
        assert!((s.mean_ns.get() - 50_000.5).abs() < 1e-6);
        // Sample standard deviation of 1..=n is sqrt(n(n+1)/12).
        let expected_sd = (100_000.0f64 * 100_001.0 / 12.0).sqrt();
        assert!(
            (s.stdev_ns.get() - expected_sd).abs() < 0.01,
            "{}",
            s.stdev_ns.get()
        );
        assert_eq!(s.percentiles_ns.len(), FIO_PERCENTILES.len());
    }

    #[test]
    fn merge_equals_recording_everything_in_one() {
        let mut a = LatencyHistogram::new();
        let mut b = LatencyHistogram::new();
        let mut all = LatencyHistogram::new();
        let mut x: u64 = 12345;
        for i in 0..50_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = (x >> 40) + 100;
            if i % 3 == 0 {
                a.record(v)
            } else {
                b.record(v)
            }
            all.record(v);
        }
        a.merge(&b);
        let merged = a.summary();
        let whole = all.summary();
        assert_eq!(merged.count, whole.count);
        assert_eq!(merged.min_ns, whole.min_ns);
        assert_eq!(merged.max_ns, whole.max_ns);
        assert_eq!(merged.percentiles_ns, whole.percentiles_ns);
        assert!((merged.mean_ns - whole.mean_ns).get().abs() < 1e-6);
        assert!((merged.stdev_ns - whole.stdev_ns).get().abs() < 1e-3);
    }

    #[test]
    fn fio_bins_and_ranges_hold_every_sample() {
        let mut h = LatencyHistogram::new();
        for v in (1..=20_000u64).map(|i| i * i) {
            h.record(v);
        }
        let s = h.summary();
        assert_eq!(s.fio_bins.iter().map(|(_, n)| n).sum::<u64>(), s.count);
        assert_eq!(s.fio_ranges.iter().sum::<u64>(), s.count);
        // Bins ascend and are fio bucket values.
        assert!(s.fio_bins.windows(2).all(|w| w[0].0 < w[1].0));
        for (value, _) in &s.fio_bins {
            let index = crate::fio_bins::index_of(*value);
            assert_eq!(crate::fio_bins::value_of(index), *value);
        }
        // fio's way from the bins agrees with the HDR's to fio's bucket width (1/64).
        let from_bins = crate::fio_bins::percentile_ns(&s.fio_bins, 99.0) as f64;
        let hdr = h.percentile_ns(99.0) as f64;
        assert!(
            (from_bins - hdr).abs() <= hdr / 64.0,
            "{from_bins} vs {hdr}"
        );
        // 1..=31 ns squared: 1, 4, 9, ..., 961 are below 1 µs; 2 of them below 4 ns.
        assert_eq!(s.fio_ranges[0] + s.fio_ranges[1], 1);
        assert_eq!(s.fio_ranges[..10].iter().sum::<u64>(), 31);
    }

    #[test]
    fn empty_summary_is_zero() {
        let h = LatencyHistogram::new();
        assert_eq!(h.summary(), LatencySummary::default());
        assert_eq!(h.percentile_ns(50.0), 0);
    }

    #[test]
    fn reset_forgets() {
        let mut h = LatencyHistogram::new();
        h.record(10);
        h.reset();
        assert_eq!(h.count(), 0);
        h.record(20);
        assert_eq!(h.summary().min_ns, Nanos(20));
    }
}
