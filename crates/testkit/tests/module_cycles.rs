//! No new import cycle between the files of a crate. A cycle (a.rs takes names from b.rs and
//! b.rs from a.rs, directly or around a ring) means neither file can be read, tested or moved
//! without the other; the workspace's crate graph has none, and this keeps the files inside
//! each crate going the same way.
//!
//! The scan reads `crate::`, `super::` and `self::` paths in each library file (test modules
//! and test files left out), resolves each to the file that defines the module it names, and
//! finds the strongly connected components of that graph. `KNOWN` lists the cycles the code
//! has today; a cycle that is not inside one of them fails the test, so they can only shrink.

use iofit_testkit::crates_dir;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Cycles present when this test was written, each as its files (relative to `crates/`).
/// Remove a line when its cycle is gone; never add one.
const KNOWN: &[&[&str]] = &[];

/// Library source files of one crate, by module path (`[]` is lib.rs).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut found = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
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
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut segments: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                segments.last().map(String::as_str),
                Some("lib" | "mod" | "main")
            ) {
                segments.pop();
            }
            found.insert(segments, path);
        }
    }
    found
}

/// The text without `#[cfg(test)]` items and without `//` comments.
fn library_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // The attributed item ends at its block's closing brace, or at `;` when it has none.
        let open = after.find('{');
        let semi = after.find(';');
        match (open, semi) {
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
                rest = &after[end..];
            }
            (_, Some(semi)) => rest = &after[semi + 1..],
            _ => rest = "",
        }
    }
    out.push_str(rest);
    out.lines()
        .map(|l| match l.find("//") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path the text names from `crate::`, `super::` or `self::`, braces expanded one level
/// deep per group (`crate::a::{b, c::d}` gives `a::b` and `a::c::d`).
fn paths(text: &str, module: &[String], is_dir_module: bool) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for (anchor, base) in [
        ("crate::", Vec::new()),
        ("super::", {
            // A file module `a/b.rs` is `a::b`, whose super is `a`; `a/mod.rs` is `a`, whose
            // super is the crate root's child list above it.
            let mut m = module.to_vec();
            m.pop();
            m
        }),
        ("self::", {
            let _ = is_dir_module;
            module.to_vec()
        }),
    ] {
        let mut from = 0;
        while let Some(at) = text[from..].find(anchor) {
            let start = from + at;
            from = start + anchor.len();
            let before = text[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for tail in expand(&text[from..]) {
                let mut path = base.clone();
                for segment in tail {
                    if segment == "super" {
                        path.pop();
                    } else {
                        path.push(segment);
                    }
                }
                found.push(path);
            }
        }
    }
    found
}

/// The path segments at the start of `text`, expanding one `{...}` group.
fn expand(text: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            break;
        }
        rest = &rest[ident.len()..];
        segments.push(ident);
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => return vec![segments],
        }
    }
    let Some(inner) = rest.strip_prefix('{') else {
        return vec![segments];
    };
    let mut depth = 1usize;
    let mut end = inner.len();
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut level = 0usize;
    let mut item_start = 0;
    let group = &inner[..end];
    for (i, c) in group.char_indices().chain([(group.len(), ',')]) {
        match c {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => {
                for tail in expand(group[item_start..i].trim()) {
                    let mut path = segments.clone();
                    path.extend(tail);
                    out.push(path);
                }
                item_start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// The file defining the longest prefix of `path` that is a module.
fn resolve<'a>(
    path: &[String],
    modules: &'a BTreeMap<Vec<String>, PathBuf>,
) -> Option<&'a PathBuf> {
    (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]))
}

/// Strongly connected components with more than one file (Tarjan).
fn cycles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<BTreeSet<PathBuf>> {
    struct State<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: BTreeSet<&'a PathBuf>,
        next: usize,
        found: Vec<BTreeSet<PathBuf>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a PathBuf) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w.clone());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !state.index.contains_key(v) {
            visit(&mut state, v);
        }
    }
    state.found
}

fn workspace_cycles() -> Vec<BTreeSet<String>> {
    let root = crates_dir();
    let mut all = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let src = entry.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        let modules = modules(&src);
        let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        for (module, file) in &modules {
            let text = library_text(&std::fs::read_to_string(file).unwrap());
            let is_dir_module = file.file_name().is_some_and(|n| n == "mod.rs");
            let targets = edges.entry(file.clone()).or_default();
            for path in paths(&text, module, is_dir_module) {
                if let Some(target) = resolve(&path, &modules) {
                    if target != file {
                        targets.insert(target.clone());
                    }
                }
            }
        }
        for component in cycles(&edges) {
            all.push(
                component
                    .iter()
                    .map(|p| {
                        p.strip_prefix(&root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned()
                    })
                    .collect(),
            );
        }
    }
    all
}

#[test]
fn no_new_import_cycle_between_files() {
    let known: Vec<BTreeSet<String>> = KNOWN
        .iter()
        .map(|c| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let cycles = workspace_cycles();
    let new: Vec<_> = cycles
        .iter()
        .filter(|cycle| !known.iter().any(|k| cycle.is_subset(k)))
        .collect();
    assert!(
        new.is_empty(),
        "new import cycles between files (break each by moving what both sides need into a \
         module both import): {new:#?}"
    );
    // The list only shrinks: a listed cycle that is gone must leave the list, so that it
    // cannot come back unnoticed.
    let gone: Vec<_> = known
        .iter()
        .filter(|k| !cycles.iter().any(|cycle| cycle.is_subset(k)))
        .collect();
    assert!(
        gone.is_empty(),
        "no longer a cycle: remove from KNOWN: {gone:#?}"
    );
}

#[test]
fn the_scan_finds_a_planted_cycle() {
    let dir = std::env::temp_dir().join(format!("iofit-cycles-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").unwrap();
    std::fs::write(src.join("a/mod.rs"), "use crate::b::{X, Y};\npub mod c;\n").unwrap();
    std::fs::write(
        src.join("b.rs"),
        "pub struct X; pub struct Y;\n#[cfg(test)]\nmod t { use crate::a::c::Z; }\n",
    )
    .unwrap();
    std::fs::write(src.join("a/c.rs"), "pub fn z() { super::super::b::X; }\n").unwrap();
    let modules = modules(&src);
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = library_text(&std::fs::read_to_string(file).unwrap());
        for path in paths(&text, module, false) {
            if let Some(target) = resolve(&path, &modules) {
                if target != file {
                    edges
                        .entry(file.clone())
                        .or_default()
                        .insert(target.clone());
                }
            }
        }
    }
    // b.rs's only way back to a is inside #[cfg(test)]: no cycle.
    assert!(cycles(&edges).is_empty(), "{edges:#?}");
    std::fs::write(
        src.join("b.rs"),
        "use crate::a::c::z;\npub struct X; pub struct Y;\n",
    )
    .unwrap();
    let text = library_text(&std::fs::read_to_string(src.join("b.rs")).unwrap());
    edges.entry(src.join("b.rs")).or_default().extend(
        paths(&text, &["b".to_string()], false)
            .iter()
            .filter_map(|p| resolve(p, &modules).cloned()),
    );
    let found = cycles(&edges);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].contains(&src.join("b.rs")) && found[0].contains(&src.join("a/c.rs")));
    std::fs::remove_dir_all(&dir).unwrap();
}
