//! What a plan says around its designs: totals, notes, and when nothing fits, which limits no
//! catalog row reaches.

use crate::disk_rules::fmt_num;
use crate::impossible_reason::{ImpossibleReason, VmRate};
use crate::operating::operating_point;
use crate::operating::target_iops;
use crate::plan_note::PlanNote;
use crate::types::CatalogRows;
use crate::types::PlanOptions;
use crate::types::PlannedVolume;
use crate::types::Rejected;
use crate::types::RequirementTotals;
use iofit_catalog::VmSize;
use iofit_model::units::{GiB, Iops, MBps};
use iofit_model::Requirements;
use iofit_predict::{LimitKind, VolumeLoad};

/// Totals the VM must carry.
pub(crate) fn requirement_totals(requirements: &Requirements, mb: f64) -> RequirementTotals {
    RequirementTotals {
        volumes: requirements.volumes.len(),
        iops: Iops(requirements.total_iops()),
        throughput_mb_s: MBps(
            requirements
                .volumes
                .iter()
                .map(|v| {
                    v.sizing
                        .throughput_mb_s
                        .get()
                        .max(v.sizing.iops.get() * v.sizing.io_size_bytes.as_f64() / mb)
                })
                .sum(),
        ),
        capacity_gib: requirements
            .volumes
            .iter()
            .filter_map(|v| v.sizing.capacity_gib)
            .sum(),
        growth_factor: requirements.growth_factor,
    }
}

/// The assumptions the plan was made under.
pub(crate) fn plan_notes(requirements: &Requirements, options: &PlanOptions) -> Vec<PlanNote> {
    let mut notes = PlanNote::assumptions(
        &options.assumptions,
        options.min_headroom_pct,
        options.busy_hours_per_month,
    );
    if requirements.growth_factor != 1.0 {
        notes.push(PlanNote::Growth {
            factor: requirements.growth_factor,
        });
    }
    notes
}

/// A VM whose uncached and cached limits together cannot carry the total IOPS or MB/s, whatever
/// the disks: ruled out before any disk is chosen. Unpublished limits never rule out.
pub(crate) fn vm_total_shortfall(
    vm: &VmSize,
    requirements: &Requirements,
    mb: f64,
    min_headroom_pct: f64,
) -> Option<(LimitKind, String)> {
    let room = 1.0 - min_headroom_pct / 100.0;
    let kept = if min_headroom_pct > 0.0 {
        format!(", {}% headroom kept", fmt_num(min_headroom_pct))
    } else {
        String::new()
    };
    let (iops, bytes) = requirements
        .volumes
        .iter()
        .map(|v| {
            let (iops, size) = operating_point(&v.sizing, mb);
            (iops, iops * size.as_f64())
        })
        .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
    let iops_most = vm.uncached_iops?.0 + vm.cached_iops.map_or(0.0, |c| c.0);
    if iops > iops_most * room * (1.0 + 1e-9) {
        return Some((
            LimitKind::VmUncachedIops,
            format!(
                "the volumes need {} IOPS in total; {} allows {} (uncached and cached \
                 together{kept})",
                fmt_num(iops),
                vm.name,
                fmt_num(iops_most)
            ),
        ));
    }
    let mb_most = vm.uncached_throughput_mb_s?.0 + vm.cached_throughput_mb_s.map_or(0.0, |c| c.0);
    if bytes / mb > mb_most * room * (1.0 + 1e-9) {
        return Some((
            LimitKind::VmUncachedThroughput,
            format!(
                "the volumes need {} MB/s in total; {} allows {} MB/s (uncached and cached \
                 together{kept})",
                fmt_num(bytes / mb),
                vm.name,
                fmt_num(mb_most)
            ),
        ));
    }
    None
}

/// `Standard_DS13 + data 4 x P30 (ReadOnly) + log 1 x P10 (None)`.
pub(crate) fn describe(vm: &VmSize, pairs: &[(VolumeLoad, PlannedVolume)]) -> String {
    let mut text = vm.name.clone();
    for (_, v) in pairs {
        text.push_str(&format!(
            " + {} {} x {} ({})",
            v.label, v.disk_count, v.disk_sku, v.caching
        ));
    }
    text
}

/// vCPU / memory the host metrics ask for and the VM lacks.
pub(crate) fn host_shortfall(vm: &VmSize, requirements: &Requirements) -> Option<String> {
    if let Some(vcpu) = requirements.host.vcpu_min {
        if vm.vcpu < vcpu {
            return Some(format!("{} has {} vCPU, {vcpu} needed", vm.name, vm.vcpu));
        }
    }
    if let Some(memory) = requirements.host.memory_gib_min {
        if vm.memory_gib < memory {
            return Some(format!(
                "{} has {} GiB memory, {} needed",
                vm.name,
                fmt_num(vm.memory_gib.get()),
                fmt_num(memory.get())
            ));
        }
    }
    None
}

