//! The least size, IOPS and MiB/s that carry a volume, within each type's rules.

use super::*;
use iofit_catalog::clouds::gcp::PdPrice;
use iofit_model::requirements::SizingTarget;
use iofit_model::units::{GiB, Iops, MiBps};

const HEADROOM: f64 = 0.9;

fn catalog() -> GcpCatalog {
    GcpCatalog::embedded().unwrap()
}

fn demand(iops: f64, io_kib: f64, read_pct: f64) -> GcpDemand {
    GcpDemand {
        iops: Iops(iops),
        io_size_bytes: iofit_model::Bytes((io_kib * 1024.0) as u64),
        read_pct,
    }
}

/// A Hyperdisk Balanced row with this test's own figures (no source gave Google's per-size
/// bounds): 500 IOPS per GiB at most, 3,000 IOPS and 140 MiB/s included.
fn balanced() -> ProvisionedType {
    ProvisionedType {
        name: "hyperdisk-balanced".into(),
        source: "this test".into(),
        bills: vec!["capacity".into(), "iops".into(), "throughput".into()],
        size_min_gib: Some(GiB(4.0)),
        size_max_gib: Some(GiB(65_536.0)),
        iops_max: Some(160_000.0),
        iops_max_per_gib: Some(500.0),
        mib_s_max: Some(2_400.0),
        included_iops: Some(iofit_model::Iops(3_000.0)),
        included_mib_s: Some(iofit_model::MiBps(140.0)),
        ..Default::default()
    }
}

