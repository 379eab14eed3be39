//! `iofit worker`: the host side. Started by the controller over ssh, it speaks the protocol on
//! stdin/stdout, lays out its own files (the never-destroy rule is checked here, on the host
//! that owns the data, with the engine's own checks), waits for `start`, runs the jobs and sends
//! the results. End of input (the controller or its ssh went away) stops the run at once, so a
//! worker never outlives its controller.

use crate::protocol::{read_line, unix_ns, FromWorker, HostKeys, ToWorker, PROTOCOL_VERSION};
pub use crate::worker_limits::WorkerLimits;
use crate::worker_limits::{inside, send, SharedOut};
use crate::RemoteError;
use iofit_engine::{run_jobs, Observer, Progress, RunOptions};
use iofit_model::job::{EngineKind, JobSpec};
use iofit_stats::compact::CompactDirection;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Every path a job reads or writes: its files, logs, IO logs and verify state.
fn paths_of(job: &JobSpec) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = (0..job.numjobs.max(1))
        .flat_map(|clone| job.files_for_clone(clone))
        .collect();
    paths.extend(job.write_iolog.iter().cloned());
    if let Some(replay) = &job.replay {
        paths.extend(replay.logs.iter().cloned());
    }
    let logs = &job.logs;
    for prefix in [
        &logs.bw_prefix,
        &logs.iops_prefix,
        &logs.lat_prefix,
        &logs.hist_prefix,
    ]
    .into_iter()
    .flatten()
    {
        paths.push(PathBuf::from(format!("{prefix}_log")));
    }
    let verify = &job.data.verify;
    paths.extend(
        verify
            .state_save
            .iter()
            .chain(&verify.state_load)
            .map(|d| d.join("state")),
    );
    paths
}

