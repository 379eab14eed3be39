//! What a Google Cloud disk of a provisioned type delivers: pd-extreme and Hyperdisk. Unlike a
//! Persistent Disk of pd-balanced or pd-ssd, such a disk is given its IOPS (and, for Hyperdisk
//! Balanced and Throughput, its MiB/s) when it is created, and gets them for itself: Google's
//! "Hyperdisk volumes feature ... dedicated IOPS and throughput with each volume, as compared to
//! Persistent Disk where performance is shared between volumes of the same type" (About
//! Hyperdisk). What every disk of the type shares is the VM's limit for the type (the
//! catalog's `[[vm_limits]]` naming it), split by demand as the Persistent Disk model splits it.
//!
//! What a disk is given and what follows from it are the catalog row's rules: IOPS and MiB/s
//! provisioned, or MiB/s per 1,000 IOPS (Hyperdisk Extreme), or IOPS per MiB/s (Hyperdisk
//! Throughput), or MiB/s by size as a Persistent Disk type (pd-extreme, as Google's gcpdiag
//! computes it). A type whose rules or per-VM limits are not all sourced is not modelled: the
//! error names what is missing ([`GcpCatalog::model_gaps`]).

pub use crate::gcp_volume::DiskProblem;
use crate::gcp_volume::{
    directional_limits, shares, total_gib_of, vm_rows, DirectionalRow, GcpDemand, GcpDiskSpec,
    GcpLimit,
};
use iofit_catalog::clouds::gcp::{GcpCatalog, GcpMachineType};
use iofit_catalog::clouds::gcp_provisioned::ProvisionedType;
use iofit_model::units::{Iops, MiBps};

const MIB: f64 = 1_048_576.0;

/// What one disk of a provisioned type delivers, reads and writes together.
#[derive(Clone, Debug, PartialEq)]
pub struct ProvisionedDisk {
    /// IOPS the disk delivers (provisioned, or from its MiB/s), with how it was reached.
    pub iops: Iops,
    pub iops_stated: String,
    /// MiB/s the disk delivers (provisioned, or from its IOPS), with how; `None` when the
    /// type's MiB/s follow the size of all its disks (pd-extreme), a budget they share.
    pub mib_s: Option<(f64, String)>,
}

fn number(value: f64) -> String {
    iofit_model::units::group_thousands(value.round())
}

/// `value` within `[low, high]` of the row, or why not, naming the key and the bound.
fn within(
    key: &str,
    value: f64,
    low: Option<f64>,
    high: Option<f64>,
    why: &str,
) -> Result<(), DiskProblem> {
    if let Some(low) = low.filter(|low| value < *low) {
        return Err(DiskProblem(format!(
            "{key}={value} is below {} ({why})",
            number(low)
        )));
    }
    if let Some(high) = high.filter(|high| value > *high) {
        return Err(DiskProblem(format!(
            "{key}={value} is above {} ({why})",
            number(high)
        )));
    }
    Ok(())
}

/// The provisioned value of `key` when the type is billed by `unit`; refused when given to a
/// type that is not.
fn given(
    row: &ProvisionedType,
    unit: &str,
    key: &str,
    value: Option<f64>,
) -> Result<Option<f64>, DiskProblem> {
    match (row.bills(unit), value) {
        (true, Some(v)) if v.is_finite() && v > 0.0 => Ok(Some(v)),
        (true, Some(v)) => Err(DiskProblem(format!("{key}={v}: give a number above 0"))),
        (true, None) => Err(DiskProblem(format!(
            "{} is given its {unit} when created: add {key}=N",
            row.name
        ))),
        (false, Some(_)) => Err(DiskProblem(format!(
            "{} is not given {unit} (Google bills it for {}): drop {key}=",
            row.name,
            row.bills.join(" and ")
        ))),
        (false, None) => Ok(None),
    }
}

