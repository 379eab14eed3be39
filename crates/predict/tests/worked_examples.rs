//! The worked examples of SPEC.md, each computed from the seed edition of the real catalog.
//! Expected values are derived from catalog rows (never typed-in results) except where the
//! seed's own printed number is quoted to show how it compares.

use iofit_catalog::{Catalog, DiskSku, VmSize, EDITION_SEED};
use iofit_model::formulas::littles_law_queue_depth;
use iofit_model::{Bytes, HostCaching, Iops, Latency, SizingTarget, VolumeDesign, Workload};
use iofit_predict::{
    predict, Advice, Alternatives, Assumptions, DiskPerf, LimitKind, MbConvention, Prediction,
    VolumeLoad, Warning,
};

fn catalog() -> Catalog {
    Catalog::embedded().expect("embedded catalog loads")
}

/// The seed counts 1 MB = 1024 KB in its IO-size table; the seed examples use that convention.
fn seed_assumptions() -> Assumptions {
    Assumptions {
        mb: MbConvention::Binary,
        ..Assumptions::default()
    }
}

fn volume(
    label: &str,
    disk: &DiskSku,
    count: u32,
    caching: HostCaching,
    stripe: Option<Bytes>,
    workload: Workload,
) -> VolumeLoad {
    let mut design = VolumeDesign::new(label, disk.name.clone(), count, caching);
    design.stripe_size = stripe;
    VolumeLoad {
        design,
        disk: DiskPerf::from(disk),
        workload,
        target: None,
    }
}

fn target(iops: f64, throughput_mb_s: f64, io: Bytes, read_pct: f64) -> SizingTarget {
    SizingTarget {
        iops: iofit_model::Iops(iops),
        throughput_mb_s: iofit_model::MBps(throughput_mb_s),
        latency_ms: None,
        io_size_bytes: iofit_model::Bytes(io.0),
        read_pct,
        random_pct: 100.0,
        capacity_gib: None,
        queue_depth: None,
    }
}

fn run(vm: &VmSize, loads: &[VolumeLoad], catalog: &Catalog) -> Prediction {
    let vms: Vec<VmSize> = catalog.vms_in(EDITION_SEED).cloned().collect();
    let disks: Vec<DiskSku> = catalog.disks_in(EDITION_SEED).cloned().collect();
    predict(
        vm,
        loads,
        &seed_assumptions(),
        Some(Alternatives {
            vms: &vms,
            disks: &disks,
        }),
    )
    .unwrap()
}

