//! The plan's catalog side: disks priced the way Azure bills them (Premium SSD v2 above its
//! free baseline, from the region's sourced meters), prices by region, OS and way of paying,
//! and Azure's rules about which sizes and disks a design may use.

use iofit_procedure::plan::{self, CatalogChoice, PlanRequest, RequirementsSource, VolumeFlags};

fn flags(iops: f64, capacity_gib: Option<f64>, role: &str) -> VolumeFlags {
    VolumeFlags {
        iops: Some(iops),
        throughput_mb_s: None,
        latency_ms: None,
        capacity_gib,
        read_pct: 70.0,
        random_pct: 100.0,
        io_size: "8k".into(),
        role: role.into(),
    }
}

fn request(volume: VolumeFlags, catalog: CatalogChoice) -> PlanRequest {
    PlanRequest {
        requirements: RequirementsSource::Flags(volume),
        growth: None,
        top: 5,
        caching: None,
        cache_hit_pct: 0.0,
        service_latency_ms: None,
        min_headroom_pct: 10.0,
        busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
        catalog,
        report: None,
        capture: Vec::new(),
    }
}

fn current() -> CatalogChoice {
    CatalogChoice {
        edition: "current".into(),
        ..Default::default()
    }
}

fn region(name: &str) -> CatalogChoice {
    CatalogChoice {
        region: Some(name.into()),
        ..current()
    }
}

/// The PremiumV2 rates the plan's catalog holds for a choice (what the sourced meters say).
fn v2_rates(choice: &CatalogChoice) -> (f64, f64, f64) {
    let (catalog, _) = choice.load_priced().unwrap();
    let v2 = catalog
        .provisioned
        .iter()
        .find(|d| d.name == "PremiumV2")
        .unwrap();
    (
        v2.price_usd_per_gib_month.unwrap(),
        v2.price_usd_per_iops_month.unwrap(),
        v2.price_usd_per_mb_s_month.unwrap(),
    )
}

/// Checks that design #1 puts its volume on Premium SSD v2 and that the disk's price is
/// capacity + IOPS above 3,000 + MB/s above 125 at the sourced rates. Returns the volume.
fn first_is_v2_priced_from_meters(
    choice: CatalogChoice,
    volume: VolumeFlags,
) -> iofit_planner::PlannedVolume {
    let rates = v2_rates(&choice);
    let outcome = plan::plan(&request(volume, choice)).unwrap();
    let first = &outcome.plan.designs[0];
    let v = first.volumes[0].clone();
    assert_eq!(v.disk_sku, "PremiumV2", "{}", outcome.text());
    let iops = v.provisioned_iops.unwrap();
    let mb_s = v.provisioned_throughput_mb_s.unwrap();
    let expected = v.disk_size_gib * rates.0
        + (iops - 3000.0).max(0.0) * rates.1
        + (mb_s - 125.0).max(0.0) * rates.2;
    let per_disk = v.price_per_disk_usd_month.unwrap();
    assert!(
        (per_disk - expected).abs() < 1e-6,
        "{per_disk} vs {expected}"
    );
    v
}

#[test]
fn a_3000_iops_64_gib_volume_is_planned_on_premium_ssd_v2_with_its_iops_bought() {
    for choice in [current(), region("westeurope")] {
        let v = first_is_v2_priced_from_meters(choice, flags(3000.0, Some(64.0), "data"));
        // 10% headroom: 3,334 IOPS bought, 334 of them above the free 3,000.
        assert_eq!(v.disk_count, 1);
        assert_eq!(v.disk_size_gib, 64.0);
        assert!(v.provisioned_iops.unwrap() >= 3000.0 / 0.9 - 1.0);
        // Far below the cheapest Premium SSD that carries 3,334 IOPS (a P30, $135.17).
        assert!(v.price_usd_month.unwrap() < 20.0, "{v:?}");
    }
}

#[test]
fn a_56000_iops_volume_is_planned_on_one_premium_ssd_v2() {
    for choice in [current(), region("westeurope")] {
        let v = first_is_v2_priced_from_meters(choice, flags(56_000.0, None, "data"));
        assert_eq!(v.disk_count, 1);
        let iops = v.provisioned_iops.unwrap();
        assert!((56_000.0 / 0.9 - 1.0..=80_000.0).contains(&iops), "{iops}");
        // v2's rule: at most 500 IOPS per GiB beyond the baseline.
        assert!(iops <= v.disk_size_gib * 500.0 + 1e-6, "{v:?}");
    }
}

#[test]
fn premium_ssd_v2_stays_unpriced_where_its_meters_are_not_sourced() {
    let choice = region("japaneast");
    let (catalog, notes) = choice.load_priced().unwrap();
    let v2 = catalog
        .provisioned
        .iter()
        .find(|d| d.name == "PremiumV2")
        .unwrap();
    assert_eq!(v2.price_usd_per_iops_month, None);
    assert!(notes.iter().any(|n| n.contains("PremiumV2")), "{notes:?}");
    let outcome = plan::plan(&request(flags(3000.0, Some(64.0), "data"), choice)).unwrap();
    assert_ne!(outcome.plan.designs[0].volumes[0].disk_sku, "PremiumV2");
}
