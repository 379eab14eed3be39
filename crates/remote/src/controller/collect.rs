//! The run phase: each worker's results and end collected as they come, a lost or silent host
//! given up on, the stats decoded and combined into one run, and the sessions shut down.

use super::connect::{Connection, Event};
use super::{ControllerOptions, HostFailure, HostRun, MultiRun};

use crate::merge::Combiner;
use crate::protocol::{unix_ns, FromWorker, ToWorker};
use iofit_model::units::Seconds;
use iofit_stats::compact::{CompactDirection, CompactError};
use iofit_stats::{DirectionStats, RunResult};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// The timed phase: intervals and results until every host is done or lost. Returns whether
/// the run was interrupted.
pub(super) fn collect(
    rx: &Receiver<(usize, Event)>,
    connections: &mut [Option<Connection>],
    runs: &mut [HostRun],
    options: &ControllerOptions,
    start_at_ns: u64,
    combiner: &mut Combiner,
) -> bool {
    let mut finished = vec![false; runs.len()];
    let mut stop_sent = false;
    // With Slurm, the first host lost (its node failed) ends the run: Slurm ends a job whose
    // node fails, and the other workers send what they measured until then.
    let mut lost_first: Option<usize> = None;
    let since_start = || seconds_since(start_at_ns);
    // A running worker writes an interval line every interval; one silent much longer than
    // that lost its node, network or process even where the channel stays open (a failed
    // Slurm node's task never ends its part of the step's output).
    let silence_limit = (options.interval * SILENT_INTERVALS).max(MIN_SILENCE);
    let mut last_heard = vec![Instant::now(); runs.len()];
    while !finished.iter().all(|f| *f) {
        if options.stop.load(Ordering::SeqCst) && !stop_sent {
            for c in connections.iter_mut().flatten() {
                c.send(&ToWorker::Stop);
            }
            stop_sent = true;
        }
        let lost = give_up_on_silent(
            &mut finished,
            &last_heard,
            silence_limit,
            start_at_ns,
            connections,
            runs,
        );
        if let Some(i) = lost {
            end_run_for_loss(i, &mut lost_first, &finished, connections, options);
        }
        let (i, event) = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(x) => x,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        last_heard[i] = Instant::now();
        if finished[i] {
            continue;
        }
        let stopped_for = lost_first.map(|l| runs[l].name.clone());
        let run = &mut runs[i];
        match event {
            Event::Message(message, bytes) => {
                run.bytes_received += bytes as u64;
                match message {
                    FromWorker::Interval { ios, bytes, .. } => run.live.push((ios, bytes)),
                    FromWorker::Done {
                        started_unix_ns,
                        result,
                        stats,
                        trims,
                    } => {
                        let done = Done {
                            started_unix_ns,
                            result,
                            stats: &stats,
                            trims: &trims,
                        };
                        on_done(run, done, options, start_at_ns, combiner, stopped_for);
                        finished[i] = true;
                    }
                    FromWorker::FsDone { outcome, .. } => {
                        fs_done(run, &outcome, options, since_start(), stopped_for);
                        finished[i] = true;
                    }
                    FromWorker::Error { message, .. } => {
                        run.failure.get_or_insert(HostFailure {
                            after_s: since_start(),
                            message,
                        });
                        finished[i] = true;
                    }
                    _ => {}
                }
            }
            Event::Garbage(line) => {
                run.failure.get_or_insert(HostFailure {
                    after_s: since_start(),
                    message: format!("not a protocol line: {line:.120}"),
                });
            }
            Event::Eof => {
                let tail = connections[i]
                    .as_ref()
                    .map(|c| c.stderr_tail())
                    .unwrap_or_default();
                let mut message =
                    format!("connection lost after {} live interval(s)", run.live.len());
                if let Some(previous) = run.failure.take() {
                    message = format!("{message}; {}", previous.message);
                }
                if !tail.is_empty() {
                    message.push_str(&format!(": {tail}"));
                }
                run.failure = Some(HostFailure {
                    after_s: since_start(),
                    message,
                });
                finished[i] = true;
                end_run_for_loss(i, &mut lost_first, &finished, connections, options);
            }
        }
    }
    stop_sent
}

/// A worker's `done`, as it came.
struct Done<'a> {
    started_unix_ns: u64,
    result: RunResult,
    stats: &'a [[CompactDirection; 2]],
    trims: &'a [CompactDirection],
}

/// Why a host whose jobs were stopped on its side did not run to the end: the controller
/// stopped it because `stopped_for` was lost (a Slurm run), else a signal on the host.
fn stopped_message(stopped_for: Option<&str>) -> String {
    match stopped_for {
        Some(lost) => format!(
            "stopped when {lost} was lost (Slurm ends a job whose node fails, so the run ends \
             with it); its results so far are kept"
        ),
        None => "stopped on the host before the end (a signal to the worker, such as a \
                 cancelled Slurm step); its results so far are kept"
            .to_string(),
    }
}

