//! `iofit run`: runs fio job files (or fio-style command-line jobs) with iofit's engine and
//! prints fio's facts as text or fio-compatible JSON.
//!
//! Results are written after every finished job (`--output`, atomically through a temporary
//! file and a rename), so Ctrl-C or a crash keeps every finished job. The first Ctrl-C stops
//! every job cleanly and reports what was measured; a second one exits at once.

use crate::exit::bad_input;
use anyhow::Context;
use iofit_engine::{run_jobs, Observer, Progress, RunOptions, RunReport};
use iofit_jobfile::fio::{
    job_options as fio_job_options, parse_command_line, parse_file, ParseOptions,
};
use iofit_jobfile::Dialect;
use iofit_model::job::{JobSpec, Target};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Exit code when the run was interrupted by Ctrl-C (128 + SIGINT, as shells report it).
pub(crate) const INTERRUPTED: u8 = 130;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// fio-style text.
    Normal,
    /// fio-compatible JSON (stdout holds nothing else).
    Json,
}

/// Run fio job files, or fio-style jobs given on the command line.
///
/// Examples: `iofit run --runtime 30 fiowrite.ini`;
/// `iofit run --name=a --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --filename=F --size=1g`.
/// Any other `--key=value` after a job file overrides that fio option in every job.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Runtime of every job (fio `runtime`, vdbench `elapsed`: seconds, or 30s, 2m).
    #[arg(long, visible_alias = "elapsed", value_name = "TIME")]
    pub runtime: Option<String>,
    /// Unmeasured warm-up of every job (fio `ramp_time`, vdbench `warmup`).
    #[arg(long, visible_alias = "ramp-time", value_name = "TIME")]
    pub warmup: Option<String>,
    /// Size of every job's file region (fio `size`: 64m, 1g, 50%).
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// Directory of every job's files (fio `directory`).
    #[arg(long, value_name = "DIR")]
    pub directory: Option<String>,
    /// File(s) of every job (fio `filename`, several joined by ':').
    #[arg(long, value_name = "FILE")]
    pub filename: Option<String>,
    /// Check the job files and print the jobs; do not run them.
    #[arg(long)]
    pub parse_only: bool,
    /// Skip options fio does not know instead of failing.
    #[arg(long)]
    pub ignore_unknown: bool,
    /// Run only this job section of the job files (fio --section; may be repeated).
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "normal")]
    pub output_format: OutputFormat,
    /// Write results to FILE (after every finished job) instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// For a vdbench file: also write vdbench's flatfile (flatfile.html columns) to FILE.
    #[arg(long, value_name = "FILE")]
    pub flatfile: Option<PathBuf>,
    /// Allow writing to block devices and to existing files iofit did not create.
    #[arg(long)]
    pub allow_overwrite: bool,
    /// No progress line and no notes on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also write a self-contained HTML report (jobs table, IOPS and latency over time, latency
    /// percentile curve) to FILE after the run, also after Ctrl-C.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Run an Iometer access specification instead of job files: one of the seed's
    /// (RandomWrites_8K, RandomReads_8K, RandomWrites_64K, RandomReads_64K, RandomWrites_1MB,
    /// RandomReads_1MB) or one defined in --specs. Runs on `iobw.tst` in --target with
    /// --workers threads, each keeping --iodepth IOs outstanding (default 128), direct IO;
    /// --runtime defaults to 30s, --size to 1g.
    #[arg(long, value_name = "SPEC")]
    pub preset: Option<String>,
    /// The directory (volume) a --preset runs on.
    #[arg(long, value_name = "DIR", requires = "preset")]
    pub target: Option<PathBuf>,
    /// Workers (threads) of a --preset; the seed uses at least 3.
    #[arg(long, value_name = "N", requires = "preset")]
    pub workers: Option<u32>,
    /// A TOML file of user-defined access specifications (see examples/iometer/specs.toml).
    #[arg(long, value_name = "FILE")]
    pub specs: Option<PathBuf>,
    /// Run the jobs on these hosts at once over ssh: `h1,h2` or a file with one `[user@]host`
    /// a line (fio's --client=FILE). `${HOST}` in the job file becomes each host's name.
    #[arg(long, value_name = "HOSTS|FILE")]
    pub hosts: Option<String>,
    /// Path of iofit on the hosts (default: this binary's path).
    #[arg(long, value_name = "PATH")]
    pub remote_iofit: Option<String>,
    /// An ssh config file for reaching the hosts (ssh -F); default: the user's own.
    #[arg(long, value_name = "FILE")]
    pub ssh_config: Option<PathBuf>,
    /// Job files, then optional fio options as --key=value (or only fio options: a
    /// command-line job, each --name starting one).
    #[arg(
        value_name = "JOBFILE|--fio-option",
        allow_hyphen_values = true,
        trailing_var_arg = true
    )]
    pub rest: Vec<String>,
}

