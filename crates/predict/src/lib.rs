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
//! use iofit_model::units::GiB;
//! use iofit_model::{Bytes, HostCaching, Iops, MBps, VolumeDesign, Workload};
//! use iofit_predict::{predict, Assumptions, DiskPerf, LimitKind, VolumeLoad};
//!
//! // A P30 (5,000 IOPS, 200 MB/s) on a VM that allows 3,200 uncached IOPS.
//! let p30 = DiskSku { name: "P30".into(), table: "t".into(), kind: DiskKind::PremiumSsd,
//!     size_gib: GiB(1024.0), iops: Iops(5000.0), throughput_mb_s: MBps(200.0),
//!     burst_iops: None, burst_throughput_mb_s: None, price_usd_month: None,
//!     price_usd_per_10k_operations: None, operation_unit_kib: None };
//! let vm = VmSize { name: "Standard_DS1".into(), table: "t".into(), family: "DS".into(),
//!     vcpu: 1, memory_gib: GiB(3.5), max_data_disks: 2, premium_storage: true,
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
//! assert_eq!(prediction.total_iops, Iops(3200.0));
//! assert_eq!(prediction.binding.as_ref().unwrap().kind, LimitKind::VmUncachedIops);
//! ```

pub mod aws;
pub mod disk_spec;
mod findings;
pub mod gcp;
pub mod gcp_provisioned;
mod gcp_volume;
pub use findings::{Advice, Candidate, UpToDisk, Violation, Warning};
mod json;

mod advice;
mod assumptions;
mod checks;
mod disk_perf;
mod limits;
mod solve;

pub use assumptions::{
    Assumptions, MbConvention, DISKS_TYPES_SOURCE, PREMIUM_SSD_WORDING, STANDARD_HDD_WORDING,
    STANDARD_SSD_WORDING,
};
pub use disk_perf::{
    provisioned_iops_max, provisioned_price, provisioned_throughput_max, DiskPerf,
};
pub use solve::{vm_demand, VmDemand};

use advice::advise;
use checks::{binding_of, rate_checks, target_violations, volume_prediction, yes_no_checks};
use limits::{targets_of, vm_rate_limits, volume_factors, volume_rate_limits, RateLimit};
use solve::{binding_limit, burst_figure, solve, Solution};

use iofit_catalog::{DiskKind, DiskSku, VmSize};
use iofit_model::units::{group_thousands, Bytes, Iops, MBps, Millis, Seconds};
use iofit_model::{HostCaching, SizingTarget, VolumeDesign, Workload};
use serde::{Deserialize, Serialize};

/// Relative tolerance for "at the limit" comparisons of floating-point rates.
const EPS: f64 = 1e-9;

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
    pub littles_law_iops: Iops,
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
    pub stripe_size_bytes: Option<Bytes>,
    pub read_pct: f64,
    pub random_pct: f64,
    pub read_io_size_bytes: Bytes,
    pub write_io_size_bytes: Bytes,
    /// What the volume does when every volume runs flat out (no targets). With targets a
    /// volume may do more than this when another's low target leaves room in a shared limit.
    /// Its MB/s (here and below) are the catalog's MB as [`MbConvention`] counts them: the
    /// same `MBps` as the catalog rows, 2^20 bytes each under `MbConvention::Binary`.
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_iops: Iops,
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_throughput_mb_s: MBps,
    /// What it does at the operating point (the target when met, else the maximum).
    #[serde(deserialize_with = "json::number_or_null")]
    pub iops: Iops,
    #[serde(deserialize_with = "json::number_or_null")]
    pub throughput_mb_s: MBps,
    #[serde(deserialize_with = "json::number_or_null")]
    pub read_iops: Iops,
    #[serde(deserialize_with = "json::number_or_null")]
    pub write_iops: Iops,
    /// Reads the host cache serves (they do not reach the disks).
    #[serde(deserialize_with = "json::number_or_null")]
    pub cache_read_iops: Iops,
    /// IOs reaching the disks, after stripe splitting.
    #[serde(deserialize_with = "json::number_or_null")]
    pub disk_iops: Iops,
    #[serde(deserialize_with = "json::number_or_null")]
    pub latency_ms: Millis,
    /// Disk IOs one volume IO becomes when it spans stripe units (1 when it fits in one).
    pub disk_ios_per_read: f64,
    pub disk_ios_per_write: f64,
    pub queue: QueueDepthCheck,
    /// What caps this volume, in words.
    pub binding: String,
    /// How the IO size turns the binding limit into IOPS or MB/s (throughput = IOPS x size).
    pub io_size_effect: Option<String>,
    pub target_iops: Option<Iops>,
    pub target_throughput_mb_s: Option<MBps>,
    pub target_latency_ms: Option<Millis>,
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
    pub total_iops: Iops,
    #[serde(deserialize_with = "json::number_or_null")]
    pub total_throughput_mb_s: MBps,
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_total_iops: Iops,
    #[serde(deserialize_with = "json::number_or_null")]
    pub max_total_throughput_mb_s: MBps,
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
    pub total_iops: Iops,
    pub total_throughput_mb_s: MBps,
    /// Seconds the fullest-drained bucket lasts at this rate, starting full.
    pub credit_seconds: Seconds,
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
        total_iops: Iops(rates.iter().sum()),
        total_throughput_mb_s: MBps(per_mb(rates)),
        max_total_iops: Iops(max.rates.iter().sum()),
        max_total_throughput_mb_s: MBps(per_mb(&max.rates)),
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
    let service_ms = assumptions.service_latency_ms.get();
    if !(service_ms.is_finite() && service_ms > 0.0) {
        return Err(PredictError::Assumption {
            name: "service latency".into(),
            problem: format!("{service_ms} ms must be a number > 0"),
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
    if !(target.iops.get().is_finite() && target.iops.get() >= 0.0) {
        return Err(bad("iops", "must be a number >= 0"));
    }
    if !(target.throughput_mb_s.get().is_finite() && target.throughput_mb_s.get() >= 0.0) {
        return Err(bad("throughput_mb_s", "must be a number >= 0"));
    }
    if let Some(latency) = target.latency_ms.map(|ms| ms.get()) {
        if !(latency.is_finite() && latency > 0.0) {
            return Err(bad("latency_ms", "must be a number > 0"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
