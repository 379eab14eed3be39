//! `iofit run` for fio jobs on this machine: checks the outputs before any IO, runs the jobs
//! (the engine streams fio's logs to disk as they go), writes the results after finished jobs
//! (at most once a second, so Ctrl-C or a crash keeps the jobs finished before) and at the end,
//! and the HTML report, and returns the outcome for the binary to print and turn into an exit
//! code.

use crate::observer::{Observer, Warning};
use crate::run_request::{check_outputs, describe_job, OutputFormat, RunRequest};
use crate::ProcedureError;
use iofit_engine::{run_jobs, EngineError, Progress, RunOptions, RunReport};
use iofit_jobfile::fio::job_options;
use iofit_model::job::JobSpec;
use iofit_safefs::atomic::write_atomic;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

/// How a run of fio jobs ended.
#[derive(Debug)]
pub enum FioRunOutcome {
    /// Ctrl-C while laying out test files: nothing ran, the partial file is gone.
    InterruptedInLayout,
    /// The jobs ran (or some of them, when interrupted).
    Ran(Box<FioRunResults>),
}

/// The results of a run, as written to `--output` and for the binary to print.
#[derive(Debug)]
pub struct FioRunResults {
    pub report: RunReport,
    /// The results in the requested format (already written when `--output` was given).
    pub text: String,
    /// Ctrl-C (or SIGTERM) stopped the run; the results cover what ran before it.
    pub interrupted: bool,
    /// Jobs that stopped on an IO error.
    pub failed_jobs: Vec<String>,
    /// The HTML report written, if one was asked for.
    pub report_written: Option<PathBuf>,
}

/// The run's label in the observer's events.
pub const LABEL: &str = "run";

/// Runs `jobs` (parsed from `job_files`) with `options`; the request says where results go.
pub fn run_fio_jobs(
    request: &RunRequest,
    job_files: &[PathBuf],
    jobs: &[JobSpec],
    options: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<FioRunOutcome, ProcedureError> {
    check_outputs(request, job_files, jobs)?;
    for warning in warnings(jobs) {
        observer.warning(&warning);
    }
    let mut bridge = Bridge {
        jobs,
        format: request.output_format,
        output: request.output.as_deref(),
        observer,
        write_error: None,
        written: None,
        written_at: None,
    };
    let outcome = run_jobs(jobs, options, &mut bridge);
    bridge.observer.run_done(LABEL);
    let write_error = bridge.write_error.take();
    let written = bridge.written.take();
    let report = match outcome {
        Err(EngineError::Interrupted) => return Ok(FioRunOutcome::InterruptedInLayout),
        Err(source) => {
            return Err(ProcedureError::Engine {
                label: "the run failed".into(),
                source,
            })
        }
        Ok(report) => report,
    };
    if let (Some(source), Some(path)) = (write_error, &request.output) {
        return Err(ProcedureError::WriteResults {
            path: path.clone(),
            source,
        });
    }
    if let Some(path) = &request.report {
        write_html_report(path, &report, jobs, request.preset.as_deref())?;
    }
    let text = render(request.output_format, &report, jobs);
    // The last job's write already holds these results, most often: a second synced write
    // would only add time after a stop (an fsync on a busy disk can take seconds).
    if let Some(path) = request
        .output
        .as_ref()
        .filter(|_| written.as_ref() != Some(&text))
    {
        write_atomic(path, text.as_bytes()).map_err(|source| ProcedureError::WriteResults {
            path: path.clone(),
            source,
        })?;
    }
    let interrupted =
        options.stop.load(Ordering::Relaxed) || report.result.jobs.iter().any(|j| j.interrupted);
    let failed_jobs = report
        .result
        .jobs
        .iter()
        .filter(|j| j.error.is_some())
        .map(|j| j.name.clone())
        .collect();
    Ok(FioRunOutcome::Ran(Box::new(FioRunResults {
        report,
        text,
        interrupted,
        failed_jobs,
        report_written: request.report.clone(),
    })))
}

/// What the user should know before the run: engines mapped to another, and the jobs' notes
/// (each said once).
pub fn warnings(jobs: &[JobSpec]) -> Vec<Warning> {
    let mut out = Vec::new();
    let mapped: Vec<String> = jobs
        .iter()
        .filter(|job| job.engine != iofit_engine::engine_used(job.engine))
        .map(|job| job.name.clone())
        .collect();
    if !mapped.is_empty() {
        out.push(Warning::LibaioOnIoUring { jobs: mapped });
    }
    if let Some(note) = iofit_engine::interval_log::pacing_note(jobs) {
        out.push(Warning::JobNote(note));
    }
    // Said once by sentence: clones and jobs of one file often carry the same note.
    let mut said: Vec<String> = Vec::new();
    for note in jobs.iter().flat_map(|job| job.notes.iter()) {
        let sentence = note.to_string();
        if !said.contains(&sentence) {
            said.push(sentence.clone());
            out.push(Warning::JobNote(sentence));
        }
    }
    out
}

/// Forwards the engine's events to the observer and writes the results after every job.
struct Bridge<'a> {
    jobs: &'a [JobSpec],
    format: OutputFormat,
    output: Option<&'a Path>,
    observer: &'a mut dyn Observer,
    write_error: Option<iofit_safefs::SafeFsError>,
    /// The text last written to `output`, and when.
    written: Option<String>,
    written_at: Option<std::time::Instant>,
}

