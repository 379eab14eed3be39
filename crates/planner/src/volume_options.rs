//! The ways to build one volume on one VM (disk SKU x count, or a provisioned disk), each
//! with its caching, stripe and queue depth.

use crate::disk_rules::choose_caching;
use crate::disk_rules::choose_stripe;
use crate::disk_rules::operations_note;
use crate::disk_rules::operations_per_io;
use crate::disk_rules::operations_price;
use crate::disk_rules::performance_note;
use crate::disk_rules::rank_cost;
use crate::disk_rules::size_provisioned;
use crate::disk_rules::CachingReason;
use crate::disk_rules::VolumeOption;
use crate::headroom::slots_allowed;
use crate::operating::operating_point;
use crate::operating::target_iops;
use crate::operating::workload_of;
use crate::queue::queue_plan;
use crate::types::CatalogRows;
use crate::types::PlanOptions;
use crate::types::PlannedVolume;
use iofit_catalog::{DiskSku, ProvisionedDiskType, VmSize};
use iofit_model::units::{Bytes, GiB, Iops, MBps};
use iofit_model::{HostCaching, Requirements, SizingTarget, VolumeDesign, VolumeRole};
use iofit_predict::{DiskPerf, VolumeLoad};

/// What one volume asks of its disks, derived once from its target and the plan's options.
pub(crate) struct VolumeNeed {
    /// Target IOPS at the operating point.
    pub(crate) wanted: f64,
    /// The target MB/s over the operating point's IO size, IOPS.
    pub(crate) wanted_by_mb: f64,
    /// Mean IO size at the operating point, bytes.
    pub(crate) size: f64,
    pub(crate) stripe: Bytes,
    /// Disk IOs per volume IO when striped.
    pub(crate) split: f64,
    pub(crate) read: f64,
    pub(crate) hit: f64,
    pub(crate) capacity_gib: GiB,
    /// Share of each sized limit a design may use (1 - headroom).
    pub(crate) room: f64,
    pub(crate) slots: u32,
    pub(crate) mb: f64,
    pub(crate) seconds_busy: f64,
}

impl VolumeNeed {
    pub(crate) fn of(vm: &VmSize, target: &SizingTarget, options: &PlanOptions) -> VolumeNeed {
        let mb = options.assumptions.mb.bytes_per_mb();
        let (stripe, _) = choose_stripe(target);
        let size = operating_point(target, mb).1.as_f64();
        VolumeNeed {
            wanted: target_iops(target, mb),
            wanted_by_mb: target.throughput_mb_s.get() * mb / size,
            size,
            stripe,
            split: (size / stripe.as_f64()).ceil().max(1.0),
            read: target.read_pct / 100.0,
            hit: options.assumptions.cache_hit_pct / 100.0,
            capacity_gib: target.capacity_gib.unwrap_or_default(),
            // Every sized limit keeps the headroom asked: a disk counts for `room` of its limit.
            room: 1.0 - options.min_headroom_pct / 100.0,
            slots: slots_allowed(vm, options.min_headroom_pct),
            mb,
            seconds_busy: 3600.0 * options.busy_hours_per_month,
        }
    }
}

/// The disk options for one volume on one VM, cheapest first (priced before unpriced).
pub(crate) fn volume_options(
    vm: &VmSize,
    volume: &iofit_model::VolumeRequirements,
    rows: &CatalogRows,
    options: &PlanOptions,
) -> Vec<VolumeOption> {
    let need = VolumeNeed::of(vm, &volume.sizing, options);
    let (policy, _) = choose_caching(volume.role, &volume.sizing, options.caching);
    let vm_cache_published = vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some();
    let caching_for = |supports: bool| -> (HostCaching, CachingReason) {
        if !policy.is_cached() {
            (policy, CachingReason::Policy)
        } else if !supports {
            (HostCaching::None, CachingReason::Unsupported)
        } else if !vm_cache_published && options.caching.is_none() {
            (HostCaching::None, CachingReason::CachedLimitsUnpublished)
        } else {
            (policy, CachingReason::Policy)
        }
    };
    let mut out = Vec::new();
    for sku in &rows.disks {
        if (sku.kind.needs_premium_vm() && !vm.premium_storage)
            || !may_hold_role(sku.kind, volume.role)
        {
            continue;
        }
        let (policy_caching, policy_reason) = caching_for(sku.kind.supports_host_caching());
        // Fallback when the VM's cached limits are too low for the volume: the uncached
        // limits may carry it. Tried after the cached variant at the same price.
        let fallback = (policy_caching.is_cached() && options.caching.is_none())
            .then_some((HostCaching::None, CachingReason::UncachedFallback));
        for (caching, reason) in std::iter::once((policy_caching, policy_reason)).chain(fallback) {
            out.extend(sku_option(&need, sku, caching, reason));
        }
    }
    if vm.premium_storage {
        for disk_type in &rows.provisioned {
            if !may_hold_role(disk_type.kind, volume.role) {
                continue;
            }
            let (caching, reason) = caching_for(false);
            out.extend(provisioned_option(&need, disk_type, caching, reason));
        }
    }
    // A VM has exactly one OS disk: an OS volume is never striped.
    if volume.role == VolumeRole::Os {
        out.retain(|option| option.count == 1);
    }
    // Fully priced (disks + operations) first, cheapest first; then those whose operations
    // charge is not sourced; then unpriced, less capacity bought first (a proxy, not a price).
    out.sort_by(|a, b| {
        rank_cost(a)
            .cmp(&rank_cost(b))
            .then(a.count.cmp(&b.count))
            .then(a.disk.name.cmp(&b.disk.name))
    });
    out
}

