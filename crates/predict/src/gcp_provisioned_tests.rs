//! Provisioned disks: pd-extreme as the built-in tables source it (its IOPS as given, its
//! MiB/s as gcpdiag computes them, the n2 per-VM limits of Google's table), and Hyperdisk as
//! a `--catalog` file that adds what no stored source gave makes it modelled.

use super::*;
use crate::gcp::{parse_disk_spec, predict, GcpDiskFlagError};
use iofit_model::units::{Iops, MiBps};

fn catalog() -> GcpCatalog {
    GcpCatalog::embedded().unwrap()
}

fn extreme(label: &str, size_gib: f64, iops: f64) -> GcpDiskSpec {
    GcpDiskSpec {
        label: label.into(),
        disk_type: "pd-extreme".into(),
        size_gib: iofit_model::units::GiB(size_gib),
        provisioned_iops: Some(Iops(iops)),
        provisioned_mib_s: None,
    }
}

fn demand(iops: f64, io_kib: f64, read_pct: f64) -> GcpDemand {
    GcpDemand {
        iops: Iops(iops),
        io_size_bytes: iofit_model::Bytes((io_kib * 1024.0) as u64),
        read_pct,
    }
}

const FLAT_OUT: f64 = 1e12;

/// One pd-extreme disk given 50,000 IOPS delivers them (its own limit binds, under the n2's
/// 120,000); two given 80,000 each share the VM's 120,000 read IOPS, 60,000 each.
#[test]
fn pd_extreme_delivers_what_it_is_given_up_to_the_vms_limit() {
    let catalog = catalog();
    let n2_64 = catalog.machine_type("n2-standard-64").unwrap();
    let one = [(
        extreme("db", 1000.0, 50_000.0),
        demand(FLAT_OUT, 8.0, 100.0),
    )];
    let p = predict(&catalog, n2_64, &one).unwrap();
    assert_eq!(p.delivered_iops.get().round(), 50_000.0);
    assert_eq!(p.binding, "pd-extreme disk IOPS");
    assert_eq!(p.volumes[0].disk_type, "pd-extreme");
    let two = [
        (extreme("a", 1000.0, 80_000.0), demand(FLAT_OUT, 8.0, 100.0)),
        (extreme("b", 1000.0, 80_000.0), demand(FLAT_OUT, 8.0, 100.0)),
    ];
    let p = predict(&catalog, n2_64, &two).unwrap();
    assert_eq!(p.volumes[0].delivered_iops.get().round(), 60_000.0);
    assert_eq!(p.binding, "VM n2-standard-64 pd-extreme read IOPS");
    assert_eq!(p.delivered_iops.get().round(), 120_000.0);
}

/// pd-extreme's MiB/s are pd-ssd's by size (240 + 0.48 x GiB, gcpdiag's vm_performance.py):
/// 2,000 GiB give 1,200 MiB/s of 1 MiB reads, under the n2's 4,000; 10,000 GiB give 5,040,
/// so the VM's 4,000 binds.
#[test]
fn pd_extreme_throughput_follows_its_size_as_pd_ssd_capped_by_the_vm() {
    let catalog = catalog();
    let n2_64 = catalog.machine_type("n2-standard-64").unwrap();
    let volumes = [(
        extreme("scan", 2000.0, 2_500.0),
        demand(FLAT_OUT, 1024.0, 100.0),
    )];
    let p = predict(&catalog, n2_64, &volumes).unwrap();
    // 1,200 MiB/s at 1 MiB IOs is 1,200 IOPS, under the 2,500 given.
    assert_eq!(p.delivered_iops.get().round(), 1200.0);
    assert_eq!(p.binding, "pd-extreme read throughput by size");
    let volumes = [(
        extreme("scan", 10_000.0, 5_000.0),
        demand(FLAT_OUT, 1024.0, 100.0),
    )];
    let p = predict(&catalog, n2_64, &volumes).unwrap();
    assert_eq!(p.delivered_iops.get().round(), 4000.0);
    assert_eq!(p.binding, "VM n2-standard-64 pd-extreme read throughput");
}

/// Where no per-VM limit is sourced (n2 under 64 vCPUs, other families) the design is refused
/// saying so; a disk outside Google's ranges is refused naming the key and the bound.
#[test]
fn pd_extreme_outside_its_sourced_rules_is_refused() {
    let catalog = catalog();
    let n2_32 = catalog.machine_type("n2-standard-32").unwrap();
    let volumes = [(extreme("db", 1000.0, 50_000.0), demand(1000.0, 8.0, 100.0))];
    let error = predict(&catalog, n2_32, &volumes).unwrap_err();
    assert!(error
        .problem
        .contains("no sourced pd-extreme limit for n2-standard-32"));
    let row = catalog.provisioned_type("pd-extreme").unwrap();
    let error = check_spec(row, &extreme("db", 100.0, 50_000.0))
        .unwrap_err()
        .to_string();
    assert_eq!(error, "size_gib=100 is below 500 (the sizes Google allows)");
    let error = check_spec(row, &extreme("db", 1000.0, 1_000.0))
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "iops=1000 is below 2,500 (what one disk may be given)"
    );
    let error = check_spec(row, &extreme("db", 1000.0, 130_000.0))
        .unwrap_err()
        .to_string();
    assert!(error.contains("above 120,000"), "{error}");
    let with_mib_s = GcpDiskSpec {
        provisioned_mib_s: Some(MiBps(500.0)),
        ..extreme("db", 1000.0, 50_000.0)
    };
    let error = check_spec(row, &with_mib_s).unwrap_err().to_string();
    assert!(error.contains("drop mib_s="), "{error}");
    let without_iops = GcpDiskSpec {
        provisioned_iops: None,
        ..extreme("db", 1000.0, 50_000.0)
    };
    let error = check_spec(row, &without_iops).unwrap_err().to_string();
    assert!(error.contains("add iops=N"), "{error}");
}