/// Checks `spec` against `row`'s rules (size, IOPS and MiB/s within what Google lets a disk
/// be given) and says what the disk delivers.
pub fn check_spec(
    row: &ProvisionedType,
    spec: &GcpDiskSpec,
) -> Result<ProvisionedDisk, DiskProblem> {
    let size = spec.size_gib.get();
    if !(size.is_finite() && size >= 1.0) {
        return Err(DiskProblem(format!(
            "size {size} GiB: give size_gib=N, at least 1"
        )));
    }
    within(
        "size_gib",
        size,
        row.size_min_gib.map(|gib| gib.get()),
        row.size_max_gib.map(|gib| gib.get()),
        "the sizes Google allows",
    )?;
    let iops = given(row, "iops", "iops", spec.provisioned_iops.map(Iops::get))?;
    let mib_s = given(
        row,
        "throughput",
        "mib_s",
        spec.provisioned_mib_s.map(MiBps::get),
    )?;
    if let Some(iops) = iops {
        within(
            "iops",
            iops,
            row.iops_min,
            row.iops_max,
            "what one disk may be given",
        )?;
        let per_gib = |rate: Option<f64>| rate.map(|r| r * size);
        within(
            "iops",
            iops,
            per_gib(row.iops_min_per_gib),
            per_gib(row.iops_max_per_gib),
            &format!("what {size} GiB may be given"),
        )?;
    }
    if let Some(mib_s) = mib_s {
        within(
            "mib_s",
            mib_s,
            row.mib_s_min,
            row.mib_s_max,
            "what one disk may be given",
        )?;
        let least = row
            .mib_s_min_per_tib
            .map(|r| r * spec.size_gib.to_tib().get());
        within(
            "mib_s",
            mib_s,
            least,
            None,
            &format!("the least for {size} GiB"),
        )?;
    }
    let (iops, iops_stated) = match (iops, mib_s, row.iops_per_mib_s) {
        (Some(i), _, _) => (i, format!("{} IOPS provisioned", number(i))),
        (None, Some(m), Some(rate)) => {
            let i = (m * rate).min(row.iops_max.unwrap_or(f64::INFINITY));
            (
                i,
                format!("{} IOPS ({rate} per provisioned MiB/s)", number(i)),
            )
        }
        _ => {
            return Err(DiskProblem(format!(
                "how a {} disk's IOPS follow is not sourced",
                row.name
            )))
        }
    };
    let mib_s = match (mib_s, row.mib_s_per_1000_iops) {
        (Some(m), _) => Some((m, format!("{} MiB/s provisioned", number(m)))),
        (None, Some(rate)) => {
            let m = (iops * rate / 1000.0).min(row.mib_s_max.unwrap_or(f64::INFINITY));
            Some((m, format!("{} MiB/s ({rate} per 1,000 IOPS)", number(m))))
        }
        (None, None) if row.throughput_by_size_as.is_some() => None,
        (None, None) => {
            return Err(DiskProblem(format!(
                "how a {} disk's MiB/s follow is not sourced",
                row.name
            )))
        }
    };
    Ok(ProvisionedDisk {
        iops: Iops(iops),
        iops_stated,
        mib_s,
    })
}

/// The limits of one provisioned disk `spec` with `demand` on `machine`, among `volumes` (the
/// design's disks, whose same-type members share the VM's limit): its own IOPS and MiB/s,
/// the by-size MiB/s its type follows (shared), and the VM's limit of its type (shared).
pub fn volume_limits(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    row: &ProvisionedType,
    spec: &GcpDiskSpec,
    demand: &GcpDemand,
    volumes: &[(GcpDiskSpec, GcpDemand)],
) -> Result<Vec<GcpLimit>, DiskProblem> {
    let gaps = catalog.model_gaps(row);
    if !gaps.is_empty() {
        return Err(DiskProblem(format!(
            "not modelled: {} not sourced (catalog/README.md, Google Cloud)",
            gaps.join("; ")
        )));
    }
    if let Some(least) = row
        .vcpu_min_by_family
        .get(&machine.family.to_ascii_lowercase())
    {
        if machine.vcpu < *least {
            return Err(DiskProblem(format!(
                "{} takes {} on {} machines of {least} vCPUs or more only; {} has {}",
                machine.family, row.name, machine.family, machine.name, machine.vcpu
            )));
        }
    }
    let disk = check_spec(row, spec)?;
    let vm = catalog.vm_limit(machine, &row.name).ok_or_else(|| {
        DiskProblem(format!(
            "no sourced {} limit for {} ({} family, {} vCPU)",
            row.name, machine.name, machine.family, machine.vcpu
        ))
    })?;
    let io = demand.io_size_bytes.as_f64().max(512.0);
    // The disk's own IOPS and MiB/s count reads and writes together, and are its alone.
    let mut limits = vec![GcpLimit {
        name: format!("{} disk IOPS", row.name),
        stated: disk.iops_stated.clone(),
        iops_allowed: disk.iops.get(),
    }];
    if let Some((mib_s, stated)) = &disk.mib_s {
        limits.push(GcpLimit {
            name: format!("{} disk throughput", row.name),
            stated: stated.clone(),
            iops_allowed: mib_s * MIB / io,
        });
    }
    let mut rows: Vec<DirectionalRow> = Vec::new();
    if let Some(name) = &row.throughput_by_size_as {
        let rules = catalog
            .disk_type(name)
            .map_err(|e| DiskProblem(e.to_string()))?;
        let gib = total_gib_of(&row.name, volumes);
        let mib_s = rules.baseline_mib_s.get()
            + rules.throughput_mib_s_per_gib * rules.rated_gib(gib).get();
        let stated = format!(
            "{mib_s:.1} MiB/s ({:.0} GiB of {} attached, as {name})",
            gib.get(),
            row.name
        );
        for (direction, part) in [("read", 2), ("write", 3)] {
            rows.push((
                format!("{} {direction} throughput by size", row.name),
                stated.clone(),
                mib_s,
                part,
                false,
            ));
        }
    }
    rows.extend(vm_rows(machine, &row.name, vm));
    let share = shares(&row.name, demand, volumes);
    limits.extend(directional_limits(rows, demand, &|i| share[i]));
    Ok(limits)
}

#[cfg(test)]
#[path = "gcp_provisioned_tests.rs"]
mod tests;
