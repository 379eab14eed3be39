//! `iofit demo`: the loop on embedded defaults runs and reads as a report, step by step.

use assert_cmd::Command;

#[test]
fn demo_runs_every_step() {
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .arg("demo")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).unwrap();
    for heading in ["step 1: requirements", "step 2: plan", "step 3: prediction"] {
        assert!(text.contains(heading), "missing {heading}");
    }
    assert!(text.contains("data (data): 16,000 IOPS"));
    assert!(text.contains("log (log): 1,500 IOPS"));
    assert!(text.contains("#1  "));
    assert!(text.contains("binding:"));
}

#[test]
fn demo_on_the_seed_edition_snapshot() {
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(["demo", "--edition", "seed-2016"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    insta::assert_snapshot!("demo_seed_text", String::from_utf8(output.stdout).unwrap());
}

#[test]
fn demo_json_is_only_json() {
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(["demo", "--json"])
        .output()
        .unwrap();
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(value["plan"]["designs"]
        .as_array()
        .is_some_and(|d| !d.is_empty()));
    assert!(value["prediction"]["binding"].is_object());
}
