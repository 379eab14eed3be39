//! Sizing Google Cloud disks of a provisioned type (pd-extreme; Hyperdisk when a `--catalog`
//! file adds the facts no source gave): the size, IOPS and MiB/s that meet a volume's demand
//! at the least price, within the type's rules.
//!
//! Why the least values are the cheapest: a disk is billed per GiB, per IOPS above what is
//! included and per MiB/s above what is included, each rate at least 0, and every rule only
//! asks a value to be at least something (the demand, a minimum, a per-GiB or per-TiB least)
//! or at most something (a maximum, a per-GiB most). So the least size, IOPS and MiB/s that
//! satisfy the lower bounds cost least; the upper bounds only decide whether the type can
//! carry the volume at all. Given-for-free IOPS and MiB/s (Hyperdisk Balanced's 3,000 and
//! 140) are provisioned in full: they cost nothing more. The VM's limit of the type, shared by
//! the type's disks, is checked by the model the design is then predicted with.

use iofit_catalog::clouds::gcp::{GcpCatalog, PdPrice};
use iofit_catalog::clouds::gcp_provisioned::ProvisionedType;
use iofit_model::requirements::VolumeRequirements;
use iofit_model::units::{Iops, MiBps};
use iofit_predict::gcp::{GcpDemand, GcpDiskSpec};

const MIB: f64 = 1_048_576.0;
const GIB_PER_TIB: f64 = 1024.0;

/// One disk of `row` that carries `demand` with `headroom` kept (0.9: the demand is at most
/// 90% of each of the disk's own limits) and holds `capacity_gib`; `None` when one disk of
/// the type cannot.
pub fn size_disk(
    row: &ProvisionedType,
    label: &str,
    demand: &GcpDemand,
    capacity_gib: f64,
    headroom: f64,
) -> Option<GcpDiskSpec> {
    let need_iops = demand.iops.get() / headroom;
    let need_mib_s = demand.iops.get() * demand.io_size_bytes.as_f64() / MIB / headroom;
    let at_least = |values: &[Option<f64>]| values.iter().flatten().fold(0.0f64, |a, b| a.max(*b));
    let mut iops = row.bills("iops").then(|| {
        at_least(&[
            Some(need_iops),
            row.iops_min,
            row.included_iops.map(Iops::get),
            // Hyperdisk Extreme: the MiB/s come with the IOPS.
            row.mib_s_per_1000_iops
                .map(|rate| need_mib_s * 1000.0 / rate),
        ])
    });
    let mut mib_s = row.bills("throughput").then(|| {
        at_least(&[
            Some(need_mib_s),
            row.mib_s_min,
            row.included_mib_s.map(MiBps::get),
            // Hyperdisk Throughput: the IOPS come with the MiB/s.
            row.iops_per_mib_s.map(|rate| need_iops / rate),
        ])
    });
    let mut size = at_least(&[
        Some(capacity_gib.max(1.0)),
        row.size_min_gib,
        iops.zip(row.iops_max_per_gib).map(|(i, rate)| i / rate),
    ])
    .ceil();
    // The least a size may be given: raising it costs less than a larger disk would.
    if let (Some(i), Some(rate)) = (iops.as_mut(), row.iops_min_per_gib) {
        *i = i.max(rate * size);
    }
    if let (Some(m), Some(rate)) = (mib_s.as_mut(), row.mib_s_min_per_tib) {
        *m = m.max(rate * size / GIB_PER_TIB);
    }
    let iops = iops.map(f64::ceil);
    let mib_s = mib_s.map(f64::ceil);
    if let (Some(i), Some(rate)) = (iops, row.iops_max_per_gib) {
        size = size.max((i / rate).ceil());
    }
    let fits = |value: Option<f64>, most: Option<f64>| match (value, most) {
        (Some(v), Some(m)) => v <= m,
        _ => true,
    };
    let derived_mib_s = iops
        .zip(row.mib_s_per_1000_iops)
        .map(|(i, rate)| i * rate / 1000.0);
    let derived_iops = mib_s.zip(row.iops_per_mib_s).map(|(m, rate)| m * rate);
    let carries = fits(Some(size), row.size_max_gib)
        && fits(iops, row.iops_max)
        && fits(mib_s, row.mib_s_max)
        // What comes with the other value is capped: it must still carry the demand.
        && derived_mib_s.is_none_or(|m| m.min(row.mib_s_max.unwrap_or(f64::INFINITY)) >= need_mib_s)
        && derived_iops.is_none_or(|i| i.min(row.iops_max.unwrap_or(f64::INFINITY)) >= need_iops);
    carries.then(|| GcpDiskSpec {
        label: label.to_string(),
        disk_type: row.name.clone(),
        size_gib: size,
        provisioned_iops: iops.map(Iops),
        provisioned_mib_s: mib_s.map(MiBps),
    })
}

