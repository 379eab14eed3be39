//! Runs every case of `tests/bad-input/design/`: each must exit 2 with one line on stderr that
//! names the problem, print nothing on stdout and never panic.

use assert_cmd::Command;
use std::path::PathBuf;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad-input/design")
}

#[test]
fn every_bad_input_is_one_line_and_exit_2() {
    let dir = corpus_dir()
        .canonicalize()
        .expect("corpus directory exists");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "case"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 15, "the corpus needs at least 15 cases");
    let mut failures = Vec::new();
    for case in &cases {
        let text = std::fs::read_to_string(case).unwrap();
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name))
                .map(|v| v.trim().replace("{dir}", &dir.display().to_string()))
                .unwrap_or_else(|| panic!("{}: no '{name}' line", case.display()))
        };
        let args = field("args:");
        let expect = field("expect:");
        let output = Command::cargo_bin("iofit")
            .unwrap()
            .args(args.split_whitespace())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let name = case.file_name().unwrap().to_string_lossy();
        if output.status.code() != Some(2) {
            failures.push(format!(
                "{name}: exit {:?}, stderr {stderr}",
                output.status.code()
            ));
        } else if stderr.contains("panicked") {
            failures.push(format!("{name}: panicked: {stderr}"));
        } else if lines.len() != 1 || !lines[0].starts_with("iofit: error:") {
            failures.push(format!("{name}: not one error line: {stderr:?}"));
        } else if !lines[0].contains(&expect) {
            failures.push(format!("{name}: '{}' lacks '{expect}'", lines[0]));
        } else if !stdout.is_empty() {
            failures.push(format!("{name}: wrote to stdout: {stdout}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
