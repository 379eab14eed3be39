//! One vocabulary: walks every subcommand's `--help` and fails on a flag without help text,
//! on a flag that occurs in several commands but is missing from README's table of shared
//! flags (or listed with other commands than it has), and on a shared flag of one meaning whose
//! help says it differently between commands (its first sentence must be the same).

use assert_cmd::Command;
use std::collections::BTreeMap;

fn help(args: &[&str]) -> String {
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success(), "iofit {args:?} --help");
    String::from_utf8(output.stdout).unwrap()
}

/// The subcommands `iofit --help` lists (not `help` itself).
fn subcommands() -> Vec<String> {
    let top = help(&[]);
    let mut names = Vec::new();
    let mut inside = false;
    for line in top.lines() {
        if line.starts_with("Commands:") {
            inside = true;
            continue;
        }
        if inside && !line.starts_with(' ') {
            break;
        }
        // A command's line starts at two spaces; its wrapped description is indented deeper.
        if inside && line.starts_with("  ") && !line.starts_with("   ") {
            let name = line.split_whitespace().next().unwrap().to_string();
            if name != "help" {
                names.push(name);
            }
        }
    }
    names
}

/// Every long flag of a `--help` text with its help, `[default: ...]` and the like left out.
fn flags(text: &str) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Options:") || line.starts_with("Arguments:") {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        let flag_start = trimmed
            .strip_prefix("-")
            .filter(|_| indent <= 6)
            .map(|_| trimmed);
        if let Some(start) = flag_start {
            // `-o, --output <FILE>  help` or `--json  help` or `--edition <EDITION>`.
            let start = start
                .split_once(", ")
                .filter(|(short, _)| short.len() == 2)
                .map_or(start, |(_, long)| long);
            if let Some(long) = start.strip_prefix("--") {
                let name_end = long
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .unwrap_or(long.len());
                // Prose that wraps onto a line starting with an fio option (`--time_based`,
                // `--rate_iops=N`) is not a flag of the command.
                if long[name_end..].starts_with(['_', '=', '.']) {
                    continue;
                }
                let name = format!("--{}", &long[..name_end]);
                let mut rest = long[name_end..].trim_start();
                // The value: `<FILE>`, `<FILE>...` or an optional `[<FILE>]`.
                if rest.starts_with('<') || rest.starts_with("[<") {
                    let close = if rest.starts_with('[') { ']' } else { '>' };
                    rest = rest[rest.find(close).map_or(rest.len(), |i| i + 1)..].trim_start();
                    rest = rest.trim_start_matches("...").trim_start();
                }
                found.insert(name.clone(), rest.to_string());
                current = Some(name);
                continue;
            }
        }
        if let Some(name) = &current {
            if indent > 6 && !trimmed.is_empty() {
                let text = found.get_mut(name).unwrap();
                text.push(' ');
                text.push_str(trimmed);
            }
        }
    }
    found
        .into_iter()
        .map(|(name, text)| (name, without_brackets(&text)))
        .collect()
}

/// The text without clap's `[default: ..]`, `[possible values: ..]`, `[aliases: ..]`, and
/// without the possible values' list lines.
fn without_brackets(text: &str) -> String {
    let mut out = text.to_string();
    for tag in ["[default: ", "[possible values: ", "[aliases: ", "[alias: "] {
        while let Some(start) = out.find(tag) {
            let end = out[start..].find(']').map_or(out.len(), |i| start + i + 1);
            out.replace_range(start..end, "");
        }
    }
    if let Some(start) = out.find("Possible values:") {
        out.truncate(start);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A help's first sentence: what the flag means, before the command's own details.
fn first_sentence(text: &str) -> String {
    let end = text.find(". ").unwrap_or(text.len());
    text[..end].trim_end().trim_end_matches('.').to_string()
}

/// README's table of shared flags: flag -> (commands, meaning).
fn readme_table() -> BTreeMap<String, (Vec<String>, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let start = readme
        .find("<!-- shared-flags -->")
        .expect("README has the shared-flags table");
    let end = readme[start..].find("<!-- /shared-flags -->").unwrap() + start;
    let mut rows = BTreeMap::new();
    for line in readme[start..end].lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || !cells[1].starts_with("`--") {
            continue;
        }
        let flag = cells[1].trim_matches('`').to_string();
        let commands = cells[2]
            .split(',')
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty())
            .collect();
        rows.insert(flag, (commands, cells[3].to_string()));
    }
    rows
}

