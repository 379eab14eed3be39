//! iofit-predict: what a storage design delivers for a workload, and where it throttles.
//!
//! Given a VM row, the disks of each volume (rows from the catalog) and the workload each volume
//! carries, [`predict`] computes the IOPS, throughput and expected latency the design delivers,
//! checks EVERY limit (per disk, the sum of a stripe, the VM's uncached and cached limits, the
//! host cache, bursts, queue depth by Little's law, data-disk slots, capacity, latency) with its
//! headroom, and names the one limit that binds. It knows limits, not prices: the planner ranks.
//!
//! The model, in one paragraph: each volume runs its workload as fast as its own limits allow
//! (disks, stripe, outstanding IOs / service time); limits shared by several volumes (the VM's)
//! scale the volumes that use them down in proportion when their sum would exceed the limit, so
//! no prediction ever exceeds any limit. Reads that the host cache serves do not reach the disks
//! (a warm cache serves `cache_hit_pct` of them); every IO of a disk with host caching counts
//! against the VM's cached limits, every IO of a disk without against the uncached limits.
//! A limit the catalog does not publish (`None`) is reported as unknown and never assumed.
//!
//! ```
//! use iofit_catalog::{DiskKind, DiskSku, VmSize};
//! use iofit_model::{Bytes, HostCaching, Iops, MBps, VolumeDesign, Workload};
//! use iofit_predict::{predict, Assumptions, DiskPerf, LimitKind, VolumeLoad};
//!
//! // A P30 (5,000 IOPS, 200 MB/s) on a VM that allows 3,200 uncached IOPS.
//! let p30 = DiskSku { name: "P30".into(), table: "t".into(), kind: DiskKind::PremiumSsd,
//!     size_gib: 1024.0, iops: Iops(5000.0), throughput_mb_s: MBps(200.0),
//!     burst_iops: None, burst_throughput_mb_s: None, price_usd_month: None,
//!     price_usd_per_10k_operations: None, operation_unit_kib: None };
//! let vm = VmSize { name: "Standard_DS1".into(), table: "t".into(), family: "DS".into(),
//!     vcpu: 1, memory_gib: 3.5, max_data_disks: 2, premium_storage: true,
//!     uncached_iops: Some(Iops(3200.0)), uncached_throughput_mb_s: Some(MBps(32.0)),
//!     cached_iops: None, cached_throughput_mb_s: None, cache_size_gib: None,
//!     temp_storage_gib: None, burst_uncached_iops: None,
//!     burst_uncached_throughput_mb_s: None, price_usd_month: None, traits: None };
//! let volume = VolumeLoad {
//!     design: VolumeDesign::new("data", "P30", 1, HostCaching::None),
//!     disk: DiskPerf::from(&p30),
//!     workload: Workload::new(0.0, 100.0, Bytes::kib(4), 32, 1),
//!     target: None,
//! };
//! let prediction = predict(&vm, &[volume], &Assumptions::default(), None).unwrap();
//! assert_eq!(prediction.total_iops, 3200.0);
//! assert_eq!(prediction.binding.as_ref().unwrap().kind, LimitKind::VmUncachedIops);
//! ```

pub mod aws;
pub mod disk_spec;
mod findings;
pub mod gcp;
pub use findings::{Advice, Candidate, UpToDisk, Violation, Warning};
mod json;

use iofit_catalog::{DiskKind, DiskSku, ProvisionedDiskType, VmSize};
use iofit_model::formulas::{iops_from_outstanding, latency_ms_from_outstanding, outstanding_ios};
use iofit_model::units::group_thousands;
use iofit_model::{HostCaching, SizingTarget, VolumeDesign, Workload};
use serde::{Deserialize, Serialize};

/// Relative tolerance for "at the limit" comparisons of floating-point rates.
const EPS: f64 = 1e-9;

/// How many bytes one "MB" has in the tables a prediction uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MbConvention {
    /// 1 MB = 10^6 bytes: Azure's current VM and disk tables.
    #[default]
    Decimal,
    /// 1 MB = 1024 KB = 2^20 bytes: how the seed counts in its IO-size table
    /// (200 MB/s at 64 KB is 200 x 1024 / 64 = 3,200 IOPS).
    Binary,
}

impl MbConvention {
    pub fn bytes_per_mb(self) -> f64 {
        match self {
            MbConvention::Decimal => 1e6,
            MbConvention::Binary => 1_048_576.0,
        }
    }
    pub fn describe(self) -> &'static str {
        match self {
            MbConvention::Decimal => "1 MB = 10^6 bytes, as Azure's tables count",
            MbConvention::Binary => {
                "1 MB = 1024 KB = 1,048,576 bytes, as the seed counts in its IO-size table \
                 (200 MB/s at 64 KB = 200 x 1024 / 64 = 3,200 IOPS)"
            }
        }
    }
}

/// What the prediction takes as given because no table publishes it. Every output repeats these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assumptions {
    /// Time one IO takes on an unthrottled disk, milliseconds. Little's law turns it and the
    /// outstanding IOs into an IOPS bound.
    pub service_latency_ms: f64,
    /// Where the service latency comes from.
    pub service_latency_source: String,
    /// Share of reads on host-cached disks that the (warm) cache serves, 0..=100.
    pub cache_hit_pct: f64,
    pub mb: MbConvention,
    /// Standard HDD service times: Azure designs them for reads under 20 ms and writes under
    /// 10 ms; the prediction takes those bounds (conservative) instead of the SSD figure.
    #[serde(default = "hdd_read_ms")]
    pub hdd_read_latency_ms: f64,
    #[serde(default = "hdd_write_ms")]
    pub hdd_write_latency_ms: f64,
    #[serde(default = "hdd_source")]
    pub hdd_latency_source: String,
    /// Standard SSD service time: Azure designs Standard SSDs for "single-digit millisecond
    /// latencies" and their "up to" IOPS only 99% of the time; the prediction takes the bound
    /// (10 ms, conservative, as for HDD) instead of the 1 ms Premium SSD assumption.
    #[serde(default = "standard_ssd_ms")]
    pub standard_ssd_latency_ms: f64,
    #[serde(default = "standard_ssd_source")]
    pub standard_ssd_latency_source: String,
}

/// Where Azure states the latency and performance wording of its disk kinds.
pub const DISKS_TYPES_SOURCE: &str = "Azure docs 'Azure managed disk types' \
    (learn.microsoft.com/azure/virtual-machines/disks-types, articles/virtual-machines/disks-types.md \
    in github.com/MicrosoftDocs/azure-compute-docs at commit e4cd8b08c1d120d2bb3919f828cb3feb18f14826, \
    read 2026-11-22)";

/// Azure's wording for Standard SSD performance, quoted where a plan relies on it.
pub const STANDARD_SSD_WORDING: &str = "Standard SSDs are designed to provide single-digit \
    millisecond latencies and the IOPS and throughput up to the limits described in the \
    preceding table 99% of the time. Actual IOPS and throughput may vary sometimes depending \
    on the traffic patterns.";

/// Azure's wording for Standard HDD performance.
pub const STANDARD_HDD_WORDING: &str = "Standard HDDs are designed to deliver write latencies \
    of less than 10 ms and read latencies of less than 20 ms for most IO operations. Performance \
    may vary more widely than that of SSD-based disks, and actual performance may vary depending \
    on IO size and workload pattern.";

/// Azure's wording for Premium SSD performance (provisioned, 99.9%).
pub const PREMIUM_SSD_WORDING: &str = "Premium SSDs are designed to provide the single-digit \
    millisecond latencies, target IOPS, and throughput described in the preceding table 99.9% \
    of the time.";

fn standard_ssd_ms() -> f64 {
    10.0
}
fn standard_ssd_source() -> String {
    format!(
        "{DISKS_TYPES_SOURCE}: \"{STANDARD_SSD_WORDING}\" iofit takes the upper bound of \
         'single-digit millisecond', 10 ms (conservative), as for Standard HDD; Premium SSD keeps \
         the 1 ms assumption, within Azure's single-digit bound for it at 99.9%"
    )
}

fn hdd_read_ms() -> f64 {
    20.0
}
fn hdd_write_ms() -> f64 {
    10.0
}
fn hdd_source() -> String {
    "Azure docs 'Azure managed disk types' (articles/virtual-machines/disks-types.md): Standard \
     HDD disks are designed to deliver write latencies under 10 ms and read latencies under 20 ms"
        .to_string()
}

impl Assumptions {
    /// Service time of one IO on a disk of `kind` with `read_pct` reads: the Standard HDD
    /// bounds for HDDs (weighted by the mix), the Standard SSD bound for Standard SSDs,
    /// `service_latency_ms` for Premium SSD, Premium SSD v2 and Ultra.
    pub fn service_latency_ms_for(&self, kind: DiskKind, read_pct: f64) -> f64 {
        match kind {
            DiskKind::StandardHdd => {
                let read = read_pct / 100.0;
                read * self.hdd_read_latency_ms + (1.0 - read) * self.hdd_write_latency_ms
            }
            DiskKind::StandardSsd => self.standard_ssd_latency_ms,
            _ => self.service_latency_ms,
        }
    }
}

