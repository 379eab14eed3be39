//! fio's `latency_target` queue-depth search (io_u.c `lat_target_*`): start at depth 1; at the
//! end of every `latency_window`, if at least `latency_percentile` percent of the window's IOs
//! completed within the target, the depth doubles (or bisects towards the lowest depth that
//! failed), else it bisects down towards the highest depth that met it. When a success leaves
//! the depth where it was, the search has converged: the statistics restart and one more
//! window runs at that depth, after which the job ends. With `latency_run` the search never
//! ends and never restarts the statistics: it keeps judging windows until the runtime is over.
//!
//! As fio (`io_u_quiesce`), a ramp down and the convergence first let every IO in flight
//! complete, issuing none, and only then start the next window (and restart the statistics):
//! the final window's report then holds only IOs issued and completed within it, at the depth
//! found. Statistics restarted with IOs still in flight counted their time before the restart
//! against a runtime that did not hold it (a restart just before the runtime's end reported
//! 15 IOs "in 0 ms", far more in flight than the iodepth).

/// Where the search is.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencySearch {
    target_ns: u64,
    window_ns: u64,
    percentile: f64,
    max_depth: u32,
    /// The depth IOs are issued at (outside a quiesce).
    pub depth: u32,
    low: u32,
    high: u32,
    /// fio's `latency_stable_count`: successes in a row one below the lowest failing depth.
    stable_count: u32,
    window_start_ns: u64,
    window_ios: u64,
    window_failed: u64,
    /// Converged once; the current window is the final one at the depth found.
    final_window: bool,
    /// Waiting for the IOs in flight to complete before the next window; `Some(true)`: the
    /// statistics restart then (the convergence).
    quiesce: Option<bool>,
    /// fio `latency_run`: keep adjusting the depth for the whole run.
    keep_searching: bool,
}

