//! Unit tests on hand-built rows; the seed's examples against the real catalog are in
//! `tests/seed_examples.rs`.

use super::*;
use crate::disk_rules::{rank_cost, size_provisioned};
use crate::search::RankCost;
use crate::vm_trials::{attempt, Attempt, Prepared};
use iofit_catalog::{DiskKind, DiskSku, ProvisionedDiskType, VmSize};
use iofit_model::units::{Bytes, GiB, KiB};
use iofit_model::{HostCaching, Iops, MBps, SizingTarget, VolumeRequirements, VolumeRole};
use iofit_predict::{LimitKind, LimitStatus};
use proptest::prelude::*;

fn disk(name: &str, kind: DiskKind, gib: f64, iops: f64, mb: f64, price: Option<f64>) -> DiskSku {
    DiskSku {
        name: name.into(),
        table: "hand".into(),
        kind,
        size_gib: GiB(gib),
        iops: Iops(iops),
        throughput_mb_s: MBps(mb),
        burst_iops: None,
        burst_throughput_mb_s: None,
        price_usd_month: price,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    }
}

fn vm(name: &str, disks: u32, iops: f64, mb: f64, price: Option<f64>) -> VmSize {
    VmSize {
        name: name.into(),
        table: "hand".into(),
        family: "DS".into(),
        vcpu: disks / 2,
        memory_gib: GiB(8.0 * disks as f64),
        max_data_disks: disks,
        premium_storage: true,
        uncached_iops: Some(Iops(iops)),
        uncached_throughput_mb_s: Some(MBps(mb)),
        cached_iops: Some(Iops(iops * 1.25)),
        cached_throughput_mb_s: Some(MBps(mb)),
        cache_size_gib: Some(GiB(100.0)),
        temp_storage_gib: None,
        burst_uncached_iops: None,
        burst_uncached_throughput_mb_s: None,
        price_usd_month: price,
        traits: None,
    }
}

fn rows() -> CatalogRows {
    CatalogRows {
        vms: vec![
            vm("Small", 4, 3200.0, 32.0, Some(100.0)),
            vm("Medium", 16, 25600.0, 256.0, Some(1000.0)),
            vm("Large", 32, 50000.0, 512.0, Some(2000.0)),
            vm("Unpriced", 64, 80000.0, 2000.0, None),
        ],
        disks: vec![
            disk("P10", DiskKind::PremiumSsd, 128.0, 500.0, 100.0, Some(20.0)),
            disk(
                "P30",
                DiskKind::PremiumSsd,
                1024.0,
                5000.0,
                200.0,
                Some(136.0),
            ),
            disk("P40", DiskKind::PremiumSsd, 2048.0, 7500.0, 250.0, None),
        ],
        ..Default::default()
    }
}

