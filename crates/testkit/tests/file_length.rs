//! Files fit in a reader's head: no source file under `crates/*/src` holds more than 1,000
//! lines of non-test code. A longer file does several things; split it by what it does (parse,
//! validate, render: one module per concern) and re-export from the old module so callers do
//! not change.
//!
//! What counts: every line of the file except its test modules. A test module is a top-level
//! `#[cfg(test)]` (in column 0, as rustfmt leaves it) on a `mod`: an inline `mod name { ... }`
//! leaves out its lines through the closing `}` in column 0, a `mod name;` its declaration line.
//! Test modules kept in files of their own (`tests.rs`, `*_tests.rs`, declared behind
//! `#[cfg(test)]`) are test code and are not counted at all, like inline ones; the test checks
//! that a file of the same crate declares each such file that way, so a library file cannot
//! hide under the name.
//! `#[cfg(test)]` on a single item inside code (an indented helper) does not end the count.
//!
//! `KNOWN` lists the files over the limit today; a file over it that is not listed fails the
//! test, and so does a listed one that is no longer over it (remove its line), so the list can
//! only shrink.

use iofit_testkit::{crates_dir, rust_files};
use std::path::Path;

const MAX_LINES: usize = 1000;

/// Files over the limit when this test was written (relative to `crates/`).
/// Remove a line when its file is split; never add one.
const KNOWN: &[&str] = &[];

/// A file that holds only a test module, by the workspace's naming convention.
fn is_test_file(path: &Path) -> bool {
    path.file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s == "tests" || s.ends_with("_tests"))
}

/// Lines of the file outside its top-level `#[cfg(test)]` modules.
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let mut count = 0;
    let mut i = 0;
    while i < lines.len() {
        let next = lines.get(i + 1).map(|l| l.trim_end()).unwrap_or("");
        if lines[i].trim_end() == "#[cfg(test)]" && next.starts_with("mod ") {
            if next.ends_with(';') {
                i += 2;
                continue;
            }
            // An inline module: rustfmt closes it with `}` alone in column 0.
            let end = lines[i + 1..]
                .iter()
                .position(|l| l.trim_end() == "}")
                .map_or(lines.len(), |at| i + 1 + at + 1);
            i = end;
            continue;
        }
        count += 1;
        i += 1;
    }
    count
}

/// The module names a file declares behind `#[cfg(test)]` (`mod name;`, with an optional
/// `#[path = "..."]` between), as file stems.
fn test_module_files(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if *line != "#[cfg(test)]" {
            continue;
        }
        for next in lines.iter().skip(i + 1).take(2) {
            if let Some(path) = next
                .strip_prefix("#[path = \"")
                .and_then(|p| p.strip_suffix("\"]"))
            {
                found.push(
                    path.trim_end_matches(".rs")
                        .rsplit('/')
                        .next()
                        .unwrap()
                        .into(),
                );
                break;
            }
            if let Some(name) = next.strip_prefix("mod ").and_then(|n| n.strip_suffix(';')) {
                found.push(name.to_string());
                break;
            }
        }
    }
    found
}

/// The crate directory a file belongs to (`jobfile` for `crates/jobfile/src/fio/tests.rs`).
fn crate_of(root: &Path, file: &Path) -> String {
    relative(root, file)
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string()
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn no_file_holds_more_than_a_thousand_lines_of_code() {
    let root = crates_dir();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    assert!(files.len() > 100, "found only {} files", files.len());
    // (crate directory, module file stem) of every module declared behind #[cfg(test)].
    let declared_tests: Vec<(String, String)> = files
        .iter()
        .flat_map(|f| {
            let krate = crate_of(&root, f);
            test_module_files(&std::fs::read_to_string(f).unwrap())
                .into_iter()
                .map(move |stem| (krate.clone(), stem))
        })
        .collect();
    let mut long = Vec::new();
    for file in &files {
        let name = relative(&root, file);
        if is_test_file(file) {
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                declared_tests.contains(&(crate_of(&root, file), stem)),
                "{name} is named like a test module but no file of its crate declares it behind \
                 #[cfg(test)]"
            );
            continue;
        }
        let lines = code_lines(&std::fs::read_to_string(file).unwrap());
        if lines > MAX_LINES {
            long.push((name, lines));
        }
    }
    let new: Vec<String> = long
        .iter()
        .filter(|(file, _)| !KNOWN.contains(&file.as_str()))
        .map(|(file, lines)| format!("{file}: {lines} lines of code"))
        .collect();
    assert!(
        new.is_empty(),
        "files over {MAX_LINES} lines of code (split them by what they do):\n{}",
        new.join("\n")
    );
    let gone: Vec<&str> = KNOWN
        .iter()
        .filter(|file| !long.iter().any(|(f, _)| f == *file))
        .copied()
        .collect();
    assert!(
        gone.is_empty(),
        "no longer over {MAX_LINES} lines: remove from KNOWN:\n{}",
        gone.join("\n")
    );
}

#[test]
fn the_count_leaves_out_test_modules_only() {
    let text = "fn a() {}\n\
                impl X {\n    #[cfg(test)]\n    fn helper() {}\n}\n\
                #[cfg(test)]\nmod tests;\n\
                #[cfg(test)]\nmod inline {\n    fn t() {\n    }\n}\n\
                fn after() {}\n";
    // fn a (1) + impl with its indented test helper (4) + fn after (1).
    assert_eq!(code_lines(text), 6);
    assert_eq!(code_lines("fn a() {}\nfn b() {}"), 2);
    let declared = "#[cfg(test)]\nmod tests;\n#[cfg(test)]\n#[path = \"gcp_tests.rs\"]\nmod t;\n\
                    mod plain;\n";
    assert_eq!(test_module_files(declared), vec!["tests", "gcp_tests"]);
    assert!(is_test_file(Path::new("a/fio/tests.rs")));
    assert!(is_test_file(Path::new("a/compat_tests.rs")));
    assert!(!is_test_file(Path::new("a/contests.rs")));
}
