//! Planning one VM: the cheapest combination of volume options that fits it, or why none does.

use crate::disk_rules::fmt_num;
use crate::disk_rules::rank_cost;
use crate::disk_rules::VolumeOption;
use crate::headroom::headroom_shortfall;
use crate::headroom::slots_allowed;
use crate::impossible::describe;
use crate::impossible::host_shortfall;
use crate::impossible::vm_total_shortfall;
use crate::queue::failure_reason;
use crate::search::cheapest_fitting;
use crate::search::Budget;
use crate::search::Choice;
use crate::search::SHARED_LIMITS;
use crate::types::CatalogRows;
use crate::types::PlanError;
use crate::types::PlanOptions;
use crate::types::PlannedDesign;
use crate::types::PlannedVolume;
use crate::types::Rejected;
use crate::volume_options::build_loads;
use crate::volume_options::plan_volume;
use crate::volume_options::volume_options;
use iofit_catalog::VmSize;
use iofit_model::{Design, Requirements, VolumeDesign};
use iofit_predict::{predict, Alternatives, LimitKind, Prediction, VolumeLoad};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// What planning one VM gives: its design, or why it cannot carry the requirements.
pub(crate) enum VmOutcome {
    Design(Box<PlannedDesign>),
    Rejected(Rejected),
}

/// A VM ruled out, and why.
pub(crate) fn rejection(vm: &VmSize, limit: Option<LimitKind>, reason: String) -> Rejected {
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
pub(crate) type OptionsKey = (bool, bool, u32);

/// Each volume's options on the VMs alike in [`OptionsKey`], and the choices the search takes.
pub(crate) struct Prepared {
    /// Every option per volume, cheapest first.
    pub(crate) options: Vec<Vec<VolumeOption>>,
    /// Per volume: the options that meet the volume's own limits alone (predicted on the VM
    /// with its shared limits lifted), less those another such option dominates.
    pub(crate) choices: Vec<Vec<Choice>>,
}

/// What planning shares across VMs: each [`OptionsKey`]'s prepared options, and whether an
/// option meets its volume's own limits (keyed by cached limits published, volume, option).
#[derive(Default)]
pub(crate) struct SharedOptions {
    pub(crate) prepared: HashMap<OptionsKey, Rc<Prepared>>,
    pub(crate) alone_fits: HashMap<(bool, usize, String), bool>,
}

/// Plans one VM: host and total limits first (no disks needed to rule it out), then each
/// volume's disk options, then the cheapest combination that fits.
pub(crate) fn plan_vm(
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
pub(crate) fn without_shared_limits(vm: &VmSize) -> VmSize {
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
pub(crate) fn prepare(
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
                    crate::search::CACHED_IOPS
                } else {
                    crate::search::UNCACHED_IOPS
                };
                uses[at] = d.iops.get();
                uses[at + 1] = d.throughput_mb_s.get();
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
pub(crate) fn vm_budget(vm: &VmSize, options: &PlanOptions) -> Budget {
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
pub(crate) struct Trial {
    pub(crate) disk_price: Option<f64>,
    pub(crate) operations_price: Option<f64>,
    /// The operations charges that are sourced, summed (all of them when `operations_price`).
    pub(crate) operations_known: f64,
    pub(crate) pairs: Vec<(VolumeLoad, PlannedVolume)>,
    pub(crate) prediction: Prediction,
}

/// How one VM is searched: the exact search in the planner, an exhaustive one in the tests.
pub(crate) type VmSearch = fn(
    &VmSize,
    &Requirements,
    &CatalogRows,
    &PlanOptions,
    &Prepared,
) -> Result<VmOutcome, PlanError>;

/// What predicting one combination says: its design, or why it is not one.
pub(crate) enum Attempt {
    Design(Box<PlannedDesign>),
    Failed(Box<Rejected>),
}

/// Predicts the combination `indices` (one option index per volume) on `vm`.
pub(crate) fn attempt(
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
pub(crate) fn cheapest_of_all(options: &[Vec<VolumeOption>]) -> Vec<usize> {
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
pub(crate) fn try_combinations(
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
pub(crate) fn trial(
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
pub(crate) fn trial_failure(
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
pub(crate) fn planned_design(vm: &VmSize, trial: Trial) -> PlannedDesign {
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
pub(crate) fn price_note(
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
pub(crate) fn design_of(vm: &VmSize, volumes: &[PlannedVolume]) -> Design {
    Design {
        vm: vm.name.clone(),
        volumes: volumes
            .iter()
            .map(|v| {
                let mut d =
                    VolumeDesign::new(v.label.clone(), v.disk_sku.clone(), v.disk_count, v.caching);
                d.stripe_size = v.stripe_size_bytes;
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
pub(crate) fn rank_designs(accepted: &mut [PlannedDesign]) {
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
            .then(a.vm_memory_gib.get().total_cmp(&b.vm_memory_gib.get()))
            .then(
                a.disk_capacity_gib()
                    .get()
                    .total_cmp(&b.disk_capacity_gib().get()),
            )
            .then(a.vm.cmp(&b.vm)),
    });
}

/// The cheapest rejected VMs worth showing: those cheaper than the best design (or, unpriced,
/// not bigger than it), cheapest first.
pub(crate) fn rejected_shown(
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
                .then(a.vm_memory_gib.get().total_cmp(&b.vm_memory_gib.get())),
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
