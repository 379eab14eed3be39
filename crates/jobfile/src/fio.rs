//! fio job files (ini) and fio-style command-line jobs, lowered to [`JobSpec`]s.
//!
//! Semantics follow fio's HOWTO: `[global]` options apply to every job section after them;
//! a job section inherits them and may override; options apply in order, last one wins; sizes
//! without a unit are bytes (suffixes per `kb_base`); times without a unit are seconds;
//! `bs=4k,8k` gives reads 4k and writes 8k. Options given on iofit's command line
//! ([`ParseOptions::overrides`]) apply to every job after the file's own, so they win.

pub(crate) mod apply;
pub(crate) mod compat;
pub(crate) mod control;
pub(crate) mod data;
pub(crate) mod engine_opts;
pub(crate) mod errors;
mod finish;
mod jobs;
pub(crate) mod paths;
mod reader;
pub(crate) mod render;
pub(crate) mod replay;
pub(crate) mod trim;

pub use crate::fio_options::PathKind;
pub use paths::{job_paths, path_options, JobPaths, NamedPath, PathOption};

use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::fio_options::{self, Status};
use crate::values;
use apply::Arg;
use iofit_model::job::JobSpec;
use jobs::build_jobs;
use reader::{quote, Reader};
use std::path::Path;

/// How to parse: the caller's overrides and leniency.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParseOptions {
    /// fio options given on iofit's command line (`runtime=30`, `size=64m`, `directory=/tmp/x`),
    /// applied to every job after the file's own options, so they win.
    pub overrides: Vec<(String, String)>,
    /// Skip options fio does not know instead of failing (fio's own options that iofit does not
    /// implement are still errors: skipping them would change what the job measures).
    pub ignore_unknown: bool,
    /// Only these job sections (fio `--section`); empty: all. `[global]` sections always apply.
    pub sections: Vec<String>,
    /// Do not look at the targets (whether files exist): fio's `--parse-only`.
    pub skip_target_checks: bool,
    /// The jobs run on other machines (`--hosts`): how many clones each machine starts in
    /// time is checked there (by the engine, with that machine's CPUs), not against this one.
    pub run_elsewhere: bool,
}

pub use crate::error::COMMAND_LINE;
pub use crate::fio_options::names as option_names;

/// Includes may nest this deep (fio has no limit; a loop would otherwise never end).
const MAX_INCLUDE_DEPTH: usize = 8;

/// One `key[=value]` as written, with its place.
#[derive(Clone, Debug)]
struct RawOption {
    key: String,
    value: Option<String>,
    loc: Location,
}

#[derive(Clone, Debug)]
struct Section {
    name: String,
    loc: Location,
    options: Vec<RawOption>,
}

/// Parses a fio job file.
pub fn parse_file(path: &Path, opts: &ParseOptions) -> Result<Vec<JobSpec>, JobFileError> {
    let source_name = path.display().to_string();
    let text = read_text(path, &source_name)?;
    let base_dir = path.parent().map(Path::to_path_buf);
    parse_text(&text, &source_name, base_dir.as_deref(), opts)
}

/// Parses fio job-file text; `source_name` names it in errors. `include` lines resolve against
/// the current directory.
pub fn parse_str(
    text: &str,
    source_name: &str,
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    parse_text(text, source_name, None, opts)
}

/// Parses `text` as the job file at `path` (its contents after a substitution, such as a
/// `--hosts` run's `${HOST}`): named by `path` in errors, its includes resolved next to it,
/// as [`parse_file`] does.
pub fn parse_str_as_file(
    text: &str,
    path: &Path,
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    let base_dir = path.parent().map(Path::to_path_buf);
    parse_text(text, &path.display().to_string(), base_dir.as_deref(), opts)
}

