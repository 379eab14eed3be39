//! `iofit run`: runs fio job files (or fio-style command-line jobs) with iofit's engine and
//! prints fio's facts as text or fio-compatible JSON.
//!
//! Results are written after every finished job (`--output`, atomically through a temporary
//! file and a rename), so Ctrl-C or a crash keeps every finished job. The first Ctrl-C stops
//! every job cleanly and reports what was measured; a second one exits at once.

use crate::stop::LastWordTo;
use iofit_engine::{LiveResults, Progress, RunOptions};
use iofit_procedure::fio_run::{run_fio_jobs, FioRunOutcome};
use iofit_procedure::observer::{Observer, Warning};
use iofit_procedure::run_request::{self as request, Inputs, RunRequest, VdbenchCall, What};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::exit::INTERRUPTED;

/// fio's `--output-format`: normal, json, json+, terse, or several joined by commas
/// (`normal,terse`), as fio takes it.
fn output_format(text: &str) -> Result<request::OutputFormat, String> {
    request::OutputFormat::parse(text).ok_or_else(|| {
        format!("'{text}' is not an output format; use normal, json, json+ or terse, or several joined by commas (normal,terse)")
    })
}

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
    #[arg(long, value_parser = output_format, default_value = "normal")]
    pub output_format: request::OutputFormat,
    /// Print the result as JSON on stdout. The same as --output-format=json.
    #[arg(long, conflicts_with = "output_format")]
    pub json: bool,
    /// Write the result to FILE. The results, after every finished job, instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print the full report so far every T (seconds, or with a unit: 500ms) while jobs run,
    /// in the --output-format (fio --status-interval; json prints one JSON object each time).
    #[arg(long, value_name = "T", value_parser = parse_status_interval)]
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
            output_format: self.output_format,
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

/// Bytes in MiB or GiB, one decimal.
fn mib_text(bytes: u64) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

/// "laid out 1.0 GiB in 5.0 s (214.7 MB/s)".
fn layout_done_text(bytes: u64, took: std::time::Duration) -> String {
    let seconds = took.as_secs_f64();
    let rate = if seconds > 0.0 {
        format!(" ({:.1} MB/s)", bytes as f64 / seconds / 1e6)
    } else {
        String::new()
    };
    format!("laid out {} in {seconds:.1} s{rate}", mib_text(bytes))
}

/// "laying out 512.0 MiB of 1.0 GiB (107.4 MB/s)": the layout's progress line.
fn layout_progress_text(written: u64, total: u64, took: std::time::Duration) -> String {
    let seconds = took.as_secs_f64();
    let rate = if seconds > 0.0 && written > 0 {
        format!(" ({:.1} MB/s)", written as f64 / seconds / 1e6)
    } else {
        String::new()
    };
    format!(
        "laying out {} of {}{rate}",
        mib_text(written),
        mib_text(total)
    )
}

/// What is left of the current set: with a runtime, the planned time minus the elapsed (never
/// more than that: a rate estimate early in a run guesses minutes for a run of seconds);
/// size-bounded, the bytes left at the rate so far.
fn eta_text(progress: &Progress) -> String {
    let left_s = match (progress.planned, progress.budget_bytes) {
        (Some(planned), _) => Some(planned.saturating_sub(progress.elapsed).as_secs_f64()),
        (None, Some(budget)) if progress.bytes > 0 => {
            let rate = progress.bytes as f64 / progress.elapsed.as_secs_f64().max(1e-3);
            Some(budget.saturating_sub(progress.bytes) as f64 / rate)
        }
        _ => None,
    };
    // Sets after this one may run for other times: with several, the ETA says it is this set's.
    let of_set = if progress.sets > 1 { " (this set)" } else { "" };
    match left_s {
        Some(s) if s >= 60.0 => format!(
            "ETA {}m{:02}s{of_set}",
            (s / 60.0) as u64,
            (s % 60.0) as u64
        ),
        Some(s) => format!("ETA {}s{of_set}", s.ceil() as u64),
        None => "ETA -".into(),
    }
}

fn parse_status_interval(text: &str) -> Result<std::time::Duration, String> {
    request::status_interval(text).map_err(|e| e.to_string())
}

