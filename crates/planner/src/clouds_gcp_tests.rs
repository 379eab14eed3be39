//! Google Cloud plans: the cheapest design changes with the workload, every listed design
//! passes the model it was sized with, and a workload no machine type carries says why.

use super::*;
use iofit_model::requirements::SizingTarget;
use iofit_model::units::{GiB, Iops, MiBps};

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
            iops: iofit_model::Iops(iops),
            throughput_mb_s: iofit_model::MBps(mb_s),
            io_size_bytes: iofit_model::Bytes(io_kib * 1024),
            read_pct,
            random_pct: 100.0,
            capacity_gib: Some(iofit_model::units::GiB(gib)),
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
                (disk.capacity_price_per_month
                    - rate.price_per_gib_month * disk.spec.size_gib.get())
                .abs()
                    < 1e-9
            );
            let iops = disk.spec.provisioned_iops.map_or(0.0, Iops::get);
            let iops_rate = rate.price_per_iops_month.unwrap_or(0.0);
            assert!((disk.iops_price_per_month - iops * iops_rate).abs() < 1e-9);
            let split = disk.capacity_price_per_month
                + disk.iops_price_per_month
                + disk.throughput_price_per_month;
            assert!((disk.price_per_month - split).abs() < 1e-9);
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
    assert_eq!(
        disk.size_gib,
        GiB(((50_000.0 / 0.9 - 6000.0) / 30.0_f64).ceil())
    );
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

/// 1,500 MB/s of 1 MiB sequential reads is 1,431 MiB/s (1,590 with headroom): every machine
/// type takes at most 1,200 MiB/s of pd-balanced, pd-ssd or pd-standard reads, so the only
/// designs are pd-extreme on n2 machines of 64+ vCPUs (4,000 MiB/s of pd-extreme reads), the
/// disk grown until pd-ssd's by-size rule (240 + 0.48 x GiB, as gcpdiag computes pd-extreme)
/// carries it, and given the least IOPS, 2,500. At 1,000 MB/s (1,060 MiB/s with headroom) a
/// 16-vCPU machine carries it on pd-ssd sized for the MiB/s.
#[test]
fn fifteen_hundred_mb_s_sequential_takes_pd_extreme() {
    let big = requirements(vec![volume("scan", 0.0, 1500.0, 1024, 100.0, 2000.0)]);
    let plan = plan_gcp(&big, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &big);
    for design in &plan.designs {
        assert!(
            design.machine_type.starts_with("n2-") && design.vcpu >= 64,
            "{design:?}"
        );
        assert_eq!(design.disks[0].spec.disk_type, "pd-extreme");
    }
    let best = &plan.designs[0];
    assert_eq!(best.machine_type, "n2-standard-64");
    let disk = &best.disks[0];
    let mib_s = 1500.0e6 / MIB / 0.9;
    assert_eq!(disk.spec.size_gib, GiB(((mib_s - 240.0) / 0.48).ceil()));
    assert_eq!(disk.spec.provisioned_iops, Some(Iops(2_500.0)));
    assert_eq!(disk.iops_price_per_month, 2_500.0 * 0.065);
    assert_eq!(
        best.prediction.binding,
        "pd-extreme read throughput by size"
    );
    assert!(disk.disk_arg.ends_with(",iops=2500"), "{}", disk.disk_arg);
    // Above the n2's 4,000 MiB/s of pd-extreme reads nothing carries it, and the note says so.
    let huge = requirements(vec![volume("scan", 0.0, 4000.0, 1024, 100.0, 2000.0)]);
    let plan = plan_gcp(&huge, &catalog(), &GcpPlanOptions::default());
    assert!(plan.designs.is_empty());
    assert!(
        matches!(plan.notes[0], GcpPlanNote::NoneFits { read_mib_s, .. } if read_mib_s == 4000.0),
        "{}",
        plan.notes[0]
    );
    assert!(plan.notes[0].to_string().contains("4000 MiB/s read"));
    let smaller = requirements(vec![volume("scan", 0.0, 1000.0, 1024, 100.0, 500.0)]);
    let plan = plan_gcp(&smaller, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &smaller);
    let best = &plan.designs[0];
    assert_eq!(best.vcpu, 16);
    let mib_s = 1000.0e6 / MIB / 0.9;
    assert_eq!(best.disks[0].spec.disk_type, "pd-ssd");
    assert_eq!(
        best.disks[0].spec.size_gib,
        GiB(((mib_s - 240.0) / 0.48).ceil())
    );
    assert_eq!(best.prediction.binding, "pd-ssd read throughput by size");
}

