//! Credit-based bursting of Azure disks (Premium SSD P1-P20, Standard SSD) as a token bucket.
//!
//! Azure's "Managed disk bursting" page (learn.microsoft.com/azure/virtual-machines/disk-bursting,
//! "Bursting flow", read 2026-11-22): a disk "will start with fully stocked credits", which
//! "allow you to burst for 30 minutes at the maximum burst rate"; "for all IOPS and MB/s that your
//! resource is using below the provisioned limit you begin to accumulate credits". So the bucket
//! holds `(burst - baseline) x 1800 s` units, fills by `baseline - used` while below baseline and
//! drains by `used - baseline` while above it; the cap is the burst figure while credits last and
//! the baseline after. One bucket per limit (IOPS and MB/s are credited separately).
//!
//! The same page, "Virtual machine-level bursting" (ms.date 2026-09-10, read 2026-11-23): "VM-level
//! bursting only uses the credit-based model for bursting. It's enabled by default for most VMs
//! that support Premium Storage", and "the bursting credit system applies in the same manner at
//! both the VM level and disk level"; the size tables give each VM's "max burst uncached"
//! IOPS and MB/s "for up to 30 minutes". So a VM's uncached caps get the same bucket.

/// Seconds a full bucket lasts at the maximum burst rate (Azure: 30 minutes).
pub const FULL_BURST_SECONDS: f64 = 1800.0;

#[derive(Clone, Debug, PartialEq)]
pub struct BurstBucket {
    pub baseline_per_s: f64,
    pub burst_per_s: f64,
    /// Units (IOs or MB) above the baseline that may still be spent.
    pub credits: f64,
    pub capacity: f64,
}

impl BurstBucket {
    /// A full bucket. `time_scale` > 1 shrinks the 30 minutes (for rehearsals and tests: 60 makes
    /// the full burst last 30 s); the rates are unchanged.
    pub fn full(baseline_per_s: f64, burst_per_s: f64, time_scale: f64) -> BurstBucket {
        assert!(time_scale > 0.0, "time_scale must be positive");
        let capacity = (burst_per_s - baseline_per_s).max(0.0) * FULL_BURST_SECONDS / time_scale;
        BurstBucket {
            baseline_per_s,
            burst_per_s,
            credits: capacity,
            capacity,
        }
    }

    /// The same bucket holding `fraction` (0..=1) of its capacity: Azure starts every resource
    /// full; an empty start rehearses the sustained (post-burst) state that `predict` gives.
    pub fn with_credits_fraction(mut self, fraction: f64) -> BurstBucket {
        self.credits = self.capacity * fraction.clamp(0.0, 1.0);
        self
    }

    /// The cap for the next `tick_s` seconds: the baseline plus what the credits left can pay
    /// for in that time, at most the burst rate. (A bucket with a few credits left allows a
    /// little more than the baseline for one tick, not a whole tick at the burst rate.)
    pub fn cap_per_s(&self, tick_s: f64) -> f64 {
        let tick_s = tick_s.max(1e-3);
        (self.baseline_per_s + self.credits / tick_s).min(self.burst_per_s)
    }

    /// Accounts `used` units over `elapsed_s` seconds: credits fill below the baseline and
    /// drain above it, within `0..=capacity`.
    pub fn account(&mut self, used: f64, elapsed_s: f64) {
        let below = self.baseline_per_s * elapsed_s - used;
        self.credits = (self.credits + below).clamp(0.0, self.capacity);
    }

    /// Seconds of bursting left at the full burst rate.
    pub fn seconds_left(&self) -> f64 {
        let excess = self.burst_per_s - self.baseline_per_s;
        if excess > 0.0 {
            self.credits / excess
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p10_bursts_for_thirty_minutes_then_falls_to_baseline() {
        // P10: 500 IOPS, burst 3,500 (catalog/disk-premium-azure-current.toml).
        let mut bucket = BurstBucket::full(500.0, 3500.0, 1.0);
        assert_eq!(bucket.capacity, 3000.0 * 1800.0);
        let mut seconds = 0;
        while bucket.cap_per_s(1.0) == 3500.0 {
            bucket.account(3500.0, 1.0);
            seconds += 1;
        }
        assert_eq!(seconds, 1800);
        assert_eq!(bucket.cap_per_s(1.0), 500.0);
    }

    #[test]
    fn a_few_credits_buy_a_little_more_than_the_baseline_for_one_tick() {
        let mut bucket = BurstBucket::full(500.0, 3500.0, 1.0);
        bucket.credits = 10.0;
        assert_eq!(bucket.cap_per_s(0.1), 600.0);
    }

    #[test]
    fn idle_disk_refills_at_its_baseline() {
        let mut bucket = BurstBucket::full(120.0, 3500.0, 1.0);
        bucket.credits = 0.0;
        bucket.account(0.0, 10.0);
        assert_eq!(bucket.credits, 1200.0); // Azure's example: a P1 accrues 120 IOPS per second
        bucket.account(0.0, 1e9);
        assert_eq!(bucket.credits, bucket.capacity);
    }

    #[test]
    fn time_scale_shrinks_the_bucket_not_the_rates() {
        let bucket = BurstBucket::full(500.0, 3500.0, 60.0);
        assert_eq!(bucket.cap_per_s(0.1), 3500.0);
        assert!((bucket.seconds_left() - 30.0).abs() < 1e-9);
    }
}
