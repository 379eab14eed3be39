//! One door: no library crate outside safefs creates, writes, renames or removes files by
//! itself. A source scan of every `crates/*/src` (test modules, `#[cfg(test)]` items and
//! `tests/` directories left out) for the calls that would: each must go through
//! `iofit_safefs` (output, atomic, target, anchor, beneath, scratch, control) instead.

use std::path::{Path, PathBuf};

/// Calls that create, write, rename or remove a file or directory by name.
const FORBIDDEN: &[&str] = &[
    "File::create",
    "File::options()",
    "OpenOptions",
    "fs::write(",
    "fs::remove_file(",
    "fs::remove_dir_all(",
    "fs::remove_dir(",
    "fs::create_dir_all(",
    "fs::create_dir(",
    "fs::rename(",
    "fs::copy(",
    "fs::set_permissions(",
    "fs::hard_link(",
    "fs::symlink(",
    "DirBuilder",
    "tempfile::",
    "libc::open(",
    "libc::openat(",
    "libc::unlink",
    "libc::rename",
    "libc::mkdir",
];

/// The same calls brought in by name (`use std::fs::{remove_file, ...}`).
const FORBIDDEN_IMPORTS: &[&str] = &[
    "remove_file",
    "remove_dir",
    "create_dir",
    "rename",
    "write",
    "copy",
    "set_permissions",
    "hard_link",
    "symlink",
];

/// True when `code` calls `call` (not a method or type that merely ends with its name, such
/// as `OutputFile::create` or `root.remove_file`).
fn calls(code: &str, call: &str) -> bool {
    code.match_indices(call).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

fn imports_forbidden(code: &str) -> bool {
    let code = code.trim();
    if !code.starts_with("use std::fs") {
        return false;
    }
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| FORBIDDEN_IMPORTS.contains(&word))
}

/// Library sources that may write by themselves, and why.
const ALLOWED: &[(&str, &str)] = &[
    // The door itself.
    ("crates/safefs/", "safefs is the door"),
    // Test support: helpers for test binaries (cgroups for stuck-IO tests, load generators).
    (
        "crates/testkit/",
        "test-support crate, linked only into tests",
    ),
    // The fault-injection harness corrupts files a test made, to prove verify catches it; no
    // command calls it.
    (
        "crates/blockdata/src/inject.rs",
        "test fault-injection harness",
    ),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "tests") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            // Test modules kept in their own files (`#[cfg(test)] mod tests;`).
            if name == "tests.rs" || name.ends_with("_tests.rs") {
                continue;
            }
            out.push(path);
        }
    }
}

/// The source without `#[cfg(test)]` items: a one-line item, or everything up to the closing
/// brace at the attribute's own indentation.
fn without_test_code(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == "#[cfg(test)]" {
            let indent = &line[..line.len() - line.trim_start().len()];
            let item = lines.get(i + 1).copied().unwrap_or("");
            if item.trim_end().ends_with(';') {
                i += 2;
                continue;
            }
            let close = format!("{indent}}}");
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim_end() != close {
                j += 1;
            }
            i = j + 1;
            continue;
        }
        kept.push((i + 1, line));
        i += 1;
    }
    kept
}

fn scan(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let Ok(crates) = std::fs::read_dir(root.join("crates")) else {
        return vec!["no crates directory".into()];
    };
    for krate in crates.flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(root)
            .unwrap_or(file)
            .to_string_lossy()
            .replace("/./", "/");
        if ALLOWED.iter().any(|(prefix, _)| rel.starts_with(prefix)) {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in without_test_code(&text) {
            let code = line.split("//").next().unwrap_or("");
            for call in FORBIDDEN {
                if calls(code, call) {
                    found.push(format!("{rel}:{number}: {call} ({})", line.trim()));
                }
            }
            if imports_forbidden(code) {
                found.push(format!("{rel}:{number}: import ({})", line.trim()));
            }
        }
    }
    found
}

