//! The time series: per interval (one second by default) the IOs, bytes and latency of the
//! IOs completed in it. Each clone accumulates its current interval locally and hands closed
//! intervals to a [`SeriesMerger`], which sums clones of one result interval by interval.
//!
//! Memory stays bounded however long or fine the run: an interval's histograms are dropped as
//! soon as every clone has reported it (or it is [`MAX_OPEN_INTERVALS`] behind the newest, for
//! a clone that lags or ended early), and a series finer than a second that grows past
//! [`MAX_POINTS`] is coarsened, adjacent points merged two by two, until it fits or its points
//! span a second. Counts, bytes, means and maxima stay exact when points merge; a merged
//! point's 99th percentile is the larger of the two (an upper bound). fio's interval logs
//! do not read the series: the engine writes them from each clone's intervals as they close.

use crate::histogram::LatencyHistogram;
use crate::result::{DirectionInterval, IntervalSample};
use iofit_model::units::{Bytes, Millis, Nanos};

/// Precision of per-interval histograms (2 significant digits: 1% error, small memory).
const INTERVAL_PRECISION: u8 = 2;

pub use crate::ddir::Ddir;

/// One closed interval of one clone.
#[derive(Clone, Debug)]
pub struct IntervalBucket {
    pub index: u64,
    /// Length actually covered (the last interval of a run is usually shorter).
    pub length_ns: Nanos<u64>,
    /// Per direction ([`Ddir`]: read, write, trim): completed IOs and their bytes.
    pub ios: [u64; 3],
    pub bytes: [u64; 3],
    /// Total latency per direction; the interval's own is their merge.
    pub latency: [LatencyHistogram; 3],
    /// Per direction, sums for the interval's mean completion and submission latency (fio's
    /// clat/slat logs).
    pub clat_sum_ns: [u64; 3],
    pub slat_sum_ns: [u64; 3],
    /// IOs with a submission latency (none for synchronous engines).
    pub slat_ios: [u64; 3],
    /// Per direction, the interval's longest completion and submission latency (fio's
    /// `log_max_value=1` logs; the total's longest is in `latency`).
    pub clat_max_ns: [u64; 3],
    pub slat_max_ns: [u64; 3],
}

impl IntervalBucket {
    /// An interval with nothing in it yet, numbered `index`.
    pub fn empty_at(index: u64) -> IntervalBucket {
        IntervalBucket::empty(index)
    }

    fn empty(index: u64) -> IntervalBucket {
        IntervalBucket {
            index,
            length_ns: Nanos(0),
            ios: [0; 3],
            bytes: [0; 3],
            latency: [(); 3].map(|_| LatencyHistogram::with_precision(INTERVAL_PRECISION)),
            clat_sum_ns: [0; 3],
            slat_sum_ns: [0; 3],
            clat_max_ns: [0; 3],
            slat_max_ns: [0; 3],
            slat_ios: [0; 3],
        }
    }

    fn clear(&mut self, index: u64) {
        self.index = index;
        self.length_ns = Nanos(0);
        self.ios = [0; 3];
        self.bytes = [0; 3];
        for histogram in &mut self.latency {
            histogram.reset();
        }
        self.clat_sum_ns = [0; 3];
        self.slat_sum_ns = [0; 3];
        self.clat_max_ns = [0; 3];
        self.slat_max_ns = [0; 3];
        self.slat_ios = [0; 3];
    }
}

/// A clone's accumulator for the interval in progress.
#[derive(Debug)]
pub struct IntervalAccumulator {
    interval_ns: u64,
    current: IntervalBucket,
    /// Start of the current interval, relative to the measurement start.
    current_start_ns: u64,
}

impl IntervalAccumulator {
    pub fn new(interval_ns: u64) -> IntervalAccumulator {
        IntervalAccumulator {
            interval_ns: interval_ns.max(1),
            current: IntervalBucket::empty(0),
            current_start_ns: 0,
        }
    }

