//! fio's `latency_target` queue-depth search (io_u.c `lat_target_*`): start at depth 1; at the
//! end of every `latency_window`, if at least `latency_percentile` percent of the window's IOs
//! completed within the target, the depth doubles (or bisects towards the lowest depth that
//! failed), else it bisects down towards the highest depth that met it. When a success leaves
//! the depth where it was, the search has converged: the statistics restart and one more
//! window runs at that depth, after which the job ends (unless `latency_run`).

/// Where the search is.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencySearch {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    max_depth: u32,
    /// The depth IOs are issued at now.
    pub depth: u32,
    low: u32,
    high: u32,
    window_start_ns: u64,
    window_ios: u64,
    window_failed: u64,
    /// Converged once; the current window is the final one at the depth found.
    final_window: bool,
}

/// What the end of a window asks of the clone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchStep {
    /// Keep going (the depth may have changed).
    Continue,
    /// Converged: restart the statistics and run one more window at `depth`.
    RestartStats,
    /// The final window is over: the job may end.
    Done,
}

impl LatencySearch {
    pub fn new(
        target_ns: u64,
        window_ns: u64,
        percentile: f64,
        max_depth: u32,
        now_ns: u64,
    ) -> LatencySearch {
        LatencySearch {
            target_ns,
            window_ns: window_ns.max(1),
            percentile,
            max_depth: max_depth.max(1),
            depth: 1,
            low: 1,
            high: max_depth.max(1),
            window_start_ns: now_ns,
            window_ios: 0,
            window_failed: 0,
            final_window: false,
        }
    }

    /// Counts one completed IO issued at `issue_ns` of total latency `latency_ns`. An IO
    /// issued before the window began ran at the previous depth and is left out (fio waits
    /// for those to complete before a new window: `io_u_quiesce`).
    #[inline]
    pub fn record(&mut self, issue_ns: u64, latency_ns: u64) {
        if issue_ns < self.window_start_ns {
            return;
        }
        self.window_ios += 1;
        if latency_ns > self.target_ns {
            self.window_failed += 1;
        }
    }

    /// At `now_ns`: judges the window if it is over.
    pub fn check(&mut self, now_ns: u64) -> SearchStep {
        if now_ns.saturating_sub(self.window_start_ns) < self.window_ns || self.window_ios == 0 {
            return SearchStep::Continue;
        }
        let success_pct =
            (self.window_ios - self.window_failed) as f64 * 100.0 / self.window_ios as f64;
        let step = if success_pct >= self.percentile {
            self.success()
        } else {
            self.failed();
            SearchStep::Continue
        };
        self.window_start_ns = now_ns;
        self.window_ios = 0;
        self.window_failed = 0;
        step
    }

    fn success(&mut self) -> SearchStep {
        let before = self.depth;
        self.low = self.depth;
        self.depth = if self.high != self.max_depth {
            (self.depth + self.high) / 2
        } else {
            self.depth * 2
        }
        .min(self.max_depth);
        if self.depth != before {
            return SearchStep::Continue;
        }
        if self.final_window {
            SearchStep::Done
        } else {
            self.final_window = true;
            SearchStep::RestartStats
        }
    }

    fn failed(&mut self) {
        if self.depth == 1 {
            return;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = ((self.depth + self.low) / 2).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device whose latency is `per_io_ns` x depth (queueing), judged against `target_ns`.
    /// Returns the depth found (or reached after 100 windows) and the depths tried.
    fn search(max_depth: u32, target_ns: u64, per_io_ns: u64) -> (u32, Vec<u32>) {
        let mut s = LatencySearch::new(target_ns, 1000, 99.0, max_depth, 0);
        let mut depths = vec![s.depth];
        let mut now = 0;
        for _ in 0..100 {
            for _ in 0..100 {
                s.record(now, per_io_ns * u64::from(s.depth));
            }
            now += 1000;
            match s.check(now) {
                SearchStep::Done => return (s.depth, depths),
                _ => depths.push(s.depth),
            }
        }
        (s.depth, depths)
    }

    #[test]
    fn finds_the_deepest_queue_within_the_target() {
        // Latency 100 us per queued IO, target 1 ms: depth 10 is the deepest that meets it.
        let (depth, path) = search(128, 1_000_000, 100_000);
        assert_eq!(depth, 10, "{path:?}");
        // Doubling first, then bisecting: 1 2 4 8 16 (fails) 12 (fails) 10 11 (fails) 10.
        assert_eq!(&path[..5], &[1, 2, 4, 8, 16]);
    }

    #[test]
    fn a_target_met_at_any_depth_ends_at_iodepth_and_one_never_met_stays_at_one() {
        let (depth, path) = search(32, u64::MAX, 1);
        assert_eq!(depth, 32);
        assert_eq!(
            path.len(),
            7,
            "1 2 4 8 16 32, then the final window: {path:?}"
        );
        // Never met, not even at depth 1: fio keeps searching (at depth 1) until the runtime.
        let (depth, path) = search(32, 10, 1_000);
        assert_eq!(depth, 1);
        assert_eq!(path.len(), 101);
    }

    #[test]
    fn the_percentile_counts_failures_in_the_window() {
        let mut s = LatencySearch::new(100, 10, 90.0, 8, 0);
        for latency in [50, 50, 50, 50, 50, 50, 50, 50, 50, 500] {
            s.record(0, latency);
        }
        assert_eq!(s.check(5), SearchStep::Continue, "window not over");
        assert_eq!(s.depth, 1);
        s.check(10);
        assert_eq!(
            s.depth, 2,
            "90% within the target meets latency_percentile=90"
        );
        for latency in [50, 50, 50, 50, 50, 50, 50, 50, 500, 500] {
            s.record(10, latency);
        }
        s.check(20);
        assert_eq!(s.depth, 1, "80% does not: back down");
    }
}
