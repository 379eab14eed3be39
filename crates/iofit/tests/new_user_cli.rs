//! What a new user meets first (issue 11): plans and predictions that do not overstate, and
//! the small command-line things that trip a newcomer. Each test runs the real binary.

use assert_cmd::Command;

fn iofit() -> Command {
    Command::cargo_bin("iofit").unwrap()
}

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let output = iofit().args(args).output().unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn an_impossible_design_says_so_first_and_exits_1() {
    let (code, stdout, _) = run(&["predict", "--vm", "Standard_D4s_v5", "--disk", "20xP30"]);
    assert_eq!(code, Some(1), "{stdout}");
    let first = stdout.lines().next().unwrap();
    assert!(
        first.starts_with("IMPOSSIBLE DESIGN: 20 data disks but Standard_D4s_v5 allows 8"),
        "{first}"
    );
    assert!(stdout.contains("(cannot be built)"), "{stdout}");
}

#[test]
fn a_buildable_design_without_targets_exits_0() {
    let (code, stdout, _) = run(&["predict", "--vm", "Standard_D4s_v5", "--disk", "2xP30"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(
        stdout.starts_with("iofit predict: Standard_D4s_v5"),
        "{stdout}"
    );
}

/// Standard_D4s_v5 publishes no cached limits: plan refuses ReadOnly there, and predict counts
/// the volume as uncached (the VM's 6,400 uncached IOPS bind), not a cache of any speed.
#[test]
fn predict_treats_an_unpublished_cache_as_plan_does() {
    let (code, stdout, _) = run(&[
        "predict",
        "--vm",
        "Standard_D4s_v5",
        "--disk",
        "2xP30:readonly",
    ]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("delivers:  6,400 IOPS"), "{stdout}");
    assert!(
        stdout.contains("by VM uncached IOPS (Standard_D4s_v5)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("whose cached limits are not published: predicted as uncached"),
        "{stdout}"
    );
}
