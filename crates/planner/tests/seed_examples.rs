//! The seed's planning examples against the real catalog; totals are computed from the parts.

use iofit_catalog::{Catalog, EDITION_CURRENT, EDITION_SEED};
use iofit_model::units::TiB;
use iofit_model::{Requirements, SizingTarget, VolumeRequirements, VolumeRole};
use iofit_planner::{
    netapp_option, plan, CatalogRows, ImpossibleReason, PlanOptions, VmRate, EXAMPLE_REQUIREMENTS,
};
use iofit_predict::{Assumptions, MbConvention};

fn rows(catalog: &Catalog, edition: &str) -> CatalogRows {
    CatalogRows {
        vms: catalog.vms_in(edition).cloned().collect(),
        disks: catalog.disks_in(edition).cloned().collect(),
        provisioned: catalog.provisioned_in(edition).cloned().collect(),
        netapp: if edition == EDITION_CURRENT {
            catalog.netapp.clone()
        } else {
            Vec::new()
        },
    }
}

fn sixteen_thousand_iops() -> Requirements {
    Requirements {
        source: "seed cost example".into(),
        growth_factor: 1.0,
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            role: VolumeRole::Data,
            sizing: SizingTarget {
                iops: iofit_model::Iops(16000.0),
                throughput_mb_s: iofit_model::MBps(0.0),
                latency_ms: None,
                io_size_bytes: iofit_model::Bytes(8192),
                read_pct: 70.0,
                random_pct: 100.0,
                capacity_gib: None,
                queue_depth: None,
            },
            ..Default::default()
        }],
        ..Default::default()
    }
}

#[test]
fn seed_cost_example_ds13_with_4_p30_beats_d14_with_32_standard_disks() {
    let catalog = Catalog::embedded().unwrap();
    let options = PlanOptions {
        assumptions: Assumptions {
            mb: MbConvention::Binary,
            cache_hit_pct: 0.0,
            ..Assumptions::default()
        },
        top: 10,
        // The seed's example is a strict fit: 32 x S30 give exactly 16,000 IOPS (0% headroom),
        // so it runs with the headroom rule off, as `--min-headroom-pct 0` does on the CLI.
        min_headroom_pct: 0.0,
        ..PlanOptions::default()
    };
    let plan = plan(
        &sixteen_thousand_iops(),
        &rows(&catalog, EDITION_SEED),
        &options,
    )
    .unwrap();
    let first = &plan.designs[0];
    let second = &plan.designs[1];
    assert_eq!(first.vm, "Standard_DS13");
    assert_eq!(
        (
            first.volumes[0].disk_count,
            first.volumes[0].disk_sku.as_str()
        ),
        (4, "P30")
    );
    assert_eq!(second.vm, "Standard_D14");
    assert_eq!(
        (
            second.volumes[0].disk_count,
            second.volumes[0].disk_sku.as_str()
        ),
        (32, "S30")
    );
    // Totals from the parts, parts from the catalog.
    let ds13 = catalog.vm("Standard_DS13", EDITION_SEED).unwrap();
    let d14 = catalog.vm("Standard_D14", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let s30 = catalog.disk("S30", EDITION_SEED).unwrap();
    let premium = ds13.price_usd_month.unwrap() + 4.0 * p30.price_usd_month.unwrap();
    let standard = d14.price_usd_month.unwrap() + 32.0 * s30.price_usd_month.unwrap();
    assert_eq!(first.total_usd_month, Some(premium));
    assert_eq!(second.total_usd_month, Some(standard));
    assert!(premium < standard);
    // The seed sources no operations charge for its standard disks: the D14 design's cost is
    // incomplete (it ranks after fully priced designs), never treated as free.
    assert!(first.cost_complete);
    assert!(!second.cost_complete);
    assert_eq!(second.operations_usd_month, None);
    assert!(second
        .price_note
        .as_deref()
        .unwrap()
        .contains("operations charge not sourced"));
    // The seed prints 1,544.34 for the premium total; its own parts add up to 1,548.00.
    let cents = |x: f64| (x * 100.0).round() as i64;
    assert_eq!(cents(premium), 154_800);
    assert_ne!(cents(premium), 154_434);
    assert_eq!(cents(standard), 320_898);
    // 4 x P30 give 20,000 IOPS within DS13's 25,600.
    assert_eq!(first.prediction.max_total_iops.get(), 4.0 * p30.iops.0);
    assert!(4.0 * p30.iops.0 <= ds13.uncached_iops.unwrap().0);
    // DS13's cached limits are not published: the plan keeps caching None and says why.
    assert!(first.volumes[0].caching_reason.contains("not published"));
    // DS1 is cheaper only as a VM, and it is ruled out by a limit.
    assert!(plan.designs.iter().all(|d| d.prediction.fits()));
}

#[test]
fn netapp_4500_mib_s_is_premium_at_70_31_tib() {
    let catalog = Catalog::embedded().unwrap();
    let premium = catalog.netapp_level("Premium").unwrap();
    let option = netapp_option(premium, 4500.0, TiB(0.0));
    assert_eq!(format!("{:.2}", option.quota_tib.get()), "70.31");
    assert_eq!(
        option.quota_tib,
        TiB(4500.0 / premium.throughput_mib_s_per_tib.0)
    );
}

#[test]
fn example_requirements_plan_over_the_current_catalog() {
    let catalog = Catalog::embedded().unwrap();
    let requirements: Requirements = toml::from_str(EXAMPLE_REQUIREMENTS).unwrap();
    let plan = plan(
        &requirements,
        &rows(&catalog, EDITION_CURRENT),
        &PlanOptions::default(),
    )
    .unwrap();
    assert!(!plan.designs.is_empty());
    let best = &plan.designs[0];
    let data = best.volumes.iter().find(|v| v.label == "data").unwrap();
    let log = best.volumes.iter().find(|v| v.label == "log").unwrap();
    assert_eq!(log.caching, iofit_model::HostCaching::None);
    assert!(data.caching != iofit_model::HostCaching::ReadWrite);
    if let (Some(vm), Some(disks), Some(total)) = (
        best.vm_price_usd_month,
        best.disks_price_usd_month,
        best.total_usd_month,
    ) {
        assert_eq!(total, vm + disks);
        let sum: f64 = best
            .volumes
            .iter()
            .map(|v| v.price_usd_month.unwrap())
            .sum();
        assert!((disks - sum).abs() < 1e-9);
    }
    // Priced designs before unpriced.
    let first_unpriced = plan
        .designs
        .iter()
        .position(|d| d.total_usd_month.is_none());
    if let Some(index) = first_unpriced {
        assert!(plan.designs[index..]
            .iter()
            .all(|d| d.total_usd_month.is_none()));
    }
    assert_eq!(plan.netapp.len(), 3);
}

#[test]
fn impossible_requirements_name_the_limit_no_vm_meets() {
    let catalog = Catalog::embedded().unwrap();
    let mut requirements = sixteen_thousand_iops();
    requirements.volumes[0].sizing.iops = iofit_model::Iops(5e6);
    let plan = plan(
        &requirements,
        &rows(&catalog, EDITION_CURRENT),
        &PlanOptions::default(),
    )
    .unwrap();
    assert!(plan.designs.is_empty());
    assert!(
        plan.impossible.iter().any(|r| matches!(
            r,
            ImpossibleReason::VmTotal {
                rate: VmRate::UncachedIops,
                ..
            }
        )),
        "{:?}",
        plan.impossible
    );
}