impl Default for Assumptions {
    fn default() -> Self {
        Assumptions {
            service_latency_ms: 1.0,
            service_latency_source: "assumed: no disk table publishes a latency; 1 ms is the \
                                     seeds' own example (Little's law example, NetApp report's \
                                     ~1 ms); set --service-latency-ms to a measured value"
                .to_string(),
            // The seed benchmarks after warming the cache, so reads on ReadOnly disks hit it.
            cache_hit_pct: 100.0,
            mb: MbConvention::Decimal,
            hdd_read_latency_ms: hdd_read_ms(),
            hdd_write_latency_ms: hdd_write_ms(),
            hdd_latency_source: hdd_source(),
            standard_ssd_latency_ms: standard_ssd_ms(),
            standard_ssd_latency_source: standard_ssd_source(),
        }
    }
}

/// The performance of one disk of a volume, from a fixed SKU or a provisioned disk type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskPerf {
    pub name: String,
    /// Catalog table the figures come from.
    pub table: String,
    pub kind: DiskKind,
    pub size_gib: f64,
    pub iops: f64,
    pub throughput_mb_s: f64,
    pub burst_iops: Option<f64>,
    pub burst_throughput_mb_s: Option<f64>,
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
    pub operation_unit_kib: Option<u64>,
}

impl From<&DiskSku> for DiskPerf {
    fn from(sku: &DiskSku) -> Self {
        DiskPerf {
            name: sku.name.clone(),
            table: sku.table.clone(),
            kind: sku.kind,
            size_gib: sku.size_gib,
            iops: sku.iops.0,
            throughput_mb_s: sku.throughput_mb_s.0,
            burst_iops: sku.burst_iops.map(|v| v.0),
            burst_throughput_mb_s: sku.burst_throughput_mb_s.map(|v| v.0),
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
        size_gib: f64,
        iops: f64,
        throughput_mb_s: f64,
    ) -> Result<DiskPerf, PredictError> {
        let problem = |text: String| PredictError::Provisioned {
            name: disk_type.name.clone(),
            problem: text,
        };
        if !(size_gib >= disk_type.size_gib_min && size_gib <= disk_type.size_gib_max) {
            return Err(problem(format!(
                "size {size_gib} GiB is outside {}..={} GiB",
                disk_type.size_gib_min, disk_type.size_gib_max
            )));
        }
        let iops_allowed = provisioned_iops_max(disk_type, size_gib);
        if !(iops > 0.0 && iops <= iops_allowed * (1.0 + EPS)) {
            return Err(problem(format!(
                "{iops} IOPS is not within 1..={iops_allowed} for {size_gib} GiB \
                 ({} IOPS per GiB, at most {})",
                disk_type.iops_per_gib_max, disk_type.iops_max.0
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
            iops,
            throughput_mb_s,
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
pub fn provisioned_iops_max(disk_type: &ProvisionedDiskType, size_gib: f64) -> f64 {
    (size_gib * disk_type.iops_per_gib_max)
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
    size_gib: f64,
    iops: f64,
    throughput_mb_s: f64,
) -> Option<f64> {
    // How Azure bills it is the catalog's to say.
    disk_type.monthly_price_usd(size_gib, iops, throughput_mb_s)
}

/// One volume of the design, with the disk rows it uses and the load it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeLoad {
    pub design: VolumeDesign,
    pub disk: DiskPerf,
    pub workload: Workload,
    /// What the volume must sustain; without it the prediction is the design's maximum.
    pub target: Option<SizingTarget>,
}

/// Catalog rows the advice may name (bigger disks, bigger VMs).
#[derive(Clone, Copy, Debug)]
pub struct Alternatives<'a> {
    pub vms: &'a [VmSize],
    pub disks: &'a [DiskSku],
}

/// Why a prediction could not be made (bad input, not a throttled design).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PredictError {
    #[error("the design has no volumes; give at least one disk, e.g. --disk 1xP30:none")]
    NoVolumes,
    #[error("volume '{label}': {problem}")]
    Volume { label: String, problem: String },
    #[error("{name}: {problem}")]
    Assumption { name: String, problem: String },
    #[error("provisioned disk {name}: {problem}")]
    Provisioned { name: String, problem: String },
}

/// Every kind of limit the prediction checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    VmUncachedIops,
    VmUncachedThroughput,
    VmCachedIops,
    VmCachedThroughput,
    VmBurstIops,
    VmBurstThroughput,
    VmDataDisks,
    VmPremiumStorage,
    HostCacheSize,
    VolumeIops,
    VolumeThroughput,
    DiskIops,
    DiskThroughput,
    DiskBurstIops,
    DiskBurstThroughput,
    StripeMembersBusy,
    QueueDepth,
    HostCachingSupport,
    Capacity,
    Latency,
}

impl LimitKind {
    /// Whether the limit caps IOPS or MB/s while running (the others are yes/no checks or
    /// burst allowances that do not cap sustained load).
    pub fn caps_sustained_rate(self) -> bool {
        matches!(
            self,
            LimitKind::VmUncachedIops
                | LimitKind::VmUncachedThroughput
                | LimitKind::VmCachedIops
                | LimitKind::VmCachedThroughput
                | LimitKind::VolumeIops
                | LimitKind::VolumeThroughput
                | LimitKind::DiskIops
                | LimitKind::DiskThroughput
                | LimitKind::StripeMembersBusy
                | LimitKind::QueueDepth
        )
    }
}

/// The unit a limit is counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitUnit {
    Iops,
    /// MB/s in the prediction's [`MbConvention`].
    MbPerSecond,
    Disks,
    Gib,
    Milliseconds,
    /// A yes/no check: 1 = allowed, 0 = not.
    Allowed,
}

impl LimitUnit {
    pub fn suffix(self) -> &'static str {
        match self {
            LimitUnit::Iops => " IOPS",
            LimitUnit::MbPerSecond => " MB/s",
            LimitUnit::Disks => " disks",
            LimitUnit::Gib => " GiB",
            LimitUnit::Milliseconds => " ms",
            LimitUnit::Allowed => "",
        }
    }
}

/// State of one limit at the operating point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitStatus {
    /// Under the limit, with headroom.
    Ok,
    /// The limit that caps the design (or the first that would as load grows).
    Binding,
    /// At the limit (tied with the binding one).
    AtLimit,
    /// Over the limit: the design does not work as given (only for yes/no checks, capacity,
    /// latency; a rate is throttled, never over).
    Over,
    /// The catalog does not publish this limit ([`LimitCheck::unpublished`]), or it does but
    /// the load on it is unknown ([`LimitCheck::load_unknown`]): no verdict either way (JSON
    /// writes `null` for the second).
    Unknown,
    /// Informational: a burst allowance, or an advisory check such as host cache size; shown
    /// with its headroom, never caps sustained load.
    Burst,
}

/// One checked limit: its value, what the design uses of it, and the headroom.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct LimitCheck {
    pub kind: LimitKind,
    /// `vm` or the volume label.
    pub scope: String,
    /// The limit in words, e.g. "VM uncached IOPS (Standard_DS1)".
    pub name: String,
    pub unit: LimitUnit,
    /// The published limit; `None` when not published.
    pub limit: Option<f64>,
    /// What the design uses of it at the operating point (`null` in JSON when
    /// [`LimitCheck::load_unknown`]).
    #[serde(deserialize_with = "json::number_or_null")]
    pub used: f64,
    pub headroom: Option<f64>,
    pub headroom_pct: Option<f64>,
    /// `null` in JSON when the limit is published but its load is unknown.
    #[serde(deserialize_with = "json::status_or_unknown")]
    pub status: LimitStatus,
    /// Catalog table (or "assumption") the limit comes from.
    pub source: String,
    /// The load on this limit comes from a volume that runs flat out into an unpublished limit
    /// ([`VolumePrediction::unpublished_limits`]): its rates are unknown, so what it uses of
    /// this limit and the headroom left are unknown too (the figures held are only what the
    /// published limits allow; JSON writes `null`, text "unknown").
    #[serde(skip)]
    pub load_unknown: bool,
}

impl LimitCheck {
    /// The catalog does not publish this limit (its status is [`LimitStatus::Unknown`]).
    pub fn unpublished(&self) -> bool {
        self.limit.is_none() && self.status == LimitStatus::Unknown
    }
}

/// The one limit that binds, in a form `--json` readers can act on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Binding {
    pub kind: LimitKind,
    pub scope: String,
    pub name: String,
    pub unit: LimitUnit,
    pub limit: f64,
    /// `null` in JSON when the load on the limit is unknown ([`LimitCheck::load_unknown`]).
    #[serde(deserialize_with = "json::number_or_null")]
    pub used: f64,
    /// One sentence: what caps the design and at what.
    pub words: String,
}

