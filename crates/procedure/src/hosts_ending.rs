//! How `iofit run --hosts` (fio jobs on several hosts at once) and a multi-host vdbench file
//! are reached and how they end: the controller over ssh, the `--parse-only` lines per host,
//! and the exit status with its notes (130 interrupted, 3 a host lost, 4 bad data, 1 a job
//! stopped on an error).

use crate::ending::{Ending, Exit, Note};
use crate::hosts::SLURM_HOSTS;
use crate::hosts::{fio_host_specs, fio_jobs_for, html_report, render_fio};
use crate::hosts::{HostRunner, HostsStatus, Reach};
use crate::run_request::{describe_job, Inputs, RunRequest};
use crate::ProcedureError;
use iofit_remote::worker::WorkerLimits;
use iofit_remote::{HostSpec, MultiRun, RemoteError};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// How `--hosts` reaches its workers: over ssh, or as the tasks of one Slurm job step with
/// `--hosts slurm` (`--tasks-per-node` of them per node, 1 unless given).
pub fn reach_for(request: &RunRequest) -> Reach {
    let slurm = request.hosts.as_deref() == Some(SLURM_HOSTS);
    Reach {
        remote_iofit: request.remote_iofit.clone(),
        ssh_config: request.ssh_config.clone(),
        allow_overwrite: request.allow_overwrite,
        stop: Arc::new(AtomicBool::new(false)),
        slurm_tasks_per_node: slurm.then(|| request.tasks_per_node.unwrap_or(1)),
    }
}

/// `--hosts H --parse-only`: each host's jobs, after `${HOST}` became its name, as
/// `destination: job`. Nothing is contacted.
pub fn parse_only_lines(
    request: &RunRequest,
    hosts: &str,
    inputs: &Inputs,
) -> Result<Vec<String>, ProcedureError> {
    let overrides = request.overrides(&inputs.fio_args);
    let mut lines = Vec::new();
    for (name, destination) in reach_for(request).workers(hosts)? {
        let jobs = fio_jobs_for(&name, &inputs.files, &overrides, request.ignore_unknown)?;
        for job in &jobs {
            lines.push(format!("{destination}: {}", describe_job(job)));
        }
    }
    Ok(lines)
}

/// The real controller: the OpenSSH client to every host.
pub struct SshRunner<'a> {
    pub reach: &'a Reach,
}

impl HostRunner for SshRunner<'_> {
    /// Failures before the start are errors (exit 2 when the fix is in the input, else 1).
    fn run(&mut self, hosts: Vec<HostSpec>) -> Result<MultiRun, ProcedureError> {
        let options = self.reach.options();
        // Writing to the pipe of an ssh that died must be an error the controller reports
        // (that host is lost), not a SIGPIPE that kills the controller and every other host's
        // results.
        // SAFETY: SIG_IGN is a valid disposition; changing it affects only how this process
        // handles broken pipes, which every write here checks.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        }
        Ok(iofit_remote::run(&hosts, &options)?)
    }
}

/// What `run --hosts` measured: the run, its results as text (fio's JSON or normal output per
/// host and combined) and how it ended.
pub struct FioHostsRun {
    pub run: MultiRun,
    pub text: String,
    pub status: HostsStatus,
}

/// Runs every host's fio jobs (`hosts`, each with its jobs) through `runner` and renders the
/// results.
pub fn run_fio_hosts(
    hosts: Vec<HostSpec>,
    json: bool,
    runner: &mut dyn HostRunner,
) -> Result<FioHostsRun, ProcedureError> {
    let jobs = hosts.first().map(|h| h.jobs.clone()).unwrap_or_default();
    let run = runner.run(hosts)?;
    Ok(FioHostsRun {
        text: render_fio(&run, json, &jobs),
        status: HostsStatus::of(&run),
        run,
    })
}

/// `iofit run --hosts H`: every host's fio jobs (`${HOST}` its name, the request's overrides
/// applied) through `runner`; `arm` is handed the run's stop flag once every host's jobs are
/// read, before any host is reached. The results are written to `--output` (whole or not at
/// all) when it is given; else they are the binary's to print.
pub fn fio_on_hosts(
    request: &RunRequest,
    hosts: &str,
    inputs: &Inputs,
    reach: &Reach,
    runner: &mut dyn HostRunner,
    arm: &dyn Fn(Arc<AtomicBool>),
) -> Result<FioHostsRun, ProcedureError> {
    let overrides = request.overrides(&inputs.fio_args);
    let specs = fio_host_specs(
        hosts,
        &inputs.files,
        &overrides,
        request.ignore_unknown,
        reach,
    )?;
    arm(Arc::clone(&reach.stop));
    let ran = run_fio_hosts(specs, request.output_format.machine_readable(), runner)?;
    if let Some(path) = &request.output {
        iofit_safefs::atomic::write_atomic(path, ran.text.as_bytes())?;
    }
    Ok(ran)
}

