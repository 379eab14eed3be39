//! `plan --fleet` goes through the same procedure as `plan`: per server, a requirements file
//! from a PerfMon (Windows) capture plans x64 sizes only unless `--arch` says otherwise, and
//! the fleet plan keeps its notes (prices used and missing, sizes left out and for which
//! servers), in its JSON too.

use iofit_planner::PlanNote;
use iofit_procedure::fleet_plan::{plan_fleet, FleetPlanRequest};
use iofit_procedure::plan::{self, CatalogChoice, PlanRequest, RequirementsSource};
use iofit_procedure::vm_filters::VmFilters;
use std::path::Path;

/// One data volume of 2,000 IOPS and 200 GiB: without burstable sizes the cheapest is an
/// Arm64 size, so the PerfMon rule changes the answer.
fn requirements(source: &str) -> String {
    format!(
        "source = \"{source}\"\ngrowth_factor = 1.0\n\n[[volumes]]\nlabel = \"data\"\n\
         role = \"data\"\n\n[volumes.sizing]\niops = 2000.0\nthroughput_mb_s = 0.0\n\
         io_size_bytes = 8192\nread_pct = 70.0\nrandom_pct = 100.0\ncapacity_gib = 200.0\n"
    )
}

fn choice(arch: Option<&str>) -> CatalogChoice {
    CatalogChoice {
        edition: "current".into(),
        region: Some("westeurope".into()),
        filters: VmFilters {
            no_burstable: true,
            arch: arch.map(str::to_string),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn fleet_request(dir: &Path, arch: Option<&str>) -> FleetPlanRequest {
    FleetPlanRequest {
        dir: dir.to_path_buf(),
        catalog: choice(arch),
        caching: None,
        cache_hit_pct: 0.0,
        service_latency_ms: None,
        min_headroom_pct: 10.0,
        busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
        threads: 2,
    }
}

/// `iofit plan --requirements FILE` of one server: its first design's VM.
fn single(path: &Path) -> String {
    let outcome = plan::plan(&PlanRequest {
        requirements: RequirementsSource::File(path.to_path_buf()),
        growth: None,
        top: 1,
        caching: None,
        cache_hit_pct: 0.0,
        service_latency_ms: None,
        min_headroom_pct: 10.0,
        busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
        catalog: choice(None),
        report: None,
        capture: Vec::new(),
    })
    .unwrap();
    outcome.plan.designs[0].vm.clone()
}

#[test]
fn a_perfmon_server_plans_x64_only_and_the_fleet_keeps_its_notes() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("req");
    std::fs::create_dir_all(&req).unwrap();
    std::fs::write(req.join("db01.toml"), requirements("iostat: db01.txt")).unwrap();
    std::fs::write(
        req.join("sql02.toml"),
        requirements("PerfMon CSV: sql02.csv"),
    )
    .unwrap();
    let catalog = iofit_catalog::Catalog::embedded().unwrap();
    let arch_of = |vm: &str| {
        catalog
            .vm(vm, "current")
            .unwrap()
            .traits
            .as_ref()
            .and_then(|t| t.arch)
            .map(|a| a.name())
    };

    let fleet = plan_fleet(&fleet_request(&req, None), &|| {}).unwrap();
    assert_eq!(fleet.rows.len(), 2, "{:?}", fleet.failed);
    let (db01, sql02) = (&fleet.rows[0], &fleet.rows[1]);
    assert_eq!(
        (db01.server.as_str(), sql02.server.as_str()),
        ("db01", "sql02")
    );
    // The Linux server's cheapest size is Arm64; the Windows one's is x64, as `plan` of the
    // same file gives it.
    assert_eq!(arch_of(&db01.vm), Some("arm64"), "{}", db01.vm);
    assert_eq!(arch_of(&sql02.vm), Some("x64"), "{}", sql02.vm);
    assert_eq!(db01.vm, single(&req.join("db01.toml")));
    assert_eq!(sql02.vm, single(&req.join("sql02.toml")));

    // The notes: prices of the region, sizes left out, and which server planned x64 only.
    // Only the Windows server's filter is scoped to it, by kind.
    let scoped: Vec<&Vec<String>> = fleet
        .notes
        .iter()
        .filter_map(|n| match n {
            PlanNote::ForServers { servers, note } => {
                assert!(matches!(**note, PlanNote::VmFilter(_)), "{note:?}");
                Some(servers)
            }
            _ => None,
        })
        .collect();
    assert!(!scoped.is_empty());
    assert!(scoped.iter().all(|s| *s == &vec!["sql02".to_string()]));
    assert!(fleet.notes.iter().any(|n| matches!(n, PlanNote::Prices(_))));
    let notes: Vec<String> = fleet.notes.iter().map(ToString::to_string).collect();
    let notes = notes.join("\n");
    assert!(
        notes.contains("prices: pay-as-you-go in westeurope"),
        "{notes}"
    );
    assert!(notes.contains("price missing: NetApp"), "{notes}");
    assert!(notes.contains("burstable CPU (--no-burstable)"), "{notes}");
    assert!(
        notes.contains("servers sql02: architecture: x64 sizes only"),
        "{notes}"
    );
    assert!(!notes.contains("servers db01"), "{notes}");
    // ... in every output: JSON, text, CSV stays a table, HTML.
    let json = serde_json::to_value(&fleet).unwrap();
    assert_eq!(json["currency"], "USD");
    assert!(json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("servers sql02")));
    let text = iofit_report::fleet_table::render_text(&fleet);
    assert!(
        text.contains("\nnotes:\n") && text.contains("servers sql02"),
        "{text}"
    );
    let html = iofit_report::fleet_table::render_html(&fleet, "fleet");
    assert!(html.contains("<h2>Notes</h2>") && html.contains("servers sql02"));

    // Told otherwise (--arch any), the Windows server may use Arm64 too.
    let any = plan_fleet(&fleet_request(&req, Some("any")), &|| {}).unwrap();
    assert_eq!(any.rows[1].vm, db01.vm);
    assert!(!any
        .notes
        .iter()
        .any(|n| matches!(n, PlanNote::ForServers { .. })
            || n.to_string().contains("x64 sizes only")));
}