/// What the search asks of the clone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchStep {
    /// Keep going (the depth or the issue limit may have changed).
    Continue,
    /// Converged and quiesced: restart the statistics now; one more window runs at `depth`.
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
            stable_count: 0,
            window_start_ns: now_ns,
            window_ios: 0,
            window_failed: 0,
            final_window: false,
            quiesce: None,
            keep_searching: false,
        }
    }

    /// fio `latency_run`: the search goes on for the whole run (no final window, no restart
    /// of the statistics).
    pub fn with_latency_run(mut self, on: bool) -> LatencySearch {
        self.keep_searching = on;
        self
    }

    /// The most IOs that may be in flight now: none while the search waits for the last
    /// window's IOs to complete, else the depth being tried.
    #[inline]
    pub fn issue_limit(&self) -> u32 {
        if self.quiesce.is_some() {
            0
        } else {
            self.depth
        }
    }

    /// Counts one completed IO issued at `issue_ns` of total latency `latency_ns`. An IO
    /// issued before the window began ran at the previous depth and is left out (after a
    /// quiesce there is none; after a ramp up the IOs of the smaller depth may still be
    /// completing).
    ///
    /// With `latency_percentile=100` (fio's default) there is no window to wait for: as fio's
    /// `lat_target_failed`, every IO over the target ramps the depth down at once (after a
    /// quiesce), and one at depth 1 ends the job. Returns true for that end (fio's
    /// `lat_fatal`: ETIMEDOUT, "exceeds specified max").
    #[inline]
    pub fn record(&mut self, issue_ns: u64, latency_ns: u64) -> bool {
        if self.percentile >= 100.0 {
            if latency_ns <= self.target_ns {
                self.window_ios += u64::from(issue_ns >= self.window_start_ns);
                return false;
            }
            if self.depth == 1 {
                return true;
            }
            self.failed();
            return false;
        }
        if issue_ns < self.window_start_ns {
            return false;
        }
        self.window_ios += 1;
        if latency_ns > self.target_ns {
            self.window_failed += 1;
        }
        false
    }

    /// The latency every IO must complete within.
    pub fn target_ns(&self) -> u64 {
        self.target_ns
    }

    /// At `now_ns`, with `in_flight` IOs issued and not yet complete: ends a quiesce once
    /// nothing is in flight, else judges the window if it is over.
    pub fn check(&mut self, now_ns: u64, in_flight: usize) -> SearchStep {
        if let Some(restart) = self.quiesce {
            if in_flight > 0 {
                return SearchStep::Continue;
            }
            self.quiesce = None;
            self.new_window(now_ns);
            return if restart {
                SearchStep::RestartStats
            } else {
                SearchStep::Continue
            };
        }
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
        self.new_window(now_ns);
        if self.quiesce.is_some() {
            // Nothing in flight (a synchronous engine): the quiesce is already over.
            return self.check(now_ns, in_flight);
        }
        step
    }

    fn new_window(&mut self, now_ns: u64) {
        self.window_start_ns = now_ns;
        self.window_ios = 0;
        self.window_failed = 0;
    }

    fn success(&mut self) -> SearchStep {
        let before = self.depth;
        self.low = self.depth;
        if self.depth + 1 == self.high {
            // fio: a depth one below the lowest failing one that keeps succeeding (three
            // times in a row) lets the search try that failing depth again.
            self.stable_count += 1;
            if self.stable_count >= 3 {
                self.high += 1;
                self.stable_count = 0;
            }
        }
        self.depth = if self.high != self.max_depth {
            (self.depth + self.high) / 2
        } else {
            self.depth * 2
        }
        .min(self.max_depth);
        if self.depth != before || self.keep_searching {
            return SearchStep::Continue;
        }
        if self.final_window {
            SearchStep::Done
        } else {
            self.final_window = true;
            self.quiesce = Some(true);
            SearchStep::Continue
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
        self.stable_count = 0;
        // A ramp down during the convergence's quiesce (fio: an IO completing inside it)
        // keeps the restart of the statistics that quiesce is for.
        self.quiesce = Some(self.quiesce == Some(true));
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
            match s.check(now, 0) {
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
        assert_eq!(s.check(5, 0), SearchStep::Continue, "window not over");
        assert_eq!(s.depth, 1);
        s.check(10, 0);
        assert_eq!(
            s.depth, 2,
            "90% within the target meets latency_percentile=90"
        );
        for latency in [50, 50, 50, 50, 50, 50, 50, 50, 500, 500] {
            s.record(10, latency);
        }
        s.check(20, 0);
        assert_eq!(s.depth, 1, "80% does not: back down");
    }

    #[test]
    fn a_ramp_down_and_the_convergence_wait_for_the_ios_in_flight() {
        // Depth 2 fails (80% in a 90% search): down to 1, but not before the 2 in flight are in.
        let mut s = LatencySearch::new(100, 10, 90.0, 4, 0);
        s.record(0, 50);
        assert_eq!(s.check(10, 1), SearchStep::Continue);
        assert_eq!(s.depth, 2);
        for latency in [50, 50, 50, 50, 50, 50, 50, 50, 500, 500] {
            s.record(10, latency);
        }
        assert_eq!(s.check(20, 2), SearchStep::Continue);
        assert_eq!((s.depth, s.issue_limit()), (1, 0), "quiescing");
        // A late IO of the old window is not counted, and nothing is judged while quiescing.
        s.record(15, 500);
        assert_eq!(s.check(40, 1), SearchStep::Continue);
        assert_eq!(s.issue_limit(), 0);
        assert_eq!(s.check(41, 0), SearchStep::Continue);
        assert_eq!(s.issue_limit(), 1, "the next window starts at 41");
        s.record(41, 50);
        // 1 succeeds, 2 is the lowest failing depth: (1 + 2) / 2 = 1, converged. The
        // statistics restart once the IO in flight is in.
        assert_eq!(s.check(51, 1), SearchStep::Continue);
        assert_eq!(s.issue_limit(), 0);
        assert_eq!(s.check(52, 0), SearchStep::RestartStats);
        assert_eq!(s.issue_limit(), 1);
        s.record(52, 50);
        assert_eq!(s.check(62, 1), SearchStep::Done);
    }

    #[test]
    fn latency_run_never_ends_nor_restarts() {
        let mut s = LatencySearch::new(u64::MAX, 10, 90.0, 4, 0).with_latency_run(true);
        let mut now = 0;
        for _ in 0..20 {
            s.record(now, 1);
            now += 10;
            assert_eq!(s.check(now, 3), SearchStep::Continue);
            assert_eq!(s.issue_limit(), s.depth);
        }
        assert_eq!(s.depth, 4);
    }

    #[test]
    fn at_percentile_100_one_late_io_ramps_down_at_once_and_ends_the_job_at_depth_1() {
        let mut s = LatencySearch::new(100, 10, 100.0, 8, 0);
        assert!(!s.record(0, 50));
        s.check(10, 0);
        assert!(!s.record(10, 50));
        s.check(20, 0);
        assert_eq!(s.depth, 4);
        // One IO over the target, mid-window: down to (4 + 2) / 2 = 3 now, quiescing.
        assert!(!s.record(20, 500));
        assert_eq!((s.depth, s.issue_limit()), (3, 0));
        assert_eq!(s.check(21, 0), SearchStep::Continue);
        assert_eq!(s.issue_limit(), 3);
        // Late IOs keep ramping down (fio: each one completing in the quiesce), and one at
        // depth 1 is fatal.
        assert!(!s.record(21, 500));
        assert!(!s.record(21, 500));
        assert_eq!(s.depth, 1);
        assert!(s.record(21, 500));
        // Below 100 a late IO at depth 1 is only counted.
        let mut s = LatencySearch::new(100, 10, 99.0, 8, 0);
        assert!(!s.record(0, 500));
    }
}
