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
pub(crate) mod paths;
pub(crate) mod render;
pub(crate) mod replay;
pub(crate) mod trim;

pub use crate::fio_options::PathKind;
pub use paths::{job_paths, path_options, JobPaths, NamedPath, PathOption};

use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::fio_options::{self, Status};
use crate::values::{self, size_base_from_kb_base};
use apply::{Arg, Builder, Ctx, Placed};
use iofit_model::job::{BlockSizeSpec, JobSpec, PerDirection, RwMode, SizeSpec, Target};
use iofit_model::units::{Bytes, SizeBase};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

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

/// Splits job text into sections, following includes within the depth and size budgets.
struct Reader<'a> {
    sections: Vec<Section>,
    expanded_bytes: u64,
    vars: &'a values::SystemVars,
    /// Notes on `${NAME}`s that were not set (fio reads them as empty).
    unset_env: Vec<String>,
}

impl Reader<'_> {
    fn read_sections(
        &mut self,
        text: &str,
        source_name: &str,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if text.contains('\0') {
            return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
        }
        for (index, raw_line) in text.lines().enumerate() {
            let loc = Location::new(source_name, index + 1);
            // fio (parse.c strip_blank_end) ends a line at its first ';' or '#'.
            let line = raw_line.split([';', '#']).next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            if line.chars().any(|c| c.is_control() && c != '\t') {
                return Err(loc.error(None, ErrorKind::Binary));
            }
            if let Some(rest) = line.strip_prefix('[') {
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(loc.error(None, ErrorKind::UnclosedSection(quote(line))));
                };
                let name = inner.trim();
                if name.is_empty() {
                    return Err(loc.error(None, ErrorKind::EmptySectionName));
                }
                self.sections.push(Section {
                    name: name.to_string(),
                    loc,
                    options: Vec::new(),
                });
                continue;
            }
            if let Some(include) = line.strip_prefix("include ") {
                self.include(include.trim(), &loc, base_dir, depth)?;
                continue;
            }
            let (key, value) = match line.split_once('=') {
                Some((key, value)) => {
                    let key = key.trim();
                    let value = expand_env(value.trim(), key, &loc, &mut self.unset_env)?;
                    let substituted = self.vars.substitute(&value);
                    let value = values::bc_after_keywords(&value, substituted);
                    let value = values::evaluate_arithmetic(&value, is_time_option(key)).map_err(
                        |why| {
                            loc.invalid(
                                key,
                                &value,
                                why,
                                "write (EXPRESSION) with + - * / % ^ and numbers, e.g. (1024*8)k",
                            )
                        },
                    )?;
                    (key, Some(value))
                }
                None => (line, None),
            };
            if key.is_empty() || key.contains(char::is_whitespace) {
                return Err(loc.error(
                    None,
                    ErrorKind::Other(format!(
                        "'{}' is not an option line; write key=value, a bare flag, or [section]",
                        quote(line)
                    )),
                ));
            }
            let Some(section) = self.sections.last_mut() else {
                return Err(loc.error(Some(key), ErrorKind::OptionOutsideSection(key.to_string())));
            };
            section.options.push(RawOption {
                key: key.to_string(),
                value,
                loc,
            });
        }
        Ok(())
    }

    fn include(
        &mut self,
        include: &str,
        loc: &Location,
        base_dir: Option<&Path>,
        depth: usize,
    ) -> Result<(), JobFileError> {
        if depth >= MAX_INCLUDE_DEPTH {
            return Err(loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "include {} nests more than {MAX_INCLUDE_DEPTH} deep; an include loop?",
                    quote(include)
                )),
            ));
        }
        let path = match base_dir {
            Some(dir) if Path::new(include).is_relative() => dir.join(include),
            _ => PathBuf::from(include),
        };
        let included_name = path.display().to_string();
        let included = read_text(&path, &included_name).map_err(|e| {
            loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "cannot include {}: {}",
                    quote(&included_name),
                    e.kind
                )),
            )
        })?;
        self.expanded_bytes += included.len() as u64;
        if self.expanded_bytes > MAX_EXPANDED_BYTES {
            return Err(loc.error(
                Some("include"),
                ErrorKind::Other(format!(
                    "the includes add up to more than {} MiB of job text; an include fan-out? include each file once",
                    MAX_EXPANDED_BYTES >> 20
                )),
            ));
        }
        let included_dir = path.parent().map(Path::to_path_buf);
        self.read_sections(
            &included,
            &included_name,
            included_dir.as_deref(),
            depth + 1,
        )
    }
}

