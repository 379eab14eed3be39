//! What `iofit run` was asked to do, apart from clap: the job files and fio options after them,
//! iofit's own flags written among them, and the jobs they lower to (fio job files, fio
//! command-line jobs, or an Iometer `--preset`). [`crate::fio_run`] runs the jobs.
//!
//! ```
//! use iofit_procedure::run_request::{RunRequest, What};
//!
//! let mut request = RunRequest { parse_only: true, ..RunRequest::default() };
//! let args = ["--name=a", "--rw=randread", "--size=1m", "--filename=/tmp/f", "--ioengine=null"];
//! let inputs = request.take_rest(args.iter().map(|a| a.to_string()).collect()).unwrap();
//! match iofit_procedure::run_request::what_to_run(&request, &inputs).unwrap() {
//!     What::Jobs(jobs) => assert_eq!(jobs[0].name, "a"),
//!     _ => unreachable!("a command-line job"),
//! }
//! ```

use crate::ProcedureError;
use iofit_jobfile::fio::option_names as opt;
use iofit_jobfile::fio::{job_options, parse_command_line, parse_file, ParseOptions};
use iofit_jobfile::{iometer, Dialect};
use iofit_model::job::{JobSpec, Target};
use iofit_model::units::Bytes;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How results are written: fio-style text, fio-compatible JSON or json+, or fio's terse line.
pub use iofit_report::fio_common::FioFormat as OutputFormat;

/// `iofit run`'s options, as the binary parsed them (no clap types).
#[derive(Clone, Debug, Default)]
pub struct RunRequest {
    pub runtime: Option<String>,
    pub warmup: Option<String>,
    pub size: Option<String>,
    pub directory: Option<String>,
    pub filename: Option<String>,
    pub parse_only: bool,
    pub ignore_unknown: bool,
    pub section: Vec<String>,
    pub output_format: OutputFormat,
    pub output: Option<PathBuf>,
    pub allow_overwrite: bool,
    pub quiet: bool,
    pub report: Option<PathBuf>,
    pub preset: Option<String>,
    pub target: Option<PathBuf>,
    pub workers: Option<u32>,
    pub specs: Option<PathBuf>,
    pub hosts: Option<String>,
    pub remote_iofit: Option<String>,
    pub ssh_config: Option<PathBuf>,
    /// `--tasks-per-node N` with `--hosts slurm`: workers per allocated node.
    pub tasks_per_node: Option<u32>,
    /// vdbench's flatfile of a vdbench file's runs (`--flatfile FILE`).
    pub flatfile: Option<PathBuf>,
    /// fio's `--status-interval`: print the full report so far this often.
    pub status_interval: Option<std::time::Duration>,
}

/// The job files and the fio options (`--key=value`, `--key value`) given after them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    pub files: Vec<PathBuf>,
    pub fio_args: Vec<String>,
    /// `name=value` words after a vdbench file: vdbench's substitutions (`$name` in it).
    pub substitutions: Vec<String>,
}

/// `iofit run parm.vdb lun=/tmp/x`: after a vdbench file, `name=value` words that name no
/// file are vdbench's substitutions (`$lun` in the file), as `vdbench -f parm.vdb lun=/tmp/x`.
fn split_substitutions(inputs: &mut Inputs) {
    let is_vdbench = inputs.files.len() > 1
        && matches!(
            iofit_jobfile::detect(&inputs.files[0]),
            Ok(Dialect::Vdbench)
        );
    if !is_vdbench {
        return;
    }
    let mut files = Vec::new();
    for (index, file) in inputs.files.drain(..).enumerate() {
        let text = file.to_string_lossy().to_string();
        if index > 0 && !file.exists() && text.contains('=') {
            inputs.substitutions.push(text);
        } else {
            files.push(file);
        }
    }
    inputs.files = files;
}

