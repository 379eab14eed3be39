//! `report` renders; it reads no file, runs no program and opens no socket, and neither may any
//! workspace crate it depends on, so that a renderer can be reused (and tested) on plain data.
//!
//! A crate "does IO" when its library source (comments and `#[cfg(test)]` items left out)
//! names `std::fs`, `File::`, `Command`, `TcpStream`, `std::process`, `std::net` or
//! `iofit_safefs` (the one door through which iofit reads and writes files). The test
//! fails when report's `[dependencies]` name a workspace crate that does IO and is not in
//! `KNOWN`; `KNOWN` lists the ones report still uses (for their result types) and may only
//! shrink: a listed crate report no longer depends on, or that no longer does IO, fails too,
//! so that its line is removed.

use iofit_testkit::crates_dir;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Workspace crates that do IO and that report still depends on. Remove a line when its types
/// have moved below it (into `iofit-model`); never add one.
const KNOWN: &[&str] = &[];

/// Words whose presence in library code means the crate reads, writes, runs or connects.
const IO_WORDS: &[&str] = &[
    "std::fs",
    "File::",
    "Command",
    "TcpStream",
    "std::process",
    "std::net",
    "iofit_safefs",
];

/// The text without `#[cfg(test)]` items (to the end of their block or `;`) and `//` comments.
fn library_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let open = after.find('{');
        let semi = after.find(';');
        rest = match (open, semi) {
            (Some(open), semi) if semi.is_none_or(|s| open < s) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (i, c) in after[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                &after[end..]
            }
            (_, Some(semi)) => &after[semi + 1..],
            _ => "",
        };
    }
    out.push_str(rest);
    out.lines()
        .map(|l| l.find("//").map_or(l, |at| &l[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `word` occurs in `text` as a whole word or path (not inside `Profile`, `Commands`).
fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        // A path prefix such as `File::` continues into the next name.
        !ident(before) && (word.ends_with("::") || !ident(after))
    })
}

/// The IO words a crate's library source names, with the file where each was first seen.
fn io_found(krate: &str) -> Vec<(String, PathBuf)> {
    let dir = crates_dir()
        .join(krate.trim_start_matches("iofit-"))
        .join("src");
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![dir];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".rs") || name.ends_with("tests.rs") {
                continue;
            }
            let text = library_text(&std::fs::read_to_string(&path).unwrap());
            for word in IO_WORDS {
                if names(&text, word) && seen.insert(*word) {
                    found.push((word.to_string(), path.clone()));
                }
            }
        }
    }
    found
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
            names.push(line.split(['.', '=', ' ']).next().unwrap().to_string());
        }
    }
    names
}

#[test]
fn report_depends_on_no_crate_that_does_io_beyond_the_known_ones() {
    let manifest = std::fs::read_to_string(crates_dir().join("report/Cargo.toml")).unwrap();
    let dependencies = workspace_dependencies(&manifest);
    assert!(
        dependencies.iter().any(|d| d == "iofit-model"),
        "{dependencies:?}"
    );
    let mut new = Vec::new();
    for dependency in &dependencies {
        let io = io_found(dependency);
        if !io.is_empty() && !KNOWN.contains(&dependency.as_str()) {
            new.push(format!("{dependency}: {io:?}"));
        }
    }
    assert!(
        new.is_empty(),
        "report depends on crates that do IO (move the types it renders into iofit-model): {new:#?}"
    );
    for known in KNOWN {
        assert!(
            dependencies.iter().any(|d| d == known),
            "{known} is no longer a dependency of report: remove it from KNOWN"
        );
        assert!(
            !io_found(known).is_empty(),
            "{known} does no IO any more: remove it from KNOWN"
        );
    }
}

#[test]
fn the_producers_report_keeps_do_no_io_and_the_scan_sees_io_where_it_is() {
    // What ARCHITECTURE.md says of these crates: no file, process or socket in their code.
    for pure in [
        "iofit-model",
        "iofit-stats",
        "iofit-predict",
        "iofit-planner",
        "iofit-verdict",
        "iofit-report",
    ] {
        assert_eq!(io_found(pure), Vec::new(), "{pure}");
    }
    // The scan is not blind: the crates that read catalogs, run fio and write files are caught.
    for io in ["iofit-catalog", "iofit-engine", "iofit-safefs"] {
        assert!(!io_found(io).is_empty(), "{io}");
    }
    // Words inside identifiers and comments do not count.
    assert!(!names("struct Commands; let profile = 1;", "Command"));
    assert!(names("use std::process::Command;", "Command"));
    assert!(names("let f = File::open(path)?;", "File::"));
    assert!(!names("enum E { File { file: String } }", "File::"));
    assert!(!library_text("// std::fs::read\nlet a = 1;").contains("std::fs"));
    assert!(!library_text("#[cfg(test)]\nmod tests { use std::fs; }\nfn f() {}").contains("fs"));
}