/// A host's run ended: its histograms decoded and merged at once (the controller keeps one set
/// of histograms per job, not one per host), its result kept.
fn on_done(
    run: &mut HostRun,
    done: Done<'_>,
    options: &ControllerOptions,
    start_at_ns: u64,
    combiner: &mut Combiner,
    stopped_for: Option<String>,
) {
    let after_s = seconds_since(start_at_ns);
    let mut result = done.result;
    result.hostname.clone_from(&run.name);
    let started = done.started_unix_ns as i128 - run.clock_offset_ns.get() as i128;
    let late_ns = (started - start_at_ns as i128).max(0) as f64;
    run.shift_intervals = (late_ns / options.interval.as_nanos() as f64).round() as usize;
    let trims: Result<Vec<DirectionStats>, CompactError> =
        done.trims.iter().map(CompactDirection::decode).collect();
    match decode_all(done.stats).and_then(|d| Ok((d, trims?))) {
        Ok((decoded, trims)) => {
            combiner.add(&result, &decoded, run.shift_intervals);
            combiner.add_trims(&trims);
            // Stopped before its end, not by the user's stop: what it measured is kept and
            // merged, and the host did not run to the end.
            if result.jobs.iter().any(|j| j.interrupted) && !options.stop.load(Ordering::SeqCst) {
                run.failure = Some(HostFailure {
                    after_s,
                    message: stopped_message(stopped_for.as_deref()),
                });
            }
            run.result = Some(result);
        }
        Err(e) => {
            run.failure = Some(HostFailure {
                after_s,
                message: e.to_string(),
            })
        }
    }
}

/// In a Slurm run, the first host lost ends the run: every worker still running is told to
/// stop and sends what it measured (as Slurm itself would end the job once it marks the node
/// down, only later). Over ssh the other hosts run on.
fn end_run_for_loss(
    lost: usize,
    lost_first: &mut Option<usize>,
    finished: &[bool],
    connections: &mut [Option<Connection>],
    options: &ControllerOptions,
) {
    if options.slurm.is_none() || lost_first.is_some() {
        return;
    }
    *lost_first = Some(lost);
    for (c, _) in connections
        .iter_mut()
        .zip(finished)
        .filter(|(_, done)| !**done)
    {
        if let Some(c) = c.as_mut() {
            c.send(&ToWorker::Stop);
        }
    }
}

/// A host's file system run ended: its outcome decoded and kept; stopped on the host (not by
/// the controller's stop), it is also the host's failure, its results kept.
fn fs_done(
    run: &mut HostRun,
    outcome: &iofit_fswork::wire::WireOutcome,
    options: &ControllerOptions,
    after_s: Seconds,
    stopped_for: Option<String>,
) {
    match outcome.decode() {
        Ok(result) => {
            run.fs_result = Some(result);
            run.fs_interrupted = outcome.interrupted;
            if outcome.interrupted && !options.stop.load(Ordering::SeqCst) {
                run.failure = Some(HostFailure {
                    after_s,
                    message: match stopped_for {
                        Some(_) => stopped_message(stopped_for.as_deref()),
                        None => "stopped on the host before the end (a signal to the \
                                 worker); its results so far are kept"
                            .to_string(),
                    },
                });
            }
        }
        Err(e) => {
            run.failure = Some(HostFailure {
                after_s,
                message: e.to_string(),
            })
        }
    }
}

/// Intervals a running worker may stay silent before it counts as lost.
const SILENT_INTERVALS: u32 = 10;
/// The shortest silence that counts as lost, whatever the interval.
const MIN_SILENCE: Duration = Duration::from_secs(10);

/// Marks lost every unfinished host not heard from for `limit` since the common start (or its
/// last message), and ends its local client (ssh) or stops its task (srun) so nothing waits
/// on it. Returns one of the hosts it gave up on.
fn give_up_on_silent(
    finished: &mut [bool],
    last_heard: &[Instant],
    limit: Duration,
    start_at_ns: u64,
    connections: &mut [Option<Connection>],
    runs: &mut [HostRun],
) -> Option<usize> {
    let now_ns = unix_ns();
    if now_ns < start_at_ns {
        return None;
    }
    let mut lost = None;
    let since_start = Duration::from_nanos(now_ns - start_at_ns);
    for i in 0..runs.len() {
        let silent = last_heard[i].elapsed().min(since_start);
        if finished[i] || silent < limit {
            continue;
        }
        runs[i].failure.get_or_insert(HostFailure {
            after_s: Seconds(since_start.as_secs_f64()),
            message: format!(
                "no message from the host for {:.0} s after {} live interval(s): its node, \
                 network or worker failed",
                silent.as_secs_f64(),
                runs[i].live.len()
            ),
        });
        finished[i] = true;
        lost.get_or_insert(i);
        if let Some(connection) = connections[i].as_mut() {
            connection.abandon();
        }
    }
    lost
}

pub(super) fn finish(
    runs: Vec<HostRun>,
    combiner: Combiner,
    start_at_ns: u64,
    interrupted: bool,
) -> MultiRun {
    let (combined, combined_stats) = combiner.finish();
    MultiRun {
        wall_s: seconds_since(start_at_ns),
        hosts: runs,
        combined,
        combined_stats,
        interrupted,
    }
}

type RawStats = Vec<(DirectionStats, DirectionStats)>;

fn decode_all(stats: &[[CompactDirection; 2]]) -> Result<RawStats, CompactError> {
    stats
        .iter()
        .map(|[r, w]| Ok((r.decode()?, w.decode()?)))
        .collect()
}

/// The time since `start_at_ns` (Unix nanoseconds), never negative.
fn seconds_since(start_at_ns: u64) -> Seconds {
    Seconds((unix_ns() as f64 - start_at_ns as f64).max(0.0) / 1e9)
}