/// Queue depth facts of one volume by Little's law.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueueDepthCheck {
    /// IOs the workload keeps in flight on the volume (iodepth x jobs).
    pub outstanding_ios: u32,
    pub stripe_members: u32,
    /// Members that have at least one IO to do at this depth.
    pub busy_members: u32,
    /// Depth at which every member has work: one IO per member at least.
    pub depth_to_keep_members_busy: u32,
    /// Depth at which every member reaches its own IOPS limit at the assumed service time:
    /// per-disk depth (disk IOPS x service time) x members.
    pub depth_to_reach_disk_limits: u32,
    /// Depth the target needs: target IOPS x target latency (or service time).
    pub depth_for_target: Option<u32>,
    /// IOPS that the outstanding IOs can carry at the service time (outstanding / latency).
    pub littles_law_iops: f64,
}

/// What one volume delivers. In JSON the rates an unpublished limit leaves unknown are `null`
/// (see [`VolumePrediction::rates_known`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct VolumePrediction {
    pub label: String,
    pub disk_sku: String,
    pub disk_table: String,
    pub disk_kind: DiskKind,
    pub disk_count: u32,
    pub caching: HostCaching,
    pub stripe_size_bytes: Option<u64>,
    pub read_pct: f64,
    pub random_pct: f64,
    pub read_io_size_bytes: u64,
    pub write_io_size_bytes: u64,
    /// What the volume does when every volume runs flat out (no targets). With targets a
    /// volume may do more than this when another's low target leaves room in a shared limit.
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_iops: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_throughput_mb_s: f64,
    /// What it does at the operating point (the target when met, else the maximum).
    #[serde(deserialize_with = "json::number_or_null")]
    pub iops: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub throughput_mb_s: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub read_iops: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub write_iops: f64,
    /// Reads the host cache serves (they do not reach the disks).
    #[serde(deserialize_with = "json::number_or_null")]
    pub cache_read_iops: f64,
    /// IOs reaching the disks, after stripe splitting.
    #[serde(deserialize_with = "json::number_or_null")]
    pub disk_iops: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub latency_ms: f64,
    /// Disk IOs one volume IO becomes when it spans stripe units (1 when it fits in one).
    pub disk_ios_per_read: f64,
    pub disk_ios_per_write: f64,
    pub queue: QueueDepthCheck,
    /// What caps this volume, in words.
    pub binding: String,
    /// How the IO size turns the binding limit into IOPS or MB/s (throughput = IOPS x size).
    pub io_size_effect: Option<String>,
    pub target_iops: Option<f64>,
    pub target_throughput_mb_s: Option<f64>,
    pub target_latency_ms: Option<f64>,
    pub meets_target: Option<bool>,
    /// Sustained rate limits this volume's IO counts against whose figure the catalog does not
    /// publish. Their room is unknown, so the volume's flat-out rates (`max_iops`, and `iops`
    /// without a target) are only what the published limits allow: its true rates are unknown
    /// ([`VolumePrediction::rates_known`]); a target is not checked against them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unpublished_limits: Vec<String>,
}

impl VolumePrediction {
    /// Whether every rate limit this volume runs under is published, so its flat-out rates
    /// are numbers and not only bounds from the published limits.
    pub fn rates_known(&self) -> bool {
        self.unpublished_limits.is_empty()
    }
}

/// The whole prediction. In JSON the totals an unpublished limit leaves unknown are `null`
/// (see [`Prediction::max_known`], [`Prediction::delivered_known`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct Prediction {
    pub vm: String,
    pub vm_table: String,
    /// Every catalog table the figures come from.
    pub tables: Vec<String>,
    pub assumptions: Assumptions,
    pub mb_convention_note: String,
    pub volumes: Vec<VolumePrediction>,
    #[serde(deserialize_with = "json::number_or_null")]
    pub total_iops: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub total_throughput_mb_s: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_total_iops: f64,
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_total_throughput_mb_s: f64,
    pub limits: Vec<LimitCheck>,
    pub binding: Option<Binding>,
    /// Yes/no checks the design fails (too many disks, premium disk on a standard VM...).
    pub violations: Vec<Violation>,
    /// What to watch: assumptions made, risks taken, limits not published.
    pub warnings: Vec<Warning>,
    /// What to change for a volume that misses its target.
    pub advice: Vec<Advice>,
    /// With targets: whether every volume meets its target and no check fails.
    pub meets_requirements: Option<bool>,
    /// What the design delivers flat out while credit bursting lasts (VM-level and disk-level,
    /// credit-based as Azure describes it), where that is more than the sustained figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstFigure>,
}

/// The design flat out while its burst credits last: every credit-bursting limit (the VM's
/// "max burst uncached" IOPS and MB/s, P1-P20 and Standard SSD disks' burst figures) at its
/// burst figure. The buckets start full and hold 30 minutes at the full burst rate; at a rate
/// between baseline and burst they last longer (Azure's "Managed disk bursting" page: "Your
/// resource, either a VM or disk, will start with fully stocked credits. These credits will
/// allow you to burst for 30 minutes at the maximum burst rate"; credits accrue below the
/// provisioned limit). `emulate` enforces the same buckets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BurstFigure {
    pub total_iops: f64,
    pub total_throughput_mb_s: f64,
    /// Seconds the fullest-drained bucket lasts at this rate, starting full.
    pub credit_seconds: f64,
    /// What caps the design while it bursts.
    pub binding: String,
}

/// Seconds a full credit bucket lasts at the full burst rate (Azure: 30 minutes).
pub const BURST_CREDIT_SECONDS: f64 = 1800.0;

impl Prediction {
    /// Every violation's sentence, in the order found (what the reports list).
    pub fn violation_sentences(&self) -> Vec<String> {
        self.violations.iter().map(ToString::to_string).collect()
    }

    /// Every warning's sentence, in the order found (what the reports list).
    pub fn warning_sentences(&self) -> Vec<String> {
        self.warnings.iter().map(ToString::to_string).collect()
    }

    /// Every piece of advice's sentence, volume by volume (what the reports list).
    pub fn advice_sentences(&self) -> Vec<String> {
        self.advice.iter().map(ToString::to_string).collect()
    }

    /// Whether the design is buildable and meets every target (when targets were given).
    pub fn fits(&self) -> bool {
        self.violations.is_empty() && self.meets_requirements.unwrap_or(true)
    }

    /// The unpublished rate limits any volume runs under (see
    /// [`VolumePrediction::unpublished_limits`]), each once.
    pub fn unpublished_limits(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self.volumes.iter().flat_map(|v| &v.unpublished_limits) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        names
    }

    /// Whether the flat-out rates (`max_total_*`) are numbers: no volume runs under an
    /// unpublished rate limit.
    pub fn max_known(&self) -> bool {
        self.volumes.iter().all(VolumePrediction::rates_known)
    }

    /// Whether the delivered rates (`total_*`) are numbers: with targets, the targets stand
    /// (an unpublished limit is not checked, and says so); flat out, as [`Self::max_known`].
    pub fn delivered_known(&self) -> bool {
        self.volumes
            .iter()
            .all(|v| v.rates_known() || v.target_iops.is_some())
    }

    /// The check of one kind in one scope.
    pub fn limit(&self, kind: LimitKind, scope: &str) -> Option<&LimitCheck> {
        self.limits
            .iter()
            .find(|check| check.kind == kind && check.scope == scope)
    }
}

/// Per-volume factors derived once from design and workload.
struct Factors {
    members: f64,
    cached: bool,
    read_share: f64,
    hit_share: f64,
    split_read: f64,
    split_write: f64,
    /// Disk IOs per volume IO (after cache hits and stripe splitting).
    disk_ios: f64,
    /// Bytes reaching the disks per volume IO.
    disk_bytes: f64,
    /// IOs the host sees per volume IO (hits included).
    host_ios: f64,
    /// Bytes per volume IO.
    host_bytes: f64,
    outstanding: u32,
    busy_members: u32,
    /// Service time of one IO on this volume's disks, ms.
    service_ms: f64,
}

/// A rate limit in linear form: `sum(coeff[v] x iops[v]) <= capacity`.
#[derive(Clone)]
struct RateLimit {
    kind: LimitKind,
    /// `None`: the VM (shared); `Some(v)`: volume v's own.
    volume: Option<usize>,
    name: String,
    unit: LimitUnit,
    coeff: Vec<f64>,
    capacity: Option<f64>,
    source: String,
}

impl RateLimit {
    fn used(&self, rates: &[f64]) -> f64 {
        self.coeff.iter().zip(rates).map(|(c, x)| c * x).sum()
    }
    fn sustained(&self) -> bool {
        self.kind.caps_sustained_rate()
    }
}

struct Solution {
    rates: Vec<f64>,
    /// Index into the limits of what capped each volume; `None`: the target.
    binding: Vec<Option<usize>>,
}

