//! The answer card's choices: the binding limit is a published one, never the queue depth the
//! workload itself keeps (a depth chosen at an assumed 1 ms), and every section names it the
//! same way; percentages stay possible; the verdict sums up every volume.

use iofit_catalog::{DiskKind, DiskSku, VmSize};
use iofit_model::units::{Bytes, GiB, Iops, MBps};
use iofit_model::{HostCaching, VolumeDesign, Workload};
use iofit_predict::{LimitKind, Prediction};
use iofit_report::html::HtmlReport;
use iofit_report::summary::{self, Summary};

/// One P30 on a VM with room to spare, run at 2 IOs in flight: by Little's law at 1 ms the
/// workload's own depth caps it at 2,000 IOPS, below the disk's 5,000.
fn shallow_prediction() -> Prediction {
    let p30 = DiskSku {
        name: "P30".into(),
        table: "disks (test)".into(),
        kind: DiskKind::PremiumSsd,
        size_gib: GiB(1024.0),
        iops: Iops(5000.0),
        throughput_mb_s: MBps(200.0),
        burst_iops: None,
        burst_throughput_mb_s: None,
        price_usd_month: None,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    };
    let vm = VmSize {
        name: "Standard_Big".into(),
        table: "vms (test)".into(),
        family: "D".into(),
        vcpu: 16,
        memory_gib: GiB(64.0),
        max_data_disks: 32,
        premium_storage: true,
        uncached_iops: Some(Iops(80_000.0)),
        uncached_throughput_mb_s: Some(MBps(1200.0)),
        cached_iops: None,
        cached_throughput_mb_s: None,
        cache_size_gib: None,
        temp_storage_gib: None,
        burst_uncached_iops: None,
        burst_uncached_throughput_mb_s: None,
        price_usd_month: None,
        traits: None,
    };
    let volume = iofit_predict::VolumeLoad {
        design: VolumeDesign::new("data", "P30", 1, HostCaching::None),
        disk: iofit_predict::DiskPerf::from(&p30),
        workload: Workload::new(100.0, 100.0, Bytes::kib(8), 2, 1),
        target: None,
    };
    iofit_predict::predict(&vm, &[volume], &iofit_predict::Assumptions::default(), None).unwrap()
}

#[test]
fn the_workloads_own_depth_is_not_the_binding_limit() {
    let prediction = shallow_prediction();
    // The prediction itself names the depth (what the workload will get)...
    assert_eq!(
        prediction.binding.as_ref().map(|b| b.kind),
        Some(LimitKind::QueueDepth)
    );
    // ...the card names the published limit nearest to binding: the P30's IOPS.
    let check = summary::binding_check(&prediction).unwrap();
    assert_ne!(check.kind, LimitKind::QueueDepth);
    assert_eq!(check.limit, Some(5000.0));
    let line = summary::binding_line(&prediction).unwrap();
    assert!(line.name.starts_with("data: "), "{}", line.name);
    assert!(
        line.detail.contains("of 5,000 IOPS used"),
        "{}",
        line.detail
    );
    // Card, prediction heading, chart and table say the one name; no bar of the depth.
    let html = HtmlReport::new("t")
        .summary(Summary::for_prediction(&prediction))
        .prediction(&prediction)
        .render();
    assert!(html.contains(&format!("Binding limit: {}", line.name)));
    assert_eq!(html.matches("— binding").count(), 1, "one bar marked");
    assert!(!html.contains("queue depth: 2 outstanding IOs / 1 ms (Little&#39;s law)</text>"));
    assert!(html.contains("the workload&#39;s depth (not a limit)"));
    assert!(html.contains("not a limit of the VM or the disks"));
    assert_eq!(html.matches("<td>BINDING</td>").count(), 1);
}

#[test]
fn percentages_stay_possible() {
    assert_eq!(summary::percent(14.2), "14%");
    assert_eq!(summary::percent(-20.0), "-20%");
    // A cache 17.9 times too small for the data is said so, not as "-1686%".
    assert_eq!(summary::percent(-1686.0), "over by 17.9 x");
    assert_eq!(summary::percent(f64::NAN), "-");
}