/// 110,000 random 8 KiB reads (122,223 with headroom) exceed every machine's Persistent Disk
/// limit of pd-ssd (100,000 at most) and pd-extreme's 120,000: no design. 100,000 (111,112)
/// fit pd-extreme's 120,000 on n2 machines of 64+ vCPUs: the disk is given exactly those IOPS,
/// billed $0.065 each a month, and grown from 1,000 GiB until pd-ssd's by-size rule carries
/// the 868 MiB/s (with headroom) those 8 KiB reads make.
#[test]
fn a_hundred_thousand_iops_take_pd_extreme_given_its_iops() {
    let too_many = requirements(vec![volume("db", 110_000.0, 0.0, 8, 100.0, 1000.0)]);
    let plan = plan_gcp(&too_many, &catalog(), &GcpPlanOptions::default());
    assert!(plan.designs.is_empty(), "{:?}", plan.designs.first());
    let requirements = requirements(vec![volume("db", 100_000.0, 0.0, 8, 100.0, 1000.0)]);
    let plan = plan_gcp(&requirements, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &requirements);
    let best = &plan.designs[0];
    assert_eq!(best.machine_type, "n2-standard-64");
    let disk = &best.disks[0];
    assert_eq!(disk.spec.disk_type, "pd-extreme");
    let iops = (100_000.0 / 0.9_f64).ceil();
    assert_eq!(disk.spec.provisioned_iops, Some(Iops(iops)));
    let mib_s = 100_000.0 * 8192.0 / MIB / 0.9;
    assert_eq!(
        disk.spec.size_gib,
        GiB(1000.0 + ((mib_s - 240.0) / 0.48 - 1000.0).ceil())
    );
    assert!((disk.iops_price_per_month - iops * 0.065).abs() < 1e-9);
    assert_eq!(best.prediction.binding, "pd-extreme disk IOPS");
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
    assert_eq!(best.disks[0].spec.size_gib, GiB(50.0));
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
    assert!(plan.notes.iter().any(|n| matches!(
        n,
        GcpPlanNote::NoRegionPrices { region, .. } if region == "us-west1"
    )));
    assert!(plan
        .notes
        .iter()
        .any(|n| n.to_string().starts_with("no prices for us-west1")));
}

