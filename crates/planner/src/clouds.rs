//! Planning on AWS: the cheapest EC2 instance + EBS volumes that meet each volume's
//! requirements, searched exactly.
//!
//! Why the search is exact: on AWS the instance's limits depend only on the total demand (IOPS
//! and MB/s of all volumes), never on which volumes carry it, and a volume type's cheapest
//! configuration for a share of the demand is found in closed form (the least size, IOPS and
//! MiB/s its rules allow, each bill monotone in them). So the cheapest design of an instance
//! is the instance's price plus the cheapest split of its data-volume slots between the
//! volumes (a knapsack over counts 1..slots), and the cheapest design overall is the least of
//! those over the priced instances that carry the total.

use crate::RequirementWarning;
use iofit_catalog::clouds::aws::{AwsCatalog, AwsInstance, EbsKind, EbsVolumeType};
use iofit_catalog::Os;
use iofit_model::requirements::{SizingTarget, VolumeRequirements};
use iofit_model::units::{Bytes, GiB, Iops, MBps, MiBps, TiB};
use iofit_model::Requirements;
use iofit_predict::aws::{self as model, AwsDemand, AwsPrediction, AwsState, AwsVolumeSpec};
use serde::{Deserialize, Serialize};

pub use crate::clouds_note::{AwsPlanNote, InstanceRate, Io2Pricing};

const MIB: f64 = 1_048_576.0;
const SSD_OP_BYTES: f64 = 262_144.0;

/// How an AWS plan is made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsPlanOptions {
    pub top: usize,
    /// Headroom kept below every limit, percent (as the Azure plan's).
    pub min_headroom_pct: f64,
    pub region: String,
    pub os: Os,
    /// The sized peak lasts at most the instance's burst window (30 minutes per 24 hours):
    /// it may be carried by the instance's maximum instead of its baseline.
    pub burst_tolerant: bool,
    /// Most EBS volumes striped into one volume. AWS: "many administrators find that arrays
    /// larger than 8 volumes have diminished performance returns due to increased I/O
    /// overhead" (Amazon EC2 User Guide, Instance volume limits, Bandwidth versus capacity).
    /// Without a cap the cheapest gp3 stripe is the widest one (each volume's free 3,000 IOPS
    /// and 125 MiB/s), which no one would build.
    pub max_volumes_per_stripe: u32,
}

/// AWS's "arrays larger than 8 volumes have diminished performance returns".
pub const DEFAULT_MAX_VOLUMES_PER_STRIPE: u32 = 8;

impl Default for AwsPlanOptions {
    fn default() -> Self {
        AwsPlanOptions {
            top: 5,
            min_headroom_pct: crate::DEFAULT_MIN_HEADROOM_PCT,
            region: iofit_catalog::clouds::aws::DEFAULT_REGION.to_string(),
            os: Os::Linux,
            burst_tolerant: false,
            max_volumes_per_stripe: DEFAULT_MAX_VOLUMES_PER_STRIPE,
        }
    }
}

/// What one volume costs a month, split as AWS bills it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AwsVolumeCost {
    #[serde(rename = "storage_price_per_month", alias = "storage_usd_month")]
    pub storage_usd_month: f64,
    /// Provisioned IOPS billed (gp3: above the free 3,000; io2: all).
    #[serde(rename = "iops_price_per_month", alias = "iops_usd_month")]
    pub iops_usd_month: f64,
    /// Provisioned MiB/s billed (gp3: above the free 125).
    #[serde(rename = "throughput_price_per_month", alias = "throughput_usd_month")]
    pub throughput_usd_month: f64,
    #[serde(rename = "total_price_per_month", alias = "total_usd_month")]
    pub total_usd_month: f64,
}

/// One volume of a design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsPlannedVolume {
    pub spec: AwsVolumeSpec,
    /// The cost of all `count` volumes.
    pub cost: AwsVolumeCost,
    /// The `--disk` text `predict --cloud aws` takes for it.
    pub disk_arg: String,
}

