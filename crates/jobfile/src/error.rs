//! The one error type of every dialect. Each error names the file, the line (1-based; 0 when the
//! error is about the whole file) and the key, says what is wrong and how to fix it, and renders
//! as one line so the CLI can print it as is.

use std::fmt;

/// What went wrong; the variant is what tests match on.
/// Where command-line options and overrides are said to come from in errors.
pub const COMMAND_LINE: &str = "command line";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("the file is not text (binary data or invalid UTF-8); give a job file")]
    Binary,
    #[error(
        "no jobs defined; add a job section such as [job1] with rw= and filename= or directory="
    )]
    Empty,
    #[error("section header '{0}' is not closed; write it as [name]")]
    UnclosedSection(String),
    #[error("section name is empty; write [name]")]
    EmptySectionName,
    #[error("option '{0}' appears before any section; put it under [global] or a [job] header")]
    OptionOutsideSection(String),
    #[error("unknown option '{key}'{}; fix the name or pass --ignore-unknown", suggestion_text(.suggestion))]
    UnknownOption {
        key: String,
        suggestion: Option<String>,
    },
    #[error(
        "fio option '{key}' is not supported by iofit: {why}; remove it to run the job without it"
    )]
    UnsupportedOption { key: String, why: String },
    #[error("ioengine={engine}: iofit cannot run this engine: {why}; use one of null, psync, sync, pvsync, pvsync2, io_uring, libaio, posixaio, mmap, splice, falloc, ftruncate")]
    UnsupportedEngine { engine: String, why: String },
    #[error(
        "{key}={value}: {} is not supported by iofit yet; {fix}",
        without_own_fix(why)
    )]
    UnsupportedValue {
        key: String,
        value: String,
        why: String,
        fix: String,
    },
    #[error("{key}={value} is invalid: {}", why_and_fix(why, fix))]
    InvalidValue {
        key: String,
        value: String,
        why: String,
        fix: String,
    },
    #[error("option '{0}' needs a value; write {0}=VALUE")]
    MissingValue(String),
    #[error("job '{job}': {what}; {fix}")]
    InvalidJob {
        job: String,
        what: String,
        fix: String,
    },
    #[error("{kind}={name} matches no {kind} defined above{detail}")]
    UnknownReference {
        kind: String,
        name: String,
        detail: String,
    },
    #[error("{kind}={name} is defined twice; give each {kind} its own name")]
    Duplicate { kind: String, name: String },
    #[error("hd={host} runs on '{machine}', which is not this machine ({used_by}); a run on this machine only cannot use it: run the file with iofit run (which reaches hd= hosts over ssh) or set system=localhost")]
    RemoteHost {
        host: String,
        machine: String,
        used_by: String,
    },
    #[error("vdbench {place}parameter '{key}=' is not supported by iofit yet; remove it to run without it")]
    UnsupportedParameter { place: String, key: String },
    #[error("{0}")]
    Syntax(String),
    #[error("{0}")]
    Other(String),
    /// `--parse-only`: every option of the file iofit refuses, each a whole error of its own.
    #[error("{} options iofit refuses", .0.len())]
    Refusals(Vec<JobFileError>),
}

impl ErrorKind {
    /// The variant's name, for test manifests (`tests/bad-input/*/expected.tsv`).
    pub fn name(&self) -> &'static str {
        match self {
            ErrorKind::Io(_) => "Io",
            ErrorKind::Binary => "Binary",
            ErrorKind::Empty => "Empty",
            ErrorKind::UnclosedSection(_) => "UnclosedSection",
            ErrorKind::EmptySectionName => "EmptySectionName",
            ErrorKind::OptionOutsideSection(_) => "OptionOutsideSection",
            ErrorKind::UnknownOption { .. } => "UnknownOption",
            ErrorKind::UnsupportedOption { .. } => "UnsupportedOption",
            ErrorKind::UnsupportedValue { .. } => "UnsupportedValue",
            ErrorKind::UnsupportedEngine { .. } => "UnsupportedEngine",
            ErrorKind::InvalidValue { .. } => "InvalidValue",
            ErrorKind::MissingValue(_) => "MissingValue",
            ErrorKind::InvalidJob { .. } => "InvalidJob",
            ErrorKind::UnknownReference { .. } => "UnknownReference",
            ErrorKind::Duplicate { .. } => "Duplicate",
            ErrorKind::RemoteHost { .. } => "RemoteHost",
            ErrorKind::UnsupportedParameter { .. } => "UnsupportedParameter",
            ErrorKind::Syntax(_) => "Syntax",
            ErrorKind::Other(_) => "Other",
            ErrorKind::Refusals(_) => "Refusals",
        }
    }
}

