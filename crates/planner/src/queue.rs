//! Queue depth by Little's law: what a volume runs at and where its disks reach their limits.

use crate::disk_rules::fmt_num;
use crate::disk_rules::VolumeOption;
use crate::operating::split_outstanding;
use iofit_model::formulas::outstanding_ios;
use iofit_model::units::{Iops, MBps};
use iofit_predict::{LimitKind, LimitStatus, Prediction};

/// The outstanding IOs a volume runs at, and those at which its disks reach their limits: the
/// one queue-depth rule `plan` and `predict --requirements` share, so that a design predicted
/// from the same requirements gives the same answer. Each depth is threads x per-thread depth
/// exactly (what a load generator runs), never a count that does not split evenly.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueDepths {
    /// Little's law at the service time: the target IOPS x the service time, rounded up.
    pub littles_law: u32,
    /// What the volume runs at: Little's law, at least one per stripe member, rounded up to
    /// `threads x depth`.
    pub outstanding: u32,
    pub threads: u32,
    pub depth: u32,
    /// Outstanding IOs per disk that reach one disk's IOPS limit at the service time.
    pub per_disk: u32,
    /// Where the disks reach their limits (`per_disk x disks`, at least `outstanding`),
    /// rounded up to `limit_threads x limit_depth`: the depth the plan checks a design at, so
    /// the headroom shown is the hardware's, not the queue's.
    pub to_limits: u32,
    pub limit_threads: u32,
    pub limit_depth: u32,
}

/// The queue depths of a volume that must carry `wanted_iops` on `disk_count` disks of
/// `disk_iops` each, at `service_ms` per IO (see [`QueueDepths`]).
pub fn queue_depths(
    wanted_iops: f64,
    service_ms: f64,
    disk_iops: f64,
    disk_count: u32,
) -> QueueDepths {
    let littles_law = (outstanding_ios(wanted_iops, service_ms) - 1e-9)
        .ceil()
        .max(1.0) as u32;
    let (threads, depth) = split_outstanding(littles_law.max(disk_count));
    let outstanding = threads * depth;
    let per_disk = outstanding_ios(disk_iops, service_ms).ceil().max(1.0) as u32;
    let (limit_threads, limit_depth) =
        split_outstanding(per_disk.saturating_mul(disk_count).max(outstanding));
    QueueDepths {
        littles_law,
        outstanding,
        threads,
        depth,
        per_disk,
        to_limits: limit_threads * limit_depth,
        limit_threads,
        limit_depth,
    }
}

/// The outstanding IOs a volume runs at ([`queue_depths`]) and why, in words.
pub(crate) struct QueuePlan {
    pub(crate) outstanding: u32,
    pub(crate) threads: u32,
    pub(crate) depth: u32,
    pub(crate) to_limits: u32,
    pub(crate) reason: String,
}

/// Little's law at the service time, at least one IO per stripe member; deeper queues let the
/// volume run up to its disks' limits, and the check uses that depth so the headroom shown is
/// the hardware's, not the queue's.
pub(crate) fn queue_plan(wanted: f64, service_ms: f64, option: &VolumeOption) -> QueuePlan {
    let q = queue_depths(wanted, service_ms, option.disk.iops.get(), option.count);
    let raised = if q.littles_law.max(option.count) > q.littles_law {
        format!(
            ", raised to {} so each of the {} members has work",
            option.count, option.count
        )
    } else {
        String::new()
    };
    let split = if q.outstanding > q.littles_law.max(option.count) {
        format!(
            ", rounded up to {} thread(s) x {} = {}",
            q.threads, q.depth, q.outstanding
        )
    } else {
        String::new()
    };
    let reason = format!(
        "{} IOPS x {} ms = {} outstanding (Little's law){raised}{split}; up to {} ({} per \
         disk x {} disks{}) reaches the disks' limits",
        fmt_num(wanted),
        service_ms,
        q.littles_law,
        q.to_limits,
        q.per_disk,
        option.count,
        if q.to_limits > q.per_disk.saturating_mul(option.count) {
            format!(", as {} thread(s) x {}", q.limit_threads, q.limit_depth)
        } else {
            String::new()
        },
    );
    QueuePlan {
        outstanding: q.outstanding,
        threads: q.threads,
        depth: q.depth,
        to_limits: q.to_limits,
        reason,
    }
}

/// Why a prediction does not fit, in words, with the limit that rules it out.
pub(crate) fn failure_reason(prediction: &Prediction) -> (Option<LimitKind>, String) {
    // A yes/no check (slots, premium storage, caching support) rules a design out first.
    let hard = prediction.limits.iter().find(|c| {
        c.status == LimitStatus::Over && !matches!(c.kind, LimitKind::Capacity | LimitKind::Latency)
    });
    if let (Some(check), Some(violation)) = (hard, prediction.violations.first()) {
        return (Some(check.kind), violation.to_string());
    }
    // Then a rate: the throttle is the cause, a missed latency its symptom.
    for volume in &prediction.volumes {
        let target = volume.target_iops.map_or(0.0, Iops::get);
        let by_mb = volume.target_throughput_mb_s.map_or(0.0, MBps::get);
        let short = volume.iops.get() < target * (1.0 - 1e-9)
            || volume.throughput_mb_s.get() < by_mb * (1.0 - 1e-9);
        if short {
            if let Some(binding) = prediction.binding.as_ref() {
                return (
                    Some(binding.kind),
                    format!(
                        "volume '{}' misses its target ({} IOPS, {} MB/s delivered): {}",
                        volume.label,
                        fmt_num(volume.iops.get()),
                        fmt_num(volume.throughput_mb_s.get()),
                        binding.words
                    ),
                );
            }
        }
    }
    if let Some(check) = prediction
        .limits
        .iter()
        .find(|c| c.status == LimitStatus::Over)
    {
        let reason = prediction
            .violations
            .iter()
            .find(|v| v.volume() == Some(check.scope.as_str()))
            .map(ToString::to_string)
            .unwrap_or_else(|| check.name.clone());
        return (Some(check.kind), reason);
    }
    (None, "does not fit".into())
}