/// pd-extreme: the IOPS the demand needs with 10% headroom (111,112 for 100,000), at least
/// the 2,500 Google lets a disk be given, on at least 500 GiB; more than 120,000 needed is
/// more than one disk can be given.
#[test]
fn pd_extreme_is_given_the_iops_needed_on_its_least_size() {
    let catalog = catalog();
    let row = catalog.provisioned_type("pd-extreme").unwrap();
    let disk = size_disk(
        row,
        "db",
        &demand(100_000.0, 8.0, 100.0),
        GiB(1000.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(
        (disk.size_gib, disk.provisioned_iops, disk.provisioned_mib_s),
        (GiB(1000.0), Some(Iops((100_000.0 / HEADROOM).ceil())), None)
    );
    let disk = size_disk(
        row,
        "db",
        &demand(1_000.0, 8.0, 100.0),
        GiB(100.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(
        (disk.size_gib, disk.provisioned_iops),
        (GiB(500.0), Some(Iops(2_500.0)))
    );
    assert!(size_disk(
        row,
        "db",
        &demand(110_000.0, 8.0, 100.0),
        GiB(1000.0),
        HEADROOM
    )
    .is_none());
    let price = catalog.disk_price("pd-extreme", "us-central1").unwrap();
    let [capacity, iops, throughput] = price_parts(Some(row), &disk, price);
    assert_eq!(
        (capacity, iops, throughput),
        (500.0 * 0.125, 2_500.0 * 0.065, 0.0)
    );
}

/// pd-extreme's MiB/s are pd-ssd's by the size of all its disks: 1,500 MB/s of 1 MiB reads
/// is 1,589.5 MiB/s with headroom, (1,589.5 - 240) / 0.48 = 2,811.5 GiB; a 2,000 GiB volume
/// grows by the 812 GiB missing.
#[test]
fn pd_extreme_grows_for_the_mib_s_its_size_brings() {
    let catalog = catalog();
    let row = catalog.provisioned_type("pd-extreme").unwrap();
    let volume = VolumeRequirements {
        label: "scan".into(),
        sizing: SizingTarget {
            iops: iofit_model::Iops(1500.0e6 / 1_048_576.0),
            io_size_bytes: iofit_model::Bytes(1_048_576),
            read_pct: 100.0,
            capacity_gib: Some(iofit_model::units::GiB(2000.0)),
            ..Default::default()
        },
        ..Default::default()
    };
    let d = demand(1500.0e6 / 1_048_576.0, 1024.0, 100.0);
    let disks = size_group(&catalog, row, &[(&volume, d)], HEADROOM).unwrap();
    let need = 1500.0e6 / 1_048_576.0 / HEADROOM;
    assert_eq!(
        disks[0].size_gib,
        GiB(2000.0 + ((need - 240.0) / 0.48 - 2000.0).ceil())
    );
    assert_eq!(disks[0].provisioned_iops, Some(Iops(2_500.0)));
}

/// Hyperdisk Balanced (test figures): what is included is given in full (it costs nothing);
/// IOPS above what 500 per GiB allows grow the disk; the bill counts what is above the
/// included.
#[test]
fn hyperdisk_balanced_is_given_the_included_in_full_and_grows_for_iops() {
    let row = balanced();
    let disk = size_disk(
        &row,
        "app",
        &demand(1_000.0, 8.0, 70.0),
        GiB(50.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(
        (disk.size_gib, disk.provisioned_iops, disk.provisioned_mib_s),
        (GiB(50.0), Some(Iops(3_000.0)), Some(MiBps(140.0)))
    );
    let disk = size_disk(
        &row,
        "db",
        &demand(60_000.0, 16.0, 70.0),
        GiB(50.0),
        HEADROOM,
    )
    .unwrap();
    let iops = (60_000.0 / HEADROOM).ceil();
    assert_eq!(disk.provisioned_iops, Some(Iops(iops)));
    assert_eq!(disk.size_gib, GiB((iops / 500.0).ceil()));
    // 60,000 x 16 KiB = 937.5 MiB/s, 1,041.7 with headroom.
    assert_eq!(
        disk.provisioned_mib_s,
        Some(MiBps((937.5 / HEADROOM).ceil()))
    );
    let price = PdPrice {
        name: row.name.clone(),
        table: String::new(),
        region: "r".into(),
        price_per_gib_month: 0.1,
        price_per_iops_month: Some(0.01),
        price_per_mib_s_month: Some(0.1),
        sku: None,
        source: None,
    };
    let [capacity, iops_cost, throughput] = price_parts(Some(&row), &disk, &price);
    assert!((capacity - disk.size_gib.get() * 0.1).abs() < 1e-9);
    assert!((iops_cost - (iops - 3000.0) * 0.01).abs() < 1e-9);
    assert!((throughput - (1042.0 - 140.0) * 0.1).abs() < 1e-9);
    // Above 2,400 MiB/s one disk cannot carry it.
    assert!(size_disk(
        &row,
        "scan",
        &demand(3_000.0, 1024.0, 100.0),
        GiB(50.0),
        HEADROOM
    )
    .is_none());
}

/// Hyperdisk Extreme's MiB/s come with its IOPS (250 per 1,000), and it must be given at least
/// 2 IOPS per GiB; Hyperdisk Throughput's IOPS come with its MiB/s (4 per MiB/s) and it must
/// be given at least 10 MiB/s per TiB.
#[test]
fn what_comes_with_the_other_value_is_provisioned_for() {
    let catalog = catalog();
    let extreme = catalog.provisioned_type("hyperdisk-extreme").unwrap();
    // 2,000 MiB/s of 1 MiB reads: 2,222.3 with headroom, 8,890 IOPS bring it.
    let disk = size_disk(
        extreme,
        "scan",
        &demand(2000.0, 1024.0, 100.0),
        GiB(100.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(
        disk.provisioned_iops,
        Some(Iops((2000.0 / HEADROOM * 4.0).ceil()))
    );
    // 10,000 GiB must be given 20,000 IOPS at least.
    let disk = size_disk(
        extreme,
        "big",
        &demand(100.0, 8.0, 100.0),
        GiB(10_000.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(disk.provisioned_iops, Some(Iops(20_000.0)));
    let throughput = catalog.provisioned_type("hyperdisk-throughput").unwrap();
    let disk = size_disk(
        throughput,
        "logs",
        &demand(1000.0, 4.0, 0.0),
        GiB(100.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(disk.size_gib, GiB(2048.0));
    assert_eq!(
        disk.provisioned_mib_s,
        Some(MiBps((1000.0 / HEADROOM / 4.0).ceil()))
    );
    let disk = size_disk(
        throughput,
        "cold",
        &demand(10.0, 4.0, 0.0),
        GiB(8192.0),
        HEADROOM,
    )
    .unwrap();
    // 8 TiB: 80 MiB/s at least; the 20 MiB/s minimum and the demand are below it.
    assert_eq!(disk.provisioned_mib_s, Some(MiBps(80.0)));
}

/// Hyperdisk Throughput takes up to 2,400 MiB/s (and 9,600 IOPS) per volume since Google's
/// release of 2025-08-05: 1,500 MiB/s of 1 MiB reads (1,666.7 with headroom) is one disk of
/// 1,667 MiB/s; past 2,400 MiB/s with headroom no disk carries it.
#[test]
fn hyperdisk_throughput_carries_up_to_2400_mib_s() {
    let catalog = catalog();
    let throughput = catalog.provisioned_type("hyperdisk-throughput").unwrap();
    let disk = size_disk(
        throughput,
        "scan",
        &demand(1500.0, 1024.0, 100.0),
        GiB(8192.0),
        HEADROOM,
    )
    .unwrap();
    assert_eq!(disk.size_gib, GiB(8192.0));
    assert_eq!(
        disk.provisioned_mib_s,
        Some(MiBps((1500.0 / HEADROOM).ceil()))
    );
    assert!(disk.provisioned_mib_s.unwrap().0 > 600.0);
    assert!(size_disk(
        throughput,
        "scan",
        &demand(2200.0, 1024.0, 100.0),
        GiB(8192.0),
        HEADROOM
    )
    .is_none());
}