/// Parses fio-style command-line jobs: `--name=a --rw=randread --bs=4k ...`. Options before the
/// first `--name` are global; each `--name` starts a job. `--key value` works for options that
/// take a value. In errors, the "line" is the argument's position (1-based).
pub fn parse_command_line(
    args: &[String],
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    let mut global: Vec<RawOption> = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    let mut index = 0;
    while index < args.len() {
        let position = index + 1;
        let loc = Location::new(COMMAND_LINE, position);
        let arg = &args[index];
        let Some(body) = arg.strip_prefix("--") else {
            return Err(loc.error(
                None,
                ErrorKind::Other(format!(
                    "'{arg}' is not a job option; write job options as --key=value (for example --rw=randread)"
                )),
            ));
        };
        let (key, mut value) = match body.split_once('=') {
            Some((key, value)) => (key.trim().to_string(), Some(value.to_string())),
            None => (body.trim().to_string(), None),
        };
        if key.is_empty() {
            return Err(loc.error(
                None,
                ErrorKind::Other(format!("'{arg}' has no option name; write --key=value")),
            ));
        }
        if value.is_none() && !fio_options::is_flag(&key) {
            if let Some(next) = args.get(index + 1) {
                if !next.starts_with("--") {
                    value = Some(next.clone());
                    index += 1;
                }
            }
        }
        index += 1;
        if key == "name" {
            let name = value.clone().unwrap_or_default();
            if name.trim().is_empty() {
                return Err(loc.error(Some("name"), ErrorKind::MissingValue("name".into())));
            }
            // `--name` is an option on fio's command line, and its JSON lists it with the job's.
            let name = name.trim().to_string();
            sections.push(Section {
                name: name.clone(),
                loc: loc.clone(),
                options: vec![RawOption {
                    key,
                    value: Some(name),
                    loc,
                }],
            });
            continue;
        }
        let option = RawOption { key, value, loc };
        match sections.last_mut() {
            Some(section) => section.options.push(option),
            None => global.push(option),
        }
    }
    if sections.is_empty() {
        return Err(JobFileError::new(
            COMMAND_LINE,
            0,
            Some("name"),
            ErrorKind::Other(
                "no job on the command line; start each job with --name=NAME (for example --name=a --rw=randread --filename=F --size=1g)"
                    .into(),
            ),
        ));
    }
    let mut all = vec![Section {
        name: "global".into(),
        loc: Location::new(COMMAND_LINE, 0),
        options: global,
    }];
    all.extend(sections);
    build_listing_refusals(all, COMMAND_LINE, opts)
}

/// A job file (or an include) larger than this is not a job file.
const MAX_JOB_FILE_BYTES: u64 = 16 << 20;

/// All the text a job file pulls in through includes, together: a fan-out (a file including
/// another ten times, which includes another ten times...) stops here rather than filling memory.
const MAX_EXPANDED_BYTES: u64 = 64 << 20;