    pub fn interval_ns(&self) -> u64 {
        self.interval_ns
    }

    /// Moves to the interval that holds `elapsed_ns`, handing every interval closed on the way
    /// to `sink` (empty intervals too, so that a stall shows as zeros, not as a gap).
    #[inline]
    pub fn advance(&mut self, elapsed_ns: u64, sink: &mut impl FnMut(&IntervalBucket)) {
        while elapsed_ns >= self.current_start_ns + self.interval_ns {
            self.current.length_ns = Nanos(self.interval_ns);
            sink(&self.current);
            let next = self.current.index + 1;
            self.current.clear(next);
            self.current_start_ns += self.interval_ns;
        }
    }

    /// Counts `n` IOs of one direction completed in the current interval.
    #[inline]
    pub fn record(&mut self, ddir: Ddir, bytes: u64, n: u64, total_latency_ns: u64) {
        let d = ddir.index();
        self.current.ios[d] += n;
        self.current.bytes[d] += bytes;
        self.current.latency[d].record_n(total_latency_ns, n);
    }

    /// Adds one IO's completion and (for queued engines) submission latency to the current
    /// interval, for fio's clat and slat logs.
    #[inline]
    pub fn record_parts(&mut self, ddir: Ddir, clat_ns: u64, slat_ns: Option<u64>) {
        let d = ddir.index();
        self.current.clat_sum_ns[d] += clat_ns;
        self.current.clat_max_ns[d] = self.current.clat_max_ns[d].max(clat_ns);
        if let Some(slat) = slat_ns {
            self.current.slat_sum_ns[d] += slat;
            self.current.slat_max_ns[d] = self.current.slat_max_ns[d].max(slat);
            self.current.slat_ios[d] += 1;
        }
    }

    /// Closes the last, partial interval at `elapsed_ns` (end of the measured window).
    pub fn finish(&mut self, elapsed_ns: u64, sink: &mut impl FnMut(&IntervalBucket)) {
        self.advance(elapsed_ns, sink);
        let length = elapsed_ns.saturating_sub(self.current_start_ns);
        let has_io = self.current.ios.iter().sum::<u64>() > 0;
        if length > 0 || has_io {
            self.current.length_ns = Nanos(length);
            sink(&self.current);
        }
        let next = self.current.index + 1;
        self.current.clear(next);
        self.current_start_ns = elapsed_ns;
    }

    /// Forgets everything (end of ramp time): intervals restart at 0.
    pub fn restart(&mut self) {
        self.current.clear(0);
        self.current_start_ns = 0;
    }
}

/// Most intervals a merger keeps open (waiting for every clone) before it closes the oldest
/// with what it has; a clone that reports a closed interval later is added to its point.
pub const MAX_OPEN_INTERVALS: usize = 64;

/// Most points a series finer than a second keeps before adjacent points are merged.
pub const MAX_POINTS: usize = 2048;

const SECOND_NS: u64 = 1_000_000_000;

struct Slot {
    bucket: IntervalBucket,
    reported: u32,
}

/// Sums the intervals of several clones into one series.
pub struct SeriesMerger {
    interval_ns: u64,
    clones: u32,
    /// Intervals not yet reported by every clone, the first being interval `base`.
    open: std::collections::VecDeque<Slot>,
    base: u64,
    /// Final points, ascending; `done_first[i]` is the first interval `done[i]` covers.
    done: Vec<IntervalSample>,
    done_first: Vec<u64>,
    /// Intervals per point (a power of two; 1 until the series is coarsened).
    group: u64,
}

impl SeriesMerger {
    pub fn new(interval_ns: u64, clones: u32) -> SeriesMerger {
        SeriesMerger {
            interval_ns: interval_ns.max(1),
            clones: clones.max(1),
            open: std::collections::VecDeque::new(),
            base: 0,
            done: Vec::new(),
            done_first: Vec::new(),
            group: 1,
        }
    }