/// What the request runs.
#[derive(Debug)]
pub enum What {
    /// One vdbench parameter file (it runs on its own).
    Vdbench(PathBuf),
    /// The fio jobs on these hosts over ssh (`--hosts`).
    Hosts(String),
    /// fio jobs (from job files, the command line or a preset) on this machine.
    Jobs(Vec<JobSpec>),
}

fn bad(error: impl Display) -> ProcedureError {
    ProcedureError::BadInput(error.to_string())
}

/// iofit's own flags that take a value (as `--flag VALUE` among the fio options too).
const VALUED_OWN_FLAGS: &[&str] = &[
    "output",
    "output-format",
    "report",
    "flatfile",
    "preset",
    "target",
    "specs",
    "workers",
    "hosts",
    "remote-iofit",
    "ssh-config",
    "status-interval",
];

impl RunRequest {
    /// Splits the arguments after the first job file or fio option (clap passes them through):
    /// iofit's own flags set this request; the rest are job files and fio options.
    /// fio has no `--json`: the first one among them is iofit's own (JSON results).
    pub fn take_rest(&mut self, mut rest: Vec<String>) -> Result<Inputs, ProcedureError> {
        if let Some(at) = rest.iter().position(|a| a == "--json") {
            rest.remove(at);
            self.output_format = OutputFormat::Json;
        }
        let mut inputs = Inputs::default();
        let mut index = 0;
        while index < rest.len() {
            let arg = &rest[index];
            let Some(body) = arg.strip_prefix("--") else {
                inputs.files.push(PathBuf::from(arg));
                index += 1;
                continue;
            };
            let (key, value) = match body.split_once('=') {
                Some((k, v)) => (k, Some(v.to_string())),
                None => (body, None),
            };
            let (value, consumed) = if value.is_none() && VALUED_OWN_FLAGS.contains(&key) {
                (rest.get(index + 1).cloned(), 2)
            } else {
                (value, 1)
            };
            if self.take_own_flag(key, value.as_deref())? {
                index += consumed;
                continue;
            }
            inputs.fio_args.push(arg.clone());
            // `--key value` for fio options: the value travels with its key.
            if !body.contains('=') {
                if let Some(next) = rest.get(index + 1) {
                    if !next.starts_with("--") && !looks_like_job_file(next) {
                        inputs.fio_args.push(next.clone());
                        index += 1;
                    }
                }
            }
            index += 1;
        }
        split_substitutions(&mut inputs);
        Ok(inputs)
    }