/// Reads a job file as UTF-8 text: a regular file (not a device or a pipe) of at most
/// [`MAX_JOB_FILE_BYTES`], refusing binary data.
pub(crate) fn read_text(path: &Path, source_name: &str) -> Result<String, JobFileError> {
    use std::io::Read;
    let io_error =
        |e: std::io::Error| JobFileError::new(source_name, 0, None, ErrorKind::Io(e.to_string()));
    let file = std::fs::File::open(path).map_err(io_error)?;
    // Job files and their includes are inputs: no output of the run may replace one.
    iofit_safefs::input::note_input(&file, path);
    let meta = file.metadata().map_err(io_error)?;
    if !meta.is_file() {
        return Err(JobFileError::new(
            source_name,
            0,
            None,
            ErrorKind::Io("not a regular file; give a job file".into()),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_JOB_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_JOB_FILE_BYTES {
        return Err(JobFileError::new(
            source_name,
            0,
            None,
            ErrorKind::Io(format!(
                "larger than {} MiB, more than any job file; give a job file",
                MAX_JOB_FILE_BYTES >> 20
            )),
        ));
    }
    if bytes.contains(&0) {
        return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| JobFileError::new(source_name, 0, None, ErrorKind::Binary))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

fn parse_text(
    text: &str,
    source_name: &str,
    base_dir: Option<&Path>,
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    let mut reader = Reader {
        sections: Vec::new(),
        expanded_bytes: text.len() as u64,
        vars: &values::SystemVars::of_this_machine(),
        unset_env: Vec::new(),
    };
    reader.read_sections(text, source_name, base_dir, 0)?;
    let mut jobs = build_listing_refusals(reader.sections, source_name, opts)?;
    for job in &mut jobs {
        job.notes.extend(reader.unset_env.iter().cloned());
    }
    Ok(jobs)
}

/// [`build_jobs`]; with `--parse-only`, a failure lists every refusal of the file at once (a
/// run stops at the first).
fn build_listing_refusals(
    sections: Vec<Section>,
    source_name: &str,
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    if !opts.skip_target_checks {
        return build_jobs(sections, source_name, opts);
    }
    let kept = sections.clone();
    build_jobs(sections, source_name, opts).map_err(|first| {
        let mut all = refusals(&kept, opts);
        if !all
            .iter()
            .any(|e| e.line == first.line && e.key == first.key)
        {
            all.push(first.clone());
            all.sort_by_key(|e| e.line);
        }
        match all.len() {
            0 | 1 => first,
            _ => JobFileError::new(source_name, 0, None, ErrorKind::Refusals(all)),
        }
    })
}

/// Every option of `sections` iofit refuses by name: an option fio does not know, one iofit
/// does not implement, an engine it cannot run. Values are not judged here (they may depend
/// on the other options of the job); the parse's own first error is added by the caller.
fn refusals(sections: &[Section], opts: &ParseOptions) -> Vec<JobFileError> {
    let table = fio_options::table();
    let mut out = Vec::new();
    for option in sections.iter().flat_map(|s| &s.options) {
        let key = option.key.as_str();
        let error = |kind| Some(option.loc.error(Some(key), kind));
        let found = match table.find(key) {
            None if opts.ignore_unknown => None,
            None => match fio_options::fio_program_option(key) {
                Some(why) => error(ErrorKind::UnsupportedOption {
                    key: key.to_string(),
                    why: why.to_string(),
                }),
                None => error(ErrorKind::UnknownOption {
                    key: quote(key),
                    suggestion: nearest(key, table.names()),
                }),
            },
            Some(known) => match known.status {
                Status::Refused(why) => error(ErrorKind::UnsupportedOption {
                    key: key.to_string(),
                    why: why.to_string(),
                }),
                _ if key == "ioengine" => {
                    let name = option.value.as_deref().unwrap_or("").trim();
                    match fio_options::engine(name) {
                        fio_options::EngineChoice::Refused(why) => {
                            error(ErrorKind::UnsupportedEngine {
                                engine: name.to_string(),
                                why: why.to_string(),
                            })
                        }
                        _ => None,
                    }
                }
                _ => None,
            },
        };
        out.extend(found);
    }
    out
}

/// Options a job runs with, named as fio names them (fio's "job options" in JSON, and
/// `--parse-only`): every option of the table whose value in `job` differs from fio's default,
/// written by the table's renderer, so parsing them again gives the same job.
pub fn job_options(job: &JobSpec) -> Vec<(String, String)> {
    fio_options::table()
        .rows()
        .filter_map(|option| match option.render {
            render::Render::Value(text) => Some((option.name.to_string(), text(job)?)),
            _ => None,
        })
        // The job's name is its section; it is not one of its options.
        .filter(|(name, _)| name != "name")
        .collect()
}

/// A whole-number option (`iodepth`, `numjobs`...) given outside a job file (a preset's
/// flags), checked as a job file's would be: at least 1 and within the table's bounds.
pub fn check_count_option(key: &str, value: &str) -> Result<u32, JobFileError> {
    let loc = Location::new(COMMAND_LINE, 0);
    let arg = Arg {
        key,
        value: Some(value),
        loc: &loc,
        bounds: fio_options::table().find(key).and_then(|o| o.bounds),
    };
    arg.positive_count("0 is not a count")
}

/// The text of a job file holding `jobs`, one section each, from [`job_options`].
pub fn job_file_text(jobs: &[JobSpec]) -> String {
    let mut text = String::new();
    let mut group = None;
    for job in jobs {
        text.push_str(&format!("[{}]\n", job.name));
        for (key, value) in job_options(job) {
            text.push_str(&format!("{key}={value}\n"));
        }
        // A new reporting group without a stonewall is fio's new_group.
        if group.is_some_and(|g| g != job.group_id) && !job.stonewall {
            text.push_str("new_group=1\n");
        }
        group = Some(job.group_id);
    }
    text
}

/// fio's `filename=a:b` with `\:` for a literal colon.
fn split_filenames(value: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                current.push(':');
                chars.next();
            }
            ':' => names.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    names.push(current);
    names
        .into_iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod compat_tests;
#[cfg(test)]
mod control_tests;
#[cfg(test)]
mod options3_tests;
#[cfg(test)]
mod registry_tests;
#[cfg(test)]
mod tests;
