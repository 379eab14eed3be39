//! fio's steady-state detection (`steadystate=iops:5%`, `iops_slope:0.3%`, `bw:...`,
//! `bw_slope:...`): once a second, after `ss_ramp`, the job's IOPS and bandwidth over the last
//! second join a window of `ss_dur` seconds; when the window is full, the job is steady if the
//! samples' largest deviation from their mean (or the slope of their least-squares line) is at
//! most the limit. The runner samples the clones' live counters and ends the job when it is.

use iofit_model::job::{SteadyMetric, SteadyStateSpec};
use iofit_stats::SteadyStateResult;
use std::collections::VecDeque;

/// One job's steady-state check.
#[derive(Debug)]
pub struct SteadyStateTracker {
    spec: SteadyStateSpec,
    window: usize,
    iops: VecDeque<f64>,
    bw_kib_s: VecDeque<f64>,
    /// Counters and time at the last sample; `None` until the ramp is over.
    last: Option<(u64, u64, u64)>,
    ramp_end_ns: u64,
    /// The last judgement, for the result.
    criterion: f64,
    max_deviation: f64,
    slope: f64,
    attained: bool,
}

/// Samples are one second apart (fio 3.33's fixed `ss` interval).
pub const SAMPLE_NS: u64 = 1_000_000_000;

impl SteadyStateTracker {
    /// A tracker for a job that started at `start_ns`.
    pub fn new(spec: &SteadyStateSpec, start_ns: u64) -> SteadyStateTracker {
        let window = (spec.duration.as_nanos() as u64 / SAMPLE_NS).max(1) as usize;
        SteadyStateTracker {
            spec: spec.clone(),
            window,
            iops: VecDeque::with_capacity(window),
            bw_kib_s: VecDeque::with_capacity(window),
            last: None,
            ramp_end_ns: start_ns + spec.ramp.as_nanos() as u64,
            criterion: 0.0,
            max_deviation: 0.0,
            slope: 0.0,
            attained: false,
        }
    }

    /// When the next sample is due.
    pub fn next_sample_ns(&self) -> u64 {
        match self.last {
            None => self.ramp_end_ns,
            Some((at, _, _)) => at + SAMPLE_NS,
        }
    }

    pub fn attained(&self) -> bool {
        self.attained
    }

    /// Takes a sample at `now_ns` if one is due, from the job's completed IOs and bytes so
    /// far. Returns true once the job is steady. A late sample is scaled by its real length.
    pub fn sample(&mut self, now_ns: u64, ios: u64, bytes: u64) -> bool {
        if self.attained || now_ns < self.next_sample_ns() {
            return self.attained;
        }
        if let Some((at, last_ios, last_bytes)) = self.last {
            let seconds = now_ns.saturating_sub(at).max(1) as f64 / 1e9;
            push(
                &mut self.iops,
                (ios.saturating_sub(last_ios)) as f64 / seconds,
                self.window,
            );
            push(
                &mut self.bw_kib_s,
                (bytes.saturating_sub(last_bytes)) as f64 / 1024.0 / seconds,
                self.window,
            );
        }
        self.last = Some((now_ns, ios, bytes));
        if self.iops.len() == self.window {
            self.attained = self.judge();
        }
        self.attained
    }

    /// fio's check on a full window.
    fn judge(&mut self) -> bool {
        let samples = match self.spec.metric {
            SteadyMetric::Iops => &self.iops,
            SteadyMetric::Bw => &self.bw_kib_s,
        };
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        self.max_deviation = samples.iter().map(|s| (s - mean).abs()).fold(0.0, f64::max);
        // Least squares against x = 0, 1, ... (seconds).
        let x_mean = (n - 1.0) / 2.0;
        let (mut sxy, mut sxx) = (0.0, 0.0);
        for (i, s) in samples.iter().enumerate() {
            sxy += (i as f64 - x_mean) * (s - mean);
            sxx += (i as f64 - x_mean).powi(2);
        }
        self.slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
        let value = if self.spec.slope {
            self.slope.abs()
        } else {
            self.max_deviation
        };
        self.criterion = if self.spec.percent {
            if mean > 0.0 {
                value * 100.0 / mean
            } else {
                f64::INFINITY
            }
        } else {
            value
        };
        self.criterion <= self.spec.limit
    }

