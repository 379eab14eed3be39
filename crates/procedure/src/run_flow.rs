//! `iofit run`'s decisions around the runs, apart from the binary: what the request asks for
//! once its flags and job files are read (the `--parse-only` lines of jobs, hosts or a vdbench
//! file; a vdbench file to run; hosts; jobs here), and how a run of jobs here ends (the notes,
//! what goes to stdout, the exit status). The binary prints what these say.

use crate::ending::{Ending, Exit, Note};
use crate::fio_run::FioRunOutcome;
use crate::hosts::Reach;
use crate::hosts_ending;
use crate::run_progress::{fio_ending, status_ending, StatusOutcome};
use crate::run_request::{self, Inputs, OutputFormat, RunRequest, VdbenchCall, What};
use crate::vdbench::VdbenchOptions;
use crate::vdbench_cmd::check_lines;
use crate::ProcedureError;
use iofit_engine::LiveResults;
use iofit_model::job::JobSpec;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `iofit run` does with its request.
#[derive(Debug)]
pub enum RunChoice {
    /// `--parse-only`: these lines on stdout, then exit 0 (nothing runs, no host is reached).
    Lines(Vec<String>),
    /// A vdbench parameter file, run with these options; its `hd=` hosts reached as `Reach`
    /// says, stopped by the options' stop flag.
    Vdbench(PathBuf, Box<VdbenchOptions>, Reach),
    /// The fio jobs on these hosts at once (`--hosts`).
    Hosts(String),
    /// fio jobs on this machine.
    Jobs(Vec<JobSpec>),
}

/// Decides what the request does ([`run_request::what_to_run`]); with `--parse-only` the
/// lines of whatever it names, each checked as a run would check it.
pub fn choose(request: &RunRequest, inputs: &Inputs) -> Result<RunChoice, ProcedureError> {
    let lines = match run_request::what_to_run(request, inputs)? {
        What::Vdbench(file) => {
            match run_request::vdbench_call(request, &file, &inputs.substitutions)? {
                VdbenchCall::Check => check_lines(&file, &inputs.substitutions)?,
                VdbenchCall::Run(options) => {
                    let reach = Reach {
                        stop: Arc::clone(&options.stop),
                        ..hosts_ending::reach_for(request)
                    };
                    return Ok(RunChoice::Vdbench(file, Box::new(options), reach));
                }
            }
        }
        What::Hosts(hosts) if request.parse_only => {
            hosts_ending::parse_only_lines(request, &hosts, inputs)?
        }
        What::Hosts(hosts) => return Ok(RunChoice::Hosts(hosts)),
        What::Jobs(jobs) if request.parse_only => run_request::parse_only_lines(&jobs),
        What::Jobs(jobs) => return Ok(RunChoice::Jobs(jobs)),
    };
    Ok(RunChoice::Lines(lines))
}

/// How a run of jobs here ends: say `notes` (each after `iofit: `), print `stdout` when it
/// holds the results, then end as `ending` says.
#[derive(Debug, PartialEq)]
pub struct FioEnd {
    pub notes: Vec<Note>,
    /// The results for stdout (none with `--output`, or when they cannot be printed).
    pub stdout: Option<String>,
    /// Ctrl-C stopped the run: should stdout not take the results within the stop's bound,
    /// the run still ends as interrupted (130), not as an error.
    pub interrupted: bool,
    pub ending: Ending,
}

impl FioEnd {
    /// How the run ends when stdout did not take its results (`why`): past the stop's bound
    /// after Ctrl-C that is 130, saying so; otherwise `None`, the error is the command's.
    pub fn stdout_refused(&self, why: &str) -> Option<Ending> {
        self.interrupted.then(|| {
            Ending::with(
                Exit::Interrupted,
                Note::StdoutRefusedAfterStop {
                    why: why.to_string(),
                },
            )
        })
    }

    /// Nothing for stdout: end as `ending` says.
    fn now(ending: Ending) -> Self {
        FioEnd {
            notes: Vec::new(),
            stdout: None,
            interrupted: false,
            ending,
        }
    }
}

/// The end of `run_fio_jobs`'s `outcome`: the HTML report written (unless `quiet`), the
/// `--status-interval` reports' notes (`status`), and the results on stdout unless they went
/// to `--output` (`to_stdout` false) or the status printer stalled past `bound`.
pub fn fio_end(
    outcome: &FioRunOutcome,
    status: &StatusOutcome,
    to_stdout: bool,
    quiet: bool,
    bound: Duration,
) -> FioEnd {
    let FioRunOutcome::Ran(results) = outcome else {
        return FioEnd::now(Ending::with(Exit::Interrupted, Note::InterruptedInLayout));
    };
    let mut notes = Vec::new();
    if let (Some(path), false) = (&results.report_written, quiet) {
        notes.push(Note::ReportWritten { path: path.clone() });
    }
    let (status_notes, stalled) = status_ending(status, to_stdout, results.interrupted, bound);
    notes.extend(status_notes);
    if let Some(stalled) = stalled {
        notes.extend(stalled.notes);
        return FioEnd::now(Ending {
            exit: stalled.exit,
            notes,
        });
    }
    FioEnd {
        notes,
        stdout: to_stdout.then(|| results.text.clone()),
        interrupted: results.interrupted,
        ending: fio_ending(results, quiet),
    }
}

