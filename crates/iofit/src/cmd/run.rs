//! `iofit run`: runs fio job files (or fio-style command-line jobs) with iofit's engine and
//! prints fio's facts as text or fio-compatible JSON.
//!
//! Results are written after every finished job (`--output`, atomically through a temporary
//! file and a rename), so Ctrl-C or a crash keeps every finished job. The first Ctrl-C stops
//! every job cleanly and reports what was measured; a second one exits at once.

use iofit_engine::{LiveResults, RunOptions};
use iofit_procedure::fio_run::run_fio_jobs;
use iofit_procedure::run_display::RunDisplay;
use iofit_procedure::run_flow::{choose, fio_end, last_word, RunChoice};
use iofit_procedure::run_request::{self as request, RunRequest};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Run fio job files, or fio-style jobs given on the command line.
///
/// Examples: `iofit run --runtime 30 fiowrite.ini`;
/// `iofit run --name=a --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring --filename=F --size=1g`.
/// Any other `--key=value` after a job file overrides that fio option in every job.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "fio options, as --key=value after the job files (or alone: a \
    command-line job, each --name starting one), e.g. --name=NAME --rw=randread|randwrite|\
    randrw|read|write --bs=4k --iodepth=32 --numjobs=4 --ioengine=io_uring|psync|libaio \
    --direct=1 --size=1g --filename=F --directory=DIR --rwmixread=70 --time_based \
    --rate_iops=N. Every fio job option is read as fio reads it; --parse-only shows how."
)]
pub struct Args {
    /// How long the IO runs. Every job's (fio `runtime`, vdbench `elapsed`: seconds, or 30s,
    /// 2m) [default: the job file's; a fio job without one runs until its size is done].
    #[arg(long, visible_alias = "elapsed", value_name = "TIME")]
    pub runtime: Option<String>,
    /// Unmeasured warm-up of every job (fio `ramp_time`, vdbench `warmup`) [default: the job
    /// file's, else 0].
    #[arg(long, visible_alias = "ramp-time", value_name = "TIME")]
    pub warmup: Option<String>,
    /// Size of the test file region per job, as fio's size (k/m/g = powers of 1024). Every job's; a
    /// percentage (50%) of an existing file or device.
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
    /// Output format: normal (fio's text), json, json+ (JSON with every latency histogram's
    /// bins), terse (fio's version 3 line), or several joined by commas (normal,terse) as fio.
    #[arg(long, value_parser = request::output_format_flag, default_value = "normal")]
    pub output_format: request::OutputFormat,
    /// Print the result as JSON on stdout. The same as --output-format=json.
    #[arg(long, conflicts_with = "output_format")]
    pub json: bool,
    /// Write the result to FILE. The results, after every finished job, instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print the full report so far every T (seconds, or with a unit: 500ms) while jobs run,
    /// in the --output-format (fio --status-interval; json prints one JSON object each time).
    #[arg(long, value_name = "T", value_parser = request::status_interval)]
    pub status_interval: Option<std::time::Duration>,
    /// For a vdbench file: also write vdbench's flatfile (flatfile.html columns) to FILE.
    #[arg(long, value_name = "FILE")]
    pub flatfile: Option<PathBuf>,
    /// Allow replacing files iofit did not create. Also writing to block devices.
    #[arg(long)]
    pub allow_overwrite: bool,
    /// No progress on stderr. No notes either.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also write a self-contained HTML report to FILE, the answer first. The jobs table, IOPS and
    /// latency over time, the latency percentile curve; after the run, also after Ctrl-C.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Run an Iometer access specification instead of job files: one of the seed's
    /// (RandomWrites_8K, RandomReads_8K, RandomWrites_64K, RandomReads_64K, RandomWrites_1MB,
    /// RandomReads_1MB) or one defined in --specs. Runs on `iobw.tst` in --target with
    /// --workers threads, each keeping --iodepth IOs outstanding (128 unless --iodepth is
    /// given), direct IO; --runtime is 30s and --size 1g unless given.
    #[arg(long, value_name = "SPEC")]
    pub preset: Option<String>,
    /// The directory (volume) the test file is in. For a --preset.
    #[arg(long, value_name = "DIR", requires = "preset")]
    pub target: Option<PathBuf>,
    /// Workers (threads) per target volume of a preset; the seed says at least 3. Each worker is
    /// one job [default: 3].
    #[arg(long, value_name = "N", requires = "preset")]
    pub workers: Option<u32>,
    /// A TOML file of user-defined access specifications (see examples/iometer/specs.toml).
    #[arg(long, value_name = "FILE")]
    pub specs: Option<PathBuf>,
    /// Run the jobs on these hosts at once over ssh: `h1,h2` or a file with one `[user@]host`
    /// a line (fio's --client=FILE). `${HOST}` in the job file becomes each host's name.
    /// `slurm`: the nodes of the Slurm allocation this runs in, the workers the tasks of one
    /// job step (no ssh).
    #[arg(long, value_name = "HOSTS|FILE|slurm")]
    pub hosts: Option<String>,
    /// Workers started on each allocated node (with `--hosts slurm`) [default: 1].
    #[arg(long, value_name = "N", requires = "hosts")]
    pub tasks_per_node: Option<u32>,
    /// Path of iofit on the hosts [default: this binary's path].
    #[arg(long, value_name = "PATH")]
    pub remote_iofit: Option<String>,
    /// An ssh config file for reaching the hosts (ssh -F) [default: the user's own].
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

impl Args {
    /// The request as the procedure takes it (no clap types); `rest` stays here.
    fn request(&mut self) -> RunRequest {
        RunRequest {
            runtime: self.runtime.take(),
            warmup: self.warmup.take(),
            size: self.size.take(),
            directory: self.directory.take(),
            filename: self.filename.take(),
            parse_only: self.parse_only,
            ignore_unknown: self.ignore_unknown,
            section: std::mem::take(&mut self.section),
            output_format: match self.json {
                true => request::OutputFormat::Json,
                false => self.output_format,
            },
            output: self.output.take(),
            allow_overwrite: self.allow_overwrite,
            quiet: self.quiet,
            report: self.report.take(),
            preset: self.preset.take(),
            target: self.target.take(),
            workers: self.workers,
            specs: self.specs.take(),
            hosts: self.hosts.take(),
            remote_iofit: self.remote_iofit.take(),
            ssh_config: self.ssh_config.take(),
            tasks_per_node: self.tasks_per_node,
            flatfile: self.flatfile.take(),
            status_interval: self.status_interval,
        }
    }
}

pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    let mut request = args.request();
    let inputs = request.take_rest(std::mem::take(&mut args.rest))?;
    let jobs = match choose(&request, &inputs)? {
        RunChoice::Lines(lines) => return super::print_lines(&lines),
        RunChoice::Vdbench(file, options, reach) => {
            return crate::cmd::vdbench::run_file(&file, &options, &reach, request.quiet)
        }
        RunChoice::Hosts(hosts) => return crate::cmd::remote::run_fio(&request, &hosts, &inputs),
        RunChoice::Jobs(jobs) => jobs,
    };
    let stop = Arc::new(AtomicBool::new(false));
    super::install_ctrl_c(Arc::clone(&stop));
    let live = Arc::new(LiveResults::default());
    // Should the stop bound end the process before the results are out, it prints (or writes
    // to --output) what the jobs had measured.
    let word = last_word(Arc::clone(&live), request.output_format, jobs.clone());
    crate::stop::set_last_word(Box::new(word), request.output.as_deref());
    let options = RunOptions {
        allow_overwrite: request.allow_overwrite,
        stop,
        status_interval: request.status_interval,
        live: Some(live),
        ..RunOptions::default()
    };
    let screen = Arc::new(super::progress::Terminal::new(request.quiet));
    let mut display = RunDisplay::new(screen, request.quiet, crate::stop::STOP_BOUND);
    let outcome = run_fio_jobs(&request, &inputs.files, &jobs, &options, &mut display)?;
    if request.output.is_some() {
        // The results are in the output file, whole: the bound must not replace them.
        crate::stop::clear_last_word();
    }
    let to_stdout = request.output.is_none();
    let status = display.status_outcome();
    let end = fio_end(
        &outcome,
        &status,
        to_stdout,
        request.quiet,
        crate::stop::STOP_BOUND,
    );
    super::say(&end.notes);
    if let Some(Err(e)) = end.stdout.as_deref().map(super::emit) {
        // Past the stop bound, stdout (a pipe nobody reads) did not take the results.
        return end
            .stdout_refused(&format!("{e:#}"))
            .map(super::end)
            .ok_or(e);
    }
    Ok(super::end(end.ending))
}
