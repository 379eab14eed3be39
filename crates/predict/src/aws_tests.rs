//! AWS's own documented examples, reproduced by the model.

use super::*;
use iofit_catalog::clouds::aws::AwsCatalog;
use iofit_model::units::KiB;

fn catalog() -> AwsCatalog {
    AwsCatalog::embedded().unwrap()
}

fn spec(
    kind: &str,
    count: u32,
    size_gib: f64,
    iops: Option<f64>,
    mib_s: Option<f64>,
) -> AwsVolumeSpec {
    AwsVolumeSpec {
        label: "data".into(),
        count,
        volume_type: kind.into(),
        size_gib: GiB(size_gib),
        iops: iops.map(Iops),
        throughput_mib_s: mib_s.map(MiBps),
    }
}

/// 'General Purpose SSD volumes', gp2 table: 1 to 33.33 GiB -> 100 IOPS, 1,862 s of burst at
/// 3,000 IOPS; 100 GiB -> 300 IOPS, 2,000 s; 750 GiB -> 2,250 IOPS, 7,200 s; 1,000 GiB ->
/// 3,000 IOPS, no burst ("N/A").
#[test]
fn gp2_burst_table_of_the_docs() {
    let catalog = catalog();
    let gp2 = catalog.volume_type("gp2").unwrap();
    for (size, baseline, seconds) in [
        (20.0, 100.0, Some(1862.0)),
        (100.0, 300.0, Some(2000.0)),
        (750.0, 2250.0, Some(7200.0)),
        (1000.0, 3000.0, None),
    ] {
        let caps = volume_caps(&spec("gp2", 1, size, None, None), gp2).unwrap();
        assert_eq!(caps.iops.get(), baseline, "{size} GiB");
        assert_eq!(
            caps.burst_seconds.map(|s| s.get().round()),
            seconds,
            "{size} GiB"
        );
    }
    // 'Volumes that are 170 GiB and smaller deliver a maximum throughput of 128 MiB/s',
    // '334 GiB and larger deliver 250 MiB/s'.
    let small = volume_caps(&spec("gp2", 1, 170.0, None, None), gp2).unwrap();
    let large = volume_caps(&spec("gp2", 1, 334.0, None, None), gp2).unwrap();
    assert_eq!(
        (small.throughput_mib_s.get(), large.throughput_mib_s.get()),
        (128.0, 250.0)
    );
}

/// gp3: 'Maximum IOPS can be provisioned for volumes 32 GiB or larger (500 IOPS per GiB x 32
/// GiB = 16,000 IOPS)'; 'Maximum throughput can be provisioned at 4,000 IOPS or higher
/// (4,000 IOPS x 0.25 MiB/s per IOPS = 1,000 MiB/s)'.
#[test]
fn gp3_provisioning_rules_of_the_docs() {
    let catalog = catalog();
    let gp3 = catalog.volume_type("gp3").unwrap();
    assert!(volume_caps(&spec("gp3", 1, 32.0, Some(16_000.0), None), gp3).is_ok());
    let error = volume_caps(&spec("gp3", 1, 31.0, Some(16_000.0), None), gp3).unwrap_err();
    assert!(error.to_string().contains("3000..15500"), "{error}");
    assert!(volume_caps(&spec("gp3", 1, 8.0, Some(4_000.0), Some(1000.0)), gp3).is_ok());
    assert!(volume_caps(&spec("gp3", 1, 8.0, Some(3_999.0), Some(1000.0)), gp3).is_err());
    // Without provisioning: the free 3,000 IOPS and 125 MiB/s.
    let free = volume_caps(&spec("gp3", 1, 10.0, None, None), gp3).unwrap();
    assert_eq!(
        (free.iops.get(), free.throughput_mib_s.get()),
        (3000.0, 125.0)
    );
}

