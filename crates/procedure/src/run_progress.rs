//! What `iofit run` shows while jobs run, apart from the terminal: the layout's and the
//! progress bar's lines, the `--status-interval` reports handed to a printing thread that may
//! stall, and how the run ends (exit status and notes). The binary draws the bar and prints.

use crate::ending::{Ending, Exit, Note};
use crate::fio_run::FioRunResults;
use iofit_engine::Progress;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Bytes in MiB or GiB, one decimal.
pub fn mib_text(bytes: u64) -> String {
    let mib = bytes as f64 / (1024.0 * 1024.0);
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.1} MiB")
    }
}

/// "laying out 2 file(s), 1.0 GiB, before timing starts": the layout's first line.
pub fn layout_start_text(files: usize, bytes: u64) -> String {
    format!(
        "laying out {files} file(s), {}, before timing starts",
        mib_text(bytes)
    )
}

/// "laid out 1.0 GiB in 5.0 s (214.7 MB/s)".
pub fn layout_done_text(bytes: u64, took: Duration) -> String {
    let seconds = took.as_secs_f64();
    let rate = if seconds > 0.0 {
        format!(" ({:.1} MB/s)", bytes as f64 / seconds / 1e6)
    } else {
        String::new()
    };
    format!("laid out {} in {seconds:.1} s{rate}", mib_text(bytes))
}

