//! Google Cloud plans: the cheapest design changes with the workload, every listed design
//! passes the model it was sized with, and a workload no machine type carries says why.

use super::*;
use iofit_model::requirements::SizingTarget;

fn volume(
    label: &str,
    iops: f64,
    mb_s: f64,
    io_kib: u64,
    read_pct: f64,
    gib: f64,
) -> VolumeRequirements {
    VolumeRequirements {
        label: label.into(),
        sizing: SizingTarget {
            iops,
            throughput_mb_s: iofit_model::MBps(mb_s),
            io_size_bytes: iofit_model::Bytes(io_kib * 1024),
            read_pct,
            random_pct: 100.0,
            capacity_gib: Some(gib),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn requirements(volumes: Vec<VolumeRequirements>) -> Requirements {
    Requirements {
        source: "test".into(),
        growth_factor: 1.0,
        volumes,
        ..Default::default()
    }
}

fn catalog() -> GcpCatalog {
    GcpCatalog::embedded().unwrap()
}

/// Every design predicts as meeting its requirements with the plan's 10% headroom, its total
/// is its parts, each disk is priced at its region's rate, and the ranking is by price.
fn check_designs(plan: &GcpPlan, requirements: &Requirements) {
    assert!(!plan.designs.is_empty(), "{:?}", plan.notes);
    let catalog = catalog();
    for design in &plan.designs {
        let machine = catalog.machine_type(&design.machine_type).unwrap();
        let inputs: Vec<_> = design
            .disks
            .iter()
            .zip(&requirements.volumes)
            .map(|(d, r)| (d.spec.clone(), demand_of(r)))
            .collect();
        let prediction = model::predict(&catalog, machine, &inputs).unwrap();
        assert!(prediction.meets, "{} {prediction:?}", design.machine_type);
        assert!(
            prediction.headroom_pct >= 10.0 - 1e-6,
            "{}",
            prediction.headroom_pct
        );
        for disk in &design.disks {
            let rate = catalog
                .disk_price(&disk.spec.disk_type, "us-central1")
                .unwrap();
            assert!(
                (disk.price_per_month - rate.price_per_gib_month * disk.spec.size_gib).abs() < 1e-9
            );
        }
        let parts: f64 = design.disks.iter().map(|d| d.price_per_month).sum();
        assert!(
            (design.total_price_per_month - design.machine_price_per_month - parts).abs() < 1e-6
        );
    }
    for pair in plan.designs.windows(2) {
        assert!(pair[0].total_price_per_month <= pair[1].total_price_per_month);
    }
}

/// 50,000 IOPS of 8 KiB random reads, 500 GiB: with 10% headroom 55,556 reads a second. No
/// machine under 32 vCPUs takes that many Persistent Disk IOPS (25,000 at 16-31); at 32-63
/// vCPUs pd-ssd allows 60,000 and pd-balanced 50,000 (too few), so the cheapest design is a
/// 32-vCPU machine with pd-ssd sized for the IOPS: (55,556 - 6,000) / 30 per GiB.
#[test]
fn fifty_thousand_iops_random_read() {
    let requirements = requirements(vec![volume("data", 50_000.0, 0.0, 8, 100.0, 500.0)]);
    let plan = plan_gcp(&requirements, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &requirements);
    let best = &plan.designs[0];
    assert_eq!(best.vcpu, 32, "{best:?}");
    let disk = &best.disks[0].spec;
    assert_eq!(disk.disk_type, "pd-ssd");
    assert_eq!(disk.size_gib, ((50_000.0 / 0.9 - 6000.0) / 30.0_f64).ceil());
    assert_eq!(best.prediction.binding, "pd-ssd read IOPS by size");
    // The cheapest 32-vCPU machine in us-central1 (of those whose pd-ssd limit carries it).
    let catalog = catalog();
    let cheapest_32 = catalog
        .machine_types
        .iter()
        .filter(|m| m.vcpu == 32)
        .map(|m| {
            catalog
                .machine_price(&m.name, "us-central1")
                .unwrap()
                .price_per_month()
        })
        .fold(f64::INFINITY, f64::min);
    assert_eq!(best.machine_price_per_month, cheapest_32);
    assert!(plan.designs.iter().all(|d| d.vcpu >= 32));
}

/// 1,500 MB/s of 1 MiB sequential reads is 1,431 MiB/s: every machine type in the catalog
/// takes at most 1,200 MiB/s of Persistent Disk reads, so Google Cloud has no design and the
/// note says what the largest limit is. At 1,000 MB/s (1,060 MiB/s with headroom) a 16-vCPU
/// machine carries it, and pd-ssd sized for the MiB/s is cheaper than pd-balanced or
/// pd-standard sized for them.
#[test]
fn fifteen_hundred_mb_s_sequential_has_no_persistent_disk_design() {
    let big = requirements(vec![volume("scan", 0.0, 1500.0, 1024, 100.0, 2000.0)]);
    let plan = plan_gcp(&big, &catalog(), &GcpPlanOptions::default());
    assert!(plan.designs.is_empty());
    let note = plan
        .notes
        .iter()
        .find(|n| n.starts_with("no machine type carries"))
        .unwrap();
    assert!(note.contains("1200 MiB/s"), "{note}");
    let smaller = requirements(vec![volume("scan", 0.0, 1000.0, 1024, 100.0, 500.0)]);
    let plan = plan_gcp(&smaller, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &smaller);
    let best = &plan.designs[0];
    assert_eq!(best.vcpu, 16);
    let mib_s = 1000.0e6 / MIB / 0.9;
    assert_eq!(best.disks[0].spec.disk_type, "pd-ssd");
    assert_eq!(best.disks[0].spec.size_gib, ((mib_s - 240.0) / 0.48).ceil());
    assert_eq!(best.prediction.binding, "pd-ssd read throughput by size");
}

/// A small volume rides the baseline: 2,000 IOPS and 50 GiB need no more than the capacity,
/// on the cheapest machine type with the cheapest disk that carries it (pd-balanced's 3,000
/// IOPS baseline); a write-heavy log beside a read-heavy data volume gets its own type when
/// that is cheaper.
#[test]
fn small_volumes_ride_the_baseline_and_types_mix() {
    let small = requirements(vec![volume("app", 2000.0, 0.0, 8, 70.0, 50.0)]);
    let plan = plan_gcp(&small, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &small);
    let best = &plan.designs[0];
    // Every machine type carries 2,000 IOPS: the cheapest machine of all is chosen.
    let prices = catalog();
    let cheapest = prices
        .machine_prices
        .iter()
        .filter(|p| p.region == "us-central1")
        .map(|p| p.price_per_month())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(best.machine_price_per_month, cheapest);
    assert_eq!(best.disks[0].spec.disk_type, "pd-balanced");
    assert_eq!(best.disks[0].spec.size_gib, 50.0);
    let two = requirements(vec![
        volume("data", 12_000.0, 0.0, 8, 90.0, 1500.0),
        volume("log", 500.0, 0.0, 64, 0.0, 2000.0),
    ]);
    let plan = plan_gcp(&two, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &two);
    let best = &plan.designs[0];
    // 2,000 GiB of log bought as pd-standard (0.04/GiB) carries 500 writes of 64 KiB (1.5
    // IOPS and 0.12 MiB/s per GiB); the data needs SSD.
    assert_eq!(best.disks[1].spec.disk_type, "pd-standard");
    assert_ne!(best.disks[0].spec.disk_type, "pd-standard");
}

/// Prices are by region: the same plan costs more in Frankfurt and Tokyo than in Iowa, and a
/// region without prices says so.
#[test]
fn regions_price_the_same_design() {
    let requirements = requirements(vec![volume("data", 5000.0, 0.0, 8, 70.0, 500.0)]);
    let mut totals = Vec::new();
    for region in ["us-central1", "europe-west3", "asia-northeast1"] {
        let options = GcpPlanOptions {
            region: region.into(),
            ..Default::default()
        };
        let plan = plan_gcp(&requirements, &catalog(), &options);
        assert!(plan.designs[0].price_basis.contains(region));
        totals.push(plan.designs[0].total_price_per_month);
    }
    assert!(totals[0] < totals[1] && totals[0] < totals[2], "{totals:?}");
    let options = GcpPlanOptions {
        region: "us-west1".into(),
        ..Default::default()
    };
    let plan = plan_gcp(&requirements, &catalog(), &options);
    assert!(plan.designs.is_empty());
    assert!(plan
        .notes
        .iter()
        .any(|n| n.starts_with("no prices for us-west1")));
}

/// pd-extreme and Hyperdisk are not planned, and the plan says per type which facts are
/// missing (computed from the tables, so a file adding them would change the note).
#[test]
fn provisioned_types_are_named_with_the_facts_they_lack() {
    let requirements = requirements(vec![volume("data", 2_000.0, 20.0, 8, 70.0, 200.0)]);
    let plan = plan_gcp(&requirements, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &requirements);
    for design in &plan.designs {
        assert!(design
            .disks
            .iter()
            .all(|d| d.spec.disk_type.starts_with("pd-") && d.spec.disk_type != "pd-extreme"));
    }
    let unplanned: Vec<&String> = plan
        .notes
        .iter()
        .filter(|n| n.contains(" not planned: "))
        .collect();
    assert_eq!(unplanned.len(), 4, "{:?}", plan.notes);
    assert!(unplanned.contains(&&"pd-extreme not planned: provisioned IOPS price per IOPS-month in us-central1 not sourced".to_string()));
    assert!(
        unplanned
            .iter()
            .any(|n| n.starts_with("hyperdisk-throughput not planned: per-VM limits by machine type; capacity price per GiB-month in us-central1; provisioned throughput price per MiB/s-month in us-central1")),
        "{unplanned:?}"
    );
}

/// pd-standard below 100 GiB performs as 100 GiB (gcpdiag): a small cold volume needing 70 read
/// IOPS (77.8 with the 10% headroom: 104 GiB at 0.75 IOPS per GiB) is still sized for the IO,
/// and one needing 60 (66.7: within the 75 of the floor) is sized for its capacity alone.
#[test]
fn pd_standard_below_its_floor_is_sized_for_capacity() {
    let catalog = catalog();
    let machine = catalog.machine_type("n2-standard-2").unwrap();
    let rules = catalog.disk_type("pd-standard").unwrap();
    let headroom = 0.9;
    for (iops, gib) in [(70.0, 104.0), (60.0, 20.0)] {
        let v = volume("cold", iops, 0.0, 4, 100.0, 20.0);
        let d = demand_of(&v);
        let total = least_total_gib(&catalog, machine, rules, &[(&v, d)], headroom).unwrap();
        assert_eq!(total, gib, "{iops} IOPS");
    }
}

/// With every fact of pd-extreme in the tables (a file adds its IOPS rate), the note no longer
/// blames a missing fact: it says provisioned disks are not sized by this build.
#[test]
fn a_type_lacking_no_fact_says_what_is_not_built() {
    let mut catalog = catalog();
    catalog
        .add_text(
            "iops.toml",
            "[table]\nid = \"iops\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-11-27\"\n\n\
             [[disk_prices]]\nname = \"pd-extreme\"\nregion = \"us-central1\"\n\
             price_per_gib_month = 0.125\nprice_per_iops_month = 0.05\n",
        )
        .unwrap();
    let notes = unplanned_notes(&catalog, "us-central1");
    assert_eq!(
        notes[0],
        "pd-extreme not planned: its rules and us-central1 prices are in the tables, but this build does not size provisioned disks yet"
    );
    assert!(notes[1].starts_with("hyperdisk-balanced not planned: per-VM limits"));
}