/// At most ~80 characters of what the user wrote, for error messages.
fn quote(text: &str) -> String {
    const MAX_CHARS: usize = 80;
    if text.chars().count() <= MAX_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_CHARS).collect();
    format!("{cut}...")
}

/// fio reads an expression's result for a time option in microseconds (HOWTO, "Parameter
/// types"); the table says which options take a time.
fn is_time_option(key: &str) -> bool {
    fio_options::table().find(key).is_some_and(|o| o.takes_time)
}

/// fio expands `${NAME}` in option values from the environment, an unset variable to nothing
/// (`write_bw_log=${TESTNAME}` then logs under the job's name); iofit does the same and says so
/// in a note (`notes`), since the job may not be the one its author meant.
fn expand_env(
    value: &str,
    key: &str,
    loc: &Location,
    notes: &mut Vec<String>,
) -> Result<String, JobFileError> {
    if !value.contains("${") {
        return Ok(value.to_string());
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(loc.invalid(key, &quote(value), "a '${' is not closed", "write ${NAME}"));
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err(loc.invalid(
                key,
                value,
                "'${}' names no variable",
                "write ${NAME} with the variable's name",
            ));
        }
        match std::env::var(name) {
            Ok(expanded) => out.push_str(&expanded),
            Err(_) => notes.push(format!(
                "{}:{}: {key}: environment variable '{}' is not set; read as empty, as fio reads it (set it to give the value)",
                loc.file,
                loc.line,
                quote(name)
            )),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Turns sections into jobs: `[global]` accumulates, every other section is a job. Linear in
/// the number of sections (job names are looked up in a hash map).
fn build_jobs(
    sections: Vec<Section>,
    source_name: &str,
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    let overrides: Vec<RawOption> = opts
        .overrides
        .iter()
        .enumerate()
        .map(|(index, (key, value))| RawOption {
            key: key.trim().trim_start_matches("--").to_string(),
            value: Some(value.clone()),
            loc: Location::new(COMMAND_LINE, index + 1),
        })
        .collect();
    let wanted: HashSet<&str> = opts.sections.iter().map(String::as_str).collect();
    let mut global: Vec<RawOption> = Vec::new();
    let mut jobs: Vec<JobSpec> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut locations: Vec<Location> = Vec::new();
    let mut group_id = 0u32;
    // Clones the jobs of the current set (up to the next stonewall) start at once, and the
    // most this machine starts (read once: it looks at the CPU affinity and cgroup files).
    let mut set_clones = 0u32;
    let here = std::cell::OnceCell::new();
    for section in sections {
        // fio treats every section whose name starts with "global" as global.
        if section.name.starts_with("global") {
            global.extend(section.options);
            continue;
        }
        // fio runs sections of the same name as jobs of their own with that name (public job
        // files repeat `[Rand-Read]` with other block sizes); without filename= they share
        // fio's file names, as under fio.
        seen.entry(section.name.clone()).or_insert(section.loc.line);
        // fio --section: only the named jobs run; [global] sections always apply.
        if !wanted.is_empty() && !wanted.contains(section.name.as_str()) {
            continue;
        }
        let options: Vec<&RawOption> = global
            .iter()
            .chain(section.options.iter())
            .chain(overrides.iter())
            .collect();
        let mut job = resolve_job(&section.name, &section.loc, &options, opts)?;
        // fio names a job after its section; a name= in [global] names no job (only one in
        // the section itself does).
        if !section.options.iter().any(|o| o.key == "name") {
            job.name = section.name.clone();
        }
        bound_start_delay(&mut job, &overrides);
        job.reporting.global_options = written(&global);
        job.reporting.job_options = written(section.options.iter().chain(overrides.iter()));
        if !jobs.is_empty() && (job.stonewall || job.group_id == NEW_GROUP_MARK) {
            group_id += 1;
        }
        job.group_id = group_id;
        if jobs.is_empty() || job.stonewall {
            set_clones = 0;
        }
        set_clones = set_clones.saturating_add(job.numjobs.max(1));
        if !opts.skip_target_checks && !opts.run_elsewhere {
            let numjobs_at = options
                .iter()
                .rev()
                .find(|o| o.key == option_names::NUMJOBS);
            let here = *here.get_or_init(iofit_model::limits::max_clones_here);
            check_clones_here(&job, set_clones, here, numjobs_at.copied(), &section.loc)?;
        }
        jobs.push(job);
        locations.push(section.loc.clone());
    }
    if let Some(missing) = opts.sections.iter().find(|name| !seen.contains_key(*name)) {
        return Err(JobFileError::new(
            source_name,
            0,
            Some("section"),
            ErrorKind::Other(format!(
                "--section {} names no job section of the file; give a [name] the file defines",
                quote(missing)
            )),
        ));
    }
    // fio's --parse-only accepts a file of only [global] sections (it may be an include or
    // given with others); a run refuses it.
    if jobs.is_empty() && !opts.skip_target_checks {
        return Err(JobFileError::new(source_name, 0, None, ErrorKind::Empty));
    }
    Ok(jobs)
}

/// Refuses a job whose set starts more clones at once (`set_clones`, this job's included)
/// than this machine starts and ends within a second of the runtime (`limit` on `cpus`, from
/// `iofit_model::limits`), at the `numjobs` that asked for them (else the job's section).
fn check_clones_here(
    job: &JobSpec,
    set_clones: u32,
    (limit, cpus): (u32, u32),
    numjobs_at: Option<&RawOption>,
    section_loc: &Location,
) -> Result<(), JobFileError> {
    use iofit_model::limits::{MAX_CLONES_PER_CPU, OVERRUN_BUDGET};
    if set_clones <= limit {
        return Ok(());
    }
    let others = set_clones - job.numjobs.max(1);
    let room = limit.saturating_sub(others);
    let asked = if others > 0 {
        format!(
            "its set starts {set_clones} clones at once ({} here, {others} in the jobs before it with no stonewall between)",
            job.numjobs.max(1)
        )
    } else {
        format!("{set_clones} clones")
    };
    let why = format!(
        "{asked}: more than this machine starts and ends within {} s of the runtime, at most {limit} at once ({cpus} CPU(s) x {MAX_CLONES_PER_CPU}, iofit_model::limits)",
        OVERRUN_BUDGET.as_secs()
    );
    let fix = if room > 0 {
        format!("write numjobs={room} or less, put stonewall before this job, or run on a machine with more CPUs")
    } else {
        "put stonewall before this job, or run on a machine with more CPUs".to_string()
    };
    let (loc, value) = match numjobs_at {
        Some(option) => (&option.loc, option.value.as_deref().unwrap_or("").trim()),
        None => (section_loc, "1"),
    };
    Err(loc.invalid(option_names::NUMJOBS, value, why, fix))
}

/// Options as written, for fio's JSON `"job options"`/`"global options"`: valued ones only (fio
/// leaves bare flags out), values trimmed.
fn written<'a>(options: impl IntoIterator<Item = &'a RawOption>) -> Vec<(String, String)> {
    options
        .into_iter()
        .filter_map(|o| Some((o.key.clone(), o.value.as_deref()?.trim().to_string())))
        .collect()
}

/// `resolve_job` sets this group id when the job asked for `new_group`; `build_jobs` replaces it
/// with the real number.
const NEW_GROUP_MARK: u32 = u32::MAX;

/// Applies a job's options in order through the option table.
fn resolve_job(
    section_name: &str,
    section_loc: &Location,
    options: &[&RawOption],
    opts: &ParseOptions,
) -> Result<JobSpec, JobFileError> {
    // kb_base changes how every size reads, wherever it is written: find it first.
    let mut base = SizeBase::Binary;
    for option in options.iter().filter(|o| o.key == "kb_base") {
        let arg = Arg {
            key: &option.key,
            value: option.value.as_deref(),
            loc: &option.loc,
            bounds: None,
        };
        let value = arg.value()?;
        base = size_base_from_kb_base(value)
            .map_err(|why| arg.invalid(why, "write kb_base=1024 or kb_base=1000"))?;
    }
    let mut ctx = Ctx {
        job: JobSpec::new(
            section_name,
            Target::Directory {
                path: PathBuf::from("."),
                nrfiles: 1,
            },
        ),
        b: Builder::default(),
        base,
    };
    let table = fio_options::table();
    // The engine first: a job that needs an engine iofit does not have says that, rather than
    // naming one of the engine's options.
    if let Some(engine) = options.iter().rev().find(|o| o.key == "ioengine") {
        let arg = Arg {
            key: &engine.key,
            value: engine.value.as_deref(),
            loc: &engine.loc,
            bounds: None,
        };
        apply::ioengine(&mut ctx, &arg)?;
    }
    for option in options {
        let key = option.key.as_str();
        let Some(known) = table.find(key) else {
            if opts.ignore_unknown {
                ctx.note(format!(
                    "{}: unknown option '{key}' ignored (--ignore-unknown)",
                    option.loc
                ));
                continue;
            }
            if let Some(why) = fio_options::fio_program_option(key) {
                return Err(option.loc.error(
                    Some(key),
                    ErrorKind::UnsupportedOption {
                        key: key.to_string(),
                        why: why.to_string(),
                    },
                ));
            }
            return Err(option.loc.error(
                Some(key),
                ErrorKind::UnknownOption {
                    key: quote(key),
                    suggestion: nearest(key, table.names()),
                },
            ));
        };
        let arg = Arg {
            key,
            value: option.value.as_deref(),
            loc: &option.loc,
            bounds: known.bounds,
        };
        match known.status {
            Status::Supported(apply) => apply(&mut ctx, &arg)?,
            Status::Noted(apply, note) => {
                apply(&mut ctx, &arg)?;
                ctx.note(note);
            }
            Status::Refused(why) => {
                return Err(option.loc.error(
                    Some(key),
                    ErrorKind::UnsupportedOption {
                        key: key.to_string(),
                        why: why.to_string(),
                    },
                ))
            }
        }
    }
    finish(ctx, section_loc, opts)
}

fn finish(ctx: Ctx, section_loc: &Location, opts: &ParseOptions) -> Result<JobSpec, JobFileError> {
    let Ctx { mut job, mut b, .. } = ctx;
    job = finish_mode(job, &b, opts)?;
    let bs_loc = finish_block_sizes(&mut job, &mut b);
    let (file_count, target_loc) = finish_target(&mut job, &b)?;
    check_blockalign(&mut job, &b)?;
    control::settle_steady_state(&mut job, &mut b)?;
    control::settle_latency_target(&mut job, &mut b)?;
    if job.file_sync.pre_read && job.direct {
        let note = "pre_read with direct=1: the job's IO bypasses the page cache, so iofit reads nothing ahead (fio's pre-read through the job's O_DIRECT descriptor leaves nothing cached either)".to_string();
        if !job.notes.contains(&note) {
            job.notes.push(note);
        }
    }
    settle_cache_hints(&mut job, &b);
    if let Some(at) = &b.readonly {
        if job.rw.has_writes() || job.rw.has_trims() {
            return Err(at.unsupported_value(
                "readonly",
                "1",
                format!("job {} has rw={}, which writes, and fio's --readonly refuses every job that writes or trims", job.name, job.rw.fio_name()),
                "drop --readonly, or give the job a read-only rw (read, randread)",
            ));
        }
    }
    let placed = Layout {
        file_count,
        bs_loc,
        target_loc,
    };
    finish_size(&mut job, &mut b, opts, &placed, section_loc)?;
    check_direct_sizes(&job, placed.bs_loc, section_loc)?;
    if let Some(at) = &b.log_at {
        check_logs(&mut job, &b, at)?;
    }
    trim::finish(&mut job, section_loc)?;
    if let Some(count) = b.number_ios {
        apply_number_ios(&mut job, count)?;
    }
    if b.new_group {
        job.group_id = NEW_GROUP_MARK;
    }
    Ok(job)
}

/// Where a job's block size and target were given, and how many files the target has: what
/// the size checks need to point at the right line.
struct Layout {
    file_count: u32,
    bs_loc: Option<Location>,
    target_loc: Option<Location>,
}

/// The IO pattern: rw and its mix, direct or buffered, and time_based with its runtime.
fn finish_mode(
    mut job: JobSpec,
    b: &Builder,
    opts: &ParseOptions,
) -> Result<JobSpec, JobFileError> {
    let rw = b.rw.unwrap_or(RwMode::Read);
    job = job.with_rw(rw);
    data::finish(&mut job, &b.dedupe);
    compat::finish_flow(&mut job);
    replay::finish_replay(&mut job);
    if rw.is_mixed() {
        if let Some(read_pct) = b.rwmix_read_pct {
            job.rwmix_read_pct = read_pct;
        }
    }
    if rw.is_random() {
        if let Some(pct) = b.percentage_random {
            job.random_pct = pct;
        }
    }
    // fio: `buffered` is the inverse of `direct` (one option underneath), so the later of the
    // two wins; each clears the other as it is applied.
    job.direct = match (b.direct, b.buffered) {
        (Some(direct), _) => direct,
        (None, Some(buffered)) => !buffered,
        (None, None) => false,
    };
    if let Some(loc) = &b.time_based {
        if job.runtime.is_none() && opts.skip_target_checks {
            // fio's --parse-only accepts it too: the runtime may come from the command line of
            // the run, so only a run refuses it.
            job.notes.push(
                "time_based is set but no runtime: fio --parse-only accepts this, a run refuses it until runtime= or --runtime is given".into(),
            );
        } else if job.runtime.is_none() {
            return Err(loc.error(
                Some("time_based"),
                ErrorKind::InvalidJob {
                    job: job.name.clone(),
                    what: "time_based is set but no runtime".into(),
                    fix: "add runtime= (for example runtime=30) or pass --runtime".into(),
                },
            ));
        }
        job.time_based = true;
    }

    Ok(job)
}

/// The block sizes (bssplit, or bs per direction); returns where bs was given.
fn finish_block_sizes(job: &mut JobSpec, b: &mut Builder) -> Option<Location> {
    job.stated_block_sizes = Some(stated_block_sizes(b));
    let (bs_loc, block_size) = if let Some(split) = b.bssplit.take() {
        let [read, write, trim] = split.value;
        let block_size = if job.rw.has_trims() {
            BlockSizeSpec::Split {
                read: trim.clone(),
                write: trim,
            }
        } else {
            BlockSizeSpec::Split { read, write }
        };
        (Some(split.loc), block_size)
    } else {
        let size = |p: &Option<Placed<Bytes>>| p.as_ref().map(|p| p.value).unwrap_or(Bytes::kib(4));
        let sizes = if job.rw.has_trims() {
            PerDirection::both(size(&b.bs_trim))
        } else {
            PerDirection {
                read: size(&b.bs_read),
                write: size(&b.bs_write),
            }
        };
        (
            b.bs_read.as_ref().map(|p| p.loc.clone()),
            BlockSizeSpec::Fixed(sizes),
        )
    };
    trim_sizes_note(job, b);
    control::finish_trim_rates(job, &b.trim_rates);
    job.block_size = block_size;
    bs_loc
}

/// The files or directory the job does IO on; returns how many files and where it was given.
fn finish_target(job: &mut JobSpec, b: &Builder) -> Result<(u32, Option<Location>), JobFileError> {
    let nrfiles = b.nrfiles.unwrap_or(1);
    let (target, file_count, target_loc) = match (&b.filename, &b.directory) {
        (Some(filename), directory) => {
            let files: Vec<PathBuf> = split_filenames(&filename.value)
                .into_iter()
                .map(|name| match directory {
                    Some(dir) if Path::new(&name).is_relative() => Path::new(&dir.value).join(name),
                    _ => PathBuf::from(name),
                })
                .collect();
            if files.is_empty() {
                return Err(filename
                    .loc
                    .error(Some("filename"), ErrorKind::MissingValue("filename".into())));
            }
            let count = files.len() as u32;
            (Target::Files(files), count, Some(filename.loc.clone()))
        }
        (None, Some(directory)) => {
            if directory.value.contains(':') {
                return Err(directory.loc.unsupported_value(
                    "directory",
                    &directory.value,
                    "several directories in one job",
                    "give one directory per job",
                ));
            }
            (
                Target::Directory {
                    path: PathBuf::from(&directory.value),
                    nrfiles,
                },
                nrfiles,
                Some(directory.loc.clone()),
            )
        }
        (None, None) => (
            Target::Directory {
                path: PathBuf::from("."),
                nrfiles,
            },
            nrfiles,
            None,
        ),
    };
    job.target = target;
    Ok((file_count, target_loc))
}

/// The size per file (fio's size is per clone and divided among the files; filesize is per
/// file), or the note or error when none can be known.
fn finish_size(
    job: &mut JobSpec,
    b: &mut Builder,
    opts: &ParseOptions,
    placed: &Layout,
    section_loc: &Location,
) -> Result<(), JobFileError> {
    let Layout {
        file_count,
        bs_loc,
        target_loc,
    } = placed;
    let file_count = *file_count;
    // fio's filesize is the size of each file; size is then the total the job does IO over.
    let size = match (b.size.take(), &b.filesize) {
        (_, Some(filesize)) => {
            let total = Bytes(
                filesize
                    .value
                    .as_u64()
                    .saturating_mul(u64::from(file_count.max(1))),
            );
            Some(Placed {
                value: SizeSpec::Bytes(total),
                loc: filesize.loc.clone(),
            })
        }
        (size, None) => size,
    };
    // Size: fio's size is per clone and divided among the job's files; JobSpec's is per file.
    match size {
        Some(Placed {
            value: SizeSpec::Bytes(total),
            loc,
        }) => {
            let per_file = Bytes(total.as_u64() / u64::from(file_count.max(1)));
            let max_bs = job.block_size.max_size();
            if per_file < max_bs && opts.skip_target_checks {
                // fio checks this when it sets up the files, so its --parse-only accepts it.
                job.notes.push(format!(
                    "block size {max_bs} is larger than the size per file {per_file}: fio --parse-only accepts this, a run refuses it (as fio does: 'size too small')"
                ));
            } else if per_file < max_bs {
                let (key, at) = match bs_loc {
                    Some(bs_loc) if bs_loc.line >= loc.line || loc.file != bs_loc.file => {
                        ("bs", bs_loc.clone())
                    }
                    _ => ("size", loc.clone()),
                };
                return Err(at.error(
                    Some(key),
                    ErrorKind::InvalidJob {
                        job: job.name.clone(),
                        what: format!(
                            "block size {max_bs} is larger than the size per file {per_file} (size={total} over {file_count} file(s))"
                        ),
                        fix: "make size larger or bs smaller".into(),
                    },
                ));
            }
            job.size = Some(SizeSpec::Bytes(per_file));
        }
        Some(Placed { value, .. }) => job.size = Some(value),
        None => {
            match &job.target {
                // fio's --parse-only does not ask where the size comes from; a run does.
                // fio fill_device: the size is the file system's free space, found at run time.
                Target::Directory { .. } | Target::Files(_) if job.fill_device => {}
                // read_iolog: the log names the files and their extents, read at run time.
                Target::Directory { .. } | Target::Files(_) if job.replay.is_some() => {}
                Target::Directory { .. } if opts.skip_target_checks => job.notes.push(
                    "no size= and no existing file to take the size from: fio --parse-only accepts this, a run refuses it until size= is given".into(),
                ),
                Target::Directory { .. } => {
                    return Err(target_loc.clone().unwrap_or_else(|| section_loc.clone()).error(
                        Some("size"),
                        ErrorKind::InvalidJob {
                            job: job.name.clone(),
                            what: "no size= and no existing file to take the size from (iofit lays the files out itself)".into(),
                            fix: "add size= (for example size=1g) or filename= of an existing file".into(),
                        },
                    ))
                }
                // fio's --parse-only does not look at targets; neither does iofit's.
                Target::Files(_) if opts.skip_target_checks => {}
                Target::Files(files) => {
                    if let Some(missing) = files.iter().find(|f| !f.exists()) {
                        return Err(target_loc.clone().unwrap_or_else(|| section_loc.clone()).error(
                            Some("filename"),
                            ErrorKind::InvalidJob {
                                job: job.name.clone(),
                                what: format!("{} does not exist and no size= is given", missing.display()),
                                fix: "add size= so iofit can create it, or name an existing file".into(),
                            },
                        ));
                    }
                }
            }
        }
    }

    Ok(())
}

/// Direct IO needs sector-aligned sizes.
fn check_direct_sizes(
    job: &JobSpec,
    bs_loc: Option<Location>,
    section_loc: &Location,
) -> Result<(), JobFileError> {
    if job.direct {
        let sizes: Vec<Bytes> = match &job.block_size {
            BlockSizeSpec::Fixed(sizes) => vec![sizes.read, sizes.write],
            BlockSizeSpec::Split { read, write } => {
                read.iter().chain(write.iter()).map(|s| s.size).collect()
            }
        };
        if let Some(odd) = sizes.iter().find(|s| !s.as_u64().is_multiple_of(512)) {
            return Err(bs_loc.unwrap_or_else(|| section_loc.clone()).error(
                Some("bs"),
                ErrorKind::InvalidJob {
                    job: job.name.clone(),
                    what: format!("direct IO needs block sizes that are multiples of 512 bytes, and {} is not", odd.as_u64()),
                    fix: "use a block size such as 4k, or direct=0".into(),
                },
            ));
        }
    }
    Ok(())
}

/// fio's `blockalign`: random offsets are multiples of it (default: the smallest block size).
/// Direct IO needs a multiple of 512 bytes.
fn check_blockalign(job: &mut JobSpec, b: &Builder) -> Result<(), JobFileError> {
    let Some(align) = &b.blockalign else {
        return Ok(());
    };
    let bytes = align.value.as_u64();
    if bytes == 0 {
        return Ok(());
    }
    if job.direct && !bytes.is_multiple_of(512) {
        return Err(align.loc.invalid(
            "blockalign",
            &bytes.to_string(),
            "direct IO needs offsets aligned to 512 bytes",
            "use a multiple of 512 such as blockalign=4k",
        ));
    }
    job.block_align = Some(align.value);
    Ok(())
}

/// The (smallest, largest) size of reads, writes and trims as stated, for fio's header line:
/// a bssplit's sizes per direction, else `bs`'s values (4 KiB where none was given).
fn stated_block_sizes(b: &Builder) -> [(Bytes, Bytes); 3] {
    if let Some(split) = &b.bssplit {
        return split.value.clone().map(|shares| {
            let sizes = shares.iter().map(|share| share.size);
            let low = sizes.clone().min().unwrap_or(Bytes::ZERO);
            (low, sizes.max().unwrap_or(Bytes::ZERO))
        });
    }
    [&b.bs_read, &b.bs_write, &b.bs_trim].map(|stated| {
        let size = stated.as_ref().map(|p| p.value).unwrap_or(Bytes::kib(4));
        (size, size)
    })
}

/// A trim job's sizes are its trims' (fio's third `bs` value); in trimwrite each write takes
/// the length of the trim before it (fio's randtrimwrite rule), so a different write size goes
/// unused, which the job's notes say.
fn trim_sizes_note(job: &mut JobSpec, b: &Builder) {
    let (Some(write), Some(trim)) = (&b.bs_write, &b.bs_trim) else {
        return;
    };
    if job.rw.is_trimwrite() && write.value != trim.value {
        job.notes.push(format!(
            "bs: in rw={} each write has the length of the trim before it ({} bytes); the write size {} bytes is not used (fio's sequential trimwrite uses it)",
            job.rw.fio_name(),
            trim.value.as_u64(),
            write.value.as_u64()
        ));
    }
}

/// iofit writes fio's averaged logs (one line per window and direction) from its interval
/// series: that needs `log_avg_msec` (`log_hist_msec` for the histogram log, the same
/// interval when both are given), one result per clone, and one direction for latency.
fn check_logs(job: &mut JobSpec, b: &Builder, at: &Location) -> Result<(), JobFileError> {
    let refuse = |what: String, fix: &str| {
        Err(at.error(
            None,
            ErrorKind::InvalidJob {
                job: job.name.clone(),
                what,
                fix: fix.into(),
            },
        ))
    };
    if !job.logs.any() {
        return Ok(());
    }
    let averaged = job.logs.bw_prefix.is_some()
        || job.logs.iops_prefix.is_some()
        || job.logs.lat_prefix.is_some();
    if job.logs.hist_prefix.is_some() {
        if b.log_hist_msec == 0 {
            return refuse(
                "iofit writes fio's histogram log per interval, not per IO".into(),
                "add log_hist_msec=N (for example log_hist_msec=1000)",
            );
        }
        if b.log_avg_msec > 0 && b.log_avg_msec != b.log_hist_msec {
            return refuse(
                format!("iofit keeps one interval series, and log_avg_msec={} differs from log_hist_msec={}", b.log_avg_msec, b.log_hist_msec),
                "give log_avg_msec and log_hist_msec the same value",
            );
        }
        job.log_interval = std::time::Duration::from_millis(b.log_hist_msec);
    }
    // No log_avg_msec: fio's per-IO logs, which the engine writes per clone as IOs complete
    // (so group_reporting and mixed jobs are no obstacle).
    // Averaged and histogram logs: every clone writes its own from its own series as it runs
    // (engine/interval_log.rs), group_reporting or not, as fio's `PREFIX_KIND.N.log` per clone.
    job.logs.per_io = averaged && b.log_avg_msec == 0;
    Ok(())
}

/// fio's `number_ios=N`: the job ends after N IOs (or at the end of its region, if sooner). With
/// one block size that is N x bs bytes, an `io_size`.
fn apply_number_ios(job: &mut JobSpec, count: Placed<u64>) -> Result<(), JobFileError> {
    let size = match &job.block_size {
        BlockSizeSpec::Fixed(sizes) if sizes.read == sizes.write || !job.rw.is_mixed() => {
            if job.rw.has_reads() {
                sizes.read
            } else {
                sizes.write
            }
        }
        _ => {
            return Err(count.loc.unsupported_value(
                "number_ios",
                &count.value.to_string(),
                "a count of IOs with more than one block size",
                "give io_size= in bytes instead",
            ))
        }
    };
    let bytes = Bytes(count.value.saturating_mul(size.as_u64()));
    job.io_limit = Some(job.io_limit.map_or(bytes, |limit| limit.min(bytes)));
    Ok(())
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

/// fio's `invalidate` (default 1) and `fadvise_hint` (default 1: the job's pattern), for the
/// buffered jobs where they change what is measured: a direct job's IO bypasses the page cache
/// either way. fio's `pre_read` clears invalidate (dropping what was just read in would undo it).
fn settle_cache_hints(job: &mut JobSpec, b: &apply::Builder) {
    use apply::FadviseChoice as C;
    use iofit_model::job::FadviseHint as H;
    if job.direct || job.engine == iofit_model::job::EngineKind::Null {
        return;
    }
    let asked = b.invalidate.as_ref().map(|i| i.value).unwrap_or(true);
    job.file_sync.invalidate = asked && !job.file_sync.pre_read;
    job.file_sync.fadvise = match b.fadvise_hint.unwrap_or(C::Pattern) {
        C::None => None,
        C::Pattern if job.rw.is_random() => Some(H::Random),
        C::Pattern => Some(H::Sequential),
        C::Fixed(hint) => Some(hint),
    };
}

/// A `--runtime` given to shorten a file bounds its `startdelay` too: a job does not wait
/// longer than the run it was shortened to (with a note). A `--size` alone shortens the IO,
/// not the wait, and the note says how to bound that as well.
fn bound_start_delay(job: &mut JobSpec, overrides: &[RawOption]) {
    if job.start_delay.is_zero() {
        return;
    }
    let given = |key: &str| overrides.iter().any(|o| o.key == key);
    let delay_s = job.start_delay.as_secs_f64();
    match job.runtime {
        Some(runtime) if given(option_names::RUNTIME) && job.start_delay > runtime => {
            job.notes.push(format!(
                "startdelay={delay_s}s is longer than --runtime: the job waits {}s instead (the --runtime given to shorten the file bounds its waits too)",
                runtime.as_secs_f64()
            ));
            job.start_delay = runtime;
        }
        _ if given(option_names::SIZE) && !given(option_names::RUNTIME) => job.notes.push(format!(
            "startdelay={delay_s}s is kept: --size shortens the IO, not the wait; add --runtime to bound the wait as well"
        )),
        _ => {}
    }
}
