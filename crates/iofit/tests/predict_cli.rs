//! `iofit predict` end to end: the seed's DS14 benchmark layout and worked examples, with text
//! and JSON snapshots (seed edition, fixed inputs: stable).

use iofit_testkit::{assert_exit, iofit};
use std::io::Write;

const DS14_ARGS: &[&str] = &[
    "predict",
    "--vm",
    "Standard_DS14",
    "--disk",
    "10xP30:none",
    "--disk",
    "1xP30:readonly",
    "--stripe",
    "64k",
    "--rw",
    "randread",
    "--bs",
    "8k",
    "--iodepth",
    "32",
    "--numjobs",
    "4",
    "--edition",
    "seed-2016",
];

#[test]
fn ds14_text_snapshot() {
    let output = iofit().args(DS14_ARGS).output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("binding:"));
    insta::assert_snapshot!("predict_ds14_text", text);
}

#[test]
fn ds14_json_snapshot_is_only_json() {
    let output = iofit().args(DS14_ARGS).arg("--json").output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    assert_eq!(value["prediction"]["binding"]["kind"], "vm_uncached_iops");
    // The cached volume runs flat out into DS14's unpublished cached MB/s: its rates and the
    // total are unknown (null), never the 114,000 IOPS the published limits alone allow.
    assert!(value["prediction"]["total_iops"].is_null());
    assert_eq!(value["prediction"]["volumes"][0]["iops"], 50000.0);
    insta::assert_json_snapshot!("predict_ds14_json", value);
}

fn requirements_file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file
}

#[test]
fn four_thousand_iops_on_ds1_is_capped_at_3200_by_the_vm() {
    let file = requirements_file(
        "[[volumes]]\nlabel = \"data\"\n[volumes.sizing]\niops = 4000.0\nthroughput_mb_s = 0.0\n\
         io_size_bytes = 8192\nread_pct = 100.0\n",
    );
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "ds1",
            "--disk",
            "1xP30",
            "--edition",
            "seed-2016",
        ])
        .arg("--requirements")
        .arg(file.path())
        .output()
        .unwrap();
    // The requirements are not met: exit 1, with the binding limit in words.
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("capped at 3,200 IOPS by VM uncached IOPS (Standard_DS1)"),
        "{text}"
    );
    assert!(text.contains("DOES NOT meet"));
}

#[test]
fn two_hundred_fifty_mb_s_on_ds4_advises_more_disks_or_p40_p50() {
    let file = requirements_file(
        "[[volumes]]\nlabel = \"dw\"\n[volumes.sizing]\niops = 0.0\nthroughput_mb_s = 250.0\n\
         io_size_bytes = 1048576\nread_pct = 100.0\nrandom_pct = 0.0\n",
    );
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "Standard_DS4",
            "--disk",
            "1xP30",
            "--edition",
            "seed-2016",
            "--json",
        ])
        .arg("--requirements")
        .arg(file.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let prediction = &value["prediction"];
    assert_eq!(prediction["binding"]["kind"], "disk_throughput");
    assert_eq!(prediction["total_throughput_mb_s"], 200.0);
    let advice = prediction["advice"].to_string();
    assert!(
        advice.contains("2 x P30 striped") && advice.contains("P40") && advice.contains("P50"),
        "{advice}"
    );
}

#[test]
fn io_size_table_says_the_seed_counts_1024() {
    for (bs, iops) in [
        ("8k", "5,000"),
        ("1024k", "200"),
        ("64k", "3,200"),
        ("32k", "5,000"),
    ] {
        let output = iofit()
            .args([
                "predict",
                "--vm",
                "DS14",
                "--disk",
                "P30",
                "--bs",
                bs,
                "--iodepth",
                "64",
                "--edition",
                "seed-2016",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(
            text.contains(&format!("delivers:  {iops} IOPS")),
            "{bs}: {text}"
        );
        assert!(text.contains("1 MB = 1024 KB"));
    }
}

#[test]
fn qd_2_on_a_4_disk_stripe_is_flagged_in_text() {
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "DS14",
            "--disk",
            "4xP30",
            "--stripe",
            "64k",
            "--iodepth",
            "2",
            "--edition",
            "seed-2016",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("leaves 2 idle"), "{text}");
    assert!(text.contains("run at least 4 outstanding IOs"), "{text}");
}

#[test]
fn closed_pipe_does_not_panic() {
    // `iofit predict ... | head -1`: stdout closes early; no panic message.
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "{} {} | head -1",
            assert_cmd::cargo::cargo_bin("iofit").display(),
            DS14_ARGS.join(" ")
        ))
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
}

#[test]
fn ds14_seed_benchmark_per_volume_patterns() {
    // fiowrite.ini on the uncached stripe and fioread.ini on the cached disk, at once:
    // 4 jobs x iodepth 256, bs 8k.
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "Standard_DS14",
            "--disk",
            "10xP30:none",
            "--disk",
            "1xP30:readonly",
            "--stripe",
            "64k",
            "--rw",
            "randwrite",
            "--rw",
            "randread",
            "--bs",
            "8k",
            "--iodepth",
            "256",
            "--numjobs",
            "4",
            "--edition",
            "seed-2016",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let volumes = value["prediction"]["volumes"].as_array().unwrap();
    assert_eq!(volumes[0]["write_iops"], 50000.0);
    // The cached volume runs into DS14's unpublished cached MB/s: unknown, not 64,000.
    assert!(volumes[1]["cache_read_iops"].is_null());
    assert!(value["prediction"]["total_iops"].is_null());
}

