//! Advice for a volume that misses its target (or for the binding limit): the disk or VM to
//! change to, computed from the catalog rows given.

use crate::assumptions::Assumptions;
use crate::limits::{Factors, RateLimit};
use crate::solve::Solution;
use crate::{Advice, Candidate};
use crate::{Alternatives, LimitKind, LimitUnit, VolumeLoad};
use iofit_catalog::{DiskSku, VmSize};
use iofit_model::formulas::outstanding_ios;

/// Advice for each volume that misses its target (or, without targets, for the binding limit):
/// what to change, computed from the catalog rows given.
#[allow(clippy::too_many_arguments)]
pub(super) fn advise(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    factors: &[Factors],
    limits: &[RateLimit],
    operating: &Solution,
    targets: &[Option<f64>],
    assumptions: &Assumptions,
    alternatives: Option<Alternatives<'_>>,
) -> Vec<Advice> {
    let mb = assumptions.mb.bytes_per_mb();
    let mut advice = Vec::new();
    for (v, volume) in volumes.iter().enumerate() {
        let Some(target) = targets[v] else { continue };
        if operating.rates[v] >= target * (1.0 - 1e-9) {
            continue;
        }
        let Some(index) = operating.binding[v] else {
            continue;
        };
        let limit = &limits[index];
        let f = &factors[v];
        let n = volume.design.disk_count;
        match limit.kind {
            LimitKind::DiskIops
            | LimitKind::VolumeIops
            | LimitKind::DiskThroughput
            | LimitKind::VolumeThroughput => {
                advice.push(disk_advice(volume, f, limit, target, mb, alternatives));
            }
            LimitKind::StripeMembersBusy | LimitKind::QueueDepth => {
                let depth = (outstanding_ios(target, f.service_ms) - 1e-9)
                    .ceil()
                    .max(n as f64) as u32;
                advice.push(Advice::RaiseQueueDepth {
                    volume: volume.design.label.clone(),
                    outstanding_ios: f.outstanding,
                    depth,
                    target_iops: target,
                    service_ms: f.service_ms,
                });
            }
            LimitKind::VmUncachedIops
            | LimitKind::VmUncachedThroughput
            | LimitKind::VmCachedIops
            | LimitKind::VmCachedThroughput => {
                let wanted: Vec<f64> = targets
                    .iter()
                    .zip(&operating.rates)
                    .map(|(t, x)| t.unwrap_or(*x))
                    .collect();
                advice.push(vm_advice(vm, volume, limit, &wanted, alternatives));
            }
            _ => {}
        }
    }
    advice
}

/// A volume capped by its disks: how many disks of its SKU carry the target, or which larger
/// disks of the same kind do.
fn disk_advice(
    volume: &VolumeLoad,
    f: &Factors,
    limit: &RateLimit,
    target: f64,
    mb: f64,
    alternatives: Option<Alternatives<'_>>,
) -> Advice {
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let iops_metric = matches!(limit.kind, LimitKind::DiskIops | LimitKind::VolumeIops);
    let (needed, per_disk, unit) = if iops_metric {
        (target * f.disk_ios, disk.iops.get(), LimitUnit::Iops)
    } else {
        (
            target * f.disk_bytes / mb,
            disk.throughput_mb_s.get(),
            LimitUnit::MbPerSecond,
        )
    };
    let disks_needed = (needed / per_disk - 1e-9).ceil().max(1.0) as u32;
    let value = |d: &DiskSku| {
        if iops_metric {
            d.iops.0
        } else {
            d.throughput_mb_s.0
        }
    };
    let mut larger_disks = Vec::new();
    if let Some(alt) = alternatives {
        let mut bigger: Vec<&DiskSku> = alt
            .disks
            .iter()
            .filter(|d| d.kind == disk.kind && d.name != disk.name)
            .filter(|d| value(d) * n as f64 >= needed * (1.0 - 1e-9))
            .collect();
        bigger.sort_by(|a, b| a.size_gib.get().total_cmp(&b.size_gib.get()));
        larger_disks = bigger
            .iter()
            .take(4)
            .map(|d| Candidate {
                name: d.name.clone(),
                value: value(d),
            })
            .collect();
    }
    Advice::MoreDisks {
        volume: volume.design.label.clone(),
        unit,
        needed,
        disk: disk.name.clone(),
        disks: n,
        per_disk,
        disks_needed,
        larger_disks,
    }
}

/// A volume capped by a VM limit: what the targets need of it, larger VMs that allow it, and
/// host caching where it would spare the uncached limit.
fn vm_advice(
    vm: &VmSize,
    volume: &VolumeLoad,
    limit: &RateLimit,
    wanted: &[f64],
    alternatives: Option<Alternatives<'_>>,
) -> Advice {
    let kind = limit.kind;
    let disk = &volume.disk;
    // What the VM would carry if every volume reached its target.
    let needed = limit.used(wanted);
    let mut larger_vms = Vec::new();
    if let Some(alt) = alternatives {
        let value = |candidate: &VmSize| -> Option<f64> {
            match kind {
                LimitKind::VmUncachedIops => candidate.uncached_iops.map(|x| x.0),
                LimitKind::VmUncachedThroughput => candidate.uncached_throughput_mb_s.map(|x| x.0),
                LimitKind::VmCachedIops => candidate.cached_iops.map(|x| x.0),
                _ => candidate.cached_throughput_mb_s.map(|x| x.0),
            }
        };
        let mut bigger: Vec<(&VmSize, f64)> = alt
            .vms
            .iter()
            .filter(|c| c.name != vm.name)
            .filter(|c| c.premium_storage || !disk.kind.needs_premium_vm())
            .filter_map(|c| value(c).map(|x| (c, x)))
            .filter(|(_, x)| *x >= needed * (1.0 - 1e-9))
            .collect();
        bigger.sort_by(|a, b| {
            let pa = a.0.price_usd_month.unwrap_or(f64::INFINITY);
            let pb = b.0.price_usd_month.unwrap_or(f64::INFINITY);
            pa.total_cmp(&pb).then(a.1.total_cmp(&b.1))
        });
        larger_vms = bigger
            .iter()
            .take(3)
            .map(|(c, x)| Candidate {
                name: c.name.clone(),
                value: *x,
            })
            .collect();
    }
    let read_only_caching = matches!(
        kind,
        LimitKind::VmUncachedIops | LimitKind::VmUncachedThroughput
    ) && volume.workload.read_pct >= 50.0
        && disk.kind.supports_host_caching();
    Advice::LargerVm {
        volume: volume.design.label.clone(),
        limit: limit.name.clone(),
        unit: limit.unit,
        allowed: limit.capacity.unwrap_or(0.0),
        needed,
        larger_vms,
        read_only_caching,
    }
}