#[test]
fn p30_on_ds1_is_capped_by_the_vm() {
    let catalog = catalog();
    let ds1 = catalog.vm("Standard_DS1", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let mut load = volume(
        "data",
        p30,
        1,
        HostCaching::None,
        None,
        Workload::new(100.0, 100.0, Bytes::kib(8), 32, 1),
    );
    load.target = Some(target(4000.0, 0.0, Bytes::kib(8), 100.0));
    let p = run(ds1, &[load], &catalog);
    let vm_limit = ds1.uncached_iops.unwrap().0;
    assert!(
        vm_limit < p30.iops.0,
        "the example needs the VM below the disk"
    );
    assert_eq!(p.total_iops.get(), vm_limit);
    let binding = p.binding.as_ref().unwrap();
    assert_eq!(binding.kind, LimitKind::VmUncachedIops);
    assert!(binding.words.contains("3,200"), "{}", binding.words);
    assert_eq!(p.meets_requirements, Some(false));
    // The disk still has headroom: 5,000 - 3,200.
    let disk = p.limit(LimitKind::DiskIops, "data").unwrap();
    assert_eq!(disk.headroom, Some(p30.iops.0 - vm_limit));
}

#[test]
fn p30_on_ds4_is_capped_by_the_disk_and_advice_names_more_disks_or_p40_p50() {
    let catalog = catalog();
    let ds4 = catalog.vm("Standard_DS4", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let mut load = volume(
        "data",
        p30,
        1,
        HostCaching::None,
        None,
        Workload::new(100.0, 0.0, Bytes::mib(1), 8, 1),
    );
    load.target = Some(target(0.0, 250.0, Bytes::mib(1), 100.0));
    let p = run(ds4, &[load], &catalog);
    assert!(ds4.uncached_throughput_mb_s.unwrap().0 >= 250.0);
    assert!((p.total_throughput_mb_s.get() - p30.throughput_mb_s.0).abs() < 1e-9);
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::DiskThroughput);
    assert_eq!(p.meets_requirements, Some(false));
    match &p.advice[..] {
        [Advice::MoreDisks {
            volume,
            disk,
            disks,
            disks_needed,
            larger_disks,
            ..
        }] => {
            assert_eq!((volume.as_str(), disk.as_str()), ("data", "P30"));
            assert_eq!((*disks, *disks_needed), (1, 2));
            let names: Vec<&str> = larger_disks.iter().map(|c| c.name.as_str()).collect();
            assert!(
                names.contains(&"P40") && names.contains(&"P50"),
                "{names:?}"
            );
            assert!(
                larger_disks.iter().all(|c| c.value >= 250.0),
                "{larger_disks:?}"
            );
        }
        other => panic!("one disk advice expected, got {other:?}"),
    }
    let advice = p.advice_sentences().join("\n");
    assert!(advice.contains("2 x P30 striped"), "{advice}");
}

#[test]
fn p30_io_size_table() {
    let catalog = catalog();
    let ds14 = catalog.vm("Standard_DS14", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let mb = MbConvention::Binary.bytes_per_mb();
    // (IO size, expected limit kind). IOPS-bound rows deliver the disk's IOPS; MB/s-bound rows
    // deliver the disk's MB/s, i.e. IOPS = MB/s x 1024 KB / IO size.
    let rows = [
        (Bytes::kib(8), LimitKind::DiskIops),
        (Bytes::kib(1024), LimitKind::DiskThroughput),
        (Bytes::kib(64), LimitKind::DiskThroughput),
        (Bytes::kib(32), LimitKind::DiskIops),
    ];
    let mut results = Vec::new();
    for (size, kind) in rows {
        let load = volume(
            "p30",
            p30,
            1,
            HostCaching::None,
            None,
            Workload::new(100.0, 100.0, size, 256, 1),
        );
        let p = run(ds14, &[load], &catalog);
        assert_eq!(p.binding.as_ref().unwrap().kind, kind, "{size}");
        let expected_iops = match kind {
            LimitKind::DiskIops => p30.iops.0,
            _ => p30.throughput_mb_s.0 * mb / size.as_f64(),
        };
        assert!((p.total_iops.get() - expected_iops).abs() < 1e-9, "{size}");
        // throughput = IOPS x IO size.
        assert!(
            (p.total_throughput_mb_s.get() - p.total_iops.get() * size.as_f64() / mb).abs() < 1e-9
        );
        assert!(p.mb_convention_note.contains("1 MB = 1024 KB"));
        results.push((p.total_iops.get(), p.total_throughput_mb_s.get()));
    }
    // The seed's table: 5,000 / 200 / 3,200 / 5,000 IOPS; 200 and 200 MB/s in the
    // throughput-bound rows.
    assert_eq!(results[0].0, 5000.0);
    assert_eq!(results[1], (200.0, 200.0));
    assert_eq!(results[2], (3200.0, 200.0));
    assert_eq!(results[3].0, 5000.0);
    // The seed prints 40 and 160 MB/s for the IOPS-bound rows: 5,000 x 8 and 5,000 x 32 divided
    // by 1000, not by 1024 like the other rows. Computed with 1 MB = 1024 KB they are:
    assert_eq!(results[0].1, 5000.0 * 8.0 / 1024.0);
    assert_eq!(results[3].1, 5000.0 * 32.0 / 1024.0);
}

#[test]
fn two_p30_striped_add_up() {
    let catalog = catalog();
    let ds14 = catalog.vm("Standard_DS14", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let random = volume(
        "stripe",
        p30,
        2,
        HostCaching::None,
        Some(Bytes::kib(64)),
        Workload::new(100.0, 100.0, Bytes::kib(8), 64, 1),
    );
    let p = run(ds14, &[random], &catalog);
    assert_eq!(p.total_iops.get(), 2.0 * p30.iops.0);
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::VolumeIops);
    let sequential = volume(
        "stripe",
        p30,
        2,
        HostCaching::None,
        Some(Bytes::kib(256)),
        Workload::new(100.0, 0.0, Bytes::mib(1), 64, 1),
    );
    let p = run(ds14, &[sequential], &catalog);
    assert!((p.total_throughput_mb_s.get() - 2.0 * p30.throughput_mb_s.0).abs() < 1e-9);
    assert_eq!(
        p.binding.as_ref().unwrap().kind,
        LimitKind::VolumeThroughput
    );
}

#[test]
fn littles_law_5000_iops_at_1_ms_needs_qd_5() {
    let depth = littles_law_queue_depth(Iops(5000.0), Latency::from_millis(1.0));
    assert!((depth - 5.0).abs() < 1e-9);
    let catalog = catalog();
    let ds14 = catalog.vm("Standard_DS14", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let mut load = volume(
        "data",
        p30,
        1,
        HostCaching::None,
        None,
        Workload::new(100.0, 100.0, Bytes::kib(8), 5, 1),
    );
    let mut wanted = target(5000.0, 0.0, Bytes::kib(8), 100.0);
    wanted.latency_ms = Some(iofit_model::units::Millis(1.0));
    load.target = Some(wanted);
    let p = run(ds14, &[load.clone()], &catalog);
    assert_eq!(p.volumes[0].queue.depth_for_target, Some(5));
    assert_eq!(p.meets_requirements, Some(true));
    // One IO fewer in flight cannot carry 5,000 IOPS at 1 ms.
    load.workload.queue_depth = 4;
    let p = run(ds14, &[load], &catalog);
    assert_eq!(p.meets_requirements, Some(false));
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::QueueDepth);
    assert!(
        matches!(
            p.advice[..],
            [Advice::RaiseQueueDepth {
                outstanding_ios: 4,
                depth: 5,
                ..
            }]
        ),
        "{:?}",
        p.advice
    );
    assert!(
        p.advice[0].to_string().contains("at least 5"),
        "{:?}",
        p.advice
    );
}

#[test]
fn qd_2_on_a_4_disk_stripe_is_flagged() {
    let catalog = catalog();
    let ds14 = catalog.vm("Standard_DS14", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let load = volume(
        "stripe",
        p30,
        4,
        HostCaching::None,
        Some(Bytes::kib(64)),
        Workload::new(100.0, 100.0, Bytes::kib(8), 2, 1),
    );
    let p = run(ds14, &[load], &catalog);
    let queue = &p.volumes[0].queue;
    assert_eq!((queue.busy_members, queue.stripe_members), (2, 4));
    assert_eq!(queue.depth_to_keep_members_busy, 4);
    let per_disk = (p30.iops.0 * 1e-3).ceil() as u32;
    assert_eq!(queue.depth_to_reach_disk_limits, per_disk * 4);
    let warning = p
        .warnings
        .iter()
        .find(|w| matches!(w, Warning::IdleStripeMembers { .. }))
        .unwrap();
    assert!(
        matches!(
            warning,
            Warning::IdleStripeMembers {
                outstanding_ios: 2,
                members: 4,
                busy_members: 2,
                ..
            }
        ),
        "{warning:?}"
    );
    let sentence = warning.to_string();
    assert!(
        sentence.contains("leaves 2 idle") && sentence.contains("at least 4"),
        "{sentence}"
    );
    assert!(p.limit(LimitKind::StripeMembersBusy, "stripe").is_some());
}

#[test]
fn ds14_seed_benchmark() {
    let catalog = catalog();
    let ds14 = catalog.vm("Standard_DS14", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    // fiowrite.ini / fioread.ini: 4 jobs, iodepth 256, bs 8k.
    let writes = |size| {
        volume(
            "nocache",
            p30,
            10,
            HostCaching::None,
            Some(Bytes::kib(64)),
            Workload::new(0.0, 100.0, size, 256, 4),
        )
    };
    let reads = |size| {
        volume(
            "readcache",
            p30,
            1,
            HostCaching::ReadOnly,
            None,
            Workload::new(100.0, 100.0, size, 256, 4),
        )
    };
    let p = run(ds14, &[reads(Bytes::kib(8))], &catalog);
    assert_eq!(p.total_iops.get(), ds14.cached_iops.unwrap().0);
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::VmCachedIops);
    let p = run(ds14, &[writes(Bytes::kib(8))], &catalog);
    assert_eq!(p.total_iops.get(), ds14.uncached_iops.unwrap().0);
    assert_eq!(p.binding.as_ref().unwrap().kind, LimitKind::VmUncachedIops);
    let p = run(ds14, &[writes(Bytes::kib(64))], &catalog);
    assert!(
        (p.total_throughput_mb_s.get() - ds14.uncached_throughput_mb_s.unwrap().0).abs() < 1e-9
    );
    assert_eq!(
        p.binding.as_ref().unwrap().kind,
        LimitKind::VmUncachedThroughput
    );
    let p = run(
        ds14,
        &[writes(Bytes::kib(8)), reads(Bytes::kib(8))],
        &catalog,
    );
    assert!(p.total_iops.get() > 100_000.0, "{}", p.total_iops.get());
    assert_eq!(
        p.total_iops.get(),
        ds14.cached_iops.unwrap().0 + ds14.uncached_iops.unwrap().0
    );
    // The cached volume's reads never reach the disk.
    assert_eq!(p.limit(LimitKind::DiskIops, "readcache").unwrap().used, 0.0);
}

#[test]
fn unpublished_cache_limits_predict_the_volume_as_uncached() {
    let catalog = catalog();
    let ds13 = catalog.vm("Standard_DS13", EDITION_SEED).unwrap();
    let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
    let load = volume(
        "data",
        p30,
        1,
        HostCaching::ReadOnly,
        None,
        Workload::new(100.0, 100.0, Bytes::kib(8), 8, 1),
    );
    let p = run(ds13, &[load], &catalog);
    // No cache of unknown speed: every read reaches the disk, under the VM's uncached limits,
    // as plan (which refuses ReadOnly on such a VM) would count it.
    assert!(p.limit(LimitKind::VmCachedIops, "vm").is_none());
    assert!(p.limit(LimitKind::DiskIops, "data").unwrap().used > 0.0);
    assert!(p.limit(LimitKind::VmUncachedIops, "vm").unwrap().used > 0.0);
    assert!(
        p.warnings.iter().any(|w| matches!(
            w,
            Warning::CachedLimitsUnpublished { volume, vm, .. }
                if volume == "data" && vm == &ds13.name
        )),
        "{:?}",
        p.warnings
    );
    assert!(p
        .warning_sentences()
        .iter()
        .any(|w| w.contains("cached limits are not published: predicted as uncached")));
}