/// io1 keeps the 2023 page's Provisioned IOPS rule: 'a volume provisioned with 48,000 IOPS can
/// support up to 750 MiB/s of throughput (16 KiB per provisioned IOPS x 48,000 provisioned IOPS
/// = 750 MiB/s)'; up to 32,000 IOPS, 500 MiB/s; at most 50 IOPS per GiB.
#[test]
fn io1_throughput_example_of_the_docs() {
    let catalog = catalog();
    let io1 = catalog.volume_type("io1").unwrap();
    let caps = volume_caps(&spec("io1", 1, 1000.0, Some(48_000.0), None), io1).unwrap();
    assert_eq!(caps.throughput_mib_s.get(), 750.0);
    let caps = volume_caps(&spec("io1", 1, 1000.0, Some(20_000.0), None), io1).unwrap();
    assert_eq!(caps.throughput_mib_s.get(), 500.0);
    assert!(volume_caps(&spec("io1", 1, 100.0, Some(5_001.0), None), io1).is_err());
    // io1 counts one operation per 256 KiB (the catalog's io_size_kib_max), in bytes.
    assert_eq!(io1.io_size_kib_max, Some(KiB(256.0)));
    assert_eq!(caps.op_bytes, Bytes::kib(256));
}

/// A volume spec's size keeps its JSON form (a float of GiB) now that it is typed, and gp2's
/// size thresholds compare in GiB at their edges: 250 MiB/s sustained from 334 GiB, and a
/// burst to 250 MiB/s above 170 GiB.
#[test]
fn volume_size_is_gib_in_json_and_in_gp2_thresholds() {
    let volume = spec("gp3", 2, 32.0, Some(16_000.0), None);
    let json = serde_json::to_value(&volume).unwrap();
    assert_eq!(json["size_gib"], serde_json::json!(32.0));
    let read: AwsVolumeSpec = serde_json::from_value(json).unwrap();
    assert_eq!(read.size_gib, GiB(32.0));
    let catalog = catalog();
    let gp2 = catalog.volume_type("gp2").unwrap();
    assert_eq!(gp2.throughput_max_size_gib_min, Some(GiB(334.0)));
    assert_eq!(gp2.throughput_small_size_gib_max, Some(GiB(170.0)));
    let caps = |size_gib| volume_caps(&spec("gp2", 1, size_gib, None, None), gp2).unwrap();
    let sustained = |size_gib| caps(size_gib).throughput_mib_s.get();
    let burst = |size_gib| caps(size_gib).burst_throughput_mib_s.get();
    assert_eq!((sustained(333.0), sustained(334.0)), (128.0, 250.0));
    assert_eq!((burst(170.0), burst(171.0)), (128.0, 250.0));
}

/// io2 is Block Express (every io2 volume since 30 April 2025): 'Maximum IOPS can be
/// provisioned with volumes 256 GiB and larger (1,000 IOPS x 256 GiB = 256,000 IOPS)';
/// 'Throughput scales proportionally up to 0.256 MiB/s per provisioned IOPS. Maximum throughput
/// of 4,000 MiB/s'.
#[test]
fn io2_block_express_rules_of_the_docs() {
    let catalog = catalog();
    let io2 = catalog.volume_type("io2").unwrap();
    let most = volume_caps(&spec("io2", 1, 256.0, Some(256_000.0), None), io2).unwrap();
    assert_eq!(
        (most.iops.get(), most.throughput_mib_s.get()),
        (256_000.0, 4000.0)
    );
    let error = volume_caps(&spec("io2", 1, 255.0, Some(256_000.0), None), io2).unwrap_err();
    assert!(error.to_string().contains("100..255000"), "{error}");
    // Below the 4,000 MiB/s cap, throughput is 0.256 MiB/s per IOPS: 10,000 IOPS give 2,560.
    let caps = volume_caps(&spec("io2", 1, 100.0, Some(10_000.0), None), io2).unwrap();
    assert!((caps.throughput_mib_s.get() - 2560.0).abs() < 1e-9);
    // 64 TiB is the largest size; throughput is not provisioned apart from IOPS.
    assert!(volume_caps(&spec("io2", 1, 65_536.0, Some(1000.0), None), io2).is_ok());
    assert!(volume_caps(&spec("io2", 1, 65_537.0, Some(1000.0), None), io2).is_err());
    let error = volume_caps(&spec("io2", 1, 100.0, Some(1000.0), Some(500.0)), io2).unwrap_err();
    assert!(error.to_string().contains("give iops=N only"), "{error}");
}