/// The run's progress bar and notes on stderr.
struct RunObserver {
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
    last: Option<(Instant, u64, u64)>,
    /// When the layout began and how many bytes it writes: the first progress of the run
    /// ends it, and says how long it took at what rate.
    layout: Option<(Instant, u64)>,
    /// On a terminal, while the layout runs: the thread that shows its bytes and rate, and
    /// the flag that ends it.
    layout_ticker: Option<(Arc<AtomicBool>, std::thread::JoinHandle<()>)>,
    /// The thread printing `--status-interval` reports, from the first one on.
    status: Option<StatusWriter>,
    status_outcome: StatusOutcome,
}

impl RunObserver {
    /// Ends the layout's progress display, if one runs.
    fn end_layout_ticker(&mut self) {
        if let Some((done, ticker)) = self.layout_ticker.take() {
            done.store(true, Ordering::SeqCst);
            let _ = ticker.join();
        }
    }

    /// The layout is over (the run reports progress, or ended first): its bytes, time, rate.
    fn finish_layout(&mut self) {
        self.end_layout_ticker();
        if let Some((started, bytes)) = self.layout.take() {
            let line = format!("iofit: {}", layout_done_text(bytes, started.elapsed()));
            match &self.bar {
                Some(bar) => bar.println(line),
                None => eprintln!("{line}"),
            }
        }
    }
}

impl Drop for RunObserver {
    fn drop(&mut self) {
        self.end_layout_ticker();
    }
}

impl RunObserver {
    fn new(quiet: bool) -> Self {
        let show_progress = !quiet && std::io::stderr().is_terminal();
        let bar = show_progress.then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}")
                    .expect("static template")
                    .progress_chars("=> "),
            );
            bar
        });
        RunObserver {
            quiet,
            bar,
            last: None,
            layout: None,
            layout_ticker: None,
            status: None,
            status_outcome: StatusOutcome::default(),
        }
    }
}

impl Observer for RunObserver {
    fn warning(&mut self, warning: &Warning) {
        if !self.quiet {
            eprintln!("iofit: {warning}");
        }
    }

    fn layout(&mut self, _label: &str, files: usize, bytes: u64) {
        if !self.quiet {
            eprintln!(
                "iofit: laying out {files} file(s), {}, before timing starts",
                mib_text(bytes)
            );
            self.layout = Some((Instant::now(), bytes));
        }
    }

    fn layout_written(&mut self, _label: &str, written: Arc<std::sync::atomic::AtomicU64>) {
        let (Some(bar), Some((started, total))) = (&self.bar, self.layout) else {
            return;
        };
        let (bar, done) = (bar.clone(), Arc::new(AtomicBool::new(false)));
        let stop = Arc::clone(&done);
        let ticker = std::thread::Builder::new()
            .name("layout-progress".into())
            .spawn(move || {
                bar.set_length(total.max(1));
                while !stop.load(Ordering::SeqCst) {
                    let so_far = written.load(Ordering::Relaxed);
                    bar.set_position(so_far.min(total));
                    bar.set_message(layout_progress_text(so_far, total, started.elapsed()));
                    std::thread::sleep(std::time::Duration::from_millis(250));
                }
            });
        if let Ok(ticker) = ticker {
            self.layout_ticker = Some((done, ticker));
        }
    }

    fn progress(&mut self, _label: &str, progress: &Progress) {
        self.finish_layout();
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
            "{}  set {}/{}  IOPS={}  {:.1} MB/s",
            eta_text(progress),
            progress.set_index + 1,
            progress.sets,
            iofit_report::fio_text::count(iops),
            mb_s
        ));
    }

    fn run_done(&mut self, _label: &str) {
        self.finish_layout();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Some(writer) = &mut self.status {
            self.status_outcome = writer.finish();
        }
    }

    fn status_report(&mut self, _label: &str, text: &str) {
        let mut text = text.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if self.status.is_none() {
            self.status = StatusWriter::start(self.bar.clone());
        }
        match &mut self.status {
            Some(writer) => writer.offer(text),
            // No thread to print from: printed here, as before (cannot block: see `start`).
            None => {
                let _ = crate::stop::print_status(&text);
            }
        }
    }
}