/// One design: an instance and its volumes, priced and predicted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsDesign {
    pub rank: usize,
    pub instance: String,
    pub vcpu: u32,
    pub memory_gib: GiB,
    #[serde(rename = "instance_price_per_month", alias = "instance_usd_month")]
    pub instance_usd_month: f64,
    /// The instance price is computed from another one (its notes in the catalog say how).
    pub instance_price_derived: bool,
    pub volumes: Vec<AwsPlannedVolume>,
    #[serde(rename = "volumes_price_per_month", alias = "volumes_usd_month")]
    pub volumes_usd_month: f64,
    #[serde(rename = "total_price_per_month", alias = "total_usd_month")]
    pub total_usd_month: f64,
    /// The state the design is sized for: sustained (instance baseline) or burst (instance
    /// maximum, 30 minutes per 24 hours).
    pub state: AwsState,
    /// The design's prediction at the requirements, in its state.
    pub prediction: AwsPrediction,
    pub price_basis: String,
}

/// The result of planning on AWS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsPlan {
    pub designs: Vec<AwsDesign>,
    pub instances_considered: usize,
    pub notes: Vec<AwsPlanNote>,
    /// What the plan says of its requirements before its designs, as Azure's plan does
    /// (MB/s that disagree with IOPS x IO size, no capacity given).
    #[serde(default)]
    pub requirement_warnings: Vec<RequirementWarning>,
}

/// The cheapest way to give one volume its demand with exactly `count` EBS volumes.
#[derive(Clone, Debug)]
struct VolumeOption {
    spec: AwsVolumeSpec,
    cost: AwsVolumeCost,
}

/// What one volume requirement asks of its EBS volumes, headroom included.
struct Need {
    ops_per_s: f64,
    mib_s: f64,
    capacity_gib: GiB,
    io_size_bytes: f64,
    sequential: bool,
}

fn need_of(volume: &VolumeRequirements, headroom: f64) -> Need {
    let demand = demand_of(volume);
    let io = demand.io_size_bytes.as_f64();
    Need {
        ops_per_s: demand.iops.get() * (io / SSD_OP_BYTES).ceil().max(1.0) / headroom,
        mib_s: demand.throughput_mb_s.get() * 1e6 / MIB / headroom,
        capacity_gib: capacity_gib(volume),
        io_size_bytes: io,
        sequential: volume.sizing.random_pct <= 50.0,
    }
}

/// The capacity a volume requirement asks for (none given: 0 GiB). The one place the AWS
/// and Google planners read it.
pub(crate) fn capacity_gib(volume: &VolumeRequirements) -> GiB {
    volume.sizing.capacity_gib.unwrap_or_default()
}