    /// iofit's own flags when they appear after a job file; false for a fio option.
    fn take_own_flag(&mut self, key: &str, value: Option<&str>) -> Result<bool, ProcedureError> {
        let need = |v: Option<&str>| -> Result<String, ProcedureError> {
            v.map(str::to_string)
                .ok_or_else(|| bad(format!("--{key} needs a value (write --{key}=VALUE)")))
        };
        match key {
            "parse-only" => self.parse_only = true,
            "ignore-unknown" => self.ignore_unknown = true,
            "section" => self.section.push(need(value)?),
            "allow-overwrite" => self.allow_overwrite = true,
            "quiet" => self.quiet = true,
            "output" => self.output = Some(PathBuf::from(need(value)?)),
            "report" => self.report = Some(PathBuf::from(need(value)?)),
            "flatfile" => self.flatfile = Some(PathBuf::from(need(value)?)),
            "preset" => self.preset = Some(need(value)?),
            "target" => self.target = Some(PathBuf::from(need(value)?)),
            "specs" => self.specs = Some(PathBuf::from(need(value)?)),
            "hosts" => self.hosts = Some(need(value)?),
            "remote-iofit" => self.remote_iofit = Some(need(value)?),
            "ssh-config" => self.ssh_config = Some(PathBuf::from(need(value)?)),
            "tasks-per-node" => {
                let text = need(value)?;
                self.tasks_per_node = Some(text.parse().map_err(|_| {
                    bad(format!(
                        "--tasks-per-node={text}: write a whole number such as 2"
                    ))
                })?)
            }
            "workers" => {
                let text = need(value)?;
                self.workers = Some(text.parse().map_err(|_| {
                    bad(format!("--workers={text}: write a whole number such as 3"))
                })?)
            }
            "status-interval" => self.status_interval = Some(status_interval(&need(value)?)?),
            "output-format" => {
                let name = need(value)?;
                self.output_format = OutputFormat::parse(&name).ok_or_else(|| {
                    bad(format!(
                        "--output-format={name} is not known; use normal, json, json+ or terse"
                    ))
                })?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// fio options from iofit's own override flags, then the `--key=value` pairs in `fio_args`.
    pub fn overrides(&self, fio_args: &[String]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for (key, value) in [
            (opt::RUNTIME, &self.runtime),
            (opt::RAMP_TIME, &self.warmup),
            (opt::SIZE, &self.size),
            (opt::DIRECTORY, &self.directory),
            (opt::FILENAME, &self.filename),
        ] {
            if let Some(value) = value {
                out.push((key.to_string(), value.clone()));
            }
        }
        out.extend(overrides_from(fio_args));
        out
    }
}

/// `--output-format`: normal, json, json+, terse, or several joined by commas
/// (`normal,terse`), as fio takes it.
pub fn output_format_flag(text: &str) -> Result<OutputFormat, ProcedureError> {
    OutputFormat::parse(text).ok_or_else(|| {
        bad(format!("'{text}' is not an output format; use normal, json, json+ or terse, or several joined by commas (normal,terse)"))
    })
}

/// fio's `--status-interval=T`: seconds unless a unit is given (fio reads it so), at least 1 ms.
pub fn status_interval(text: &str) -> Result<std::time::Duration, ProcedureError> {
    let interval = iofit_jobfile::parse_time(text, std::time::Duration::from_secs(1))
        .map_err(|why| bad(format!("--status-interval={text}: {why}; write seconds such as --status-interval=1, or a time with a unit such as 500ms")))?;
    if interval < std::time::Duration::from_millis(1) {
        return Err(bad(format!(
            "--status-interval={text} is shorter than 1 ms; write --status-interval=1 (one second) or more"
        )));
    }
    Ok(interval)
}

fn looks_like_job_file(arg: &str) -> bool {
    let path = Path::new(arg);
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("ini" | "fio" | "job" | "vdb" | "vdbench" | "parm")
    ) || path.is_file()
}

/// `--key=value` / `--key value` pairs of fio options, in order (`--key` alone is `key=1`).
pub fn overrides_from(fio_args: &[String]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut index = 0;
    while index < fio_args.len() {
        let body = fio_args[index].trim_start_matches("--");
        match body.split_once('=') {
            Some((k, v)) => out.push((k.to_string(), v.to_string())),
            None => match fio_args.get(index + 1).filter(|n| !n.starts_with("--")) {
                Some(value) => {
                    out.push((body.to_string(), value.clone()));
                    index += 1;
                }
                None => out.push((body.to_string(), "1".to_string())),
            },
        }
        index += 1;
    }
    out
}

/// Decides what the request runs. Job files must be regular files under the job-file cap; a
/// lone vdbench file and `--hosts` are handed on; otherwise the jobs are parsed (or lowered
/// from `--preset`) and at least one must result.
pub fn what_to_run(request: &RunRequest, inputs: &Inputs) -> Result<What, ProcedureError> {
    use iofit_safefs::input::{caps, open_input};
    for file in &inputs.files {
        open_input(file, caps::JOB_FILE_BYTES, "job file")?;
    }
    if request.tasks_per_node.is_some()
        && request.hosts.as_deref() != Some(crate::hosts::SLURM_HOSTS)
    {
        return Err(bad(
            "--tasks-per-node applies to --hosts slurm (workers per allocated node)",
        ));
    }
    if let [file] = inputs.files.as_slice() {
        if iofit_jobfile::detect(file)? == Dialect::Vdbench {
            return Ok(What::Vdbench(file.clone()));
        }
    }
    if request.flatfile.is_some() {
        return Err(bad(
            "--flatfile writes vdbench's flatfile of a vdbench parameter file; for fio job files use --output FILE (fio JSON)",
        ));
    }
    if let Some(hosts) = &request.hosts {
        if request.preset.is_some() {
            return Err(bad(
                "--hosts runs fio job files; --preset does not apply to it yet",
            ));
        }
        return Ok(What::Hosts(hosts.clone()));
    }
    if request.preset.is_none()
        && (request.target.is_some() || request.workers.is_some() || request.specs.is_some())
    {
        return Err(bad(
            "--target, --workers and --specs apply to --preset NAME (an Iometer access specification); for job files use --directory and numjobs",
        ));
    }
    let jobs = match &request.preset {
        Some(name) => preset_jobs(request, name, inputs)?,
        None => load_jobs(request, inputs)?,
    };
    if jobs.is_empty() && !request.parse_only {
        return Err(bad("the job files define no job; add a [job] section"));
    }
    Ok(What::Jobs(jobs))
}

/// The jobs of fio job files (each file its own reporting groups, run after the one before),
/// or of a fio command line when no file is given.
pub fn load_jobs(request: &RunRequest, inputs: &Inputs) -> Result<Vec<JobSpec>, ProcedureError> {
    if inputs.files.is_empty() {
        if inputs.fio_args.is_empty() {
            return Err(bad(
                "no job given; name a job file (iofit run --runtime 30 fiowrite.ini) or give a job as --name=a --rw=randread --size=64m --filename=F",
            ));
        }
        let options = ParseOptions {
            overrides: request.overrides(&[]),
            ignore_unknown: request.ignore_unknown,
            skip_target_checks: request.parse_only,
            ..ParseOptions::default()
        };
        return Ok(parse_command_line(&inputs.fio_args, &options)?);
    }
    let options = ParseOptions {
        overrides: request.overrides(&inputs.fio_args),
        ignore_unknown: request.ignore_unknown,
        sections: request.section.clone(),
        skip_target_checks: request.parse_only,
        run_elsewhere: false,
    };
    let mut jobs: Vec<JobSpec> = Vec::new();
    for file in &inputs.files {
        if iofit_jobfile::detect(file)? == Dialect::Vdbench {
            return Err(bad(format!(
                "{}: a vdbench parameter file runs on its own; give it as the only job file",
                file.display()
            )));
        }
        // Each file is its own set of jobs: later files run after earlier ones, with their own
        // reporting groups, as when fio is given several job files.
        let mut parsed = parse_file(file, &options)?;
        let group_base = jobs.iter().map(|j| j.group_id + 1).max().unwrap_or(0);
        for (i, job) in parsed.iter_mut().enumerate() {
            job.group_id += group_base;
            if i == 0 && !jobs.is_empty() {
                job.stonewall = true;
            }
        }
        jobs.extend(parsed);
    }
    Ok(jobs)
}

/// The seed's Iometer setup as defaults: 30 s per run (its FIO runs), 1 GiB test file (its
/// 200 GB `iobw.tst` is for a real volume; give --size 200g there), QD 128, 3 workers.
pub const PRESET_RUNTIME: &str = "30s";
pub const PRESET_SIZE: &str = "1g";
pub const PRESET_IODEPTH: u32 = 128;
pub const PRESET_WORKERS: u32 = 3;

/// A preset's settings after iofit's flags and the fio-style options given among them.
struct PresetSettings {
    iodepth: u32,
    runtime: Option<String>,
    size: Option<String>,
    warmup: Option<String>,
    workers: Option<u32>,
}

/// `--iodepth` stays a fio option for job files, so for a preset it arrives among them, as do
/// iofit's own flags written after it (clap hands everything after an unknown flag on).
fn preset_settings(
    request: &RunRequest,
    inputs: &Inputs,
) -> Result<PresetSettings, ProcedureError> {
    let mut settings = PresetSettings {
        iodepth: PRESET_IODEPTH,
        runtime: request.runtime.clone(),
        size: request.size.clone(),
        warmup: request.warmup.clone(),
        workers: request.workers,
    };
    for (key, value) in overrides_from(&inputs.fio_args) {
        match key.as_str() {
            // Counts are bounded by the option table, as in a job file.
            opt::IODEPTH => settings.iodepth = preset_count(opt::IODEPTH, &value)?,
            opt::NUMJOBS => settings.workers = Some(preset_count(opt::NUMJOBS, &value)?),
            opt::RUNTIME | "elapsed" => settings.runtime = Some(value),
            opt::SIZE => settings.size = Some(value),
            "warmup" | "ramp-time" | opt::RAMP_TIME => settings.warmup = Some(value),
            other => {
                return Err(bad(format!(
                    "--{other} does not apply to --preset; a preset takes --target, --workers, --iodepth, --runtime, --size, --warmup and --specs"
                )))
            }
        }
    }
    Ok(settings)
}

/// A whole-number option of a preset (`--iodepth`, `--numjobs`), within the option table's
/// bounds.
fn preset_count(key: &str, value: &str) -> Result<u32, ProcedureError> {
    iofit_jobfile::fio::check_count_option(key, value)
        .map_err(|e| bad(format!("--{key}={value}: {}", e.kind)))
}

/// The jobs of `--preset`: the access specification lowered by `iometer::preset_to_jobs`.
pub fn preset_jobs(
    request: &RunRequest,
    name: &str,
    inputs: &Inputs,
) -> Result<Vec<JobSpec>, ProcedureError> {
    if let Some(file) = inputs.files.first() {
        return Err(bad(format!(
            "--preset {name} runs an Iometer access specification; {} is a job file: give one or the other",
            file.display()
        )));
    }
    if request.directory.is_some() || request.filename.is_some() {
        return Err(bad(
            "--directory/--filename do not apply to --preset; name the volume's directory with --target DIR",
        ));
    }
    let settings = preset_settings(request, inputs)?;
    let target = preset_target(request, name)?;
    let user_specs = match &request.specs {
        Some(path) => iometer::load_specs(path)?,
        None => Vec::new(),
    };
    let spec = iometer::find(name, &user_specs)?;
    let workers = settings.workers.unwrap_or(PRESET_WORKERS);
    if workers == 0 {
        return Err(bad("--workers 0: a preset needs at least one worker"));
    }
    let runtime = duration_flag(
        "--runtime",
        settings.runtime.as_deref().unwrap_or(PRESET_RUNTIME),
    )?;
    if runtime.is_zero() {
        return Err(bad("--runtime 0: a preset runs for a time; give e.g. 30s"));
    }
    let size_text = settings.size.as_deref().unwrap_or(PRESET_SIZE);
    let size = Bytes::parse(size_text).map_err(|e| bad(format!("--size={size_text}: {e}")))?;
    if size < spec.request_size {
        return Err(bad(format!(
            "--size={size_text} is smaller than {}'s request size {}; give at least that",
            spec.name, spec.request_size
        )));
    }
    let mut jobs = iometer::preset_to_jobs(&spec, target, workers, settings.iodepth, runtime, size);
    if let Some(warmup) = &settings.warmup {
        let ramp = duration_flag("--warmup", warmup)?;
        for job in &mut jobs {
            job.ramp_time = ramp;
        }
    }
    Ok(jobs)
}

fn preset_target<'a>(request: &'a RunRequest, name: &str) -> Result<&'a Path, ProcedureError> {
    let target = request.target.as_deref().ok_or_else(|| {
        bad(format!(
            "--preset {name} needs --target DIR: the directory on the volume to test (Iometer's target disk)"
        ))
    })?;
    if !target.is_dir() {
        return Err(bad(format!(
            "--target {}: not a directory; give a directory on the volume to test",
            target.display()
        )));
    }
    Ok(target)
}