/// The results file is rewritten after a finished job at most this often: the clones of a
/// many-job run end together, and rewriting (and syncing) every job's results once per job
/// cost 64 jobs 13 s on a busy disk. The run's end writes the final results in any case.
const REWRITE_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

impl iofit_engine::Observer for Bridge<'_> {
    fn layout(&mut self, files: usize, bytes: u64) {
        self.observer.layout(LABEL, files, bytes);
    }

    fn layout_written(&mut self, written: std::sync::Arc<std::sync::atomic::AtomicU64>) {
        self.observer.layout_written(LABEL, written);
    }

    fn job_done(&mut self, report: &RunReport) {
        if self
            .written_at
            .is_some_and(|at| at.elapsed() < REWRITE_EVERY)
        {
            return;
        }
        if let Some(path) = self.output {
            let text = render(self.format, report, self.jobs);
            match write_atomic(path, text.as_bytes()) {
                Ok(()) => {
                    self.written = Some(text);
                    self.written_at = Some(std::time::Instant::now());
                }
                Err(e) => {
                    self.write_error.get_or_insert(e);
                }
            }
        }
    }

    fn progress(&mut self, progress: &Progress) {
        self.observer.progress(LABEL, progress);
    }

    fn status(&mut self, report: &RunReport) {
        let text = render(self.format, report, self.jobs);
        self.observer.status_report(LABEL, &text);
    }

    fn note(&mut self, note: &str) {
        self.observer.warning(&Warning::JobNote(note.to_string()));
    }
}

/// The results as fio-style text (with fio's header), fio-compatible JSON or json+, or fio's
/// terse lines.
pub fn render(format: OutputFormat, report: &RunReport, jobs: &[JobSpec]) -> String {
    let options: Vec<Vec<(String, String)>> = report
        .job_index
        .iter()
        .map(|&i| job_options(&jobs[i]))
        .collect();
    iofit_report::fio_output::render_run(format, &report.result, jobs, &report.job_index, &options)
}

/// The run as one self-contained HTML document: what ran, the jobs table, IOPS, MB/s and
/// latency over time and the latency percentile curve.
pub fn html_report(
    report: &RunReport,
    jobs: &[JobSpec],
    preset: Option<&str>,
) -> iofit_report::html::HtmlReport {
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
    iofit_report::html::HtmlReport::new(title)
        .section("What ran", body)
        .run_result(&report.result)
}

/// Writes [`html_report`] whole or not at all.
fn write_html_report(
    path: &Path,
    report: &RunReport,
    jobs: &[JobSpec],
    preset: Option<&str>,
) -> Result<(), ProcedureError> {
    let html = html_report(report, jobs, preset).render();
    write_atomic(path, html.as_bytes()).map_err(|source| ProcedureError::WriteResults {
        path: path.to_path_buf(),
        source,
    })
}