/// Where Azure's disk documentation says each limitation (the OS-disk rule below).
pub const OS_DISK_SOURCE: &str = "Azure docs 'Deploy a Premium SSD v2' (learn.microsoft.com/azure/\
     virtual-machines/disks-deploy-premium-v2, Limitations: \"Premium SSD v2 disks can't be used \
     as an OS disk.\") and 'Using Azure Ultra Disks' (learn.microsoft.com/azure/virtual-machines/\
     disks-enable-ultra-ssd, GA scope and limitations: \"Ultra Disks can't be used as an OS \
     disk.\")";

/// Whether a disk of `kind` may carry a volume of `role`: Azure allows neither Premium SSD v2
/// nor Ultra Disk as an OS disk ([`OS_DISK_SOURCE`]), so an OS volume is never planned on them.
pub fn may_hold_role(kind: iofit_catalog::DiskKind, role: VolumeRole) -> bool {
    role != VolumeRole::Os || kind.may_be_os_disk()
}

/// A fixed-size SKU for the volume with this caching: the count its IOPS, MB/s and capacity
/// need (with the headroom), its price and operations charge; `None` over the slots.
pub(crate) fn sku_option(
    need: &VolumeNeed,
    sku: &DiskSku,
    caching: HostCaching,
    reason: CachingReason,
) -> Option<VolumeOption> {
    let VolumeNeed {
        wanted,
        size,
        split,
        read,
        room,
        mb,
        ..
    } = *need;
    let miss = if caching.is_cached() {
        1.0 - need.hit
    } else {
        1.0
    };
    let disk_ios = wanted * (read * miss * split + (1.0 - read) * split);
    let disk_mb = wanted * size * (read * miss + (1.0 - read)) / mb;
    let by_iops = (disk_ios / (sku.iops.0 * room) - 1e-9).ceil();
    let by_mb = (disk_mb / (sku.throughput_mb_s.0 * room) - 1e-9).ceil();
    let by_size = (need.capacity_gib / sku.size_gib - 1e-9).ceil();
    let count = by_iops.max(by_mb).max(by_size).max(1.0);
    if !count.is_finite() || count > need.slots as f64 {
        return None;
    }
    let count = count as u32;
    let disk = DiskPerf::from(sku);
    let (operations_per_month, operations_price) = if sku.kind.bills_operations() {
        // IOs reaching the disks (reads the cache serves do not), each counted as the
        // operations its stripe pieces bill.
        let (pieces, piece) = if count > 1 {
            (split, size.min(need.stripe.as_f64()))
        } else {
            (1.0, size)
        };
        let per_io = operations_per_io(&disk, pieces, piece);
        let per_month = wanted * (read * miss + (1.0 - read)) * per_io * need.seconds_busy;
        (Some(per_month), operations_price(&disk, per_month))
    } else {
        (None, Some(0.0))
    };
    Some(VolumeOption {
        disk,
        count,
        caching,
        caching_reason: reason,
        provisioned: None,
        price: sku.price_usd_month.map(|p| p * count as f64),
        operations_per_month,
        operations_price,
    })
}

