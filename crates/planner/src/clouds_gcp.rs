//! Planning on Google Cloud: the cheapest Compute Engine machine type + Persistent Disks that
//! meet each volume's requirements, searched exactly.
//!
//! Why the search is exact: a disk type's performance on a VM is `baseline + rate x the total
//! GiB of that type`, capped by the VM's limit (see [`iofit_predict::gcp`]), and each GiB is
//! billed the same. So for a machine type and a choice of disk type per volume, the cheapest
//! sizes are closed form: each type's total is the least that carries its volumes' demand (and
//! holds their capacity), and the disks split it by demand. Every choice of types over the
//! volumes is tried (3 types, a few volumes), on every priced machine type.
//!
//! A provisioned type (pd-extreme; Hyperdisk when a `--catalog` file adds the facts no source
//! gave) is one more choice when every fact a plan needs is in the tables: each of its disks
//! is given the least size, IOPS and MiB/s that carry its volume
//! ([`crate::clouds_gcp_provisioned`]), billed by the GiB, the IOPS and the MiB/s.

use crate::clouds::capacity_gib;
use crate::clouds_gcp_note::GcpPlanNote;
use crate::clouds_gcp_provisioned::{price_parts, size_group};
use iofit_catalog::clouds::gcp::{GcpCatalog, GcpMachineType, PdType};
use iofit_catalog::clouds::gcp_provisioned::ProvisionedType;
use iofit_model::requirements::VolumeRequirements;
use iofit_model::units::{GiB, Iops};
use iofit_model::Requirements;
use iofit_predict::gcp::{self as model, GcpDemand, GcpDiskSpec, GcpPrediction};
use serde::{Deserialize, Serialize};

const MIB: f64 = 1_048_576.0;

/// More volumes than this are given one disk type for all (the choices grow as 3^volumes).
const MAX_VOLUMES_MIXED: usize = 6;

/// How a Google Cloud plan is made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpPlanOptions {
    pub top: usize,
    /// Headroom kept below every limit, percent (as the Azure plan's).
    pub min_headroom_pct: f64,
    pub region: String,
}

impl Default for GcpPlanOptions {
    fn default() -> Self {
        GcpPlanOptions {
            top: 5,
            min_headroom_pct: crate::DEFAULT_MIN_HEADROOM_PCT,
            region: iofit_catalog::clouds::gcp::DEFAULT_REGION.to_string(),
        }
    }
}

/// One disk of a design, priced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpPlannedDisk {
    pub spec: GcpDiskSpec,
    pub price_per_gib_month: f64,
    /// Provisioned types: the rates of one IOPS and one MiB/s a month, beyond what is included.
    pub price_per_iops_month: Option<f64>,
    pub price_per_mib_s_month: Option<f64>,
    /// The month's price split: the GiB, the provisioned IOPS, the provisioned MiB/s.
    pub capacity_price_per_month: f64,
    pub iops_price_per_month: f64,
    pub throughput_price_per_month: f64,
    pub price_per_month: f64,
    /// The `--disk` text `predict --cloud gcp` takes for it.
    pub disk_arg: String,
}

/// One design: a machine type and its disks, priced and predicted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpDesign {
    pub rank: usize,
    pub machine_type: String,
    pub vcpu: u32,
    pub memory_gib: GiB,
    pub machine_price_per_month: f64,
    pub disks: Vec<GcpPlannedDisk>,
    pub disks_price_per_month: f64,
    pub total_price_per_month: f64,
    /// The design's prediction at the requirements.
    pub prediction: GcpPrediction,
    pub price_basis: String,
}

/// The result of planning on Google Cloud.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpPlan {
    pub designs: Vec<GcpDesign>,
    pub machine_types_considered: usize,
    pub notes: Vec<GcpPlanNote>,
    /// What the plan says of its requirements before its designs (see `AwsPlan`).
    #[serde(default)]
    pub requirement_warnings: Vec<crate::RequirementWarning>,
}

