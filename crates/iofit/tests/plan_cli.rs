//! `iofit plan` end to end: the seed's cost example (text and JSON snapshots on the seed
//! edition), the example requirements round trip, the NetApp option and impossible requirements.

use iofit_testkit::iofit;
use iofit_testkit::{assert_exit, assert_self_contained};

/// The seed's cost example is a strict fit (32 x S30 give exactly 16,000 IOPS, 0% headroom),
/// so it runs with the headroom rule off (`--min-headroom-pct 0`); the default keeps 10%.
const SEED_ARGS: &[&str] = &[
    "plan",
    "--min-headroom-pct",
    "0",
    "--iops",
    "16000",
    "--read-pct",
    "70",
    "--io-size",
    "8k",
    "--edition",
    "seed-2016",
    "--top",
    "3",
];

#[test]
fn seed_cost_example_text_snapshot() {
    let output = iofit().args(SEED_ARGS).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let ds13 = text.find("#1  Standard_DS13  $1,548.00/month = VM $1,003.66 + disks $544.34");
    let d14 = text.find("#2  Standard_D14  $3,208.98/month = VM $1,570.58 + disks $1,638.40");
    // The seed sources no operations charge for its standard disks: incomplete, never free.
    assert!(
        text.contains("disks $1,638.40; disk operations charge not sourced (cost incomplete)"),
        "{text}"
    );
    assert!(ds13.is_some() && d14.is_some() && ds13 < d14, "{text}");
    assert!(text.contains("the seed prints 1544.34 $"), "{text}");
    insta::assert_snapshot!("plan_seed_text", text);
}

#[test]
fn seed_cost_example_json_snapshot() {
    let output = iofit().args(SEED_ARGS).arg("--json").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("only JSON");
    let first = &value["plan"]["designs"][0];
    assert_eq!(first["vm"], "Standard_DS13");
    assert_eq!(first["volumes"][0]["disk_count"], 4);
    insta::assert_json_snapshot!("plan_seed_json", value);
}

