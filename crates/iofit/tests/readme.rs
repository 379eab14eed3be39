//! Every command the README shows runs as written, and prints what the README quotes.
//!
//! The test reads every ```` ```console ```` block of README.md and of the examples' READMEs
//! (so a section someone adds later is checked too), runs each `$ ` command with `bash` in a
//! directory that sees the repository's `tests/`, `examples/`, `catalog/` and `bench/`, and
//! compares what it prints (stdout and stderr, in order) with the lines quoted under it:
//!
//! - a line `...` stands for any number of lines, and `...` inside a line for any text, so
//!   trimmed output says where it was trimmed (a quote that drops lines without `...` fails);
//! - a command with nothing quoted under it only has to exit as the README says: 0, or the
//!   code its comment names (`# ... (exit 1: ...)`);
//! - `<!-- readme-test: numbers vary by machine -->` just before a block compares its lines
//!   with every number replaced by `#` (a measurement on this machine is not the README's);
//! - `<!-- readme-test: skip: REASON -->` leaves a block out, with the reason in the README
//!   (only for what cannot run in a test: root-only emulation, hosts, Azure VMs).
//!
//! `cargo run --release -- ARGS` in a block runs the freshly built binary as `iofit ARGS`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A README example must be a try-out: anything slower is a benchmark, not a tour.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
struct Example {
    file: String,
    /// The block's first line: commands of one block run in order, in one thread.
    block: usize,
    line: usize,
    command: String,
    expected: Vec<String>,
    numbers_vary: bool,
}

#[derive(Debug, Default)]
struct Directive {
    skip: bool,
    numbers_vary: bool,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn parse_directive(line: &str) -> Option<Directive> {
    let inner = line
        .trim()
        .strip_prefix("<!-- readme-test:")?
        .strip_suffix("-->")?
        .trim();
    let mut directive = Directive::default();
    if let Some(reason) = inner.strip_prefix("skip:") {
        assert!(
            !reason.trim().is_empty(),
            "a skipped README block must say why: {line}"
        );
        directive.skip = true;
    } else if inner == "numbers vary by machine" {
        directive.numbers_vary = true;
    } else {
        panic!("unknown readme-test directive: {line}");
    }
    Some(directive)
}

/// The console blocks of one markdown file, split into commands and their quoted output.
fn examples_in(file: &str, text: &str) -> Vec<Example> {
    let mut examples = Vec::new();
    let mut directive = Directive::default();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        if let Some(found) = parse_directive(line) {
            directive = found;
            continue;
        }
        if line.trim() != "```console" {
            if !line.trim().is_empty() {
                directive = Directive::default();
            }
            continue;
        }
        let block_directive = std::mem::take(&mut directive);
        let mut current: Option<Example> = None;
        for (body_index, body) in lines.by_ref() {
            if body.trim() == "```" {
                break;
            }
            if block_directive.skip {
                continue;
            }
            if let Some(command) = body.strip_prefix("$ ") {
                examples.extend(current.take());
                current = Some(Example {
                    file: file.to_string(),
                    block: index + 1,
                    line: body_index + 1,
                    command: command.to_string(),
                    expected: Vec::new(),
                    numbers_vary: block_directive.numbers_vary,
                });
                continue;
            }
            let example = current.as_mut().unwrap_or_else(|| {
                panic!("{file}:{}: output before any `$ ` command", body_index + 1)
            });
            if example.command.ends_with('\\') && example.expected.is_empty() {
                example.command.pop();
                example.command.push(' ');
                example.command.push_str(body.trim_start());
            } else {
                example.expected.push(body.trim_end().to_string());
            }
        }
        examples.extend(current);
    }
    examples
}

/// The exit code a command's comment promises: `(exit 1: not met)`; 0 otherwise.
fn expected_exit(command: &str) -> i32 {
    let Some((_, comment)) = command.split_once(" #") else {
        return 0;
    };
    let Some((_, after)) = comment.split_once("exit ") else {
        return 0;
    };
    let digits: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().unwrap_or(0)
}