/// Disks of `row` for `volumes` (each with its demand): each sized alone, then, for a type
/// whose MiB/s follow the size of all its disks (pd-extreme), grown together until that
/// budget carries the demand of both directions, the added GiB split by demand. `None` when
/// the type cannot carry one of them.
pub fn size_group(
    catalog: &GcpCatalog,
    row: &ProvisionedType,
    volumes: &[(&VolumeRequirements, GcpDemand)],
    headroom: f64,
) -> Option<Vec<GcpDiskSpec>> {
    let mut disks = volumes
        .iter()
        .map(|(v, d)| {
            let capacity = v.sizing.capacity_gib.unwrap_or_default().get().ceil();
            size_disk(row, &v.label, d, capacity, headroom)
        })
        .collect::<Option<Vec<_>>>()?;
    let Some(rules) = row
        .throughput_by_size_as
        .as_deref()
        .and_then(|name| catalog.disk_type(name).ok())
    else {
        return Some(disks);
    };
    let mut need = [0.0f64; 2];
    for (_, d) in volumes {
        let mib_s = d.iops.get() * d.io_size_bytes.as_f64() / MIB / headroom;
        let r = (d.read_pct / 100.0).clamp(0.0, 1.0);
        need[0] += mib_s * r;
        need[1] += mib_s * (1.0 - r);
    }
    let most = need[0].max(need[1]);
    let total: f64 = disks.iter().map(|d| d.size_gib).sum();
    let by_size =
        rules.baseline_mib_s.get() + rules.throughput_mib_s_per_gib * rules.rated_gib(total);
    if by_size < most && rules.throughput_mib_s_per_gib > 0.0 {
        let extra = (most - by_size) / rules.throughput_mib_s_per_gib;
        let demand: f64 = volumes
            .iter()
            .map(|(_, d)| d.iops.get() * d.io_size_bytes.as_f64())
            .sum();
        for (disk, (_, d)) in disks.iter_mut().zip(volumes) {
            let share = if demand > 0.0 {
                d.iops.get() * d.io_size_bytes.as_f64() / demand
            } else {
                1.0 / volumes.len() as f64
            };
            disk.size_gib += (extra * share).ceil();
        }
    }
    disks
        .iter()
        .all(|d| row.size_max_gib.is_none_or(|most| d.size_gib <= most))
        .then_some(disks)
}

/// What one disk costs a month, split: (capacity, provisioned IOPS, provisioned MiB/s), each
/// beyond what the type includes.
pub fn price_parts(row: Option<&ProvisionedType>, spec: &GcpDiskSpec, price: &PdPrice) -> [f64; 3] {
    let beyond = |given: Option<f64>, included: Option<f64>, rate: Option<f64>| {
        (given.unwrap_or(0.0) - included.unwrap_or(0.0)).max(0.0) * rate.unwrap_or(0.0)
    };
    let included_iops = row.and_then(|r| r.included_iops).map(Iops::get);
    let included_mib_s = row.and_then(|r| r.included_mib_s).map(MiBps::get);
    [
        spec.size_gib * price.price_per_gib_month,
        beyond(
            spec.provisioned_iops.map(Iops::get),
            included_iops,
            price.price_per_iops_month,
        ),
        beyond(
            spec.provisioned_mib_s.map(MiBps::get),
            included_mib_s,
            price.price_per_mib_s_month,
        ),
    ]
}

#[cfg(test)]
#[path = "clouds_gcp_provisioned_tests.rs"]
mod tests;
