//! The fleet table rendered from typed data: rows with their volumes and binding limit, totals,
//! and failures of each kind put in words, the same in text, CSV and HTML.

use iofit_fleet::{FailedServer, FleetPlan, FleetRow, FleetVolume, ServerFailure};
use iofit_planner::{ImpossibleReason, PlanError};
use iofit_predict::{Binding, LimitKind, LimitUnit};
use iofit_report::fleet_table::{render_csv, render_html, render_text};
use std::path::PathBuf;

fn fleet() -> FleetPlan {
    let row = FleetRow {
        server: "db01".into(),
        volumes: 2,
        vm: "Standard_E8s_v5".into(),
        disks: vec![
            FleetVolume {
                label: "data".into(),
                disk_count: 4,
                disk_sku: "P30".into(),
            },
            FleetVolume {
                label: "log".into(),
                disk_count: 1,
                disk_sku: "P20".into(),
            },
        ],
        price_per_month: Some(1234.5),
        binding: Some(Binding {
            kind: LimitKind::VmUncachedIops,
            scope: "vm".into(),
            name: "VM uncached IOPS".into(),
            unit: LimitUnit::Iops,
            limit: 12_800.0,
            used: 9_600.0,
            words: "capped at 12,800 IOPS".into(),
        }),
        headroom_pct: Some(25.0),
    };
    FleetPlan {
        rows: vec![row],
        currency: "USD".into(),
        notes: Vec::new(),
        failed: vec![
            FailedServer {
                server: "web,02".into(),
                failure: ServerFailure::NotRequirements {
                    path: PathBuf::from("req/web,02.toml"),
                    line: Some(3),
                    column: Some(7),
                    message: "invalid type: string \"x\", expected f64".into(),
                },
            },
            FailedServer {
                server: "big".into(),
                failure: ServerFailure::NoDesign {
                    impossible: vec![ImpossibleReason::Recorded(
                        "Standard_DS1: 3,200 IOPS < 50,000".into(),
                    )],
                },
            },
            FailedServer {
                server: "odd".into(),
                failure: ServerFailure::Invalid {
                    path: None,
                    error: PlanError::NoVms,
                },
            },
        ],
        total_price_per_month: 1234.5,
        unpriced: 0,
        total_volumes: 2,
    }
}

#[test]
fn text_names_volumes_binding_and_every_failure() {
    let text = render_text(&fleet());
    assert!(text.contains("data: 4xP30; log: 1xP20"), "{text}");
    assert!(
        text.contains("VM uncached IOPS") && text.contains("25.0"),
        "{text}"
    );
    assert!(text.contains("total: 1 servers planned, 2 volumes, 1234.50 USD a month"));
    assert!(text.contains("failed: 3 servers"), "{text}");
    assert!(
        text.contains("web,02: req/web,02.toml: line 3, column 7: invalid type"),
        "{text}"
    );
    assert!(
        text.contains("big: no design meets the requirements: Standard_DS1: 3,200 IOPS < 50,000")
    );
    assert!(
        text.contains("odd: the catalog has no VM sizes in this edition"),
        "{text}"
    );
}

#[test]
fn csv_quotes_cells_and_totals_the_rows() {
    let csv = render_csv(&fleet());
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(
        lines[1],
        "db01,2,Standard_E8s_v5,data: 4xP30; log: 1xP20,1234.50,VM uncached IOPS,25.0,planned"
    );
    assert!(
        lines[2].starts_with("\"web,02\",,,,,\"req/web,02.toml: line 3"),
        "{csv}"
    );
    assert_eq!(lines[5], "TOTAL,2,,,1234.50,,,1 planned 3 failed");
}

#[test]
fn html_escapes_the_failures() {
    let html = render_html(&fleet(), "fleet <1>");
    assert!(html.contains("<title>fleet &lt;1&gt;</title>"));
    assert!(html.contains("<td>data: 4xP30; log: 1xP20</td>"), "{html}");
    assert!(
        html.contains("invalid type: string &quot;x&quot;"),
        "{html}"
    );
}

#[test]
fn failures_serialize_as_typed_data() {
    let json = serde_json::to_value(fleet()).unwrap();
    let failed = &json["failed"][0]["failure"];
    assert_eq!(failed["kind"], "not_requirements");
    assert_eq!(failed["line"], 3);
    assert_eq!(
        json["failed"][2]["failure"]["error"],
        "the catalog has no VM sizes in this edition"
    );
    assert_eq!(json["rows"][0]["disks"][0]["disk_count"], 4);
    assert_eq!(json["rows"][0]["binding"]["kind"], "vm_uncached_iops");
}
