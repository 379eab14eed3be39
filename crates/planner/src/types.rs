//! What planning takes and gives: the catalog rows and options in, the plan and its designs out.

use crate::impossible_reason::ImpossibleReason;
use crate::operating::workload_of;
use crate::plan_note::PlanNote;
use crate::requirement_warning::RequirementWarning;
use iofit_catalog::{DiskSku, NetAppServiceLevel, ProvisionedDiskType, VmSize};
use iofit_model::units::{Bytes, GiB, Iops, MBps, MiBps, TiB};
use iofit_model::{Design, HostCaching, Requirements, VolumeRole};
use iofit_predict::{Assumptions, DiskPerf, LimitKind, Prediction, VolumeLoad};
use serde::{Deserialize, Serialize};

/// The catalog rows a plan may choose from (one edition).
#[derive(Clone, Debug, Default)]
pub struct CatalogRows {
    pub vms: Vec<VmSize>,
    pub disks: Vec<DiskSku>,
    pub provisioned: Vec<ProvisionedDiskType>,
    pub netapp: Vec<NetAppServiceLevel>,
}

/// Knobs of the search.
#[derive(Clone, Debug)]
pub struct PlanOptions {
    /// How many designs to return.
    pub top: usize,
    /// How many of the cheapest rejected VMs to explain.
    pub rejected_shown: usize,
    /// Force one host caching on every volume (the only way to get ReadWrite).
    pub caching: Option<HostCaching>,
    /// Service time, MB convention and cache-hit share the predictions use.
    pub assumptions: Assumptions,
    /// Headroom kept below every limit the plan sizes against (disk and stripe IOPS and MB/s,
    /// the VM's uncached and cached IOPS and MB/s, data-disk slots), percent of the limit.
    /// Measured workloads fluctuate around the figures they are sized for, and Azure limits
    /// throttle rather than fail, so a design at 0% headroom is throttled by the first peak.
    /// 0 restores the strict fit; capacity is sized without headroom.
    pub min_headroom_pct: f64,
    /// Hours a month the volumes run at the sized IOPS, for the per-operation charge of
    /// Standard SSD/HDD. Default 730 (Azure's month): sustained load, an upper bound.
    pub busy_hours_per_month: f64,
    /// ISO 4217 code of every price in the rows (the `*_usd_*` fields hold amounts in it):
    /// the plan's prices and totals name it. Default USD.
    pub currency: String,
}

/// Default headroom kept below every sized limit, percent (see [`PlanOptions::min_headroom_pct`]).
pub const DEFAULT_MIN_HEADROOM_PCT: f64 = 10.0;
/// Hours in Azure's billing month (Azure's pricing pages and the catalog's VM prices use 730).
pub const HOURS_PER_MONTH: f64 = 730.0;

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            top: 5,
            rejected_shown: 5,
            caching: None,
            assumptions: Assumptions {
                // Sized for a cold cache: every read reaches the disks, so a design meets the
                // requirements before the cache warms; a warm cache only adds headroom.
                cache_hit_pct: 0.0,
                ..Assumptions::default()
            },
            min_headroom_pct: DEFAULT_MIN_HEADROOM_PCT,
            busy_hours_per_month: HOURS_PER_MONTH,
            currency: iofit_catalog::DEFAULT_CURRENCY.to_string(),
        }
    }
}

/// Why no plan could be made at all (bad requirements).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error("requirements: {0}")]
    Requirements(String),
    #[error("the catalog has no VM sizes in this edition")]
    NoVms,
    #[error("{0}")]
    Options(String),
}

/// One volume of a proposed design, with the reasons for each choice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedVolume {
    pub label: String,
    /// The disk as predict sees it (limits, table, price).
    pub disk: DiskPerf,
    pub role: VolumeRole,
    pub disk_sku: String,
    pub disk_table: String,
    pub disk_count: u32,
    pub disk_size_gib: GiB,
    pub caching: HostCaching,
    pub caching_reason: String,
    pub stripe_size_bytes: Option<Bytes>,
    pub stripe_reason: Option<String>,
    /// Outstanding IOs to run the volume at (Little's law), split into threads x depth.
    pub queue_depth_total: u32,
    pub threads: u32,
    pub queue_depth_per_thread: u32,
    pub queue_depth_reason: String,
    /// Outstanding IOs at which every member reaches its own limit (what the check ran at).
    pub queue_depth_to_reach_limits: u32,
    /// For Premium SSD v2 / Ultra: what each disk is provisioned with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_iops: Option<Iops>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput_mb_s: Option<MBps>,
    #[serde(
        rename = "price_per_disk_per_month",
        alias = "price_per_disk_usd_month"
    )]
    pub price_per_disk_usd_month: Option<f64>,
    /// `disk_count x price_per_disk`.
    #[serde(rename = "price_per_month", alias = "price_usd_month")]
    pub price_usd_month: Option<f64>,
    /// Billable disk operations a month at the sized IOPS, where the disk kind bills them
    /// (Standard SSD/HDD); `None` where it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations_per_month: Option<f64>,
    /// Their charge; `Some(0)` where the kind bills no operations, `None` where the kind bills
    /// them but the price is not sourced (the design's cost is then incomplete).
    #[serde(rename = "operations_price_per_month", alias = "operations_usd_month")]
    pub operations_usd_month: Option<f64>,
    /// How the operations charge was computed, or why it is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations_note: Option<String>,
    /// Azure's own wording when the volume relies on "up to" performance (Standard SSD/HDD)
    /// for an IOPS or latency target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performance_note: Option<String>,
}

