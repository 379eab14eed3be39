//! The method's three formulas, each in one place so that every crate computes them the same way.

use crate::units::{Bytes, BytesPerSecond, Iops, Latency};

/// `throughput = IOPS x IO size`.
pub fn throughput(iops: Iops, io_size: Bytes) -> BytesPerSecond {
    iops * io_size
}

/// `IOPS = throughput / IO size`.
pub fn iops_for_throughput(throughput: BytesPerSecond, io_size: Bytes) -> Iops {
    throughput / io_size
}

/// Little's law, the one place it is written: IOs in flight (outstanding) = IOPS x latency.
/// Latency in milliseconds, as every table and report of the method gives it. Returned
/// unrounded; callers round up where they need a count. Planner, predict and compare all call
/// this (and its two inverses below), so a fix lands once.
pub fn outstanding_ios(iops: f64, latency_ms: f64) -> f64 {
    iops * latency_ms / 1e3
}

/// Little's law solved for IOPS: what `outstanding_ios` in flight deliver at `latency_ms` each.
/// Infinite when the latency is 0 (callers check it is > 0 where it is an input).
pub fn iops_from_outstanding(outstanding_ios: f64, latency_ms: f64) -> f64 {
    outstanding_ios / (latency_ms / 1e3)
}

/// Little's law solved for latency: milliseconds each IO takes when `outstanding_ios` are in
/// flight and the system completes `iops`. Infinite when `iops` is 0.
pub fn latency_ms_from_outstanding(outstanding_ios: f64, iops: f64) -> f64 {
    outstanding_ios / iops * 1e3
}

/// [`outstanding_ios`] on the unit types: the queue depth that sustains `iops` at `latency`.
pub fn littles_law_queue_depth(iops: Iops, latency: Latency) -> f64 {
    outstanding_ios(iops.0, latency.as_millis())
}

/// [`iops_from_outstanding`] on the unit types.
pub fn littles_law_iops(queue_depth: f64, latency: Latency) -> Iops {
    Iops(iops_from_outstanding(queue_depth, latency.as_millis()))
}

/// [`latency_ms_from_outstanding`] on the unit types.
pub fn littles_law_latency(queue_depth: f64, iops: Iops) -> Latency {
    Latency::from_millis(latency_ms_from_outstanding(queue_depth, iops.0))
}

/// The NetApp seed's vdbench form of Little's law: `threads = latency_seconds x desired IOPS`.
/// Each vdbench thread keeps one IO outstanding, so threads play the role of queue depth.
/// (The seed's own example does not agree with itself: it says 1.14 ms, then converts "1.3 ms",
/// then multiplies by 5,000 while aiming at 3,500. Compute; never copy its result.)
pub fn vdbench_threads(best_latency: Latency, desired_iops: Iops) -> f64 {
    littles_law_queue_depth(desired_iops, best_latency)
}

/// A striped volume keeps every member busy only when its queue depth is the per-disk depth
/// times the number of disks: `QD(volume) = QD(per disk) x disks`.
pub fn striped_volume_queue_depth(per_disk_queue_depth: u32, disks: u32) -> u32 {
    per_disk_queue_depth.saturating_mul(disks)
}

/// How many members of a stripe have at least one IO outstanding when the volume sees
/// `volume_queue_depth` small random IOs spread evenly: at most one per outstanding IO.
pub fn busy_stripe_members(volume_queue_depth: u32, disks: u32) -> u32 {
    volume_queue_depth.min(disks)
}

/// Bytes one IO may move and still count as one IO against an Azure disk's IOPS limit.
/// Azure's managed-disk API reference (DiskIopsReadWrite, learn.microsoft.com, read 2026-11-22):
/// "One operation can transfer between 4k and 256k bytes"; Standard SSD/HDD bill operations in
/// the same 256 KiB units. For Premium SSD throttling Azure publishes no unit: iofit assumes the
/// same 256 KiB (an assumption, said where it matters). Shared by `predict` and `emulate`.
pub const AZURE_IO_UNIT_BYTES: f64 = 256.0 * 1024.0;

/// How many IOs one IO of `io_size_bytes` counts as against an Azure IOPS limit: one up to
/// 256 KiB, then one per started 256 KiB.
pub fn azure_io_units(io_size_bytes: f64) -> f64 {
    if io_size_bytes.is_finite() && io_size_bytes > AZURE_IO_UNIT_BYTES {
        (io_size_bytes / AZURE_IO_UNIT_BYTES).ceil()
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_counts_large_ios_in_256_kib_units() {
        assert_eq!(azure_io_units(4096.0), 1.0);
        assert_eq!(azure_io_units(256.0 * 1024.0), 1.0);
        assert_eq!(azure_io_units(256.0 * 1024.0 + 1.0), 2.0);
        assert_eq!(azure_io_units(1024.0 * 1024.0), 4.0);
    }

    #[test]
    fn littles_law_seed_example() {
        // SPEC: 1 ms target latency at 5,000 IOPS needs QD 5.
        let depth = littles_law_queue_depth(Iops(5000.0), Latency::from_millis(1.0));
        assert!((depth - 5.0).abs() < 1e-9);
        let back = littles_law_iops(depth, Latency::from_millis(1.0));
        assert!((back.0 - 5000.0).abs() < 1e-6);
        let latency = littles_law_latency(5.0, Iops(5000.0));
        assert!((latency.as_millis() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn littles_law_inverses_agree() {
        // 8,000 IOPS at 2 ms: 16 in flight; 16 in flight at 2 ms: 8,000 IOPS; at 8,000: 2 ms.
        assert!((outstanding_ios(8000.0, 2.0) - 16.0).abs() < 1e-12);
        assert!((iops_from_outstanding(16.0, 2.0) - 8000.0).abs() < 1e-9);
        assert!((latency_ms_from_outstanding(16.0, 8000.0) - 2.0).abs() < 1e-12);
        // No panic at zero: the inverses give infinity, which callers rule out before.
        assert!(iops_from_outstanding(1.0, 0.0).is_infinite());
        assert!(latency_ms_from_outstanding(1.0, 0.0).is_infinite());
    }

    #[test]
    fn vdbench_threads_computed_not_copied() {
        // 1.3 ms x 3,500 IOPS = 4.55 threads; 1.14 ms x 3,500 = 3.99; the seed prints 4.0.
        let threads = vdbench_threads(Latency::from_millis(1.3), Iops(3500.0));
        assert!((threads - 4.55).abs() < 1e-9);
        let threads = vdbench_threads(Latency::from_millis(1.14), Iops(3500.0));
        assert!((threads - 3.99).abs() < 1e-9);
    }

    #[test]
    fn stripe_depth() {
        assert_eq!(striped_volume_queue_depth(8, 4), 32);
        // An app at QD 2 on a 4-disk stripe keeps only two disks busy.
        assert_eq!(busy_stripe_members(2, 4), 2);
    }
}