/// `--report` on predict: one self-contained HTML file naming the binding limit.
#[test]
fn predict_report_names_the_binding_limit_and_loads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("predict.html");
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "Standard_DS1",
            "--disk",
            "1xP30:none",
            "--rw",
            "randwrite",
            "--edition",
            "seed-2016",
            "--json",
            "--report",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let binding = value["prediction"]["binding"]["name"].as_str().unwrap();
    assert_eq!(binding, "VM uncached IOPS (Standard_DS1)");
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains(binding));
    assert!(html.contains("binding"));
    let lower = html.to_ascii_lowercase();
    for pattern in [
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
        "<script",
        "<link",
    ] {
        assert!(!lower.contains(pattern), "{pattern}");
    }
}

/// Standard SSD is 'up to' with single-digit millisecond latency: predict takes the 10 ms bound
/// (Azure's wording, sourced) unless --service-latency-ms says otherwise.
#[test]
fn standard_ssd_latency_is_azures_single_digit_bound_unless_overridden() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let output = iofit()
            .args([
                "predict",
                "--vm",
                "Standard_D4s_v5",
                "--disk",
                "1xE30:none",
                "--rw",
                "randread",
                "--iodepth",
                "1",
                "--json",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let value = run(&[]);
    let volume = &value["prediction"]["volumes"][0];
    assert_eq!(volume["latency_ms"], 10.0);
    // QD 1 at 10 ms: 100 IOPS by Little's law.
    assert_eq!(volume["iops"], 100.0);
    assert!(
        value["prediction"]["assumptions"]["standard_ssd_latency_source"]
            .as_str()
            .unwrap()
            .contains("single-digit millisecond")
    );
    let value = run(&["--service-latency-ms", "2"]);
    assert_eq!(value["prediction"]["volumes"][0]["latency_ms"], 2.0);
}

#[test]
fn each_provisioned_volume_says_what_it_bought_and_spec_figures_win_over_the_flags() {
    // Two Premium SSD v2 volumes bought differently on one VM, the second from the flags with
    // its IOPS from the spec: each volume delivers what it bought (QD 64 at 1 ms would ask for
    // 64,000 IOPS, so the disk binds).
    let output = iofit()
        .args(["predict", "--vm", "Standard_D16s_v5", "--json"])
        .args(["--disk", "data=1xPremiumV2,size_gib=64,iops=4000,mb_s=150"])
        .args(["--disk", "log=1xPremiumV2,iops=5000"])
        .args([
            "--provisioned-size-gib",
            "128",
            "--provisioned-iops",
            "3000",
        ])
        .args(["--provisioned-mb-s", "200"])
        .args(["--rw", "randread", "--bs", "4k", "--iodepth", "64"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let volumes = doc["prediction"]["volumes"].as_array().unwrap();
    let delivered: Vec<(&str, f64)> = volumes
        .iter()
        .map(|v| (v["label"].as_str().unwrap(), v["iops"].as_f64().unwrap()))
        .collect();
    assert_eq!(delivered, [("data", 4000.0), ("log", 5000.0)], "{doc}");
    // A provisioned volume with nothing bought is bad input that names both ways to say it.
    let output = iofit()
        .args(["predict", "--vm", "Standard_D16s_v5", "--disk", "1xUltra"])
        .args(["--rw", "randread", "--bs", "4k", "--iodepth", "8"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--disk '1xUltra'") && stderr.contains("--provisioned-iops"),
        "{stderr}"
    );
}

/// With a price in the catalog, predict says what the design costs a month, VM and disks apart,
/// and on what basis; JSON carries the same figures.
#[test]
fn predict_prints_the_cost_when_it_has_a_price() {
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "Standard_D8s_v5",
            "--disk",
            "4xP30:readonly",
            "--rw",
            "randrw",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let cost = &value["cost"];
    let vm = cost["vm_price_per_month"].as_f64().unwrap();
    let disks = cost["disks_price_per_month"].as_f64().unwrap();
    assert!(vm > 0.0 && disks > 0.0, "{cost}");
    assert!((cost["total_price_per_month"].as_f64().unwrap() - (vm + disks)).abs() < 1e-9);
    let basis = cost["basis"].as_str().unwrap();
    assert!(
        basis.contains("USD") && basis.contains("pay-as-you-go"),
        "{basis}"
    );
    let text = iofit()
        .args([
            "predict",
            "--vm",
            "Standard_D8s_v5",
            "--disk",
            "4xP30:readonly",
            "--rw",
            "randrw",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("cost: $")).unwrap();
    assert!(
        line.contains("a month = VM $") && line.contains(" + disks $"),
        "{line}"
    );
}