/// `why` without the fix a unit parser puts at its end ("'x' is not a size; write a number
/// ..."): the caller's fix is the one to give, since it knows the option (max_latency= takes
/// microseconds where the parser's hint says seconds), and a message says its fix once.
fn without_own_fix(why: &str) -> &str {
    ["; write ", "; use ", "; give ", "; set "]
        .iter()
        .filter_map(|hint| why.find(hint))
        .min()
        .map_or(why, |at| &why[..at])
}

fn why_and_fix(why: &str, fix: &str) -> String {
    if fix.is_empty() {
        why.to_string()
    } else {
        format!("{}; {fix}", without_own_fix(why))
    }
}

/// Longest word an error quotes whole: longer ones (a value of a million characters) are cut.
const WORD_MAX_CHARS: usize = 80;
/// Longest error line: past it, the middle is cut (the fix at the end stays).
const LINE_MAX_CHARS: usize = 600;

/// `text` with every word longer than [`WORD_MAX_CHARS`] cut, and the whole kept within
/// [`LINE_MAX_CHARS`]: one line of a job file may be a hundred megabytes, its error not.
fn bounded(text: &str) -> String {
    let words: Vec<String> = text
        .split(' ')
        .map(|word| {
            let count = word.chars().count();
            if count <= WORD_MAX_CHARS {
                word.to_string()
            } else {
                let cut: String = word.chars().take(WORD_MAX_CHARS - 3).collect();
                format!("{cut}...({count} characters)")
            }
        })
        .collect();
    let line = words.join(" ");
    let count = line.chars().count();
    if count <= LINE_MAX_CHARS {
        return line;
    }
    let head: String = line.chars().take(LINE_MAX_CHARS - 200).collect();
    let tail: String = line.chars().skip(count - 150).collect();
    format!("{head} ... {tail}")
}

fn suggestion_text(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(known) => format!(" (did you mean '{known}'?)"),
        None => String::new(),
    }
}

/// A job-file error with its place. Renders as `file:line: message` on one line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}", self.render())]
pub struct JobFileError {
    /// File name as given (or `command line`).
    pub file: String,
    /// 1-based line; 0 when the error concerns the whole file.
    pub line: usize,
    /// The option (or vdbench keyword) at fault, when there is one.
    pub key: Option<String>,
    /// Boxed to keep `Result<_, JobFileError>` small on the happy path.
    pub kind: Box<ErrorKind>,
}

impl JobFileError {
    pub fn new(file: impl Into<String>, line: usize, key: Option<&str>, kind: ErrorKind) -> Self {
        JobFileError {
            file: file.into(),
            line,
            key: key.map(str::to_string),
            kind: Box::new(kind),
        }
    }

    fn render(&self) -> String {
        if let ErrorKind::Refusals(all) = self.kind.as_ref() {
            // One line per refusal, each with its own file and line.
            let lines: Vec<String> = all.iter().map(JobFileError::render).collect();
            return format!(
                "{}: {} options iofit refuses (a run stops at the first):\n{}",
                self.file,
                all.len(),
                lines.join("\n")
            );
        }
        let text = bounded(&self.kind.to_string().replace(['\n', '\r'], " "));
        if self.line == 0 {
            format!("{}: {}", self.file, text)
        } else {
            format!("{}: {}", place(&self.file, self.line), text)
        }
    }
}

