//! Unit tests on hand-built rows (the worked examples against the real catalog are in
//! `tests/worked_examples.rs`).

use super::*;
use iofit_catalog::{DiskKind, DiskSku, ProvisionedDiskType, VmSize};
use iofit_model::units::{GiB, Millis};
use iofit_model::{Bytes, Iops, MBps};
use proptest::prelude::*;

fn disk(name: &str, iops: f64, mb_s: f64, size_gib: f64) -> DiskSku {
    DiskSku {
        name: name.into(),
        table: "hand".into(),
        kind: DiskKind::PremiumSsd,
        size_gib: GiB(size_gib),
        iops: Iops(iops),
        throughput_mb_s: MBps(mb_s),
        burst_iops: None,
        burst_throughput_mb_s: None,
        price_usd_month: None,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    }
}

fn vm(name: &str, iops: Option<f64>, mb_s: Option<f64>, cached: Option<(f64, f64)>) -> VmSize {
    VmSize {
        name: name.into(),
        table: "hand".into(),
        family: "DS".into(),
        vcpu: 16,
        memory_gib: GiB(112.0),
        max_data_disks: 32,
        premium_storage: true,
        uncached_iops: iops.map(Iops),
        uncached_throughput_mb_s: mb_s.map(MBps),
        cached_iops: cached.map(|c| Iops(c.0)),
        cached_throughput_mb_s: cached.map(|c| MBps(c.1)),
        cache_size_gib: Some(GiB(576.0)),
        temp_storage_gib: None,
        burst_uncached_iops: None,
        burst_uncached_throughput_mb_s: None,
        price_usd_month: None,
        traits: None,
    }
}

fn load(spec: &str, sku: &DiskSku, workload: Workload) -> VolumeLoad {
    let mut design: VolumeDesign = spec.parse().unwrap();
    if design.disk_count > 1 {
        design.stripe_size = Some(Bytes::kib(64));
    }
    VolumeLoad {
        design,
        disk: DiskPerf::from(sku),
        workload,
        target: None,
    }
}

#[test]
fn unknown_vm_limit_is_reported_not_assumed() {
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let vm = vm("X", None, None, None);
    let volume = load(
        "1xP30:none",
        &p30,
        Workload::new(0.0, 100.0, Bytes::kib(8), 64, 1),
    );
    let p = predict(&vm, &[volume], &Assumptions::default(), None).unwrap();
    let check = p.limit(LimitKind::VmUncachedIops, "vm").unwrap();
    assert_eq!(check.status, LimitStatus::Unknown);
    assert_eq!(check.limit, None);
    assert_eq!(p.total_iops.get(), 5000.0);
    let unpublished: Vec<&Vec<String>> = p
        .warnings
        .iter()
        .filter_map(|w| match w {
            crate::Warning::NotPublished { limits } => Some(limits),
            _ => None,
        })
        .collect();
    assert_eq!(unpublished.len(), 1, "{:?}", p.warnings);
    assert!(
        unpublished[0].contains(&check.name),
        "{:?} should name {}",
        unpublished[0],
        check.name
    );
}

#[test]
fn cached_reads_skip_disk_limits_and_use_cached_limit() {
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let vm = vm("X", Some(50000.0), Some(512.0), Some((64000.0, 528.0)));
    let volume = load(
        "1xP30:readonly",
        &p30,
        Workload::new(100.0, 100.0, Bytes::kib(4), 256, 4),
    );
    let p = predict(&vm, &[volume], &Assumptions::default(), None).unwrap();
    assert_eq!(p.total_iops.get(), 64000.0);
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::VmCachedIops);
    assert_eq!(p.limit(LimitKind::DiskIops, "vol0").unwrap().used, 0.0);
}

#[test]
fn large_io_splits_across_small_stripe_units() {
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let vm = vm("X", Some(1e9), Some(1e9), None);
    // 1 MiB IOs over a 64 KiB stripe: 16 disk IOs each.
    let volume = load(
        "4xP30:none",
        &p30,
        Workload::new(100.0, 0.0, Bytes::mib(1), 8, 1),
    );
    let p = predict(&vm, &[volume], &Assumptions::default(), None).unwrap();
    assert_eq!(p.volumes[0].disk_ios_per_read, 16.0);
    // Throughput bound: 4 x 200 MB/s = 800e6 B/s / 1 MiB.
    let expected = 4.0 * 200e6 / 1_048_576.0;
    assert!(
        (p.total_iops.get() - expected).abs() < 1e-6,
        "{}",
        p.total_iops.get()
    );
}

#[test]
fn an_io_over_256_kib_counts_as_several_against_iops_limits() {
    // A disk whose MB/s would allow 1 MiB IOs at 1,000/s, but whose IOPS limit counts each as
    // four 256 KiB units (Azure's IO unit; `emulate` enforces the same rule): 250 IOs/s.
    let fast = disk("F", 1000.0, 5000.0, 1024.0);
    let vm = vm("X", Some(1e9), Some(1e9), None);
    let volume = load(
        "1xF:none",
        &fast,
        Workload::new(100.0, 0.0, Bytes::mib(1), 64, 1),
    );
    let p = predict(&vm, &[volume], &Assumptions::default(), None).unwrap();
    assert_eq!(p.volumes[0].disk_ios_per_read, 4.0);
    assert!(
        (p.total_iops.get() - 250.0).abs() < 1e-6,
        "{}",
        p.total_iops.get()
    );
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::DiskIops);
}

