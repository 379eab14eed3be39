//! What `iofit run` shows while fio jobs run, as an [`Observer`]: the notes, the layout's start,
//! progress and end, the progress bar's view, and the `--status-interval` reports handed to a
//! printer that may stall. Where it goes is a [`Screen`]: the binary's terminal (a progress bar
//! on stderr, stdout bounded by the stop), or a test's recorder.

use crate::observer::{Observer, Warning};
use crate::run_progress::{
    layout_done_text, layout_progress_text, layout_start_text, BarView, Offered, ProgressMeter,
    StatusOutcome, StatusPump, FIRST_SKIP_NOTE,
};
use iofit_engine::Progress;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Where the run's display goes.
pub trait Screen: Send + Sync {
    /// Whether a progress bar is drawn (stderr is a terminal and the run is not quiet).
    fn has_bar(&self) -> bool;
    /// Draws the bar (only called when there is one).
    fn draw(&self, view: &BarView);
    /// Clears the bar at the run's end.
    fn clear_bar(&self);
    /// One line on stderr (above the bar when there is one).
    fn line(&self, text: &str);
    /// Prints one `--status-interval` report on stdout; an error ends the reports.
    fn report(&self, text: &str) -> std::io::Result<()>;
    /// The stop bound passed with a report unprinted: makes the report's print return.
    fn give_up_stdout(&self);
}

/// How often the layout's progress is drawn.
const LAYOUT_TICK: Duration = Duration::from_millis(250);

/// The run's display, the [`Observer`] of [`crate::fio_run::run_fio_jobs`].
pub struct RunDisplay {
    screen: Arc<dyn Screen>,
    quiet: bool,
    /// How long the reports may take to print after the run ends.
    stop_bound: Duration,
    meter: ProgressMeter,
    /// When the layout began and how many bytes it writes: the first progress of the run
    /// ends it, and says how long it took at what rate.
    layout: Option<(Instant, u64)>,
    /// While the layout runs with a bar: the thread that draws its bytes and rate, and the
    /// flag that ends it.
    layout_ticker: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    /// The thread printing `--status-interval` reports, from the first one on.
    status: Option<StatusPump>,
    status_outcome: StatusOutcome,
}

impl RunDisplay {
    pub fn new(screen: Arc<dyn Screen>, quiet: bool, stop_bound: Duration) -> Self {
        RunDisplay {
            screen,
            quiet,
            stop_bound,
            meter: ProgressMeter::default(),
            layout: None,
            layout_ticker: None,
            status: None,
            status_outcome: StatusOutcome::default(),
        }
    }

    /// What became of the `--status-interval` reports (after the run).
    pub fn status_outcome(&self) -> StatusOutcome {
        self.status_outcome
    }

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
            let text = layout_done_text(bytes, started.elapsed());
            self.screen.line(&format!("iofit: {text}"));
        }
    }
}

impl Drop for RunDisplay {
    fn drop(&mut self) {
        self.end_layout_ticker();
    }
}

impl Observer for RunDisplay {
    fn warning(&mut self, warning: &Warning) {
        if !self.quiet {
            self.screen.line(&format!("iofit: {warning}"));
        }
    }

    fn layout(&mut self, _label: &str, files: usize, bytes: u64) {
        if !self.quiet {
            self.screen
                .line(&format!("iofit: {}", layout_start_text(files, bytes)));
            self.layout = Some((Instant::now(), bytes));
        }
    }