/// Each volume as fast as its own limits (and target) allow, then shared limits scale the
/// volumes that use them in proportion. Every limit holds afterwards: a volume's rate only
/// drops, and each shared limit's load is at most its capacity.
fn solve(limits: &[RateLimit], volume_count: usize, targets: &[Option<f64>]) -> Solution {
    let mut rates = vec![f64::INFINITY; volume_count];
    let mut binding = vec![None; volume_count];
    for (index, limit) in limits.iter().enumerate() {
        let (Some(v), Some(capacity), true) = (limit.volume, limit.capacity, limit.sustained())
        else {
            continue;
        };
        if limit.coeff[v] > 0.0 {
            let bound = capacity / limit.coeff[v];
            if bound < rates[v] * (1.0 - EPS) {
                rates[v] = bound;
                binding[v] = Some(index);
            }
        }
    }
    for v in 0..volume_count {
        if let Some(target) = targets[v] {
            if target < rates[v] {
                rates[v] = target;
                binding[v] = None;
            }
        }
    }
    let mut factors = vec![1.0_f64; volume_count];
    let mut shared_binding: Vec<Option<usize>> = vec![None; volume_count];
    for (index, limit) in limits.iter().enumerate() {
        let (None, Some(capacity), true) = (limit.volume, limit.capacity, limit.sustained()) else {
            continue;
        };
        let load = limit.used(&rates);
        if load > capacity * (1.0 + EPS) {
            let factor = capacity / load;
            for v in 0..volume_count {
                if limit.coeff[v] > 0.0 && factor < factors[v] {
                    factors[v] = factor;
                    shared_binding[v] = Some(index);
                }
            }
        }
    }
    for v in 0..volume_count {
        if shared_binding[v].is_some() {
            rates[v] *= factors[v];
            binding[v] = shared_binding[v];
        }
    }
    Solution { rates, binding }
}

fn fmt_num(value: f64) -> String {
    group_thousands(value)
}

/// Two decimals for small values (latencies), grouped thousands otherwise.
fn fmt_num_precise(value: f64) -> String {
    if value.abs() < 100.0 {
        format!("{value:.2}")
    } else {
        group_thousands(value)
    }
}

/// Predicts what `volumes` on `vm` deliver. `alternatives`, when given, lets the advice name
/// bigger disks and VMs from the catalog.
///
/// The method's steps: the factors of each volume (cache hits, stripe splitting, queue
/// depth), the limits as linear constraints on the volumes' IOPS, the solve (flat out, and at
/// the targets), the checks of every limit, then each volume's results (queue depth, what
/// binds) and the advice.
pub fn predict(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    assumptions: &Assumptions,
    alternatives: Option<Alternatives<'_>>,
) -> Result<Prediction, PredictError> {
    check_inputs(volumes, assumptions)?;
    let mb = assumptions.mb.bytes_per_mb();
    let mut notes = Notes::default();
    let factors = volumes
        .iter()
        .map(|volume| volume_factors(vm, volume, assumptions, &mut notes))
        .collect::<Result<Vec<_>, _>>()?;

    // --- the rate limits, VM first (the order breaks ties when naming the binding limit) ---
    let mut limits = vm_rate_limits(vm, &factors, mb);
    for (v, (volume, f)) in volumes.iter().zip(&factors).enumerate() {
        volume_rate_limits(v, volume, f, volumes.len(), mb, &mut limits);
    }

    // --- solve: the maximum, and the operating point at the targets ---
    let targets = targets_of(volumes, &factors, mb);
    let has_targets = targets.iter().any(Option::is_some);
    let max = solve(&limits, volumes.len(), &vec![None; volumes.len()]);
    let operating = if has_targets {
        solve(&limits, volumes.len(), &targets)
    } else {
        Solution {
            rates: max.rates.clone(),
            binding: max.binding.clone(),
        }
    };
    let rates = &operating.rates;

    // --- the checks: every rate limit at the operating point, then the yes/no ones ---
    let (binding_index, best) = binding_limit(&limits, rates);
    let mut checks = rate_checks(&limits, rates, binding_index, best, volumes);
    yes_no_checks(vm, volumes, &factors, assumptions, &mut checks, &mut notes);

    // --- per-volume results ---
    let solved = Solved {
        limits: &limits,
        max: &max,
        operating: &operating,
        targets: &targets,
        mb,
    };
    let mut volume_predictions = Vec::with_capacity(volumes.len());
    let mut all_met = true;
    for (v, (volume, f)) in volumes.iter().zip(&factors).enumerate() {
        let prediction = volume_prediction(v, volume, f, &solved, &mut checks, &mut notes);
        all_met &= prediction.meets_target.unwrap_or(true);
        volume_predictions.push(prediction);
    }
    target_violations(&checks, &mut notes);
    mark_unknown_loads(&limits, &volume_predictions, &mut checks);
    let mut binding = binding_index.map(|index| binding_of(&limits, index, rates, volumes));
    if let Some(binding) = binding.as_mut() {
        unknown_binding_words(binding, &checks);
    }
    let rates_known = volume_predictions.iter().all(VolumePrediction::rates_known);
    let advice = advise(
        vm,
        volumes,
        &factors,
        &limits,
        &operating,
        &targets,
        assumptions,
        alternatives,
    );
    let Notes {
        warnings,
        violations,
    } = notes;
    let per_mb = |rates: &[f64]| -> f64 {
        rates
            .iter()
            .zip(&factors)
            .map(|(x, f)| x * f.host_bytes / mb)
            .sum()
    };
    Ok(Prediction {
        vm: vm.name.clone(),
        vm_table: vm.table.clone(),
        tables: tables_of(vm, volumes),
        assumptions: assumptions.clone(),
        mb_convention_note: assumptions.mb.describe().to_string(),
        volumes: volume_predictions,
        total_iops: rates.iter().sum(),
        total_throughput_mb_s: per_mb(rates),
        max_total_iops: max.rates.iter().sum(),
        max_total_throughput_mb_s: per_mb(&max.rates),
        limits: checks,
        binding,
        meets_requirements: has_targets.then_some(all_met && violations.is_empty()),
        // Flat out into an unpublished limit, what bursting adds is unknown as well.
        burst: burst_figure(vm, volumes, &limits, &factors, &max, mb).filter(|_| rates_known),
        violations,
        warnings,
        advice,
    })
}

/// Marks the rate checks whose load comes from a volume running flat out into an unpublished
/// limit (its rates are unknown): what they use and their headroom are unknown. The rate
/// checks are the first `limits.len()` checks, in the limits' order.
fn mark_unknown_loads(
    limits: &[RateLimit],
    volumes: &[VolumePrediction],
    checks: &mut [LimitCheck],
) {
    let unknown: Vec<bool> = volumes
        .iter()
        .map(|v| !v.rates_known() && v.target_iops.is_none())
        .collect();
    for (check, limit) in checks.iter_mut().zip(limits) {
        check.load_unknown = limit
            .coeff
            .iter()
            .zip(&unknown)
            .any(|(coeff, unknown)| *coeff > 0.0 && *unknown);
        // With its load unknown no verdict (binding, at limit, ok) holds for the limit.
        if check.load_unknown {
            check.status = LimitStatus::Unknown;
        }
    }
}

/// The binding limit's words when its load is unknown: only that it binds first among the
/// published limits, never the load that the unpublished ones leave unknown.
fn unknown_binding_words(binding: &mut Binding, checks: &[LimitCheck]) {
    let Some(check) = checks
        .iter()
        .find(|c| c.kind == binding.kind && c.scope == binding.scope && c.load_unknown)
    else {
        return;
    };
    let unpublished: Vec<&str> = checks
        .iter()
        .filter(|c| c.unpublished() && c.kind.caps_sustained_rate())
        .map(|c| c.name.as_str())
        .collect();
    binding.words = format!(
        "of the published limits {} ({}{}) binds first; {} not published, so the load is \
         unknown",
        check.name,
        fmt_num(binding.limit),
        binding.unit.suffix(),
        unpublished.join(", ")
    );
}

/// What one volume asks of its VM's shared rate limits at its target: the IOs and MB/s the
/// host sees, and which of the VM's two pools (cached or uncached) carries them. Predict's own
/// factors, so a search can add volumes' demands and compare them with the VM's limits exactly
/// as [`predict`] does. `None` without a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmDemand {
    /// Counted against the VM's cached limits (else its uncached ones).
    pub cached: bool,
    pub iops: f64,
    pub throughput_mb_s: f64,
}

/// The [`VmDemand`] of `volume` on `vm`; `None` when the volume has no target.
pub fn vm_demand(
    vm: &VmSize,
    volume: &VolumeLoad,
    assumptions: &Assumptions,
) -> Result<Option<VmDemand>, PredictError> {
    let mb = assumptions.mb.bytes_per_mb();
    let f = volume_factors(vm, volume, assumptions, &mut Notes::default())?;
    let target = targets_of(std::slice::from_ref(volume), std::slice::from_ref(&f), mb)[0];
    Ok(target.map(|rate| VmDemand {
        cached: f.cached,
        iops: rate * f.host_ios,
        throughput_mb_s: rate * f.host_bytes / mb,
    }))
}

