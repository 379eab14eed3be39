//! `iofit profile CAPTURES... --fleet-out DIR` and `iofit plan --fleet DIR`: one server per
//! capture, a bad capture skipped with exit code 1, one table with totals as text, JSON, CSV
//! and HTML.

use iofit_testkit::{assert_exit, iofit};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

fn fleet_dir(dir: &Path) -> PathBuf {
    let captures = dir.join("captures");
    std::fs::create_dir_all(&captures).unwrap();
    std::fs::copy(
        data("iostat/sysstat-12.6.1_x_pretty_1s.txt"),
        captures.join("db01.txt"),
    )
    .unwrap();
    std::fs::copy(
        data("perfmon/typeperf_en-US_15s.csv"),
        captures.join("sql02.csv"),
    )
    .unwrap();
    std::fs::write(captures.join("web03.txt"), "Device tps\n").unwrap();
    captures
}

#[test]
fn fleet_profile_skips_the_bad_capture_and_plan_totals_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let captures = fleet_dir(dir.path());
    let req = dir.path().join("req");
    let output = iofit()
        .args(["profile"])
        .arg(&captures)
        .arg("--fleet-out")
        .arg(&req)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("skipped server web03:"), "{stderr}");
    assert!(
        !stderr.contains("profiling"),
        "no progress bar off a terminal: {stderr}"
    );
    assert!(req.join("db01.toml").exists() && req.join("sql02.toml").exists());
    assert!(!req.join("web03.toml").exists());

    let csv = dir.path().join("fleet.csv");
    let html = dir.path().join("fleet.html");
    let output = iofit()
        .args(["plan", "--fleet"])
        .arg(&req)
        .arg("--fleet-csv")
        .arg(&csv)
        .arg("--fleet-html")
        .arg(&html)
        .arg("--json")
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let plan: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows = plan["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["server"], "db01");
    let sum: f64 = rows
        .iter()
        .map(|r| r["price_per_month"].as_f64().unwrap())
        .sum();
    assert!((plan["total_price_per_month"].as_f64().unwrap() - sum).abs() < 1e-6);
    let volumes: u64 = rows.iter().map(|r| r["volumes"].as_u64().unwrap()).sum();
    assert_eq!(plan["total_volumes"].as_u64().unwrap(), volumes);
    for row in rows {
        // The planner keeps at least 10 % headroom under every limit.
        assert!(
            row["headroom_pct"].as_f64().unwrap() >= 10.0 - 1e-9,
            "{row}"
        );
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[1].starts_with("db01,2,"), "{text}");
    assert!(
        lines[3].starts_with(&format!("TOTAL,{volumes},,,{sum:.2},")),
        "{text}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<td>sql02</td>") && page.contains(&format!("{sum:.2}")));
}