    /// Adds one clone's closed interval.
    pub fn add(&mut self, bucket: &IntervalBucket) {
        self.add_shifted(bucket, 0);
    }

    /// Adds one clone's closed interval as interval `bucket.index + shift` (a later loop of
    /// a clone that runs its loops as separate passes, fio `unlink_each_loop`).
    pub fn add_shifted(&mut self, bucket: &IntervalBucket, shift: u64) {
        let index = bucket.index + shift;
        if index < self.base {
            // Closed already (a late clone): its numbers join the point that covers it.
            let late = bucket.to_sample(self.interval_ns, index, false, false);
            self.merge_late(index, late);
            return;
        }
        while self.base + (self.open.len() as u64) <= index {
            let i = self.base + self.open.len() as u64;
            self.open.push_back(Slot {
                bucket: IntervalBucket::empty(i),
                reported: 0,
            });
        }
        let slot = &mut self.open[(index - self.base) as usize];
        slot.bucket.absorb_parallel(bucket);
        slot.reported += 1;
        // Every interval before the newest one that every clone reported is final; so is any
        // interval too far behind the newest.
        while let Some(front) = self.open.front() {
            let complete = front.reported >= self.clones;
            if !complete && self.open.len() <= MAX_OPEN_INTERVALS {
                break;
            }
            let slot = self.open.pop_front().expect("a front slot");
            let first = self.base;
            self.base += 1;
            let sample = slot.bucket.to_sample(self.interval_ns, first, false, false);
            self.push_done(first, sample);
        }
    }

    fn push_done(&mut self, first: u64, sample: IntervalSample) {
        let group_of = |i: u64, group: u64| i / group;
        match (self.done.last_mut(), self.done_first.last()) {
            (Some(last), Some(&last_first))
                if group_of(last_first, self.group) == group_of(first, self.group) =>
            {
                merge_samples(last, &sample);
            }
            _ => {
                self.done.push(sample);
                self.done_first.push(first);
            }
        }
        if self.done.len() > MAX_POINTS && self.interval_ns * self.group < SECOND_NS {
            self.coarsen();
        }
    }

    /// Merges adjacent points two by two: the series keeps half as many points.
    fn coarsen(&mut self) {
        self.group *= 2;
        let done = std::mem::take(&mut self.done);
        let firsts = std::mem::take(&mut self.done_first);
        for (sample, first) in done.into_iter().zip(firsts) {
            match (self.done.last_mut(), self.done_first.last()) {
                (Some(last), Some(&last_first))
                    if last_first / self.group == first / self.group =>
                {
                    merge_samples(last, &sample)
                }
                _ => {
                    self.done.push(sample);
                    self.done_first.push(first);
                }
            }
        }
    }

    fn merge_late(&mut self, index: u64, late: IntervalSample) {
        let at = self.done_first.partition_point(|&first| first <= index);
        match at.checked_sub(1).and_then(|i| self.done.get_mut(i)) {
            Some(point) => {
                // Same window: only the counts and latencies join, not its length again.
                let length = point.interval_ms;
                merge_samples(point, &late);
                point.interval_ms = length.max(late.interval_ms);
            }
            None => {
                self.done.insert(0, late);
                self.done_first.insert(0, index);
            }
        }
    }

    /// The merged series, ascending by time.
    pub fn finish(mut self) -> Vec<IntervalSample> {
        while let Some(slot) = self.open.pop_front() {
            let first = self.base;
            self.base += 1;
            let sample = slot.bucket.to_sample(self.interval_ns, first, false, false);
            self.push_done(first, sample);
        }
        self.done
    }
}