/// A limit's burst capacity where it bursts by credits: the VM's uncached limits, a disk's
/// (and so a stripe's, and the members a queue keeps busy); `None` where it does not burst.
fn burst_capacity(limit: &RateLimit, vm: &VmSize, volumes: &[VolumeLoad]) -> Option<f64> {
    let capacity = limit.capacity?;
    let disk = limit.volume.map(|v| &volumes[v].disk);
    let ratio = |burst: Option<f64>, base: f64| burst.filter(|b| *b > base).map(|b| b / base);
    let factor = match (limit.kind, disk) {
        (LimitKind::VmUncachedIops, _) => ratio(vm.burst_uncached_iops.map(|v| v.0), capacity),
        (LimitKind::VmUncachedThroughput, _) => {
            ratio(vm.burst_uncached_throughput_mb_s.map(|v| v.0), capacity)
        }
        (LimitKind::DiskIops | LimitKind::VolumeIops | LimitKind::StripeMembersBusy, Some(d)) => {
            ratio(d.burst_iops, d.iops)
        }
        (LimitKind::DiskThroughput | LimitKind::VolumeThroughput, Some(d)) => {
            ratio(d.burst_throughput_mb_s, d.throughput_mb_s)
        }
        _ => None,
    }?;
    Some(capacity * factor)
}

/// The design flat out with every credit-bursting limit at its burst figure, and how long the
/// first bucket to run dry lasts at that rate; `None` where bursting adds nothing.
fn burst_figure(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    limits: &[RateLimit],
    factors: &[Factors],
    sustained: &Solution,
    mb: f64,
) -> Option<BurstFigure> {
    let bursting: Vec<RateLimit> = limits
        .iter()
        .map(|limit| RateLimit {
            capacity: burst_capacity(limit, vm, volumes).or(limit.capacity),
            ..limit.clone()
        })
        .collect();
    let solved = solve(&bursting, volumes.len(), &vec![None; volumes.len()]);
    let total_iops: f64 = solved.rates.iter().sum();
    let sustained_iops: f64 = sustained.rates.iter().sum();
    if total_iops <= sustained_iops * (1.0 + 1e-6) || total_iops.is_nan() {
        return None;
    }
    // Each bucket holds (burst - base) x 30 min and drains by what is used above the base.
    let credit_seconds = limits
        .iter()
        .zip(&bursting)
        .filter_map(|(base, burst)| {
            let (base_cap, burst_cap) = (base.capacity?, burst.capacity?);
            let drain = base.used(&solved.rates) - base_cap;
            (burst_cap > base_cap && drain > 0.0)
                .then(|| (burst_cap - base_cap) * BURST_CREDIT_SECONDS / drain)
        })
        .fold(f64::INFINITY, f64::min);
    if !credit_seconds.is_finite() {
        return None;
    }
    let (index, _) = binding_limit(&bursting, &solved.rates);
    Some(BurstFigure {
        total_iops,
        total_throughput_mb_s: solved
            .rates
            .iter()
            .zip(factors)
            .map(|(x, f)| x * f.host_bytes / mb)
            .sum(),
        credit_seconds,
        binding: index.map_or_else(|| "none known".to_string(), |i| bursting[i].name.clone()),
    })
}

/// What a prediction found wrong (violations) and should say (warnings), in the order found.
#[derive(Default)]
struct Notes {
    warnings: Vec<Warning>,
    violations: Vec<Violation>,
}

/// The solved operating points and what they were solved from.
struct Solved<'a> {
    limits: &'a [RateLimit],
    max: &'a Solution,
    operating: &'a Solution,
    targets: &'a [Option<f64>],
    mb: f64,
}

/// The inputs predict cannot work with.
fn check_inputs(volumes: &[VolumeLoad], assumptions: &Assumptions) -> Result<(), PredictError> {
    if volumes.is_empty() {
        return Err(PredictError::NoVolumes);
    }
    if !(assumptions.service_latency_ms.is_finite() && assumptions.service_latency_ms > 0.0) {
        return Err(PredictError::Assumption {
            name: "service latency".into(),
            problem: format!("{} ms must be a number > 0", assumptions.service_latency_ms),
        });
    }
    if !(0.0..=100.0).contains(&assumptions.cache_hit_pct) {
        return Err(PredictError::Assumption {
            name: "cache hit %".into(),
            problem: format!("{} is outside 0..=100", assumptions.cache_hit_pct),
        });
    }
    Ok(())
}

/// One volume's factors: IOs and bytes per volume IO at the host and at the disks (cache hits,
/// stripe splitting), the outstanding IOs and the stripe members they keep busy.
fn volume_factors(
    vm: &VmSize,
    volume: &VolumeLoad,
    assumptions: &Assumptions,
    notes: &mut Notes,
) -> Result<Factors, PredictError> {
    let label = &volume.design.label;
    volume
        .workload
        .validate()
        .map_err(|problem| PredictError::Volume {
            label: label.clone(),
            problem: problem.to_string(),
        })?;
    if volume.design.disk_count == 0 {
        return Err(PredictError::Volume {
            label: label.clone(),
            problem: "disk count must be at least 1".into(),
        });
    }
    if let Some(target) = &volume.target {
        check_target(label, target)?;
    }
    volume_notes(volume, notes);
    let label = &volume.design.label;
    let members = volume.design.disk_count as f64;
    let cached = volume.design.caching.is_cached();
    let cached = cached && volume.disk.kind.supports_host_caching();
    let cached = cached && cache_limits_published(vm, volume, notes);
    let workload = &volume.workload;
    let read_share = workload.read_pct / 100.0;
    let hit_share = if cached {
        assumptions.cache_hit_pct / 100.0
    } else {
        0.0
    };
    let stripe = volume
        .design
        .stripe_size
        .map(|s| s.as_f64())
        .filter(|s| *s > 0.0);
    if volume.design.disk_count > 1 && stripe.is_none() {
        notes.warnings.push(Warning::NoStripeSize {
            volume: label.clone(),
            disks: volume.design.disk_count,
        });
    }
    // An IO larger than the stripe unit becomes one disk IO per unit it spans, and each disk
    // IO counts against the IOPS limits in Azure's IO units (one per started 256 KiB:
    // `azure_io_units`, the rule `emulate` enforces too).
    let split = |size: f64| match stripe {
        Some(unit) if volume.design.disk_count > 1 => {
            (size / unit).ceil().max(1.0) * iofit_model::formulas::azure_io_units(size.min(unit))
        }
        _ => iofit_model::formulas::azure_io_units(size),
    };
    let read_size = workload.read_io_size.as_f64();
    let write_size = workload.write_io_size.as_f64();
    let split_read = split(read_size);
    let split_write = split(write_size);
    let disk_ios = read_share * (1.0 - hit_share) * split_read + (1.0 - read_share) * split_write;
    let disk_bytes = read_share * (1.0 - hit_share) * read_size + (1.0 - read_share) * write_size;
    let host_ios = read_share * split_read + (1.0 - read_share) * split_write;
    let host_bytes = read_share * read_size + (1.0 - read_share) * write_size;
    let outstanding = workload.outstanding_ios();
    let per_io_members = split_read.max(split_write) as u32;
    let busy_members =
        (outstanding.saturating_mul(per_io_members.max(1))).min(volume.design.disk_count);
    Ok(Factors {
        members,
        cached,
        read_share,
        hit_share,
        split_read,
        split_write,
        disk_ios,
        disk_bytes,
        host_ios,
        host_bytes,
        outstanding,
        busy_members,
        service_ms: assumptions.service_latency_ms_for(volume.disk.kind, workload.read_pct),
    })
}

/// Whether the VM publishes the cached limits a cached volume runs under. Where it does not,
/// the volume is predicted as uncached, as `plan` refuses caching there: a cache whose limits
/// nobody published would otherwise deliver any number of IOPS.
fn cache_limits_published(vm: &VmSize, volume: &VolumeLoad, notes: &mut Notes) -> bool {
    let published = vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some();
    if !published {
        notes.warnings.push(Warning::CachedLimitsUnpublished {
            volume: volume.design.label.clone(),
            caching: volume.design.caching,
            vm: vm.name.clone(),
        });
    }
    published
}

/// What a volume's design says before any number: caching the disk cannot do, "up to"
/// performance, ReadWrite's risk.
fn volume_notes(volume: &VolumeLoad, notes: &mut Notes) {
    let label = &volume.design.label;
    let cached = volume.design.caching.is_cached();
    if cached && !volume.disk.kind.supports_host_caching() {
        notes.violations.push(Violation::CachingNotSupported {
            volume: label.clone(),
            disk: volume.disk.name.clone(),
            caching: volume.design.caching,
        });
    }
    if let Some(target) = &volume.target {
        let sensitive = target.iops > 0.0 || target.latency_ms.is_some();
        let up_to = match volume.disk.kind {
            DiskKind::StandardSsd => Some(UpToDisk::StandardSsd),
            DiskKind::StandardHdd => Some(UpToDisk::StandardHdd),
            _ => None,
        };
        if let (true, Some(disk)) = (sensitive, up_to) {
            notes.warnings.push(Warning::UpToFigures {
                volume: label.clone(),
                disk,
            });
        }
    }
    if volume.design.caching == HostCaching::ReadWrite {
        notes.warnings.push(Warning::ReadWriteCaching {
            volume: label.clone(),
        });
    }
}