/// `--disk` takes `iops=` for pd-extreme; a Hyperdisk type the tables cannot model is refused
/// naming what no source gave, and a Persistent Disk still takes size_gib only.
#[test]
fn disk_flags_of_provisioned_types() {
    let catalog = catalog();
    let spec = parse_disk_spec("db=pd-extreme,size_gib=1000,iops=50000", 0, &catalog).unwrap();
    assert_eq!(spec, extreme("db", 1000.0, 50_000.0));
    let error = parse_disk_spec("pd-extreme,size_gib=1000,iops=9", 0, &catalog).unwrap_err();
    assert!(matches!(error, GcpDiskFlagError::ProvisionedValue { .. }));
    assert!(error.to_string().contains("below 2,500"), "{error}");
    let error = parse_disk_spec(
        "hyperdisk-balanced,size_gib=100,iops=5000,mib_s=200",
        0,
        &catalog,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("IOPS bounds by size; throughput bounds by size and IOPS; per-VM limits by machine type not sourced"),
        "{error}"
    );
    assert!(
        error.ends_with("use pd-balanced, pd-ssd, pd-standard, pd-extreme"),
        "{error}"
    );
    let error = parse_disk_spec("pd-ssd,size_gib=100,iops=5000", 0, &catalog).unwrap_err();
    assert!(matches!(error, GcpDiskFlagError::UnknownKey { .. }));
}

/// What a `--catalog` file written for this test adds (its own figures, not Google's): the
/// Hyperdisk Balanced rules without the unsourced ones, and a c3 per-VM limit.
const MINE: &str = r#"[table]
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

[[vm_limits]]
family = "c3"
disk_type = "hyperdisk-balanced"
vcpu_min = 22
vcpu_max = 43
read_iops = 40000
write_iops = 40000
read_mib_s = 1000
write_mib_s = 1000

[[vm_limits]]
family = "c3"
disk_type = "hyperdisk-extreme"
vcpu_min = 88
read_iops = 350000
write_iops = 350000
read_mib_s = 5000
write_mib_s = 5000
"#;

/// With the file, Hyperdisk Balanced is modelled: each disk gets what it is given, the disks
/// share the VM's limit of the type. Hyperdisk Extreme's MiB/s follow its IOPS (250 per
/// 1,000) and a C3 under 88 vCPUs cannot take it.
#[test]
fn hyperdisk_with_a_file_adding_its_missing_facts() {
    let mut catalog = catalog();
    catalog.add_text("mine.toml", MINE).unwrap();
    let c3 = catalog.machine_type("c3-standard-22").unwrap();
    let spec = parse_disk_spec(
        "data=hyperdisk-balanced,size_gib=100,iops=30000,mib_s=500",
        0,
        &catalog,
    )
    .unwrap();
    assert_eq!(
        (spec.provisioned_iops, spec.provisioned_mib_s),
        (Some(Iops(30_000.0)), Some(MiBps(500.0)))
    );
    let p = predict(
        &catalog,
        c3,
        &[(spec.clone(), demand(FLAT_OUT, 8.0, 100.0))],
    )
    .unwrap();
    assert_eq!(p.delivered_iops.get().round(), 30_000.0);
    assert_eq!(p.binding, "hyperdisk-balanced disk IOPS");
    // 1 MiB reads: the 500 MiB/s given bind before the 30,000 IOPS.
    let p = predict(
        &catalog,
        c3,
        &[(spec.clone(), demand(FLAT_OUT, 1024.0, 100.0))],
    )
    .unwrap();
    assert_eq!(p.delivered_iops.get().round(), 500.0);
    assert_eq!(p.binding, "hyperdisk-balanced disk throughput");
    // Two disks of 30,000 share the VM's 40,000.
    let second = GcpDiskSpec {
        label: "logs".into(),
        ..spec.clone()
    };
    let p = predict(
        &catalog,
        c3,
        &[
            (spec, demand(FLAT_OUT, 8.0, 100.0)),
            (second, demand(FLAT_OUT, 8.0, 100.0)),
        ],
    )
    .unwrap();
    assert_eq!(p.volumes[1].delivered_iops.get().round(), 20_000.0);
    assert_eq!(p.binding, "VM c3-standard-22 hyperdisk-balanced read IOPS");
    // The file's 500 IOPS per GiB: 100 GiB may be given 50,000 at most.
    let error = parse_disk_spec(
        "hyperdisk-balanced,size_gib=100,iops=60000,mib_s=500",
        0,
        &catalog,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("above 50,000 (what 100 GiB may be given)"),
        "{error}"
    );
    let hx = parse_disk_spec("hyperdisk-extreme,size_gib=1000,iops=100000", 0, &catalog).unwrap();
    let c3_88 = catalog.machine_type("c3-standard-88").unwrap();
    let p = predict(
        &catalog,
        c3_88,
        &[(hx.clone(), demand(FLAT_OUT, 1024.0, 100.0))],
    )
    .unwrap();
    // 100,000 IOPS bring 25,000 MiB/s, capped at 5,000 a disk.
    assert_eq!(p.delivered_iops.get().round(), 5000.0);
    assert!(
        p.volumes[0].limits[1]
            .stated
            .contains("5,000 MiB/s (250 per 1,000 IOPS)"),
        "{:?}",
        p.volumes[0].limits
    );
    let c3_44 = catalog.machine_type("c3-standard-44").unwrap();
    let error = predict(&catalog, c3_44, &[(hx, demand(1.0, 8.0, 100.0))]).unwrap_err();
    assert!(
        error.problem.contains("88 vCPUs or more"),
        "{}",
        error.problem
    );
}