/// The cheapest configuration of `count` volumes of type `rules` for `need`, or `None` when
/// the type cannot carry it or a rate it needs is not sourced.
fn cheapest_of_type(
    label: &str,
    need: &Need,
    count: u32,
    rules: &EbsVolumeType,
    catalog: &AwsCatalog,
    region: &str,
) -> Option<VolumeOption> {
    let price = catalog.volume_price(&rules.name, region)?;
    let n = |name: &str| rules.number(name);
    let c = count as f64;
    let ops = (need.ops_per_s / c).ceil();
    let mib = need.mib_s / c;
    let size_floor = (need.capacity_gib / c).ceil().max(rules.size_gib_min);
    let (size, iops, mib_s) = match rules.kind() {
        EbsKind::Gp3 => {
            let mib_s = mib.ceil().max(n("throughput_mib_s_baseline"));
            let iops = ops
                .max(n("iops_baseline"))
                .max((mib_s / n("throughput_mib_s_per_iops_max")).ceil());
            if iops > n("iops_max") || mib_s > n("throughput_mib_s_max") {
                return None;
            }
            let size = size_floor.max(GiB(iops / n("iops_per_gib_max")).ceil());
            (size, Some(iops), Some(mib_s))
        }
        EbsKind::Gp2 => {
            if ops > n("iops_max") || mib > n("throughput_mib_s_max") {
                return None;
            }
            let mut size = size_floor.max(GiB(ops / n("iops_per_gib")).ceil());
            if mib > n("throughput_mib_s_small") {
                size = size.max(rules.throughput_max_size_gib_min.unwrap_or_default());
            }
            (size, None, None)
        }
        EbsKind::Io2 | EbsKind::Io2BlockExpress => {
            // Throughput follows the IOPS: provision enough IOPS for the MiB/s too.
            let for_mib_s = if rules.kind() == EbsKind::Io2BlockExpress {
                (mib / n("throughput_mib_s_per_iops_max")).ceil()
            } else if mib > n("throughput_mib_s_max_low_iops") {
                (mib * 1024.0 / n("throughput_kib_per_iops_high")).ceil()
            } else {
                0.0
            };
            let iops = ops.max(n("iops_min")).max(for_mib_s);
            if iops > n("iops_max")
                || mib > n("throughput_mib_s_max")
                || iops > price.iops_priced_up_to.unwrap_or(f64::INFINITY)
            {
                return None;
            }
            let size = size_floor.max(GiB(iops / n("iops_per_gib_max")).ceil());
            (size, Some(iops), None)
        }
        EbsKind::St1 => {
            // HDD volumes 'deliver optimal performance only when I/O operations are large and
            // sequential' (AWS, I/O characteristics): offered for sequential volumes only.
            let hdd_ops = need.ops_per_s / c * (need.io_size_bytes / MIB).ceil().max(1.0);
            if !need.sequential || hdd_ops > n("iops_max") || mib > n("throughput_mib_s_max") {
                return None;
            }
            let size = size_floor.max(
                TiB(mib / n("throughput_mib_s_per_tib_baseline"))
                    .to_gib()
                    .ceil(),
            );
            (size, None, None)
        }
    };
    if size > rules.size_gib_max {
        return None;
    }
    let spec = AwsVolumeSpec {
        label: label.to_string(),
        count,
        volume_type: rules.name.clone(),
        size_gib: size,
        iops: iops.map(Iops),
        throughput_mib_s: mib_s.map(MiBps),
    };
    let cost = volume_cost(&spec, rules, catalog, region)?;
    Some(VolumeOption { spec, cost })
}

/// What `spec` costs a month in `region`, as AWS bills its kind; `None` when a rate it needs
/// is not sourced.
pub fn volume_cost(
    spec: &AwsVolumeSpec,
    rules: &EbsVolumeType,
    catalog: &AwsCatalog,
    region: &str,
) -> Option<AwsVolumeCost> {
    let price = catalog.volume_price(&rules.name, region)?;
    let c = spec.count as f64;
    let storage = c * spec.size_gib.get() * price.usd_per_gib_month?;
    let (free_iops, free_mib_s) = match rules.kind() {
        EbsKind::Gp3 => (
            rules.number("iops_baseline"),
            rules.number("throughput_mib_s_baseline"),
        ),
        _ => (0.0, 0.0),
    };
    let billed_iops = (spec.iops.map_or(0.0, Iops::get) - free_iops).max(0.0);
    let billed_mib_s = (spec.throughput_mib_s.map_or(0.0, MiBps::get) - free_mib_s).max(0.0);
    // io2 bills each volume's IOPS in tiers: a stripe's volumes each start at the first.
    let iops = c * price.iops_usd_month(billed_iops)?;
    let throughput = if billed_mib_s > 0.0 {
        c * billed_mib_s * price.usd_per_mib_s_month?
    } else {
        0.0
    };
    Some(AwsVolumeCost {
        storage_usd_month: storage,
        iops_usd_month: iops,
        throughput_usd_month: throughput,
        total_usd_month: storage + iops + throughput,
    })
}

/// `options[k]`: the cheapest option with exactly `k` volumes (index 0 unused).
fn options_by_count(
    volume: &VolumeRequirements,
    need: &Need,
    catalog: &AwsCatalog,
    region: &str,
    max_count: u32,
) -> Vec<Option<VolumeOption>> {
    let mut options = vec![None; max_count as usize + 1];
    for count in 1..=max_count {
        let best = catalog
            .volume_types
            .iter()
            .filter_map(|rules| {
                cheapest_of_type(&volume.label, need, count, rules, catalog, region)
            })
            .min_by(|a, b| a.cost.total_usd_month.total_cmp(&b.cost.total_usd_month));
        options[count as usize] = best;
    }
    options
}

