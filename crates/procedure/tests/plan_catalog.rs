//! The plan's catalog side: disks priced the way Azure bills them (Premium SSD v2 above its
//! free baseline, from the region's sourced meters), prices by region, OS and way of paying,
//! and Azure's rules about which sizes and disks a design may use.

use iofit_model::units::GiB;
use iofit_planner::PlanNote;
use iofit_procedure::plan::{self, CatalogChoice, PlanRequest, RequirementsSource, VolumeFlags};

fn flags(iops: f64, capacity_gib: Option<f64>, role: &str) -> VolumeFlags {
    VolumeFlags {
        iops: Some(iofit_model::units::Iops(iops)),
        throughput_mb_s: None,
        latency_ms: None,
        capacity_gib: capacity_gib.map(GiB),
        read_pct: 70.0,
        random_pct: 100.0,
        io_size: "8k".into(),
        role: role.into(),
    }
}

fn request(volume: VolumeFlags, catalog: CatalogChoice) -> PlanRequest {
    PlanRequest {
        requirements: RequirementsSource::Flags(volume),
        growth: None,
        top: 5,
        caching: None,
        cache_hit_pct: 0.0,
        service_latency_ms: None,
        min_headroom_pct: 10.0,
        busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
        catalog,
        report: None,
        capture: Vec::new(),
    }
}

fn current() -> CatalogChoice {
    CatalogChoice {
        edition: "current".into(),
        ..Default::default()
    }
}

fn region(name: &str) -> CatalogChoice {
    CatalogChoice {
        region: Some(name.into()),
        ..current()
    }
}

/// The PremiumV2 rates the plan's catalog holds for a choice (what the sourced meters say).
fn v2_rates(choice: &CatalogChoice) -> (f64, f64, f64) {
    let (catalog, _) = choice.load_priced().unwrap();
    let v2 = catalog
        .provisioned
        .iter()
        .find(|d| d.name == "PremiumV2")
        .unwrap();
    (
        v2.price_usd_per_gib_month.unwrap(),
        v2.price_usd_per_iops_month.unwrap(),
        v2.price_usd_per_mb_s_month.unwrap(),
    )
}

/// Checks that design #1 puts its volume on Premium SSD v2 and that the disk's price is
/// capacity + IOPS above 3,000 + MB/s above 125 at the sourced rates. Returns the volume.
fn first_is_v2_priced_from_meters(
    choice: CatalogChoice,
    volume: VolumeFlags,
) -> iofit_planner::PlannedVolume {
    let rates = v2_rates(&choice);
    let outcome = plan::plan(&request(volume, choice)).unwrap();
    let first = &outcome.plan.designs[0];
    let v = first.volumes[0].clone();
    assert_eq!(v.disk_sku, "PremiumV2", "{}", outcome.text());
    let iops = v.provisioned_iops.unwrap().get();
    let mb_s = v.provisioned_throughput_mb_s.unwrap().get();
    let expected = v.disk_size_gib.get() * rates.0
        + (iops - 3000.0).max(0.0) * rates.1
        + (mb_s - 125.0).max(0.0) * rates.2;
    let per_disk = v.price_per_disk_usd_month.unwrap();
    assert!(
        (per_disk - expected).abs() < 1e-6,
        "{per_disk} vs {expected}"
    );
    v
}

#[test]
fn a_3000_iops_64_gib_volume_is_planned_on_premium_ssd_v2_with_its_iops_bought() {
    for choice in [current(), region("westeurope")] {
        let v = first_is_v2_priced_from_meters(choice, flags(3000.0, Some(64.0), "data"));
        // 10% headroom: 3,334 IOPS bought, 334 of them above the free 3,000.
        assert_eq!(v.disk_count, 1);
        assert_eq!(v.disk_size_gib, GiB(64.0));
        assert!(v.provisioned_iops.unwrap().get() >= 3000.0 / 0.9 - 1.0);
        // Far below the cheapest Premium SSD that carries 3,334 IOPS (a P30, $135.17).
        assert!(v.price_usd_month.unwrap() < 20.0, "{v:?}");
    }
    // The plan states the condition Azure sets for v2 (zonal VMs), with its source.
    let outcome = plan::plan(&request(flags(3000.0, Some(64.0), "data"), current())).unwrap();
    assert!(outcome.plan.notes.contains(&PlanNote::PremiumV2Conditions));
    assert!(plan::PREMIUM_V2_CONDITIONS.contains("availability zone"));
    assert!(plan::PREMIUM_V2_CONDITIONS.contains("disks-deploy-premium-v2"));
}

