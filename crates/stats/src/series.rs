//! The time series: per interval (one second by default) the IOs, bytes and latency of the
//! IOs completed in it. Each clone accumulates its current interval locally and hands closed
//! intervals to a [`SeriesMerger`], which sums clones of one result interval by interval and
//! drops each interval's histogram as soon as every clone has reported it, so memory stays
//! bounded however long the run.

use crate::histogram::LatencyHistogram;
use crate::result::{DirectionInterval, IntervalSample};

/// Precision of per-interval histograms (2 significant digits: 1% error, small memory).
const INTERVAL_PRECISION: u8 = 2;

pub use crate::ddir::Ddir;

/// One closed interval of one clone.
#[derive(Clone, Debug)]
pub struct IntervalBucket {
    pub index: u64,
    /// Length actually covered (the last interval of a run is usually shorter).
    pub length_ns: u64,
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
}

impl IntervalBucket {
    fn empty(index: u64) -> IntervalBucket {
        IntervalBucket {
            index,
            length_ns: 0,
            ios: [0; 3],
            bytes: [0; 3],
            latency: [(); 3].map(|_| LatencyHistogram::with_precision(INTERVAL_PRECISION)),
            clat_sum_ns: [0; 3],
            slat_sum_ns: [0; 3],
            slat_ios: [0; 3],
        }
    }

    fn clear(&mut self, index: u64) {
        self.index = index;
        self.length_ns = 0;
        self.ios = [0; 3];
        self.bytes = [0; 3];
        for histogram in &mut self.latency {
            histogram.reset();
        }
        self.clat_sum_ns = [0; 3];
        self.slat_sum_ns = [0; 3];
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
            self.current.length_ns = self.interval_ns;
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
        if let Some(slat) = slat_ns {
            self.current.slat_sum_ns[d] += slat;
            self.current.slat_ios[d] += 1;
        }
    }