/// The VM's rate limits (shared by its volumes): uncached and cached IOPS and MB/s, bursts.
fn vm_rate_limits(vm: &VmSize, factors: &[Factors], mb: f64) -> Vec<RateLimit> {
    let mut limits: Vec<RateLimit> = Vec::new();
    let vm_source = vm.table.clone();
    let any_uncached = factors.iter().any(|f| !f.cached);
    let any_cached = factors.iter().any(|f| f.cached);
    let coeffs = |cached: bool, per: &dyn Fn(&Factors) -> f64| -> Vec<f64> {
        factors
            .iter()
            .map(|f| if f.cached == cached { per(f) } else { 0.0 })
            .collect()
    };
    let vm_limit = |kind, name: String, unit, coeff: Vec<f64>, capacity: Option<f64>| RateLimit {
        kind,
        volume: None,
        name,
        unit,
        coeff,
        capacity,
        source: vm_source.clone(),
    };
    if any_uncached {
        limits.push(vm_limit(
            LimitKind::VmUncachedIops,
            format!("VM uncached IOPS ({})", vm.name),
            LimitUnit::Iops,
            coeffs(false, &|f| f.host_ios),
            vm.uncached_iops.map(|v| v.0),
        ));
        limits.push(vm_limit(
            LimitKind::VmUncachedThroughput,
            format!("VM uncached MB/s ({})", vm.name),
            LimitUnit::MbPerSecond,
            coeffs(false, &|f| f.host_bytes / mb),
            vm.uncached_throughput_mb_s.map(|v| v.0),
        ));
    }
    if any_cached {
        limits.push(vm_limit(
            LimitKind::VmCachedIops,
            format!("VM cached IOPS ({})", vm.name),
            LimitUnit::Iops,
            coeffs(true, &|f| f.host_ios),
            vm.cached_iops.map(|v| v.0),
        ));
        limits.push(vm_limit(
            LimitKind::VmCachedThroughput,
            format!("VM cached MB/s ({})", vm.name),
            LimitUnit::MbPerSecond,
            coeffs(true, &|f| f.host_bytes / mb),
            vm.cached_throughput_mb_s.map(|v| v.0),
        ));
    }
    if any_uncached {
        if let Some(burst) = vm.burst_uncached_iops {
            limits.push(vm_limit(
                LimitKind::VmBurstIops,
                format!("VM burst uncached IOPS ({})", vm.name),
                LimitUnit::Iops,
                coeffs(false, &|f| f.host_ios),
                Some(burst.0),
            ));
        }
        if let Some(burst) = vm.burst_uncached_throughput_mb_s {
            limits.push(vm_limit(
                LimitKind::VmBurstThroughput,
                format!("VM burst uncached MB/s ({})", vm.name),
                LimitUnit::MbPerSecond,
                coeffs(false, &|f| f.host_bytes / mb),
                Some(burst.0),
            ));
        }
    }
    limits
}

/// Volume `v`'s own rate limits: the stripe's, each disk's, the members its queue keeps
/// busy, its queue depth (Little's law), bursts.
fn volume_rate_limits(
    v: usize,
    volume: &VolumeLoad,
    f: &Factors,
    count: usize,
    mb: f64,
    limits: &mut Vec<RateLimit>,
) {
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let only = |value: f64| {
        let mut coeff = vec![0.0; count];
        coeff[v] = value;
        coeff
    };
    let own = |kind, name: String, unit, coeff, capacity: Option<f64>, source: String| RateLimit {
        kind,
        volume: Some(v),
        name,
        unit,
        coeff,
        capacity,
        source,
    };
    if n > 1 {
        limits.push(own(
            LimitKind::VolumeIops,
            format!("{n} x {} striped, IOPS", disk.name),
            LimitUnit::Iops,
            only(f.disk_ios),
            Some(f.members * disk.iops),
            disk.table.clone(),
        ));
        limits.push(own(
            LimitKind::VolumeThroughput,
            format!("{n} x {} striped, MB/s", disk.name),
            LimitUnit::MbPerSecond,
            only(f.disk_bytes / mb),
            Some(f.members * disk.throughput_mb_s),
            disk.table.clone(),
        ));
    }
    limits.push(own(
        LimitKind::DiskIops,
        format!("per disk {} IOPS", disk.name),
        LimitUnit::Iops,
        only(f.disk_ios / f.members),
        Some(disk.iops),
        disk.table.clone(),
    ));
    limits.push(own(
        LimitKind::DiskThroughput,
        format!("per disk {} MB/s", disk.name),
        LimitUnit::MbPerSecond,
        only(f.disk_bytes / mb / f.members),
        Some(disk.throughput_mb_s),
        disk.table.clone(),
    ));
    if f.busy_members < n && f.disk_ios > 0.0 {
        limits.push(own(
            LimitKind::StripeMembersBusy,
            format!(
                "stripe members with work: {} of {n} at {} outstanding IOs",
                f.busy_members, f.outstanding
            ),
            LimitUnit::Iops,
            only(f.disk_ios),
            Some(f.busy_members as f64 * disk.iops),
            disk.table.clone(),
        ));
    }
    limits.push(own(
        LimitKind::QueueDepth,
        format!(
            "queue depth: {} outstanding IOs / {} ms (Little's law)",
            f.outstanding, f.service_ms
        ),
        LimitUnit::Iops,
        only(1.0),
        Some(iops_from_outstanding(f.outstanding as f64, f.service_ms)),
        "assumption".into(),
    ));
    if let Some(burst) = disk.burst_iops {
        limits.push(own(
            LimitKind::DiskBurstIops,
            format!("per disk {} burst IOPS", disk.name),
            LimitUnit::Iops,
            only(f.disk_ios / f.members),
            Some(burst),
            disk.table.clone(),
        ));
    }
    if let Some(burst) = disk.burst_throughput_mb_s {
        limits.push(own(
            LimitKind::DiskBurstThroughput,
            format!("per disk {} burst MB/s", disk.name),
            LimitUnit::MbPerSecond,
            only(f.disk_bytes / mb / f.members),
            Some(burst),
            disk.table.clone(),
        ));
    }
}

/// The IOPS each volume's target asks for (enough for its MB/s at its IO size too).
fn targets_of(volumes: &[VolumeLoad], factors: &[Factors], mb: f64) -> Vec<Option<f64>> {
    volumes
        .iter()
        .zip(factors)
        .map(|(volume, f)| {
            volume
                .target
                .as_ref()
                .map(|t| t.iops.max(t.throughput_mb_s * mb / f.host_bytes))
        })
        .collect()
}

/// How much of a sustained limit the rates use (`None`: unpublished, burst or zero).
fn utilisation(limit: &RateLimit, rates: &[f64]) -> Option<f64> {
    let capacity = limit.capacity?;
    if !limit.sustained() || capacity <= 0.0 {
        return None;
    }
    Some(limit.used(rates) / capacity)
}

/// The binding limit: the most used sustained limit at the operating point, and its use.
fn binding_limit(limits: &[RateLimit], rates: &[f64]) -> (Option<usize>, f64) {
    let mut binding_index: Option<usize> = None;
    let mut best = -1.0;
    for (index, limit) in limits.iter().enumerate() {
        if let Some(u) = utilisation(limit, rates) {
            if u > best * (1.0 + 1e-9) + 1e-12 {
                best = u;
                binding_index = Some(index);
            }
        }
    }
    (binding_index, best)
}

/// Every rate limit at the operating point: used, headroom and status.
fn rate_checks(
    limits: &[RateLimit],
    rates: &[f64],
    binding_index: Option<usize>,
    best: f64,
    volumes: &[VolumeLoad],
) -> Vec<LimitCheck> {
    limits
        .iter()
        .enumerate()
        .map(|(index, limit)| {
            let used = limit.used(rates);
            let (headroom, headroom_pct) = match limit.capacity {
                Some(capacity) => (
                    Some(capacity - used),
                    (capacity > 0.0).then(|| (capacity - used) / capacity * 100.0),
                ),
                None => (None, None),
            };
            let status = if limit.capacity.is_none() {
                LimitStatus::Unknown
            } else if !limit.sustained() {
                LimitStatus::Burst
            } else if Some(index) == binding_index {
                LimitStatus::Binding
            } else if utilisation(limit, rates)
                .is_some_and(|u| u >= 1.0 - 1e-9 && best >= 1.0 - 1e-9)
            {
                LimitStatus::AtLimit
            } else {
                LimitStatus::Ok
            };
            LimitCheck {
                kind: limit.kind,
                scope: match limit.volume {
                    None => "vm".to_string(),
                    Some(v) => volumes[v].design.label.clone(),
                },
                name: limit.name.clone(),
                unit: limit.unit,
                limit: limit.capacity,
                used,
                headroom,
                headroom_pct,
                status,
                source: limit.source.clone(),
                load_unknown: false,
            }
        })
        .collect()
}