#[test]
fn a_56000_iops_volume_is_planned_on_one_premium_ssd_v2() {
    for choice in [current(), region("westeurope")] {
        let v = first_is_v2_priced_from_meters(choice, flags(56_000.0, None, "data"));
        assert_eq!(v.disk_count, 1);
        let iops = v.provisioned_iops.unwrap().get();
        assert!((56_000.0 / 0.9 - 1.0..=80_000.0).contains(&iops), "{iops}");
        // v2's rule: at most 500 IOPS per GiB beyond the baseline.
        assert!(iops <= v.disk_size_gib.get() * 500.0 + 1e-6, "{v:?}");
    }
}

#[test]
fn premium_ssd_v2_stays_unpriced_where_its_meters_are_not_sourced() {
    let choice = region("japaneast");
    let (catalog, notes) = choice.load_priced().unwrap();
    let v2 = catalog
        .provisioned
        .iter()
        .find(|d| d.name == "PremiumV2")
        .unwrap();
    assert_eq!(v2.price_usd_per_iops_month, None);
    assert!(notes.iter().any(|n| n.contains("PremiumV2")), "{notes:?}");
    let outcome = plan::plan(&request(flags(3000.0, Some(64.0), "data"), choice)).unwrap();
    assert_ne!(outcome.plan.designs[0].volumes[0].disk_sku, "PremiumV2");
}

fn designs(request: &PlanRequest) -> Vec<iofit_planner::PlannedDesign> {
    plan::plan(request).unwrap().plan.designs
}

fn traits(design: &iofit_planner::PlannedDesign) -> iofit_catalog::VmTraits {
    design
        .vm_traits
        .clone()
        .expect("every current size has rules")
}

#[test]
fn an_os_volume_is_one_disk_never_premium_ssd_v2_or_ultra() {
    let mut request = request(flags(500.0, Some(64.0), "os"), current());
    request.top = 20;
    let designs = designs(&request);
    assert!(!designs.is_empty());
    for design in &designs {
        let volume = &design.volumes[0];
        assert!(
            volume.disk.kind.may_be_os_disk(),
            "{}: {:?}",
            design.vm,
            volume.disk.kind
        );
        assert_eq!(volume.disk_count, 1, "{}", design.vm);
    }
    // The same volume as data takes Premium SSD v2 (cheapest), so the rule changed the plan.
    let data = designs_of(flags(500.0, Some(64.0), "data"), current());
    assert_eq!(data[0].volumes[0].disk_sku, "PremiumV2");
}

fn designs_of(volume: VolumeFlags, catalog: CatalogChoice) -> Vec<iofit_planner::PlannedDesign> {
    let mut request = request(volume, catalog);
    request.top = 10;
    designs(&request)
}

fn filtered(filters: iofit_procedure::vm_filters::VmFilters) -> CatalogChoice {
    CatalogChoice {
        filters,
        ..current()
    }
}

#[test]
fn arch_and_no_burstable_change_the_ranking_as_asked() {
    use iofit_catalog::Arch;
    use iofit_procedure::vm_filters::VmFilters;
    let volume = || flags(5000.0, Some(200.0), "data");
    let all = designs_of(volume(), current());
    // Without filters the cheapest include a burstable and an Arm64 size.
    assert_eq!(traits(&all[0]).burstable, Some(true), "{}", all[0].vm);
    assert!(all.iter().any(|d| traits(d).arch == Some(Arch::Arm64)));

    let x64 = designs_of(
        volume(),
        filtered(VmFilters {
            arch: Some("x64".into()),
            ..Default::default()
        }),
    );
    assert!(x64.iter().all(|d| traits(d).arch == Some(Arch::X64)));
    let arm = designs_of(
        volume(),
        filtered(VmFilters {
            arch: Some("arm64".into()),
            ..Default::default()
        }),
    );
    assert!(arm.iter().all(|d| traits(d).arch == Some(Arch::Arm64)));

    let steady = designs_of(
        volume(),
        filtered(VmFilters {
            no_burstable: true,
            ..Default::default()
        }),
    );
    assert!(steady.iter().all(|d| traits(d).burstable == Some(false)));
    assert_ne!(steady[0].vm, all[0].vm);
    // Leaving sizes out never makes the cheapest design cheaper.
    assert!(steady[0].total_usd_month >= all[0].total_usd_month);

    let big = designs_of(
        volume(),
        filtered(VmFilters {
            min_vcpu: Some(16),
            min_memory_gib: Some(GiB(128.0)),
            exclude_families: vec!["esv5".into()],
            ..Default::default()
        }),
    );
    assert!(big
        .iter()
        .all(|d| d.vm_vcpu >= 16 && d.vm_memory_gib >= GiB(128.0) && !d.vm.contains("E16s_v5")));
}