/// Refuses jobs that go beyond this worker's own limits, before anything is touched.
fn check_limits(
    limits: &WorkerLimits,
    jobs: &[JobSpec],
    allow_overwrite: bool,
) -> Result<(), iofit_engine::EngineError> {
    if allow_overwrite && !limits.allow_overwrite {
        return Err(iofit_engine::EngineError::Invalid {
            job: "worker".into(),
            message: "the controller asks to overwrite (--allow-overwrite), and this worker was not started with --allow-overwrite; add it to the worker's own command (the authorized_keys command=) if the host's owner allows it".into(),
        });
    }
    if limits.allowed_dirs.is_empty() {
        return Ok(());
    }
    for job in jobs {
        for path in paths_of(job) {
            if !inside(&path, &limits.allowed_dirs) {
                return Err(iofit_engine::EngineError::Refused {
                    path,
                    reason: format!(
                        "job {} uses it, and this worker may use only {} (its --allow-dir); point the job there",
                        job.name,
                        limits
                            .allowed_dirs
                            .iter()
                            .map(|d| d.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Serves one controller. `protocol` is the version the controller asked for on the command
/// line (`iofit worker --protocol N`); a mismatch is answered with our `hello` and an error
/// naming both versions, before anything else is read.
pub fn serve(
    protocol: u32,
    limits: &WorkerLimits,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> Result<(), RemoteError> {
    serve_with_stop(
        protocol,
        limits,
        input,
        output,
        Arc::new(AtomicBool::new(false)),
    )
}

/// As [`serve`], with a stop flag the caller may also set (the binary sets it on SIGTERM, as
/// Slurm sends when a step is cancelled): the running jobs stop, and the results so far are
/// sent to the controller as the run's end before the worker exits.
pub fn serve_with_stop(
    protocol: u32,
    limits: &WorkerLimits,
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
    stop: Arc<AtomicBool>,
) -> Result<(), RemoteError> {
    let out: SharedOut = Arc::new(Mutex::new(Box::new(output)));
    let hostname = iofit_hostname();
    send(
        &out,
        &FromWorker::Hello {
            protocol: PROTOCOL_VERSION,
            version: env!("CARGO_PKG_VERSION").to_string(),
            hostname,
        },
    )?;
    if protocol != PROTOCOL_VERSION {
        let message = format!(
            "protocol mismatch: the controller speaks protocol {protocol}, this worker (iofit {}) speaks {PROTOCOL_VERSION}; install the same iofit on every host",
            env!("CARGO_PKG_VERSION")
        );
        send(
            &out,
            &FromWorker::Error {
                message: message.clone(),
                bad_input: true,
            },
        )?;
        return Err(RemoteError::Worker(message));
    }
    let (tx, rx) = mpsc::channel::<ToWorker>();
    spawn_reader(input, out.clone(), stop.clone(), tx);
    // This run's keys directory, and whether it is the file's last run using it.
    let mut keys: Option<(std::path::PathBuf, bool)> = None;
    let served = serve_jobs(&rx, &out, &stop, &mut keys, limits);
    // Removed after the last run, and after a stop (which ends the file).
    if let Some((dir, last)) = keys {
        if last || stop.load(Ordering::SeqCst) {
            let _ = iofit_safefs::scratch::remove_tree(&dir);
        }
    }
    served
}

/// The worker's messages after `hello`, until it ran its jobs or was stopped.
fn serve_jobs(
    rx: &mpsc::Receiver<ToWorker>,
    out: &SharedOut,
    stop: &Arc<AtomicBool>,
    keys_dir: &mut Option<(std::path::PathBuf, bool)>,
    limits: &WorkerLimits,
) -> Result<(), RemoteError> {
    let mut jobs: Option<(Vec<JobSpec>, bool, u64)> = None;
    // A vdbench file system run, formatted and waiting for `start`.
    let mut fs_run: Option<(
        iofit_jobfile::vdbench::FsRun,
        Option<iofit_fswork::PhaseResult>,
    )> = None;
    while let Ok(message) = rx.recv() {
        match message {
            ToWorker::Hello { protocol: p, .. } if p != PROTOCOL_VERSION => {
                let message = format!(
                    "protocol mismatch: the controller speaks protocol {p}, this worker speaks {PROTOCOL_VERSION}"
                );
                send(
                    out,
                    &FromWorker::Error {
                        message: message.clone(),
                        bad_input: true,
                    },
                )?;
                return Err(RemoteError::Worker(message));
            }
            ToWorker::Hello { .. } | ToWorker::Ping { .. } => {}
            ToWorker::Job {
                fs: Some(run),
                allow_overwrite,
                ..
            } => match crate::fs_worker::prepare(&run, limits, allow_overwrite, stop) {
                Ok(format) => {
                    let (files, bytes) = crate::fs_worker::laid_out(format.as_ref());
                    send(
                        out,
                        &FromWorker::Ready {
                            files_laid_out: files,
                            bytes_laid_out: bytes,
                        },
                    )?;
                    fs_run = Some((*run, format));
                    jobs = Some((Vec::new(), allow_overwrite, 1000));
                }
                Err((message, bad_input)) => {
                    send(out, &FromWorker::Error { message, bad_input })?;
                    return Ok(());
                }
            },
            ToWorker::Job {
                jobs: mut list,
                allow_overwrite,
                interval_ms,
                keys,
                ..
            } => match check_limits(limits, &list, allow_overwrite)
                .and_then(|()| use_keys(keys.as_ref(), &mut list, keys_dir))
                .and_then(|()| prepare(&list, allow_overwrite, stop))
            {
                Ok((files, bytes)) => {
                    send(
                        out,
                        &FromWorker::Ready {
                            files_laid_out: files,
                            bytes_laid_out: bytes,
                        },
                    )?;
                    jobs = Some((list, allow_overwrite, interval_ms.max(1)));
                }
                Err(error) => {
                    // The file ends here: its keys go too.
                    if let Some(keys) = keys_dir.as_mut() {
                        keys.1 = true;
                    }
                    send(
                        out,
                        &FromWorker::Error {
                            message: error.to_string(),
                            bad_input: error.is_bad_input(),
                        },
                    )?;
                    return Ok(());
                }
            },
            ToWorker::Start { at_unix_ns } => {
                let Some((list, allow_overwrite, interval_ms)) = jobs.take() else {
                    send(
                        out,
                        &FromWorker::Error {
                            message: "start before job".into(),
                            bad_input: false,
                        },
                    )?;
                    return Ok(());
                };
                wait_until(at_unix_ns, stop);
                if let Some((run, format)) = fs_run.take() {
                    return crate::fs_worker::execute(&run, format, allow_overwrite, stop, out);
                }
                return execute(&list, allow_overwrite, interval_ms, stop, out);
            }
            ToWorker::Stop => return Ok(()),
        }
    }
    Ok(())
}

/// Reads the controller's lines: answers pings at once (the offset measurement must not wait
/// behind a layout), turns `stop` and end of input into the stop flag, passes the rest on.
fn spawn_reader(
    mut input: impl BufRead + Send + 'static,
    out: SharedOut,
    stop: Arc<AtomicBool>,
    tx: mpsc::Sender<ToWorker>,
) {
    std::thread::spawn(move || {
        while let Ok(Some(line)) = read_line(&mut input) {
            let Ok(message) = serde_json::from_str::<ToWorker>(&line) else {
                let _ = send(
                    &out,
                    &FromWorker::Error {
                        message: format!("not a protocol message: {line:.80}"),
                        bad_input: false,
                    },
                );
                break;
            };
            match message {
                ToWorker::Ping { id } => {
                    if send(
                        &out,
                        &FromWorker::Pong {
                            id,
                            unix_ns: unix_ns(),
                        },
                    )
                    .is_err()
                    {
                        break;
                    }
                }
                ToWorker::Stop => {
                    stop.store(true, Ordering::SeqCst);
                    let _ = tx.send(ToWorker::Stop);
                }
                other => {
                    if tx.send(other).is_err() {
                        break;
                    }
                }
            }
        }
        // The controller is gone or asked to stop: whatever runs stops now.
        stop.store(true, Ordering::SeqCst);
        let _ = tx.send(ToWorker::Stop);
    });
}

/// Points every validating job's `verify_state_save`/`_load` at this host's keys directory
/// (made private, 0700, on the file's first run), so a later run checks what an earlier one
/// wrote here; notes the directory (and whether this is the file's last run) for removal.
fn use_keys(
    keys: Option<&HostKeys>,
    jobs: &mut [JobSpec],
    keys_dir: &mut Option<(std::path::PathBuf, bool)>,
) -> Result<(), iofit_engine::EngineError> {
    let Some(keys) = keys else {
        return Ok(());
    };
    let dir = keys
        .dir()
        .map_err(|why| iofit_engine::EngineError::Invalid {
            job: "validate keys".into(),
            message: why.to_string(),
        })?;
    // Made private (0700) on the file's first run; on a later one it must still be ours and
    // private, not a link or another user's directory planted under the same name.
    let dir = iofit_safefs::scratch::private_dir(&dir).map_err(|e| {
        iofit_engine::EngineError::Refused {
            path: dir.clone(),
            reason: format!("the validate keys directory: {}", e.detail()),
        }
    })?;
    *keys_dir = Some((dir.clone(), keys.last));
    for job in jobs.iter_mut().filter(|j| j.data.verify.mode.is_on()) {
        job.data.verify.state_save = Some(dir.clone());
        job.data.verify.state_load = Some(dir.clone());
    }
    Ok(())
}

/// The engine's safety checks and layout, before the barrier: returns files and bytes written.
fn prepare(
    jobs: &[JobSpec],
    allow_overwrite: bool,
    stop: &AtomicBool,
) -> Result<(usize, u64), iofit_engine::EngineError> {
    let disk_jobs: Vec<JobSpec> = jobs
        .iter()
        .filter(|j| j.engine != EngineKind::Null)
        .cloned()
        .collect();
    let mut layout = iofit_engine::layout::plan_layout(&disk_jobs, allow_overwrite)?;
    let (_, files) = layout.to_write();
    let bytes = iofit_engine::layout::lay_out(&mut layout, stop)?;
    Ok((files, bytes))
}

fn wait_until(at_unix_ns: u64, stop: &AtomicBool) {
    // Sleep in short steps so a stop during the wait is honoured; never wait more than a minute
    // (a controller clock far off would otherwise park the worker).
    let deadline = Instant::now() + Duration::from_secs(60);
    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
        let now = unix_ns();
        if now >= at_unix_ns {
            return;
        }
        std::thread::sleep(Duration::from_nanos((at_unix_ns - now).min(10_000_000)));
    }
}

/// Streams live intervals from the engine's progress reports.
struct LiveIntervals {
    out: SharedOut,
    started: Instant,
    interval: Duration,
    next_index: u64,
    last: (u64, u64),
    set_base: (u64, u64),
    last_set: usize,
}

impl Observer for LiveIntervals {
    fn progress(&mut self, progress: &Progress) {
        // The engine's counters restart with every set of jobs (stonewall); keep totals.
        if progress.set_index != self.last_set {
            self.set_base = self.last;
            self.last_set = progress.set_index;
        }
        let total = (
            self.set_base.0 + progress.ios,
            self.set_base.1 + progress.bytes.as_u64(),
        );
        let elapsed = self.started.elapsed();
        while elapsed >= self.interval * (self.next_index as u32 + 1) {
            let _ = send(
                &self.out,
                &FromWorker::Interval {
                    index: self.next_index,
                    ios: total.0 - self.last.0,
                    bytes: total.1 - self.last.1,
                },
            );
            self.last = total;
            self.next_index += 1;
        }
    }
}

fn execute(
    jobs: &[JobSpec],
    allow_overwrite: bool,
    interval_ms: u64,
    stop: &Arc<AtomicBool>,
    out: &SharedOut,
) -> Result<(), RemoteError> {
    let options = RunOptions {
        allow_overwrite,
        stop: stop.clone(),
        ..RunOptions::default()
    };
    let started_unix_ns = unix_ns();
    let mut observer = LiveIntervals {
        out: out.clone(),
        started: Instant::now(),
        interval: Duration::from_millis(interval_ms),
        next_index: 0,
        last: (0, 0),
        set_base: (0, 0),
        last_set: 0,
    };
    match run_jobs(jobs, &options, &mut observer) {
        Ok(report) => {
            let stats = report
                .stats
                .iter()
                .map(|(r, w)| [CompactDirection::encode(r), CompactDirection::encode(w)])
                .collect();
            // Sent only when the run trimmed (most runs do not).
            let trims = if report.trim_stats.iter().any(|t| t.ios > 0) {
                report
                    .trim_stats
                    .iter()
                    .map(CompactDirection::encode)
                    .collect()
            } else {
                Vec::new()
            };
            send(
                out,
                &FromWorker::Done {
                    started_unix_ns,
                    result: report.result,
                    stats,
                    trims,
                },
            )?;
            Ok(())
        }
        Err(error) => {
            send(
                out,
                &FromWorker::Error {
                    message: error.to_string(),
                    bad_input: error.is_bad_input(),
                },
            )?;
            Ok(())
        }
    }
}

fn iofit_hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}