/// Prints the `--status-interval` reports from a thread of its own, so that a stdout that
/// takes nothing (a pipe whose reader stopped reading) never holds the run: the runner hands a
/// report over and goes on; while the thread still has one waiting, a new one is skipped, and
/// stderr says so once.
struct StatusWriter {
    reports: Option<std::sync::mpsc::SyncSender<String>>,
    thread: Option<std::thread::JoinHandle<()>>,
    offered: u64,
    skipped: u64,
}

/// What became of the `--status-interval` reports by the end of the run.
#[derive(Clone, Copy, Debug, Default)]
struct StatusOutcome {
    offered: u64,
    skipped: u64,
    /// stdout had not taken the reports [`crate::stop::STOP_BOUND`] after the run ended: the
    /// results cannot be printed either.
    stalled: bool,
}

impl StatusWriter {
    fn start(bar: Option<indicatif::ProgressBar>) -> Option<StatusWriter> {
        // One report may wait while another is printed; a third is skipped.
        let (tx, rx) = std::sync::mpsc::sync_channel::<String>(1);
        let thread = std::thread::Builder::new()
            .name("status-out".into())
            .spawn(move || {
                for text in rx {
                    let print = || crate::stop::print_status(&text);
                    let printed = match &bar {
                        Some(bar) => bar.suspend(print),
                        None => print(),
                    };
                    // A closed stdout (its reader left) or one given up on: no more reports.
                    if printed.is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(StatusWriter {
            reports: Some(tx),
            thread: Some(thread),
            offered: 0,
            skipped: 0,
        })
    }

    /// Hands `text` to the thread, or skips it when the thread has one waiting already.
    fn offer(&mut self, text: String) {
        self.offered += 1;
        let Some(reports) = &self.reports else { return };
        if let Err(std::sync::mpsc::TrySendError::Full(_)) = reports.try_send(text) {
            self.skipped += 1;
            if self.skipped == 1 {
                eprintln!(
                    "iofit: stdout is not taking the --status-interval reports (its reader is not reading); skipping reports until it does, the run goes on"
                );
            }
        }
    }

    /// The run is over: waits for the reports handed over to be printed, up to the stop
    /// bound; past it, gives stdout up (the report under way is cut, and so would the
    /// results be).
    fn finish(&mut self) -> StatusOutcome {
        drop(self.reports.take());
        let ended = Instant::now();
        let mut stalled = false;
        if let Some(thread) = self.thread.take() {
            while !thread.is_finished() && ended.elapsed() < crate::stop::STOP_BOUND {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            if !thread.is_finished() {
                stalled = true;
                crate::stop::give_up_stdout_at(Instant::now());
                // The thread's print returns within its poll interval of that moment.
                let _ = thread.join();
            }
        }
        StatusOutcome {
            offered: self.offered,
            skipped: self.skipped,
            stalled,
        }
    }
}

/// `--hosts`: the fio jobs on every host at once (see `cmd::remote`).
fn run_on_hosts(request: &RunRequest, hosts: &str, inputs: &Inputs) -> anyhow::Result<ExitCode> {
    let overrides = request.overrides(&inputs.fio_args);
    if request.parse_only {
        // Each host's jobs, after ${HOST} became its name: nothing is contacted.
        for (name, destination) in slurm_reach(request).workers(hosts)? {
            let jobs = iofit_procedure::hosts::fio_jobs_for(
                &name,
                &inputs.files,
                &overrides,
                request.ignore_unknown,
            )?;
            for job in &jobs {
                println!("{destination}: {}", request::describe_job(job));
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let reach = slurm_reach(request);
    let output = crate::cmd::remote::Output {
        json: request.output_format.machine_readable(),
        path: request.output.as_deref(),
        quiet: request.quiet,
        report: request.report.as_deref(),
    };
    crate::cmd::remote::run_fio(
        hosts,
        &inputs.files,
        &overrides,
        request.ignore_unknown,
        &reach,
        &output,
    )
}

/// How `--hosts` reaches its workers: over ssh, or as the tasks of one Slurm job step with
/// `--hosts slurm`.
fn slurm_reach(request: &RunRequest) -> iofit_procedure::hosts::Reach {
    let slurm = request.hosts.as_deref() == Some(iofit_procedure::hosts::SLURM_HOSTS);
    iofit_procedure::hosts::Reach {
        remote_iofit: request.remote_iofit.clone(),
        ssh_config: request.ssh_config.clone(),
        allow_overwrite: request.allow_overwrite,
        stop: Arc::new(AtomicBool::new(false)),
        slurm_tasks_per_node: slurm.then(|| request.tasks_per_node.unwrap_or(1)),
    }
}

/// A vdbench parameter file: handed to the vdbench runner with the overrides that apply.
fn run_vdbench(
    request: &RunRequest,
    file: &std::path::Path,
    substitutions: &[String],
) -> anyhow::Result<ExitCode> {
    let options = match request::vdbench_call(request, file, substitutions)? {
        VdbenchCall::Check => return crate::cmd::vdbench::check_file(file, substitutions),
        VdbenchCall::Run(options) => options,
    };
    let stop = Arc::clone(&options.stop);
    install_ctrl_c(Arc::clone(&stop));
    crate::cmd::vdbench::run_file(
        file,
        &options,
        request.allow_overwrite,
        request.quiet,
        stop,
        (
            request.remote_iofit.clone(),
            request.ssh_config.clone(),
            slurm_reach(request).slurm_tasks_per_node,
        ),
    )
}

pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    // After a job file every word goes to `rest` (fio options); fio has no --json, so there it
    // is iofit's own flag.
    if let Some(at) = args.rest.iter().position(|a| a == "--json") {
        args.rest.remove(at);
        args.json = true;
    }
    if args.json {
        args.output_format = request::OutputFormat::Json;
    }
    let mut request = args.request();
    let inputs = request.take_rest(std::mem::take(&mut args.rest))?;
    let jobs = match request::what_to_run(&request, &inputs)? {
        What::Vdbench(file) => return run_vdbench(&request, &file, &inputs.substitutions),
        What::Hosts(hosts) => return run_on_hosts(&request, &hosts, &inputs),
        What::Jobs(jobs) => jobs,
    };
    if request.parse_only {
        for line in request::parse_only_lines(&jobs) {
            println!("{line}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let stop = Arc::new(AtomicBool::new(false));
    install_ctrl_c(Arc::clone(&stop));
    let live = Arc::new(LiveResults::default());
    {
        // Should the stop bound end the process before the results are out, it prints (or
        // writes to --output) what the jobs had measured, the running job marked interrupted.
        let (live, format, jobs) = (Arc::clone(&live), request.output_format, jobs.clone());
        let to = match &request.output {
            Some(path) => LastWordTo::File(path.clone()),
            None => LastWordTo::Stdout,
        };
        crate::stop::set_last_word(
            Box::new(move |by| {
                let report = live.interrupted_report(by)?;
                Some(iofit_procedure::fio_run::render(format, &report, &jobs))
            }),
            to,
        );
    }
    let options = RunOptions {
        allow_overwrite: request.allow_overwrite,
        stop,
        status_interval: request.status_interval,
        live: Some(live),
        ..RunOptions::default()
    };
    let mut observer = RunObserver::new(request.quiet);
    let outcome = run_fio_jobs(&request, &inputs.files, &jobs, &options, &mut observer)?;
    if request.output.is_some() {
        // The results are in the output file, whole: the bound must not replace them.
        crate::stop::clear_last_word();
    }
    let FioRunOutcome::Ran(results) = outcome else {
        eprintln!("iofit: interrupted while laying out test files; no job ran");
        return Ok(ExitCode::from(INTERRUPTED));
    };
    if let (Some(path), false) = (&results.report_written, request.quiet) {
        eprintln!("iofit: wrote the report {}", path.display());
    }
    let status = observer.status_outcome;
    if status.skipped > 0 {
        eprintln!(
            "iofit: skipped {} of {} --status-interval reports: stdout did not take them",
            status.skipped, status.offered
        );
    }
    if status.stalled && request.output.is_none() {
        // The run ended on time; its results cannot be printed to a stdout nobody reads.
        eprintln!(
            "iofit: error: stdout took nothing within {} ms of the run's end (its reader is not reading), so the results are not printed; give --output FILE to keep them",
            crate::stop::STOP_BOUND.as_millis()
        );
        return Ok(ExitCode::from(if results.interrupted {
            INTERRUPTED
        } else {
            crate::exit::FAILED
        }));
    }
    if request.output.is_none() {
        if let Err(e) = super::write_or_print(None, &results.text) {
            if !results.interrupted {
                return Err(e);
            }
            // Past the stop bound, stdout (a pipe nobody reads) did not take the results.
            eprintln!("iofit: interrupted; stdout did not take the results in time: {e:#}");
            return Ok(ExitCode::from(INTERRUPTED));
        }
    }
    if results.interrupted {
        if !request.quiet {
            eprintln!("iofit: interrupted; the results cover what ran before Ctrl-C");
        }
        return Ok(ExitCode::from(INTERRUPTED));
    }
    let bad_data = crate::exit::data_error_jobs(&results.report.result.jobs);
    if !bad_data.is_empty() {
        eprintln!(
            "iofit: error: data verification found bad data in job(s) {} (see the results)",
            bad_data.join(", ")
        );
        return Ok(ExitCode::from(crate::exit::DATA_ERRORS));
    }
    if !results.failed_jobs.is_empty() {
        eprintln!(
            "iofit: error: job(s) {} stopped on an IO error (see the results)",
            results.failed_jobs.join(", ")
        );
        return Ok(ExitCode::from(crate::exit::FAILED));
    }
    Ok(ExitCode::SUCCESS)
}

/// Ctrl-C/SIGTERM set `stop` (jobs end cleanly, results cover what ran); a second signal, or
/// the stop bound passing, ends the process at once ([`crate::stop`]).
pub(crate) fn install_ctrl_c(stop: Arc<AtomicBool>) {
    crate::stop::arm(stop, crate::stop::Armed::Bounded);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn progress(
        elapsed_ms: u64,
        planned_ms: Option<u64>,
        bytes: u64,
        budget: Option<u64>,
    ) -> Progress {
        Progress {
            set_index: 0,
            sets: 1,
            elapsed: Duration::from_millis(elapsed_ms),
            planned: planned_ms.map(Duration::from_millis),
            ios: bytes / 4096,
            bytes,
            budget_bytes: budget,
        }
    }

    #[test]
    fn eta_is_the_planned_time_left_never_more() {
        // An 8 s run: 8 s left at its start, 4 s halfway, 0 at the end and after.
        assert_eq!(eta_text(&progress(0, Some(8000), 0, None)), "ETA 8s");
        assert_eq!(
            eta_text(&progress(4000, Some(8000), 1 << 30, None)),
            "ETA 4s"
        );
        assert_eq!(
            eta_text(&progress(9000, Some(8000), 1 << 30, None)),
            "ETA 0s"
        );
        assert_eq!(eta_text(&progress(0, Some(150_000), 0, None)), "ETA 2m30s");
        // Size-bounded: a quarter moved in 1 s leaves 3 s at that rate.
        assert_eq!(eta_text(&progress(1000, None, 256, Some(1024))), "ETA 3s");
        assert_eq!(eta_text(&progress(0, None, 0, Some(1024))), "ETA -");
        let mut second_of_two = progress(1000, Some(3000), 0, None);
        second_of_two.sets = 2;
        assert_eq!(eta_text(&second_of_two), "ETA 2s (this set)");
    }

    #[test]
    fn layout_says_bytes_and_rate() {
        assert_eq!(
            layout_done_text(1 << 30, Duration::from_secs(5)),
            "laid out 1.0 GiB in 5.0 s (214.7 MB/s)"
        );
        assert_eq!(mib_text(3 << 19), "1.5 MiB");
        assert_eq!(
            layout_progress_text(512 << 20, 1 << 30, Duration::from_secs(5)),
            "laying out 512.0 MiB of 1.0 GiB (107.4 MB/s)"
        );
        assert_eq!(
            layout_progress_text(0, 1 << 30, Duration::ZERO),
            "laying out 0.0 MiB of 1.0 GiB"
        );
    }
}
