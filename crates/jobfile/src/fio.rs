//! fio job files (ini) and fio-style command-line jobs, lowered to [`JobSpec`]s.
//!
//! Semantics follow fio's HOWTO: `[global]` options apply to every job section after them;
//! a job section inherits them and may override; options apply in order, last one wins; sizes
//! without a unit are bytes (suffixes per `kb_base`); times without a unit are seconds;
//! `bs=4k,8k` gives reads 4k and writes 8k. Options given on iofit's command line
//! ([`ParseOptions::overrides`]) apply to every job after the file's own, so they win.

use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::fio_options;
use crate::values::{
    parse_bool, parse_percent, parse_size, parse_time, parse_u32, parse_u64,
    size_base_from_kb_base, split_per_direction,
};
use iofit_model::job::{
    BlockSizeShare, BlockSizeSpec, EngineKind, JobSpec, PerDirection, RwMode, SizeSpec, Target,
};
use iofit_model::units::{Bytes, SizeBase};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How to parse: the caller's overrides and leniency.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParseOptions {
    /// fio options given on iofit's command line (`runtime=30`, `size=64m`, `directory=/tmp/x`),
    /// applied to every job after the file's own options, so they win.
    pub overrides: Vec<(String, String)>,
    /// Skip options fio does not know instead of failing (fio's own options that iofit does not
    /// implement are still errors: skipping them would change what the job measures).
    pub ignore_unknown: bool,
}

