//! Properties over the real current catalog: whatever the requirements, a proposed design
//! meets every target and is over no limit; totals are the sum of their parts.

use iofit_catalog::{Catalog, EDITION_CURRENT};
use iofit_model::{Requirements, SizingTarget, VolumeRequirements, VolumeRole};
use iofit_planner::{plan, CatalogRows, PlanOptions};
use iofit_predict::LimitStatus;
use proptest::prelude::*;

fn rows() -> CatalogRows {
    let catalog = Catalog::embedded().unwrap();
    CatalogRows {
        vms: catalog.vms_in(EDITION_CURRENT).cloned().collect(),
        disks: catalog.disks_in(EDITION_CURRENT).cloned().collect(),
        provisioned: catalog.provisioned_in(EDITION_CURRENT).cloned().collect(),
        netapp: catalog.netapp.clone(),
    }
}

fn volume() -> impl Strategy<Value = SizingTarget> {
    (
        10.0f64..120_000.0,
        0.0f64..2_000.0,
        prop::option::of(0.5f64..20.0),
        prop::sample::select(vec![4096u64, 8192, 65536, 262144, 1 << 20]),
        0.0f64..=100.0,
        0.0f64..=100.0,
        prop::option::of(1.0f64..50_000.0),
    )
        .prop_map(
            |(iops, mb, latency, io, read, random, capacity)| SizingTarget {
                iops: iofit_model::Iops(iops),
                throughput_mb_s: iofit_model::MBps(mb),
                latency_ms: latency.map(iofit_model::units::Millis),
                io_size_bytes: iofit_model::Bytes(io),
                read_pct: read,
                random_pct: random,
                capacity_gib: capacity.map(iofit_model::units::GiB),
                queue_depth: None,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn proposed_designs_fit_and_add_up(targets in prop::collection::vec(volume(), 1..3), log in any::<bool>()) {
        let requirements = Requirements {
            source: "proptest".into(),
            growth_factor: 1.0,
            volumes: targets
                .into_iter()
                .enumerate()
                .map(|(i, sizing)| VolumeRequirements {
                    label: format!("v{i}"),
                    role: if log && i == 1 { VolumeRole::Log } else { VolumeRole::Data },
                    sizing,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let plan = plan(&requirements, &rows(), &PlanOptions::default()).unwrap();
        prop_assert!(!plan.designs.is_empty() || !plan.impossible.is_empty());
        for design in &plan.designs {
            prop_assert!(design.prediction.fits(), "{:?}", design.prediction.violations);
            for check in &design.prediction.limits {
                prop_assert!(check.status != LimitStatus::Over, "{check:?}");
                if let (Some(limit), true) = (check.limit, check.kind.caps_sustained_rate()) {
                    prop_assert!(check.used <= limit * (1.0 + 1e-9), "{check:?}");
                }
            }
            let total_disks: u32 = design.volumes.iter().map(|v| v.disk_count).sum();
            prop_assert!(total_disks <= design.prediction.limits.iter()
                .find(|c| c.kind == iofit_predict::LimitKind::VmDataDisks)
                .and_then(|c| c.limit).unwrap() as u32);
            if let (Some(vm), Some(disks), Some(total)) =
                (design.vm_price_usd_month, design.disks_price_usd_month, design.total_usd_month)
            {
                // The operations charge of Standard SSD/HDD is part of the total when sourced.
                let operations = design.operations_usd_month.unwrap_or(0.0);
                prop_assert!((total - (vm + disks + operations)).abs() < 1e-9 * total.max(1.0));
                prop_assert_eq!(design.cost_complete, design.operations_usd_month.is_some());
            }
            // The default headroom (10%) holds on every limit the plan sizes against.
            for check in &design.prediction.limits {
                let sized = matches!(
                    check.kind,
                    iofit_predict::LimitKind::VmUncachedIops
                        | iofit_predict::LimitKind::VmUncachedThroughput
                        | iofit_predict::LimitKind::VmCachedIops
                        | iofit_predict::LimitKind::VmCachedThroughput
                        | iofit_predict::LimitKind::VolumeIops
                        | iofit_predict::LimitKind::VolumeThroughput
                        | iofit_predict::LimitKind::DiskIops
                        | iofit_predict::LimitKind::DiskThroughput
                        | iofit_predict::LimitKind::VmDataDisks
                );
                if let (true, Some(pct), Some(_)) = (sized, check.headroom_pct, check.limit) {
                    prop_assert!(pct >= 10.0 - 1e-6, "{check:?}");
                }
            }
            for volume in &design.volumes {
                prop_assert!(volume.caching != iofit_model::HostCaching::ReadWrite);
                if volume.role == VolumeRole::Log {
                    prop_assert_eq!(volume.caching, iofit_model::HostCaching::None);
                }
            }
        }
        // Ranked: fully priced by total ascending, then those missing an operations charge,
        // then unpriced.
        let ranks: Vec<(u8, Option<f64>)> = plan
            .designs
            .iter()
            .map(|d| match (d.total_usd_month, d.cost_complete) {
                (Some(t), true) => (0, Some(t)),
                (Some(t), false) => (1, Some(t)),
                (None, _) => (2, None),
            })
            .collect();
        for pair in ranks.windows(2) {
            prop_assert!(pair[0].0 <= pair[1].0, "{ranks:?}");
            if let ((a_tier, Some(a)), (b_tier, Some(b))) = (pair[0], pair[1]) {
                if a_tier == b_tier {
                    prop_assert!(a <= b, "{ranks:?}");
                }
            }
        }
    }
}