    fn layout_written(&mut self, _label: &str, written: Arc<AtomicU64>) {
        let Some((started, total)) = self.layout.filter(|_| self.screen.has_bar()) else {
            return;
        };
        let (screen, done) = (Arc::clone(&self.screen), Arc::new(AtomicBool::new(false)));
        let stop = Arc::clone(&done);
        let ticker = std::thread::Builder::new()
            .name("layout-progress".into())
            .spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let so_far = written.load(Ordering::Relaxed);
                    screen.draw(&BarView {
                        position: so_far.min(total),
                        length: total.max(1),
                        message: layout_progress_text(so_far, total, started.elapsed()),
                    });
                    std::thread::sleep(LAYOUT_TICK);
                }
            });
        if let Ok(ticker) = ticker {
            self.layout_ticker = Some((done, ticker));
        }
    }

    fn progress(&mut self, _label: &str, progress: &Progress) {
        self.finish_layout();
        if self.screen.has_bar() {
            self.screen.draw(&self.meter.view(progress, Instant::now()));
        }
    }

    fn run_done(&mut self, _label: &str) {
        self.finish_layout();
        if self.screen.has_bar() {
            self.screen.clear_bar();
        }
        if let Some(pump) = &mut self.status {
            let screen = Arc::clone(&self.screen);
            self.status_outcome = pump.finish(self.stop_bound, move || screen.give_up_stdout());
        }
    }

    fn status_report(&mut self, _label: &str, text: &str) {
        let mut text = text.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if self.status.is_none() {
            let screen = Arc::clone(&self.screen);
            self.status = StatusPump::start(move |text| screen.report(text));
        }
        match &mut self.status {
            Some(pump) => {
                if pump.offer(text) == (Offered::Skipped { first: true }) {
                    self.screen.line(&format!("iofit: {FIRST_SKIP_NOTE}"));
                }
            }
            // No thread to print from: printed here (the screen's print cannot block past
            // the stop bound).
            None => {
                let _ = self.screen.report(&text);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Records what the display does; `bar` says whether it draws one.
    #[derive(Default)]
    struct Recorder {
        bar: bool,
        lines: Mutex<Vec<String>>,
        draws: Mutex<Vec<BarView>>,
        reports: Mutex<Vec<String>>,
    }

    impl Screen for Recorder {
        fn has_bar(&self) -> bool {
            self.bar
        }
        fn draw(&self, view: &BarView) {
            self.draws.lock().unwrap().push(view.clone());
        }
        fn clear_bar(&self) {}
        fn line(&self, text: &str) {
            self.lines.lock().unwrap().push(text.to_string());
        }
        fn report(&self, text: &str) -> std::io::Result<()> {
            self.reports.lock().unwrap().push(text.to_string());
            Ok(())
        }
        fn give_up_stdout(&self) {}
    }

    fn progress() -> Progress {
        Progress {
            set_index: 0,
            sets: 1,
            elapsed: Duration::from_secs(1),
            planned: Some(Duration::from_secs(4)),
            ios: 10,
            bytes: iofit_model::units::Bytes(40_960),
            budget_bytes: None,
        }
    }

    #[test]
    fn the_layout_says_its_start_and_end_then_the_bar_shows_the_run() {
        let screen = Arc::new(Recorder {
            bar: true,
            ..Recorder::default()
        });
        let mut display = RunDisplay::new(screen.clone(), false, Duration::from_secs(1));
        display.layout("run", 2, 1 << 30);
        display.layout_written("run", Arc::new(AtomicU64::new(1 << 29)));
        // The layout's ticker draws from its own thread: wait for its first drawing.
        let waited = Instant::now();
        while screen.draws.lock().unwrap().is_empty() && waited.elapsed() < Duration::from_secs(10)
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        display.progress("run", &progress());
        display.run_done("run");
        let lines = screen.lines.lock().unwrap().clone();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(
            lines[0],
            "iofit: laying out 2 file(s), 1.0 GiB, before timing starts"
        );
        assert!(
            lines[1].starts_with("iofit: laid out 1.0 GiB in "),
            "{lines:?}"
        );
        let draws = screen.draws.lock().unwrap().clone();
        assert!(draws[0]
            .message
            .starts_with("laying out 512.0 MiB of 1.0 GiB"));
        let last = draws.last().unwrap();
        assert_eq!((last.position, last.length), (1000, 4000));
    }

    #[test]
    fn quiet_says_nothing_and_without_a_bar_nothing_is_drawn() {
        let screen = Arc::new(Recorder::default());
        let mut quiet = RunDisplay::new(screen.clone(), true, Duration::from_secs(1));
        quiet.warning(&Warning::JobNote("a note".into()));
        quiet.layout("run", 1, 4096);
        quiet.progress("run", &progress());
        quiet.run_done("run");
        assert!(screen.lines.lock().unwrap().is_empty());
        assert!(screen.draws.lock().unwrap().is_empty());
        let mut loud = RunDisplay::new(screen.clone(), false, Duration::from_secs(1));
        loud.warning(&Warning::JobNote("a note".into()));
        assert_eq!(screen.lines.lock().unwrap().len(), 1);
    }

    #[test]
    fn status_reports_are_printed_whole_with_a_newline() {
        let screen = Arc::new(Recorder::default());
        let mut display = RunDisplay::new(screen.clone(), false, Duration::from_secs(5));
        display.status_report("run", "first");
        display.run_done("run");
        assert_eq!(*screen.reports.lock().unwrap(), vec!["first\n".to_string()]);
        let outcome = display.status_outcome();
        assert_eq!(
            (outcome.offered, outcome.skipped, outcome.stalled),
            (1, 0, false)
        );
    }
}
