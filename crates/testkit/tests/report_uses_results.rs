//! `report` renders results; it does not compute them. It may depend on `model` and `stats`
//! for anything, and on the crates that produce results (catalog, predict, planner, verdict,
//! fleet, emulate; `report_no_io.rs` keeps out those that do IO, catalog and fleet among them)
//! for their result types only: their structs, enums and constants,
//! and the methods those types carry. It never calls a free function of theirs (a sizing rule,
//! a parser, a timeline reader): what a report shows was decided before it was handed over,
//! so a second renderer cannot decide it differently.
//!
//! Checked here on the source, test modules left out:
//! - report's `[dependencies]` name no workspace crate outside that list (no engine, jobfile,
//!   procedure, safefs, remote, fswork, blockdata, nor profile, whose timeline points and
//!   derivation words report takes from `model`);
//! - no path `iofit_<producer>::...::lower_case(` (a free function call) and no free function
//!   imported by `use` from a producer and then called.

use std::path::{Path, PathBuf};

/// Workspace crates report may use without restriction.
const FREE: &[&str] = &["iofit-model", "iofit-stats"];
/// Workspace crates report may use for their result types only.
const PRODUCERS: &[&str] = &[
    "iofit-catalog",
    "iofit-predict",
    "iofit-planner",
    "iofit-verdict",
    "iofit-fleet",
    "iofit-emulate",
];

fn report_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../report")
}

/// The `iofit-*` names in the `[dependencies]` table of a Cargo.toml.
fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let mut in_dependencies = false;
    let mut names = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies && line.starts_with("iofit-") {
            let name = line.split(['.', '=', ' ']).next().unwrap_or_default();
            names.push(name.to_string());
        }
    }
    names
}

/// The file's code before its test module (report keeps tests in one `mod tests` at the end),
/// without comment lines (doc examples may call anything).
fn library_part(text: &str) -> String {
    let code = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_function_name(segment: &str) -> bool {
    segment
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && segment
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Free functions of producers called in `code`: `iofit_x::a::f(`, or `f(` after `use iofit_x::a::f;`.
fn producer_calls(code: &str) -> Vec<String> {
    let crates: Vec<String> = PRODUCERS.iter().map(|c| c.replace('-', "_")).collect();
    let mut found = Vec::new();
    for krate in &crates {
        let prefix = format!("{krate}::");
        let mut rest = code;
        while let Some(at) = rest.find(&prefix) {
            let path_start = &rest[at..];
            let path_len = path_start
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(path_start.len());
            let path = &path_start[..path_len];
            let mut segments = path.rsplit("::").filter(|s| !s.is_empty());
            let last = segments.next().unwrap_or_default();
            // `Type::new(` is a method of a result type; only a function right under a module
            // (`crate::module::f(`) is a free function.
            let under_module = segments.next().is_some_and(is_function_name);
            let called = path_start[path_len..].trim_start().starts_with('(');
            let imported_fn = is_function_name(last) && imports_then_calls(code, path, last);
            if under_module && ((called && is_function_name(last)) || imported_fn) {
                found.push(path.to_string());
            }
            rest = &rest[at + prefix.len()..];
        }
    }
    found
}

/// True when `path` is imported by a `use` line and its last segment is then called bare.
fn imports_then_calls(code: &str, path: &str, name: &str) -> bool {
    let imported = code
        .lines()
        .any(|l| l.trim_start().starts_with("use ") && l.contains(path));
    imported && (code.contains(&format!(" {name}(")) || code.contains(&format!("({name}(")))
}

#[test]
fn report_depends_on_model_stats_and_result_producers_only() {
    let manifest = std::fs::read_to_string(report_dir().join("Cargo.toml")).unwrap();
    let dependencies = workspace_dependencies(&manifest);
    assert!(dependencies.iter().any(|d| d == "iofit-model"));
    let outside: Vec<&String> = dependencies
        .iter()
        .filter(|d| !FREE.contains(&d.as_str()) && !PRODUCERS.contains(&d.as_str()))
        .collect();
    assert!(
        outside.is_empty(),
        "report depends on {outside:?}: it renders results and may use model, stats and the \
         result types of {PRODUCERS:?} only"
    );
}

#[test]
fn report_calls_no_function_of_the_crates_that_produce_results() {
    let mut calls = Vec::new();
    let mut files = 0;
    let mut stack = vec![report_dir().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files += 1;
                let text = std::fs::read_to_string(&path).unwrap();
                for call in producer_calls(&library_part(&text)) {
                    calls.push(format!("{}: {call}", path.display()));
                }
            }
        }
    }
    assert!(
        files > 10,
        "report's sources were not found ({files} files)"
    );
    assert!(
        calls.is_empty(),
        "report computes with another crate's functions (compute it in the producer or in \
         procedure and hand the result over):\n{}",
        calls.join("\n")
    );
}

#[test]
fn the_scan_finds_a_call_and_passes_types_and_methods() {
    let code = "let p = iofit_planner::operating_point(s, 1e6);\n";
    assert_eq!(producer_calls(code), ["iofit_planner::operating_point"]);
    let imported =
        "use iofit_fleet::plan_fleet;\nfn f() { let t = plan_fleet(s, &r, &o, 2, &d); }\n";
    assert_eq!(producer_calls(imported), ["iofit_fleet::plan_fleet"]);
    let types = "use iofit_predict::{LimitKind, Prediction};\n\
                 fn f(p: &iofit_predict::Prediction) -> bool { p.kind == iofit_predict::LimitKind::QueueDepth }\n\
                 const X: u64 = iofit_planner::limits::MAX_DISKS;\n\
                 fn g(t: &iofit_catalog::TableInfo) { t.name(); }\n\
                 let c = iofit_catalog::Catalog::embedded();\n";
    assert!(
        producer_calls(types).is_empty(),
        "{:?}",
        producer_calls(types)
    );
    assert_eq!(
        workspace_dependencies("[dependencies]\niofit-model.workspace = true\nserde = \"1\"\n[dev-dependencies]\niofit-engine.workspace = true\n"),
        ["iofit-model"]
    );
}