/// A time flag (30, 30s, 500ms, 2m, 1h) read by the one time parser every command and job file
/// uses ([`iofit_jobfile::parse_time`], 0 to 10^9 s); the error names the flag.
pub fn duration_flag(flag: &str, text: &str) -> Result<Duration, ProcedureError> {
    iofit_jobfile::parse_time(text, Duration::from_secs(1))
        .map_err(|why| bad(format!("{flag}={text}: {why}")))
}

/// One line per job as `--parse-only` prints it: name, group, options and target.
pub fn describe_job(job: &JobSpec) -> String {
    let target = match &job.target {
        Target::Files(files) => files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
        Target::Directory { path, .. } => format!("{}/", path.display()),
    };
    let options = job_options(job)
        .into_iter()
        .filter(|(k, _)| !matches!(k.as_str(), "filename" | "directory"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ");
    format!(
        "{} (group {}{}): {options} on {target}",
        job.name,
        job.group_id,
        if job.stonewall { ", stonewall" } else { "" }
    )
}

/// What `--parse-only` prints for checked jobs: each job's line and its notes.
pub fn parse_only_lines(jobs: &[JobSpec]) -> Vec<String> {
    let mut lines = Vec::new();
    if jobs.is_empty() {
        // Only --parse-only gets here without jobs (a run refuses the file): say so as fio
        // --parse-only's silence would not.
        lines.push("note: no jobs defined (only [global] sections): fio --parse-only accepts this, a run refuses it".to_string());
    }
    for job in jobs {
        lines.push(describe_job(job));
        lines.extend(job.notes.iter().map(|note| format!("  note: {note}")));
    }
    lines
}

/// Before any IO: the files job options write (logs, IO logs, verify states), `--output` and
/// `--report` must be writable file names that name none of the run's inputs (job files, the
/// spec file, the files job options read) or targets (every file a job reads or writes), nor a
/// file another option writes. The job options' files come from the option table's path roles
/// (`iofit_jobfile::fio::job_paths`).
pub fn check_outputs(
    request: &RunRequest,
    job_files: &[PathBuf],
    jobs: &[JobSpec],
) -> Result<(), ProcedureError> {
    use iofit_safefs::guard::check_output_allowing;
    let allow = request.allow_overwrite;
    let paths = iofit_jobfile::fio::job_paths(jobs);
    // The files job options read are inputs of the run: safefs refuses any later write onto
    // one, whichever name reaches it. A verify state is the exception: a run loads it and
    // saves it again by design.
    for input in paths
        .inputs
        .iter()
        .filter(|i| !i.kind.output_may_replace_same_kind())
    {
        iofit_safefs::input::note_input_path(&input.path);
    }
    let mut protected: Vec<PathBuf> = job_files.to_vec();
    protected.extend(request.specs.iter().cloned());
    let mut seen = std::collections::BTreeSet::new();
    for job in jobs {
        for clone in 0..job.numjobs.max(1) {
            for path in job.files_for_clone(clone) {
                if seen.insert(path.clone()) {
                    protected.push(path);
                }
            }
        }
    }
    check_option_outputs(&paths, &protected, allow)?;
    protected.extend(paths.inputs.iter().map(|i| i.path.clone()));
    protected.extend(paths.outputs.iter().map(|o| o.path.clone()));
    if let Some(path) = &request.output {
        check_output_allowing(path, &protected, "--output", allow)?;
    }
    if let Some(path) = &request.report {
        check_output_allowing(path, &protected, "--report", allow)?;
    }
    Ok(())
}

/// Each file a job option writes: not a file another option reads (a verify state saved over
/// the one loaded excepted), not one another option writes, and through safefs's checks
/// against `protected` (job files, targets) and for what is at its name now.
fn check_option_outputs(
    paths: &iofit_jobfile::fio::JobPaths,
    protected: &[PathBuf],
    allow: bool,
) -> Result<(), ProcedureError> {
    use iofit_jobfile::fio::PathKind;
    use iofit_safefs::guard::{check_output_as, same_file};
    use iofit_safefs::output::OutputKind;
    let refuse = |output: &iofit_jobfile::fio::NamedPath, what: String| {
        ProcedureError::from(iofit_safefs::SafeFsError::Refused {
            path: output.path.clone(),
            reason: format!(
                "{}= of job '{}' names {what}; the run would replace it. Write it to another file name",
                output.option, output.job
            ),
        })
    };
    for (index, output) in paths.outputs.iter().enumerate() {
        for input in &paths.inputs {
            let may_replace =
                output.kind == input.kind && output.kind.output_may_replace_same_kind();
            if !may_replace && same_file(&output.path, &input.path) {
                return Err(refuse(
                    output,
                    format!(
                        "{}, which {}= of job '{}' reads",
                        input.path.display(),
                        input.option,
                        input.job
                    ),
                ));
            }
        }
        if let Some(other) = paths.outputs[..index]
            .iter()
            .find(|o| o.option != output.option && same_file(&output.path, &o.path))
        {
            return Err(refuse(
                output,
                format!(
                    "{}, which {}= of job '{}' writes",
                    other.path.display(),
                    other.option,
                    other.job
                ),
            ));
        }
        let kind = match output.kind {
            PathKind::IoLog => OutputKind::IoLog,
            PathKind::StatsLog => OutputKind::StatsLog,
            PathKind::VerifyState => OutputKind::VerifyState,
        };
        let flag = format!("{}= of job '{}'", output.option, output.job);
        check_output_as(&output.path, protected, &flag, kind, allow)?;
    }
    Ok(())
}

/// What `iofit run FILE.vdb` does with the request's flags.
#[derive(Debug)]
pub enum VdbenchCall {
    /// `--parse-only`: check the file and list its runs.
    Check,
    /// Run the file with these overrides.
    Run(crate::vdbench::VdbenchOptions),
}

/// The overrides that apply to a vdbench file; flags that do not apply are refused, as is an
/// `--output` that names the file.
pub fn vdbench_call(
    request: &RunRequest,
    file: &Path,
    substitutions: &[String],
) -> Result<VdbenchCall, ProcedureError> {
    if request.report.is_some() {
        return Err(bad(
            "--report applies to fio job files and --preset; for a vdbench file give --output FILE (JSON) and render it with iofit compare FILE --requirements REQ --report FILE",
        ));
    }
    if request.preset.is_some() {
        return Err(bad(
            "--preset runs an Iometer access specification; do not also give a vdbench file",
        ));
    }
    if request.parse_only {
        return Ok(VdbenchCall::Check);
    }
    if request.directory.is_some() || request.filename.is_some() {
        return Err(bad(
            "--directory/--filename do not apply to a vdbench file; change its sd= lun= lines",
        ));
    }
    if request.output_format.machine_readable() && request.output.is_none() {
        return Err(bad(
            "a vdbench file prints vdbench-style text; for JSON give --output FILE",
        ));
    }
    let allow = request.allow_overwrite;
    // Includes are inputs too: safefs knows every file the parser read.
    if let Some(path) = &request.output {
        iofit_safefs::guard::check_output_allowing(path, &[file.to_path_buf()], "--output", allow)?;
    }
    if let Some(path) = &request.flatfile {
        iofit_safefs::guard::check_output_allowing(
            path,
            &[file.to_path_buf()],
            "--flatfile",
            allow,
        )?;
    }
    let time = |flag: &str, text: &Option<String>| {
        text.as_deref().map(|t| duration_flag(flag, t)).transpose()
    };
    let sd_size = request
        .size
        .as_deref()
        .map(|s| Bytes::parse(s).map_err(|e| bad(format!("--size={s}: {e}"))))
        .transpose()?;
    Ok(VdbenchCall::Run(crate::vdbench::VdbenchOptions {
        elapsed: time("--runtime", &request.runtime)?,
        warmup: time("--warmup", &request.warmup)?,
        sd_size,
        json_output: request.output.clone(),
        substitutions: substitutions.to_vec(),
        allow_overwrite: request.allow_overwrite,
        flatfile: request.flatfile.clone(),
        ..Default::default()
    }))
}
