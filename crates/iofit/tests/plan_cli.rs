//! `iofit plan` end to end: the seed's cost example (text and JSON snapshots on the seed
//! edition), the example requirements round trip, the NetApp option and impossible requirements.

use assert_cmd::Command;

fn iofit() -> Command {
    Command::cargo_bin("iofit").unwrap()
}

const SEED_ARGS: &[&str] = &[
    "plan",
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
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
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
         uncached_iops = 25600\nuncached_throughput_mb_s = 256\nprice_usd_month = 500.0\n",
    )
    .unwrap();
    let output = iofit()
        .args(SEED_ARGS)
        .arg("--catalog")
        .arg(&path)
        .arg("--json")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = &value["plan"]["designs"][0];
    assert_eq!(first["vm"], "Standard_DS4");
    let total = first["total_usd_month"].as_f64().unwrap();
    let parts = first["vm_price_usd_month"].as_f64().unwrap()
        + first["disks_price_usd_month"].as_f64().unwrap();
    // serde_json's default float parsing may be off by one ulp; the total is the exact sum.
    assert!((total - parts).abs() < 1e-9, "{total} vs {parts}");
}