#[test]
fn a_size_azure_retires_within_the_horizon_is_not_ranked_unless_asked() {
    use iofit_procedure::vm_filters::VmFilters;
    let volume = || flags(5000.0, Some(200.0), "data");
    let all = designs_of(volume(), current());
    assert!(all.iter().all(|d| traits(d).retirement_date.is_none()));
    // Only the DS family asked for: every DS size retires on 2028-05-01 (announced
    // 2025-03-31), within the 36-month horizon, so nothing is left to rank.
    let ds_only = VmFilters {
        families: vec!["DS".into()],
        ..Default::default()
    };
    let error = plan::plan(&request(volume(), filtered(ds_only.clone()))).unwrap_err();
    assert!(error.is_bad_input());
    assert!(
        error.to_string().contains("Standard_DS3 (2028-05-01)"),
        "{error}"
    );
    // --include-retiring ranks them and each design says when Azure retires it.
    let kept = plan::plan(&request(
        volume(),
        filtered(VmFilters {
            include_retiring: true,
            ..ds_only
        }),
    ))
    .unwrap();
    assert!(kept.found());
    assert!(kept
        .plan
        .designs
        .iter()
        .all(|d| d.vm.starts_with("Standard_DS")));
    let text = kept.text();
    assert!(
        text.contains("Azure retires it on 2028-05-01 (announced 2025-03-31)"),
        "{text}"
    );
}

#[test]
fn a_perfmon_capture_plans_x64_and_a_file_may_carry_filters() {
    use iofit_catalog::Arch;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("req.toml");
    let text = |source: &str, filters: &str| {
        format!(
            "source = \"{source}\"\n{filters}\n[[volumes]]\nlabel = \"data\"\nrole = \"data\"\n\
             [volumes.sizing]\niops = 5000.0\nthroughput_mb_s = 40.96\nio_size_bytes = 8192\n\
             read_pct = 70.0\nrandom_pct = 100.0\ncapacity_gib = 200.0\n"
        )
    };
    let run = |body: String| {
        std::fs::write(&path, body).unwrap();
        let mut request = request(flags(1.0, None, "data"), current());
        request.requirements = RequirementsSource::File(path.clone());
        request.top = 10;
        plan::plan(&request)
    };
    let linux = run(text("iostat -x: db01.txt", "")).unwrap();
    assert!(linux
        .plan
        .designs
        .iter()
        .any(|d| traits(d).arch == Some(Arch::Arm64)));
    let windows = run(text("PerfMon CSV: sql02.csv", "")).unwrap();
    assert!(windows
        .plan
        .designs
        .iter()
        .all(|d| traits(d).arch == Some(Arch::X64)));
    assert!(windows
        .plan
        .notes
        .iter()
        .any(|n| matches!(n, PlanNote::VmFilter(words) if words.contains("PerfMon (Windows)"))));
    // Told otherwise in the file.
    let told = run(text(
        "PerfMon CSV: sql02.csv",
        "[filters]\narch = \"any\"\nno_burstable = true\n",
    ))
    .unwrap();
    assert!(told
        .plan
        .designs
        .iter()
        .any(|d| traits(d).arch == Some(Arch::Arm64)));
    assert!(told
        .plan
        .designs
        .iter()
        .all(|d| traits(d).burstable == Some(false)));
    let bad = run(text("x", "[filters]\narchh = \"x64\"\n")).unwrap_err();
    assert!(bad.to_string().contains("[filters]"), "{bad}");
    assert!(bad.to_string().contains("archh"), "{bad}");
}

/// The documented requirements file shows the `[filters]` table; uncommented it reads back.
#[test]
fn the_example_requirements_document_filters_that_read_back() {
    let mut inside = false;
    let text: String = iofit_planner::EXAMPLE_REQUIREMENTS
        .lines()
        .map(|line| {
            if line.starts_with("# [filters]") {
                inside = true;
            } else if !line.starts_with("# ") {
                inside = false;
            }
            let line = if inside { &line[2..] } else { line };
            format!("{line}\n")
        })
        .collect();
    let (requirements, filters) = plan::parse_requirements_with_filters("example", &text).unwrap();
    assert_eq!(requirements.volumes.len(), 2);
    assert_eq!(filters.arch.as_deref(), Some("x64"));
    assert_eq!(filters.families, vec!["Esv5", "Ebsv5"]);
    assert!(filters.no_burstable && !filters.include_retiring);
    assert_eq!(
        (filters.min_vcpu, filters.min_memory_gib),
        (Some(8), Some(GiB(64.0)))
    );
}
