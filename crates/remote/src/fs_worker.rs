//! The host side of a vdbench file system run (`fsd=`/`fwd=` with `host=`): the worker checks
//! the anchors against its own limits, formats before it says `ready` (so every host's
//! measured run starts at the common instant, whatever its format took), then runs its fwds
//! with `format=no` from `start`, streaming each interval as a live record and ending with
//! the whole outcome (`fs_done`). The anchors' ownership rules are fswork's own, checked here
//! on the host that owns the files.

use crate::protocol::{unix_ns, FromWorker};
use crate::worker_limits::{inside, send, SharedOut, WorkerLimits};
use crate::RemoteError;
use iofit_fswork::wire::WireOutcome;
use iofit_fswork::{FsEvent, FsOptions};
use iofit_jobfile::vdbench::{FormatMode, FsRun};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The worker's limits, then the format: returns what the format measured (None without
/// one), or the message and whether the run's input is at fault.
pub(crate) fn prepare(
    run: &FsRun,
    limits: &WorkerLimits,
    allow_overwrite: bool,
    stop: &Arc<AtomicBool>,
) -> Result<Option<iofit_fswork::PhaseResult>, (String, bool)> {
    if allow_overwrite && !limits.allow_overwrite {
        return Err((
            "the controller asks to overwrite (--allow-overwrite), and this worker was not started with --allow-overwrite; add it to the worker's own command (the authorized_keys command=) if the host's owner allows it".into(),
            true,
        ));
    }
    if !limits.allowed_dirs.is_empty() {
        if let Some(fsd) = run
            .fsds
            .iter()
            .find(|f| !inside(&f.anchor, &limits.allowed_dirs))
        {
            return Err((
                format!(
                    "fsd={} anchor={}: this worker may use only {} (its --allow-dir); point the anchor there",
                    fsd.name,
                    fsd.anchor.display(),
                    limits
                        .allowed_dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                true,
            ));
        }
    }
    let options = FsOptions {
        allow_overwrite,
        stop: Arc::clone(stop),
    };
    let formatted =
        iofit_fswork::format_phase(run, &options).map_err(|e| (e.to_string(), e.is_bad_input()))?;
    Ok(formatted.format)
}

/// The measured run (the format is done): intervals go out as they end, then `fs_done`.
pub(crate) fn execute(
    run: &FsRun,
    format: Option<iofit_fswork::PhaseResult>,
    allow_overwrite: bool,
    stop: &Arc<AtomicBool>,
    out: &SharedOut,
) -> Result<(), RemoteError> {
    let started_unix_ns = unix_ns();
    let mut measured = run.clone();
    let formatted = matches!(
        run.format,
        FormatMode::Yes
            | FormatMode::Restart
            | FormatMode::Only
            | FormatMode::RestartOnly
            | FormatMode::Clean
    );
    let outcome = if matches!(
        run.format,
        FormatMode::Only | FormatMode::RestartOnly | FormatMode::Clean
    ) {
        // Nothing to measure: the format (or clean) was the run.
        Ok(iofit_fswork::FsOutcome {
            format: None,
            run: None,
            files_per_fsd: Vec::new(),
            interrupted: stop.load(std::sync::atomic::Ordering::Relaxed),
        })
    } else {
        if formatted {
            measured.format = FormatMode::No;
        }
        let options = FsOptions {
            allow_overwrite,
            stop: Arc::clone(stop),
        };
        // A live record every second keeps the controller from taking a quiet host (a long
        // interval=, a slow operation) for a lost one; the interval lines travel in `fs_done`.
        let done = AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| heartbeat(out, &done));
            let result = iofit_fswork::run_observed(&measured, &options, &mut |_: FsEvent<'_>| {});
            done.store(true, Ordering::SeqCst);
            result
        })
    };
    match outcome {
        Ok(mut outcome) => {
            // The format ran before `ready`: it belongs to this run's outcome.
            outcome.format = outcome.format.or(format);
            send(
                out,
                &FromWorker::FsDone {
                    started_unix_ns,
                    outcome: Box::new(WireOutcome::encode(&outcome, stop.load(Ordering::SeqCst))),
                },
            )?
        }
        Err(e) => send(
            out,
            &FromWorker::Error {
                message: e.to_string(),
                bad_input: e.is_bad_input(),
            },
        )?,
    }
    Ok(())
}

/// Sends an empty live record every second until `done`.
fn heartbeat(out: &SharedOut, done: &AtomicBool) {
    let start = std::time::Instant::now();
    let mut index = 0u64;
    while !done.load(Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        if start.elapsed().as_secs() > index {
            let _ = send(
                out,
                &FromWorker::Interval {
                    index,
                    ios: 0,
                    bytes: 0,
                },
            );
            index += 1;
        }
    }
}

/// (files created, bytes written) by a format, for `ready`.
pub(crate) fn laid_out(format: Option<&iofit_fswork::PhaseResult>) -> (usize, u64) {
    format
        .map(|f| {
            let create = iofit_fswork::stats::index(iofit_jobfile::vdbench::FileOp::Create);
            let write = iofit_fswork::stats::index(iofit_jobfile::vdbench::FileOp::Write);
            (
                f.stats.ops[create].count as usize,
                f.stats.ops[write].bytes.as_u64(),
            )
        })
        .unwrap_or((0, 0))
}