#[test]
fn flags_have_help_and_shared_flags_one_meaning() {
    let commands = subcommands();
    assert!(commands.len() >= 10, "{commands:?}");
    let mut by_flag: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut missing = Vec::new();
    for command in &commands {
        for (flag, text) in flags(&help(&[command])) {
            if flag == "--help" {
                continue;
            }
            if text.is_empty() {
                missing.push(format!("{command} {flag}"));
            }
            by_flag
                .entry(flag)
                .or_default()
                .insert(command.clone(), text);
        }
    }
    assert!(missing.is_empty(), "flags without help text: {missing:?}");
    let table = readme_table();
    let mut problems = Vec::new();
    for (flag, helps) in by_flag.iter().filter(|(_, helps)| helps.len() > 1) {
        let Some((listed, meaning)) = table.get(flag) else {
            problems.push(format!(
                "{flag} is in {:?} but not in README's table",
                helps.keys()
            ));
            continue;
        };
        let mut have: Vec<String> = helps.keys().cloned().collect();
        let mut listed = listed.clone();
        have.sort();
        listed.sort();
        if have != listed {
            problems.push(format!(
                "{flag}: README lists {listed:?}, the commands are {have:?}"
            ));
        }
        // One name, one meaning: no row may say the commands mean different things by it.
        if meaning.starts_with("Differs") {
            problems.push(format!(
                "{flag}: README says its meaning differs between commands"
            ));
        }
        let sentences: BTreeMap<String, Vec<&String>> =
            helps
                .iter()
                .fold(BTreeMap::new(), |mut by, (command, text)| {
                    by.entry(first_sentence(text)).or_default().push(command);
                    by
                });
        if sentences.len() > 1 {
            problems.push(format!("{flag} is said differently: {sentences:?}"));
        }
    }
    for flag in table.keys() {
        if by_flag.get(flag).is_none_or(|helps| helps.len() < 2) {
            problems.push(format!("README's table lists {flag}, which is not shared"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_help_parser_reads_both_layouts() {
    let text = "Options:\n      --edition <EDITION>\n          Catalog edition: current.\n\
                \n          [default: current]\n\n      --quiet\n          Print it\n\
                \x20 -o, --output <FILE>  Write here\n                       and more\n\
                \x20     --bare\n      --top <N>  How many [default: 3]\n\
                \x20     --json [<FILE>]\n          Print JSON\n";
    let found = flags(text);
    assert_eq!(found["--edition"], "Catalog edition: current.");
    assert_eq!(found["--output"], "Write here and more");
    assert_eq!(found["--bare"], "");
    assert_eq!(found["--top"], "How many");
    assert_eq!(found["--quiet"], "Print it");
    assert_eq!(found["--json"], "Print JSON");
    assert_eq!(first_sentence("Print it. More."), "Print it");
}

/// `--json` where README says it works: `profile` prints the requirements, `run` its results
/// (the flag before or after the job's options, as fio's own `--output-format=json` would).
#[test]
fn json_on_profile_and_run() {
    let capture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/iostat/example-db-server_sysstat-12.6.1_xt_10s.txt"
    );
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(["profile", capture, "--json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(value["volumes"].as_array().is_some_and(|v| !v.is_empty()));
    let dir = tempfile::tempdir().unwrap();
    let directory = format!("--directory={}", dir.path().display());
    for json_first in [true, false] {
        let mut args = vec!["run"];
        if json_first {
            args.push("--json");
        }
        args.extend(["--name=a", "--rw=randread", "--size=256k", "--runtime=0.2"]);
        args.push(&directory);
        if !json_first {
            args.push("--json");
        }
        let output = Command::cargo_bin("iofit")
            .unwrap()
            .args(&args)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(value["jobs"][0]["jobname"], "a", "{args:?}");
    }
}
