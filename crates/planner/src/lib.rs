//! iofit-planner: from requirements and the catalog to designs ranked by monthly cost.
//!
//! For every VM size, each volume gets the cheapest disk choice that carries its target (disk
//! SKU and count for striping, or a provisioned Premium SSD v2 / Ultra disk sized by its
//! rules), with host caching by the method's rules (ReadOnly for read-heavy data, None for
//! write-heavy logs, ReadWrite only when asked), a stripe size (64 KiB for small random IO,
//! 256 KiB for large or sequential IO) and a queue depth by Little's law. `iofit-predict` then
//! checks the whole design against every limit; a design over any limit is never proposed.
//! The cheapest combination of volume options that fits each VM is found exactly, by branch
//! and bound over the VM's shared limits (the `search` module), with no cap on tries.
//! The cheapest design per VM is ranked by total monthly cost (VM and disks apart, the total
//! computed from the parts); designs whose price is not sourced rank after priced ones.
//! Rejected VMs say which limit ruled them out; requirements no design meets say which limit
//! no row of the catalog reaches. An Azure NetApp Files option sizes service level x quota.
//!
//! ```
//! use iofit_catalog::{DiskKind, DiskSku, VmSize};
//! use iofit_model::{Iops, MBps, Requirements, SizingTarget, VolumeRequirements};
//! use iofit_planner::{plan, CatalogRows, PlanOptions};
//!
//! let p30 = DiskSku { name: "P30".into(), table: "t".into(), kind: DiskKind::PremiumSsd,
//!     size_gib: 1024.0, iops: Iops(5000.0), throughput_mb_s: MBps(200.0), burst_iops: None,
//!     burst_throughput_mb_s: None, price_usd_month: Some(136.085),
//!     price_usd_per_10k_operations: None, operation_unit_kib: None };
//! let vm = VmSize { name: "Standard_DS13".into(), table: "t".into(), family: "DS".into(),
//!     vcpu: 8, memory_gib: 56.0, max_data_disks: 16, premium_storage: true,
//!     uncached_iops: Some(Iops(25600.0)), uncached_throughput_mb_s: Some(MBps(256.0)),
//!     cached_iops: None, cached_throughput_mb_s: None, cache_size_gib: None,
//!     temp_storage_gib: None, burst_uncached_iops: None,
//!     burst_uncached_throughput_mb_s: None, price_usd_month: Some(1003.66), traits: None };
//! let requirements = Requirements {
//!     volumes: vec![VolumeRequirements {
//!         label: "data".into(),
//!         sizing: SizingTarget { iops: 16000.0, io_size_bytes: 8192, read_pct: 70.0,
//!             random_pct: 100.0, ..Default::default() },
//!         ..Default::default()
//!     }],
//!     growth_factor: 1.0,
//!     ..Default::default()
//! };
//! let rows = CatalogRows { vms: vec![vm], disks: vec![p30], ..Default::default() };
//! let plan = plan(&requirements, &rows, &PlanOptions::default()).unwrap();
//! let best = &plan.designs[0];
//! assert_eq!((best.volumes[0].disk_count, best.volumes[0].disk_sku.as_str()), (4, "P30"));
//! assert!((best.total_usd_month.unwrap() - (1003.66 + 4.0 * 136.085)).abs() < 1e-9);
//! ```

use iofit_catalog::{DiskSku, NetAppServiceLevel, ProvisionedDiskType, VmSize};
use iofit_model::formulas::outstanding_ios;
use iofit_model::units::{group_thousands, Bytes, MIB};
use iofit_model::{
    Design, HostCaching, Requirements, SizingTarget, VolumeDesign, VolumeRole, Workload,
};
use iofit_predict::{
    predict, provisioned_iops_max, provisioned_throughput_max, Alternatives, Assumptions, DiskPerf,
    LimitKind, LimitStatus, Prediction, VolumeLoad,
};
use search::{cheapest_fitting, Budget, Choice, RankCost, SHARED_LIMITS};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

mod cheaper;
pub mod clouds;
pub mod clouds_gcp;
mod requirement_checks;
mod search;

pub use cheaper::{next_cheaper_design, CheaperDesign};
pub use requirement_checks::{requirement_warnings, RequirementWarning, SizedBy};

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

/// The limit kinds the headroom rule applies to: every limit the plan sizes against.
const HEADROOM_KINDS: &[LimitKind] = &[
    LimitKind::VmUncachedIops,
    LimitKind::VmUncachedThroughput,
    LimitKind::VmCachedIops,
    LimitKind::VmCachedThroughput,
    LimitKind::VolumeIops,
    LimitKind::VolumeThroughput,
    LimitKind::DiskIops,
    LimitKind::DiskThroughput,
    LimitKind::VmDataDisks,
];

/// The first sized limit whose headroom at the targets is below `min_pct`.
fn headroom_shortfall(prediction: &Prediction, min_pct: f64) -> Option<(LimitKind, String)> {
    if min_pct <= 0.0 {
        return None;
    }
    prediction
        .limits
        .iter()
        .filter(|c| HEADROOM_KINDS.contains(&c.kind) && c.limit.is_some())
        .filter(|c| !matches!(c.status, LimitStatus::Unknown | LimitStatus::Burst))
        .find_map(|c| {
            let pct = c.headroom_pct?;
            (pct < min_pct - 1e-9).then(|| {
                (
                    c.kind,
                    format!(
                        "{} has {:.0}% headroom at the targets ({} of {}{}), below the {}% kept \
                         (--min-headroom-pct)",
                        c.name,
                        pct,
                        fmt_num(c.used),
                        fmt_num(c.limit.unwrap_or(0.0)),
                        c.unit.suffix(),
                        fmt_num(min_pct)
                    ),
                )
            })
        })
}