/// A design the plan proposes: it meets every target and is over no limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedDesign {
    pub rank: usize,
    pub design: Design,
    pub vm: String,
    pub vm_table: String,
    pub vm_vcpu: u32,
    pub vm_memory_gib: GiB,
    #[serde(rename = "vm_price_per_month", alias = "vm_price_usd_month")]
    pub vm_price_usd_month: Option<f64>,
    /// The size's architecture, burstable CPU and announced retirement (catalog rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vm_traits: Option<iofit_catalog::VmTraits>,
    pub volumes: Vec<PlannedVolume>,
    /// Sum of the volumes' prices.
    #[serde(rename = "disks_price_per_month", alias = "disks_price_usd_month")]
    pub disks_price_usd_month: Option<f64>,
    /// Sum of the volumes' disk-operation charges (Standard SSD/HDD); `None` when one is not
    /// sourced.
    #[serde(rename = "operations_price_per_month", alias = "operations_usd_month")]
    pub operations_usd_month: Option<f64>,
    /// VM + disks + operations, computed from the parts; `None` when the VM's or a disk's
    /// price is not sourced. When only an operations charge is not sourced the total is what
    /// is known (VM + disks + the sourced operations charges) and `cost_complete` is false;
    /// the search minimises the same figure.
    #[serde(rename = "total_price_per_month", alias = "total_usd_month")]
    pub total_usd_month: Option<f64>,
    /// Whether every part of the cost is in the total (false: an operations charge is missing).
    pub cost_complete: bool,
    pub price_note: Option<String>,
    /// Limits the catalog does not publish for this design (not checked).
    pub unknown_limits: Vec<String>,
    pub prediction: Prediction,
}

impl PlannedDesign {
    /// Disk capacity bought over all volumes, GiB.
    pub fn disk_capacity_gib(&self) -> GiB {
        self.volumes
            .iter()
            .map(|v| v.disk_size_gib * v.disk_count as f64)
            .sum()
    }

    /// The design's volumes as predict takes them, each carrying its requirement as target and
    /// running at the outstanding IOs that reach the disks' limits
    /// (so the headroom shown is the hardware's). Volumes are matched to requirements by label.
    pub fn volume_loads(&self, requirements: &Requirements) -> Vec<VolumeLoad> {
        self.volumes
            .iter()
            .zip(&self.design.volumes)
            .filter_map(|(planned, design)| {
                let volume = requirements
                    .volumes
                    .iter()
                    .find(|v| v.label == planned.label)?;
                Some(VolumeLoad {
                    design: design.clone(),
                    disk: planned.disk.clone(),
                    workload: workload_of(
                        &volume.sizing,
                        planned.queue_depth_to_reach_limits,
                        self.prediction.assumptions.mb.bytes_per_mb(),
                    ),
                    target: Some(volume.sizing.clone()),
                })
            })
            .collect()
    }
}

/// A VM that could not carry the requirements, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    pub vm: String,
    pub vm_vcpu: u32,
    pub vm_memory_gib: GiB,
    #[serde(rename = "vm_price_per_month", alias = "vm_price_usd_month")]
    pub vm_price_usd_month: Option<f64>,
    /// The cheapest combination tried on it (VM + disks), when one was formed.
    #[serde(
        rename = "cheapest_tried_price_per_month",
        alias = "cheapest_tried_usd_month"
    )]
    pub cheapest_tried_usd_month: Option<f64>,
    pub tried: Option<String>,
    pub limit: Option<LimitKind>,
    pub reason: String,
}

/// Azure NetApp Files sized for the throughput and capacity: service level x quota.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetAppOption {
    pub level: String,
    pub table: String,
    pub throughput_mib_s_per_tib: f64,
    pub throughput_needed_mib_s: MiBps,
    pub capacity_needed_tib: TiB,
    /// `max(throughput / rate per TiB, capacity, minimum quota)`.
    pub quota_tib: TiB,
    pub throughput_mib_s: MiBps,
    #[serde(rename = "price_per_month", alias = "price_usd_month")]
    pub price_usd_month: Option<f64>,
    /// False when the throughput exceeds the level's published single-volume maximum.
    pub fits: bool,
    pub note: String,
}

/// Totals the VM must carry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RequirementTotals {
    pub volumes: usize,
    pub iops: Iops,
    pub throughput_mb_s: MBps,
    pub capacity_gib: GiB,
    pub growth_factor: f64,
}

/// The result of planning.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub totals: RequirementTotals,
    pub assumptions: Assumptions,
    pub vms_considered: usize,
    pub designs_meeting: usize,
    pub designs: Vec<PlannedDesign>,
    pub rejected: Vec<Rejected>,
    /// When no design meets the requirements: the limits no catalog row reaches.
    pub impossible: Vec<ImpossibleReason>,
    pub netapp: Vec<NetAppOption>,
    /// What the plan was made under and the conditions its designs carry.
    pub notes: Vec<PlanNote>,
    /// What the plan says before its designs: requirements that disagree or are missing.
    #[serde(default)]
    pub requirement_warnings: Vec<RequirementWarning>,
    /// The headroom kept below every sized limit, percent.
    pub min_headroom_pct: f64,
    /// Hours a month the operations charge assumes the sized IOPS run.
    pub busy_hours_per_month: f64,
    /// ISO 4217 code of every price and total in the plan (the `price` fields, `*_usd_*` in
    /// Rust, hold amounts in it; USD unless the catalog's prices are in another currency).
    #[serde(default = "default_currency")]
    pub currency: String,
}

pub(crate) fn default_currency() -> String {
    iofit_catalog::DEFAULT_CURRENCY.to_string()
}
