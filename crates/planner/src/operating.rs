//! The operating point of a volume's target: the IOPS and IO size that meet both its IOPS
//! and its MB/s, and the workload (threads x depth) it runs at.

use iofit_model::units::Bytes;
use iofit_model::{SizingTarget, Workload};

/// The workload a volume's target describes, at `outstanding` IOs.
pub(crate) fn workload_of(target: &SizingTarget, outstanding: u32, mb: f64) -> Workload {
    let (threads, depth) = split_outstanding(outstanding);
    Workload::new(
        target.read_pct,
        target.random_pct,
        operating_point(target, mb).1,
        depth,
        threads,
    )
}

/// Threads x depth for a number of outstanding IOs: at most 32 per thread (a common
/// per-submitter depth), the product at least `outstanding` (and what is run: see
/// [`crate::QueueDepths`]). A product split again gives the same threads and depth.
pub(crate) fn split_outstanding(outstanding: u32) -> (u32, u32) {
    let outstanding = outstanding.max(1);
    let threads = outstanding.div_ceil(32);
    (threads, outstanding.div_ceil(threads))
}

/// Target IOPS of a volume: enough for both its IOPS and its MB/s at its IO size.
pub(crate) fn target_iops(target: &SizingTarget, mb: f64) -> f64 {
    operating_point(target, mb).0
}

/// The single operating point that meets both the IOPS and the MB/s of a target: see
/// [`SizingTarget::operating_point`], which holds the rule so that renderers can use it too.
pub fn operating_point(target: &SizingTarget, mb: f64) -> (f64, Bytes) {
    target.operating_point(mb)
}