/// What the stop bound prints (or writes to `--output`) should it end the process before the
/// results are out: what `jobs` had measured by the bound's moment, the running job marked
/// interrupted, in `format` (None before the run began).
pub fn last_word(
    live: Arc<LiveResults>,
    format: OutputFormat,
    jobs: Vec<JobSpec>,
) -> impl FnOnce(Instant) -> Option<String> + Send {
    move |by| {
        let report = live.interrupted_report(by)?;
        Some(crate::fio_run::render(format, &report, &jobs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fio_run::FioRunResults;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| a.to_string()).collect()
    }

    fn ran(interrupted: bool, report: Option<&str>) -> FioRunOutcome {
        FioRunOutcome::Ran(Box::new(FioRunResults {
            report: iofit_engine::RunReport::default(),
            text: "the results\n".into(),
            interrupted,
            failed_jobs: Vec::new(),
            report_written: report.map(PathBuf::from),
        }))
    }

    #[test]
    fn parse_only_of_a_command_line_job_is_its_lines_and_without_it_the_jobs() {
        let args = [
            "--name=a",
            "--rw=randread",
            "--size=1m",
            "--filename=/tmp/iofit-run-flow",
            "--ioengine=null",
        ];
        let mut request = RunRequest {
            parse_only: true,
            ..RunRequest::default()
        };
        let inputs = request.take_rest(strings(&args)).unwrap();
        let RunChoice::Lines(lines) = choose(&request, &inputs).unwrap() else {
            panic!("--parse-only gives lines");
        };
        assert_eq!(lines.len(), 1);
        assert!(lines[0].starts_with("a (group 0): ") && lines[0].contains("rw=randread"));
        let mut request = RunRequest::default();
        let inputs = request.take_rest(strings(&args)).unwrap();
        match choose(&request, &inputs).unwrap() {
            RunChoice::Jobs(jobs) => assert_eq!(jobs[0].name, "a"),
            other => panic!("expected the jobs, got {other:?}"),
        }
    }

    #[test]
    fn parse_only_with_hosts_lists_each_hosts_jobs_and_without_it_names_the_hosts() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("job.fio");
        std::fs::write(
            &job,
            "[a]\nrw=read\nsize=1m\nioengine=null\nfilename=/tmp/${HOST}.dat\n",
        )
        .unwrap();
        let files = strings(&[job.to_str().unwrap()]);
        let mut request = RunRequest {
            parse_only: true,
            hosts: Some("h1,h2".into()),
            ..RunRequest::default()
        };
        let inputs = request.take_rest(files.clone()).unwrap();
        let RunChoice::Lines(lines) = choose(&request, &inputs).unwrap() else {
            panic!("--parse-only gives lines");
        };
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("h1: ") && lines[0].contains("/tmp/h1.dat"));
        assert!(lines[1].starts_with("h2: ") && lines[1].contains("/tmp/h2.dat"));
        request.parse_only = false;
        let inputs = request.take_rest(files).unwrap();
        match choose(&request, &inputs).unwrap() {
            RunChoice::Hosts(hosts) => assert_eq!(hosts, "h1,h2"),
            other => panic!("expected the hosts, got {other:?}"),
        }
    }

    #[test]
    fn a_vdbench_file_is_checked_with_parse_only_and_run_without() {
        let dir = tempfile::tempdir().unwrap();
        let parm = dir.path().join("parm.vdb");
        let lun = dir.path().join("lun");
        std::fs::write(
            &parm,
            format!(
                "sd=sd1,lun={},size=1m\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\n\
                 rd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1\n",
                lun.display()
            ),
        )
        .unwrap();
        let files = strings(&[parm.to_str().unwrap()]);
        let mut request = RunRequest {
            parse_only: true,
            ..RunRequest::default()
        };
        let inputs = request.take_rest(files.clone()).unwrap();
        let RunChoice::Lines(lines) = choose(&request, &inputs).unwrap() else {
            panic!("--parse-only gives lines");
        };
        assert!(lines.iter().any(|l| l.contains("rd1")), "{lines:?}");
        let mut request = RunRequest::default();
        let inputs = request.take_rest(files).unwrap();
        match choose(&request, &inputs).unwrap() {
            RunChoice::Vdbench(file, options, reach) => {
                assert_eq!(file, parm);
                assert!(Arc::ptr_eq(&options.stop, &reach.stop), "one stop for both");
            }
            other => panic!("expected the vdbench file, got {other:?}"),
        }
    }

    #[test]
    fn json_among_the_fio_options_and_output_format_flags_choose_the_format() {
        let mut request = RunRequest::default();
        let inputs = request
            .take_rest(strings(&["job.fio", "--json", "--bs=8k"]))
            .unwrap();
        assert_eq!(request.output_format, run_request::OutputFormat::Json);
        assert_eq!(inputs.fio_args, strings(&["--bs=8k"]));
        assert_eq!(
            run_request::output_format_flag("json").unwrap(),
            run_request::OutputFormat::Json
        );
        let error = run_request::output_format_flag("xml").unwrap_err();
        assert!(error.is_bad_input());
        assert!(error
            .to_string()
            .starts_with("'xml' is not an output format; use normal"));
    }

    #[test]
    fn the_last_word_is_what_the_jobs_measured_and_nothing_before_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let file = format!("--filename={}", dir.path().join("data").display());
        let args = [
            "--name=a",
            "--rw=read",
            "--size=64k",
            "--ioengine=null",
            &file,
        ];
        let mut request = RunRequest::default();
        let inputs = request.take_rest(strings(&args)).unwrap();
        let RunChoice::Jobs(jobs) = choose(&request, &inputs).unwrap() else {
            panic!("a command-line job");
        };
        let live = Arc::new(LiveResults::default());
        let far = Instant::now() + Duration::from_secs(60);
        let before = last_word(Arc::clone(&live), OutputFormat::Json, jobs.clone());
        assert_eq!(before(far), None);
        let options = iofit_engine::RunOptions {
            clock: iofit_engine::ClockChoice::Fake { step_ns: 1_000 },
            live: Some(Arc::clone(&live)),
            ..iofit_engine::RunOptions::default()
        };
        let mut quiet = crate::observer::Quiet;
        crate::fio_run::run_fio_jobs(&request, &[], &jobs, &options, &mut quiet).unwrap();
        let word = last_word(live, OutputFormat::Json, jobs)(far).expect("the run's results");
        let json: serde_json::Value = serde_json::from_str(&word).unwrap();
        assert_eq!(json["jobs"][0]["jobname"], "a");
        assert_eq!(json["jobs"][0]["read"]["io_bytes"], 65_536);
    }

    #[test]
    fn an_interrupted_layout_ends_130_with_nothing_for_stdout() {
        let end = fio_end(
            &FioRunOutcome::InterruptedInLayout,
            &StatusOutcome::default(),
            true,
            false,
            Duration::ZERO,
        );
        assert_eq!(end.ending.exit, Exit::Interrupted);
        assert_eq!(end.ending.notes, vec![Note::InterruptedInLayout]);
        assert_eq!(
            end.ending.notes[0].to_string(),
            "interrupted while laying out test files; no job ran"
        );
        assert_eq!(end.stdout, None);
        assert!(end.notes.is_empty());
    }

    #[test]
    fn the_results_go_to_stdout_after_the_report_note_unless_quiet_or_to_a_file() {
        let outcome = ran(false, Some("r.html"));
        let status = StatusOutcome::default();
        let end = fio_end(&outcome, &status, true, false, Duration::ZERO);
        assert_eq!(
            end.notes,
            vec![Note::ReportWritten {
                path: "r.html".into()
            }]
        );
        assert_eq!(end.notes[0].to_string(), "wrote the report r.html");
        assert_eq!(end.stdout.as_deref(), Some("the results\n"));
        assert_eq!(end.ending, Ending::quiet(Exit::Success));
        let quiet = fio_end(&outcome, &status, false, true, Duration::ZERO);
        assert!(quiet.notes.is_empty() && quiet.stdout.is_none());
        let interrupted = fio_end(&ran(true, None), &status, true, false, Duration::ZERO);
        assert!(interrupted.interrupted);
        assert_eq!(interrupted.ending.exit, Exit::Interrupted);
        // Stdout refusing the results: 130 after Ctrl-C, else the error stands.
        assert_eq!(
            interrupted.stdout_refused("timed out"),
            Some(Ending::with(
                Exit::Interrupted,
                Note::StdoutRefusedAfterStop {
                    why: "timed out".into()
                }
            ))
        );
        let done = fio_end(&outcome, &status, true, false, Duration::ZERO);
        assert_eq!(done.stdout_refused("timed out"), None);
    }

    #[test]
    fn a_stalled_status_printer_keeps_the_results_off_stdout_and_says_why_after_the_skips() {
        let status = StatusOutcome {
            offered: 4,
            skipped: 1,
            stalled: true,
        };
        let end = fio_end(
            &ran(false, None),
            &status,
            true,
            false,
            Duration::from_millis(5),
        );
        assert_eq!(end.stdout, None);
        assert_eq!(end.ending.exit, Exit::Failed);
        assert_eq!(end.ending.notes.len(), 2, "{:?}", end.ending.notes);
        assert_eq!(
            end.ending.notes,
            vec![
                Note::StatusReportsSkipped {
                    skipped: 1,
                    offered: 4
                },
                Note::StdoutStalled { bound_ms: 5 }
            ]
        );
        assert!(end.ending.notes[0]
            .to_string()
            .starts_with("skipped 1 of 4 --status-interval reports"));
        assert!(end.ending.notes[1]
            .to_string()
            .starts_with("error: stdout took nothing within 5 ms of the run's end"));
    }
}