#[test]
fn no_library_crate_writes_files_except_through_safefs() {
    let root = workspace().canonicalize().unwrap();
    let files_seen = {
        let mut files = Vec::new();
        rust_files(&root.join("crates/engine/src"), &mut files);
        files.len()
    };
    assert!(files_seen > 10, "the scan must see the engine's sources");
    let found = scan(&root);
    assert!(
        found.is_empty(),
        "library code writes files without safefs (route these through iofit_safefs):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_finds_a_write_and_skips_test_code() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("crates/demo/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub fn save() {\n    std::fs::write(\"x\", b\"y\").unwrap();\n}\n\
         // std::fs::remove_file(\"in a comment\")\n\
         #[cfg(test)]\nmod tests {\n    fn t() {\n        std::fs::remove_dir_all(\"x\").unwrap();\n    }\n}\n\
         pub fn after() {\n    let _ = std::fs::File::create(\"z\");\n    let _ = OutputFile::create(\"ok\");\n}\n\
         use std::fs::{read, remove_file};\n",
    )
    .unwrap();
    std::fs::write(src.join("tests.rs"), "std::fs::write(\"a\", b\"b\");\n").unwrap();
    let found = scan(dir.path());
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].contains("lib.rs:2: fs::write("), "{found:?}");
    assert!(found[1].contains("lib.rs:12: File::create"), "{found:?}");
    assert!(found[2].contains("lib.rs:15: import"), "{found:?}");
}

/// The variables a shell script removes recursively (`rm -r`, `rm -rf`), or the raw word
/// when an argument is not a plain quoted variable.
fn recursive_removals(script: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in script.lines() {
        let code = line.split(" #").next().unwrap_or("");
        for (at, _) in code.match_indices("rm -r") {
            let rest = &code[at..];
            let rest = rest.split(['\'', ';', '&', '|']).next().unwrap_or("");
            for word in rest.split_whitespace().skip(2) {
                targets.push(word.to_string());
            }
        }
    }
    targets
}

/// True when `var` is assigned in `script` only from `$(mktemp -d ...)`.
fn made_by_mktemp(script: &str, var: &str) -> bool {
    let assignments: Vec<&str> = script
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with(&format!("{var}=")))
        .collect();
    !assignments.is_empty()
        && assignments
            .iter()
            .all(|l| l.starts_with(&format!("{var}=$(mktemp -d")))
}

fn unsafe_removals(script: &str) -> Vec<String> {
    recursive_removals(script)
        .into_iter()
        .filter(|word| {
            // "$VAR" or "$VAR/below" (no `..`): the directory the script made, or inside it.
            let inner = word.strip_prefix("\"$").and_then(|w| w.strip_suffix('"'));
            let var = inner
                .map(|w| w.split_once('/').map_or((w, ""), |(v, rest)| (v, rest)))
                .filter(|(v, rest)| {
                    v.chars().all(|c| c.is_alphanumeric() || c == '_') && !rest.contains("..")
                })
                .map(|(v, _)| v);
            !var.is_some_and(|v| made_by_mktemp(script, v))
        })
        .collect()
}

#[test]
fn bench_scripts_remove_only_directories_they_made() {
    let bench = workspace().join("bench");
    let mut seen = 0;
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&bench).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "sh") {
            continue;
        }
        seen += 1;
        let script = std::fs::read_to_string(&path).unwrap();
        for word in unsafe_removals(&script) {
            found.push(format!("{}: rm -r {word}", path.display()));
        }
    }
    assert!(seen >= 5, "the bench scripts must be seen");
    assert!(
        found.is_empty(),
        "bench scripts remove what they did not make:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_bench_check_catches_a_build_directory_and_a_given_work_dir() {
    let bad = "WORK=$(mktemp -d)\ntrap 'rm -rf \"$WORK\"' EXIT\nrm -rf target/release\n";
    assert_eq!(unsafe_removals(bad), ["target/release"]);
    let given = "WORK=\"${2:-$(mktemp -d)}\"\nrm -rf \"$WORK\"\n";
    assert_eq!(unsafe_removals(given), ["\"$WORK\""]);
    let good = "MADE=$(mktemp -d /tmp/x.XXXXXX)\nWORK=\"${2:-$MADE}\"\nrm -rf \"$MADE\"\n";
    assert!(unsafe_removals(good).is_empty());
    // Inside the directory the script made is fine; a way out of it is not.
    let inside = "MADE=$(mktemp -d)\nrm -rf \"$MADE/sub/dir\"\nrm -rf \"$MADE/../home\"\n";
    assert_eq!(unsafe_removals(inside), ["\"$MADE/../home\""]);
}
