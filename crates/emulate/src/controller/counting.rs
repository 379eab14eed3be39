//! Counting in the kernel's and Azure's terms: caps as whole requests and bytes per second,
//! bucket caps per tick, and what passed the throttle in Azure IO units ([`passed`]).

use crate::bucket::BurstBucket;

pub(super) fn cap_of(bucket: &Option<BurstBucket>, baseline: f64, tick_s: f64) -> f64 {
    bucket.as_ref().map_or(baseline, |b| b.cap_per_s(tick_s))
}

/// Kernel requests per second for `azure_iops` Azure IO units at `units` per request.
/// Rounded down, so that caps that add up to a limit never pass it.
pub(super) fn requests(azure_iops: f64, units: f64) -> u64 {
    (azure_iops / units.max(1.0)).floor().max(1.0) as u64
}

pub(super) fn bytes_s(mb_s: f64) -> u64 {
    (mb_s * 1e6).floor().max(1.0) as u64
}

/// What passed the throttle in one direction in one tick, in Azure IO units and bytes, from
/// what was submitted `(requests, bytes)` and the modelled byte queue `(before, after)`.
/// `per` is the size of the requests submitted now (updated from this tick), `backlog_per`
/// the size of the ones in the queue (updated as requests join it). The queue lets its oldest
/// bytes out first, at the size they were submitted with: the 64 MiB a file layout queued in
/// 1 MiB writes, let out in the tick its 4 KiB IO started, is 4 units per MiB, not 256 requests
/// of 4 KiB. Counted as the latter, one tick looked 40,000 IOPS, the feedback gain cut the
/// caps to 83 % for seconds, and 4k randwrite ran 13-19 % under predict (issue 30).
pub(super) fn passed(
    (ios, submitted): (f64, f64),
    (before, after): (f64, f64),
    (per, backlog_per): (&mut f64, &mut f64),
    unit: fn(f64) -> f64,
) -> (f64, f64) {
    if ios > 0.0 && submitted > 0.0 {
        *per = submitted / ios;
    }
    let out = (submitted + before - after).max(0.0);
    let from_backlog = out.min(before);
    let fresh = out - from_backlog;
    let units = |bytes: f64, size: f64| bytes / size.max(1.0) * unit(size);
    let passed_units = units(from_backlog, *backlog_per) + units(fresh, *per);
    // The queue now: what is left of the old backlog, then what joined it this tick.
    let left = before - from_backlog;
    let joined = (submitted - fresh).max(0.0);
    let requests = left / backlog_per.max(1.0) + joined / per.max(1.0);
    if after > 0.0 && requests > 0.0 {
        *backlog_per = (left + joined) / requests;
    }
    (passed_units, out)
}