/// The HTML report of a multi-host run: the hosts table and IOPS per host over time.
pub fn write_hosts_report(path: &Path, run: &MultiRun) -> Result<(), ProcedureError> {
    crate::plan::write_report(path, iofit_report::ReportFormat::Html, &html_report(run))
}

/// `iofit worker --slurm-step`: the task number srun gives (`SLURM_PROCID`).
pub fn slurm_task(procid: Option<&str>) -> Result<usize, ProcedureError> {
    procid.and_then(|t| t.parse::<usize>().ok()).ok_or_else(|| {
        ProcedureError::bad_input(
            "iofit worker --slurm-step runs as a task of an srun step, and SLURM_PROCID \
             is not set to a task number; iofit run --hosts slurm starts it so",
        )
    })
}

/// `iofit worker`: serves one controller on stdin/stdout until its run ends (as the task
/// `slurm_task` of an srun step: only that task's lines, answers in frames srun's --label
/// output keeps whole). The worker side stopping (a protocol mismatch, a bad message) is the
/// input to fix.
pub fn serve_worker(
    protocol: u32,
    limits: &WorkerLimits,
    slurm_task: Option<usize>,
    stop: Arc<AtomicBool>,
) -> Result<(), ProcedureError> {
    let input = std::io::BufReader::new(std::io::stdin());
    let served = match slurm_task {
        Some(task) => {
            let input = iofit_remote::slurm_stdio::AddressedInput::new(input, task);
            let output = iofit_remote::slurm_stdio::FramedOutput::new(std::io::stdout(), task);
            iofit_remote::worker::serve_with_stop(protocol, limits, input, output, stop)
        }
        None => {
            iofit_remote::worker::serve_with_stop(protocol, limits, input, std::io::stdout(), stop)
        }
    };
    match served {
        Ok(()) => Ok(()),
        Err(RemoteError::Worker(message)) => Err(ProcedureError::bad_input(message)),
        Err(e) => Err(e.into()),
    }
}

/// One multi-host run's ending: 130 interrupted, 3 a host was lost (results of the others
/// kept), 1 a job stopped on an error, else 0.
pub fn hosts_ending(status: &HostsStatus, quiet: bool) -> Ending {
    if status.interrupted {
        if quiet {
            return Ending::quiet(Exit::Interrupted);
        }
        return Ending::with(Exit::Interrupted, Note::HostsInterrupted);
    }
    if !status.complete {
        let mut notes: Vec<Note> = status
            .lost
            .iter()
            .map(|lost| Note::HostLost {
                host: lost.name.clone(),
                after_s: lost.after_s.get(),
                message: lost.message.clone(),
            })
            .collect();
        notes.push(Note::Incomplete);
        return Ending {
            exit: Exit::Incomplete,
            notes,
        };
    }
    if status.job_failed {
        return Ending::with(Exit::Failed, Note::HostJobFailed);
    }
    Ending::quiet(Exit::Success)
}