#[test]
fn shared_vm_limit_scales_volumes_in_proportion() {
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let vm = vm("X", Some(12000.0), Some(1e9), None);
    let a = load(
        "2xP30:none",
        &p30,
        Workload::new(0.0, 100.0, Bytes::kib(8), 64, 1),
    );
    let mut b = load(
        "2xP30:none",
        &p30,
        Workload::new(0.0, 100.0, Bytes::kib(8), 64, 1),
    );
    b.design.label = "vol1".into();
    let p = predict(&vm, &[a, b], &Assumptions::default(), None).unwrap();
    assert!((p.total_iops.get() - 12000.0).abs() < 1e-6);
    assert!((p.volumes[0].iops.get() - 6000.0).abs() < 1e-6);
    assert_eq!(p.binding.unwrap().kind, LimitKind::VmUncachedIops);
}

#[test]
fn bad_inputs_are_errors() {
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let vm = vm("X", Some(1.0), Some(1.0), None);
    assert_eq!(
        predict(&vm, &[], &Assumptions::default(), None).unwrap_err(),
        PredictError::NoVolumes
    );
    let mut volume = load(
        "1xP30",
        &p30,
        Workload::new(150.0, 100.0, Bytes::kib(8), 1, 1),
    );
    assert!(predict(&vm, &[volume.clone()], &Assumptions::default(), None).is_err());
    volume.workload.read_pct = 50.0;
    let assumptions = Assumptions {
        service_latency_ms: Millis(0.0),
        ..Assumptions::default()
    };
    assert!(predict(&vm, &[volume], &assumptions, None).is_err());
}

#[test]
fn too_many_disks_and_standard_vm_are_violations() {
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let mut small = vm("X", Some(1e6), Some(1e6), None);
    small.max_data_disks = 2;
    small.premium_storage = false;
    let volume = load(
        "4xP30:none",
        &p30,
        Workload::new(50.0, 100.0, Bytes::kib(8), 64, 1),
    );
    let p = predict(&small, &[volume], &Assumptions::default(), None).unwrap();
    assert_eq!(p.violations.len(), 2, "{:?}", p.violations);
    // Typed: which check failed and with what figures, not only words.
    assert!(p.violations.contains(&crate::Violation::TooManyDisks {
        disks: 4,
        vm: "X".into(),
        max: 2
    }));
    assert!(p.violations.contains(&crate::Violation::NoPremiumStorage {
        vm: "X".into(),
        disks: vec!["P30".into()]
    }));
    assert_eq!(
        p.violation_sentences(),
        [
            "4 data disks but X allows 2",
            "X does not support premium storage, which P30 needs"
        ]
    );
    assert!(!p.fits());
}

fn arbitrary_case() -> impl Strategy<Value = (VmSize, Vec<VolumeLoad>)> {
    let volume = (
        1u32..=8,
        0usize..3,
        0.0f64..=100.0,
        0.0f64..=100.0,
        prop::sample::select(vec![4u64, 8, 16, 32, 64, 256, 1024]),
        1u32..=64,
        1u32..=4,
        prop::option::of(1.0f64..60000.0),
    );
    (
        prop::option::of(100.0f64..100000.0),
        prop::option::of(10.0f64..2000.0),
        prop::option::of((100.0f64..100000.0, 10.0f64..2000.0)),
        prop::collection::vec(volume, 1..4),
    )
        .prop_map(|(iops, mb_s, cached, specs)| {
            let machine = vm("P", iops, mb_s, cached);
            let loads = specs
                .into_iter()
                .enumerate()
                .map(
                    |(i, (n, caching, read, random, kib, qd, threads, target))| {
                        let sku = disk("P30", 5000.0, 200.0, 1024.0);
                        let caching = ["none", "readonly", "readwrite"][caching];
                        let mut volume = load(
                            &format!("{n}xP30:{caching}"),
                            &sku,
                            Workload::new(read, random, Bytes::kib(kib), qd, threads),
                        );
                        volume.design.label = format!("v{i}");
                        volume.target = target.map(|iops| SizingTarget {
                            iops: iofit_model::Iops(iops),
                            throughput_mb_s: iofit_model::MBps(0.0),
                            latency_ms: None,
                            io_size_bytes: iofit_model::Bytes(kib * 1024),
                            read_pct: read,
                            random_pct: random,
                            capacity_gib: None,
                            queue_depth: None,
                        });
                        volume
                    },
                )
                .collect();
            (machine, loads)
        })
}