/// The yes/no checks: data-disk slots, premium storage, host cache size.
fn yes_no_checks(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    factors: &[Factors],
    assumptions: &Assumptions,
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    slots_check(vm, volumes, checks, notes);
    premium_check(vm, volumes, checks, notes);
    cache_size_check(vm, volumes, factors, assumptions, checks, notes);
}

/// The VM's data-disk slots against the disks of every volume.
fn slots_check(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    let vm_source = vm.table.clone();
    let total_disks: u32 = volumes.iter().map(|v| v.design.disk_count).sum();
    let slots_over = total_disks > vm.max_data_disks;
    checks.push(LimitCheck {
        kind: LimitKind::VmDataDisks,
        scope: "vm".into(),
        name: format!("VM data disks ({})", vm.name),
        unit: LimitUnit::Disks,
        limit: Some(vm.max_data_disks as f64),
        used: total_disks as f64,
        headroom: Some(vm.max_data_disks as f64 - total_disks as f64),
        headroom_pct: (vm.max_data_disks > 0).then(|| {
            (vm.max_data_disks as f64 - total_disks as f64) / vm.max_data_disks as f64 * 100.0
        }),
        status: if slots_over {
            LimitStatus::Over
        } else {
            LimitStatus::Ok
        },
        source: vm_source.clone(),
        load_unknown: false,
    });
    if slots_over {
        notes.violations.push(Violation::TooManyDisks {
            disks: total_disks,
            vm: vm.name.clone(),
            max: vm.max_data_disks,
        });
    }
}

/// Premium disks need a VM with premium storage.
fn premium_check(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    let vm_source = vm.table.clone();
    let needs_premium: Vec<&str> = volumes
        .iter()
        .filter(|v| v.disk.kind.needs_premium_vm())
        .map(|v| v.disk.name.as_str())
        .collect();
    if !needs_premium.is_empty() && !vm.premium_storage {
        notes.violations.push(Violation::NoPremiumStorage {
            vm: vm.name.clone(),
            disks: needs_premium.iter().map(|d| d.to_string()).collect(),
        });
        checks.push(LimitCheck {
            kind: LimitKind::VmPremiumStorage,
            scope: "vm".into(),
            name: format!("premium storage on {}", vm.name),
            unit: LimitUnit::Allowed,
            limit: Some(0.0),
            used: 1.0,
            headroom: Some(-1.0),
            headroom_pct: None,
            status: LimitStatus::Over,
            source: vm_source.clone(),
            load_unknown: false,
        });
    }
}

/// The host cache's size against the cached disks, when any volume is cached (it does not
/// throttle: a smaller cache lowers the hit ratio).
fn cache_size_check(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    factors: &[Factors],
    assumptions: &Assumptions,
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    let vm_source = vm.table.clone();
    let any_cached = factors.iter().any(|f| f.cached);
    let cached_gib: f64 = volumes
        .iter()
        .zip(factors)
        .filter(|(_, f)| f.cached)
        .map(|(v, _)| v.disk.size_gib * v.design.disk_count as f64)
        .sum();
    if any_cached {
        let limit = vm.cache_size_gib;
        if let Some(cache) = limit {
            if cached_gib > cache && assumptions.cache_hit_pct > 0.0 {
                notes.warnings.push(Warning::CacheSmallerThanDisks {
                    vm: vm.name.clone(),
                    cached_gib,
                    cache_gib: cache,
                    cache_hit_pct: assumptions.cache_hit_pct,
                });
            }
        }
        checks.push(LimitCheck {
            kind: LimitKind::HostCacheSize,
            scope: "vm".into(),
            name: format!("host cache size ({}) vs cached disks", vm.name),
            unit: LimitUnit::Gib,
            limit,
            used: cached_gib,
            headroom: limit.map(|c| c - cached_gib),
            headroom_pct: limit
                .filter(|c| *c > 0.0)
                .map(|c| (c - cached_gib) / c * 100.0),
            // The cache size does not throttle; a smaller cache lowers the hit ratio.
            status: if limit.is_some() {
                LimitStatus::Burst
            } else {
                LimitStatus::Unknown
            },
            source: vm_source.clone(),
            load_unknown: false,
        });
    }
}

/// One volume's results at the operating point: rates, latency (Little's law when throttled),
/// queue depth, what binds it, and whether it meets its target.
fn volume_prediction(
    v: usize,
    volume: &VolumeLoad,
    f: &Factors,
    solved: &Solved<'_>,
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) -> VolumePrediction {
    let mb = solved.mb;
    let label = volume.design.label.clone();
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let iops = solved.operating.rates[v];
    let max_iops = solved.max.rates[v];
    let throttled = solved.operating.binding[v].is_some();
    let latency_ms = if throttled && iops > 0.0 {
        latency_ms_from_outstanding(f.outstanding as f64, iops).max(f.service_ms)
    } else {
        f.service_ms
    };
    let target_latency_ms = volume.target.as_ref().and_then(|t| t.latency_ms);
    let unpublished_limits: Vec<String> = solved
        .limits
        .iter()
        .filter(|l| l.capacity.is_none() && l.sustained() && l.coeff[v] > 0.0)
        .map(|l| l.name.clone())
        .collect();
    let queue = queue_check(volume, f, solved.targets[v], notes);
    let meets = volume.target.as_ref().map(|target| {
        let wanted = solved.targets[v].unwrap_or(0.0);
        let ok = iops >= wanted * (1.0 - 1e-9);
        let capacity_ok = capacity_check(volume, target, checks);
        let latency_ok = latency_check(&label, target, latency_ms, checks);
        ok & capacity_ok & latency_ok
    });
    VolumePrediction {
        label,
        disk_sku: disk.name.clone(),
        disk_table: disk.table.clone(),
        disk_kind: disk.kind,
        disk_count: n,
        caching: volume.design.caching,
        stripe_size_bytes: volume.design.stripe_size.map(|s| s.0),
        read_pct: volume.workload.read_pct,
        random_pct: volume.workload.random_pct,
        read_io_size_bytes: volume.workload.read_io_size.0,
        write_io_size_bytes: volume.workload.write_io_size.0,
        max_iops,
        max_throughput_mb_s: max_iops * f.host_bytes / mb,
        iops,
        throughput_mb_s: iops * f.host_bytes / mb,
        read_iops: iops * f.read_share,
        write_iops: iops * (1.0 - f.read_share),
        cache_read_iops: iops * f.read_share * f.hit_share,
        disk_iops: iops * f.disk_ios,
        latency_ms,
        disk_ios_per_read: f.split_read,
        disk_ios_per_write: f.split_write,
        queue,
        binding: binding_words(solved.limits, solved.max, v),
        // Flat out into an unpublished limit, the rate the IO size turns into MB/s is unknown.
        io_size_effect: io_size_effect(solved.limits, solved.max, v, f.host_bytes, mb)
            .filter(|_| volume.target.is_some() || unpublished_limits.is_empty()),
        target_iops: volume.target.as_ref().map(|t| t.iops),
        target_throughput_mb_s: volume.target.as_ref().map(|t| t.throughput_mb_s),
        target_latency_ms,
        meets_target: meets,
        unpublished_limits,
    }
}

/// The queue-depth check of one volume: members busy, depth to keep them all busy, to reach
/// the disks' limits, and (Little's law) to reach the target.
fn queue_check(
    volume: &VolumeLoad,
    f: &Factors,
    target_iops: Option<f64>,
    notes: &mut Notes,
) -> QueueDepthCheck {
    let label = &volume.design.label;
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let target_latency_ms = volume.target.as_ref().and_then(|t| t.latency_ms);
    let per_disk_depth = outstanding_ios(disk.iops, f.service_ms).ceil().max(1.0) as u32;
    let depth_for_target = target_iops.map(|t| {
        let latency_ms = target_latency_ms.unwrap_or(f.service_ms);
        (outstanding_ios(t, latency_ms) - 1e-9).ceil().max(1.0) as u32
    });
    let queue = QueueDepthCheck {
        outstanding_ios: f.outstanding,
        stripe_members: n,
        busy_members: f.busy_members,
        depth_to_keep_members_busy: n,
        depth_to_reach_disk_limits: per_disk_depth.saturating_mul(n),
        depth_for_target,
        littles_law_iops: iops_from_outstanding(f.outstanding as f64, f.service_ms),
    };
    if f.busy_members < n {
        notes.warnings.push(Warning::IdleStripeMembers {
            volume: label.clone(),
            outstanding_ios: f.outstanding,
            members: n,
            busy_members: f.busy_members,
            depth_per_disk: per_disk_depth,
            service_ms: f.service_ms,
        });
    }
    queue
}