/// gp3 since the September 2025 increase (EC2 API reference: 'gp3: 3,000 - 80,000 IOPS',
/// throughput 'a maximum of 2,000 MiB/s', sizes '1 - 65,536 GiB'), with the page's ratios of
/// 500 IOPS per GiB and 0.25 MiB/s per IOPS: 80,000 IOPS need 160 GiB, 2,000 MiB/s 8,000 IOPS.
#[test]
fn gp3_maximums_of_september_2025() {
    let catalog = catalog();
    let gp3 = catalog.volume_type("gp3").unwrap();
    let most = volume_caps(&spec("gp3", 1, 160.0, Some(80_000.0), Some(2000.0)), gp3).unwrap();
    assert_eq!(
        (most.iops.get(), most.throughput_mib_s.get()),
        (80_000.0, 2000.0)
    );
    assert!(volume_caps(&spec("gp3", 1, 159.0, Some(80_000.0), None), gp3).is_err());
    assert!(volume_caps(&spec("gp3", 1, 200.0, Some(80_001.0), None), gp3).is_err());
    assert!(volume_caps(&spec("gp3", 1, 100.0, Some(7_999.0), Some(2000.0)), gp3).is_err());
    assert!(volume_caps(&spec("gp3", 1, 65_536.0, None, None), gp3).is_ok());
}

/// 'Amazon EBS-optimized instances': m6i.2xlarge has a 12,000 IOPS baseline and 40,000 IOPS
/// maximum (16 KiB I/O) 'for 30 minutes at least once every 24 hours'. Two gp3 volumes of
/// 16,000 IOPS and 250 MiB/s each (16,000 x 16 KiB) ask 32,000: the instance baseline binds
/// all day, nothing in the window.
#[test]
fn instance_baseline_binds_and_its_window_lifts_it() {
    let catalog = catalog();
    let instance = catalog.instance("m6i.2xlarge").unwrap();
    let gp3 = catalog.volume_type("gp3").unwrap();
    let volume = spec("gp3", 2, 32.0, Some(16_000.0), Some(250.0));
    let demand = AwsDemand {
        iops: Iops(32_000.0),
        throughput_mb_s: MBps(32_000.0 * 16_384.0 / 1e6),
        io_size_bytes: Bytes(16_384),
    };
    let sustained = predict(
        instance,
        &[(volume.clone(), gp3, demand.clone())],
        AwsState::Sustained,
    )
    .unwrap();
    assert!((sustained.delivered_iops.get() - 12_000.0).abs() < 1e-6);
    assert_eq!(sustained.binding, "instance m6i.2xlarge baseline IOPS");
    assert!(!sustained.meets);
    let burst = predict(instance, &[(volume, gp3, demand)], AwsState::Burst).unwrap();
    assert!((burst.delivered_iops.get() - 32_000.0).abs() < 1e-6);
    assert!(burst.meets);
    assert!(
        burst.held_for.contains("30 minutes per 24 hours"),
        "{}",
        burst.held_for
    );
}

/// The issue's example: m6i.2xlarge with data=2xgp3,iops=6000,mb_s=250 at 8 KiB random read.
/// The volumes give 12,000 IOPS and 2 x 238.4 MiB/s; 12,000 x 8 KiB = 98 MB/s is far below
/// either throughput limit, so an IOPS limit binds at 12,000.
#[test]
fn issue_example_parses_and_predicts() {
    let catalog = catalog();
    let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
    let (volume, rules) = parse_volume_spec("data=2xgp3,iops=6000,mb_s=250", 0, &rules_of).unwrap();
    assert_eq!((volume.count, volume.size_gib), (2, GiB(12.0)));
    assert!((volume.throughput_mib_s.unwrap().get() - 238.418).abs() < 1e-3);
    let instance = catalog.instance("m6i.2xlarge").unwrap();
    let demand = AwsDemand {
        iops: Iops(50_000.0),
        throughput_mb_s: MBps(50_000.0 * 8192.0 / 1e6),
        io_size_bytes: Bytes(8192),
    };
    let result = predict(instance, &[(volume, &rules, demand)], AwsState::Sustained).unwrap();
    assert!((result.delivered_iops.get() - 12_000.0).abs() < 1e-6);
    assert!(result.binding.ends_with("IOPS"), "{}", result.binding);
    // At 256 KiB sequential reads the volumes allow 2 x 250 MB/s = 500 MB/s, the instance's
    // baseline 312.5 MB/s: the instance binds.
    let (volume, rules) = parse_volume_spec("data=2xgp3,iops=6000,mb_s=250", 0, &rules_of).unwrap();
    let demand = AwsDemand {
        iops: Iops(4_000.0),
        throughput_mb_s: MBps(4_000.0 * 262_144.0 / 1e6),
        io_size_bytes: Bytes(262_144),
    };
    let result = predict(instance, &[(volume, &rules, demand)], AwsState::Sustained).unwrap();
    assert!((result.delivered_mb_s.get() - 312.5).abs() < 1e-6);
    assert_eq!(result.binding, "instance m6i.2xlarge baseline throughput");
}