/// The cheapest choice of options, one per volume, using at most `k` volumes in all, for
/// every `k` (a knapsack over counts). `None` where no choice fits.
fn cheapest_by_slots(
    per_volume: &[Vec<Option<VolumeOption>>],
    max_slots: usize,
) -> Vec<Option<(f64, Vec<VolumeOption>)>> {
    let mut best: Vec<Option<(f64, Vec<VolumeOption>)>> = vec![None; max_slots + 1];
    best[0] = Some((0.0, Vec::new()));
    for options in per_volume {
        let mut next: Vec<Option<(f64, Vec<VolumeOption>)>> = vec![None; max_slots + 1];
        for (used, state) in best.iter().enumerate() {
            let Some((cost, chosen)) = state else {
                continue;
            };
            for (count, option) in options.iter().enumerate() {
                let Some(option) = option else { continue };
                let total = used + count;
                if total > max_slots {
                    break;
                }
                let candidate = cost + option.cost.total_usd_month;
                if next[total].as_ref().is_none_or(|(c, _)| candidate < *c) {
                    let mut picked = chosen.clone();
                    picked.push(option.clone());
                    next[total] = Some((candidate, picked));
                }
            }
        }
        best = next;
    }
    // At most k: carry the cheapest of fewer slots forward (on a tie, the fewer volumes).
    for k in 1..=max_slots {
        if let Some(previous) = best[k - 1].clone() {
            if best[k]
                .as_ref()
                .is_none_or(|(c, _)| previous.0 <= *c + 1e-9)
            {
                best[k] = Some(previous);
            }
        }
    }
    best
}

/// Whether the instance carries the total demand in `state`, headroom kept.
fn instance_carries(instance: &AwsInstance, needs: &[Need], state: AwsState) -> bool {
    let (iops, mb_s) = match state {
        AwsState::Sustained => (
            instance.baseline_iops.get(),
            instance.baseline_throughput_mb_s.get(),
        ),
        AwsState::Burst => (
            instance.maximum_iops.get(),
            instance.maximum_throughput_mb_s.get(),
        ),
    };
    let ops: f64 = needs.iter().map(|n| n.ops_per_s).sum();
    let mb: f64 = needs.iter().map(|n| n.mib_s * MIB / 1e6).sum();
    ops <= iops * (1.0 + 1e-12) && mb <= mb_s * (1.0 + 1e-12)
}

/// Plans `requirements` on AWS.
pub fn plan_aws(
    requirements: &Requirements,
    catalog: &AwsCatalog,
    options: &AwsPlanOptions,
) -> AwsPlan {
    let headroom = 1.0 - options.min_headroom_pct / 100.0;
    let needs: Vec<Need> = requirements
        .volumes
        .iter()
        .map(|v| need_of(v, headroom))
        .collect();
    let max_slots = catalog
        .instances
        .iter()
        .map(|i| i.ebs_volume_slots)
        .max()
        .unwrap_or(0);
    let per_volume: Vec<_> = requirements
        .volumes
        .iter()
        .zip(&needs)
        .map(|(volume, need)| {
            let widest = max_slots.min(options.max_volumes_per_stripe.max(1));
            options_by_count(volume, need, catalog, &options.region, widest)
        })
        .collect();
    let by_slots = cheapest_by_slots(&per_volume, max_slots as usize);
    let mut notes = Vec::new();
    let mut unpriced = Vec::new();
    let mut designs = Vec::new();
    for instance in &catalog.instances {
        let Some(price) = catalog.instance_price(&instance.name, &options.region, options.os)
        else {
            unpriced.push(instance.name.clone());
            continue;
        };
        let state = if options.burst_tolerant && instance.bursts() {
            AwsState::Burst
        } else {
            AwsState::Sustained
        };
        if !instance_carries(instance, &needs, state) {
            continue;
        }
        let Some(Some((volumes_usd, chosen))) = by_slots.get(instance.ebs_volume_slots as usize)
        else {
            continue;
        };
        let Some(design) = verified_design(
            requirements,
            catalog,
            instance,
            price,
            chosen,
            *volumes_usd,
            state,
            options,
        ) else {
            notes.push(AwsPlanNote::PredictionMissed {
                instance: instance.name.clone(),
            });
            continue;
        };
        designs.push(design);
    }
    designs.sort_by(|a, b| {
        a.total_usd_month
            .total_cmp(&b.total_usd_month)
            .then_with(|| a.instance.cmp(&b.instance))
    });
    designs.truncate(options.top.max(1));
    for (index, design) in designs.iter_mut().enumerate() {
        design.rank = index + 1;
    }
    if designs.is_empty() {
        notes.extend(why_no_design(catalog, options, &needs, &per_volume));
    }
    if !unpriced.is_empty() {
        notes.push(AwsPlanNote::Unpriced {
            region: options.region.clone(),
            os: options.os.name().to_string(),
            instances: unpriced,
        });
    }
    let unpriced_types: Vec<String> = catalog
        .volume_types
        .iter()
        .filter(|rules| catalog.volume_price(&rules.name, &options.region).is_none())
        .map(|rules| rules.name.clone())
        .collect();
    if !unpriced_types.is_empty() {
        notes.push(AwsPlanNote::UnpricedVolumeTypes {
            region: options.region.clone(),
            volume_types: unpriced_types,
        });
    }
    if options.burst_tolerant {
        notes.push(AwsPlanNote::BurstTolerant);
    }
    notes.push(AwsPlanNote::BaselinesOnly);
    notes.push(AwsPlanNote::StripeWidth {
        max_volumes: options.max_volumes_per_stripe,
    });
    notes.push(io_pricing_note(catalog, &options.region));
    AwsPlan {
        instances_considered: catalog.instances.len(),
        designs,
        notes,
        requirement_warnings: crate::requirement_warnings(requirements, 1e6, None),
    }
}

