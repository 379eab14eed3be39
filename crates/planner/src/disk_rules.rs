//! The method's rules for one volume's disks: host caching, stripe size, operating point,
//! per-operation prices and a provisioned disk's size.

use crate::search::RankCost;
use crate::types::PlanOptions;
use iofit_catalog::{ProvisionedDiskType, VmSize};
use iofit_model::units::{group_thousands, Bytes, GiB};
use iofit_model::{HostCaching, SizingTarget, VolumeRole};
use iofit_predict::{provisioned_iops_max, provisioned_throughput_max, DiskPerf};

/// One way to build one volume on one VM.
#[derive(Clone, Debug)]
pub(crate) struct VolumeOption {
    pub(crate) disk: DiskPerf,
    pub(crate) count: u32,
    pub(crate) caching: HostCaching,
    pub(crate) caching_reason: CachingReason,
    pub(crate) provisioned: Option<(f64, f64)>,
    pub(crate) price: Option<f64>,
    /// Billable operations a month (kinds that bill them).
    pub(crate) operations_per_month: Option<f64>,
    pub(crate) operations_price: Option<f64>,
}

/// Why a volume option has its host caching. Words are written only for the options a plan
/// shows (the search forms many more than it keeps).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum CachingReason {
    /// The method's rule ([`choose_caching`]).
    Policy,
    /// The disk type does not support host caching.
    Unsupported,
    /// The VM's cached limits are not published, so a cached volume could not be checked.
    CachedLimitsUnpublished,
    /// The cached variant's fallback: the cached limits cannot carry the volume.
    UncachedFallback,
}

impl CachingReason {
    pub(crate) fn words(
        self,
        vm: &VmSize,
        volume: &iofit_model::VolumeRequirements,
        options: &PlanOptions,
    ) -> String {
        match self {
            CachingReason::Policy => choose_caching(volume.role, &volume.sizing, options.caching).1,
            CachingReason::Unsupported => {
                "None: this disk type does not support host caching".into()
            }
            CachingReason::CachedLimitsUnpublished => format!(
                "None: {}'s cached limits are not published, so a cached volume could not be \
                 checked",
                vm.name
            ),
            CachingReason::UncachedFallback => format!(
                "None: the method would use ReadOnly ({}% reads), but {}'s cached limits cannot \
                 carry this volume; its uncached limits can",
                fmt_num(volume.sizing.read_pct),
                vm.name
            ),
        }
    }
}

/// The ranking cost of one volume option (see [`RankCost`]).
pub(crate) fn rank_cost(option: &VolumeOption) -> RankCost {
    match (option.price, option.operations_price) {
        (Some(price), Some(ops)) => RankCost {
            tier: 0,
            value: price + ops,
        },
        (Some(price), None) => RankCost {
            tier: 1,
            value: price,
        },
        (None, _) => RankCost {
            tier: 2,
            value: option.count as f64 * option.disk.size_gib.get(),
        },
    }
}

/// Billable operations per volume IO on a disk that bills them: each piece an IO becomes on
/// the stripe counts as one operation, or as several when larger than the billing unit.
pub(crate) fn operations_per_io(disk: &DiskPerf, pieces: f64, piece_bytes: f64) -> f64 {
    let per_piece = match disk.operation_unit_kib {
        Some(unit) if unit.get() > 0 => (piece_bytes / unit.as_f64().to_bytes_f64() - 1e-9)
            .ceil()
            .max(1.0),
        _ => 1.0,
    };
    pieces * per_piece
}

/// The monthly operations charge of `operations_per_month` on `disk`: `Some(0)` for kinds that
/// bill no operations, `None` when the kind bills them and the price is not sourced.
pub(crate) fn operations_price(disk: &DiskPerf, operations_per_month: f64) -> Option<f64> {
    if !disk.kind.bills_operations() {
        return Some(0.0);
    }
    disk.price_usd_per_10k_operations
        .map(|rate| operations_per_month / 1e4 * rate)
}

/// How [`operations_price`] was computed, or why it is missing; `None` for kinds that bill no
/// operations.
pub(crate) fn operations_note(
    disk: &DiskPerf,
    operations_per_month: f64,
    busy_hours: f64,
) -> Option<String> {
    if !disk.kind.bills_operations() {
        return None;
    }
    let unit = match disk.operation_unit_kib {
        Some(unit) => format!("IOs over {} KiB count as several", unit.get()),
        None => "every IO counts once".to_string(),
    };
    match disk.price_usd_per_10k_operations {
        Some(rate) => {
            let charge = operations_per_month / 1e4 * rate;
            let cap = if disk.kind == iofit_catalog::DiskKind::StandardSsd {
                "; Azure caps billable Standard SSD operations per disk per hour, the cap is \
                 not sourced, so this is an upper bound"
            } else {
                ""
            };
            Some(format!(
                "{} operations/month ({unit}; {} h/month at the sized IOPS) x ${rate} per \
                 10,000 = ${charge:.2}{cap}",
                fmt_num(operations_per_month.round()),
                fmt_num(busy_hours),
            ))
        }
        None => Some(format!(
            "operations charge not sourced: {} bills disk operations per 10,000 ({} \
             operations/month at the sized IOPS), but the catalog has no price for them; the \
             cost is incomplete",
            disk.name,
            fmt_num(operations_per_month.round())
        )),
    }
}