/// `file:line`, or `command line, argument N` for options given as arguments: their number
/// counts arguments, and `command line:4` would read like a line of some file.
fn place(file: &str, line: usize) -> String {
    if file == COMMAND_LINE {
        format!("{file}, argument {line}")
    } else {
        format!("{file}:{line}")
    }
}

/// Where a value came from: used to build errors after the text has been read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

impl Location {
    pub fn new(file: impl Into<String>, line: usize) -> Self {
        Location {
            file: file.into(),
            line,
        }
    }
    pub fn error(&self, key: Option<&str>, kind: ErrorKind) -> JobFileError {
        JobFileError::new(self.file.clone(), self.line, key, kind)
    }
    pub fn invalid(
        &self,
        key: &str,
        value: &str,
        why: impl Into<String>,
        fix: impl Into<String>,
    ) -> JobFileError {
        self.error(
            Some(key),
            ErrorKind::InvalidValue {
                key: key.to_string(),
                value: value.to_string(),
                why: why.into(),
                fix: fix.into(),
            },
        )
    }
    pub fn unsupported_value(
        &self,
        key: &str,
        value: &str,
        why: impl Into<String>,
        fix: impl Into<String>,
    ) -> JobFileError {
        self.error(
            Some(key),
            ErrorKind::UnsupportedValue {
                key: key.to_string(),
                value: value.to_string(),
                why: why.into(),
                fix: fix.into(),
            },
        )
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&place(&self.file, self.line))
    }
}

/// Words longer than this get no "did you mean": no option name is near that long, and the
/// comparison costs the word's length times each name's (a 16 MB key against every option
/// took minutes).
pub const MAX_HINT_WORD_CHARS: usize = 64;

/// The closest name in `candidates` to `word`, when it is close enough to be a useful hint.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    if word.len() > MAX_HINT_WORD_CHARS {
        return None;
    }
    let word_lower = word.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score = strsim::jaro_winkler(&word_lower, candidate);
        let better = match best {
            Some((best_score, _)) => score > best_score,
            None => true,
        };
        if better {
            best = Some((score, candidate));
        }
    }
    best.filter(|(score, _)| *score >= 0.8)
        .map(|(_, name)| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_of_absurd_length_gets_no_hint_and_costs_nothing() {
        let names = ["iodepth", "ioengine", "rw", "bs"];
        assert_eq!(nearest("iodpeth", names), Some("iodepth".to_string()));
        let huge = format!("iodepth{}", "x".repeat(16 << 20));
        let start = std::time::Instant::now();
        assert_eq!(nearest(&huge, names), None);
        assert!(start.elapsed() < std::time::Duration::from_millis(100));
    }

    #[test]
    fn a_huge_value_is_quoted_short_and_the_fix_stays() {
        let value = "x".repeat(1_000_000);
        let error = Location::new("big.fio", 2).invalid(
            "bs",
            &value,
            format!("'{value}' is not a size"),
            "write a number with an optional suffix such as 4k",
        );
        let text = error.to_string();
        assert!(
            text.chars().count() <= LINE_MAX_CHARS + 20,
            "{}",
            text.len()
        );
        assert!(text.starts_with("big.fio:2: bs=xxx"), "{text}");
        assert!(
            text.contains("...(1000003 characters) is invalid"),
            "{text}"
        );
        assert!(text.ends_with("such as 4k"), "{text}");
    }

    #[test]
    fn a_why_that_carries_its_own_fix_is_not_given_a_second() {
        let error = Location::new("command line", 3).invalid(
            "runtime",
            "abc",
            "'abc' is not a time; write a number with an optional unit such as 30s",
            "write a number of seconds",
        );
        let text = error.to_string();
        assert_eq!(text.matches("write a number").count(), 1, "{text}");
        assert!(
            text.ends_with("not a time; write a number of seconds"),
            "{text}"
        );
        let plain = Location::new("j.fio", 1).invalid("bs", "0", "a size of 0", "write 4k");
        assert!(
            plain.to_string().ends_with("a size of 0; write 4k"),
            "{plain}"
        );
    }
}