/// What caps volume `v` flat out, with the other limits it reaches at the same time.
fn binding_words(limits: &[RateLimit], max: &Solution, v: usize) -> String {
    match max.binding[v] {
        Some(index) => {
            // Other limits this volume also reaches when running flat out.
            let tied: Vec<&str> = limits
                .iter()
                .enumerate()
                .filter(|(other, limit)| {
                    *other != index
                        && limit.sustained()
                        && limit.coeff[v] > 0.0
                        && limit
                            .capacity
                            .is_some_and(|c| limit.used(&max.rates) >= c * (1.0 - 1e-9))
                })
                .map(|(_, limit)| limit.name.as_str())
                .collect();
            if tied.is_empty() {
                limits[index].name.clone()
            } else {
                format!("{} (also at: {})", limits[index].name, tied.join("; "))
            }
        }
        None => "its target".to_string(),
    }
}

/// Throughput = IOPS x IO size, made explicit for the limit that caps volume `v` flat out.
fn io_size_effect(
    limits: &[RateLimit],
    max: &Solution,
    v: usize,
    mean_size: f64,
    mb: f64,
) -> Option<String> {
    // Throughput = IOPS x IO size, made explicit for the limit that caps the volume.
    max.binding[v].and_then(|index| {
        let limit = &limits[index];
        let capacity = limit.capacity?;
        let size_text = iofit_model::Bytes(mean_size.round() as u64).readable();
        match limit.unit {
            LimitUnit::MbPerSecond => Some(format!(
                "at {size_text} per IO the {} MB/s limit allows {} IOPS \
                 ({} MB/s x {} bytes per MB / {} bytes)",
                fmt_num(capacity),
                fmt_num(max.rates[v]),
                fmt_num(max.rates[v] * mean_size / mb),
                fmt_num(mb),
                fmt_num(mean_size)
            )),
            LimitUnit::Iops => Some(format!(
                "at {size_text} per IO, {} IOPS move {} MB/s (IOPS x IO size)",
                fmt_num(max.rates[v]),
                fmt_num_precise(max.rates[v] * mean_size / mb)
            )),
            _ => None,
        }
    })
}

/// The capacity check of a volume with a capacity target; true when it holds.
fn capacity_check(
    volume: &VolumeLoad,
    target: &SizingTarget,
    checks: &mut Vec<LimitCheck>,
) -> bool {
    let Some(capacity) = target.capacity_gib else {
        return true;
    };
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let have = disk.size_gib * n as f64;
    let over = have < capacity * (1.0 - 1e-9);
    checks.push(LimitCheck {
        kind: LimitKind::Capacity,
        scope: volume.design.label.clone(),
        name: format!(
            "capacity {n} x {} ({} GiB each)",
            disk.name,
            fmt_num(disk.size_gib)
        ),
        unit: LimitUnit::Gib,
        limit: Some(have),
        used: capacity,
        headroom: Some(have - capacity),
        headroom_pct: (have > 0.0).then(|| (have - capacity) / have * 100.0),
        status: if over {
            LimitStatus::Over
        } else {
            LimitStatus::Ok
        },
        source: disk.table.clone(),
        load_unknown: false,
    });
    !over
}

/// The latency check of a volume with a latency target; true when it holds.
fn latency_check(
    label: &str,
    target: &SizingTarget,
    latency_ms: f64,
    checks: &mut Vec<LimitCheck>,
) -> bool {
    let Some(wanted_latency) = target.latency_ms else {
        return true;
    };
    let over = latency_ms > wanted_latency * (1.0 + 1e-9);
    checks.push(LimitCheck {
        kind: LimitKind::Latency,
        scope: label.to_string(),
        name: "expected latency vs target".into(),
        unit: LimitUnit::Milliseconds,
        limit: Some(wanted_latency),
        used: latency_ms,
        headroom: Some(wanted_latency - latency_ms),
        headroom_pct: Some((wanted_latency - latency_ms) / wanted_latency * 100.0),
        status: if over {
            LimitStatus::Over
        } else {
            LimitStatus::Ok
        },
        source: "assumption".into(),
        load_unknown: false,
    });
    !over
}

/// Capacity and latency misses as violations (so one list says what fails), and the limits
/// not published as a warning.
fn target_violations(checks: &[LimitCheck], notes: &mut Notes) {
    for check in checks {
        if check.status == LimitStatus::Over
            && matches!(check.kind, LimitKind::Capacity | LimitKind::Latency)
        {
            // Reported through meets_target; listed here too so one list says what fails.
            let limit = check.limit.unwrap_or(0.0);
            notes.violations.push(if check.kind == LimitKind::Capacity {
                Violation::CapacityShort {
                    volume: check.scope.clone(),
                    needed_gib: check.used,
                    provided_gib: limit,
                }
            } else {
                Violation::LatencyOver {
                    volume: check.scope.clone(),
                    expected_ms: check.used,
                    target_ms: limit,
                }
            });
        }
    }
    let unknown: Vec<String> = checks
        .iter()
        .filter(|c| c.status == LimitStatus::Unknown)
        .map(|c| c.name.clone())
        .collect();
    if !unknown.is_empty() {
        notes
            .warnings
            .push(Warning::NotPublished { limits: unknown });
    }
}

/// The binding limit in words: capped by it, or the first to bind as load grows.
fn binding_of(
    limits: &[RateLimit],
    index: usize,
    rates: &[f64],
    volumes: &[VolumeLoad],
) -> Binding {
    let limit = &limits[index];
    let capacity = limit.capacity.unwrap_or(0.0);
    let used = limit.used(rates);
    let at_limit = used >= capacity * (1.0 - 1e-9);
    let unit = limit.unit.suffix();
    let words = if at_limit {
        format!(
            "capped at {}{unit} by {} ({}{unit})",
            fmt_num(used),
            limit.name,
            fmt_num(capacity)
        )
    } else {
        format!(
            "not capped at the targets; the first limit to bind as load grows is {} \
             ({} of {}{unit} used, {:.0}% headroom){}",
            limit.name,
            fmt_num(used),
            fmt_num(capacity),
            (capacity - used) / capacity * 100.0,
            tied_with(limits, index, rates)
        )
    };
    Binding {
        kind: limit.kind,
        scope: match limit.volume {
            None => "vm".to_string(),
            Some(v) => volumes[v].design.label.clone(),
        },
        name: limit.name.clone(),
        unit: limit.unit,
        limit: capacity,
        used,
        words,
    }
}

/// Limits as close to binding as the one named (the same share used): named too, so that a
/// plan and a prediction that break the tie differently (a cold and a warm cache) do not seem
/// to disagree about what binds.
fn tied_with(limits: &[RateLimit], index: usize, rates: &[f64]) -> String {
    let share = |limit: &RateLimit| match limit.capacity {
        Some(capacity) if capacity > 0.0 => Some(limit.used(rates) / capacity),
        _ => None,
    };
    let Some(named) = share(&limits[index]) else {
        return String::new();
    };
    let tied: Vec<&str> = limits
        .iter()
        .enumerate()
        .filter(|(i, limit)| {
            *i != index && share(limit).is_some_and(|s| (s - named).abs() <= 1e-9 * named.max(1.0))
        })
        .map(|(_, limit)| limit.name.as_str())
        .collect();
    if tied.is_empty() {
        String::new()
    } else {
        format!("; as close: {}", tied.join(", "))
    }
}

/// The catalog tables a prediction used: the VM's, then each disk's once.
fn tables_of(vm: &VmSize, volumes: &[VolumeLoad]) -> Vec<String> {
    let mut tables = vec![vm.table.clone()];
    for volume in volumes {
        if !tables.contains(&volume.disk.table) {
            tables.push(volume.disk.table.clone());
        }
    }
    tables
}

fn check_target(label: &str, target: &SizingTarget) -> Result<(), PredictError> {
    let bad = |key: &str, problem: &str| PredictError::Volume {
        label: label.to_string(),
        problem: format!("target {key}: {problem}"),
    };
    if !(target.iops.is_finite() && target.iops >= 0.0) {
        return Err(bad("iops", "must be a number >= 0"));
    }
    if !(target.throughput_mb_s.is_finite() && target.throughput_mb_s >= 0.0) {
        return Err(bad("throughput_mb_s", "must be a number >= 0"));
    }
    if let Some(latency) = target.latency_ms {
        if !(latency.is_finite() && latency > 0.0) {
            return Err(bad("latency_ms", "must be a number > 0"));
        }
    }
    Ok(())
}

/// Advice for each volume that misses its target (or, without targets, for the binding limit):
/// what to change, computed from the catalog rows given.
#[allow(clippy::too_many_arguments)]
fn advise(
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
        (target * f.disk_ios, disk.iops, LimitUnit::Iops)
    } else {
        (
            target * f.disk_bytes / mb,
            disk.throughput_mb_s,
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
        bigger.sort_by(|a, b| a.size_gib.total_cmp(&b.size_gib));
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

#[cfg(test)]
mod tests;