/// A work directory that sees the repository's data as the README's relative paths do.
fn work_dir(root: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["tests", "examples", "catalog", "bench"] {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

struct Ran {
    output: String,
    exit: Option<i32>,
    timed_out: bool,
}

fn run(command: &str, dir: &Path) -> Ran {
    let command = command.replace("cargo run --release -- ", "iofit ");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_iofit"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let started = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > COMMAND_TIMEOUT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Ran {
        output: reader.join().unwrap(),
        exit: status.code(),
        timed_out,
    }
}

/// Every run of digits (with its decimal point and thousands commas) becomes `#`, with the
/// scale prefix of a unit after it (`20.4k` IOPS, `16.0MiB`, `100msec`: a slower machine
/// prints `9486`, `512KiB`, `2.1sec`), and runs of blanks one blank, so a measured line
/// compares by its words.
fn without_numbers(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c.is_ascii_digit() {
            // A point or comma belongs to the number only with a digit after it ("1011, BW").
            let continues = |at: usize| {
                chars.get(at).is_some_and(char::is_ascii_digit)
                    || (chars.get(at).is_some_and(|c| *c == '.' || *c == ',')
                        && chars.get(at + 1).is_some_and(char::is_ascii_digit))
            };
            while continues(i) {
                i += 1;
            }
            let prefix = chars.get(i).is_some_and(|p| "kKMGTmun".contains(*p));
            let unit_follows = chars
                .get(i + 1)
                .is_none_or(|u| !u.is_ascii_alphanumeric() || "iBs".contains(*u));
            if prefix && unit_follows {
                i += 1;
            }
            out.push('#');
        } else if c == ' ' {
            while chars.get(i) == Some(&' ') {
                i += 1;
            }
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// `...` inside an expected line matches any text.
fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("...").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// A line `...` matches any number of lines (none included).
fn lines_match(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            !actual.is_empty() && line_matches(first, &actual[0]) && lines_match(rest, &actual[1..])
        }
    }
}

fn check(example: &Example, dir: &Path) -> Option<String> {
    let ran = run(&example.command, dir);
    let place = format!("{}:{}: `{}`", example.file, example.line, example.command);
    if ran.timed_out {
        return Some(format!("{place}: still running after {COMMAND_TIMEOUT:?}"));
    }
    let want_exit = expected_exit(&example.command);
    if ran.exit != Some(want_exit) {
        return Some(format!(
            "{place}: exit {:?}, the README says {want_exit}\n{}",
            ran.exit, ran.output
        ));
    }
    if example.expected.is_empty() {
        return None;
    }
    let normalise = |line: &str| {
        let line = line.trim_end();
        if example.numbers_vary {
            without_numbers(line)
        } else {
            line.to_string()
        }
    };
    let expected: Vec<String> = example.expected.iter().map(|l| normalise(l)).collect();
    let actual: Vec<String> = ran.output.lines().map(normalise).collect();
    if lines_match(&expected, &actual) {
        return None;
    }
    Some(format!(
        "{place}: the output differs from the README's quote\n--- README\n{}\n--- printed\n{}",
        example.expected.join("\n"),
        ran.output
    ))
}

fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("examples")).unwrap() {
        let readme = entry.unwrap().path().join("README.md");
        if readme.is_file() {
            files.push(readme);
        }
    }
    files.sort();
    files
}

#[test]
fn every_console_block_runs_as_written() {
    let root = repo_root();
    let dir = work_dir(&root);
    let mut examples = Vec::new();
    for file in markdown_files(&root) {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        examples.extend(examples_in(&name, &text));
    }
    let count = examples.len();
    // Blocks whose numbers vary are real runs on this machine (seconds each, mostly waiting on
    // IO or a timer) and read no file another block writes: each runs in its own thread while
    // the others run in order, so the whole README takes about as long as its longest run.
    let (measured, in_order): (Vec<Example>, Vec<Example>) =
        examples.into_iter().partition(|e| e.numbers_vary);
    let mut blocks: Vec<Vec<Example>> = Vec::new();
    for example in measured {
        match blocks.last_mut() {
            Some(block) if block[0].file == example.file && block[0].block == example.block => {
                block.push(example)
            }
            _ => blocks.push(vec![example]),
        }
    }
    let work = dir.path().to_path_buf();
    let threads: Vec<_> = blocks
        .into_iter()
        .map(|block| {
            let work = work.clone();
            std::thread::spawn(move || {
                block
                    .iter()
                    .filter_map(|e| check(e, &work))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut failures: Vec<String> = in_order
        .iter()
        .filter_map(|e| check(e, dir.path()))
        .collect();
    for thread in threads {
        failures.extend(thread.join().unwrap());
    }
    assert!(
        count > 20,
        "only {count} README commands found: is the parser broken?"
    );
    assert!(
        failures.is_empty(),
        "{} of {count} README commands fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_matcher_needs_dots_where_lines_are_dropped() {
    let lines = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(lines_match(&lines("a\n...\nd"), &lines("a\nb\nc\nd")));
    assert!(
        !lines_match(&lines("a\nd"), &lines("a\nb\nc\nd")),
        "dropped lines need `...`"
    );
    assert!(
        !lines_match(&lines("a\nb"), &lines("a\nb\nc")),
        "a trimmed tail needs `...`"
    );
    assert!(lines_match(
        &lines("a: ... (720 reports)"),
        &lines("a: x y z (720 reports)")
    ));
    assert!(!lines_match(
        &lines("a: ... (720 reports)"),
        &lines("a: x y z (721 reports)")
    ));
    assert_eq!(
        without_numbers("IOPS   35,016.9 at 0.246 ms"),
        "IOPS # at # ms"
    );
    assert_eq!(
        expected_exit("iofit predict x   # binds (exit 1: not met)"),
        1
    );
    assert_eq!(expected_exit("iofit plan --top 3"), 0);
}