fn one_volume(iops: f64, read_pct: f64, role: VolumeRole) -> Requirements {
    Requirements {
        source: "test".into(),
        growth_factor: 1.0,
        volumes: vec![VolumeRequirements {
            label: "data".into(),
            role,
            sizing: SizingTarget {
                iops: iofit_model::Iops(iops),
                throughput_mb_s: iofit_model::MBps(0.0),
                latency_ms: Some(iofit_model::units::Millis(5.0)),
                io_size_bytes: iofit_model::Bytes(8192),
                read_pct,
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
fn caching_follows_the_method() {
    let target = one_volume(1.0, 90.0, VolumeRole::Data).volumes[0]
        .sizing
        .clone();
    assert_eq!(
        choose_caching(VolumeRole::Data, &target, None).0,
        HostCaching::ReadOnly
    );
    assert_eq!(
        choose_caching(VolumeRole::Log, &target, None).0,
        HostCaching::None
    );
    let writes = one_volume(1.0, 20.0, VolumeRole::Data).volumes[0]
        .sizing
        .clone();
    assert_eq!(
        choose_caching(VolumeRole::Data, &writes, None).0,
        HostCaching::None
    );
    // ReadWrite only when asked.
    assert_eq!(
        choose_caching(VolumeRole::Data, &target, Some(HostCaching::ReadWrite)).0,
        HostCaching::ReadWrite
    );
}

#[test]
fn stripe_small_for_random_large_for_sequential() {
    let mut target = one_volume(1.0, 90.0, VolumeRole::Data).volumes[0]
        .sizing
        .clone();
    assert_eq!(choose_stripe(&target).0, Bytes::kib(64));
    target.random_pct = 0.0;
    target.io_size_bytes = iofit_model::Bytes(1 << 20);
    assert_eq!(choose_stripe(&target).0, Bytes::kib(256));
}

#[test]
fn cheapest_fitting_design_first_and_rejected_say_why() {
    let plan = plan(
        &one_volume(16000.0, 70.0, VolumeRole::Data),
        &rows(),
        &PlanOptions::default(),
    )
    .unwrap();
    let best = &plan.designs[0];
    assert_eq!(best.vm, "Medium");
    assert_eq!(
        (
            best.volumes[0].disk_count,
            best.volumes[0].disk_sku.as_str()
        ),
        (4, "P30")
    );
    assert_eq!(best.total_usd_month, Some(1000.0 + 4.0 * 136.0));
    assert_eq!(best.volumes[0].caching, HostCaching::ReadOnly);
    assert_eq!(best.volumes[0].stripe_size_bytes, Some(Bytes::kib(64)));
    // 16,000 IOPS x 1 ms = 16 outstanding IOs.
    assert_eq!(best.volumes[0].queue_depth_total, 16);
    // Unpriced designs rank after priced ones and say so.
    let last = plan.designs.last().unwrap();
    assert_eq!(last.vm, "Unpriced");
    assert!(last
        .price_note
        .as_ref()
        .unwrap()
        .contains("price not sourced"));
    // The cheaper VM was ruled out by its uncached... or cached IOPS limit.
    let small = plan.rejected.iter().find(|r| r.vm == "Small").unwrap();
    // 16,000 IOPS exceed its uncached and cached limits together: ruled out before disks.
    assert_eq!(small.limit, Some(LimitKind::VmUncachedIops), "{small:?}");
    assert!(small.reason.contains("7,200"), "{small:?}");
}

#[test]
fn impossible_requirements_name_the_limit() {
    let plan = plan(
        &one_volume(1e7, 70.0, VolumeRole::Data),
        &rows(),
        &PlanOptions::default(),
    )
    .unwrap();
    assert!(plan.designs.is_empty());
    assert!(
        plan.impossible.iter().any(|r| matches!(
            r,
            ImpossibleReason::VmTotal { rate: VmRate::UncachedIops, needed, .. } if *needed >= 1e7
        )),
        "{:?}",
        plan.impossible
    );
}

#[test]
fn example_requirements_parse_and_validate() {
    let requirements: Requirements = toml::from_str(EXAMPLE_REQUIREMENTS).unwrap();
    validate(&requirements).unwrap();
    assert_eq!(requirements.volumes.len(), 2);
    assert_eq!(requirements.volumes[1].role, VolumeRole::Log);
}

#[test]
fn provisioned_sizing_follows_rules() {
    let v2 = ProvisionedDiskType {
        name: "PremiumV2".into(),
        table: "hand".into(),
        kind: DiskKind::PremiumSsdV2,
        size_gib_min: GiB(1.0),
        size_gib_max: GiB(65536.0),
        iops_baseline: Iops(3000.0),
        iops_per_gib_max: 500.0,
        iops_max: Iops(80000.0),
        throughput_mb_s_baseline: MBps(125.0),
        throughput_mb_s_per_iops_max: 0.25,
        throughput_mb_s_max: MBps(1200.0),
        price_usd_per_gib_month: Some(0.1),
        price_usd_per_iops_month: Some(0.005),
        price_usd_per_mb_s_month: Some(0.04),
    };
    let (count, disk) = size_provisioned(&v2, 20000.0, 300.0, GiB(100.0), 32).unwrap();
    assert_eq!(count, 1);
    // 20,000 IOPS need 40 GiB by the 500/GiB rule; capacity asks 100.
    assert_eq!(disk.size_gib, GiB(100.0));
    assert_eq!(disk.iops, Iops(20000.0));
    assert_eq!(disk.throughput_mb_s.get(), 300.0);
    let price = 100.0 * 0.1 + 17000.0 * 0.005 + 175.0 * 0.04;
    assert!((disk.price_usd_month.unwrap() - price).abs() < 1e-9);
    // Beyond one disk's maximum: two disks.
    let (count, _) = size_provisioned(&v2, 120000.0, 100.0, GiB(10.0), 32).unwrap();
    assert_eq!(count, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn never_proposes_a_design_over_a_limit(iops in 100.0f64..60000.0, read in 0.0f64..=100.0, log in any::<bool>()) {
        let role = if log { VolumeRole::Log } else { VolumeRole::Data };
        let plan = plan(&one_volume(iops, read, role), &rows(), &PlanOptions::default()).unwrap();
        for design in &plan.designs {
            prop_assert!(design.prediction.fits());
            for check in &design.prediction.limits {
                prop_assert!(check.status != LimitStatus::Over, "{check:?}");
                if let (Some(limit), true) = (check.limit, check.kind.caps_sustained_rate()) {
                    prop_assert!(check.used <= limit * (1.0 + 1e-9));
                }
            }
            prop_assert!(design.prediction.total_iops.get() >= iops * (1.0 - 1e-9));
        }
    }
}

#[test]
fn falls_back_to_no_caching_when_the_cached_limit_is_too_low() {
    let mut low_cache = vm("LowCache", 32, 50000.0, 512.0, Some(1000.0));
    low_cache.cached_iops = Some(Iops(1000.0));
    let rows = CatalogRows {
        vms: vec![low_cache],
        ..rows()
    };
    let plan = plan(
        &one_volume(16000.0, 90.0, VolumeRole::Data),
        &rows,
        &PlanOptions::default(),
    )
    .unwrap();
    let volume = &plan.designs[0].volumes[0];
    assert_eq!(volume.caching, HostCaching::None);
    assert!(
        volume.caching_reason.contains("cached limits"),
        "{}",
        volume.caching_reason
    );
}

#[test]
fn impossible_capacity_names_slots_and_largest_disk() {
    let mut requirements = one_volume(1000.0, 70.0, VolumeRole::Data);
    requirements.volumes[0].sizing.capacity_gib = Some(GiB(1e9));
    let plan = plan(&requirements, &rows(), &PlanOptions::default()).unwrap();
    assert!(plan.designs.is_empty());
    let capacity = plan
        .impossible
        .iter()
        .find(|r| matches!(r, ImpossibleReason::Capacity { .. }))
        .unwrap_or_else(|| panic!("{:?}", plan.impossible));
    let ImpossibleReason::Capacity {
        needed_gib,
        most_slots,
        ..
    } = capacity
    else {
        unreachable!()
    };
    assert_eq!((*needed_gib, *most_slots), (GiB(1e9), 64));
    // The sentence the plan prints is the one it always printed.
    assert!(capacity.to_string().starts_with("capacity:"), "{capacity}");
    assert!(capacity.to_string().contains("64 data disks"), "{capacity}");
}

/// A Standard SSD row as the current catalog has it (E30: 500 IOPS, $76.80, $0.002 per 10,000
/// operations, 256 KiB billing unit), optionally without its operations price.
fn e30(ops_price: Option<f64>) -> DiskSku {
    let mut sku = disk(
        "E30",
        DiskKind::StandardSsd,
        1024.0,
        500.0,
        60.0,
        Some(76.8),
    );
    sku.price_usd_per_10k_operations = ops_price;
    sku.operation_unit_kib = Some(KiB(256));
    sku
}

fn strict() -> PlanOptions {
    PlanOptions {
        min_headroom_pct: 0.0,
        ..PlanOptions::default()
    }
}

#[test]
fn standard_ssd_operations_are_charged_at_the_sized_iops() {
    let rows = CatalogRows {
        vms: vec![vm("Medium", 16, 25600.0, 256.0, Some(1000.0))],
        disks: vec![e30(Some(0.002))],
        ..Default::default()
    };
    let mut requirements = one_volume(2000.0, 0.0, VolumeRole::Data);
    requirements.volumes[0].sizing.latency_ms = None;
    let sustained = plan(&requirements, &rows, &strict()).unwrap();
    let best = &sustained.designs[0];
    let volume = &best.volumes[0];
    // 2,000 IOPS of 8 KiB (one operation each) for 730 h: 2,000 x 3,600 x 730 operations.
    let operations = 2000.0 * 3600.0 * 730.0;
    assert_eq!(volume.operations_per_month, Some(operations));
    let charge = operations / 1e4 * 0.002;
    assert!((volume.operations_usd_month.unwrap() - charge).abs() < 1e-6);
    assert!((charge - 1051.2).abs() < 1e-9);
    assert_eq!(volume.disk_count, 4);
    let total = 1000.0 + 4.0 * 76.8 + charge;
    assert!((best.total_usd_month.unwrap() - total).abs() < 1e-6);
    assert!(best.cost_complete);
    assert!(volume
        .operations_note
        .as_deref()
        .unwrap()
        .contains("upper bound"));
    // Standard SSD is 'up to': the plan quotes Azure's wording for an IOPS target.
    assert!(volume
        .performance_note
        .as_deref()
        .unwrap()
        .contains("99% of the time"));
    // Busy hours scale the charge: 100 h a month.
    let options = PlanOptions {
        busy_hours_per_month: 100.0,
        ..strict()
    };
    let plan = plan(&requirements, &rows, &options).unwrap();
    let volume = &plan.designs[0].volumes[0];
    assert_eq!(volume.operations_per_month, Some(2000.0 * 3600.0 * 100.0));
}

#[test]
fn large_ios_on_standard_ssd_count_as_several_operations() {
    let rows = CatalogRows {
        vms: vec![vm("Medium", 16, 25600.0, 2560.0, Some(1000.0))],
        disks: vec![e30(Some(0.002))],
        ..Default::default()
    };
    // 1 MiB sequential writes on one disk: 4 operations of 256 KiB each.
    let mut requirements = one_volume(10.0, 0.0, VolumeRole::Data);
    requirements.volumes[0].sizing.io_size_bytes = iofit_model::Bytes(1 << 20);
    requirements.volumes[0].sizing.random_pct = 0.0;
    requirements.volumes[0].sizing.latency_ms = None;
    let plan = plan(&requirements, &rows, &strict()).unwrap();
    let volume = &plan.designs[0].volumes[0];
    assert_eq!(volume.disk_count, 1);
    assert_eq!(
        volume.operations_per_month,
        Some(10.0 * 4.0 * 3600.0 * 730.0)
    );
}

#[test]
fn unsourced_operations_price_marks_the_cost_incomplete_and_ranks_it_last() {
    let rows = CatalogRows {
        vms: vec![
            vm("Cheap", 16, 25600.0, 256.0, Some(100.0)),
            vm("Dear", 16, 25600.0, 256.0, Some(5000.0)),
        ],
        disks: vec![
            e30(None),
            disk(
                "P30",
                DiskKind::PremiumSsd,
                1024.0,
                5000.0,
                200.0,
                Some(136.0),
            ),
        ],
        ..Default::default()
    };
    let mut requirements = one_volume(2000.0, 0.0, VolumeRole::Data);
    requirements.volumes[0].sizing.latency_ms = None;
    let mixed = plan(&requirements, &rows, &strict()).unwrap();
    // Per VM the fully priced P30 option wins over the cheaper-looking E30 whose operations
    // are not priced; an E30 design is never ranked as if its operations were free.
    for design in &mixed.designs {
        assert!(design.cost_complete, "{}", design.vm);
        assert_eq!(design.volumes[0].disk_sku, "P30");
    }
    // Only E30 available: the design is proposed with its cost marked incomplete.
    let rows = CatalogRows {
        vms: vec![vm("Cheap", 16, 25600.0, 256.0, Some(100.0))],
        disks: vec![e30(None)],
        ..Default::default()
    };
    let plan = plan(&requirements, &rows, &strict()).unwrap();
    let design = &plan.designs[0];
    assert!(!design.cost_complete);
    assert_eq!(design.operations_usd_month, None);
    assert!(design
        .price_note
        .as_deref()
        .unwrap()
        .contains("operations charge not sourced"));
}

#[test]
fn headroom_is_kept_on_every_sized_limit() {
    // 20,000 IOPS on P30 (5,000 each): 4 disks strictly (0% headroom), 5 with 10% kept.
    let mut requirements = one_volume(20000.0, 0.0, VolumeRole::Data);
    requirements.volumes[0].sizing.latency_ms = None;
    let strict_plan = plan(&requirements, &rows(), &strict()).unwrap();
    let best = &strict_plan.designs[0];
    assert_eq!(
        (best.vm.as_str(), best.volumes[0].disk_count),
        ("Medium", 4)
    );
    let kept = plan(&requirements, &rows(), &PlanOptions::default()).unwrap();
    let best = &kept.designs[0];
    assert_eq!(best.volumes[0].disk_count, 5);
    // Medium's 25,600 uncached IOPS leave 21.9% at 20,000; every sized limit keeps >= 10%.
    for check in &best.prediction.limits {
        if let (Some(pct), Some(_)) = (check.headroom_pct, check.limit) {
            if check.kind.caps_sustained_rate() && check.kind != LimitKind::QueueDepth {
                assert!(pct >= 10.0 - 1e-9, "{check:?}");
            }
        }
    }
    // A VM whose limit would sit within 10% of the need is ruled out and says why.
    let mut requirements = one_volume(24000.0, 0.0, VolumeRole::Data);
    requirements.volumes[0].sizing.latency_ms = None;
    let plan = plan(&requirements, &rows(), &PlanOptions::default()).unwrap();
    assert!(plan.designs.iter().all(|d| d.vm != "Medium"));
    let medium = plan.rejected.iter().find(|r| r.vm == "Medium");
    if let Some(medium) = medium {
        assert!(medium.reason.contains("headroom"), "{medium:?}");
    }
    let headroom = plan
        .notes
        .iter()
        .find(|n| matches!(n, PlanNote::Headroom { .. }))
        .unwrap();
    assert_eq!(
        headroom,
        &PlanNote::Headroom {
            min_headroom_pct: 10.0
        }
    );
    assert!(headroom.to_string().contains("10% headroom"));
    assert!(!plan.notes.contains(&PlanNote::StrictFit));
}

/// IOPS, MB/s, read %, IO size, role (data, log, temp), capacity GiB.
type RandomVolume = (f64, f64, f64, u64, u8, Option<f64>);

fn requirements_of(volumes: &[RandomVolume]) -> Requirements {
    Requirements {
        source: "oracle".into(),
        growth_factor: 1.0,
        volumes: volumes
            .iter()
            .enumerate()
            .map(
                |(i, &(iops, mb, read, size, role, capacity))| VolumeRequirements {
                    label: format!("v{i}"),
                    role: [VolumeRole::Data, VolumeRole::Log, VolumeRole::Temp][role as usize],
                    sizing: SizingTarget {
                        iops: iofit_model::Iops(iops),
                        throughput_mb_s: iofit_model::MBps(mb),
                        latency_ms: None,
                        io_size_bytes: iofit_model::Bytes(size),
                        read_pct: read,
                        random_pct: if role == 1 { 0.0 } else { 100.0 },
                        capacity_gib: capacity.map(GiB),
                        queue_depth: None,
                    },
                    ..Default::default()
                },
            )
            .collect(),
        ..Default::default()
    }
}

/// The oracle: every combination of every option (the full product, volume 0 outermost),
/// sorted stably by cost, each predicted until one fits. Exponential: small cases only.
fn exhaustive_search(
    vm: &VmSize,
    requirements: &Requirements,
    rows: &CatalogRows,
    options: &PlanOptions,
    prepared: &Prepared,
) -> Result<VmOutcome, PlanError> {
    let mut combos: Vec<(RankCost, Vec<usize>)> = vec![(RankCost::ZERO, Vec::new())];
    for list in &prepared.options {
        let mut next = Vec::new();
        for (cost, chosen) in &combos {
            for (index, option) in list.iter().enumerate() {
                let mut with = chosen.clone();
                with.push(index);
                next.push((cost.add(rank_cost(option)), with));
            }
        }
        combos = next;
    }
    combos.sort_by(|a, b| a.0.cmp(&b.0));
    let mut first_failure = None;
    for (_, indices) in combos {
        let disks: u32 = indices
            .iter()
            .zip(&prepared.options)
            .map(|(&i, list)| list[i].count)
            .sum();
        if first_failure.is_some() && disks > vm.max_data_disks {
            // Predict's own slots check refuses it (a yes/no check: no rate is involved).
            continue;
        }
        match attempt(vm, requirements, rows, options, prepared, &indices)? {
            Attempt::Design(design) => return Ok(VmOutcome::Design(design)),
            Attempt::Failed(why) => {
                first_failure.get_or_insert(why);
            }
        }
    }
    Ok(VmOutcome::Rejected(
        *first_failure.expect("one combination at least"),
    ))
}

/// A small random catalog: 1-3 VMs (slots, limits, cached limits published or not, premium
/// storage or not, priced or not) and 1-2 disks of the three fixed-size kinds (priced or not,
/// with or without an operations price).
fn random_rows() -> impl Strategy<Value = CatalogRows> {
    let vm_row = (
        prop::sample::select(vec![2u32, 4, 6, 8, 12, 16, 32]),
        1000.0f64..40000.0,
        50.0f64..2000.0,
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(None), (10.0f64..2000.0).prop_map(Some)],
    );
    let disk_row = (
        0u8..3,
        prop::sample::select(vec![64.0, 128.0, 512.0, 1024.0, 4096.0]),
        200.0f64..8000.0,
        25.0f64..300.0,
        // Priced per IOPS (small disks often cheaper per IOPS, so the slots bind), flat, or
        // unpriced.
        prop_oneof![
            Just(None),
            (1.0f64..300.0).prop_map(|p| Some((p, false))),
            (0.005f64..0.05).prop_map(|p| Some((p, true))),
        ],
        prop_oneof![Just(None), Just(Some(0.002))],
    );
    (
        prop::collection::vec(vm_row, 1..=3),
        prop::collection::vec(disk_row, 1..=3),
    )
        .prop_map(|(vms, disks)| CatalogRows {
            vms: vms
                .into_iter()
                .enumerate()
                .map(|(i, (slots, iops, mb, cached, premium, price))| {
                    let mut row = vm(&format!("VM{i}"), slots, iops, mb, price);
                    row.premium_storage = premium;
                    if !cached {
                        row.cached_iops = None;
                        row.cached_throughput_mb_s = None;
                    }
                    row
                })
                .collect(),
            disks: disks
                .into_iter()
                .enumerate()
                .map(|(i, (kind, gib, iops, mb, price, ops))| {
                    let price = price.map(|(p, per_iops)| if per_iops { p * iops } else { p });
                    let kind = [
                        DiskKind::PremiumSsd,
                        DiskKind::StandardSsd,
                        DiskKind::StandardHdd,
                    ][kind as usize];
                    let mut row = disk(&format!("D{i}"), kind, gib, iops, mb, price);
                    if kind.bills_operations() {
                        row.price_usd_per_10k_operations = ops;
                    }
                    row
                })
                .collect(),
            ..Default::default()
        })
}

/// A small volume for the random catalogs: one to a few disks each.
fn small_volume() -> impl Strategy<Value = RandomVolume> {
    (
        20.0f64..3000.0,
        prop_oneof![Just(0.0), 1.0f64..100.0],
        0.0f64..=100.0,
        prop_oneof![Just(4096u64), Just(8192), Just(65536), Just(262144)],
        0u8..3,
        prop_oneof![Just(None), (1.0f64..2000.0).prop_map(Some)],
    )
}

/// What the search minimises for a design's disks: [`rank_cost`] summed over its volumes.
fn design_rank_cost(design: &PlannedDesign) -> RankCost {
    design.volumes.iter().fold(RankCost::ZERO, |sum, v| {
        sum.add(match (v.price_usd_month, v.operations_usd_month) {
            (Some(price), Some(ops)) => RankCost {
                tier: 0,
                value: price + ops,
            },
            (Some(price), None) => RankCost {
                tier: 1,
                value: price,
            },
            (None, _) => RankCost {
                tier: 2,
                value: v.disk_count as f64 * v.disk_size_gib.get(),
            },
        })
    })
}

/// Per VM with a design: its total, whether complete, and its disks' ranking cost.
fn cheapest_per_vm(plan: &Plan) -> Vec<(String, Option<f64>, bool, RankCost)> {
    let mut out: Vec<_> = plan
        .designs
        .iter()
        .map(|d| {
            (
                d.vm.clone(),
                d.total_usd_month,
                d.cost_complete,
                design_rank_cost(d),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn same_cost(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= 1e-6 * x.abs().max(1.0),
        (None, None) => true,
        _ => false,
    }
}

proptest! {
    // Each case plans twice, once with the full product predicted combination by combination.
    #![proptest_config(ProptestConfig::with_cases(1024))]
    #[test]
    fn exact_search_finds_the_exhaustive_cheapest(
        volumes in prop::collection::vec(small_volume(), 1..=6),
        rows in random_rows(),
        headroom in prop_oneof![Just(0.0), Just(10.0), Just(20.0)],
    ) {
        let requirements = requirements_of(&volumes);
        let options = PlanOptions { min_headroom_pct: headroom, top: 100, rejected_shown: 100, ..Default::default() };
        let exact = plan(&requirements, &rows, &options).unwrap();
        let oracle = plan_with_search(&requirements, &rows, &options, exhaustive_search).unwrap();
        let (got, want) = (cheapest_per_vm(&exact), cheapest_per_vm(&oracle));
        prop_assert_eq!(got.len(), want.len(), "designs {:?} vs oracle {:?}", got, want);
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!(&g.0, &w.0);
            prop_assert!(same_cost(g.1, w.1), "{:?} vs oracle {:?}", g, w);
            prop_assert_eq!(g.2, w.2);
            prop_assert_eq!(g.3.tier, w.3.tier, "{:?} vs oracle {:?}", g, w);
            prop_assert!((g.3.value - w.3.value).abs() <= 1e-6 * w.3.value.abs().max(1.0), "{:?} vs oracle {:?}", g, w);
        }
        prop_assert_eq!(exact.designs.first().map(|d| d.vm.clone()), oracle.designs.first().map(|d| d.vm.clone()));
    }

    #[test]
    fn lowering_the_headroom_never_loses_a_design_nor_makes_one_dearer(
        volumes in prop::collection::vec(small_volume(), 1..=6),
        rows in random_rows(),
        high in prop::sample::select(vec![5.0, 10.0, 20.0]),
        drop in prop::sample::select(vec![1.0, 5.0, 10.0, 20.0]),
    ) {
        let requirements = requirements_of(&volumes);
        let at = |headroom: f64| {
            let options = PlanOptions { min_headroom_pct: headroom, top: 100, rejected_shown: 0, ..Default::default() };
            plan(&requirements, &rows, &options).unwrap()
        };
        let (strict, loose) = (at(high), at((high - drop).max(0.0)));
        // "Dearer" as the plan ranks: a fully priced cost before one whose operations charge
        // is unsourced, before an unpriced one ([`RankCost`]); within a tier, by value.
        let no_worse = |a: RankCost, b: RankCost| {
            a.tier < b.tier || (a.tier == b.tier && a.value <= b.value * (1.0 + 1e-9) + 1e-9)
        };
        for design in &strict.designs {
            let looser = loose.designs.iter().find(|d| d.vm == design.vm);
            prop_assert!(looser.is_some(), "{} has a design at {}% but none at less", design.vm, high);
            let (a, b) = (design_rank_cost(looser.unwrap()), design_rank_cost(design));
            prop_assert!(no_worse(a, b), "{}: {:?} at less headroom, {:?} at {}%", design.vm, a, b, high);
        }
        if let (Some(a), Some(b)) = (loose.designs.first(), strict.designs.first()) {
            if let (Some(x), Some(y)) = (a.total_usd_month, b.total_usd_month) {
                // Complete costs rank first; within the same completeness, by total.
                let better_tier = a.cost_complete && !b.cost_complete;
                let same_tier = a.cost_complete == b.cost_complete;
                prop_assert!(better_tier || (same_tier && x <= y * (1.0 + 1e-9)), "{} vs {}", x, y);
            }
        }
    }
}