proptest! {
    #[test]
    fn no_prediction_exceeds_any_limit((machine, loads) in arbitrary_case(), binary in any::<bool>()) {
        let assumptions = Assumptions {
            mb: if binary { MbConvention::Binary } else { MbConvention::Decimal },
            ..Assumptions::default()
        };
        let p = predict(&machine, &loads, &assumptions, None).unwrap();
        for check in &p.limits {
            if check.kind.caps_sustained_rate() {
                if let Some(limit) = check.limit {
                    prop_assert!(check.used <= limit * (1.0 + 1e-9) + 1e-9,
                        "{} used {} > limit {}", check.name, check.used, limit);
                }
            }
        }
        let mb = assumptions.mb.bytes_per_mb();
        for (volume, load) in p.volumes.iter().zip(&loads) {
            // throughput = IOPS x IO size, per direction.
            let bytes = volume.read_iops.get() * load.workload.read_io_size.as_f64()
                + volume.write_iops.get() * load.workload.write_io_size.as_f64();
            prop_assert!((volume.throughput_mb_s.get() - bytes / mb).abs() <= 1e-6 * (1.0 + bytes / mb));
            if loads.iter().all(|l| l.target.is_none()) {
                prop_assert!(volume.iops.get() <= volume.max_iops.get() * (1.0 + 1e-9));
            }
            prop_assert!(volume.iops.get() >= 0.0 && volume.latency_ms.get() > 0.0);
        }
    }
}

#[test]
fn ultra_bills_every_iops_premium_v2_only_above_its_free_baseline() {
    let mut disk_type = ProvisionedDiskType {
        name: "Ultra".into(),
        table: "hand".into(),
        kind: DiskKind::UltraDisk,
        size_gib_min: GiB(4.0),
        size_gib_max: GiB(65536.0),
        iops_baseline: Iops(100.0),
        iops_per_gib_max: 1000.0,
        iops_max: Iops(400000.0),
        throughput_mb_s_baseline: MBps(1.0),
        throughput_mb_s_per_iops_max: 0.25,
        throughput_mb_s_max: MBps(10000.0),
        price_usd_per_gib_month: Some(0.11972),
        price_usd_per_iops_month: Some(0.04964),
        price_usd_per_mb_s_month: Some(0.3495),
    };
    let ultra = provisioned_price(&disk_type, GiB(1024.0), 2048.0, 8.0).unwrap();
    assert!((ultra - (1024.0 * 0.11972 + 2048.0 * 0.04964 + 8.0 * 0.3495)).abs() < 1e-9);
    disk_type.kind = DiskKind::PremiumSsdV2;
    disk_type.iops_baseline = Iops(3000.0);
    disk_type.throughput_mb_s_baseline = MBps(125.0);
    let v2 = provisioned_price(&disk_type, GiB(1024.0), 2048.0, 8.0).unwrap();
    assert!((v2 - 1024.0 * 0.11972).abs() < 1e-9);
}

#[test]
fn a_bursting_vm_shows_its_burst_figure_and_how_long_the_credits_last() {
    // A D4s_v5-like VM: 6,400 uncached IOPS, 20,000 while VM-level credits last; 2 x P30
    // (10,000 IOPS, no credit bursting). 8 KiB random reads at QD 32.
    let mut d4 = vm("Standard_D4s_v5", Some(6400.0), Some(145.0), None);
    d4.burst_uncached_iops = Some(Iops(20_000.0));
    d4.burst_uncached_throughput_mb_s = Some(MBps(1200.0));
    let p30 = disk("P30", 5000.0, 200.0, 1024.0);
    let volume = load(
        "2xP30:none",
        &p30,
        Workload::new(0.0, 100.0, Bytes::kib(8), 32, 1),
    );
    let prediction = predict(
        &d4,
        std::slice::from_ref(&volume),
        &Assumptions::default(),
        None,
    )
    .unwrap();
    assert_eq!(prediction.total_iops.get(), 6400.0);
    let burst = prediction.burst.clone().unwrap();
    assert_eq!(burst.total_iops.get(), 10_000.0);
    assert!(burst.binding.contains("P30"), "{}", burst.binding);
    // The VM's bucket: (20,000 - 6,400) x 1,800 s, drained by 10,000 - 6,400 per second.
    assert!((burst.credit_seconds.get() - 13_600.0 * 1800.0 / 3600.0).abs() < 1e-6);
    // A design whose sustained limits are not the VM's gains nothing from the VM's bursting.
    let one = load(
        "1xP30:none",
        &p30,
        Workload::new(0.0, 100.0, Bytes::kib(8), 32, 1),
    );
    let prediction = predict(&d4, &[one], &Assumptions::default(), None).unwrap();
    assert_eq!(prediction.burst, None);
    // A P10 (500 IOPS, 3,500 burst) drains its own bucket in 30 minutes at the full rate.
    let mut p10 = disk("P10", 500.0, 100.0, 128.0);
    p10.burst_iops = Some(Iops(3500.0));
    let small = load(
        "1xP10:none",
        &p10,
        Workload::new(0.0, 100.0, Bytes::kib(4), 32, 1),
    );
    let burst = predict(&d4, &[small], &Assumptions::default(), None)
        .unwrap()
        .burst
        .unwrap();
    assert_eq!(burst.total_iops.get(), 3500.0);
    assert!((burst.credit_seconds.get() - 1800.0).abs() < 1e-6);
}
