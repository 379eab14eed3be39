//! What an option means lives in one registry: the literals `"iodepth"`, `"numjobs"` and
//! `"runtime"` appear in library and binary sources only where a list below says why. Any
//! other file names the option through the registry's constants
//! (`iofit_jobfile::fio::option_names`) or, for a key of an output format, through its
//! format's key module.
//!
//! This is the grep (`grep -rn '"iodepth"\|"numjobs"\|"runtime"' crates/*/src`) with
//! the lines that are not code left out: comments (a doc example is a doctest), test modules
//! (`#[cfg(test)]` to the end of the file), test files and insta snapshots.

use iofit_testkit::crates_dir;
use std::path::{Path, PathBuf};

const NAMES: &[&str] = &["\"iodepth\"", "\"numjobs\"", "\"runtime\""];

/// Files allowed to spell the names, relative to `crates/`, and why.
const ALLOWED: &[(&str, &str)] = &[
    (
        "jobfile/src/fio_options.rs",
        "the registry: the option table and its named constants",
    ),
    (
        "jobfile/src/fio/render.rs",
        "the registry's renderer: how each option is written back as text",
    ),
    (
        "report/src/format_keys.rs",
        "keys of fio's JSON output and the CSV's metric column, fixed by those formats",
    ),
    (
        "verdict/src/fio_keys.rs",
        "keys of fio's JSON output the results reader looks up (verdict does not depend on \
         the job-file parser)",
    ),
];

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            source_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn is_test_file(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || name.ends_with(".snap")
        || path.components().any(|c| c.as_os_str() == "snapshots")
}

/// The (line number, line) of each code line in `text` that spells one of the names: comments
/// and everything from the first `#[cfg(test)]` on are left out.
fn code_hits(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| NAMES.iter().any(|name| line.contains(name)))
        .map(|(index, line)| (index + 1, line.trim().to_string()))
        .collect()
}

/// Per file (relative to `crates/`), the lines that spell a name outside tests and comments.
fn workspace_hits() -> Vec<(String, Vec<(usize, String)>)> {
    let root = crates_dir();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        source_files(&entry.path().join("src"), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter(|path| !is_test_file(path))
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let hits = code_hits(&text);
            let relative = path.strip_prefix(&root).unwrap().to_string_lossy();
            (!hits.is_empty()).then(|| (relative.replace('\\', "/"), hits))
        })
        .collect()
}

#[test]
fn option_names_are_spelled_only_in_the_registry_and_format_keys() {
    let hits = workspace_hits();
    let outside: Vec<String> = hits
        .iter()
        .filter(|(file, _)| !ALLOWED.iter().any(|(allowed, _)| allowed == file))
        .flat_map(|(file, lines)| {
            lines
                .iter()
                .map(move |(number, line)| format!("{file}:{number}: {line}"))
        })
        .collect();
    assert!(
        outside.is_empty(),
        "option names spelled outside the registry (use iofit_jobfile::fio::option_names, or \
         a format's key module for an output key):\n{}",
        outside.join("\n")
    );
    // Each allowed file still needs its place: a file that no longer spells a name leaves
    // the list, so the list says where the names are today.
    for (allowed, why) in ALLOWED {
        assert!(
            hits.iter().any(|(file, _)| file == allowed),
            "{allowed} ({why}) no longer spells an option name: remove it from ALLOWED"
        );
    }
}

#[test]
fn the_scan_skips_comments_and_tests_only() {
    let text = "\
fn a() { let k = \"iodepth\"; }
// a comment naming \"numjobs\"
    /// doc: {\"runtime\": 10}
fn b() { f(\"runtime\") }
#[cfg(test)]
mod tests { fn c() { g(\"iodepth\") } }
";
    let lines: Vec<usize> = code_hits(text).into_iter().map(|(n, _)| n).collect();
    assert_eq!(lines, vec![1, 4]);
    assert!(is_test_file(Path::new("report/src/fio_tests.rs")));
    assert!(is_test_file(Path::new(
        "report/src/snapshots/iofit_report__x.snap"
    )));
    assert!(!is_test_file(Path::new("report/src/fio_json.rs")));
}
