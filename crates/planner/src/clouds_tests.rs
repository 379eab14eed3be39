//! AWS plans: the cheapest design changes with the workload, and every listed design passes
//! the model it was sized with.

use super::*;
use iofit_model::requirements::{SizingTarget, VolumeRequirements};

fn volume(
    label: &str,
    iops: f64,
    mb_s: f64,
    io_kib: u64,
    random_pct: f64,
    capacity_gib: f64,
) -> VolumeRequirements {
    VolumeRequirements {
        label: label.into(),
        sizing: SizingTarget {
            iops: iofit_model::Iops(iops),
            throughput_mb_s: iofit_model::MBps(mb_s),
            io_size_bytes: iofit_model::Bytes(io_kib * 1024),
            read_pct: 100.0,
            random_pct,
            capacity_gib: Some(iofit_model::units::GiB(capacity_gib)),
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

fn catalog() -> AwsCatalog {
    AwsCatalog::embedded().unwrap()
}

/// Every design predicts as meeting its requirements, with at least the plan's headroom, and
/// its total is the sum of its parts.
fn check_designs(plan: &AwsPlan, requirements: &Requirements) {
    assert!(!plan.designs.is_empty(), "{:?}", plan.notes);
    let catalog = catalog();
    for design in &plan.designs {
        let instance = catalog.instance(&design.instance).unwrap();
        let inputs: Vec<_> = design
            .volumes
            .iter()
            .zip(&requirements.volumes)
            .map(|(v, r)| {
                (
                    v.spec.clone(),
                    catalog.volume_type(&v.spec.volume_type).unwrap(),
                    demand_of(r),
                )
            })
            .collect();
        let prediction = model::predict(instance, &inputs, design.state).unwrap();
        assert!(prediction.meets, "{} {:?}", design.instance, prediction);
        assert!(
            prediction.headroom_pct >= 10.0 - 1e-6,
            "{} headroom {}",
            design.instance,
            prediction.headroom_pct
        );
        let parts: f64 = design.volumes.iter().map(|v| v.cost.total_usd_month).sum();
        assert!((design.total_usd_month - design.instance_usd_month - parts).abs() < 1e-6);
    }
    for pair in plan.designs.windows(2) {
        assert!(pair[0].total_usd_month <= pair[1].total_usd_month);
    }
}

/// 50,000 IOPS of 8 KiB random reads: gp3 tops out at 16,000 IOPS per volume and each volume
/// has 3,000 IOPS free, so the cheapest stripe is the widest allowed: 8 gp3 volumes of 6,945
/// IOPS (55,556 with 10% headroom) and 63 GiB (500 GiB / 8); only an instance with at least
/// 55,556 baseline IOPS carries it all day: m5.16xlarge, m6i.12xlarge, r6i.12xlarge or
/// c6i.12xlarge (60,000 each), the cheapest c6i.12xlarge ($2.04 an hour in us-east-1).
#[test]
fn fifty_thousand_iops_random_read() {
    let requirements = requirements(vec![volume("data", 50_000.0, 409.6, 8, 100.0, 500.0)]);
    let plan = plan_aws(&requirements, &catalog(), &AwsPlanOptions::default());
    check_designs(&plan, &requirements);
    let best = &plan.designs[0];
    assert_eq!(best.instance, "c6i.12xlarge");
    let data = &best.volumes[0].spec;
    assert_eq!((data.count, data.volume_type.as_str()), (8, "gp3"));
    assert_eq!((data.iops, data.size_gib), (Some(Iops(6_945.0)), GiB(63.0)));
    // 8 x (63 GiB x $0.08 + 3,945 billed IOPS x $0.005) = $198.12; the instance $2.04 x 730 h.
    assert!((best.volumes_usd_month - 8.0 * (63.0 * 0.08 + 3_945.0 * 0.005)).abs() < 1e-6);
    let split = &best.volumes[0].cost;
    assert!((split.storage_usd_month - 8.0 * 63.0 * 0.08).abs() < 1e-9);
    assert!((split.iops_usd_month - 8.0 * 3_945.0 * 0.005).abs() < 1e-9);
    assert_eq!(split.throughput_usd_month, 0.0);
    assert!((best.instance_usd_month - 2.04 * 730.0).abs() < 1e-6);
    // The stripe's 55,560 IOPS binds (10.0% headroom) before the instance's 60,000 (16.7%).
    assert_eq!(best.prediction.binding, "volume data: 8 x gp3 IOPS");
    let instance_limit = best.prediction.volumes[0]
        .limits
        .iter()
        .find(|l| l.name == "instance c6i.12xlarge baseline IOPS")
        .unwrap();
    assert!((instance_limit.iops_allowed - 60_000.0).abs() < 1e-6);
}

/// 1,500 MB/s of 1 MiB sequential reads: 1,667 MB/s with headroom is 1,590 MiB/s; every gp3
/// volume has 125 MiB/s free, so 8 volumes of 199 MiB/s (st1 would need 40 TiB at 40 MiB/s
/// per TiB); an instance needs 1,667 MB/s of baseline throughput: c6i.12xlarge's 1,875 MB/s,
/// the cheapest of the 12xlarge sizes that give it (m5's nearest, m5.16xlarge's 1,700, costs
/// more).
#[test]
fn fifteen_hundred_mb_s_sequential() {
    let requirements = requirements(vec![volume("scan", 1430.5, 1500.0, 1024, 0.0, 2000.0)]);
    let plan = plan_aws(&requirements, &catalog(), &AwsPlanOptions::default());
    check_designs(&plan, &requirements);
    let best = &plan.designs[0];
    assert_eq!(best.instance, "c6i.12xlarge");
    let scan = &best.volumes[0].spec;
    assert_eq!((scan.volume_type.as_str(), scan.count), ("gp3", 8));
    assert_eq!(scan.throughput_mib_s, Some(MiBps(199.0)));
    assert!(best.volumes[0].cost.throughput_usd_month > 0.0);
    assert!(
        best.prediction.binding.contains("throughput"),
        "{}",
        best.prediction.binding
    );
}

/// A cold archive: 10,000 GiB read sequentially at 100 MB/s. sc1 (12 MiB/s per TiB, $0.015 per
/// GiB-month) carries it at a third of st1's price; a 1,000 GiB volume of the same need gets st1
/// or gp3, sc1's baseline there being 11.7 MiB/s.
#[test]
fn a_cold_sequential_archive_goes_to_sc1() {
    let requirements = requirements(vec![volume("archive", 95.4, 100.0, 1024, 0.0, 10_000.0)]);
    let plan = plan_aws(&requirements, &catalog(), &AwsPlanOptions::default());
    check_designs(&plan, &requirements);
    let best = &plan.designs[0];
    let archive = &best.volumes[0];
    assert_eq!(archive.spec.volume_type, "sc1");
    let gib = archive.spec.size_gib * f64::from(archive.spec.count);
    assert!(gib >= GiB(10_000.0));
    assert!((archive.cost.total_usd_month - gib.get() * 0.015).abs() < 1e-6);
    let small = requirements_small();
    let plan = plan_aws(&small, &catalog(), &AwsPlanOptions::default());
    check_designs(&plan, &small);
    assert_ne!(plan.designs[0].volumes[0].spec.volume_type, "sc1");
}

fn requirements_small() -> Requirements {
    requirements(vec![volume("archive", 95.4, 100.0, 1024, 0.0, 1_000.0)])
}

/// A small burst-tolerant volume: a 10,000 IOPS peak that lasts under 30 minutes a day fits a
/// 2-vCPU size's maximum (m5.large 18,750, c6i.large 40,000; baseline 3,600 both), the cheapest
/// c6i.large; held all day it needs a 2xlarge's 12,000 baseline.
#[test]
fn small_burst_tolerant_volume_uses_the_burst_window() {
    let requirements = requirements(vec![volume("app", 10_000.0, 80.0, 8, 100.0, 100.0)]);
    let sustained = plan_aws(&requirements, &catalog(), &AwsPlanOptions::default());
    check_designs(&sustained, &requirements);
    // Every 2xlarge here has a 12,000 IOPS baseline; c6i.2xlarge is the cheapest.
    assert_eq!(sustained.designs[0].vcpu, 8);
    assert!(sustained.designs[0].instance.ends_with(".2xlarge"));
    assert_eq!(sustained.designs[0].state, AwsState::Sustained);
    let options = AwsPlanOptions {
        burst_tolerant: true,
        ..Default::default()
    };
    let burst = plan_aws(&requirements, &catalog(), &options);
    check_designs(&burst, &requirements);
    let best = &burst.designs[0];
    assert_eq!(best.instance, "c6i.large");
    assert_eq!(best.state, AwsState::Burst);
    assert!(best.prediction.held_for.contains("30 minutes per 24 hours"));
    assert!(best.total_usd_month < sustained.designs[0].total_usd_month);
}

/// In ap-northeast-1 every instance type is priced: the design is priced with Tokyo's own rates
/// (c6i.large $0.107 an hour, gp3 $0.096 per GiB-month) and no type is left out.
#[test]
fn tokyo_designs_use_tokyo_rates() {
    let requirements = requirements(vec![volume("data", 1000.0, 8.0, 8, 100.0, 10.0)]);
    let options = AwsPlanOptions {
        region: "ap-northeast-1".into(),
        ..Default::default()
    };
    let plan = plan_aws(&requirements, &catalog(), &options);
    check_designs(&plan, &requirements);
    assert!(!plan
        .notes
        .iter()
        .any(|n| matches!(n, AwsPlanNote::Unpriced { .. })));
    let best = &plan.designs[0];
    assert_eq!(best.instance, "c6i.large");
    assert!((best.instance_usd_month - 0.107 * 730.0).abs() < 1e-6);
    let data = &best.volumes[0];
    assert_eq!(data.spec.volume_type, "gp3");
    assert!((data.cost.storage_usd_month - data.spec.size_gib.get() * 0.096).abs() < 1e-9);
    assert!(best.price_basis.starts_with("AWS ap-northeast-1"));
}

/// A region with no sourced price (us-west-2): every instance type is left out and named, and
/// no design is made from another region's rates.
#[test]
fn unpriced_instances_are_named() {
    let requirements = requirements(vec![volume("data", 1000.0, 8.0, 8, 100.0, 10.0)]);
    let options = AwsPlanOptions {
        region: "us-west-2".into(),
        ..Default::default()
    };
    let catalog = catalog();
    let plan = plan_aws(&requirements, &catalog, &options);
    assert!(plan.designs.is_empty());
    let unpriced = plan
        .notes
        .iter()
        .find_map(|n| match n {
            AwsPlanNote::Unpriced {
                region, instances, ..
            } => Some((region, instances)),
            _ => None,
        })
        .unwrap();
    assert_eq!(unpriced.0, "us-west-2");
    assert_eq!(unpriced.1.len(), catalog.instances.len());
    assert!(unpriced.1.iter().any(|i| i == "r6i.large"));
}

/// eu-central-1 prices gp3 and gp2 from Frankfurt's own rates (gp3 $0.0952 per GiB-month,
/// $0.006 per IOPS and $0.048 per MiB/s above the free baseline) and instances from its own
/// (c6i.large $0.097 an hour): the cheapest design is priced with them, never with another
/// region's; io2, io1, st1 and sc1, unpriced there, make no design.
#[test]
fn frankfurt_designs_use_frankfurt_rates() {
    let small = requirements(vec![volume("data", 1000.0, 8.0, 8, 100.0, 10.0)]);
    let options = AwsPlanOptions {
        region: "eu-central-1".into(),
        top: 50,
        ..Default::default()
    };
    let plan = plan_aws(&small, &catalog(), &options);
    check_designs(&plan, &small);
    let best = &plan.designs[0];
    assert_eq!(best.instance, "c6i.large");
    assert!((best.instance_usd_month - 0.097 * 730.0).abs() < 1e-6);
    let data = &best.volumes[0];
    assert_eq!(data.spec.volume_type, "gp3");
    let gib = data.spec.size_gib * f64::from(data.spec.count);
    assert!((data.cost.storage_usd_month - gib.get() * 0.0952).abs() < 1e-9);
    assert!(best.price_basis.starts_with("AWS eu-central-1"));
    for design in &plan.designs {
        for volume in &design.volumes {
            assert!(
                ["gp3", "gp2"].contains(&volume.spec.volume_type.as_str()),
                "{} has no Frankfurt rate",
                volume.spec.volume_type
            );
        }
    }
    // The plan names the types it left out for want of a rate; us-east-1 prices them all.
    let left_out = plan.notes.iter().find_map(|note| match note {
        AwsPlanNote::UnpricedVolumeTypes {
            region,
            volume_types,
        } => Some((region.as_str(), volume_types.clone())),
        _ => None,
    });
    let (region, mut types) = left_out.expect("a note on the unpriced volume types");
    types.sort();
    assert_eq!(
        (region, types),
        (
            "eu-central-1",
            vec!["io1".to_string(), "io2".into(), "sc1".into(), "st1".into()]
        )
    );
    let virginia = plan_aws(&small, &catalog(), &AwsPlanOptions::default());
    assert!(!virginia
        .notes
        .iter()
        .any(|note| matches!(note, AwsPlanNote::UnpricedVolumeTypes { .. })));
    // One volume (no stripe of free baselines) above gp3's free 3,000 IOPS and 125 MiB/s pays
    // Frankfurt's IOPS and MiB/s rates for the excess.
    let busy = requirements(vec![volume("busy", 9000.0, 300.0, 32, 100.0, 200.0)]);
    let options = AwsPlanOptions {
        max_volumes_per_stripe: 1,
        ..options
    };
    let plan = plan_aws(&busy, &catalog(), &options);
    check_designs(&plan, &busy);
    let volume = plan.designs[0]
        .volumes
        .iter()
        .find(|v| v.spec.volume_type == "gp3")
        .unwrap();
    let count = f64::from(volume.spec.count);
    let iops = volume.spec.iops.unwrap().0;
    let mib_s = volume.spec.throughput_mib_s.unwrap().0;
    let want_iops = count * (iops - 3000.0).max(0.0) * 0.006;
    let want_mib_s = count * (mib_s - 125.0).max(0.0) * 0.048;
    assert!(
        (volume.cost.iops_usd_month - want_iops).abs() < 1e-9,
        "{volume:?}"
    );
    assert!(
        (volume.cost.throughput_usd_month - want_mib_s).abs() < 1e-9,
        "{volume:?}"
    );
    assert!(want_iops > 0.0 && want_mib_s > 0.0, "{volume:?}");
}

/// io2 is billed per volume in AWS's tiers when the price file has them (as `catalog import
/// --aws-prices` writes them): two volumes of 80,000 IOPS each pay 32,000 at the first rate,
/// 32,000 at the second and 16,000 at the third, each; the built-in us-east-1 row, whose lower
/// tiers are not sourced, prices nothing above 32,000 and its io2 design is left out.
#[test]
fn io2_iops_are_billed_per_volume_in_tiers() {
    let mut catalog = catalog();
    catalog
        .add_text(
            "tiers.toml",
            "[table]\nid = \"t\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-11-27\"\n\n\
             [[volume_prices]]\nname = \"io2\"\nregion = \"r\"\nprice_per_gib_month = 0.125\n\
             price_per_iops_month = 0.065\niops_tiers = [{ above_iops = 32000, price_per_iops_month = 0.0455 }, \
             { above_iops = 64000, price_per_iops_month = 0.03185 }]\n",
        )
        .unwrap();
    let rules = catalog.volume_type("io2").unwrap().clone();
    let spec = AwsVolumeSpec {
        label: "data".into(),
        count: 2,
        volume_type: "io2".into(),
        size_gib: GiB(100.0),
        iops: Some(Iops(80_000.0)),
        throughput_mib_s: None,
    };
    let cost = volume_cost(&spec, &rules, &catalog, "r").unwrap();
    let per_volume = 32_000.0 * 0.065 + 32_000.0 * 0.0455 + 16_000.0 * 0.03185;
    assert!((cost.iops_usd_month - 2.0 * per_volume).abs() < 1e-6);
    assert!((cost.storage_usd_month - 2.0 * 100.0 * 0.125).abs() < 1e-9);
    assert!(volume_cost(&spec, &rules, &catalog, "us-east-1").is_none());
    // The planner sizes io2 for its MiB/s too: 1,000 MiB/s on one volume asks 3,907 IOPS
    // (0.256 MiB/s per IOPS), and a 1 GiB floor grows to 4 GiB (1,000 IOPS per GiB).
    let need = Need {
        ops_per_s: 1000.0,
        mib_s: 1000.0,
        capacity_gib: GiB(1.0),
        io_size_bytes: 262_144.0,
        sequential: true,
    };
    let option = cheapest_of_type("data", &need, 1, &rules, &catalog, "r").unwrap();
    assert_eq!(
        (option.spec.iops, option.spec.size_gib),
        (Some(Iops(3_907.0)), GiB(4.0))
    );
}

/// Nothing fits: the plan says which limit stood in the way and the most any priced instance
/// type carries, not just that there is no design.
#[test]
fn an_empty_plan_says_what_stood_in_the_way() {
    let catalog = catalog();
    let most_iops = catalog
        .instances
        .iter()
        .filter(|i| {
            catalog
                .instance_price(&i.name, "us-east-1", Os::Linux)
                .is_some()
        })
        .max_by(|a, b| a.baseline_iops.get().total_cmp(&b.baseline_iops.get()))
        .unwrap();
    let requirements = requirements(vec![volume("data", 200_000.0, 100.0, 8, 100.0, 100.0)]);
    let plan = plan_aws(&requirements, &catalog, &AwsPlanOptions::default());
    assert!(plan.designs.is_empty());
    let total = plan
        .notes
        .iter()
        .find(|n| {
            matches!(
                n,
                AwsPlanNote::InstanceTotal {
                    rate: InstanceRate::Iops,
                    ..
                }
            )
        })
        .unwrap_or_else(|| panic!("{:#?}", plan.notes));
    let AwsPlanNote::InstanceTotal {
        needed,
        limit,
        instance,
        at_maximum,
        ..
    } = total
    else {
        unreachable!()
    };
    assert_eq!(needed.round(), 222_222.0);
    assert_eq!(*limit, most_iops.baseline_iops.get());
    assert_eq!(instance, &most_iops.name);
    assert!(!at_maximum);
    let expected = format!(
        "the most a priced instance type carries all day is {:.0} ({})",
        most_iops.baseline_iops.get(),
        most_iops.name
    );
    let sentence = total.to_string();
    assert!(
        sentence.contains(&expected) && sentence.contains("222222 IOPS"),
        "{sentence}"
    );
    // A design that fits says nothing of the kind.
    let fits = requirements_fit();
    let plan = plan_aws(&fits, &catalog, &AwsPlanOptions::default());
    assert!(!plan.designs.is_empty());
    assert!(!plan
        .notes
        .iter()
        .any(|n| matches!(n, AwsPlanNote::InstanceTotal { .. })));
}

fn requirements_fit() -> Requirements {
    requirements(vec![volume("data", 5_000.0, 50.0, 8, 100.0, 100.0)])
}

/// Every cloud reads requirements at one operating point (`SizingTarget::operating_point`):
/// 20,000 IOPS and 300 MB/s of a typical 8 KiB IO is 20,000 IOPS of 15,000-byte IOs, each limit
/// sized for its own number, as Azure's plans do; not 36,621 IOPS of 8 KiB, which bought an
/// instance and provisioned IOPS half again too large.
#[test]
fn iops_and_mb_s_that_disagree_size_each_limit_for_its_own_number() {
    let mixed = volume("data", 20_000.0, 300.0, 8, 100.0, 2000.0);
    let (iops, io) = mixed.sizing.operating_point(1e6);
    assert_eq!((iops, io), (20_000.0, iofit_model::Bytes(15_000)));
    let aws = demand_of(&mixed);
    assert_eq!(aws.iops, iofit_model::Iops(20_000.0));
    assert_eq!(aws.io_size_bytes, io);
    assert_eq!(aws.throughput_mb_s, iofit_model::MBps(300.0));
    let gcp = crate::clouds_gcp::demand_of(&mixed);
    assert_eq!((gcp.iops, gcp.io_size_bytes), (aws.iops, io));
    // The plan provisions for 20,000 IOPS (with headroom), not 36,621.
    let plan = plan_aws(
        &requirements(vec![mixed]),
        &catalog(),
        &AwsPlanOptions::default(),
    );
    let best = &plan.designs[0];
    let provisioned: f64 = best.volumes[0].spec.iops.map_or(0.0, |each| {
        each.get() * f64::from(best.volumes[0].spec.count)
    });
    assert!(
        (20_000.0..30_000.0).contains(&provisioned),
        "{provisioned} IOPS provisioned for 20,000"
    );
    // The plan says so, in the words Azure's plan uses.
    assert!(matches!(
        plan.requirement_warnings.as_slice(),
        [crate::RequirementWarning::Disagree { iops, io_size_bytes: 8192, .. }] if *iops == 20_000.0
    ));
    let gcp_plan = crate::clouds_gcp::plan_gcp(
        &requirements(vec![volume("data", 20_000.0, 300.0, 8, 100.0, 2000.0)]),
        &iofit_catalog::clouds::gcp::GcpCatalog::embedded().unwrap(),
        &crate::clouds_gcp::GcpPlanOptions::default(),
    );
    assert_eq!(gcp_plan.requirement_warnings, plan.requirement_warnings);
    // A consistent requirement keeps its IO size and both numbers.
    let consistent = volume("data", 10_000.0, 81.92, 8, 100.0, 500.0);
    let demand = demand_of(&consistent);
    assert_eq!(demand.iops, iofit_model::Iops(10_000.0));
    assert_eq!(demand.io_size_bytes, iofit_model::Bytes(8192));
}
