//! `iofit profile` on Azure Monitor metrics (tests/data/azure, written from the documented
//! Metrics REST response; see tests/data/README.md): requirements, a "throttled by" verdict
//! that agrees with `iofit predict` for the VM and disks the metrics came from, and a plan whose
//! cheapest design removes the limit.

use iofit_testkit::iofit;
use std::path::PathBuf;

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/azure")
        .join(name)
        .display()
        .to_string()
}

fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn verdict_agrees_with_predict_and_plan_removes_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("req.toml");
    let output = iofit()
        .args([
            "profile",
            &data("az-monitor-metrics-list_D2s_v5_PT1M.json"),
            "-o",
        ])
        .arg(&req)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    // 18 of the 60 one-minute averages are at 100 % of the VM's uncached IOPS.
    assert!(
        stdout.contains("throttled by VM uncached IOPS (VM): at >= 95 % of the limit in 18 of 60 intervals (30.0 % of the time)"),
        "{stdout}"
    );

    // The VM and disks the metrics came from: Standard_D2s_v5 with the OS disk (P10), LUN 0
    // (P30) and LUN 1 (P10), in the requirements' volume order os, lun0, lun1.
    let output = iofit()
        .args([
            "predict",
            "--vm",
            "Standard_D2s_v5",
            "--disk",
            "1xP10:none",
            "--disk",
            "1xP30:none",
            "--disk",
            "1xP10:none",
            "--rw",
            "randrw",
            "--json",
            "--requirements",
        ])
        .arg(&req)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "the current design does not meet the need"
    );
    let prediction = &json(&output)["prediction"];
    assert_eq!(prediction["binding"]["kind"], "vm_uncached_iops");
    assert_eq!(prediction["binding"]["limit"], 3750.0);

    let output = iofit()
        .args(["plan", "--json", "--requirements"])
        .arg(&req)
        .output()
        .unwrap();
    assert!(output.status.success());
    let plan = json(&output);
    let best = &plan["plan"]["designs"][0];
    let limits = best["prediction"]["limits"].as_array().unwrap();
    let vm_iops = limits
        .iter()
        .find(|l| l["kind"] == "vm_uncached_iops")
        .expect("the chosen VM publishes uncached IOPS");
    let limit = vm_iops["limit"].as_f64().unwrap();
    // The sized IOPS of the three volumes (39 + 4238 + 598) exceed 3,750: the cheapest design
    // has a larger uncached IOPS limit, with the load under it.
    assert!(limit > 3750.0, "{limit}");
    assert!(vm_iops["used"].as_f64().unwrap() <= limit);
    assert!(best["prediction"]["violations"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn rest_json_cli_json_and_explorer_csv_give_the_same_requirements() {
    let mut texts = Vec::new();
    for name in [
        "az-monitor-metrics-list_D2s_v5_PT1M.json",
        "metrics-rest-api_D2s_v5_PT1M.json",
        "metrics-explorer_D2s_v5_PT1M.csv",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let req = dir.path().join("req.toml");
        let output = iofit()
            .args(["profile", &data(name), "-o"])
            .arg(&req)
            .output()
            .unwrap();
        assert!(output.status.success(), "{name}");
        let text = std::fs::read_to_string(&req).unwrap();
        // Drop the lines naming the source file.
        let body: Vec<&str> = text.lines().filter(|l| !l.contains(name)).collect();
        texts.push(body.join("\n"));
    }
    assert_eq!(texts[0], texts[1]);
    assert_eq!(texts[0], texts[2]);
}

#[test]
fn metrics_without_disk_operations_exit_2_with_the_az_command() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cpu.json");
    std::fs::write(
        &file,
        r#"{"interval": "PT1M", "value": [{"name": {"value": "Percentage CPU"}, "timeseries": [{"metadatavalues": [], "data": [{"timeStamp": "2026-11-20T00:00:00Z", "average": 3.5}]}]}]}"#,
    )
    .unwrap();
    let output = iofit().arg("profile").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no Data Disk or OS Disk Read/Write Operations/Sec")
            && stderr.contains("az monitor metrics list --resource"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

/// The shape today's `az monitor metrics list --output json` prints (the CLI's AAZ command,
/// azure-cli `monitor/aaz/latest/monitor/metrics/_list.py`: the REST names, keys sorted,
/// `"cost"` an integer, `"interval": "PT5M"` as returned, `...Z` stamps, an aggregation left out
/// where Azure has no value): several metrics, per-LUN series, a 5-minute time grain, the last
/// (still open) interval without values, a gap in one LUN and a metric with no points at all.
#[test]
fn az_cli_shape_with_a_time_grain_and_missing_points() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("req.toml");
    let output = iofit()
        .args([
            "profile",
            &data("az-monitor-metrics-list_aaz_D4s_v5_PT5M.json"),
            "-o",
        ])
        .arg(&req)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    // 11 five-minute intervals with values (00:00..00:50); 00:55 has none.
    assert!(stdout.contains("(11 reports)"), "{stdout}");
    assert!(
        stderr.contains("no values for Data Disk Queue Depth"),
        "{stderr}"
    );
    // 15 series miss 00:55; LUN 1's reads (operations and bytes) also miss 00:25.
    assert!(stderr.contains("16 points without a value"), "{stderr}");
    // VM uncached IOPS averages 50 + 5k %: 95 and 100 at the last two of 11 intervals.
    assert!(
        stdout.contains("throttled by VM uncached IOPS (VM): at >= 95 % of the limit in 2 of 11 intervals (18.2 % of the time)"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(&req).unwrap();
    let requirements: iofit_model::requirements::Requirements = toml::from_str(&text).unwrap();
    let sized: Vec<(&str, f64, u64)> = requirements
        .volumes
        .iter()
        .map(|v| {
            (
                v.label.as_str(),
                v.sizing.iops.get(),
                v.observed.as_ref().unwrap().samples,
            )
        })
        .collect();
    // os: 10 + 20 IOPS; lun0: 1500 + 100k, p95 of 11 = 2500; lun1: 200 + 50k without k = 5,
    // p95 of 10 = 700; each x comfort 1.3.
    assert_eq!(
        sized,
        [("os", 39.0, 11), ("lun0", 3250.0, 11), ("lun1", 910.0, 10)]
    );
    assert_eq!(
        requirements.volumes[2].sizing.io_size_bytes,
        iofit_model::Bytes(65536)
    );
    // Percentage CPU 30 + k: p50 of 30..40 = 35.
    assert_eq!(requirements.host.cpu_pct.unwrap().p50, 35.0);
}

/// A value no disk reports (negative IOPS) is refused with the file, the line and the metric.
#[test]
fn impossible_azure_values_name_the_line() {
    let text = std::fs::read_to_string(data("az-monitor-metrics-list_aaz_D4s_v5_PT5M.json"))
        .unwrap()
        .replacen("\"average\": 1300.0", "\"average\": -1300.0", 1);
    let line = text
        .lines()
        .position(|l| l.contains("-1300.0"))
        .map(|i| i + 2) // its timeStamp is on the next line
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.json");
    std::fs::write(&file, text).unwrap();
    let output = iofit().arg("profile").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "bad.json:{line}, column 'Data Disk Read Operations/Sec': -1300 at 2026-11-20T00:15:00Z is negative"
        )),
        "{stderr}"
    );
}

/// Two exports of different time grains (PT1M, PT5M) are read together, with a note that
/// their percentiles mix one-minute and five-minute averages.
#[test]
fn time_grains_of_two_files_are_named() {
    let output = iofit()
        .args([
            "profile",
            &data("az-monitor-metrics-list_D2s_v5_PT1M.json"),
            &data("az-monitor-metrics-list_aaz_D4s_v5_PT5M.json"),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // 60 one-minute reports and 11 five-minute ones.
    assert!(stdout.contains("(71 reports)"), "{stdout}");
    assert!(
        stderr.contains("az-monitor-metrics-list_aaz_D4s_v5_PT5M.json is sampled every 300 s, the files before it every 60 s"),
        "{stderr}"
    );
}