/// Adds `b` (the interval right after `a`, or the same window from another clone, see
/// [`SeriesMerger`]) to `a`: counts and bytes add up, means are weighted by IOs, maxima are the
/// larger, and the 99th percentile is the larger (an upper bound of the merged one).
pub fn merge_samples(a: &mut IntervalSample, b: &IntervalSample) {
    let weighted = |x: Nanos, wx: u64, y: Nanos, wy: u64| {
        if wx + wy == 0 {
            Nanos(0.0)
        } else {
            Nanos((x.get() * wx as f64 + y.get() * wy as f64) / (wx + wy) as f64)
        }
    };
    let (ios_a, ios_b) = (a.ios(), b.ios());
    a.latency_mean_ns = weighted(a.latency_mean_ns, ios_a, b.latency_mean_ns, ios_b);
    a.clat_mean_ns = weighted(a.clat_mean_ns, ios_a, b.clat_mean_ns, ios_b);
    a.slat_mean_ns = weighted(a.slat_mean_ns, ios_a, b.slat_mean_ns, ios_b);
    a.read_latency_mean_ns = weighted(
        a.read_latency_mean_ns,
        a.read_ios,
        b.read_latency_mean_ns,
        b.read_ios,
    );
    a.start_ms = a.start_ms.min(b.start_ms);
    a.interval_ms += b.interval_ms;
    a.read_ios += b.read_ios;
    a.read_bytes += b.read_bytes;
    a.write_ios += b.write_ios;
    a.write_bytes += b.write_bytes;
    a.trim_ios += b.trim_ios;
    a.trim_bytes += b.trim_bytes;
    a.latency_p99_ns = a.latency_p99_ns.max(b.latency_p99_ns);
    a.latency_max_ns = a.latency_max_ns.max(b.latency_max_ns);
    a.latency_sum_sq_ns2 += b.latency_sum_sq_ns2;
    a.latency_bins.extend_from_slice(&b.latency_bins);
    a.latency_bins.sort_unstable();
    a.latency_bins.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same {
            earlier.1 += later.1;
        }
        same
    });
    // Per-direction numbers are for fio's logs, which read each clone's intervals, not this.
    a.by_direction = None;
}

impl IntervalBucket {
    /// Adds `other` to this interval: another clone's report of the same interval
    /// ([`SeriesMerger`]); the interval is as long as the longer of the two.
    pub fn absorb_parallel(&mut self, other: &IntervalBucket) {
        self.length_ns = self.length_ns.max(other.length_ns);
        self.add_counts(other);
    }

    /// Adds `next`, the interval after this one, to it: one window covering both (a log line
    /// for several windows when the log's writer falls behind).
    pub fn absorb_next(&mut self, next: &IntervalBucket) {
        self.length_ns += next.length_ns;
        self.add_counts(next);
    }

    fn add_counts(&mut self, other: &IntervalBucket) {
        for d in 0..3 {
            self.ios[d] += other.ios[d];
            self.bytes[d] += other.bytes[d];
            self.latency[d].merge(&other.latency[d]);
            self.clat_sum_ns[d] += other.clat_sum_ns[d];
            self.slat_sum_ns[d] += other.slat_sum_ns[d];
            self.slat_ios[d] += other.slat_ios[d];
            self.clat_max_ns[d] = self.clat_max_ns[d].max(other.clat_max_ns[d]);
            self.slat_max_ns[d] = self.slat_max_ns[d].max(other.slat_max_ns[d]);
        }
    }

