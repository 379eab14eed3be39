//! `iofit plan` with the catalog's prices and rules on the command line: regions (an unknown
//! one is an error naming the nearest), Windows prices, reservations that are not sourced
//! (a clear error), the fleet plan keeping the notes on missing prices.

use iofit_testkit::{assert_exit, iofit};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(name)
}

fn plan(args: &[&str]) -> std::process::Output {
    iofit()
        .args(["plan", "--iops", "5000", "--capacity-gib", "200"])
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn an_unknown_region_is_an_error_naming_the_nearest() {
    let output = plan(&["--region", "westeu"]);
    assert_exit(&output, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown region 'westeu'; did you mean westeurope?"),
        "{stderr}"
    );
}

#[test]
fn windows_prices_rank_westeurope_and_unsourced_reservations_say_what_is_missing() {
    let linux = plan(&["--region", "westeurope"]);
    assert_exit(&linux, 0);
    let windows = plan(&["--region", "westeurope", "--os", "windows"]);
    assert_exit(&windows, 0);
    let text = String::from_utf8_lossy(&windows.stdout);
    assert!(text.contains("@ westeurope payg windows"), "{text}");
    // The licence makes the cheapest design dearer than on Linux.
    let first_total = |out: &std::process::Output| -> f64 {
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let line = text
            .lines()
            .find(|l| l.starts_with("#1 "))
            .unwrap()
            .to_string();
        let dollars = line.split('$').nth(1).unwrap().split('/').next().unwrap();
        dollars.replace(',', "").parse().unwrap()
    };
    assert!(first_total(&windows) > first_total(&linux));

    let reserved = plan(&["--region", "westeurope", "--pricing", "ri-3y"]);
    assert_exit(&reserved, 2);
    let stderr = String::from_utf8_lossy(&reserved.stderr);
    assert!(
        stderr.contains("no 3-year reservation linux price of any VM size in westeurope"),
        "{stderr}"
    );
    assert!(stderr.contains("payg linux, payg windows"), "{stderr}");
}

#[test]
fn the_fleet_plan_keeps_the_notes_on_missing_prices() {
    let dir = tempfile::tempdir().unwrap();
    let captures = dir.path().join("captures");
    std::fs::create_dir_all(&captures).unwrap();
    std::fs::copy(
        data("iostat/sysstat-12.6.1_x_pretty_1s.txt"),
        captures.join("db01.txt"),
    )
    .unwrap();
    let req = dir.path().join("req");
    let output = iofit()
        .arg("profile")
        .arg(&captures)
        .arg("--fleet-out")
        .arg(&req)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let output = iofit()
        .args(["plan", "--fleet"])
        .arg(&req)
        .args(["--region", "westeurope"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("notes:"), "{text}");
    assert!(
        text.contains("prices: pay-as-you-go in westeurope"),
        "{text}"
    );
    assert!(
        text.contains("price missing: NetApp Standard, NetApp Premium, NetApp Ultra"),
        "{text}"
    );
    // The JSON document carries the same notes and names the currency of its costs.
    let output = iofit()
        .args(["plan", "--fleet"])
        .arg(&req)
        .args(["--region", "westeurope", "--json"])
        .output()
        .unwrap();
    assert_exit(&output, 0);
    let fleet: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(fleet["currency"], "USD");
    let notes: Vec<&str> = fleet["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n.as_str())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("prices: pay-as-you-go in westeurope")),
        "{notes:?}"
    );
}
