//! What every Google Cloud disk model shares (Persistent Disk in [`crate::gcp`], provisioned
//! types in [`crate::gcp_provisioned`]): a volume's spec and demand, one limit it meets, the
//! split of a type's VM budget among its disks by demand, and the per-VM rows.

use iofit_catalog::clouds::gcp::{GcpMachineType, VmPdLimit};
use iofit_model::units::{Bytes, GiB, Iops, MiBps};
use serde::{Deserialize, Serialize};

const MIB: f64 = 1_048_576.0;

/// Why one disk of a design is not one Google Cloud would run or the tables can model: the
/// message names the key or limit and what to change.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct DiskProblem(pub String);

/// One volume of a design: one disk of `size_gib` (a Persistent Disk, or a provisioned type
/// given its IOPS and MiB/s).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GcpDiskSpec {
    pub label: String,
    pub disk_type: String,
    pub size_gib: GiB,
    /// Provisioned types billed by IOPS (pd-extreme, Hyperdisk Balanced and Extreme): the IOPS
    /// the disk is given, reads and writes together (`iops=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_iops: Option<Iops>,
    /// Provisioned types billed by throughput (Hyperdisk Balanced and Throughput): the MiB/s
    /// the disk is given, reads and writes together (`mib_s=`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_mib_s: Option<MiBps>,
}

/// What the application asks of one volume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpDemand {
    pub iops: Iops,
    #[serde(with = "iofit_model::units::bytes_as_f64")]
    pub io_size_bytes: Bytes,
    /// Reads as a percentage of the IOs, 0..100.
    pub read_pct: f64,
}

impl GcpDemand {
    pub(crate) fn read_fraction(&self) -> f64 {
        (self.read_pct / 100.0).clamp(0.0, 1.0)
    }
    pub(crate) fn mib_s(&self) -> f64 {
        self.iops.get() * self.io_size_bytes.as_f64() / MIB
    }
}

/// One limit met by one volume's IO, in the application's IOs at its IO size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpLimit {
    /// What it is: `pd-ssd read IOPS by size`, `VM n2-standard-8 pd-ssd read IOPS`.
    pub name: String,
    /// The limit as Google states it, with how it was reached.
    pub stated: String,
    /// The application IOPS this limit allows for this volume's share.
    pub iops_allowed: f64,
}

/// The demand of each volume on its type's budget: (read ops, write ops, read MiB/s, write MiB/s).
pub(crate) fn parts(demand: &GcpDemand) -> [f64; 4] {
    let r = demand.read_fraction();
    [
        demand.iops.get() * r,
        demand.iops.get() * (1.0 - r),
        demand.mib_s() * r,
        demand.mib_s() * (1.0 - r),
    ]
}

/// The demand-weighted share of each part (read ops, write ops, read MiB/s, write MiB/s) of
/// `demand` among the volumes of `disk_type`: the disks of one type share its VM budget.
pub(crate) fn shares(
    disk_type: &str,
    demand: &GcpDemand,
    volumes: &[(GcpDiskSpec, GcpDemand)],
) -> [f64; 4] {
    let same: Vec<&(GcpDiskSpec, GcpDemand)> = volumes
        .iter()
        .filter(|(s, _)| s.disk_type.eq_ignore_ascii_case(disk_type))
        .collect();
    let mine = parts(demand);
    let mut group = [0.0; 4];
    for (_, d) in &same {
        for (sum, part) in group.iter_mut().zip(parts(d)) {
            *sum += part;
        }
    }
    let mut out = [0.0; 4];
    for (i, share) in out.iter_mut().enumerate() {
        *share = if group[i] > 0.0 {
            mine[i] / group[i]
        } else {
            1.0 / same.len().max(1) as f64
        };
    }
    out
}

/// The total GiB of `disk_type` among `volumes`.
pub(crate) fn total_gib_of(disk_type: &str, volumes: &[(GcpDiskSpec, GcpDemand)]) -> GiB {
    volumes
        .iter()
        .filter(|(s, _)| s.disk_type.eq_ignore_ascii_case(disk_type))
        .map(|(s, _)| s.size_gib)
        .sum()
}

/// One limit of one direction: (name, stated, limit, index of the demand part it limits
/// (read ops, write ops, read MiB/s, write MiB/s), whether it counts ops or MiB/s).
pub(crate) type DirectionalRow = (String, String, f64, usize, bool);

/// Each row as the application IOPS it allows this volume (its `share` of the limit, over the
/// fraction of its IOs in the row's direction); a direction the demand never uses is left out.
pub(crate) fn directional_limits(
    rows: Vec<DirectionalRow>,
    demand: &GcpDemand,
    share: &dyn Fn(usize) -> f64,
) -> Vec<GcpLimit> {
    let r = demand.read_fraction();
    let io = demand.io_size_bytes.as_f64().max(512.0);
    rows.into_iter()
        .filter_map(|(name, stated, limit, part, ops)| {
            let fraction = if part % 2 == 0 { r } else { 1.0 - r };
            if fraction <= 0.0 {
                return None;
            }
            let mine = limit * share(part);
            let iops_allowed = if ops {
                mine / fraction
            } else {
                mine * MIB / io / fraction
            };
            Some(GcpLimit {
                name,
                stated,
                iops_allowed,
            })
        })
        .collect()
}

/// The four limits of `machine`'s per-VM figures for `disk_type`, as directional rows.
pub(crate) fn vm_rows(
    machine: &GcpMachineType,
    disk_type: &str,
    vm: &VmPdLimit,
) -> Vec<DirectionalRow> {
    vec![
        (
            format!("VM {} {disk_type} read IOPS", machine.name),
            format!("{:.0} IOPS ({} vCPU)", vm.read_iops.get(), machine.vcpu),
            vm.read_iops.get(),
            0,
            true,
        ),
        (
            format!("VM {} {disk_type} write IOPS", machine.name),
            format!("{:.0} IOPS ({} vCPU)", vm.write_iops.get(), machine.vcpu),
            vm.write_iops.get(),
            1,
            true,
        ),
        (
            format!("VM {} {disk_type} read throughput", machine.name),
            format!("{:.0} MiB/s ({} vCPU)", vm.read_mib_s.get(), machine.vcpu),
            vm.read_mib_s.get(),
            2,
            false,
        ),
        (
            format!("VM {} {disk_type} write throughput", machine.name),
            format!("{:.0} MiB/s ({} vCPU)", vm.write_mib_s.get(), machine.vcpu),
            vm.write_mib_s.get(),
            3,
            false,
        ),
    ]
}