    /// The interval as reported, numbered `index` (its own, or shifted for a later loop):
    /// with `keep_bins` its latencies in fio's bins (fio's histogram log), with
    /// `keep_directions` its latency numbers per direction (fio's logs of a mixed job).
    pub fn to_sample(
        &self,
        interval_ns: u64,
        index: u64,
        keep_bins: bool,
        keep_directions: bool,
    ) -> IntervalSample {
        let mut total_latency = self.latency[0].clone();
        for other in &self.latency[1..] {
            total_latency.merge(other);
        }
        let by_direction = keep_directions.then(|| {
            Ddir::ALL
                .map(|ddir| {
                    let d = ddir.index();
                    DirectionInterval {
                        latency_mean_ns: Nanos(self.latency[d].mean_ns()),
                        clat_mean_ns: mean(self.clat_sum_ns[d], self.ios[d]),
                        slat_mean_ns: mean(self.slat_sum_ns[d], self.slat_ios[d]),
                        latency_max_ns: Nanos(self.latency[d].max_ns()),
                        clat_max_ns: Nanos(self.clat_max_ns[d]),
                        slat_max_ns: Nanos(self.slat_max_ns[d]),
                        latency_bins: if keep_bins {
                            self.latency[d].fio_bins()
                        } else {
                            Vec::new()
                        },
                    }
                })
                .to_vec()
        });
        let sum = |values: &[u64; 3]| values.iter().sum::<u64>();
        IntervalSample {
            start_ms: Millis(index * interval_ns / 1_000_000),
            interval_ms: Millis(self.length_ns.get() / 1_000_000),
            read_ios: self.ios[0],
            read_bytes: Bytes(self.bytes[0]),
            write_ios: self.ios[1],
            write_bytes: Bytes(self.bytes[1]),
            trim_ios: self.ios[2],
            trim_bytes: Bytes(self.bytes[2]),
            latency_mean_ns: Nanos(total_latency.mean_ns()),
            latency_p99_ns: Nanos(total_latency.percentile_ns(99.0)),
            latency_max_ns: Nanos(total_latency.max_ns()),
            latency_sum_sq_ns2: total_latency.sum_sq_ns2(),
            read_latency_mean_ns: Nanos(self.latency[Ddir::Read.index()].mean_ns()),
            clat_mean_ns: mean(sum(&self.clat_sum_ns), sum(&self.ios)),
            slat_mean_ns: mean(sum(&self.slat_sum_ns), sum(&self.slat_ios)),
            latency_bins: if keep_bins {
                total_latency.fio_bins()
            } else {
                Vec::new()
            },
            by_direction,
        }
    }
}

