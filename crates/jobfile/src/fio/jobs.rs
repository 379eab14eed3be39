//! From sections to jobs: `[global]` options inherited in order, each job's options resolved
//! through the registry, and the clones a job starts here.

use super::apply::{Arg, Builder, Ctx};
use super::finish::{bound_start_delay, finish, NEW_GROUP_MARK};
use super::reader::quote;
use super::{apply, ParseOptions, RawOption, Section};
use crate::error::COMMAND_LINE;
use crate::error::{nearest, ErrorKind, JobFileError, Location};
use crate::fio_options;
use crate::fio_options::names as option_names;
use crate::fio_options::Status;
use crate::values::size_base_from_kb_base;
use iofit_model::job::JobNote;
use iofit_model::job::{JobSpec, Target};
use iofit_model::units::SizeBase;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

/// Turns sections into jobs: `[global]` accumulates, every other section is a job. Linear in
/// the number of sections (job names are looked up in a hash map).
pub(super) fn build_jobs(
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
                ctx.note(JobNote::UnknownIgnored {
                    at: option.loc.to_string(),
                    option: key.to_string(),
                });
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
            Status::Noted(apply, how) => {
                apply(&mut ctx, &arg)?;
                ctx.accepted(known.name, how);
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
