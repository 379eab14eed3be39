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
//! use iofit_model::units::GiB;
//! use iofit_model::{Iops, MBps, Requirements, SizingTarget, VolumeRequirements};
//! use iofit_planner::{plan, CatalogRows, PlanOptions};
//!
//! let p30 = DiskSku { name: "P30".into(), table: "t".into(), kind: DiskKind::PremiumSsd,
//!     size_gib: GiB(1024.0), iops: Iops(5000.0), throughput_mb_s: MBps(200.0), burst_iops: None,
//!     burst_throughput_mb_s: None, price_usd_month: Some(136.085),
//!     price_usd_per_10k_operations: None, operation_unit_kib: None };
//! let vm = VmSize { name: "Standard_DS13".into(), table: "t".into(), family: "DS".into(),
//!     vcpu: 8, memory_gib: GiB(56.0), max_data_disks: 16, premium_storage: true,
//!     uncached_iops: Some(Iops(25600.0)), uncached_throughput_mb_s: Some(MBps(256.0)),
//!     cached_iops: None, cached_throughput_mb_s: None, cache_size_gib: None,
//!     temp_storage_gib: None, burst_uncached_iops: None,
//!     burst_uncached_throughput_mb_s: None, price_usd_month: Some(1003.66), traits: None };
//! let requirements = Requirements {
//!     volumes: vec![VolumeRequirements {
//!         label: "data".into(),
//!         sizing: SizingTarget { iops: Iops(16000.0), io_size_bytes: iofit_model::Bytes(8192), read_pct: 70.0,
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

use iofit_model::units::MIB;
use iofit_model::Requirements;

mod cheaper;
pub mod clouds;
pub mod clouds_gcp;
mod clouds_gcp_note;
pub mod clouds_gcp_provisioned;
mod clouds_note;
mod disk_rules;
pub mod fleet_plan;
mod headroom;
mod impossible;
mod impossible_reason;
mod netapp;
mod operating;
pub mod plan_note;
mod queue;
mod requirement_checks;
mod requirement_warning;
mod search;
mod types;
mod vm_trials;
mod volume_options;

pub use cheaper::{next_cheaper_design, CheaperDesign};
pub use clouds_gcp_note::GcpPlanNote;
pub use disk_rules::{choose_caching, choose_stripe};
use impossible::{impossible_reasons, plan_notes, requirement_totals};
pub use impossible_reason::{ImpossibleReason, VmRate};
pub use netapp::netapp_option;
pub use operating::operating_point;
pub use plan_note::PlanNote;
pub use queue::{queue_depths, QueueDepths};
pub use requirement_checks::requirement_warnings;
pub use requirement_warning::{warning_lines, RequirementWarning, SizedBy};
pub use types::{
    CatalogRows, NetAppOption, Plan, PlanError, PlanOptions, PlannedDesign, PlannedVolume,
    Rejected, RequirementTotals, DEFAULT_MIN_HEADROOM_PCT, HOURS_PER_MONTH,
};
use vm_trials::{
    plan_vm, rank_designs, rejected_shown, try_combinations, SharedOptions, VmOutcome, VmSearch,
};
pub use volume_options::{may_hold_role, OS_DISK_SOURCE};

/// Checks requirements before planning: the one validation every command uses
/// ([`Requirements::validate`]), then that each volume has something to size.
pub fn validate(requirements: &Requirements) -> Result<(), PlanError> {
    requirements
        .validate()
        .map_err(|e| PlanError::Requirements(e.to_string()))?;
    for volume in &requirements.volumes {
        if volume.sizing.iops.get() == 0.0 && volume.sizing.throughput_mb_s.get() == 0.0 {
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
                totals.throughput_mb_s.get() * mb / MIB as f64,
                totals.capacity_gib.to_tib(),
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

/// A requirements file with every key documented, as `iofit plan --example-requirements`
/// prints it; `--requirements` reads it back.
pub const EXAMPLE_REQUIREMENTS: &str = include_str!("example-requirements.toml");

#[cfg(test)]
mod tests;