/// Where command-line options and overrides are said to come from in errors.
pub const COMMAND_LINE: &str = "command line";

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
            sections.push(Section {
                name: name.trim().to_string(),
                loc: loc.clone(),
                options: Vec::new(),
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
    build_jobs(all, COMMAND_LINE, opts)
}

/// Reads a file as UTF-8 text, refusing binary data.
pub(crate) fn read_text(path: &Path, source_name: &str) -> Result<String, JobFileError> {
    let bytes = std::fs::read(path)
        .map_err(|e| JobFileError::new(source_name, 0, None, ErrorKind::Io(e.to_string())))?;
    if bytes.contains(&0) {
        return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| JobFileError::new(source_name, 0, None, ErrorKind::Binary))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

/// The deepest queue: NVMe's 65,536 entries per queue, deeper than any device takes.
const MAX_IODEPTH: u32 = 65_536;
/// The most clones a job may start: one thread each.
const MAX_NUMJOBS: u32 = 4096;

fn parse_text(
    text: &str,
    source_name: &str,
    base_dir: Option<&Path>,
    opts: &ParseOptions,
) -> Result<Vec<JobSpec>, JobFileError> {
    let mut sections = Vec::new();
    read_sections(text, source_name, base_dir, 0, &mut sections)?;
    build_jobs(sections, source_name, opts)
}

/// Splits text into sections, following `include FILE` lines.
fn read_sections(
    text: &str,
    source_name: &str,
    base_dir: Option<&Path>,
    depth: usize,
    sections: &mut Vec<Section>,
) -> Result<(), JobFileError> {
    if text.contains('\0') {
        return Err(JobFileError::new(source_name, 0, None, ErrorKind::Binary));
    }
    for (index, raw_line) in text.lines().enumerate() {
        let loc = Location::new(source_name, index + 1);
        let line = raw_line.trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if line.chars().any(|c| c.is_control() && c != '\t') {
            return Err(loc.error(None, ErrorKind::Binary));
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some(inner) = rest.strip_suffix(']') else {
                return Err(loc.error(None, ErrorKind::UnclosedSection(line.to_string())));
            };
            let name = inner.trim();
            if name.is_empty() {
                return Err(loc.error(None, ErrorKind::EmptySectionName));
            }
            sections.push(Section {
                name: name.to_string(),
                loc,
                options: Vec::new(),
            });
            continue;
        }
        if let Some(include) = line.strip_prefix("include ") {
            let include = include.trim();
            if depth >= MAX_INCLUDE_DEPTH {
                return Err(loc.error(
                    Some("include"),
                    ErrorKind::Other(format!(
                        "include {include} nests more than {MAX_INCLUDE_DEPTH} deep; an include loop?"
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
                    ErrorKind::Other(format!("cannot include {included_name}: {}", e.kind)),
                )
            })?;
            let included_dir = path.parent().map(Path::to_path_buf);
            read_sections(
                &included,
                &included_name,
                included_dir.as_deref(),
                depth + 1,
                sections,
            )?;
            continue;
        }
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (
                key.trim(),
                Some(expand_env(value.trim(), key.trim(), &loc)?),
            ),
            None => (line, None),
        };
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(loc.error(
                None,
                ErrorKind::Other(format!(
                    "'{line}' is not an option line; write key=value, a bare flag, or [section]"
                )),
            ));
        }
        let Some(section) = sections.last_mut() else {
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

/// fio expands `${NAME}` in option values from the environment; an unset variable is an error
/// here rather than an empty string that would change the job silently.
fn expand_env(value: &str, key: &str, loc: &Location) -> Result<String, JobFileError> {
    if !value.contains("${") {
        return Ok(value.to_string());
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(loc.invalid(key, value, "a '${' is not closed", "write ${NAME}"));
        };
        let name = &after[..end];
        match std::env::var(name) {
            Ok(expanded) => out.push_str(&expanded),
            Err(_) => {
                return Err(loc.invalid(
                    key,
                    value,
                    format!("environment variable '{name}' is not set"),
                    format!("set {name} or write the value itself"),
                ))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Turns sections into jobs: `[global]` accumulates, every other section is a job.
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
    let mut global: Vec<RawOption> = Vec::new();
    let mut jobs: Vec<JobSpec> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut group_id = 0u32;
    for section in sections {
        // fio treats every section whose name starts with "global" as global.
        if section.name.starts_with("global") {
            global.extend(section.options);
            continue;
        }
        if let Some((_, first_line)) = seen.iter().find(|(name, _)| *name == section.name) {
            return Err(section.loc.error(
                None,
                ErrorKind::DuplicateJob {
                    name: section.name.clone(),
                    first_line: *first_line,
                },
            ));
        }
        seen.push((section.name.clone(), section.loc.line));
        let options: Vec<&RawOption> = global
            .iter()
            .chain(section.options.iter())
            .chain(overrides.iter())
            .collect();
        let mut job = resolve_job(&section.name, &section.loc, &options, opts)?;
        if !jobs.is_empty() && (job.stonewall || job.group_id == NEW_GROUP_MARK) {
            group_id += 1;
        }
        job.group_id = group_id;
        jobs.push(job);
    }
    if jobs.is_empty() {
        return Err(JobFileError::new(source_name, 0, None, ErrorKind::Empty));
    }
    Ok(jobs)
}

/// `resolve_job` sets this group id when the job asked for `new_group`; `build_jobs` replaces it
/// with the real number.
const NEW_GROUP_MARK: u32 = u32::MAX;

/// Values of the options whose final value is checked against others, with where they were set.
struct Placed<T> {
    value: T,
    loc: Location,
}

#[derive(Default)]
struct Builder {
    filename: Option<Placed<String>>,
    directory: Option<Placed<String>>,
    size: Option<Placed<SizeSpec>>,
    bs_read: Option<Placed<Bytes>>,
    bs_write: Option<Placed<Bytes>>,
    bssplit: Option<Placed<(Vec<BlockSizeShare>, Vec<BlockSizeShare>)>>,
    rw: Option<RwMode>,
    rwmix_read_pct: Option<f64>,
    percentage_random: Option<f64>,
    nrfiles: Option<u32>,
    time_based: Option<Location>,
    buffered: Option<bool>,
    direct: Option<bool>,
    new_group: bool,
}

fn resolve_job(
    section_name: &str,
    section_loc: &Location,
    options: &[&RawOption],
    opts: &ParseOptions,
) -> Result<JobSpec, JobFileError> {
    // kb_base changes how every size reads, wherever it is written: find it first.
    let mut base = SizeBase::Binary;
    for option in options.iter().filter(|o| o.key == "kb_base") {
        let value = require_value(option)?;
        base = size_base_from_kb_base(value).map_err(|why| {
            option
                .loc
                .invalid("kb_base", value, why, "write kb_base=1024 or kb_base=1000")
        })?;
    }

    let mut job = JobSpec::new(
        section_name,
        Target::Directory {
            path: PathBuf::from("."),
            nrfiles: 1,
        },
    );
    let mut b = Builder::default();
    for option in options {
        let key = option.key.as_str();
        if !fio_options::is_supported(key) {
            if fio_options::is_fio_unsupported(key) {
                return Err(option
                    .loc
                    .error(Some(key), ErrorKind::UnsupportedOption(key.to_string())));
            }
            if opts.ignore_unknown {
                continue;
            }
            return Err(option.loc.error(
                Some(key),
                ErrorKind::UnknownOption {
                    key: key.to_string(),
                    suggestion: nearest(key, fio_options::all_known()),
                },
            ));
        }
        apply_option(&mut job, &mut b, option, base)?;
    }
    finish(job, b, section_loc)
}

fn require_value(option: &RawOption) -> Result<&str, JobFileError> {
    match option.value.as_deref() {
        Some(value) if !value.trim().is_empty() => Ok(value.trim()),
        _ => Err(option.loc.error(
            Some(&option.key),
            ErrorKind::MissingValue(option.key.clone()),
        )),
    }
}

fn apply_option(
    job: &mut JobSpec,
    b: &mut Builder,
    option: &RawOption,
    base: SizeBase,
) -> Result<(), JobFileError> {
    let key = option.key.as_str();
    let loc = &option.loc;
    let invalid = |value: &str, why: String, fix: &str| loc.invalid(key, value, why, fix);
    let flag = |value: Option<&str>| -> Result<bool, JobFileError> {
        parse_bool(value).map_err(|why| invalid(value.unwrap_or(""), why, "write 1 or 0"))
    };
    let value_opt = option.value.as_deref().map(str::trim);
    match key {
        "thread" => {
            // iofit always runs clones as threads; fio's `thread` asks for exactly that.
            flag(value_opt)?;
        }
        "group_reporting" => job.group_reporting = flag(value_opt)?,
        "time_based" => {
            if flag(value_opt)? {
                b.time_based = Some(loc.clone());
            } else {
                b.time_based = None;
            }
        }
        "stonewall" | "wait_for_previous" => job.stonewall = flag(value_opt)?,
        "new_group" => b.new_group = flag(value_opt)?,
        "norandommap" => job.norandommap = flag(value_opt)?,
        "randrepeat" => job.randrepeat = flag(value_opt)?,
        "end_fsync" => job.end_fsync = flag(value_opt)?,
        "direct" => b.direct = Some(flag(value_opt)?),
        "buffered" => b.buffered = Some(flag(value_opt)?),
        _ => {
            let value = require_value(option)?;
            apply_valued(job, b, key, value, loc, base)?;
        }
    }
    Ok(())
}

fn apply_valued(
    job: &mut JobSpec,
    b: &mut Builder,
    key: &str,
    value: &str,
    loc: &Location,
    base: SizeBase,
) -> Result<(), JobFileError> {
    let invalid = |why: String, fix: &str| loc.invalid(key, value, why, fix);
    const SIZE_FIX: &str = "write a number with an optional suffix such as 4k, 64KiB, 1m or 30g";
    const TIME_FIX: &str =
        "write a number of seconds or a number with a unit: 30, 30s, 500ms, 2m, 1h";
    const COUNT_FIX: &str = "write a whole number";
    match key {
        "name" => job.name = value.to_string(),
        "description" | "kb_base" => {}
        "filename" => {
            b.filename = Some(Placed {
                value: value.to_string(),
                loc: loc.clone(),
            })
        }
        "directory" => {
            b.directory = Some(Placed {
                value: value.to_string(),
                loc: loc.clone(),
            })
        }
        "size" => {
            let spec = if let Some(pct) = value.strip_suffix('%') {
                let pct = parse_percent(pct)
                    .map_err(|why| invalid(why, "write a percentage such as size=50%"))?;
                if pct <= 0.0 {
                    return Err(invalid(
                        "a size of 0% has nothing to do IO on".into(),
                        "write a percentage above 0",
                    ));
                }
                SizeSpec::PercentOfTarget(pct)
            } else {
                let bytes = parse_size(value, base).map_err(|why| invalid(why, SIZE_FIX))?;
                if bytes == Bytes::ZERO {
                    return Err(invalid(
                        "a size of 0 has nothing to do IO on".into(),
                        SIZE_FIX,
                    ));
                }
                SizeSpec::Bytes(bytes)
            };
            b.size = Some(Placed {
                value: spec,
                loc: loc.clone(),
            });
        }
        "offset" => {
            if value.ends_with('%') {
                return Err(loc.unsupported_value(
                    key,
                    value,
                    "an offset in percent",
                    "give the offset in bytes, e.g. offset=1g",
                ));
            }
            job.offset = parse_size(value, base).map_err(|why| invalid(why, SIZE_FIX))?;
        }
        "rw" | "readwrite" => b.rw = Some(parse_rw(value, key, loc)?),
        "rwmixread" | "rwmixwrite" => {
            let pct: u64 =
                parse_u64(value).map_err(|why| invalid(why, "write a whole percentage 0..100"))?;
            if pct > 100 {
                return Err(invalid(
                    format!("{pct}% is more than 100%"),
                    "write a percentage between 0 and 100",
                ));
            }
            let read_pct = if key == "rwmixread" { pct } else { 100 - pct };
            b.rwmix_read_pct = Some(read_pct as f64);
        }
        "bs" | "blocksize" => {
            let (read, write) = split_per_direction(value)
                .map_err(|why| invalid(why, "write bs=4k or bs=READ,WRITE such as bs=4k,64k"))?;
            let parse_one = |text: String| -> Result<Bytes, JobFileError> {
                let bytes = parse_size(&text, base).map_err(|why| invalid(why, SIZE_FIX))?;
                if bytes == Bytes::ZERO {
                    return Err(invalid(
                        "a block size of 0".into(),
                        "write a block size such as 4k",
                    ));
                }
                Ok(bytes)
            };
            // An empty entry means fio's default (4 KiB) for that direction.
            let default = Bytes::kib(4);
            let read = read.map(parse_one).transpose()?.unwrap_or(default);
            let write = write.map(parse_one).transpose()?.unwrap_or(default);
            b.bs_read = Some(Placed {
                value: read,
                loc: loc.clone(),
            });
            b.bs_write = Some(Placed {
                value: write,
                loc: loc.clone(),
            });
            b.bssplit = None;
        }
        "bssplit" => {
            let (read, write) = split_per_direction(value)
                .map_err(|why| invalid(why, "write bssplit=4k/10:64k/90 or READ,WRITE lists"))?;
            let parse_list = |text: Option<String>| -> Result<Vec<BlockSizeShare>, JobFileError> {
                match text {
                    None => Ok(vec![BlockSizeShare {
                        size: Bytes::kib(4),
                        pct: 100.0,
                    }]),
                    Some(text) => parse_bssplit(&text, base).map_err(|why| {
                        invalid(
                            why,
                            "write size/percent pairs joined by ':' such as 4k/10:64k/90",
                        )
                    }),
                }
            };
            let read = parse_list(read)?;
            let write = parse_list(write)?;
            b.bssplit = Some(Placed {
                value: (read, write),
                loc: loc.clone(),
            });
            b.bs_read = None;
            b.bs_write = None;
        }
        "ioengine" => {
            job.engine = EngineKind::from_fio_name(value).ok_or_else(|| {
                loc.unsupported_value(
                    key,
                    value,
                    format!("the '{value}' engine"),
                    format!("use {}", EngineKind::FIO_NAMES),
                )
            })?
        }
        "iodepth" => {
            let depth = parse_u32(value).map_err(|why| invalid(why, COUNT_FIX))?;
            if depth == 0 {
                return Err(invalid(
                    "a queue depth of 0 never issues an IO".into(),
                    "write iodepth=1 or more",
                ));
            }
            if depth > MAX_IODEPTH {
                return Err(invalid(
                    format!("{depth} is above the largest queue depth, {MAX_IODEPTH}"),
                    "write iodepth=1..65536",
                ));
            }
            job.iodepth = depth;
        }
        "numjobs" => {
            let count = parse_u32(value).map_err(|why| invalid(why, COUNT_FIX))?;
            if count == 0 {
                return Err(invalid(
                    "0 clones run nothing".into(),
                    "write numjobs=1 or more",
                ));
            }
            if count > MAX_NUMJOBS {
                return Err(invalid(
                    format!(
                        "{count} clones is more threads than any host runs (at most {MAX_NUMJOBS})"
                    ),
                    "write numjobs=1..4096",
                ));
            }
            job.numjobs = count;
        }
        "runtime" | "timeout" => {
            let runtime =
                parse_time(value, Duration::from_secs(1)).map_err(|why| invalid(why, TIME_FIX))?;
            // fio: runtime=0 means no limit.
            job.runtime = if runtime.is_zero() {
                None
            } else {
                Some(runtime)
            };
        }
        "ramp_time" => {
            job.ramp_time =
                parse_time(value, Duration::from_secs(1)).map_err(|why| invalid(why, TIME_FIX))?
        }
        "startdelay" => {
            if value.contains('-') {
                return Err(loc.unsupported_value(
                    key,
                    value,
                    "a random start delay range",
                    "give one delay such as startdelay=5",
                ));
            }
            job.start_delay =
                parse_time(value, Duration::from_secs(1)).map_err(|why| invalid(why, TIME_FIX))?;
        }
        "rate" => {
            let (read, write) = split_per_direction(value).map_err(|why| {
                invalid(
                    why,
                    "write rate=BYTES_PER_SECOND or rate=READ,WRITE such as rate=1m,500k",
                )
            })?;
            let parse_rate = |text: String| -> Result<Option<u64>, JobFileError> {
                let bytes = parse_size(&text, base).map_err(|why| {
                    invalid(
                        why,
                        "write bytes per second with a size suffix such as rate=10m (10 MiB/s)",
                    )
                })?;
                Ok(if bytes == Bytes::ZERO {
                    None
                } else {
                    Some(bytes.as_u64())
                })
            };
            job.rate_bytes_per_second = PerDirection {
                read: read.map(parse_rate).transpose()?.flatten(),
                write: write.map(parse_rate).transpose()?.flatten(),
            };
        }
        "rate_iops" => {
            let (read, write) = split_per_direction(value)
                .map_err(|why| invalid(why, "write rate_iops=N or rate_iops=READ,WRITE"))?;
            let parse_iops = |text: String| -> Result<Option<u64>, JobFileError> {
                let iops = parse_u64(&text).map_err(|why| {
                    invalid(
                        why,
                        "write a whole number of IOs per second such as rate_iops=12500",
                    )
                })?;
                Ok(if iops == 0 { None } else { Some(iops) })
            };
            job.rate_iops = PerDirection {
                read: read.map(parse_iops).transpose()?.flatten(),
                write: write.map(parse_iops).transpose()?.flatten(),
            };
        }
        "randseed" => job.random_seed = parse_u64(value).map_err(|why| invalid(why, COUNT_FIX))?,
        "loops" => {
            let loops = parse_u32(value).map_err(|why| invalid(why, COUNT_FIX))?;
            if loops == 0 {
                return Err(invalid(
                    "0 loops run nothing".into(),
                    "write loops=1 or more",
                ));
            }
            job.loops = loops;
        }
        "fsync" => job.fsync_every = parse_u32(value).map_err(|why| invalid(why, COUNT_FIX))?,
        "fdatasync" => {
            job.fdatasync_every = parse_u32(value).map_err(|why| invalid(why, COUNT_FIX))?
        }
        "io_size" | "io_limit" => {
            if value.ends_with('%') {
                return Err(loc.unsupported_value(
                    key,
                    value,
                    "io_size in percent",
                    "give io_size in bytes, e.g. io_size=1g",
                ));
            }
            let bytes = parse_size(value, base).map_err(|why| invalid(why, SIZE_FIX))?;
            job.io_limit = if bytes == Bytes::ZERO {
                None
            } else {
                Some(bytes)
            };
        }
        "percentage_random" => {
            let (read, write) = split_per_direction(value)
                .map_err(|why| invalid(why, "write percentage_random=N"))?;
            let read = read
                .map(|t| parse_percent(&t))
                .transpose()
                .map_err(|why| invalid(why, "write a percentage 0..100"))?;
            let write = write
                .map(|t| parse_percent(&t))
                .transpose()
                .map_err(|why| invalid(why, "write a percentage 0..100"))?;
            let pct = match (read, write) {
                (Some(r), Some(w)) if (r - w).abs() > f64::EPSILON => {
                    return Err(loc.unsupported_value(
                        key,
                        value,
                        "different random shares for reads and writes",
                        "give one percentage for both",
                    ));
                }
                (Some(r), _) => r,
                (None, Some(w)) => w,
                (None, None) => 100.0,
            };
            b.percentage_random = Some(pct);
        }
        "nrfiles" | "nr_files" => {
            let count = parse_u32(value).map_err(|why| invalid(why, COUNT_FIX))?;
            if count == 0 {
                return Err(invalid("0 files".into(), "write nrfiles=1 or more"));
            }
            b.nrfiles = Some(count);
        }
        other => {
            // Every supported name is handled above; reaching here is a bug in this table.
            return Err(loc.error(Some(other), ErrorKind::UnsupportedOption(other.to_string())));
        }
    }
    Ok(())
}

fn parse_rw(value: &str, key: &str, loc: &Location) -> Result<RwMode, JobFileError> {
    let (mode, modifier) = match value.split_once(':') {
        Some((mode, modifier)) => (mode.trim(), Some(modifier)),
        None => (value.trim(), None),
    };
    if let Some(modifier) = modifier {
        return Err(loc.unsupported_value(
            key,
            value,
            format!("the ':{modifier}' offset modifier"),
            "write the mode alone, such as rw=randread",
        ));
    }
    if let Some(rw) = RwMode::from_fio_name(mode) {
        return Ok(rw);
    }
    match mode {
        "trim" | "randtrim" | "trimwrite" | "randtrimwrite" => Err(loc.unsupported_value(
            key,
            value,
            "trim IO",
            "use read, write, randread, randwrite, rw or randrw",
        )),
        other => Err(loc.invalid(
            key,
            other,
            "not an IO pattern",
            match nearest(
                other,
                [
                    "read",
                    "write",
                    "randread",
                    "randwrite",
                    "rw",
                    "readwrite",
                    "randrw",
                ],
            ) {
                Some(near) => format!(
                    "did you mean rw={near}? (read, write, randread, randwrite, rw, randrw)"
                ),
                None => "use read, write, randread, randwrite, rw or randrw".to_string(),
            },
        )),
    }
}

/// `4k/10:64k/90`; entries without a percentage share what is left evenly, as fio does.
fn parse_bssplit(text: &str, base: SizeBase) -> Result<Vec<BlockSizeShare>, String> {
    let mut shares = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for entry in text.split(':') {
        let entry = entry.trim();
        if entry.is_empty() {
            return Err("an empty entry".into());
        }
        let (size_text, pct_text) = match entry.split_once('/') {
            Some((size, pct)) => (size, Some(pct.trim())),
            None => (entry, None),
        };
        let size = parse_size(size_text, base)?;
        if size == Bytes::ZERO {
            return Err("a block size of 0".into());
        }
        let pct = match pct_text {
            Some(p) if !p.is_empty() => parse_percent(p)?,
            _ => {
                open.push(shares.len());
                0.0
            }
        };
        shares.push(BlockSizeShare { size, pct });
    }
    let given: f64 = shares.iter().map(|s| s.pct).sum();
    if given > 100.0 + 1e-9 {
        return Err(format!("the percentages add up to {given}, more than 100"));
    }
    if open.is_empty() {
        if (given - 100.0).abs() > 1e-9 {
            return Err(format!("the percentages add up to {given}, not 100"));
        }
    } else {
        let each = (100.0 - given) / open.len() as f64;
        for index in open {
            shares[index].pct = each;
        }
    }
    Ok(shares)
}

/// Applies what depends on more than one option and checks the job as a whole.
fn finish(mut job: JobSpec, b: Builder, section_loc: &Location) -> Result<JobSpec, JobFileError> {
    let rw = b.rw.unwrap_or(RwMode::Read);
    job = job.with_rw(rw);
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
    // fio: `buffered` is the inverse of `direct`; the later one in the file is not tracked, so a
    // contradiction is refused rather than guessed.
    job.direct = match (b.direct, b.buffered) {
        (Some(direct), Some(buffered)) if direct == buffered => {
            return Err(section_loc.error(
                Some("direct"),
                ErrorKind::InvalidJob {
                    job: job.name.clone(),
                    what: format!(
                        "direct={} and buffered={} contradict each other",
                        direct as u8, buffered as u8
                    ),
                    fix: "keep one of them".into(),
                },
            ))
        }
        (Some(direct), _) => direct,
        (None, Some(buffered)) => !buffered,
        (None, None) => false,
    };
    if let Some(loc) = &b.time_based {
        if job.runtime.is_none() {
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

    // Block sizes.
    let (bs_loc, block_size) = if let Some(split) = b.bssplit {
        (
            Some(split.loc),
            BlockSizeSpec::Split {
                read: split.value.0,
                write: split.value.1,
            },
        )
    } else {
        let read = b.bs_read.as_ref().map(|p| p.value).unwrap_or(Bytes::kib(4));
        let write = b
            .bs_write
            .as_ref()
            .map(|p| p.value)
            .unwrap_or(Bytes::kib(4));
        (
            b.bs_read.map(|p| p.loc),
            BlockSizeSpec::Fixed(PerDirection { read, write }),
        )
    };
    job.block_size = block_size;

    // Target.
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

    // Size: fio's size is per clone and divided among the job's files; JobSpec's is per file.
    match b.size {
        Some(Placed { value: SizeSpec::Bytes(total), loc }) => {
            let per_file = Bytes(total.as_u64() / u64::from(file_count.max(1)));
            let max_bs = job.block_size.max_size();
            if per_file < max_bs {
                let (key, at) = match &bs_loc {
                    Some(bs_loc) if bs_loc.line >= loc.line || loc.file != bs_loc.file => ("bs", bs_loc.clone()),
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
                Target::Directory { .. } => {
                    return Err(target_loc.unwrap_or_else(|| section_loc.clone()).error(
                        Some("size"),
                        ErrorKind::InvalidJob {
                            job: job.name.clone(),
                            what: "no size= and no existing file to take the size from (iofit lays the files out itself)".into(),
                            fix: "add size= (for example size=1g) or filename= of an existing file".into(),
                        },
                    ))
                }
                Target::Files(files) => {
                    if let Some(missing) = files.iter().find(|f| !f.exists()) {
                        return Err(target_loc.unwrap_or_else(|| section_loc.clone()).error(
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

    // Direct IO needs sector-aligned sizes.
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
    if b.new_group {
        job.group_id = NEW_GROUP_MARK;
    }
    Ok(job)
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
mod tests;
