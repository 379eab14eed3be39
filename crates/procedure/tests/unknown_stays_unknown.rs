//! Unknown stays unknown: for every VM of every catalog edition and every rate limit the
//! catalog leaves empty (uncached / cached IOPS and MB/s), a volume that runs into it flat out
//! is predicted with that limit unpublished, and no output (predict's text, the report's
//! volume table, its CSV) turns the empty field into a number: the rates are "unknown".

use iofit_catalog::{Catalog, DiskKind, VmSize, EDITIONS};
use iofit_model::{Bytes, HostCaching, VolumeDesign, Workload};
use iofit_predict::{predict, Assumptions, DiskPerf, LimitKind, LimitStatus, VolumeLoad};
use iofit_procedure::predict::PredictOutcome;

/// Disks no VM limit comes near: whatever binds is the VM's.
fn boundless_disk() -> DiskPerf {
    DiskPerf {
        name: "Boundless".into(),
        table: "test".into(),
        kind: DiskKind::PremiumSsd,
        size_gib: 1024.0,
        iops: 1e7,
        throughput_mb_s: 1e6,
        burst_iops: None,
        burst_throughput_mb_s: None,
        price_usd_month: None,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    }
}

/// A flat-out volume (no target) on 8 striped disks with `caching`.
fn flat_out(caching: HostCaching) -> VolumeLoad {
    let mut design = VolumeDesign::new("vol", "Boundless", 8, caching);
    design.stripe_size = Some(Bytes::kib(64));
    VolumeLoad {
        design,
        disk: boundless_disk(),
        workload: Workload::new(100.0, 100.0, Bytes::kib(64), 64, 8),
        target: None,
    }
}

/// The empty rate-limit fields of `vm` and the caching that makes a volume run into each
/// (a cached volume runs under the cached limits only where the VM publishes one of them;
/// where it publishes neither, it is predicted uncached and no cached limit applies).
fn empty_fields(vm: &VmSize) -> Vec<(LimitKind, HostCaching)> {
    let cached_published = vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some();
    let mut out = Vec::new();
    if vm.uncached_iops.is_none() {
        out.push((LimitKind::VmUncachedIops, HostCaching::None));
    }
    if vm.uncached_throughput_mb_s.is_none() {
        out.push((LimitKind::VmUncachedThroughput, HostCaching::None));
    }
    if cached_published && vm.cached_iops.is_none() {
        out.push((LimitKind::VmCachedIops, HostCaching::ReadOnly));
    }
    if cached_published && vm.cached_throughput_mb_s.is_none() {
        out.push((LimitKind::VmCachedThroughput, HostCaching::ReadOnly));
    }
    out
}

#[test]
fn no_output_turns_an_unpublished_limit_into_a_number() {
    let catalog = Catalog::embedded().unwrap();
    let mut walked = Vec::new();
    for &edition in EDITIONS {
        for vm in catalog.vms_in(edition) {
            for (kind, caching) in empty_fields(vm) {
                let what = format!("{edition} {} {kind:?}", vm.name);
                let prediction =
                    predict(vm, &[flat_out(caching)], &Assumptions::default(), None).unwrap();
                let check = prediction
                    .limit(kind, "vm")
                    .unwrap_or_else(|| panic!("{what}: the limit is checked"));
                assert_eq!(check.status, LimitStatus::Unknown, "{what}");
                assert_eq!(check.limit, None, "{what}");
                let volume = &prediction.volumes[0];
                assert!(volume.unpublished_limits.contains(&check.name), "{what}");
                assert!(
                    !prediction.max_known() && !prediction.delivered_known(),
                    "{what}"
                );

                let outcome = PredictOutcome {
                    edition: edition.into(),
                    tables: Vec::new(),
                    prediction: prediction.clone(),
                    requirements: None,
                    job_loads: None,
                    price_notes: Vec::new(),
                    disks: vec!["8xBoundless".into()],
                    cost: None,
                };
                let text = outcome.text();
                let delivers = text
                    .lines()
                    .find(|l| l.starts_with("delivers:"))
                    .unwrap_or_else(|| panic!("{what}: {text}"));
                assert!(
                    delivers.starts_with("delivers:  unknown ("),
                    "{what}: {delivers}"
                );
                assert!(delivers.contains(&check.name), "{what}: {delivers}");
                assert!(
                    text.contains("    IOPS and MB/s unknown: "),
                    "{what}: {text}"
                );
                let report = outcome.report();
                let html = report.render();
                assert!(html.contains(">unknown<"), "{what}: the volume table");
                let csv = report.render_csv();
                for metric in ["iops", "throughput"] {
                    let row = csv
                        .lines()
                        .find(|l| {
                            l.starts_with("prediction,vol,") && l.contains(&format!(",{metric},"))
                        })
                        .unwrap_or_else(|| panic!("{what}: {csv}"));
                    assert!(row.contains(",unknown,"), "{what}: {row}");
                }
                walked.push(what);
            }
        }
    }
    // The case is among them: the seed publishes DS14's cached IOPS, not its MB/s.
    assert!(
        walked.contains(&"seed-2016 Standard_DS14 VmCachedThroughput".to_string()),
        "{walked:?}"
    );
}

#[test]
fn published_limits_still_give_numbers() {
    let catalog = Catalog::embedded().unwrap();
    let vm = catalog.vm("Standard_DS14", "seed-2016").unwrap();
    let prediction = predict(
        vm,
        &[flat_out(HostCaching::None)],
        &Assumptions::default(),
        None,
    )
    .unwrap();
    assert!(prediction.max_known() && prediction.delivered_known());
    assert!(prediction.volumes[0].unpublished_limits.is_empty());
    assert!(prediction.total_iops > 0.0);
}