/// The demand a requirement puts on its disk (without headroom).
pub fn demand_of(volume: &VolumeRequirements) -> GcpDemand {
    // The operating point every cloud's plan uses (see `clouds::demand_of`).
    let (iops, io) = crate::clouds::operating_point(&volume.sizing);
    GcpDemand {
        iops: Iops(iops),
        io_size_bytes: io,
        read_pct: volume.sizing.read_pct.clamp(0.0, 100.0),
    }
}

/// `label=TYPE,size_gib=N[,iops=N][,mib_s=N]`, as `predict --cloud gcp --disk` takes it.
pub fn disk_arg(spec: &GcpDiskSpec) -> String {
    let mut arg = format!(
        "{}={},size_gib={}",
        spec.label,
        spec.disk_type,
        spec.size_gib.get()
    );
    if let Some(iops) = spec.provisioned_iops {
        arg.push_str(&format!(",iops={}", iops.get()));
    }
    if let Some(mib_s) = spec.provisioned_mib_s {
        arg.push_str(&format!(",mib_s={}", mib_s.get()));
    }
    arg
}

/// One disk type a volume may be given: a Persistent Disk type sized by the GiB, or a
/// provisioned type given its IOPS and MiB/s.
#[derive(Clone, Copy, Debug)]
enum DiskChoice<'a> {
    Pd(&'a PdType),
    Provisioned(&'a ProvisionedType),
}

impl DiskChoice<'_> {
    fn name(&self) -> &str {
        match self {
            DiskChoice::Pd(rules) => &rules.name,
            DiskChoice::Provisioned(row) => &row.name,
        }
    }
}

/// The least total GiB of `rules` that carries `volumes` (demand already divided by the
/// headroom factor) on `machine`, or `None` when the VM's limit is below the demand.
fn least_total_gib(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    rules: &PdType,
    volumes: &[(&VolumeRequirements, GcpDemand)],
    headroom: f64,
) -> Option<GiB> {
    let vm = catalog.vm_limit(machine, &rules.name)?;
    let mut sums = [0.0f64; 4];
    for (_, d) in volumes {
        let r = d.read_pct / 100.0;
        let mib_s = d.iops.get() * d.io_size_bytes.as_f64() / MIB;
        for (sum, part) in sums.iter_mut().zip([
            d.iops.get() * r,
            d.iops.get() * (1.0 - r),
            mib_s * r,
            mib_s * (1.0 - r),
        ]) {
            *sum += part / headroom;
        }
    }
    let [read_ops, write_ops, read_mib, write_mib] = sums;
    let tolerance = 1.0 + 1e-12;
    if read_ops > vm.read_iops.get() * tolerance
        || write_ops > vm.write_iops.get() * tolerance
        || read_mib > vm.read_mib_s.get() * tolerance
        || write_mib > vm.write_mib_s.get() * tolerance
    {
        return None;
    }
    // A type with a rate floor (pd-standard) performs as the floor below it: a need the
    // floor meets asks for no GiB of its own.
    let floor = rules.rate_floor_gib.unwrap_or_default();
    let gib_for = |need: f64, baseline: f64, per_gib: f64| {
        let gib = GiB(if need <= baseline {
            0.0
        } else if per_gib > 0.0 {
            (need - baseline) / per_gib
        } else {
            f64::INFINITY
        });
        if gib <= floor {
            GiB(0.0)
        } else {
            gib
        }
    };
    let capacity: GiB = volumes.iter().map(|(v, _)| disk_floor_gib(v)).sum();
    let total = capacity
        .max(gib_for(
            read_ops,
            rules.baseline_iops.get(),
            rules.read_iops_per_gib,
        ))
        .max(gib_for(
            write_ops,
            rules.baseline_iops.get(),
            rules.write_iops_per_gib,
        ))
        .max(gib_for(
            read_mib,
            rules.baseline_mib_s.get(),
            rules.throughput_mib_s_per_gib,
        ))
        .max(gib_for(
            write_mib,
            rules.baseline_mib_s.get(),
            rules.throughput_mib_s_per_gib,
        ));
    total.get().is_finite().then(|| total.ceil())
}