/// "laying out 512.0 MiB of 1.0 GiB (107.4 MB/s)": the layout's progress line.
pub fn layout_progress_text(written: u64, total: u64, took: Duration) -> String {
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
pub fn eta_text(progress: &Progress) -> String {
    let left_s = match (progress.planned, progress.budget_bytes) {
        (Some(planned), _) => Some(planned.saturating_sub(progress.elapsed).as_secs_f64()),
        (None, Some(budget)) if progress.bytes.as_u64() > 0 => {
            let bytes = progress.bytes.as_u64();
            let rate = bytes as f64 / progress.elapsed.as_secs_f64().max(1e-3);
            Some(budget.as_u64().saturating_sub(bytes) as f64 / rate)
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

/// The progress bar's state: where it stands, its length and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarView {
    pub position: u64,
    pub length: u64,
    pub message: String,
}

/// Turns the run's progress events into the bar's view; the rates are over the time since the
/// event before (the first event shows 0).
#[derive(Debug, Default)]
pub struct ProgressMeter {
    last: Option<(Instant, u64, u64)>,
}

impl ProgressMeter {
    /// The bar for `progress`, seen at `now`.
    pub fn view(&mut self, progress: &Progress, now: Instant) -> BarView {
        let (iops, mb_s) = match self.last {
            Some((t, ios, bytes)) if now > t && progress.ios >= ios => {
                let dt = (now - t).as_secs_f64();
                (
                    (progress.ios - ios) as f64 / dt,
                    (progress.bytes.as_u64().saturating_sub(bytes)) as f64 / dt / 1e6,
                )
            }
            _ => (0.0, 0.0),
        };
        self.last = Some((now, progress.ios, progress.bytes.as_u64()));
        let (position, length) = match (progress.planned, progress.budget_bytes) {
            (Some(planned), _) => (
                progress.elapsed.as_millis() as u64,
                planned.as_millis().max(1) as u64,
            ),
            (None, Some(budget)) => (progress.bytes.as_u64(), budget.as_u64().max(1)),
            _ => (0, 0),
        };
        BarView {
            position: position.min(length),
            length,
            message: format!(
                "{}  set {}/{}  IOPS={}  {:.1} MB/s",
                eta_text(progress),
                progress.set_index + 1,
                progress.sets,
                iofit_report::fio_text::count(iops),
                mb_s
            ),
        }
    }
}

/// What became of the `--status-interval` reports by the end of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatusOutcome {
    pub offered: u64,
    pub skipped: u64,
    /// The printer had not taken the reports within the bound after the run ended: the
    /// results cannot be printed either.
    pub stalled: bool,
}

/// The stderr line for the first report skipped.
pub const FIRST_SKIP_NOTE: &str = "stdout is not taking the --status-interval reports (its reader is not reading); skipping reports until it does, the run goes on";

/// Prints the `--status-interval` reports from a thread of its own, so that a stdout that
/// takes nothing (a pipe whose reader stopped reading) never holds the run: the runner hands a
/// report over and goes on; while the thread still has one waiting, a new one is skipped.
pub struct StatusPump {
    reports: Option<SyncSender<String>>,
    thread: Option<JoinHandle<()>>,
    offered: u64,
    skipped: u64,
}

/// What [`StatusPump::offer`] did with a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offered {
    /// Handed to the printing thread (or dropped after the printer failed).
    Handed,
    /// Skipped: the thread had one waiting. `first` for the first skip of the run.
    Skipped { first: bool },
}

impl StatusPump {
    /// Starts the printing thread; `print` prints one report (an error ends the thread: no
    /// more reports). None when no thread could be started.
    pub fn start(print: impl Fn(&str) -> std::io::Result<()> + Send + 'static) -> Option<Self> {
        // One report may wait while another is printed; a third is skipped.
        let (tx, rx) = sync_channel::<String>(1);
        let thread = std::thread::Builder::new()
            .name("status-out".into())
            .spawn(move || {
                for text in rx {
                    // A closed stdout (its reader left) or one given up on: no more reports.
                    if print(&text).is_err() {
                        return;
                    }
                }
            })
            .ok()?;
        Some(StatusPump {
            reports: Some(tx),
            thread: Some(thread),
            offered: 0,
            skipped: 0,
        })
    }

    /// Hands `text` to the thread, or skips it when the thread has one waiting already.
    pub fn offer(&mut self, text: String) -> Offered {
        self.offered += 1;
        let Some(reports) = &self.reports else {
            return Offered::Handed;
        };
        match reports.try_send(text) {
            Err(TrySendError::Full(_)) => {
                self.skipped += 1;
                Offered::Skipped {
                    first: self.skipped == 1,
                }
            }
            _ => Offered::Handed,
        }
    }

    /// The run is over: waits up to `bound` for the reports handed over to be printed; past
    /// it, calls `give_up` (which must make the thread's print return) and waits for it.
    pub fn finish(&mut self, bound: Duration, give_up: impl FnOnce()) -> StatusOutcome {
        drop(self.reports.take());
        let ended = Instant::now();
        let mut stalled = false;
        if let Some(thread) = self.thread.take() {
            while !thread.is_finished() && ended.elapsed() < bound {
                std::thread::sleep(Duration::from_millis(5));
            }
            if !thread.is_finished() {
                stalled = true;
                give_up();
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

/// The notes on the `--status-interval` reports after the run (skips), and, when the printer
/// stalled and the results were to go to stdout, the ending: the results cannot be printed.
pub fn status_ending(
    status: &StatusOutcome,
    to_stdout: bool,
    interrupted: bool,
    bound: Duration,
) -> (Vec<Note>, Option<Ending>) {
    let mut notes = Vec::new();
    if status.skipped > 0 {
        notes.push(Note::StatusReportsSkipped {
            skipped: status.skipped,
            offered: status.offered,
        });
    }
    if !(status.stalled && to_stdout) {
        return (notes, None);
    }
    // The run ended on time; its results cannot be printed to a stdout nobody reads.
    let exit = if interrupted {
        Exit::Interrupted
    } else {
        Exit::Failed
    };
    let ending = Ending::with(
        exit,
        Note::StdoutStalled {
            bound_ms: bound.as_millis(),
        },
    );
    (notes, Some(ending))
}

/// The jobs whose verification found bad data, as `name (N bad units)`.
pub fn data_error_jobs(jobs: &[iofit_stats::JobResult]) -> Vec<String> {
    jobs.iter()
        .filter_map(|j| {
            let v = j.verify.as_ref().filter(|v| v.bad_units > 0)?;
            Some(format!("{} ({} bad units)", j.name, v.bad_units))
        })
        .collect()
}

/// How a run whose results are out ends: 130 after Ctrl-C, 4 when verification found bad
/// data, 1 when a job stopped on an IO error, else 0.
pub fn fio_ending(results: &FioRunResults, quiet: bool) -> Ending {
    if results.interrupted {
        if quiet {
            return Ending::quiet(Exit::Interrupted);
        }
        return Ending::with(Exit::Interrupted, Note::Interrupted);
    }
    let bad_data = data_error_jobs(&results.report.result.jobs);
    if !bad_data.is_empty() {
        return Ending::with(Exit::DataErrors, Note::BadData { jobs: bad_data });
    }
    if !results.failed_jobs.is_empty() {
        return Ending::with(
            Exit::Failed,
            Note::JobsFailed {
                jobs: results.failed_jobs.clone(),
            },
        );
    }
    Ending::quiet(Exit::Success)
}

#[cfg(test)]
#[path = "run_progress_tests.rs"]
mod tests;