/// When no design is listed, what stood in the way: a volume no stripe of any type carries,
/// or a total above every priced instance type's EBS limit (the most any one carries, named).
fn why_no_design(
    catalog: &AwsCatalog,
    options: &AwsPlanOptions,
    needs: &[Need],
    per_volume: &[Vec<Option<VolumeOption>>],
) -> Vec<AwsPlanNote> {
    let mut why = Vec::new();
    for (need, options_of_count) in needs.iter().zip(per_volume) {
        if options_of_count.iter().all(Option::is_none) {
            why.push(AwsPlanNote::NoVolumeType {
                iops: need.ops_per_s,
                mib_s: need.mib_s,
                max_volumes: options.max_volumes_per_stripe,
            });
        }
    }
    let ops: f64 = needs.iter().map(|n| n.ops_per_s).sum();
    let mb_s: f64 = needs.iter().map(|n| n.mib_s * MIB / 1e6).sum();
    let priced = catalog.instances.iter().filter(|i| {
        catalog
            .instance_price(&i.name, &options.region, options.os)
            .is_some()
    });
    let limit = |i: &AwsInstance| {
        if options.burst_tolerant && i.bursts() {
            (i.maximum_iops.get(), i.maximum_throughput_mb_s.get())
        } else {
            (i.baseline_iops.get(), i.baseline_throughput_mb_s.get())
        }
    };
    let most_iops = priced
        .clone()
        .max_by(|a, b| limit(a).0.total_cmp(&limit(b).0));
    let most_mb_s = priced.max_by(|a, b| limit(a).1.total_cmp(&limit(b).1));
    if let Some(top) = most_iops.filter(|i| limit(i).0 < ops) {
        why.push(AwsPlanNote::InstanceTotal {
            rate: InstanceRate::Iops,
            needed: ops,
            limit: limit(top).0,
            instance: top.name.clone(),
            at_maximum: options.burst_tolerant,
        });
    }
    if let Some(top) = most_mb_s.filter(|i| limit(i).1 < mb_s) {
        why.push(AwsPlanNote::InstanceTotal {
            rate: InstanceRate::MbS,
            needed: mb_s,
            limit: limit(top).1,
            instance: top.name.clone(),
            at_maximum: options.burst_tolerant,
        });
    }
    why
}

/// How provisioned IOPS are billed in `region`, and where the sourced io2 rates end.
fn io_pricing_note(catalog: &AwsCatalog, region: &str) -> AwsPlanNote {
    let io2 = match catalog.volume_price("io2", region) {
        Some(price) if price.iops_priced_up_to.is_some() => {
            Io2Pricing::PricedUpTo(price.iops_priced_up_to.unwrap_or_default())
        }
        Some(price) if !price.iops_tiers.is_empty() => Io2Pricing::Tiers(
            price
                .iops_tiers
                .iter()
                .map(|t| t.above_iops.get())
                .collect(),
        ),
        _ => Io2Pricing::Unpriced,
    };
    AwsPlanNote::IopsPricing {
        region: region.to_string(),
        io2,
    }
}