/// The least a volume's disk holds: its capacity in whole GiB, at least 1.
fn disk_floor_gib(volume: &VolumeRequirements) -> GiB {
    capacity_gib(volume).max(GiB(1.0)).ceil()
}

/// Splits `total_gib` between the volumes: each its capacity, the rest by demand (rounded up
/// to whole GiB, so the sum is at least the total).
fn split_sizes(volumes: &[(&VolumeRequirements, GcpDemand)], total_gib: GiB) -> Vec<GiB> {
    let capacities: Vec<GiB> = volumes.iter().map(|(v, _)| disk_floor_gib(v)).collect();
    let extra = (total_gib - capacities.iter().copied().sum::<GiB>()).max(GiB(0.0));
    let demand: f64 = volumes.iter().map(|(_, d)| d.iops.get()).sum();
    capacities
        .iter()
        .zip(volumes)
        .map(|(capacity, (_, d))| {
            let share = if demand > 0.0 {
                d.iops.get() / demand
            } else {
                1.0 / volumes.len() as f64
            };
            *capacity + (extra * share).ceil()
        })
        .collect()
}

/// The disks of one choice of types (`types[i]` for volume `i`) on `machine`, or `None` when
/// a type cannot carry its volumes there or is not priced.
fn disks_for(
    requirements: &Requirements,
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    types: &[DiskChoice],
    headroom: f64,
) -> Option<Vec<GcpDiskSpec>> {
    let mut disks: Vec<Option<GcpDiskSpec>> = vec![None; types.len()];
    for choice in types {
        if disks.iter().flatten().any(|d| d.disk_type == choice.name()) {
            continue;
        }
        let members: Vec<usize> = (0..types.len())
            .filter(|&i| types[i].name() == choice.name())
            .collect();
        let group: Vec<(&VolumeRequirements, GcpDemand)> = members
            .iter()
            .map(|&i| {
                let v = &requirements.volumes[i];
                (v, demand_of(v))
            })
            .collect();
        let specs = match choice {
            DiskChoice::Pd(rules) => {
                let total = least_total_gib(catalog, machine, rules, &group, headroom)?;
                split_sizes(&group, total)
                    .into_iter()
                    .zip(&members)
                    .map(|(size_gib, &i)| GcpDiskSpec {
                        label: requirements.volumes[i].label.clone(),
                        disk_type: rules.name.clone(),
                        size_gib,
                        ..Default::default()
                    })
                    .collect()
            }
            DiskChoice::Provisioned(row) => {
                // No per-VM limit for this machine: the type is not a choice here.
                catalog.vm_limit(machine, &row.name)?;
                size_group(catalog, row, &group, headroom)?
            }
        };
        for (&i, spec) in members.iter().zip(specs) {
            disks[i] = Some(spec);
        }
    }
    disks.into_iter().collect()
}

/// Every choice of one disk type per volume (one type for all past [`MAX_VOLUMES_MIXED`]).
fn type_choices<'a>(types: &[DiskChoice<'a>], volumes: usize) -> Vec<Vec<DiskChoice<'a>>> {
    if volumes > MAX_VOLUMES_MIXED {
        return types.iter().map(|t| vec![*t; volumes]).collect();
    }
    let mut choices: Vec<Vec<DiskChoice>> = vec![Vec::new()];
    for _ in 0..volumes {
        choices = choices
            .into_iter()
            .flat_map(|chosen| {
                types.iter().map(move |t| {
                    let mut next = chosen.clone();
                    next.push(*t);
                    next
                })
            })
            .collect();
    }
    choices
}