/// Which limits no row of the catalog reaches, in words.
pub(crate) fn impossible_reasons(
    requirements: &Requirements,
    rows: &CatalogRows,
    rejected: &[Rejected],
    options: &PlanOptions,
) -> Vec<ImpossibleReason> {
    let mut reasons = Vec::new();
    vm_total_reasons(requirements, rows, options, &mut reasons);
    latency_reasons(requirements, options, &mut reasons);
    capacity_reason(requirements, rows, &mut reasons);
    if rows.disks.is_empty() && rows.provisioned.is_empty() {
        reasons.push(ImpossibleReason::NoDisks);
    }
    if options.min_headroom_pct > 0.0 && !reasons.is_empty() {
        reasons.push(ImpossibleReason::HeadroomKept {
            min_headroom_pct: options.min_headroom_pct,
        });
    }
    if reasons.is_empty() {
        reasons.extend(commonest_rejection(rows, rejected));
    }
    reasons
}

/// Totals above what the largest VM of the catalog allows (IOPS, MB/s).
pub(crate) fn vm_total_reasons(
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    reasons: &mut Vec<ImpossibleReason>,
) {
    let mb = options.assumptions.mb.bytes_per_mb();
    let total_iops: f64 = requirements
        .volumes
        .iter()
        .map(|v| target_iops(&v.sizing, mb))
        .sum();
    let total_mb: f64 = requirements
        .volumes
        .iter()
        .map(|v| {
            let (iops, size) = operating_point(&v.sizing, mb);
            iops * size.as_f64() / mb
        })
        .sum();
    let best = |value: &dyn Fn(&VmSize) -> Option<f64>| -> Option<(String, f64)> {
        rows.vms
            .iter()
            .filter_map(|vm| value(vm).map(|x| (vm.name.clone(), x)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    };
    type VmValue = Box<dyn Fn(&VmSize) -> Option<f64>>;
    let vm_checks: [(VmRate, f64, VmValue); 2] = [
        (
            VmRate::UncachedIops,
            total_iops,
            Box::new(|vm: &VmSize| {
                Some(
                    vm.uncached_iops?
                        .0
                        .max(vm.cached_iops.map(|c| c.0).unwrap_or(0.0)),
                )
            }),
        ),
        (
            VmRate::UncachedThroughputMbS,
            total_mb,
            Box::new(|vm: &VmSize| {
                Some(
                    vm.uncached_throughput_mb_s?
                        .0
                        .max(vm.cached_throughput_mb_s.map(|c| c.0).unwrap_or(0.0)),
                )
            }),
        ),
    ];
    for (rate, needed, value) in &vm_checks {
        if let Some((name, most)) = best(value.as_ref()) {
            if most < needed * (1.0 - 1e-9) {
                reasons.push(ImpossibleReason::VmTotal {
                    rate: *rate,
                    needed: *needed,
                    largest_vm: name,
                    allows: most,
                });
            }
        }
    }
}

/// Latency targets below the service time assumed per IO.
pub(crate) fn latency_reasons(
    requirements: &Requirements,
    options: &PlanOptions,
    reasons: &mut Vec<ImpossibleReason>,
) {
    for volume in &requirements.volumes {
        if let Some(latency) = volume.sizing.latency_ms {
            if latency < options.assumptions.service_latency_ms {
                reasons.push(ImpossibleReason::Latency {
                    volume: volume.label.clone(),
                    target_ms: latency.get(),
                    service_ms: options.assumptions.service_latency_ms.get(),
                });
            }
        }
    }
}

/// Capacity above what any VM can attach: its data-disk slots x the largest disk.
pub(crate) fn capacity_reason(
    requirements: &Requirements,
    rows: &CatalogRows,
    reasons: &mut Vec<ImpossibleReason>,
) {
    // Capacity: the most any VM can attach, from its data-disk slots and the largest disk.
    let largest_fixed = rows
        .disks
        .iter()
        .map(|d| d.size_gib)
        .fold(GiB(0.0), GiB::max);
    let largest_provisioned = rows
        .provisioned
        .iter()
        .map(|d| d.size_gib_max)
        .fold(GiB(0.0), GiB::max);
    let most_slots = rows
        .vms
        .iter()
        .map(|vm| vm.max_data_disks)
        .max()
        .unwrap_or(0);
    let largest_disk_gib = largest_fixed.max(largest_provisioned);
    let most_gib = largest_disk_gib * most_slots as f64;
    let capacity: GiB = requirements
        .volumes
        .iter()
        .filter_map(|v| v.sizing.capacity_gib)
        .sum();
    if capacity > most_gib {
        reasons.push(ImpossibleReason::Capacity {
            needed_gib: capacity,
            most_slots,
            largest_disk_gib,
            most_gib,
        });
    }
}

/// The limit that ruled out most VMs, with one example.
pub(crate) fn commonest_rejection(
    rows: &CatalogRows,
    rejected: &[Rejected],
) -> Option<ImpossibleReason> {
    // Name the limit that ruled out most VMs.
    let mut counts: Vec<(String, usize, String)> = Vec::new();
    for r in rejected {
        let key = r
            .limit
            .map(|k| format!("{k:?}"))
            .unwrap_or_else(|| "other".into());
        match counts.iter_mut().find(|(k, _, _)| *k == key) {
            Some(entry) => entry.1 += 1,
            None => counts.push((key, 1, r.reason.clone())),
        }
    }
    counts.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    counts
        .first()
        .map(|(_, count, example)| ImpossibleReason::CommonestRejection {
            vms_failing: *count,
            vms: rows.vms.len(),
            example: example.clone(),
        })
}