/// Builds the design and checks it with the model: a design whose prediction does not meet
/// the requirements is never listed.
#[allow(clippy::too_many_arguments)]
fn verified_design(
    requirements: &Requirements,
    catalog: &AwsCatalog,
    instance: &AwsInstance,
    price: &iofit_catalog::clouds::aws::AwsInstancePrice,
    chosen: &[VolumeOption],
    volumes_usd: f64,
    state: AwsState,
    options: &AwsPlanOptions,
) -> Option<AwsDesign> {
    let mut inputs = Vec::new();
    for (volume, option) in requirements.volumes.iter().zip(chosen) {
        let rules = catalog.volume_type(&option.spec.volume_type).ok()?;
        inputs.push((option.spec.clone(), rules, demand_of(volume)));
    }
    let prediction = model::predict(instance, &inputs, state).ok()?;
    if !prediction.meets {
        return None;
    }
    let instance_usd = price.usd_month();
    Some(AwsDesign {
        rank: 0,
        instance: instance.name.clone(),
        vcpu: instance.vcpu,
        memory_gib: instance.memory_gib,
        instance_usd_month: instance_usd,
        instance_price_derived: price.derived(),
        volumes: chosen
            .iter()
            .map(|option| AwsPlannedVolume {
                disk_arg: disk_arg(&option.spec),
                spec: option.spec.clone(),
                cost: option.cost.clone(),
            })
            .collect(),
        volumes_usd_month: volumes_usd,
        total_usd_month: instance_usd + volumes_usd,
        state,
        prediction,
        price_basis: format!(
            "AWS {}, USD, on-demand, {}; month = 730 h{}",
            options.region,
            options.os.name(),
            if price.derived() {
                "; instance price derived per vCPU from its family's xlarge"
            } else {
                ""
            }
        ),
    })
}

/// The demand a requirement puts on its volume (without headroom), at the operating point
/// Azure's plans use too (`SizingTarget::operating_point`): the IOPS asked for, at larger IOs
/// when the MB/s asked for need them; so each limit is sized for its own number, and 300 MB/s
/// at 20,000 IOPS of 8 KiB asks for 20,000 IOPS of 15,000 B, not 36,621 IOPS of 8 KiB.
pub fn demand_of(volume: &VolumeRequirements) -> AwsDemand {
    let (iops, io) = operating_point(&volume.sizing);
    AwsDemand {
        iops: Iops(iops),
        // Within 1 % of IOPS x IO size the typical size stands: the MB/s asked for still holds.
        throughput_mb_s: MBps((iops * io.as_f64() / 1e6).max(volume.sizing.throughput_mb_s.get())),
        io_size_bytes: io,
    }
}

/// (IOPS, bytes per IO) of a requirement, as `SizingTarget::operating_point` gives them in
/// decimal MB (AWS and Google state instance and disk rates in MB/s or MiB/s, converted where
/// used), with IOs of at least 512 bytes.
pub(crate) fn operating_point(sizing: &SizingTarget) -> (f64, Bytes) {
    let mut sizing = sizing.clone();
    sizing.io_size_bytes = Bytes(sizing.io_size_bytes.as_u64().max(512));
    sizing.operating_point(1e6)
}

/// `label=COUNTxTYPE,size_gib=N[,iops=N][,mib_s=N]`, as `predict --cloud aws --disk` takes it.
pub fn disk_arg(spec: &AwsVolumeSpec) -> String {
    let mut text = format!(
        "{}={}x{},size_gib={}",
        spec.label,
        spec.count,
        spec.volume_type,
        spec.size_gib.get()
    );
    if let Some(iops) = spec.iops {
        text.push_str(&format!(",iops={}", iops.get()));
    }
    if let Some(mib_s) = spec.throughput_mib_s {
        text.push_str(&format!(",mib_s={}", mib_s.get()));
    }
    text
}

#[cfg(test)]
#[path = "clouds_tests.rs"]
mod tests;