/// A multi-host vdbench file's ending over its runs: 4 when validation found bad blocks on any
/// host (the first ten named), 130 at the first interrupted run, 3 when a host was lost in any
/// run, else the worst run's status.
pub fn vdbench_hosts_ending(statuses: &[HostsStatus], quiet: bool) -> Ending {
    let data_errors: u64 = statuses.iter().map(|s| s.data_errors).sum();
    if data_errors > 0 {
        let mut notes: Vec<Note> = statuses
            .iter()
            .flat_map(|s| &s.data_error_lines)
            .take(10)
            .map(|line| Note::HostDataError { line: line.clone() })
            .collect();
        notes.push(Note::HostsBadBlocks { count: data_errors });
        return Ending {
            exit: Exit::DataErrors,
            notes,
        };
    }
    let mut notes = Vec::new();
    let mut worst = Exit::Success;
    for status in statuses {
        let ending = hosts_ending(status, quiet);
        notes.extend(ending.notes);
        if status.interrupted {
            return Ending {
                exit: ending.exit,
                notes,
            };
        }
        if ending.exit != Exit::Success {
            worst = ending.exit;
        }
    }
    let exit = if statuses.iter().any(|s| !s.complete) {
        Exit::Incomplete
    } else {
        worst
    };
    Ending { exit, notes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::LostHost;

    fn complete() -> HostsStatus {
        HostsStatus {
            complete: true,
            ..HostsStatus::default()
        }
    }

    fn lost(name: &str) -> HostsStatus {
        HostsStatus {
            complete: false,
            lost: vec![LostHost {
                name: name.into(),
                after_s: iofit_model::units::Seconds(2.25),
                message: "ssh exited".into(),
            }],
            ..HostsStatus::default()
        }
    }

    #[test]
    fn a_lost_host_is_named_and_ends_incomplete() {
        let ending = hosts_ending(&lost("h2"), false);
        assert_eq!(ending.exit, Exit::Incomplete);
        assert_eq!(
            ending.notes,
            vec![
                Note::HostLost {
                    host: "h2".into(),
                    after_s: 2.25,
                    message: "ssh exited".into()
                },
                Note::Incomplete
            ]
        );
        let said: Vec<String> = ending.notes.iter().map(Note::to_string).collect();
        assert_eq!(
            said,
            [
                "host h2 stopped 2.2 s after the start: ssh exited",
                "the run is incomplete (exit code 3); the other hosts' results are kept"
            ]
        );
        let interrupted = HostsStatus {
            interrupted: true,
            ..lost("h2")
        };
        assert_eq!(hosts_ending(&interrupted, false).exit, Exit::Interrupted);
        assert!(hosts_ending(&interrupted, true).notes.is_empty());
        let failed = HostsStatus {
            job_failed: true,
            ..complete()
        };
        assert_eq!(hosts_ending(&failed, false).exit, Exit::Failed);
        assert_eq!(
            hosts_ending(&complete(), false),
            Ending::quiet(Exit::Success)
        );
    }

    #[test]
    fn vdbench_runs_end_on_bad_data_first_then_interruption_then_lost_hosts() {
        let bad = HostsStatus {
            data_errors: 3,
            data_error_lines: vec!["hd=a lun=/x offset 0 length 4096: bad".into()],
            ..lost("h1")
        };
        let ending = vdbench_hosts_ending(&[complete(), bad], false);
        assert_eq!(ending.exit, Exit::DataErrors);
        assert_eq!(
            ending.notes,
            vec![
                Note::HostDataError {
                    line: "hd=a lun=/x offset 0 length 4096: bad".into()
                },
                Note::HostsBadBlocks { count: 3 }
            ]
        );
        let said: Vec<String> = ending.notes.iter().map(Note::to_string).collect();
        assert_eq!(
            said,
            [
                "data error: hd=a lun=/x offset 0 length 4096: bad",
                "error: validate=yes found 3 bad block(s) over the hosts (see the results)"
            ]
        );
        // A lost host in the first run, a failed job in the second: incomplete, both said.
        let failed = HostsStatus {
            job_failed: true,
            ..complete()
        };
        let ending = vdbench_hosts_ending(&[lost("h1"), failed.clone()], false);
        assert_eq!(ending.exit, Exit::Incomplete);
        assert!(
            matches!(
                ending.notes.as_slice(),
                [Note::HostLost { .. }, Note::Incomplete, Note::HostJobFailed]
            ),
            "{:?}",
            ending.notes
        );
        assert_eq!(
            vdbench_hosts_ending(&[complete(), failed], false).exit,
            Exit::Failed
        );
        // The interrupted run ends it: the runs after are not looked at.
        let interrupted = HostsStatus {
            interrupted: true,
            ..complete()
        };
        let ending = vdbench_hosts_ending(&[interrupted, lost("h3")], false);
        assert_eq!(ending.exit, Exit::Interrupted);
        assert_eq!(ending.notes, vec![Note::HostsInterrupted]);
    }

    #[test]
    fn a_slurm_step_worker_needs_its_task_number() {
        assert_eq!(slurm_task(Some("3")).unwrap(), 3);
        for missing in [None, Some(""), Some("x")] {
            let error = slurm_task(missing).unwrap_err();
            assert!(error.is_bad_input());
            assert!(error.to_string().contains("SLURM_PROCID"));
        }
    }

    #[test]
    fn slurm_hosts_run_one_task_per_node_unless_told() {
        let mut request = RunRequest {
            hosts: Some("slurm".into()),
            ..RunRequest::default()
        };
        assert_eq!(reach_for(&request).slurm_tasks_per_node, Some(1));
        request.tasks_per_node = Some(4);
        assert_eq!(reach_for(&request).slurm_tasks_per_node, Some(4));
        request.hosts = Some("a,b".into());
        assert_eq!(reach_for(&request).slurm_tasks_per_node, None);
    }

    #[test]
    fn parse_only_shows_each_hosts_jobs_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let job = dir.path().join("j.fio");
        std::fs::write(
            &job,
            "[r]\nrw=randread\nbs=4k\nsize=1m\nfilename=/data/${HOST}/f\n",
        )
        .unwrap();
        let request = RunRequest {
            hosts: Some("alice@h1,h2".into()),
            ..RunRequest::default()
        };
        let inputs = Inputs {
            files: vec![job],
            ..Inputs::default()
        };
        let lines = parse_only_lines(&request, "alice@h1,h2", &inputs).unwrap();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("alice@h1: "), "{}", lines[0]);
        assert!(lines[0].contains("/data/h1/f"), "{}", lines[0]);
        assert!(lines[1].starts_with("h2: ") && lines[1].contains("/data/h2/f"));
    }
}
