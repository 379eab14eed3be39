//! `iofit catalog`: listings name their tables and sources; bad catalog files exit 2 with an
//! error naming file, line, row and field.

use iofit_testkit::iofit;
use predicates::prelude::*;
use std::io::Write;

fn stdout_of(args: &[&str]) -> String {
    let output = iofit().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn the_seed_vm_listing_is_stable() {
    let text = stdout_of(&["catalog", "vms", "--edition", "seed-2016"]);
    insta::assert_snapshot!("seed_vms", text);
}

#[test]
fn a_filtered_current_listing_is_stable() {
    let text = stdout_of(&["catalog", "disks", "--filter", "P3"]);
    insta::assert_snapshot!("current_disks_filter_p3", text);
}

#[test]
fn listings_name_the_table_source_and_explain_dashes() {
    let text = stdout_of(&["catalog", "vms", "--filter", "DS14"]);
    assert!(text.contains("Standard_DS14 "), "{text}");
    assert!(text.contains("Standard_DS14_v2"), "{text}");
    assert!(text.contains("51,200"), "{text}");
    assert!(text.contains("- : not published / not sourced"));
    assert!(text.contains("Tables used:") && text.contains("source: "));
    assert!(text.contains("azure-vm-previous-gen"));
}

#[test]
fn min_vcpu_and_filter_narrow_the_listing() {
    let text = stdout_of(&["catalog", "vms", "--filter", "_v5", "--min-vcpu", "64"]);
    let names: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("Standard_"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(!names.is_empty(), "{text}");
    assert!(names.iter().all(|n| n.ends_with("_v5")), "{names:?}");
    assert!(names.contains(&"Standard_E96s_v5"), "{names:?}");
    assert!(!names.contains(&"Standard_E48s_v5"), "{names:?}");
}

#[test]
fn json_lists_rows_with_their_tables() {
    let text = stdout_of(&["catalog", "vms", "--edition", "seed-2016", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["edition"], "seed-2016");
    let rows = value["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    let ds14 = rows.iter().find(|r| r["name"] == "Standard_DS14").unwrap();
    assert_eq!(ds14["uncached_iops"], 50000.0);
    assert!(ds14["cached_throughput_mb_s"].is_null());
    assert_eq!(value["tables"][0]["id"], "seed-2016-vms");
}

#[test]
fn netapp_and_tables_list() {
    let text = stdout_of(&["catalog", "netapp"]);
    assert!(text.contains("Premium") && text.contains("64"), "{text}");
    let text = stdout_of(&["catalog", "tables", "--edition", "seed-2016"]);
    assert!(
        text.contains("seed-2016-vms") && !text.contains("azure-vm-dsv5"),
        "{text}"
    );
    assert!(
        text.contains("1,548.00"),
        "the seed's total mismatch is noted: {text}"
    );
}

#[test]
fn tables_name_their_price_source_and_date() {
    let text = stdout_of(&["catalog", "tables", "--filter", "azure-provisioned-disks"]);
    assert!(text.contains("price date"), "{text}");
    assert!(text.contains("2026-08-11  2026-09-23"), "{text}");
    assert!(
        text.contains("    price source: Azure Retail Prices API data saved in"),
        "{text}"
    );
    assert!(text.contains("    price date: 2026-09-23"), "{text}");
    let text = stdout_of(&["catalog", "vms", "--filter", "DS14_v2"]);
    assert!(text.contains("    price date: 2026-09-23"), "{text}");
}

#[test]
fn disks_show_operations_prices_and_unrounded_rates() {
    let text = stdout_of(&["catalog", "disks", "--filter", "E4"]);
    let e4 = text.lines().find(|l| l.starts_with("E4 ")).expect(&text);
    let cells: Vec<&str> = e4.split_whitespace().collect();
    assert_eq!(
        cells[cells.len() - 3..],
        ["0.002", "256", "azure-standard-ssd"],
        "{text}"
    );
    let text = stdout_of(&["catalog", "disks", "--filter", "S4"]);
    let s4 = text.lines().find(|l| l.starts_with("S4 ")).expect(&text);
    assert!(s4.contains("0.0005  per IO"), "{text}");
    let text = stdout_of(&["catalog", "disks", "--filter", "ultra"]);
    let ultra = text
        .lines()
        .find(|l| l.contains("ultra_disk"))
        .expect(&text);
    assert!(
        ultra.contains("0.11972") && ultra.contains("0.04964") && ultra.contains("0.3495"),
        "{text}"
    );
}

#[test]
fn a_catalog_file_adds_and_overrides_rows() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    write!(
        file,
        r#"
[table]
id = "lab-2026"
edition = "current"
title = "our measurements"
source = "lab run 2026-01-05"
date = "2026-01-05"

[[vms]]
name = "Standard_E8s_v5"
family = "Esv5"
vcpu = 8
memory_gib = 64
max_data_disks = 16
premium_storage = true
uncached_iops = 12000
"#
    )
    .unwrap();
    let path = file.path().to_str().unwrap();
    let text = stdout_of(&["catalog", "vms", "--filter", "E8s_v5", "--catalog", path]);
    assert!(
        text.contains("12,000") && text.contains("lab-2026"),
        "{text}"
    );
    assert!(text.contains("source: lab run 2026-01-05"), "{text}");
}

#[test]
fn a_bad_catalog_file_exits_2_naming_file_row_and_field() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    write!(
        file,
        r#"[table]
id = "bad"
edition = "current"
title = "t"
source = "s"
date = "2026-01-01"

[[vms]]
name = "Standard_Z1"
family = "Z"
vcpu = 2
memory_gib = 8
max_data_disks = 4
premium_storage = true
uncached_iops = -1
"#
    )
    .unwrap();
    let path = file.path().to_str().unwrap().to_string();
    iofit()
        .args(["catalog", "vms", "--catalog", &path])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(format!(
            "{path}: line 15: vms[0] (Standard_Z1): field uncached_iops: expected a number >= 0"
        )))
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

#[test]
fn other_bad_inputs_exit_2() {
    let cases: [&[&str]; 4] = [
        &["catalog", "vms", "--catalog", "/nonexistent/catalog.toml"],
        &["catalog", "vms", "--edition", "2016"],
        &["catalog", "disks", "--min-vcpu", "4"],
        &["catalog", "everything"],
    ];
    for args in cases {
        iofit().args(args).assert().code(2);
    }
}