/// `spec` priced in `region`, or `None` when its type has no price there.
fn priced(catalog: &GcpCatalog, spec: GcpDiskSpec, region: &str) -> Option<GcpPlannedDisk> {
    let price = catalog.disk_price(&spec.disk_type, region)?;
    let [capacity, iops, throughput] =
        price_parts(catalog.provisioned_type(&spec.disk_type), &spec, price);
    Some(GcpPlannedDisk {
        disk_arg: disk_arg(&spec),
        price_per_gib_month: price.price_per_gib_month,
        price_per_iops_month: spec.provisioned_iops.and(price.price_per_iops_month),
        price_per_mib_s_month: spec.provisioned_mib_s.and(price.price_per_mib_s_month),
        capacity_price_per_month: capacity,
        iops_price_per_month: iops,
        throughput_price_per_month: throughput,
        price_per_month: capacity + iops + throughput,
        spec,
    })
}

/// The cheapest design on `machine`, checked by the model, or `None`.
fn cheapest_on(
    requirements: &Requirements,
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    choices: &[Vec<DiskChoice>],
    headroom: f64,
    region: &str,
) -> Option<(f64, Vec<GcpPlannedDisk>, GcpPrediction)> {
    let mut best: Option<(f64, Vec<GcpPlannedDisk>, GcpPrediction)> = None;
    for types in choices {
        let Some(disks) = disks_for(requirements, catalog, machine, types, headroom) else {
            continue;
        };
        // The choices hold priced types only; an unpriced one is never a design.
        let Some(planned) = disks
            .into_iter()
            .map(|spec| priced(catalog, spec, region))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let cost: f64 = planned.iter().map(|d| d.price_per_month).sum();
        if best.as_ref().is_some_and(|(c, _, _)| *c <= cost) {
            continue;
        }
        let inputs: Vec<(GcpDiskSpec, GcpDemand)> = planned
            .iter()
            .zip(&requirements.volumes)
            .map(|(d, v)| (d.spec.clone(), demand_of(v)))
            .collect();
        let Ok(prediction) = model::predict(catalog, machine, &inputs) else {
            continue;
        };
        // A design whose prediction misses the requirements or the headroom is never listed.
        let floor = (1.0 - headroom) * 100.0 - 1e-6;
        if prediction.meets && prediction.headroom_pct >= floor {
            best = Some((cost, planned, prediction));
        }
    }
    best
}

/// Plans `requirements` on Google Cloud.
pub fn plan_gcp(
    requirements: &Requirements,
    catalog: &GcpCatalog,
    options: &GcpPlanOptions,
) -> GcpPlan {
    let headroom = 1.0 - options.min_headroom_pct / 100.0;
    let types: Vec<DiskChoice> = catalog
        .disk_types
        .iter()
        .filter(|t| catalog.disk_price(&t.name, &options.region).is_some())
        .map(DiskChoice::Pd)
        .chain(
            catalog
                .plannable_provisioned(&options.region)
                .into_iter()
                .map(DiskChoice::Provisioned),
        )
        .collect();
    let choices = type_choices(&types, requirements.volumes.len());
    let mut unpriced = Vec::new();
    let mut designs = Vec::new();
    for machine in &catalog.machine_types {
        let Some(price) = catalog.machine_price(&machine.name, &options.region) else {
            unpriced.push(machine.name.clone());
            continue;
        };
        let Some((disks_cost, disks, prediction)) = cheapest_on(
            requirements,
            catalog,
            machine,
            &choices,
            headroom,
            &options.region,
        ) else {
            continue;
        };
        let machine_cost = price.price_per_month();
        designs.push(GcpDesign {
            rank: 0,
            machine_type: machine.name.clone(),
            vcpu: machine.vcpu,
            memory_gib: machine.memory_gib,
            machine_price_per_month: machine_cost,
            disks,
            disks_price_per_month: disks_cost,
            total_price_per_month: machine_cost + disks_cost,
            prediction,
            price_basis: format!(
                "Google Cloud {}, USD, on-demand, Linux, no sustained-use discount; month = 730 h",
                options.region
            ),
        });
    }
    designs.sort_by(|a, b| {
        a.total_price_per_month
            .total_cmp(&b.total_price_per_month)
            .then_with(|| a.machine_type.cmp(&b.machine_type))
    });
    designs.truncate(options.top.max(1));
    for (index, design) in designs.iter_mut().enumerate() {
        design.rank = index + 1;
    }
    let mut notes = notes(catalog, options, &unpriced, requirements.volumes.len());
    if designs.is_empty() {
        notes.insert(0, largest_limits_note(catalog, &options.region));
    }
    GcpPlan {
        machine_types_considered: catalog.machine_types.len(),
        designs,
        notes,
        requirement_warnings: crate::requirement_warnings(requirements, 1e6, None),
    }
}