fn mean(sum: u64, count: u64) -> Nanos {
    if count == 0 {
        Nanos(0.0)
    } else {
        Nanos(sum as f64 / count as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: u64 = 1_000_000_000;

    #[test]
    fn intervals_close_on_time_and_merge_across_clones() {
        let mut merger = SeriesMerger::new(SECOND, 2);
        for clone in 0..2u64 {
            let mut acc = IntervalAccumulator::new(SECOND);
            let mut sink = |b: &IntervalBucket| merger.add(b);
            // 10 IOs per 100 ms for 2.5 s.
            for step in 0..25u64 {
                let t = step * SECOND / 10;
                acc.advance(t, &mut sink);
                let ddir = if clone == 0 { Ddir::Read } else { Ddir::Write };
                acc.record(ddir, 10 * 4096, 10, 1000 + clone * 1000);
            }
            acc.finish(25 * SECOND / 10, &mut sink);
        }
        let series = merger.finish();
        assert_eq!(series.len(), 3);
        assert_eq!(series[0].read_ios, 100);
        assert_eq!(series[0].write_ios, 100);
        assert_eq!(series[0].interval_ms, Millis(1000));
        assert_eq!(series[2].read_ios, 50);
        assert_eq!(series[2].interval_ms, Millis(500));
        assert_eq!(series[1].start_ms, Millis(1000));
        assert!((series[0].latency_mean_ns.get() - 1500.0).abs() < 1e-9);
        let total: u64 = series.iter().map(|s| s.read_ios + s.write_ios).sum();
        assert_eq!(total, 2 * 250);
    }

    #[test]
    fn a_stall_shows_as_zero_intervals() {
        let mut out = Vec::new();
        let mut acc = IntervalAccumulator::new(SECOND);
        acc.record(Ddir::Read, 4096, 1, 10);
        acc.advance(3 * SECOND + 1, &mut |b| out.push(b.ios[0]));
        assert_eq!(out, vec![1, 0, 0]);
    }
    #[test]
    fn a_fine_long_series_is_coarsened_with_exact_counts() {
        // 1 ms intervals for 20 s: 20,000 points would be kept; the series keeps at most
        // MAX_POINTS, each covering a power of two of intervals, with every IO counted.
        let interval_ns = 1_000_000;
        let mut merger = SeriesMerger::new(interval_ns, 1);
        let mut acc = IntervalAccumulator::new(interval_ns);
        let mut sink = |b: &IntervalBucket| merger.add(b);
        for ms in 0..20_000u64 {
            acc.advance(ms * interval_ns, &mut sink);
            acc.record(Ddir::Read, 3 * 4096, 3, 1_000 + ms);
        }
        acc.finish(20_000 * interval_ns, &mut sink);
        let series = merger.finish();
        assert!(series.len() <= MAX_POINTS, "{}", series.len());
        assert!(series.len() > MAX_POINTS / 2, "{}", series.len());
        assert_eq!(series.iter().map(|s| s.read_ios).sum::<u64>(), 60_000);
        assert_eq!(
            series.iter().map(|s| s.interval_ms.get()).sum::<u64>(),
            20_000
        );
        // Points are contiguous and of one length, a power of two of intervals (16 ms at
        // MAX_POINTS 2,048: 20,000 / 16 = 1,250 points).
        let group = series[0].interval_ms.get();
        assert!(group.is_power_of_two() && group > 1, "{group}");
        assert_eq!(series.len() as u64, 20_000_u64.div_ceil(group));
        for pair in series.windows(2) {
            assert_eq!(pair[0].interval_ms, Millis(group));
            assert_eq!(pair[0].start_ms + pair[0].interval_ms, pair[1].start_ms);
        }
        // The mean of a merged point is its IOs' mean (1,000 + ms ns each), its max the
        // largest: over the first point's `group` ms, 1,000 + (group - 1) / 2 and 999 + group.
        let expected_mean = 1_000.0 + (group - 1) as f64 / 2.0;
        assert!((series[0].latency_mean_ns.get() - expected_mean).abs() < 1e-9);
        assert_eq!(series[0].latency_max_ns, Nanos(999 + group));
    }

    #[test]
    fn a_coarse_series_is_never_coarsened() {
        // At 1 s the series stays as it is, however long (vdbench and fio reports read it).
        let mut merger = SeriesMerger::new(SECOND, 1);
        for i in 0..(MAX_POINTS as u64 + 10) {
            let mut bucket = IntervalBucket::empty(i);
            bucket.length_ns = Nanos(SECOND);
            bucket.ios[0] = 1;
            merger.add(&bucket);
        }
        let series = merger.finish();
        assert_eq!(series.len(), MAX_POINTS + 10);
        assert!(series
            .iter()
            .all(|s| s.interval_ms == Millis(1000) && s.read_ios == 1));
    }

    #[test]
    fn a_clone_that_lags_does_not_hold_intervals_open() {
        // Two clones of one result; the second reports nothing for a long while, then its
        // first interval: the first clone's intervals were closed meanwhile (memory bounded)
        // and the late one is still counted in its point.
        let mut merger = SeriesMerger::new(SECOND, 2);
        for i in 0..(MAX_OPEN_INTERVALS as u64 + 20) {
            let mut bucket = IntervalBucket::empty(i);
            bucket.length_ns = Nanos(SECOND);
            bucket.ios[0] = 10;
            merger.add(&bucket);
        }
        assert!(merger.open.len() <= MAX_OPEN_INTERVALS);
        let mut late = IntervalBucket::empty(0);
        late.length_ns = Nanos(SECOND);
        late.ios[1] = 5;
        merger.add(&late);
        let series = merger.finish();
        assert_eq!((series[0].read_ios, series[0].write_ios), (10, 5));
        assert_eq!(series[0].interval_ms, Millis(1000));
        assert_eq!(series.len(), MAX_OPEN_INTERVALS + 20);
    }
}