/// pd-extreme is planned in us-central1 and says how; each Hyperdisk type is not, and the
/// plan says which facts are missing (computed from the tables, so a file adding them would
/// change the note). A small volume never takes pd-extreme: n2-64 and 2,500 IOPS cost more.
#[test]
fn provisioned_types_are_planned_or_named_with_the_facts_they_lack() {
    let requirements = requirements(vec![volume("data", 2_000.0, 20.0, 8, 70.0, 200.0)]);
    let plan = plan_gcp(&requirements, &catalog(), &GcpPlanOptions::default());
    check_designs(&plan, &requirements);
    for design in &plan.designs {
        assert!(design
            .disks
            .iter()
            .all(|d| d.spec.disk_type.starts_with("pd-") && d.spec.disk_type != "pd-extreme"));
    }
    let unplanned: Vec<String> = plan
        .notes
        .iter()
        .filter(|n| matches!(n, GcpPlanNote::ProvisionedNotPlanned { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(unplanned.len(), 3, "{:?}", plan.notes);
    assert!(plan.notes.iter().any(|n| n.to_string().starts_with("pd-extreme planned: each disk is given the least size and IOPS that carry its volume, billed per GiB, per IOPS; its MiB/s are pd-ssd's by the size of all its disks (as Google's gcpdiag computes it); only on n2 machine types")), "{:?}", plan.notes);
    assert!(
        unplanned
            .iter()
            .any(|n| n.starts_with("hyperdisk-throughput not planned: per-VM limits by machine type; capacity price per GiB-month in us-central1; provisioned throughput price per MiB/s-month in us-central1")),
        "{unplanned:?}"
    );
    assert!(
        unplanned.iter().any(|n| n.as_str()
            == "hyperdisk-extreme not planned: per-VM limits by machine type not sourced"),
        "{unplanned:?}"
    );
    // In Frankfurt no pd-extreme IOPS price is sourced: not planned there, saying so.
    let options = GcpPlanOptions {
        region: "europe-west3".into(),
        ..Default::default()
    };
    let notes = provisioned_notes(&catalog(), &options.region);
    assert_eq!(
        notes[0].to_string(),
        "pd-extreme not planned: provisioned IOPS price per IOPS-month in europe-west3 not sourced"
    );
    assert!(matches!(
        &notes[0],
        GcpPlanNote::ProvisionedNotPlanned { disk_type, gaps } if disk_type == "pd-extreme" && gaps.len() == 1
    ));
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
        assert_eq!(total, GiB(gib), "{iops} IOPS");
    }
}

/// A file with pd-extreme's IOPS rate in Frankfurt makes it planned there: a type missing only
/// the built-in prices is planned with the user's.
#[test]
fn a_file_with_a_missing_price_makes_the_type_planned_in_its_region() {
    let mut catalog = catalog();
    catalog
        .add_text(
            "iops.toml",
            "[table]\nid = \"iops\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-11-27\"\n\n\
             [[disk_prices]]\nname = \"pd-extreme\"\nregion = \"europe-west3\"\n\
             price_per_gib_month = 0.15\nprice_per_iops_month = 0.08\n",
        )
        .unwrap();
    let notes = provisioned_notes(&catalog, "europe-west3");
    assert!(
        matches!(&notes[0], GcpPlanNote::ProvisionedPlanned { disk_type, .. } if disk_type == "pd-extreme"),
        "{}",
        notes[0]
    );
    let requirements = requirements(vec![volume("db", 100_000.0, 0.0, 8, 100.0, 1000.0)]);
    let options = GcpPlanOptions {
        region: "europe-west3".into(),
        ..Default::default()
    };
    let plan = plan_gcp(&requirements, &catalog, &options);
    let disk = &plan.designs[0].disks[0];
    assert_eq!(disk.spec.disk_type, "pd-extreme");
    assert!(
        (disk.iops_price_per_month - disk.spec.provisioned_iops.unwrap().get() * 0.08).abs() < 1e-9
    );
    assert!((disk.capacity_price_per_month - disk.spec.size_gib.get() * 0.15).abs() < 1e-9);
}

/// What a `--catalog` file written for this test adds (its own figures, not Google's): a full
/// Hyperdisk Balanced row (the built-in one lacks its bounds by size), a c3 per-VM limit of
/// it and us-central1 prices of its GiB, IOPS and MiB/s.
const HYPERDISK_FILE: &str = r#"[table]
id = "mine"
title = "test figures"
source = "this test"
date = "2026-11-27"

[[provisioned_types]]
name = "hyperdisk-balanced"
source = "this test"
bills = ["capacity", "iops", "throughput"]
size_min_gib = 4
size_max_gib = 65536
iops_min = 3000
iops_max = 160000
iops_max_per_gib = 500
mib_s_min = 140
mib_s_max = 2400
included_iops = 3000
included_mib_s = 140

[[vm_limits]]
family = "c3"
disk_type = "hyperdisk-balanced"
vcpu_min = 4
read_iops = 200000
write_iops = 200000
read_mib_s = 5000
write_mib_s = 5000

[[disk_prices]]
name = "hyperdisk-balanced"
region = "us-central1"
price_per_gib_month = 0.08
price_per_iops_month = 0.005
price_per_mib_s_month = 0.04
"#;

/// With the file, Hyperdisk Balanced is planned: 50,000 random reads of 8 KiB (55,556 with
/// headroom) on a c3 machine of 4 vCPUs (the file's limit carries it; no Persistent Disk
/// limit of so small a machine does), the disk given exactly the IOPS and MiB/s needed, the
/// IOPS and MiB/s above the included 3,000 and 140 billed; the design passes the model.
#[test]
fn hyperdisk_balanced_is_planned_when_a_file_adds_its_facts() {
    let mut catalog = catalog();
    catalog.add_text("mine.toml", HYPERDISK_FILE).unwrap();
    let requirements = requirements(vec![volume("db", 50_000.0, 0.0, 8, 100.0, 500.0)]);
    let plan = plan_gcp(&requirements, &catalog, &GcpPlanOptions::default());
    let best = &plan.designs[0];
    assert_eq!(best.machine_type, "c3-standard-4", "{best:?}");
    let disk = &best.disks[0];
    let iops = (50_000.0 / 0.9_f64).ceil();
    let mib_s = (50_000.0 * 8192.0 / MIB / 0.9).ceil();
    assert_eq!(
        (disk.spec.disk_type.as_str(), disk.spec.size_gib),
        ("hyperdisk-balanced", GiB(500.0))
    );
    assert_eq!(
        (disk.spec.provisioned_iops, disk.spec.provisioned_mib_s),
        (Some(Iops(iops)), Some(MiBps(mib_s)))
    );
    assert!((disk.iops_price_per_month - (iops - 3000.0) * 0.005).abs() < 1e-9);
    assert!((disk.throughput_price_per_month - (mib_s - 140.0) * 0.04).abs() < 1e-9);
    assert!((disk.capacity_price_per_month - 500.0 * 0.08).abs() < 1e-9);
    assert!(disk
        .disk_arg
        .ends_with(&format!(",iops={iops},mib_s={mib_s}")));
    let machine = catalog.machine_type(&best.machine_type).unwrap();
    let inputs = [(disk.spec.clone(), demand_of(&requirements.volumes[0]))];
    let prediction = model::predict(&catalog, machine, &inputs).unwrap();
    assert!(prediction.meets && prediction.headroom_pct >= 10.0 - 1e-6);
    assert!(plan.notes.iter().any(|n| n.to_string().starts_with(
        "hyperdisk-balanced planned: each disk is given the least size and IOPS and MiB/s"
    )));
}

/// Typed capacities keep the JSON a plan writes: a design's memory and each disk's size are
/// the floats of GiB they were before (`"memory_gib":8.0`, `"size_gib":500.0`), and the disk's
/// `--disk` text prints its size as a plain number.
#[test]
fn design_capacities_keep_their_json_and_disk_arg_form() {
    let requirements = requirements(vec![volume("data", 3_000.0, 0.0, 8, 70.0, 500.0)]);
    let plan = plan_gcp(&requirements, &catalog(), &GcpPlanOptions::default());
    let best = &plan.designs[0];
    let machine = catalog().machine_type(&best.machine_type).unwrap().clone();
    assert_eq!(best.memory_gib, machine.memory_gib);
    let text = serde_json::to_string(best).unwrap();
    let memory = format!("\"memory_gib\":{:?},", machine.memory_gib.get());
    assert!(text.contains(&memory), "{memory} in {text}");
    let disk = &best.disks[0];
    let size = format!("\"size_gib\":{:?}", disk.spec.size_gib.get());
    assert!(text.contains(&size), "{size} in {text}");
    assert!(disk.spec.size_gib >= GiB(500.0));
    assert!(disk
        .disk_arg
        .ends_with(&format!(",size_gib={}", disk.spec.size_gib.get())));
    let read: GcpDesign = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (read.memory_gib, read.disks[0].spec.size_gib),
        (best.memory_gib, disk.spec.size_gib)
    );
}