/// Why nothing fits, in the catalog's own terms: the largest per-VM limits of the disk types
/// a plan in `region` uses.
fn largest_limits_note(catalog: &GcpCatalog, region: &str) -> GcpPlanNote {
    let planned: Vec<&str> = catalog
        .disk_types
        .iter()
        .map(|t| t.name.as_str())
        .chain(
            catalog
                .plannable_provisioned(region)
                .into_iter()
                .map(|row| row.name.as_str()),
        )
        .collect();
    let most = |f: fn(&iofit_catalog::clouds::gcp::VmPdLimit) -> f64| {
        catalog
            .vm_limits
            .iter()
            .filter(|l| planned.contains(&l.disk_type.as_str()))
            .map(f)
            .fold(0.0, f64::max)
    };
    GcpPlanNote::NoneFits {
        types: planned.iter().map(|t| t.to_string()).collect(),
        read_iops: most(|l| l.read_iops.get()),
        write_iops: most(|l| l.write_iops.get()),
        read_mib_s: most(|l| l.read_mib_s.get()),
        write_mib_s: most(|l| l.write_mib_s.get()),
    }
}

fn notes(
    catalog: &GcpCatalog,
    options: &GcpPlanOptions,
    unpriced: &[String],
    volumes: usize,
) -> Vec<GcpPlanNote> {
    let mut notes = Vec::new();
    if !unpriced.is_empty() {
        notes.push(GcpPlanNote::Unpriced {
            region: options.region.clone(),
            machine_types: unpriced.to_vec(),
        });
    }
    if catalog
        .machine_prices
        .iter()
        .all(|p| p.region != options.region)
    {
        notes.push(GcpPlanNote::NoRegionPrices {
            region: options.region.clone(),
            sourced: catalog.priced_regions(),
        });
    }
    if volumes > MAX_VOLUMES_MIXED {
        notes.push(GcpPlanNote::OneDiskType {
            max_volumes: MAX_VOLUMES_MIXED,
        });
    }
    notes.push(GcpPlanNote::PersistentDiskModel);
    notes.push(GcpPlanNote::PerTypeLimits);
    notes.extend(provisioned_notes(catalog, &options.region));
    notes
}

/// One note per provisioned type (pd-extreme, Hyperdisk): how a planned one is sized and
/// billed, or which facts a plan would need and no table gives.
pub fn provisioned_notes(catalog: &GcpCatalog, region: &str) -> Vec<GcpPlanNote> {
    catalog
        .provisioned_types
        .iter()
        .map(|row| {
            let gaps = catalog.planning_gaps(row, region);
            if !gaps.is_empty() {
                return GcpPlanNote::ProvisionedNotPlanned {
                    disk_type: row.name.clone(),
                    gaps,
                };
            }
            let mut families: Vec<String> = catalog
                .machine_types
                .iter()
                .filter(|m| catalog.vm_limit(m, &row.name).is_some())
                .map(|m| m.family.clone())
                .collect();
            families.sort();
            families.dedup();
            GcpPlanNote::ProvisionedPlanned {
                disk_type: row.name.clone(),
                bills_throughput: row.bills("throughput"),
                throughput_by_size_as: row.throughput_by_size_as.clone(),
                families,
            }
        })
        .collect()
}

#[cfg(test)]
#[path = "clouds_gcp_tests.rs"]
mod tests;
