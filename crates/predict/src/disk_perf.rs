//! One disk's limits as the model uses them ([`DiskPerf`]), from a catalog row or a provisioned
//! disk type's formulas (IOPS and throughput for a size, and its price).

use crate::{PredictError, EPS};
use iofit_catalog::{DiskKind, DiskSku, ProvisionedDiskType};
use iofit_model::units::{GiB, Iops, KiB, MBps};
use serde::{Deserialize, Serialize};

/// The performance of one disk of a volume, from a fixed SKU or a provisioned disk type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskPerf {
    pub name: String,
    /// Catalog table the figures come from.
    pub table: String,
    pub kind: DiskKind,
    pub size_gib: GiB,
    pub iops: Iops,
    pub throughput_mb_s: MBps,
    pub burst_iops: Option<Iops>,
    pub burst_throughput_mb_s: Option<MBps>,
    #[serde(rename = "price_per_month", alias = "price_usd_month")]
    pub price_usd_month: Option<f64>,
    /// Price of 10,000 billable operations where the kind bills them (Standard SSD/HDD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(
        rename = "price_per_10k_operations",
        alias = "price_usd_per_10k_operations"
    )]
    pub price_usd_per_10k_operations: Option<f64>,
    /// Size of one billable operation, KiB (`None`: every IO counts once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_unit_kib: Option<KiB<u64>>,
}

impl From<&DiskSku> for DiskPerf {
    fn from(sku: &DiskSku) -> Self {
        DiskPerf {
            name: sku.name.clone(),
            table: sku.table.clone(),
            kind: sku.kind,
            size_gib: sku.size_gib,
            iops: sku.iops,
            throughput_mb_s: sku.throughput_mb_s,
            burst_iops: sku.burst_iops,
            burst_throughput_mb_s: sku.burst_throughput_mb_s,
            price_usd_month: sku.price_usd_month,
            price_usd_per_10k_operations: sku.price_usd_per_10k_operations,
            operation_unit_kib: sku.operation_unit_kib,
        }
    }
}

impl DiskPerf {
    /// A provisioned disk (Premium SSD v2, Ultra) of `size_gib` with `iops` and `throughput_mb_s`
    /// bought; checks the type's rules (size range, IOPS per GiB, MB/s per IOPS, maximums).
    pub fn from_provisioned(
        disk_type: &ProvisionedDiskType,
        size_gib: GiB,
        iops: f64,
        throughput_mb_s: f64,
    ) -> Result<DiskPerf, PredictError> {
        let problem = |text: String| PredictError::Provisioned {
            name: disk_type.name.clone(),
            problem: text,
        };
        if !(size_gib >= disk_type.size_gib_min && size_gib <= disk_type.size_gib_max) {
            return Err(problem(format!(
                "size {} GiB is outside {}..={} GiB",
                size_gib.get(),
                disk_type.size_gib_min.get(),
                disk_type.size_gib_max.get()
            )));
        }
        let iops_allowed = provisioned_iops_max(disk_type, size_gib);
        if !(iops > 0.0 && iops <= iops_allowed * (1.0 + EPS)) {
            return Err(problem(format!(
                "{iops} IOPS is not within 1..={iops_allowed} for {} GiB \
                 ({} IOPS per GiB, at most {})",
                size_gib.get(),
                disk_type.iops_per_gib_max,
                disk_type.iops_max.0
            )));
        }
        let mb_allowed = provisioned_throughput_max(disk_type, iops);
        if !(throughput_mb_s > 0.0 && throughput_mb_s <= mb_allowed * (1.0 + EPS)) {
            return Err(problem(format!(
                "{throughput_mb_s} MB/s is not within 1..={mb_allowed} for {iops} IOPS \
                 ({} MB/s per IOPS, at most {})",
                disk_type.throughput_mb_s_per_iops_max, disk_type.throughput_mb_s_max.0
            )));
        }
        Ok(DiskPerf {
            name: disk_type.name.clone(),
            table: disk_type.table.clone(),
            kind: disk_type.kind,
            size_gib,
            iops: Iops(iops),
            throughput_mb_s: MBps(throughput_mb_s),
            burst_iops: None,
            burst_throughput_mb_s: None,
            price_usd_month: provisioned_price(disk_type, size_gib, iops, throughput_mb_s),
            price_usd_per_10k_operations: None,
            operation_unit_kib: None,
        })
    }
}

/// Highest IOPS a provisioned disk of `size_gib` may have: the per-GiB rule, never below the
/// free baseline, never above the type's maximum.
pub fn provisioned_iops_max(disk_type: &ProvisionedDiskType, size_gib: GiB) -> f64 {
    (size_gib.get() * disk_type.iops_per_gib_max)
        .max(disk_type.iops_baseline.0)
        .min(disk_type.iops_max.0)
}

/// Highest MB/s a provisioned disk with `iops` may have.
pub fn provisioned_throughput_max(disk_type: &ProvisionedDiskType, iops: f64) -> f64 {
    (iops * disk_type.throughput_mb_s_per_iops_max)
        .max(disk_type.throughput_mb_s_baseline.0)
        .min(disk_type.throughput_mb_s_max.0)
}

/// Monthly price of a provisioned disk: capacity plus the IOPS and MB/s billed (above the free
/// baseline for Premium SSD v2; all of them for Ultra).
/// `None` when any needed rate is not sourced.
pub fn provisioned_price(
    disk_type: &ProvisionedDiskType,
    size_gib: GiB,
    iops: f64,
    throughput_mb_s: f64,
) -> Option<f64> {
    // How Azure bills it is the catalog's to say.
    disk_type.monthly_price_usd(size_gib, iops, throughput_mb_s)
}