    /// fio's `steadystate` block.
    pub fn result(&self) -> SteadyStateResult {
        let metric = match self.spec.metric {
            SteadyMetric::Iops => "iops",
            SteadyMetric::Bw => "bw",
        };
        let mean = |v: &VecDeque<f64>| {
            if v.is_empty() {
                0
            } else {
                (v.iter().sum::<f64>() / v.len() as f64) as u64
            }
        };
        SteadyStateResult {
            ss: format!(
                "{metric}{}:{:.6}{}",
                if self.spec.slope { "_slope" } else { "" },
                self.spec.limit,
                if self.spec.percent { "%" } else { "" }
            ),
            duration_s: iofit_model::units::Seconds::<u64>::from_duration(self.spec.duration),
            attained: self.attained,
            criterion: if self.criterion.is_finite() {
                self.criterion
            } else {
                0.0
            },
            percent: self.spec.percent,
            max_deviation: self.max_deviation,
            slope: self.slope,
            bw_mean_kib_s: mean(&self.bw_kib_s),
            iops_mean: mean(&self.iops),
            iops: self.iops.iter().map(|&v| v as u64).collect(),
            bw_kib_s: self.bw_kib_s.iter().map(|&v| v as u64).collect(),
        }
    }
}

fn push(window: &mut VecDeque<f64>, value: f64, len: usize) {
    if window.len() == len {
        window.pop_front();
    }
    window.push_back(value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spec(metric: SteadyMetric, slope: bool, limit: f64) -> SteadyStateSpec {
        SteadyStateSpec {
            metric,
            slope,
            limit,
            percent: true,
            duration: Duration::from_secs(5),
            ramp: Duration::from_secs(2),
        }
    }

    /// Feeds per-second IOPS (4 KiB IOs) and returns the second at which the job was steady.
    fn feed(tracker: &mut SteadyStateTracker, per_second: &[u64]) -> Option<usize> {
        let (mut ios, mut t) = (0u64, 0u64);
        for (second, &rate) in per_second.iter().enumerate() {
            if tracker.sample(t, ios, ios * 4096) {
                return Some(second);
            }
            ios += rate;
            t += SAMPLE_NS;
        }
        tracker
            .sample(t, ios, ios * 4096)
            .then_some(per_second.len())
    }

    #[test]
    fn ramp_then_a_full_window_of_flat_samples_is_steady() {
        let mut t = SteadyStateTracker::new(&spec(SteadyMetric::Iops, false, 5.0), 0);
        // 2 s ramp, then samples at 3..=7 s cover seconds 2..7: steady at the 7 s sample.
        let at = feed(&mut t, &[50, 70, 1000, 1010, 990, 1000, 1005, 1000, 1000]);
        assert_eq!(at, Some(7));
        let r = t.result();
        assert!(r.attained);
        assert_eq!(r.iops, vec![1000, 1010, 990, 1000, 1005]);
        assert_eq!(r.iops_mean, 1001);
        assert!((r.max_deviation - 11.0).abs() < 1e-9);
        assert!((r.criterion - 11.0 * 100.0 / 1001.0).abs() < 1e-9);
        assert_eq!(r.ss, "iops:5.000000%");
        assert_eq!(r.bw_kib_s[0], 4000);
    }

    #[test]
    fn a_rising_rate_is_not_steady_by_slope_and_the_window_slides() {
        let mut t = SteadyStateTracker::new(&spec(SteadyMetric::Bw, true, 1.0), 0);
        let rising: Vec<u64> = (0..12).map(|s| 1000 + 100 * s).collect();
        assert_eq!(feed(&mut t, &rising), None);
        let r = t.result();
        assert!(!r.attained);
        assert_eq!(r.bw_kib_s.len(), 5, "the window keeps the last 5 samples");
        // 100 IOPS more per second = 400 KiB/s per second.
        assert!((r.slope - 400.0).abs() < 1e-6, "slope {}", r.slope);
        assert_eq!(r.ss, "bw_slope:1.000000%");
    }
}
