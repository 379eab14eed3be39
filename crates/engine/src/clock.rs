//! Time sources. The worker is generic over [`Clock`], so a run can be driven by the real
//! monotonic clock or by [`FakeClock`], which makes null-engine runs exactly reproducible in
//! tests (every latency, interval and count is known in advance).

use std::cell::Cell;
use std::time::{Duration, Instant};

pub trait Clock {
    /// Nanoseconds since an arbitrary fixed origin.
    fn now_ns(&self) -> u64;
    /// Waits until `deadline_ns` (no-op when it has passed).
    fn sleep_until(&self, deadline_ns: u64);
    /// `at` on this clock, when the clock follows real time (the moment a run's start gate
    /// opened, shared by every clone); None for a clock of its own (`FakeClock`).
    fn ns_at(&self, _at: Instant) -> Option<u64> {
        None
    }
}

/// The monotonic clock (vDSO `clock_gettime`, ~20 ns a call).
#[derive(Clone, Copy, Debug)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    pub fn new() -> MonotonicClock {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
    /// A clock sharing `origin`, so that every worker of a run agrees on time zero.
    pub fn with_origin(origin: Instant) -> MonotonicClock {
        MonotonicClock { origin }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        self.origin.elapsed().as_nanos() as u64
    }

    fn sleep_until(&self, deadline_ns: u64) {
        let now = self.now_ns();
        if deadline_ns > now {
            std::thread::sleep(Duration::from_nanos(deadline_ns - now));
        }
    }

    fn ns_at(&self, at: Instant) -> Option<u64> {
        Some(at.saturating_duration_since(self.origin).as_nanos() as u64)
    }
}

/// A clock that advances by a fixed step at every reading, and jumps on sleep. Not thread-safe
/// by design: each worker owns its own.
#[derive(Debug)]
pub struct FakeClock {
    now: Cell<u64>,
    step_ns: u64,
}

impl FakeClock {
    pub fn new(step_ns: u64) -> FakeClock {
        FakeClock {
            now: Cell::new(0),
            step_ns,
        }
    }
}

impl Clock for FakeClock {
    fn now_ns(&self) -> u64 {
        let t = self.now.get() + self.step_ns;
        self.now.set(t);
        t
    }

    fn sleep_until(&self, deadline_ns: u64) {
        if deadline_ns > self.now.get() {
            self.now.set(deadline_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_steps_and_sleeps() {
        let c = FakeClock::new(10);
        assert_eq!(c.now_ns(), 10);
        assert_eq!(c.now_ns(), 20);
        c.sleep_until(1000);
        assert_eq!(c.now_ns(), 1010);
        c.sleep_until(5);
        assert_eq!(c.now_ns(), 1020);
    }

    #[test]
    fn monotonic_clock_moves_forward() {
        let c = MonotonicClock::new();
        let a = c.now_ns();
        c.sleep_until(a + 1_000_000);
        assert!(c.now_ns() >= a + 1_000_000);
    }
}
