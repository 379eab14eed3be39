//! The design one step cheaper than the plan's first: design #1's volumes on the next cheaper
//! VM that could hold them. The plan leaves it out because a limit is over; the
//! workload-over-time chart draws its limits beside design #1's so that one look shows when,
//! and by how much, the workload would have throttled had the next cheaper design been built.

use crate::types::{CatalogRows, Plan};
use iofit_model::Requirements;
use iofit_predict::{predict, LimitKind, Prediction};
use serde::Serialize;

/// Design #1's volumes predicted on a cheaper VM.
#[derive(Clone, Debug, Serialize)]
pub struct CheaperDesign {
    pub vm: String,
    #[serde(rename = "vm_price_per_month", alias = "vm_price_usd_month")]
    pub vm_price_usd_month: f64,
    /// What design #1's volumes deliver on `vm`, with the plan's assumptions.
    pub prediction: Prediction,
}

/// The priced VM just below design #1's VM price that has the data-disk slots for design #1's
/// disks, premium storage if they need it, and publishes every rate limit design #1's volumes
/// meet (a VM without published cached limits could not be drawn), with design #1's volumes
/// predicted on it. `None` when the plan has no design or no such VM is in `rows`.
pub fn next_cheaper_design(
    plan: &Plan,
    requirements: &Requirements,
    rows: &CatalogRows,
) -> Option<CheaperDesign> {
    let top = plan.designs.first()?;
    let top_price = top.vm_price_usd_month?;
    let disks = top.design.total_disks();
    let needs_premium = top.volumes.iter().any(|v| v.disk.kind.needs_premium_vm());
    let mut cheaper: Vec<(&iofit_catalog::VmSize, f64)> = rows
        .vms
        .iter()
        .filter(|vm| vm.name != top.vm && vm.max_data_disks >= disks)
        .filter(|vm| vm.premium_storage || !needs_premium)
        .filter_map(|vm| Some((vm, vm.price_usd_month.filter(|p| *p < top_price)?)))
        .collect();
    // Most expensive first; ties by name, so the choice does not depend on the catalog's order.
    cheaper.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.name.cmp(&b.0.name)));
    let loads = top.volume_loads(requirements);
    cheaper.into_iter().find_map(|(vm, price)| {
        let prediction = predict(vm, &loads, &plan.assumptions, None).ok()?;
        let unpublished = prediction
            .limits
            .iter()
            .any(|c| c.kind.caps_sustained_rate() && c.unpublished())
            || top.volumes.iter().any(|v| {
                let kind = if v.caching.is_cached() {
                    LimitKind::VmCachedIops
                } else {
                    LimitKind::VmUncachedIops
                };
                prediction.limit(kind, "vm").and_then(|c| c.limit).is_none()
            });
        (!unpublished).then(|| CheaperDesign {
            vm: vm.name.clone(),
            vm_price_usd_month: price,
            prediction,
        })
    })
}