/// Data-disk slots a design may use with the headroom kept: `floor(slots x (1 - h))`, at least 1.
fn slots_allowed(vm: &VmSize, min_headroom_pct: f64) -> u32 {
    let room = 1.0 - min_headroom_pct / 100.0;
    ((vm.max_data_disks as f64 * room + 1e-9).floor() as u32)
        .max(1)
        .min(vm.max_data_disks)
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
    pub disk_size_gib: f64,
    pub caching: HostCaching,
    pub caching_reason: String,
    pub stripe_size_bytes: Option<u64>,
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
    pub provisioned_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput_mb_s: Option<f64>,
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
    pub vm_memory_gib: f64,
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
    pub fn disk_capacity_gib(&self) -> f64 {
        self.volumes
            .iter()
            .map(|v| v.disk_count as f64 * v.disk_size_gib)
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
    pub vm_memory_gib: f64,
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
    pub throughput_needed_mib_s: f64,
    pub capacity_needed_tib: f64,
    /// `max(throughput / rate per TiB, capacity, minimum quota)`.
    pub quota_tib: f64,
    pub throughput_mib_s: f64,
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
    pub iops: f64,
    pub throughput_mb_s: f64,
    pub capacity_gib: f64,
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
    pub impossible: Vec<String>,
    pub netapp: Vec<NetAppOption>,
    pub notes: Vec<String>,
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

fn default_currency() -> String {
    iofit_catalog::DEFAULT_CURRENCY.to_string()
}

/// One way to build one volume on one VM.
#[derive(Clone, Debug)]
struct VolumeOption {
    disk: DiskPerf,
    count: u32,
    caching: HostCaching,
    caching_reason: CachingReason,
    provisioned: Option<(f64, f64)>,
    price: Option<f64>,
    /// Billable operations a month (kinds that bill them).
    operations_per_month: Option<f64>,
    operations_price: Option<f64>,
}

/// Why a volume option has its host caching. Words are written only for the options a plan
/// shows (the search forms many more than it keeps).
#[derive(Clone, Copy, Debug, PartialEq)]
enum CachingReason {
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
    fn words(
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
fn rank_cost(option: &VolumeOption) -> RankCost {
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
            value: option.count as f64 * option.disk.size_gib,
        },
    }
}

/// Billable operations per volume IO on a disk that bills them: each piece an IO becomes on
/// the stripe counts as one operation, or as several when larger than the billing unit.
fn operations_per_io(disk: &DiskPerf, pieces: f64, piece_bytes: f64) -> f64 {
    let per_piece = match disk.operation_unit_kib {
        Some(unit) if unit > 0 => (piece_bytes / (unit as f64 * 1024.0) - 1e-9)
            .ceil()
            .max(1.0),
        _ => 1.0,
    };
    pieces * per_piece
}

/// The monthly operations charge of `operations_per_month` on `disk`: `Some(0)` for kinds that
/// bill no operations, `None` when the kind bills them and the price is not sourced.
fn operations_price(disk: &DiskPerf, operations_per_month: f64) -> Option<f64> {
    if !disk.kind.bills_operations() {
        return Some(0.0);
    }
    disk.price_usd_per_10k_operations
        .map(|rate| operations_per_month / 1e4 * rate)
}

/// How [`operations_price`] was computed, or why it is missing; `None` for kinds that bill no
/// operations.
fn operations_note(disk: &DiskPerf, operations_per_month: f64, busy_hours: f64) -> Option<String> {
    if !disk.kind.bills_operations() {
        return None;
    }
    let unit = match disk.operation_unit_kib {
        Some(kib) => format!("IOs over {kib} KiB count as several"),
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
fn performance_note(disk: &DiskPerf, target: &SizingTarget) -> Option<String> {
    if target.iops <= 0.0 && target.latency_ms.is_none() {
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

fn fmt_num(value: f64) -> String {
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
    if target.random_pct >= 50.0 && target.io_size_bytes <= 64 * 1024 {
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

/// The workload a volume's target describes, at `outstanding` IOs.
fn workload_of(target: &SizingTarget, outstanding: u32, mb: f64) -> Workload {
    let (threads, depth) = split_outstanding(outstanding);
    Workload::new(
        target.read_pct,
        target.random_pct,
        operating_point(target, mb).1,
        depth,
        threads,
    )
}

/// Threads x depth for a number of outstanding IOs: at most 32 per thread (a common
/// per-submitter depth), the product at least `outstanding` (and what is run: see
/// [`QueueDepths`]). A product split again gives the same threads and depth.
fn split_outstanding(outstanding: u32) -> (u32, u32) {
    let outstanding = outstanding.max(1);
    let threads = outstanding.div_ceil(32);
    (threads, outstanding.div_ceil(threads))
}

/// Target IOPS of a volume: enough for both its IOPS and its MB/s at its IO size.
fn target_iops(target: &SizingTarget, mb: f64) -> f64 {
    operating_point(target, mb).0
}

/// The single operating point that meets both the IOPS and the MB/s of a target: see
/// [`SizingTarget::operating_point`], which holds the rule so that renderers can use it too.
pub fn operating_point(target: &SizingTarget, mb: f64) -> (f64, Bytes) {
    target.operating_point(mb)
}

/// Sizes a provisioned disk type for one volume: the fewest disks, each with the smallest size,
/// IOPS and MB/s the type's rules allow for the need. `None` when it cannot.
fn size_provisioned(
    disk_type: &ProvisionedDiskType,
    iops: f64,
    throughput_mb_s: f64,
    capacity_gib: f64,
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
        .max(size_for_iops)
        .max(disk_type.size_gib_min)
        .ceil()
        .min(disk_type.size_gib_max);
    let iops_buy = iops_buy.min(provisioned_iops_max(disk_type, size));
    let mb_buy = mb_each
        .max(disk_type.throughput_mb_s_baseline.0)
        .ceil()
        .min(provisioned_throughput_max(disk_type, iops_buy));
    let disk = DiskPerf::from_provisioned(disk_type, size, iops_buy, mb_buy).ok()?;
    if disk.iops * n < iops * (1.0 - 1e-9)
        || disk.throughput_mb_s * n < throughput_mb_s * (1.0 - 1e-9)
    {
        return None;
    }
    Some((count, disk))
}

/// What one volume asks of its disks, derived once from its target and the plan's options.
struct VolumeNeed {
    /// Target IOPS at the operating point.
    wanted: f64,
    /// The target MB/s over the operating point's IO size, IOPS.
    wanted_by_mb: f64,
    /// Mean IO size at the operating point, bytes.
    size: f64,
    stripe: Bytes,
    /// Disk IOs per volume IO when striped.
    split: f64,
    read: f64,
    hit: f64,
    capacity: f64,
    /// Share of each sized limit a design may use (1 - headroom).
    room: f64,
    slots: u32,
    mb: f64,
    seconds_busy: f64,
}

impl VolumeNeed {
    fn of(vm: &VmSize, target: &SizingTarget, options: &PlanOptions) -> VolumeNeed {
        let mb = options.assumptions.mb.bytes_per_mb();
        let (stripe, _) = choose_stripe(target);
        let size = operating_point(target, mb).1.as_f64();
        VolumeNeed {
            wanted: target_iops(target, mb),
            wanted_by_mb: target.throughput_mb_s * mb / size,
            size,
            stripe,
            split: (size / stripe.as_f64()).ceil().max(1.0),
            read: target.read_pct / 100.0,
            hit: options.assumptions.cache_hit_pct / 100.0,
            capacity: target.capacity_gib.unwrap_or(0.0),
            // Every sized limit keeps the headroom asked: a disk counts for `room` of its limit.
            room: 1.0 - options.min_headroom_pct / 100.0,
            slots: slots_allowed(vm, options.min_headroom_pct),
            mb,
            seconds_busy: 3600.0 * options.busy_hours_per_month,
        }
    }
}

/// The disk options for one volume on one VM, cheapest first (priced before unpriced).
fn volume_options(
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
fn sku_option(
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
    let by_size = (need.capacity / sku.size_gib - 1e-9).ceil();
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
fn provisioned_option(
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
        need.capacity,
        need.slots,
    )?;
    let price = disk.price_usd_month.map(|p| p * count as f64);
    Some(VolumeOption {
        provisioned: Some((disk.iops, disk.throughput_mb_s)),
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
fn build_loads(
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
fn plan_volume(
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
        design.provisioned_iops = Some(iops);
        design.provisioned_throughput_mb_s = Some(mb_s);
    }
    let service_ms = options
        .assumptions
        .service_latency_ms_for(option.disk.kind, target.read_pct);
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
        stripe_size_bytes: (option.count > 1).then_some(stripe.0),
        stripe_reason: (option.count > 1).then_some(stripe_reason),
        queue_depth_total: queue.outstanding,
        threads: queue.threads,
        queue_depth_per_thread: queue.depth,
        queue_depth_reason: queue.reason,
        queue_depth_to_reach_limits: queue.to_limits,
        provisioned_iops: option.provisioned.map(|p| p.0),
        provisioned_throughput_mb_s: option.provisioned.map(|p| p.1),
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
struct QueuePlan {
    outstanding: u32,
    threads: u32,
    depth: u32,
    to_limits: u32,
    reason: String,
}

/// Little's law at the service time, at least one IO per stripe member; deeper queues let the
/// volume run up to its disks' limits, and the check uses that depth so the headroom shown is
/// the hardware's, not the queue's.
fn queue_plan(wanted: f64, service_ms: f64, option: &VolumeOption) -> QueuePlan {
    let q = queue_depths(wanted, service_ms, option.disk.iops, option.count);
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
fn failure_reason(prediction: &Prediction) -> (Option<LimitKind>, String) {
    // A yes/no check (slots, premium storage, caching support) rules a design out first.
    let hard = prediction.limits.iter().find(|c| {
        c.status == LimitStatus::Over && !matches!(c.kind, LimitKind::Capacity | LimitKind::Latency)
    });
    if let (Some(check), Some(violation)) = (hard, prediction.violations.first()) {
        return (Some(check.kind), violation.to_string());
    }
    // Then a rate: the throttle is the cause, a missed latency its symptom.
    for volume in &prediction.volumes {
        let target = volume.target_iops.unwrap_or(0.0);
        let by_mb = volume.target_throughput_mb_s.unwrap_or(0.0);
        let short =
            volume.iops < target * (1.0 - 1e-9) || volume.throughput_mb_s < by_mb * (1.0 - 1e-9);
        if short {
            if let Some(binding) = prediction.binding.as_ref() {
                return (
                    Some(binding.kind),
                    format!(
                        "volume '{}' misses its target ({} IOPS, {} MB/s delivered): {}",
                        volume.label,
                        fmt_num(volume.iops),
                        fmt_num(volume.throughput_mb_s),
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

/// Checks requirements before planning: the one validation every command uses
/// ([`Requirements::validate`]), then that each volume has something to size.
pub fn validate(requirements: &Requirements) -> Result<(), PlanError> {
    requirements
        .validate()
        .map_err(|e| PlanError::Requirements(e.to_string()))?;
    for volume in &requirements.volumes {
        if volume.sizing.iops == 0.0 && volume.sizing.throughput_mb_s == 0.0 {
            return Err(PlanError::Requirements(format!(
                "volume '{}': sizing.iops and sizing.throughput_mb_s are both 0; give at least one",
                volume.label
            )));
        }
    }
    Ok(())
}

/// Plans designs for `requirements` from `rows`.
pub fn plan(
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
) -> Result<Plan, PlanError> {
    plan_with_search(requirements, rows, options, try_combinations)
}

/// [`plan`] with the per-VM search given (the tests pass an exhaustive oracle). The
/// method's steps: check the options, plan each VM (its limits rule it out, or the cheapest
/// combination of disks that fits is its design), rank, then the totals and notes.
fn plan_with_search(
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    search: VmSearch,
) -> Result<Plan, PlanError> {
    validate(requirements)?;
    check_options(options)?;
    if rows.vms.is_empty() {
        return Err(PlanError::NoVms);
    }
    let mb = options.assumptions.mb.bytes_per_mb();
    let mut accepted: Vec<PlannedDesign> = Vec::new();
    let mut rejected: Vec<Rejected> = Vec::new();
    let mut shared_options = SharedOptions::default();
    for vm in &rows.vms {
        match plan_vm(vm, requirements, rows, options, search, &mut shared_options)? {
            VmOutcome::Design(design) => accepted.push(*design),
            VmOutcome::Rejected(why) => rejected.push(why),
        }
    }
    rank_designs(&mut accepted);
    let designs_meeting = accepted.len();
    let impossible = if accepted.is_empty() {
        impossible_reasons(requirements, rows, &rejected, options)
    } else {
        Vec::new()
    };
    let rejected = rejected_shown(rejected, accepted.first(), options.rejected_shown);
    let mut designs: Vec<PlannedDesign> = accepted.into_iter().take(options.top).collect();
    for (index, design) in designs.iter_mut().enumerate() {
        design.rank = index + 1;
    }
    let totals = requirement_totals(requirements, mb);
    let netapp = rows
        .netapp
        .iter()
        .map(|level| {
            netapp_option(
                level,
                totals.throughput_mb_s * mb / MIB as f64,
                totals.capacity_gib / 1024.0,
            )
        })
        .collect();
    let first_lines = requirement_warnings(requirements, mb, designs.first());
    Ok(Plan {
        totals,
        assumptions: options.assumptions.clone(),
        vms_considered: rows.vms.len(),
        designs_meeting,
        designs,
        rejected,
        impossible,
        netapp,
        notes: plan_notes(requirements, options),
        requirement_warnings: first_lines,
        min_headroom_pct: options.min_headroom_pct,
        busy_hours_per_month: options.busy_hours_per_month,
        currency: options.currency.clone(),
    })
}

/// The plan's own knobs, in range.
fn check_options(options: &PlanOptions) -> Result<(), PlanError> {
    if !(0.0..100.0).contains(&options.min_headroom_pct) {
        return Err(PlanError::Options(format!(
            "min headroom {}%: must be within 0..100 (10 keeps every limit 10% above the need)",
            options.min_headroom_pct
        )));
    }
    if !(options.busy_hours_per_month > 0.0 && options.busy_hours_per_month <= 744.0) {
        return Err(PlanError::Options(format!(
            "busy hours per month {}: must be within 0..=744 (730 = sustained, Azure's month)",
            options.busy_hours_per_month
        )));
    }
    Ok(())
}

/// What planning one VM gives: its design, or why it cannot carry the requirements.
enum VmOutcome {
    Design(Box<PlannedDesign>),
    Rejected(Rejected),
}

/// A VM ruled out, and why.
fn rejection(vm: &VmSize, limit: Option<LimitKind>, reason: String) -> Rejected {
    Rejected {
        vm: vm.name.clone(),
        vm_vcpu: vm.vcpu,
        vm_memory_gib: vm.memory_gib,
        vm_price_usd_month: vm.price_usd_month,
        cheapest_tried_usd_month: None,
        tried: None,
        limit,
        reason,
    }
}

/// What a volume's disk options depend on in a VM: premium storage, whether its cached limits
/// are published, and the data-disk slots a design may use. VMs alike in these share their
/// options (their words name the VM, and are written later, per design).
type OptionsKey = (bool, bool, u32);

/// Each volume's options on the VMs alike in [`OptionsKey`], and the choices the search takes.
struct Prepared {
    /// Every option per volume, cheapest first.
    options: Vec<Vec<VolumeOption>>,
    /// Per volume: the options that meet the volume's own limits alone (predicted on the VM
    /// with its shared limits lifted), less those another such option dominates.
    choices: Vec<Vec<Choice>>,
}

/// What planning shares across VMs: each [`OptionsKey`]'s prepared options, and whether an
/// option meets its volume's own limits (keyed by cached limits published, volume, option).
#[derive(Default)]
struct SharedOptions {
    prepared: HashMap<OptionsKey, Rc<Prepared>>,
    alone_fits: HashMap<(bool, usize, String), bool>,
}

/// Plans one VM: host and total limits first (no disks needed to rule it out), then each
/// volume's disk options, then the cheapest combination that fits.
fn plan_vm(
    vm: &VmSize,
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    search: VmSearch,
    shared: &mut SharedOptions,
) -> Result<VmOutcome, PlanError> {
    let mb = options.assumptions.mb.bytes_per_mb();
    if let Some(reason) = host_shortfall(vm, requirements) {
        return Ok(VmOutcome::Rejected(rejection(vm, None, reason)));
    }
    if let Some((limit, reason)) =
        vm_total_shortfall(vm, requirements, mb, options.min_headroom_pct)
    {
        return Ok(VmOutcome::Rejected(rejection(vm, Some(limit), reason)));
    }
    let key = (
        vm.premium_storage,
        vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some(),
        slots_allowed(vm, options.min_headroom_pct),
    );
    let prepared = match shared.prepared.get(&key) {
        Some(prepared) => prepared.clone(),
        None => {
            let prepared = Rc::new(prepare(vm, requirements, rows, options, shared)?);
            shared.prepared.insert(key, prepared.clone());
            prepared
        }
    };
    if let Some(index) = prepared.options.iter().position(Vec::is_empty) {
        let reason = format!(
            "no disk of the catalog carries volume '{}' within {}'s {} data disks{}",
            requirements.volumes[index].label,
            vm.name,
            vm.max_data_disks,
            if vm.premium_storage {
                ""
            } else {
                " (standard disks only: no premium storage)"
            }
        );
        return Ok(VmOutcome::Rejected(rejection(
            vm,
            Some(LimitKind::VmDataDisks),
            reason,
        )));
    }
    search(vm, requirements, rows, options, &prepared)
}

/// `vm` with its shared rate limits lifted (published ones made boundless, unpublished ones
/// left unpublished, so caching is predicted as on `vm`) and slots without end: what checks
/// one volume against its own limits only.
fn without_shared_limits(vm: &VmSize) -> VmSize {
    const BOUNDLESS: f64 = 1e300;
    let lift = |limit: Option<f64>| limit.map(|_| BOUNDLESS);
    VmSize {
        uncached_iops: lift(vm.uncached_iops.map(|v| v.0)).map(iofit_model::Iops),
        uncached_throughput_mb_s: lift(vm.uncached_throughput_mb_s.map(|v| v.0))
            .map(iofit_model::MBps),
        cached_iops: lift(vm.cached_iops.map(|v| v.0)).map(iofit_model::Iops),
        cached_throughput_mb_s: lift(vm.cached_throughput_mb_s.map(|v| v.0)).map(iofit_model::MBps),
        burst_uncached_iops: None,
        burst_uncached_throughput_mb_s: None,
        max_data_disks: u32::MAX,
        ..vm.clone()
    }
}

/// Each volume's options on `vm` (cheapest first) and the choices the search takes from them:
/// an option is kept when it meets the volume's own limits alone (necessary: sharing the VM
/// only adds load to its shared limits) and no cheaper kept option dominates it.
fn prepare(
    vm: &VmSize,
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    shared: &mut SharedOptions,
) -> Result<Prepared, PlanError> {
    let alone_vm = without_shared_limits(vm);
    let cached_published = vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some();
    let all: Vec<Vec<VolumeOption>> = requirements
        .volumes
        .iter()
        .map(|volume| volume_options(vm, volume, rows, options))
        .collect();
    let mut choices = Vec::with_capacity(all.len());
    for (v, (volume, list)) in requirements.volumes.iter().zip(&all).enumerate() {
        let mut kept: Vec<Choice> = Vec::new();
        for (index, option) in list.iter().enumerate() {
            let (load, _) = plan_volume(vm, volume, option, options);
            let demand = iofit_predict::vm_demand(vm, &load, &options.assumptions)
                .map_err(|error| PlanError::Requirements(error.to_string()))?;
            let mut uses = [0.0; SHARED_LIMITS];
            if let Some(d) = demand {
                let at = if d.cached {
                    search::CACHED_IOPS
                } else {
                    search::UNCACHED_IOPS
                };
                uses[at] = d.iops;
                uses[at + 1] = d.throughput_mb_s;
            }
            let choice = Choice {
                option: index,
                cost: rank_cost(option),
                slots: option.count,
                uses,
            };
            if kept.iter().any(|k| k.dominates(&choice)) {
                continue;
            }
            let id = format!(
                "{}|{}|{}|{:?}",
                option.disk.name, option.count, option.caching, option.provisioned
            );
            let fits = match shared.alone_fits.get(&(cached_published, v, id.clone())) {
                Some(&fits) => fits,
                None => {
                    let prediction = predict(&alone_vm, &[load], &options.assumptions, None)
                        .map_err(|error| PlanError::Requirements(error.to_string()))?;
                    let fits = prediction.fits()
                        && headroom_shortfall(&prediction, options.min_headroom_pct).is_none();
                    shared.alone_fits.insert((cached_published, v, id), fits);
                    fits
                }
            };
            if fits {
                kept.push(choice);
            }
        }
        choices.push(kept);
    }
    Ok(Prepared {
        options: all,
        choices,
    })
}

/// What `vm` lets a combination use: the slots kept with the headroom, and each shared rate
/// limit less the headroom (a hair above, so rounding never rules out what predict accepts;
/// predict has the last word on every combination).
fn vm_budget(vm: &VmSize, options: &PlanOptions) -> Budget {
    let room = 1.0 - options.min_headroom_pct / 100.0;
    let kept = |limit: Option<f64>| limit.map(|l| l * room + l.abs() * 1e-9);
    Budget {
        slots: slots_allowed(vm, options.min_headroom_pct),
        limits: [
            kept(vm.uncached_iops.map(|v| v.0)),
            kept(vm.uncached_throughput_mb_s.map(|v| v.0)),
            kept(vm.cached_iops.map(|v| v.0)),
            kept(vm.cached_throughput_mb_s.map(|v| v.0)),
        ],
    }
}

/// One combination of volume options checked against the VM by predict.
struct Trial {
    disk_price: Option<f64>,
    operations_price: Option<f64>,
    /// The operations charges that are sourced, summed (all of them when `operations_price`).
    operations_known: f64,
    pairs: Vec<(VolumeLoad, PlannedVolume)>,
    prediction: Prediction,
}

/// How one VM is searched: the exact search in the planner, an exhaustive one in the tests.
type VmSearch = fn(
    &VmSize,
    &Requirements,
    &CatalogRows,
    &PlanOptions,
    &Prepared,
) -> Result<VmOutcome, PlanError>;

/// What predicting one combination says: its design, or why it is not one.
enum Attempt {
    Design(Box<PlannedDesign>),
    Failed(Box<Rejected>),
}

/// Predicts the combination `indices` (one option index per volume) on `vm`.
fn attempt(
    vm: &VmSize,
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    prepared: &Prepared,
    indices: &[usize],
) -> Result<Attempt, PlanError> {
    let chosen: Vec<&VolumeOption> = indices
        .iter()
        .zip(&prepared.options)
        .map(|(&index, list)| &list[index])
        .collect();
    let total_disks: u32 = chosen.iter().map(|o| o.count).sum();
    let slots = slots_allowed(vm, options.min_headroom_pct);
    let trial = trial(vm, requirements, rows, options, &chosen)?;
    Ok(
        match trial_failure(vm, &trial, total_disks, slots, options) {
            None => Attempt::Design(Box::new(planned_design(vm, trial))),
            Some((limit, reason)) => Attempt::Failed(Box::new(Rejected {
                cheapest_tried_usd_month: match (vm.price_usd_month, trial.disk_price) {
                    (Some(a), Some(b)) => Some(a + b + trial.operations_known),
                    _ => None,
                },
                tried: Some(describe(vm, &trial.pairs)),
                ..rejection(vm, limit, reason)
            })),
        },
    )
}

/// The cheapest combination of all, limits aside: every combination's worst tier is at least
/// the worst of the volumes' cheapest tiers, `T`; at `T`, each volume's option of least value
/// among those of tier `T` or below (the first of equals). Not simply each volume's first
/// option: a tier-0 option dearer than a tier-2 one costs more once another volume sets the
/// combination's tier to 2.
fn cheapest_of_all(options: &[Vec<VolumeOption>]) -> Vec<usize> {
    let tier = options
        .iter()
        .filter_map(|list| list.first().map(|o| rank_cost(o).tier))
        .max()
        .unwrap_or(0);
    options
        .iter()
        .map(|list| {
            let mut best: Option<(usize, f64)> = None;
            for (index, option) in list.iter().enumerate() {
                let cost = rank_cost(option);
                if cost.tier <= tier && best.is_none_or(|(_, value)| cost.value < value) {
                    best = Some((index, cost.value));
                }
            }
            best.map_or(0, |(index, _)| index)
        })
        .collect()
}

/// The cheapest combination that fits `vm`, or why none does. The cheapest combination of all
/// is predicted first: when it fits it is the answer, and when it does not its failure is
/// what the VM's rejection says. Then the exact search proposes the cheapest combination
/// within the VM's slots and shared limits, and predict checks it; a combination predict
/// refuses (rounding at a limit's edge) is excluded and the search asked again, until one
/// fits or the search proves none can.
fn try_combinations(
    vm: &VmSize,
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    prepared: &Prepared,
) -> Result<VmOutcome, PlanError> {
    let cheapest = cheapest_of_all(&prepared.options);
    let first_failure = match attempt(vm, requirements, rows, options, prepared, &cheapest)? {
        Attempt::Design(design) => return Ok(VmOutcome::Design(design)),
        Attempt::Failed(why) => why,
    };
    let budget = vm_budget(vm, options);
    let mut excluded = HashSet::from([cheapest]);
    while let Some(indices) = cheapest_fitting(&prepared.choices, &budget, &excluded) {
        match attempt(vm, requirements, rows, options, prepared, &indices)? {
            Attempt::Design(design) => return Ok(VmOutcome::Design(design)),
            Attempt::Failed(_) => {
                excluded.insert(indices);
            }
        }
    }
    Ok(VmOutcome::Rejected(*first_failure))
}

/// Predicts one combination on the VM.
fn trial(
    vm: &VmSize,
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    chosen: &[&VolumeOption],
) -> Result<Trial, PlanError> {
    let alternatives = Alternatives {
        vms: &rows.vms,
        disks: &rows.disks,
    };
    let pairs = build_loads(vm, requirements, chosen, options);
    let loads: Vec<VolumeLoad> = pairs.iter().map(|(l, _)| l.clone()).collect();
    let prediction = predict(vm, &loads, &options.assumptions, Some(alternatives))
        .map_err(|error| PlanError::Requirements(error.to_string()))?;
    Ok(Trial {
        disk_price: chosen.iter().map(|o| o.price).sum(),
        operations_price: chosen.iter().map(|o| o.operations_price).sum(),
        operations_known: chosen.iter().filter_map(|o| o.operations_price).sum(),
        pairs,
        prediction,
    })
}

/// Why a trial is not a design (a limit over, the headroom rule, the slots kept free), or
/// `None` when it fits.
fn trial_failure(
    vm: &VmSize,
    trial: &Trial,
    total_disks: u32,
    slots: u32,
    options: &PlanOptions,
) -> Option<(Option<LimitKind>, String)> {
    let prediction = &trial.prediction;
    let fits = prediction.fits();
    let headroom = if fits && total_disks <= vm.max_data_disks {
        headroom_shortfall(prediction, options.min_headroom_pct)
    } else {
        None
    };
    let slots_short = total_disks > slots && total_disks <= vm.max_data_disks;
    match headroom {
        _ if fits && !slots_short && headroom.is_none() => None,
        Some(short) if fits => Some((Some(short.0), short.1)),
        _ if fits && slots_short => Some((
            Some(LimitKind::VmDataDisks),
            format!(
                "{total_disks} data disks leave less than {}% of {}'s {} slots free \
                 (--min-headroom-pct)",
                fmt_num(options.min_headroom_pct),
                vm.name,
                vm.max_data_disks
            ),
        )),
        _ => Some(failure_reason(prediction)),
    }
}

/// The design a fitting trial makes: VM + disks + operations, computed from the parts.
fn planned_design(vm: &VmSize, trial: Trial) -> PlannedDesign {
    let Trial {
        disk_price,
        operations_price,
        operations_known,
        pairs,
        prediction,
    } = trial;
    let volumes: Vec<PlannedVolume> = pairs.into_iter().map(|(_, p)| p).collect();
    // An operations charge that is not sourced leaves the total at what is known and marks
    // the cost incomplete (never free).
    let total = match (vm.price_usd_month, disk_price) {
        (Some(a), Some(b)) => Some(a + b + operations_known),
        _ => None,
    };
    let cost_complete = total.is_some() && operations_price.is_some();
    let unknown_limits = prediction
        .limits
        .iter()
        .filter(|c| c.unpublished())
        .map(|c| c.name.clone())
        .collect();
    PlannedDesign {
        rank: 0,
        design: design_of(vm, &volumes),
        vm: vm.name.clone(),
        vm_table: vm.table.clone(),
        vm_vcpu: vm.vcpu,
        vm_memory_gib: vm.memory_gib,
        vm_price_usd_month: vm.price_usd_month,
        vm_traits: vm.traits.clone(),
        disks_price_usd_month: disk_price,
        operations_usd_month: operations_price,
        total_usd_month: total,
        cost_complete,
        price_note: price_note(vm, &volumes, total, cost_complete),
        volumes,
        unknown_limits,
        prediction,
    }
}

/// Why a design's total is missing or incomplete.
fn price_note(
    vm: &VmSize,
    volumes: &[PlannedVolume],
    total: Option<f64>,
    cost_complete: bool,
) -> Option<String> {
    if total.is_none() {
        let mut missing = Vec::new();
        if vm.price_usd_month.is_none() {
            missing.push(vm.name.clone());
        }
        for v in volumes {
            if v.price_usd_month.is_none() && !missing.contains(&v.disk_sku) {
                missing.push(v.disk_sku.clone());
            }
        }
        Some(format!("price not sourced: {}", missing.join(", ")))
    } else if !cost_complete {
        let missing: Vec<String> = volumes
            .iter()
            .filter(|v| v.operations_usd_month.is_none())
            .map(|v| v.disk_sku.clone())
            .collect();
        Some(format!(
            "operations charge not sourced: {} (billed per 10,000 disk operations; not in the \
             total, cost incomplete)",
            missing.join(", ")
        ))
    } else {
        None
    }
}

/// The runnable design of the planned volumes (what `predict --design` and `run` take).
fn design_of(vm: &VmSize, volumes: &[PlannedVolume]) -> Design {
    Design {
        vm: vm.name.clone(),
        volumes: volumes
            .iter()
            .map(|v| {
                let mut d =
                    VolumeDesign::new(v.label.clone(), v.disk_sku.clone(), v.disk_count, v.caching);
                d.stripe_size = v.stripe_size_bytes.map(Bytes);
                if v.provisioned_iops.is_some() {
                    d.provisioned_size_gib = Some(v.disk_size_gib);
                    d.provisioned_iops = v.provisioned_iops;
                    d.provisioned_throughput_mb_s = v.provisioned_throughput_mb_s;
                }
                d
            })
            .collect(),
        queue_depth: volumes
            .iter()
            .map(|v| v.queue_depth_per_thread)
            .max()
            .unwrap_or(1),
        threads: volumes.iter().map(|v| v.threads).sum(),
    }
}

/// Ranks designs: fully priced by total, then those whose operations charge is not sourced,
/// then unpriced ones by size.
fn rank_designs(accepted: &mut [PlannedDesign]) {
    accepted.sort_by(|a, b| match (a.total_usd_month, b.total_usd_month) {
        // Fully priced designs first; a design whose operations charge is not sourced follows
        // them (its total is only what is known), never ranked as if the operations were free.
        (Some(x), Some(y)) => (!a.cost_complete)
            .cmp(&!b.cost_complete)
            .then(x.total_cmp(&y))
            .then(a.vm.cmp(&b.vm)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        // Unpriced designs: smaller VMs first, then less disk capacity bought. A proxy for
        // cost, not a price; the output says "price not sourced".
        (None, None) => a
            .vm_vcpu
            .cmp(&b.vm_vcpu)
            .then(a.vm_memory_gib.total_cmp(&b.vm_memory_gib))
            .then(a.disk_capacity_gib().total_cmp(&b.disk_capacity_gib()))
            .then(a.vm.cmp(&b.vm)),
    });
}

/// The cheapest rejected VMs worth showing: those cheaper than the best design (or, unpriced,
/// not bigger than it), cheapest first.
fn rejected_shown(
    mut rejected: Vec<Rejected>,
    best: Option<&PlannedDesign>,
    shown: usize,
) -> Vec<Rejected> {
    let best_price = best.and_then(|d| d.total_usd_month);
    let best_vcpu = best.map(|d| d.vm_vcpu);
    rejected.sort_by(|a, b| {
        let pa = a.cheapest_tried_usd_month.or(a.vm_price_usd_month);
        let pb = b.cheapest_tried_usd_month.or(b.vm_price_usd_month);
        match (pa, pb) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => a
                .vm_vcpu
                .cmp(&b.vm_vcpu)
                .then(a.vm_memory_gib.total_cmp(&b.vm_memory_gib)),
        }
        .then(a.vm.cmp(&b.vm))
    });
    rejected
        .into_iter()
        .filter(|r| match (best_price, r.vm_price_usd_month) {
            (Some(best), Some(price)) => price < best,
            // Unpriced: shown when not bigger than the best design's VM.
            (Some(_), None) => best_vcpu.is_none_or(|vcpu| r.vm_vcpu <= vcpu),
            (None, _) => true,
        })
        .take(shown)
        .collect()
}

/// Totals the VM must carry.
fn requirement_totals(requirements: &Requirements, mb: f64) -> RequirementTotals {
    RequirementTotals {
        volumes: requirements.volumes.len(),
        iops: requirements.total_iops(),
        throughput_mb_s: requirements
            .volumes
            .iter()
            .map(|v| {
                v.sizing
                    .throughput_mb_s
                    .max(v.sizing.iops * v.sizing.io_size_bytes as f64 / mb)
            })
            .sum(),
        capacity_gib: requirements
            .volumes
            .iter()
            .filter_map(|v| v.sizing.capacity_gib)
            .sum(),
        growth_factor: requirements.growth_factor,
    }
}

/// The assumptions the plan was made under, in words.
fn plan_notes(requirements: &Requirements, options: &PlanOptions) -> Vec<String> {
    let mut notes = vec![
        format!(
            "sized for a {}% cache hit on ReadOnly disks ({}); a warm cache only adds headroom",
            fmt_num(options.assumptions.cache_hit_pct),
            if options.assumptions.cache_hit_pct == 0.0 {
                "cold cache: every read reaches the disks"
            } else {
                "reads served by the cache do not reach the disks"
            }
        ),
        format!(
            "service time per IO {} ms on Premium SSD, Premium SSD v2 and Ultra ({}); Standard \
             SSD {} ms ({}); Standard HDD {} ms reads, {} ms writes ({})",
            options.assumptions.service_latency_ms,
            options.assumptions.service_latency_source,
            options.assumptions.standard_ssd_latency_ms,
            options.assumptions.standard_ssd_latency_source,
            options.assumptions.hdd_read_latency_ms,
            options.assumptions.hdd_write_latency_ms,
            options.assumptions.hdd_latency_source
        ),
        format!("MB: {}", options.assumptions.mb.describe()),
        if options.min_headroom_pct > 0.0 {
            format!(
                "every design keeps at least {}% headroom below each limit it is sized against \
                 (disk and stripe IOPS and MB/s, the VM's IOPS and MB/s, data-disk slots): \
                 measured workloads fluctuate and Azure limits throttle rather than fail; \
                 --min-headroom-pct 0 restores the strict fit",
                fmt_num(options.min_headroom_pct)
            )
        } else {
            "strict fit (--min-headroom-pct 0): a design may sit at 0% headroom on a limit, and \
             the first peak above the sized figures is throttled"
                .to_string()
        },
        format!(
            "Standard SSD/HDD bill disk operations per 10,000 on top of their monthly price; the \
             plan counts the sized IOPS for {} h/month (--busy-hours-per-month; 730 = sustained) \
             and adds the charge to the total",
            fmt_num(options.busy_hours_per_month)
        ),
    ];
    if requirements.growth_factor != 1.0 {
        notes.push(format!(
            "rates and capacity include growth x{}",
            requirements.growth_factor
        ));
    }
    notes
}

/// A VM whose uncached and cached limits together cannot carry the total IOPS or MB/s, whatever
/// the disks: ruled out before any disk is chosen. Unpublished limits never rule out.
fn vm_total_shortfall(
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
fn describe(vm: &VmSize, pairs: &[(VolumeLoad, PlannedVolume)]) -> String {
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
fn host_shortfall(vm: &VmSize, requirements: &Requirements) -> Option<String> {
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
                fmt_num(vm.memory_gib),
                fmt_num(memory)
            ));
        }
    }
    None
}

/// Which limits no row of the catalog reaches, in words.
fn impossible_reasons(
    requirements: &Requirements,
    rows: &CatalogRows,
    rejected: &[Rejected],
    options: &PlanOptions,
) -> Vec<String> {
    let mut reasons = Vec::new();
    vm_total_reasons(requirements, rows, options, &mut reasons);
    latency_reasons(requirements, options, &mut reasons);
    capacity_reason(requirements, rows, &mut reasons);
    if rows.disks.is_empty() && rows.provisioned.is_empty() {
        reasons.push("the catalog has no disks in this edition".into());
    }
    if options.min_headroom_pct > 0.0 && !reasons.is_empty() {
        reasons.push(format!(
            "every limit was kept {}% above the need (--min-headroom-pct; 0 restores the strict \
             fit)",
            fmt_num(options.min_headroom_pct)
        ));
    }
    if reasons.is_empty() {
        reasons.extend(commonest_rejection(rows, rejected));
    }
    reasons
}

/// Totals above what the largest VM of the catalog allows (IOPS, MB/s).
fn vm_total_reasons(
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    reasons: &mut Vec<String>,
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
    let vm_checks: [(&str, f64, &str, VmValue); 2] = [
        (
            "uncached IOPS",
            total_iops,
            " IOPS",
            Box::new(|vm: &VmSize| {
                Some(
                    vm.uncached_iops?
                        .0
                        .max(vm.cached_iops.map(|c| c.0).unwrap_or(0.0)),
                )
            }),
        ),
        (
            "uncached MB/s",
            total_mb,
            " MB/s",
            Box::new(|vm: &VmSize| {
                Some(
                    vm.uncached_throughput_mb_s?
                        .0
                        .max(vm.cached_throughput_mb_s.map(|c| c.0).unwrap_or(0.0)),
                )
            }),
        ),
    ];
    for (what, needed, unit, value) in &vm_checks {
        if let Some((name, most)) = best(value.as_ref()) {
            if most < needed * (1.0 - 1e-9) {
                reasons.push(format!(
                    "VM {what}: the requirements need {}{unit} in total; the largest VM in the \
                     catalog, {name}, allows {}{unit}",
                    fmt_num(*needed),
                    fmt_num(most)
                ));
            }
        }
    }
}

/// Latency targets below the service time assumed per IO.
fn latency_reasons(requirements: &Requirements, options: &PlanOptions, reasons: &mut Vec<String>) {
    for volume in &requirements.volumes {
        if let Some(latency) = volume.sizing.latency_ms {
            if latency < options.assumptions.service_latency_ms {
                reasons.push(format!(
                    "latency: volume '{}' asks for {latency} ms, below the {} ms service time \
                     assumed per IO (set --service-latency-ms if you have measured lower)",
                    volume.label, options.assumptions.service_latency_ms
                ));
            }
        }
    }
}

/// Capacity above what any VM can attach: its data-disk slots x the largest disk.
fn capacity_reason(requirements: &Requirements, rows: &CatalogRows, reasons: &mut Vec<String>) {
    // Capacity: the most any VM can attach, from its data-disk slots and the largest disk.
    let largest_fixed = rows.disks.iter().map(|d| d.size_gib).fold(0.0, f64::max);
    let largest_provisioned = rows
        .provisioned
        .iter()
        .map(|d| d.size_gib_max)
        .fold(0.0, f64::max);
    let most_slots = rows
        .vms
        .iter()
        .map(|vm| vm.max_data_disks)
        .max()
        .unwrap_or(0);
    let most_gib = most_slots as f64 * largest_fixed.max(largest_provisioned);
    let capacity: f64 = requirements
        .volumes
        .iter()
        .filter_map(|v| v.sizing.capacity_gib)
        .sum();
    if capacity > most_gib {
        reasons.push(format!(
            "capacity: the requirements need {} GiB; at most {most_slots} data disks of at most \
             {} GiB each can be attached to one VM in the catalog ({} GiB)",
            fmt_num(capacity),
            fmt_num(largest_fixed.max(largest_provisioned)),
            fmt_num(most_gib)
        ));
    }
}

/// The limit that ruled out most VMs, with one example.
fn commonest_rejection(rows: &CatalogRows, rejected: &[Rejected]) -> Option<String> {
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
    counts.first().map(|(_, count, example)| {
        format!(
            "no VM and disk combination fits; {count} of {} VMs fail the same way, e.g. {example}",
            rows.vms.len()
        )
    })
}

/// Sizes one NetApp Files service level: quota = max(throughput / rate per TiB, capacity,
/// minimum quota). 4,500 MiB/s at Premium's rate gives its quota in TiB.
pub fn netapp_option(
    level: &NetAppServiceLevel,
    throughput_mib_s: f64,
    capacity_tib: f64,
) -> NetAppOption {
    let rate = level.throughput_mib_s_per_tib.0;
    let by_throughput = if rate > 0.0 {
        throughput_mib_s / rate
    } else {
        f64::INFINITY
    };
    let quota = by_throughput
        .max(capacity_tib)
        .max(level.quota_tib_min.unwrap_or(0.0));
    let fits_quota = level.quota_tib_max.is_none_or(|max| quota <= max);
    let fits_throughput = level
        .volume_throughput_mib_s_max
        .is_none_or(|max| throughput_mib_s <= max.0 * (1.0 + 1e-9));
    let mut note = format!(
        "{} MiB/s / {} MiB/s per TiB = {:.2} TiB",
        fmt_num(throughput_mib_s),
        fmt_num(rate),
        by_throughput
    );
    if quota > by_throughput {
        note.push_str(&format!(
            "; quota raised to {quota:.2} TiB for capacity or the minimum"
        ));
    }
    if !fits_throughput {
        note.push_str(&format!(
            "; above the level's single-volume maximum of {} MiB/s",
            fmt_num(
                level
                    .volume_throughput_mib_s_max
                    .map(|m| m.0)
                    .unwrap_or(0.0)
            )
        ));
    }
    if !fits_quota {
        note.push_str("; above the largest quota of one volume");
    }
    note.push_str("; IOPS per quota is not published (unknown)");
    NetAppOption {
        level: level.name.clone(),
        table: level.table.clone(),
        throughput_mib_s_per_tib: rate,
        throughput_needed_mib_s: throughput_mib_s,
        capacity_needed_tib: capacity_tib,
        quota_tib: quota,
        throughput_mib_s: quota * rate,
        price_usd_month: level.price_usd_per_tib_month.map(|p| p * quota),
        fits: fits_quota && fits_throughput,
        note,
    }
}

/// A requirements file with every key documented, as `iofit plan --example-requirements`
/// prints it; `--requirements` reads it back.
pub const EXAMPLE_REQUIREMENTS: &str = include_str!("example-requirements.toml");

#[cfg(test)]
mod tests;