/// A provisioned disk type (Premium SSD v2, Ultra) sized for the volume with the headroom.
pub(crate) fn provisioned_option(
    need: &VolumeNeed,
    disk_type: &ProvisionedDiskType,
    caching: HostCaching,
    reason: CachingReason,
) -> Option<VolumeOption> {
    // The IOPS the check runs at is the larger of the IOPS asked and the MB/s asked over the
    // IO size (they differ by rounding when the two figures were measured apart): buy for it,
    // or a disk bought exactly at the headroom fails the check by a hair.
    let wanted = need.wanted.max(need.wanted_by_mb);
    let disk_ios = wanted * need.split;
    let disk_mb = wanted * need.size / need.mb;
    // Provisioned disks are bought with the headroom: the need divided by `room`.
    let (count, disk) = size_provisioned(
        disk_type,
        disk_ios / need.room,
        disk_mb / need.room,
        need.capacity_gib,
        need.slots,
    )?;
    let price = disk.price_usd_month.map(|p| p * count as f64);
    Some(VolumeOption {
        provisioned: Some((disk.iops.get(), disk.throughput_mb_s.get())),
        disk,
        count,
        caching,
        caching_reason: reason,
        price,
        operations_per_month: None,
        operations_price: Some(0.0),
    })
}

/// Builds the loads predict checks for one combination of volume options.
pub(crate) fn build_loads(
    vm: &VmSize,
    requirements: &Requirements,
    chosen: &[&VolumeOption],
    options: &PlanOptions,
) -> Vec<(VolumeLoad, PlannedVolume)> {
    requirements
        .volumes
        .iter()
        .zip(chosen)
        .map(|(volume, option)| plan_volume(vm, volume, option, options))
        .collect()
}

/// One volume of a combination: its design, its queue depth, the load predict checks, and the
/// planned volume with the reasons for each choice.
pub(crate) fn plan_volume(
    vm: &VmSize,
    volume: &iofit_model::VolumeRequirements,
    option: &VolumeOption,
    options: &PlanOptions,
) -> (VolumeLoad, PlannedVolume) {
    let mb = options.assumptions.mb.bytes_per_mb();
    let target = &volume.sizing;
    let mut design = VolumeDesign::new(
        volume.label.clone(),
        option.disk.name.clone(),
        option.count,
        option.caching,
    );
    let (stripe, stripe_reason) = choose_stripe(target);
    if option.count > 1 {
        design.stripe_size = Some(stripe);
    }
    if let Some((iops, mb_s)) = option.provisioned {
        design.provisioned_size_gib = Some(option.disk.size_gib);
        design.provisioned_iops = Some(iofit_model::Iops(iops));
        design.provisioned_throughput_mb_s = Some(iofit_model::MBps(mb_s));
    }
    let service_ms = options
        .assumptions
        .service_latency_ms_for(option.disk.kind, target.read_pct)
        .get();
    let queue = queue_plan(target_iops(target, mb), service_ms, option);
    let load = VolumeLoad {
        design: design.clone(),
        disk: option.disk.clone(),
        workload: workload_of(target, queue.to_limits, mb),
        target: Some(target.clone()),
    };
    let planned = PlannedVolume {
        label: volume.label.clone(),
        disk: option.disk.clone(),
        role: volume.role,
        disk_sku: option.disk.name.clone(),
        disk_table: option.disk.table.clone(),
        disk_count: option.count,
        disk_size_gib: option.disk.size_gib,
        caching: option.caching,
        caching_reason: option.caching_reason.words(vm, volume, options),
        stripe_size_bytes: (option.count > 1).then_some(stripe),
        stripe_reason: (option.count > 1).then_some(stripe_reason),
        queue_depth_total: queue.outstanding,
        threads: queue.threads,
        queue_depth_per_thread: queue.depth,
        queue_depth_reason: queue.reason,
        queue_depth_to_reach_limits: queue.to_limits,
        provisioned_iops: option.provisioned.map(|p| Iops(p.0)),
        provisioned_throughput_mb_s: option.provisioned.map(|p| MBps(p.1)),
        price_per_disk_usd_month: option.disk.price_usd_month,
        price_usd_month: option.price,
        operations_per_month: option.operations_per_month,
        operations_usd_month: option.operations_price,
        operations_note: option.operations_per_month.and_then(|per_month| {
            operations_note(&option.disk, per_month, options.busy_hours_per_month)
        }),
        performance_note: performance_note(&option.disk, target),
    };
    (load, planned)
}