/// iofit's own flags when they appear after a job file (where clap passes them through).
fn take_own_flag(args: &mut Args, key: &str, value: Option<&str>) -> Result<bool, anyhow::Error> {
    let need = |v: Option<&str>| -> Result<String, anyhow::Error> {
        v.map(str::to_string)
            .ok_or_else(|| bad_input(format!("--{key} needs a value (write --{key}=VALUE)")))
    };
    match key {
        "parse-only" => args.parse_only = true,
        "ignore-unknown" => args.ignore_unknown = true,
        "section" => args.section.push(need(value)?),
        "allow-overwrite" => args.allow_overwrite = true,
        "quiet" => args.quiet = true,
        "output" => args.output = Some(PathBuf::from(need(value)?)),
        "report" => args.report = Some(PathBuf::from(need(value)?)),
        "flatfile" => args.flatfile = Some(PathBuf::from(need(value)?)),
        "preset" => args.preset = Some(need(value)?),
        "target" => args.target = Some(PathBuf::from(need(value)?)),
        "specs" => args.specs = Some(PathBuf::from(need(value)?)),
        "hosts" => args.hosts = Some(need(value)?),
        "remote-iofit" => args.remote_iofit = Some(need(value)?),
        "ssh-config" => args.ssh_config = Some(PathBuf::from(need(value)?)),
        "workers" => {
            let text = need(value)?;
            args.workers = Some(text.parse().map_err(|_| {
                bad_input(format!("--workers={text}: write a whole number such as 3"))
            })?)
        }
        "output-format" => {
            args.output_format = match need(value)?.as_str() {
                "normal" => OutputFormat::Normal,
                "json" => OutputFormat::Json,
                other => {
                    return Err(bad_input(format!(
                        "--output-format={other} is not known; use normal or json"
                    )))
                }
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The job files and fio options in `args.rest`.
struct Inputs {
    files: Vec<PathBuf>,
    fio_args: Vec<String>,
}

fn split_rest(args: &mut Args) -> anyhow::Result<Inputs> {
    let rest = std::mem::take(&mut args.rest);
    let mut files = Vec::new();
    let mut fio_args = Vec::new();
    let mut index = 0;
    while index < rest.len() {
        let arg = &rest[index];
        if let Some(body) = arg.strip_prefix("--") {
            let (key, value) = match body.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (body.to_string(), None),
            };
            let is_valued_own = matches!(
                key.as_str(),
                "output"
                    | "output-format"
                    | "report"
                    | "flatfile"
                    | "preset"
                    | "target"
                    | "specs"
                    | "workers"
                    | "hosts"
                    | "remote-iofit"
                    | "ssh-config"
            );
            let (value, consumed) = if value.is_none() && is_valued_own {
                (rest.get(index + 1).cloned(), 2)
            } else {
                (value, 1)
            };
            if take_own_flag(args, &key, value.as_deref())? {
                index += consumed;
                continue;
            }
            fio_args.push(arg.clone());
            // `--key value` for fio options: the value travels with its key.
            if !body.contains('=') {
                if let Some(next) = rest.get(index + 1) {
                    if !next.starts_with("--") && !looks_like_job_file(next) {
                        fio_args.push(next.clone());
                        index += 1;
                    }
                }
            }
            index += 1;
        } else {
            files.push(PathBuf::from(arg));
            index += 1;
        }
    }
    Ok(Inputs { files, fio_args })
}

fn looks_like_job_file(arg: &str) -> bool {
    let path = Path::new(arg);
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("ini" | "fio" | "job" | "vdb" | "vdbench" | "parm")
    ) || path.is_file()
}

/// fio options from iofit's own override flags, then `--key=value` pairs after job files.
fn overrides(args: &Args, fio_args: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for (key, value) in [
        ("runtime", &args.runtime),
        ("ramp_time", &args.warmup),
        ("size", &args.size),
        ("directory", &args.directory),
        ("filename", &args.filename),
    ] {
        if let Some(value) = value {
            out.push((key.to_string(), value.clone()));
        }
    }
    out.extend(overrides_from(fio_args));
    Ok(out)
}

fn load_jobs(args: &Args, inputs: &Inputs) -> anyhow::Result<Vec<JobSpec>> {
    if inputs.files.is_empty() {
        if inputs.fio_args.is_empty() {
            return Err(bad_input(
                "no job given; name a job file (iofit run --runtime 30 fiowrite.ini) or give a job as --name=a --rw=randread --size=64m --filename=F",
            ));
        }
        let options = ParseOptions {
            overrides: overrides(args, &[])?,
            ignore_unknown: args.ignore_unknown,
            skip_target_checks: args.parse_only,
            ..ParseOptions::default()
        };
        return parse_command_line(&inputs.fio_args, &options).map_err(bad_input);
    }
    let options = ParseOptions {
        overrides: overrides(args, &inputs.fio_args)?,
        ignore_unknown: args.ignore_unknown,
        sections: args.section.clone(),
        skip_target_checks: args.parse_only,
    };
    let mut jobs = Vec::new();
    for file in &inputs.files {
        match iofit_jobfile::detect(file).map_err(bad_input)? {
            Dialect::Fio => {
                // Each file is its own set of jobs: later files run after earlier ones, with
                // their own reporting groups, as when fio is given several job files.
                let mut parsed = parse_file(file, &options).map_err(bad_input)?;
                let group_base = jobs
                    .iter()
                    .map(|j: &JobSpec| j.group_id + 1)
                    .max()
                    .unwrap_or(0);
                for (i, job) in parsed.iter_mut().enumerate() {
                    job.group_id += group_base;
                    if i == 0 && !jobs.is_empty() {
                        job.stonewall = true;
                    }
                }
                jobs.extend(parsed);
            }
            Dialect::Vdbench => {
                return Err(bad_input(format!(
                    "{}: a vdbench parameter file runs on its own; give it as the only job file",
                    file.display()
                )))
            }
        }
    }
    Ok(jobs)
}

/// The seed's Iometer setup as defaults: 30 s per run (its FIO runs), 1 GiB test file (its
/// 200 GB `iobw.tst` is for a real volume; give --size 200g there), QD 128, 3 workers.
const PRESET_RUNTIME: &str = "30s";
const PRESET_SIZE: &str = "1g";
const PRESET_IODEPTH: u32 = 128;
const PRESET_WORKERS: u32 = 3;

/// The jobs of `--preset`: the access specification lowered by `iometer::preset_to_jobs`.
fn preset_jobs(args: &Args, name: &str, inputs: &Inputs) -> anyhow::Result<Vec<JobSpec>> {
    use iofit_jobfile::iometer;
    if let Some(file) = inputs.files.first() {
        return Err(bad_input(format!(
            "--preset {name} runs an Iometer access specification; {} is a job file: give one or the other",
            file.display()
        )));
    }
    if args.directory.is_some() || args.filename.is_some() {
        return Err(bad_input(
            "--directory/--filename do not apply to --preset; name the volume's directory with --target DIR",
        ));
    }
    // `--iodepth` stays a fio option for job files, so for a preset it arrives among them, as do
    // iofit's own flags written after it (clap hands everything after an unknown flag on).
    let mut iodepth = PRESET_IODEPTH;
    let mut runtime_text = args.runtime.clone();
    let mut size_text = args.size.clone();
    let mut warmup_text = args.warmup.clone();
    let mut workers = args.workers;
    for (key, value) in overrides_from(&inputs.fio_args) {
        match key.as_str() {
            "iodepth" => {
                iodepth = value.parse().ok().filter(|&q: &u32| q >= 1).ok_or_else(|| {
                    bad_input(format!("--iodepth={value}: write a whole number >= 1 such as 128"))
                })?
            }
            "runtime" | "elapsed" => runtime_text = Some(value),
            "size" => size_text = Some(value),
            "warmup" | "ramp-time" | "ramp_time" => warmup_text = Some(value),
            "numjobs" => {
                workers = Some(value.parse().map_err(|_| {
                    bad_input(format!("--numjobs={value}: write a whole number such as 3"))
                })?)
            }
            other => {
                return Err(bad_input(format!(
                    "--{other} does not apply to --preset; a preset takes --target, --workers, --iodepth, --runtime, --size, --warmup and --specs"
                )))
            }
        }
    }
    let target = args.target.as_deref().ok_or_else(|| {
        bad_input(format!(
            "--preset {name} needs --target DIR: the directory on the volume to test (Iometer's target disk)"
        ))
    })?;
    if !target.is_dir() {
        return Err(bad_input(format!(
            "--target {}: not a directory; give a directory on the volume to test",
            target.display()
        )));
    }
    let user_specs = match &args.specs {
        Some(path) => iometer::load_specs(path).map_err(bad_input)?,
        None => Vec::new(),
    };
    let spec = iometer::find(name, &user_specs).map_err(bad_input)?;
    let workers = workers.unwrap_or(PRESET_WORKERS);
    if workers == 0 {
        return Err(bad_input("--workers 0: a preset needs at least one worker"));
    }
    let runtime = duration(
        "--runtime",
        runtime_text.as_deref().unwrap_or(PRESET_RUNTIME),
    )?;
    if runtime.is_zero() {
        return Err(bad_input(
            "--runtime 0: a preset runs for a time; give e.g. 30s",
        ));
    }
    let size_text = size_text.as_deref().unwrap_or(PRESET_SIZE);
    let size = iofit_model::units::Bytes::parse(size_text)
        .map_err(|e| bad_input(format!("--size={size_text}: {e}")))?;
    if size < spec.request_size {
        return Err(bad_input(format!(
            "--size={size_text} is smaller than {}'s request size {}; give at least that",
            spec.name, spec.request_size
        )));
    }
    let mut jobs = iometer::preset_to_jobs(&spec, target, workers, iodepth, runtime, size);
    if let Some(warmup) = &warmup_text {
        let ramp = duration("--warmup", warmup)?;
        for job in &mut jobs {
            job.ramp_time = ramp;
        }
    }
    Ok(jobs)
}

/// `--key=value` / `--key value` pairs of fio options, in order.
fn overrides_from(fio_args: &[String]) -> Vec<(String, String)> {
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

fn describe_job(job: &JobSpec) -> String {
    let target = match &job.target {
        Target::Files(files) => files
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(":"),
        Target::Directory { path, .. } => format!("{}/", path.display()),
    };
    let options = fio_job_options(job)
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

/// fio's averaged logs (`PREFIX_bw.N.log`...), N the clone's number in the run as fio counts
/// threads; results are per clone here (jobfile refuses logs with group_reporting).
fn write_fio_logs(report: &RunReport, jobs: &[JobSpec]) -> anyhow::Result<()> {
    use iofit_report::fio_log::{render, LogKind};
    for (number, (result, &index)) in report.result.jobs.iter().zip(&report.job_index).enumerate() {
        let job = &jobs[index];
        for (prefix, kind) in [
            (&job.logs.bw_prefix, LogKind::Bandwidth),
            (&job.logs.iops_prefix, LogKind::Iops),
            (&job.logs.lat_prefix, LogKind::Latency),
        ] {
            let Some(prefix) = prefix else { continue };
            let path = PathBuf::from(format!("{prefix}_{}.{}.log", kind.suffix(), number + 1));
            let text = render(
                &result.series,
                kind,
                job.rw.has_reads(),
                job.rw.has_writes(),
            );
            super::files::write_output(&path, text.as_bytes())
                .with_context(|| format!("cannot write the log {}", path.display()))?;
        }
    }
    Ok(())
}

fn render(format: OutputFormat, report: &RunReport, jobs: &[JobSpec]) -> String {
    match format {
        OutputFormat::Json => {
            let options: Vec<Vec<(String, String)>> = report
                .job_index
                .iter()
                .map(|&i| fio_job_options(&jobs[i]))
                .collect();
            iofit_report::fio_json::render(&report.result, &options)
        }
        OutputFormat::Normal => iofit_report::fio_text::render(&report.result),
    }
}

struct CliObserver<'a> {
    jobs: &'a [JobSpec],
    format: OutputFormat,
    output: Option<&'a Path>,
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
    last: Option<(Instant, u64, u64)>,
    write_error: Option<iofit_safefs::SafeFsError>,
}

impl Observer for CliObserver<'_> {
    fn layout(&mut self, files: usize, bytes: u64) {
        if !self.quiet {
            eprintln!(
                "iofit: laying out {files} file(s), {:.1} MiB, before timing starts",
                bytes as f64 / (1024.0 * 1024.0)
            );
        }
    }

    fn job_done(&mut self, report: &RunReport) {
        if let Some(path) = self.output {
            if let Err(e) = iofit_safefs::atomic::write_atomic(
                path,
                render(self.format, report, self.jobs).as_bytes(),
            ) {
                self.write_error.get_or_insert(e);
            }
        }
    }

    fn progress(&mut self, progress: &Progress) {
        let Some(bar) = &self.bar else {
            return;
        };
        let now = Instant::now();
        let (iops, mb_s) = match self.last {
            Some((t, ios, bytes)) if now > t && progress.ios >= ios => {
                let dt = (now - t).as_secs_f64();
                (
                    (progress.ios - ios) as f64 / dt,
                    (progress.bytes - bytes) as f64 / dt / 1e6,
                )
            }
            _ => (0.0, 0.0),
        };
        self.last = Some((now, progress.ios, progress.bytes));
        let (position, length) = match (progress.planned, progress.budget_bytes) {
            (Some(planned), _) => (
                progress.elapsed.as_millis() as u64,
                planned.as_millis().max(1) as u64,
            ),
            (None, Some(budget)) => (progress.bytes, budget.max(1)),
            _ => (0, 0),
        };
        bar.set_length(length);
        bar.set_position(position.min(length));
        bar.set_message(format!(
            "set {}/{}  IOPS={}  {:.1} MB/s",
            progress.set_index + 1,
            progress.sets,
            iofit_report::fio_text::count(iops),
            mb_s
        ));
    }
}

/// `--hosts`: the fio jobs on every host at once (see `cmd::remote`).
fn run_on_hosts(args: &Args, hosts: &str, inputs: &Inputs) -> anyhow::Result<ExitCode> {
    if args.preset.is_some() {
        return Err(bad_input(
            "--hosts runs fio job files; --preset does not apply to it yet",
        ));
    }
    if args.parse_only {
        // Each host's jobs, after ${HOST} became its name: nothing is contacted.
        let overrides = overrides(args, &inputs.fio_args)?;
        for destination in crate::cmd::remote::parse_hosts(hosts)? {
            let name = crate::cmd::remote::host_name(&destination);
            let jobs = crate::cmd::remote::fio_jobs_for(
                name,
                &inputs.files,
                &overrides,
                args.ignore_unknown,
            )?;
            for job in &jobs {
                println!("{destination}: {}", describe_job(job));
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let reach = crate::cmd::remote::Reach {
        remote_iofit: args.remote_iofit.clone(),
        ssh_config: args.ssh_config.clone(),
        allow_overwrite: args.allow_overwrite,
        stop: Arc::new(AtomicBool::new(false)),
    };
    let output = crate::cmd::remote::Output {
        json: args.output_format == OutputFormat::Json,
        path: args.output.as_deref(),
        quiet: args.quiet,
        report: args.report.as_deref(),
    };
    let overrides = overrides(args, &inputs.fio_args)?;
    crate::cmd::remote::run_fio(
        hosts,
        &inputs.files,
        &overrides,
        args.ignore_unknown,
        &reach,
        &output,
    )
}

/// A vdbench parameter file: handed to the vdbench runner with the overrides that apply.
fn run_vdbench(args: &Args, file: &Path, substitutions: &[String]) -> anyhow::Result<ExitCode> {
    if args.report.is_some() {
        return Err(bad_input(
            "--report applies to fio job files and --preset; for a vdbench file give --output FILE (JSON) and render it with iofit compare FILE --requirements REQ --report FILE",
        ));
    }
    if args.preset.is_some() {
        return Err(bad_input(
            "--preset runs an Iometer access specification; do not also give a vdbench file",
        ));
    }
    if args.parse_only {
        return crate::cmd::vdbench::check_file(file, substitutions);
    }
    if args.directory.is_some() || args.filename.is_some() {
        return Err(bad_input(
            "--directory/--filename do not apply to a vdbench file; change its sd= lun= lines",
        ));
    }
    if args.output_format == OutputFormat::Json && args.output.is_none() {
        return Err(bad_input(
            "a vdbench file prints vdbench-style text; for JSON give --output FILE",
        ));
    }
    if let Some(path) = &args.output {
        super::files::check_output(path, &[file.to_path_buf()], "--output")?;
    }
    if let Some(path) = &args.flatfile {
        super::files::check_output(path, &[file.to_path_buf()], "--flatfile")?;
    }
    let options = iofit_procedure::vdbench::VdbenchOptions {
        elapsed: args
            .runtime
            .as_deref()
            .map(|t| duration("--runtime", t))
            .transpose()?,
        warmup: args
            .warmup
            .as_deref()
            .map(|t| duration("--warmup", t))
            .transpose()?,
        sd_size: args
            .size
            .as_deref()
            .map(|s| {
                iofit_model::units::Bytes::parse(s)
                    .map_err(|e| bad_input(format!("--size={s}: {e}")))
            })
            .transpose()?,
        json_output: args.output.clone(),
        substitutions: substitutions.to_vec(),
        allow_overwrite: args.allow_overwrite,
        flatfile: args.flatfile.clone(),
        ..Default::default()
    };
    let stop = Arc::clone(&options.stop);
    install_ctrl_c(Arc::clone(&stop));
    crate::cmd::vdbench::run_file(
        file,
        &options,
        args.allow_overwrite,
        args.quiet,
        stop,
        (args.remote_iofit.clone(), args.ssh_config.clone()),
    )
}

pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    let mut inputs = split_rest(&mut args)?;
    // `iofit run parm.vdb lun=/tmp/x`: after a vdbench file, name=value words are vdbench's
    // substitutions ($lun in the file), as `vdbench -f parm.vdb lun=/tmp/x`.
    let mut substitutions = Vec::new();
    if inputs.files.len() > 1
        && iofit_jobfile::detect(&inputs.files[0]).map_err(bad_input)? == Dialect::Vdbench
    {
        let mut files = Vec::new();
        for (index, file) in inputs.files.drain(..).enumerate() {
            let text = file.to_string_lossy().to_string();
            if index > 0 && !file.exists() && text.contains('=') {
                substitutions.push(text);
            } else {
                files.push(file);
            }
        }
        inputs.files = files;
    }
    for file in &inputs.files {
        super::files::check_input(file, super::files::caps::JOB_FILE_BYTES, "job file")?;
    }
    if let [file] = inputs.files.as_slice() {
        if iofit_jobfile::detect(file).map_err(bad_input)? == Dialect::Vdbench {
            return run_vdbench(&args, file, &substitutions);
        }
    }
    if args.flatfile.is_some() {
        return Err(bad_input(
            "--flatfile writes vdbench's flatfile of a vdbench parameter file; for fio job files use --output FILE (fio JSON)",
        ));
    }
    if let Some(hosts) = &args.hosts {
        return run_on_hosts(&args, hosts, &inputs);
    }
    if args.preset.is_none()
        && (args.target.is_some() || args.workers.is_some() || args.specs.is_some())
    {
        return Err(bad_input(
            "--target, --workers and --specs apply to --preset NAME (an Iometer access specification); for job files use --directory and numjobs",
        ));
    }
    let jobs = match &args.preset {
        Some(name) => preset_jobs(&args, name, &inputs)?,
        None => load_jobs(&args, &inputs)?,
    };
    if jobs.is_empty() {
        return Err(bad_input(
            "the job files define no job; add a [job] section",
        ));
    }
    if args.parse_only {
        for job in &jobs {
            println!("{}", describe_job(job));
            for note in &job.notes {
                println!("  note: {note}");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    check_outputs(&args, &inputs.files, &jobs)?;

    let stop = Arc::new(AtomicBool::new(false));
    install_ctrl_c(Arc::clone(&stop));
    let options = RunOptions {
        allow_overwrite: args.allow_overwrite,
        stop: Arc::clone(&stop),
        ..RunOptions::default()
    };
    let show_progress = !args.quiet && std::io::stderr().is_terminal();
    let bar = show_progress.then(|| {
        let bar = indicatif::ProgressBar::new(0);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] ETA {eta} {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
        bar
    });
    if !args.quiet {
        let mapped: Vec<&str> = jobs
            .iter()
            .filter(|job| job.engine != iofit_engine::engine_used(job.engine))
            .map(|job| job.name.as_str())
            .collect();
        if !mapped.is_empty() {
            eprintln!(
                "iofit: ioengine=libaio runs on io_uring with the same queue depth (jobs: {})",
                mapped.join(", ")
            );
        }
        let mut said: Vec<&str> = Vec::new();
        for note in jobs.iter().flat_map(|job| job.notes.iter()) {
            if !said.contains(&note.as_str()) {
                said.push(note);
                eprintln!("iofit: note: {note}");
            }
        }
    }
    let mut observer = CliObserver {
        jobs: &jobs,
        format: args.output_format,
        output: args.output.as_deref(),
        quiet: args.quiet,
        bar,
        last: None,
        write_error: None,
    };
    let outcome = run_jobs(&jobs, &options, &mut observer);
    if let Some(bar) = &observer.bar {
        bar.finish_and_clear();
    }
    if matches!(outcome, Err(iofit_engine::EngineError::Interrupted)) {
        // Ctrl-C while laying out: nothing ran, the partial file is gone; 130 as for any stop.
        eprintln!("iofit: interrupted while laying out test files; no job ran");
        return Ok(ExitCode::from(INTERRUPTED));
    }
    // exit.rs decides the code from the typed error (a refusal is bad input).
    let report = outcome.context("the run failed")?;
    if let Some(e) = observer.write_error.take() {
        return Err(anyhow::Error::new(e).context(format!(
            "cannot write results to {}",
            args.output.as_deref().unwrap_or(Path::new("")).display()
        )));
    }
    write_fio_logs(&report, &jobs)?;
    if let Some(path) = &args.report {
        write_html_report(path, &report, &jobs, args.preset.as_deref())?;
        if !args.quiet {
            eprintln!("iofit: wrote the report {}", path.display());
        }
    }
    let text = render(args.output_format, &report, &jobs);
    super::write_or_print(args.output.as_deref(), &text)?;
    let interrupted =
        stop.load(Ordering::Relaxed) || report.result.jobs.iter().any(|j| j.interrupted);
    let failed: Vec<&str> = report
        .result
        .jobs
        .iter()
        .filter(|j| j.error.is_some())
        .map(|j| j.name.as_str())
        .collect();
    if interrupted {
        if !args.quiet {
            eprintln!("iofit: interrupted; the results cover what ran before Ctrl-C");
        }
        return Ok(ExitCode::from(INTERRUPTED));
    }
    if !failed.is_empty() {
        eprintln!(
            "iofit: error: job(s) {} stopped on an IO error (see the results)",
            failed.join(", ")
        );
        return Ok(ExitCode::from(crate::exit::FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

/// The run as one self-contained HTML file: what ran, the jobs table, IOPS, MB/s and latency
/// over time and the latency percentile curve. Written whole or not at all.
fn write_html_report(
    path: &Path,
    report: &RunReport,
    jobs: &[JobSpec],
    preset: Option<&str>,
) -> anyhow::Result<()> {
    let mut names: Vec<&str> = Vec::new();
    for job in &report.result.jobs {
        if !names.contains(&job.name.as_str()) {
            names.push(&job.name);
        }
    }
    let title = match preset {
        Some(name) => format!("iofit run --preset {name}"),
        None => format!("iofit run: {}", names.join(", ")),
    };
    let described: Vec<String> = report
        .job_index
        .iter()
        .map(|&i| describe_job(&jobs[i]))
        .collect();
    let mut body = described.join("\n\n");
    if report.result.jobs.iter().any(|j| j.interrupted) {
        body.push_str(
            "\n\nThe run was interrupted (Ctrl-C): the numbers cover what completed before it.",
        );
    }
    let html = iofit_report::html::HtmlReport::new(title)
        .section("What ran", body)
        .run_result(&report.result);
    super::plan::write_report(path, super::plan::ReportFormat::Html, &html)
}

/// Ctrl-C sets `stop` (jobs end cleanly, results cover what ran); a second press exits at once.
pub(crate) fn install_ctrl_c(stop: Arc<AtomicBool>) {
    static PRESSES: AtomicUsize = AtomicUsize::new(0);
    // Fails only when a handler is already installed (a second run in one process): the first
    // handler's flag is then not ours, which only matters for tests that run in-process.
    let _ = ctrlc::set_handler(move || {
        if PRESSES.fetch_add(1, Ordering::SeqCst) >= 1 {
            std::process::exit(INTERRUPTED as i32);
        }
        stop.store(true, Ordering::SeqCst);
    });
}

fn duration(flag: &str, text: &str) -> anyhow::Result<std::time::Duration> {
    super::duration_flag(flag, text).map_err(bad_input)
}

/// Before any IO: `--output` and `--report` must be writable file names that name none of the
/// run's inputs (job files, the spec file) or targets (every file a job reads or writes).
fn check_outputs(args: &Args, job_files: &[PathBuf], jobs: &[JobSpec]) -> anyhow::Result<()> {
    if args.output.is_none() && args.report.is_none() {
        return Ok(());
    }
    let mut protected: Vec<PathBuf> = job_files.to_vec();
    protected.extend(args.specs.iter().cloned());
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
    if let Some(path) = &args.output {
        super::files::check_output(path, &protected, "--output")?;
    }
    if let Some(path) = &args.report {
        super::files::check_output(path, &protected, "--report")?;
    }
    Ok(())
}