    /// Closes the last, partial interval at `elapsed_ns` (end of the measured window).
    pub fn finish(&mut self, elapsed_ns: u64, sink: &mut impl FnMut(&IntervalBucket)) {
        self.advance(elapsed_ns, sink);
        let length = elapsed_ns.saturating_sub(self.current_start_ns);
        let has_io = self.current.ios.iter().sum::<u64>() > 0;
        if length > 0 || has_io {
            self.current.length_ns = length;
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

struct Slot {
    bucket: IntervalBucket,
    reported: u32,
    sample: Option<IntervalSample>,
}

/// Sums the intervals of several clones into one series.
pub struct SeriesMerger {
    interval_ns: u64,
    clones: u32,
    slots: Vec<Slot>,
    /// Keep each interval's latencies in fio's bins (for `write_hist_log`).
    keep_bins: bool,
    /// Keep each interval's latency numbers per direction (fio's logs of a mixed job).
    keep_directions: bool,
}

impl SeriesMerger {
    pub fn new(interval_ns: u64, clones: u32) -> SeriesMerger {
        SeriesMerger {
            interval_ns: interval_ns.max(1),
            clones: clones.max(1),
            slots: Vec::new(),
            keep_bins: false,
            keep_directions: false,
        }
    }

    /// Also keeps every interval's latency numbers (and bins, with [`Self::with_bins`]) per
    /// direction: fio writes a line per direction in the latency and histogram logs of a job
    /// that both reads and writes.
    pub fn with_directions(mut self, keep_directions: bool) -> SeriesMerger {
        self.keep_directions = keep_directions;
        self
    }

    /// Also keeps every interval's latency distribution in fio's bins (fio's histogram log).
    pub fn with_bins(mut self, keep_bins: bool) -> SeriesMerger {
        self.keep_bins = keep_bins;
        self
    }

    /// Adds one clone's closed interval.
    pub fn add(&mut self, bucket: &IntervalBucket) {
        self.add_shifted(bucket, 0);
    }

    /// Adds one clone's closed interval as interval `bucket.index + shift` (a later loop of
    /// a clone that runs its loops as separate passes, fio `unlink_each_loop`).
    pub fn add_shifted(&mut self, bucket: &IntervalBucket, shift: u64) {
        let index = (bucket.index + shift) as usize;
        while self.slots.len() <= index {
            let i = self.slots.len() as u64;
            self.slots.push(Slot {
                bucket: IntervalBucket::empty(i),
                reported: 0,
                sample: None,
            });
        }
        let keep = (self.keep_bins, self.keep_directions);
        let interval_ns = self.interval_ns;
        let clones = self.clones;
        let slot = &mut self.slots[index];
        let merged = &mut slot.bucket;
        merged.length_ns = merged.length_ns.max(bucket.length_ns);
        for d in 0..3 {
            merged.ios[d] += bucket.ios[d];
            merged.bytes[d] += bucket.bytes[d];
            merged.latency[d].merge(&bucket.latency[d]);
            merged.clat_sum_ns[d] += bucket.clat_sum_ns[d];
            merged.slat_sum_ns[d] += bucket.slat_sum_ns[d];
            merged.slat_ios[d] += bucket.slat_ios[d];
        }
        slot.reported += 1;
        if slot.reported >= clones {
            slot.sample = Some(to_sample(&slot.bucket, interval_ns, keep));
            // Free the histograms' memory: this interval is final.
            slot.bucket.latency = [(); 3].map(|_| LatencyHistogram::with_precision(1));
        }
    }

    /// The merged series, ascending by time.
    pub fn finish(self) -> Vec<IntervalSample> {
        let keep = (self.keep_bins, self.keep_directions);
        let interval_ns = self.interval_ns;
        self.slots
            .into_iter()
            .map(|slot| {
                slot.sample
                    .unwrap_or_else(|| to_sample(&slot.bucket, interval_ns, keep))
            })
            .collect()
    }
}

/// The interval as reported; `keep` is (fio bins, per-direction numbers).
fn to_sample(bucket: &IntervalBucket, interval_ns: u64, keep: (bool, bool)) -> IntervalSample {
    let (keep_bins, keep_directions) = keep;
    let mut total_latency = bucket.latency[0].clone();
    for other in &bucket.latency[1..] {
        total_latency.merge(other);
    }
    let by_direction = keep_directions.then(|| {
        Ddir::ALL
            .map(|ddir| {
                let d = ddir.index();
                DirectionInterval {
                    latency_mean_ns: bucket.latency[d].mean_ns(),
                    clat_mean_ns: mean(bucket.clat_sum_ns[d], bucket.ios[d]),
                    slat_mean_ns: mean(bucket.slat_sum_ns[d], bucket.slat_ios[d]),
                    latency_bins: if keep_bins {
                        bucket.latency[d].fio_bins()
                    } else {
                        Vec::new()
                    },
                }
            })
            .to_vec()
    });
    let sum = |values: &[u64; 3]| values.iter().sum::<u64>();
    IntervalSample {
        start_ms: bucket.index * interval_ns / 1_000_000,
        interval_ms: bucket.length_ns / 1_000_000,
        read_ios: bucket.ios[0],
        read_bytes: bucket.bytes[0],
        write_ios: bucket.ios[1],
        write_bytes: bucket.bytes[1],
        trim_ios: bucket.ios[2],
        trim_bytes: bucket.bytes[2],
        latency_mean_ns: total_latency.mean_ns(),
        latency_p99_ns: total_latency.percentile_ns(99.0),
        latency_max_ns: total_latency.max_ns(),
        latency_sum_sq_ns2: total_latency.sum_sq_ns2(),
        read_latency_mean_ns: bucket.latency[Ddir::Read.index()].mean_ns(),
        clat_mean_ns: mean(sum(&bucket.clat_sum_ns), sum(&bucket.ios)),
        slat_mean_ns: mean(sum(&bucket.slat_sum_ns), sum(&bucket.slat_ios)),
        latency_bins: if keep_bins {
            total_latency.fio_bins()
        } else {
            Vec::new()
        },
        by_direction,
    }
}

fn mean(sum: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum as f64 / count as f64
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
        assert_eq!(series[0].interval_ms, 1000);
        assert_eq!(series[2].read_ios, 50);
        assert_eq!(series[2].interval_ms, 500);
        assert_eq!(series[1].start_ms, 1000);
        assert!((series[0].latency_mean_ns - 1500.0).abs() < 1e-9);
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
}