/// Azure's wording for "up to" performance when a volume with an IOPS or latency target uses
/// Standard SSD or Standard HDD.
pub(crate) fn performance_note(disk: &DiskPerf, target: &SizingTarget) -> Option<String> {
    if target.iops.get() <= 0.0 && target.latency_ms.is_none() {
        return None;
    }
    match disk.kind {
        iofit_catalog::DiskKind::StandardSsd => Some(format!(
            "Standard SSD performance is 'up to', not provisioned: \"{}\" ({})",
            iofit_predict::STANDARD_SSD_WORDING,
            iofit_predict::DISKS_TYPES_SOURCE
        )),
        iofit_catalog::DiskKind::StandardHdd => Some(format!(
            "Standard HDD performance is 'up to', not provisioned: \"{}\" ({})",
            iofit_predict::STANDARD_HDD_WORDING,
            iofit_predict::DISKS_TYPES_SOURCE
        )),
        _ => None,
    }
}

pub(crate) fn fmt_num(value: f64) -> String {
    group_thousands(value)
}

/// Host caching by the method's rules.
pub fn choose_caching(
    role: VolumeRole,
    target: &SizingTarget,
    forced: Option<HostCaching>,
) -> (HostCaching, String) {
    if let Some(caching) = forced {
        return (caching, format!("{caching}: asked for"));
    }
    match role {
        VolumeRole::Log => (
            HostCaching::None,
            "None: a log is written sequentially; caching does not help writes".into(),
        ),
        _ if target.read_pct > 50.0 => (
            HostCaching::ReadOnly,
            format!(
                "ReadOnly: {}% reads; cached reads have low latency and spare the disks",
                fmt_num(target.read_pct)
            ),
        ),
        _ => (
            HostCaching::None,
            format!(
                "None: write-heavy ({}% writes); the cache does not help writes",
                fmt_num(100.0 - target.read_pct)
            ),
        ),
    }
}

/// Stripe unit by the method's rule: small for small random IO, large for sequential.
pub fn choose_stripe(target: &SizingTarget) -> (Bytes, String) {
    if target.random_pct >= 50.0 && target.io_size_bytes <= Bytes::kib(64) {
        (
            Bytes::kib(64),
            "64 KiB: small random IO (the seed's OLTP value)".into(),
        )
    } else {
        (
            Bytes::kib(256),
            "256 KiB: large or sequential IO (the seed's data-warehouse value)".into(),
        )
    }
}

/// Sizes a provisioned disk type for one volume: the fewest disks, each with the smallest size,
/// IOPS and MB/s the type's rules allow for the need. `None` when it cannot.
pub(crate) fn size_provisioned(
    disk_type: &ProvisionedDiskType,
    iops: f64,
    throughput_mb_s: f64,
    capacity_gib: GiB,
    max_disks: u32,
) -> Option<(u32, DiskPerf)> {
    let by_iops = (iops / disk_type.iops_max.0 - 1e-9).ceil();
    let by_mb = (throughput_mb_s / disk_type.throughput_mb_s_max.0 - 1e-9).ceil();
    let by_size = (capacity_gib / disk_type.size_gib_max - 1e-9).ceil();
    let count = by_iops.max(by_mb).max(by_size).max(1.0) as u32;
    if count > max_disks {
        return None;
    }
    let n = count as f64;
    let (iops_each, mb_each, cap_each) = (iops / n, throughput_mb_s / n, capacity_gib / n);
    // MB/s per IOPS rule: buy IOPS enough for the MB/s, never less than the baseline.
    let mut iops_buy = iops_each
        .max(disk_type.iops_baseline.0)
        .max(if disk_type.throughput_mb_s_per_iops_max > 0.0 {
            mb_each / disk_type.throughput_mb_s_per_iops_max
        } else {
            0.0
        })
        .ceil();
    if mb_each <= disk_type.throughput_mb_s_baseline.0 {
        iops_buy = iops_each.max(disk_type.iops_baseline.0).ceil();
    }
    iops_buy = iops_buy.min(disk_type.iops_max.0);
    let size_for_iops = if iops_buy > disk_type.iops_baseline.0 && disk_type.iops_per_gib_max > 0.0
    {
        iops_buy / disk_type.iops_per_gib_max
    } else {
        0.0
    };
    let size = cap_each
        .max(GiB(size_for_iops))
        .max(disk_type.size_gib_min)
        .ceil()
        .min(disk_type.size_gib_max);
    let iops_buy = iops_buy.min(provisioned_iops_max(disk_type, size));
    let mb_buy = mb_each
        .max(disk_type.throughput_mb_s_baseline.0)
        .ceil()
        .min(provisioned_throughput_max(disk_type, iops_buy));
    let disk = DiskPerf::from_provisioned(disk_type, size, iops_buy, mb_buy).ok()?;
    if disk.iops.get() * n < iops * (1.0 - 1e-9)
        || disk.throughput_mb_s.get() * n < throughput_mb_s * (1.0 - 1e-9)
    {
        return None;
    }
    Some((count, disk))
}