#[test]
fn bad_specs_say_what_to_write() {
    let catalog = catalog();
    let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
    let error = parse_volume_spec("data=2xgp9", 0, &rules_of)
        .unwrap_err()
        .to_string();
    assert!(error.contains("gp3, gp2, io2 or st1"), "{error}");
    let error = parse_volume_spec("data=1xgp2", 0, &rules_of)
        .unwrap_err()
        .to_string();
    assert!(error.contains("size_gib"), "{error}");
    let error = parse_volume_spec("data=1xgp3,iops=abc", 0, &rules_of)
        .unwrap_err()
        .to_string();
    assert!(error.contains("plain number"), "{error}");
}

/// io1 (Provisioned IOPS SSD volumes): 'The maximum ratio of provisioned IOPS to requested
/// volume size (in GiB) is 50:1 for io1 volumes ... a 100 GiB io1 volume can be provisioned
/// with up to 5,000 IOPS'; 64,000 IOPS from 'io1 volume 1,280 GiB in size or greater'; the
/// throughput rule is io2's (48,000 IOPS: 750 MiB/s).
#[test]
fn io1_ratio_and_sizes_of_the_docs() {
    let catalog = catalog();
    let io1 = catalog.volume_type("io1").unwrap();
    assert!(volume_caps(&spec("io1", 1, 100.0, Some(5_000.0), None), io1).is_ok());
    let error = volume_caps(&spec("io1", 1, 100.0, Some(5_001.0), None), io1).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("a 100 GiB io1 volume takes 100..5000 IOPS (50 per GiB"),
        "{error}"
    );
    let full = volume_caps(&spec("io1", 1, 1280.0, Some(64_000.0), None), io1).unwrap();
    assert_eq!(
        (full.iops.get(), full.throughput_mib_s.get()),
        (64_000.0, 1000.0)
    );
    assert!(volume_caps(&spec("io1", 1, 1279.0, Some(64_000.0), None), io1).is_err());
    let mid = volume_caps(&spec("io1", 1, 1000.0, Some(48_000.0), None), io1).unwrap();
    assert_eq!(mid.throughput_mib_s.get(), 750.0);
}

/// sc1 (Cold HDD volumes) table: 0.125 TiB -> 1.5 MiB/s base, 10 burst; 1 TiB -> 12 and 80;
/// 3.125 TiB -> 37.5 and 250; 16 TiB -> 192 and 250; at most 250 IOPS (1 MiB I/O).
#[test]
fn sc1_base_and_burst_table_of_the_docs() {
    let catalog = catalog();
    let sc1 = catalog.volume_type("sc1").unwrap();
    for (tib, base, burst) in [
        (0.125, 1.5, 10.0),
        (1.0, 12.0, 80.0),
        (3.125, 37.5, 250.0),
        (16.0, 192.0, 250.0),
    ] {
        let caps = volume_caps(&spec("sc1", 1, tib * 1024.0, None, None), sc1).unwrap();
        assert_eq!(
            (
                caps.throughput_mib_s.get(),
                caps.burst_throughput_mib_s.get(),
                caps.iops.get()
            ),
            (base, burst, 250.0),
            "{tib} TiB"
        );
    }
}