#[test]
fn example_requirements_read_back() {
    let output = iofit()
        .args(["plan", "--example-requirements"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("req.toml");
    std::fs::write(&path, &output.stdout).unwrap();
    let output = iofit()
        .args(["plan", "--json", "--growth", "1.3", "--requirements"])
        .arg(&path)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        value["requirements"]["volumes"].as_array().unwrap().len(),
        2
    );
    assert_eq!(value["requirements"]["growth_factor"], 1.3);
    // 16,000 x 1.3 IOPS on the data volume.
    assert_eq!(
        value["requirements"]["volumes"][0]["sizing"]["iops"],
        16000.0 * 1.3
    );
    let designs = value["plan"]["designs"].as_array().unwrap();
    assert!(!designs.is_empty());
    for design in designs {
        let log = design["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["label"] == "log")
            .unwrap();
        assert_eq!(log["caching"], "None");
    }
}

#[test]
fn netapp_option_for_4500_mib_s_is_premium_70_31_tib() {
    // 4,500 MiB/s = 4,718.592 MB/s (10^6 B).
    let output = iofit()
        .args([
            "plan",
            "--throughput-mb-s",
            "4718.592",
            "--io-size",
            "64k",
            "--random-pct",
            "0",
            "--json",
        ])
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let premium = value["plan"]["netapp"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["level"] == "Premium")
        .unwrap()
        .clone();
    let quota = premium["quota_tib"].as_f64().unwrap();
    assert_eq!(format!("{quota:.2}"), "70.31");
}

#[test]
fn impossible_requirements_say_which_limit() {
    let output = iofit()
        .args(["plan", "--iops", "50000000"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("NO DESIGN meets the requirements"), "{text}");
    assert!(text.contains("largest VM in the catalog"), "{text}");
}

#[test]
fn full_catalog_plan_is_fast_enough_in_a_debug_build() {
    // The release goal (< 50 ms) is measured by bench/plan.sh; here only a sanity bound.
    let start = std::time::Instant::now();
    let output = iofit()
        .args([
            "plan",
            "--iops",
            "16000",
            "--throughput-mb-s",
            "300",
            "--latency-ms",
            "5",
            "--capacity-gib",
            "2000",
            "--read-pct",
            "70",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(start.elapsed().as_secs_f64() < 5.0);
}

#[test]
fn catalog_file_overrides_a_row() {
    // Give Standard_DS4 a price: DS4 + 4 x P30 then beats DS13 + 4 x P30.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("prices.toml");
    std::fs::write(
        &path,
        "[table]\nid = \"test-prices\"\nedition = \"seed-2016\"\ntitle = \"test override\"\n\
         source = \"iofit plan_cli test\"\ndate = \"2026-11-22\"\n\n[[vms]]\nname = \"Standard_DS4\"\n\
         family = \"DS\"\nvcpu = 8\nmemory_gib = 28\nmax_data_disks = 16\npremium_storage = true\n\
         uncached_iops = 25600\nuncached_throughput_mb_s = 256\nprice_per_month = 500.0\n",
    )
    .unwrap();
    let output = iofit()
        .args(SEED_ARGS)
        .arg("--catalog")
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = &value["plan"]["designs"][0];
    assert_eq!(first["vm"], "Standard_DS4");
    let total = first["total_price_per_month"].as_f64().unwrap();
    let parts = first["vm_price_per_month"].as_f64().unwrap()
        + first["disks_price_per_month"].as_f64().unwrap();
    // serde_json's default float parsing may be off by one ulp; the total is the exact sum.
    assert!((total - parts).abs() < 1e-9, "{total} vs {parts}");
}

/// The demanding user's command: the #1 design must not sit at 0% headroom on a sized limit,
/// and Standard SSD/HDD designs carry their operations charge in the total.
#[test]
fn demanding_plan_keeps_headroom_and_charges_operations() {
    let output = iofit()
        .args([
            "plan",
            "--iops",
            "16000",
            "--throughput-mb-s",
            "300",
            "--latency-ms",
            "5",
            "--capacity-gib",
            "2000",
            "--read-pct",
            "70",
            "--io-size",
            "8k",
            "--top",
            "10",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let plan = &value["plan"];
    assert_eq!(plan["min_headroom_pct"], 10.0);
    assert_eq!(plan["busy_hours_per_month"], 730.0);
    let sized = [
        "vm_uncached_iops",
        "vm_uncached_throughput",
        "vm_cached_iops",
        "vm_cached_throughput",
        "volume_iops",
        "volume_throughput",
        "disk_iops",
        "disk_throughput",
        "vm_data_disks",
    ];
    for design in plan["designs"].as_array().unwrap() {
        for check in design["prediction"]["limits"].as_array().unwrap() {
            let kind = check["kind"].as_str().unwrap();
            if let (true, Some(pct)) = (sized.contains(&kind), check["headroom_pct"].as_f64()) {
                assert!(pct >= 10.0 - 1e-6, "{} {check}", design["vm"]);
            }
        }
        // total = VM + disks + operations, and a design whose operations charge is not
        // sourced says so.
        let vm = design["vm_price_per_month"].as_f64().unwrap();
        let disks = design["disks_price_per_month"].as_f64().unwrap();
        let total = design["total_price_per_month"].as_f64().unwrap();
        match design["operations_price_per_month"].as_f64() {
            Some(ops) => assert!((total - (vm + disks + ops)).abs() < 1e-6),
            None => assert_eq!(design["cost_complete"], false),
        }
    }
    let first = &plan["designs"][0];
    assert_ne!(first["vm"], "Standard_F16s_v2", "{first}");
    // The 5 ms latency target rules out Standard SSD (Azure: 'single-digit millisecond').
    assert!(plan["designs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["volumes"][0]["disk"]["kind"] != "standard_ssd"));
}

/// With the strict fit and no latency target, a VM without premium storage (Standard_D14)
/// must use standard disks; its design carries the operations charge at the sized IOPS for the
/// busy hours given.
#[test]
fn standard_disk_designs_carry_their_operations_charge() {
    let output = iofit()
        .args([
            "plan",
            "--iops",
            "16000",
            "--read-pct",
            "70",
            "--io-size",
            "8k",
            "--min-headroom-pct",
            "0",
            "--busy-hours-per-month",
            "200",
            "--top",
            "500",
            "--json",
            // Standard_D14 is a D-series size Azure retires in 2028: kept on purpose.
            "--include-retiring",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let designs = value["plan"]["designs"].as_array().unwrap();
    let d14 = designs
        .iter()
        .find(|d| d["vm"] == "Standard_D14")
        .expect("Standard_D14 in the top 500");
    let volume = &d14["volumes"][0];
    assert_eq!(volume["disk"]["kind"], "standard_hdd");
    // 16,000 IOPS, cold cache: every IO one operation (eastus HDD), 200 h a month, $0.0005
    // per 10,000 operations.
    let operations = 16000.0 * 3600.0 * 200.0;
    assert_eq!(volume["operations_per_month"].as_f64().unwrap(), operations);
    let charge = volume["operations_price_per_month"].as_f64().unwrap();
    assert!(
        (charge - operations / 1e4 * 0.0005).abs() < 1e-6,
        "{charge}"
    );
    assert!((charge - 576.0).abs() < 1e-6);
    assert_eq!(d14["cost_complete"], true);
    assert!(volume["performance_note"]
        .as_str()
        .unwrap()
        .contains("Standard HDD performance is 'up to'"));
}

#[test]
fn derived_throughput_is_printed_and_said_to_be_derived() {
    let output = iofit()
        .args(["plan", "--iops", "16000", "--io-size", "8k", "--top", "1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    // 16,000 x 8,192 B = 131.072 MB/s (MB = 10^6 B).
    assert!(
        text.contains("16,000 IOPS, 131.1 MB/s derived (IOPS x IO size), 8 KiB IO"),
        "{text}"
    );
    assert!(!text.contains(" 0 MB/s"), "{text}");
}

/// The HTML report: one file, the binding limit named, nothing loaded from the network.
#[test]
fn plan_report_is_one_self_contained_html_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plan.html");
    let output = iofit()
        .args([
            "plan",
            "--iops",
            "16000",
            "--throughput-mb-s",
            "300",
            "--latency-ms",
            "5",
            "--capacity-gib",
            "2000",
            "--read-pct",
            "70",
            "--json",
            "--report",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let binding = value["plan"]["designs"][0]["prediction"]["binding"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(&iofit_report_escape(&binding)), "{binding}");
    assert!(html.contains("binding"));
    assert!(html.contains("Designs, cheapest first"));
    assert_self_contained(&html);
    // Only the report is left in the directory (the temporary file was renamed).
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
    // Markdown on request.
    let md = dir.path().join("plan.md");
    let output = iofit()
        .args([
            "plan", "--iops", "16000", "--format", "markdown", "--report",
        ])
        .arg(&md)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.starts_with("# iofit plan"), "{text}");
}

#[test]
fn report_and_headroom_flags_reject_bad_values() {
    for (args, needle) in [
        (vec!["--min-headroom-pct", "100"], "--min-headroom-pct 100"),
        (vec!["--min-headroom-pct", "-5"], "--min-headroom-pct -5"),
        (
            vec!["--busy-hours-per-month", "0"],
            "--busy-hours-per-month 0",
        ),
        (
            vec!["--busy-hours-per-month", "800"],
            "--busy-hours-per-month 800",
        ),
        (
            vec!["--format", "pdf", "--report", "x.pdf"],
            "--report-format 'pdf'",
        ),
        (vec!["--format", "markdown"], "give --report too"),
    ] {
        let output = iofit()
            .args(["plan", "--iops", "1000"])
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

/// HTML-escapes like the report does (names may hold quotes or ampersands).
fn iofit_report_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}
