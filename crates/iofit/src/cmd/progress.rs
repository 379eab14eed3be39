//! Progress bars on stderr, only when it is a terminal (logs stay clean): `run`'s bar with its
//! notes and status reports ([`Terminal`], the procedure's [`Screen`]) and the fleet commands'
//! count of servers done ([`Count`]).

use indicatif::{ProgressBar, ProgressStyle};
use iofit_procedure::run_display::Screen;
use iofit_procedure::run_progress::BarView;
use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::Instant;

/// A bar of `length` drawn with `template` and `chars`, when stderr is a terminal and not
/// `quiet`.
fn stderr_bar(quiet: bool, length: u64, template: &str, chars: &str) -> Option<ProgressBar> {
    (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::new(length);
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars(chars));
        }
        bar
    })
}

/// The run's screen: a progress bar on a terminal's stderr (unless quiet), notes on stderr,
/// status reports on stdout within the stop's bound.
pub(crate) struct Terminal {
    bar: Option<ProgressBar>,
}

impl Terminal {
    pub(crate) fn new(quiet: bool) -> Self {
        let bar = stderr_bar(quiet, 0, "{elapsed_precise} [{bar:30}] {msg}", "=> ");
        Terminal { bar }
    }
}

impl Screen for Terminal {
    fn has_bar(&self) -> bool {
        self.bar.is_some()
    }

    fn draw(&self, view: &BarView) {
        if let Some(bar) = &self.bar {
            bar.set_length(view.length);
            bar.set_position(view.position);
            bar.set_message(view.message.clone());
        }
    }

    fn clear_bar(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    fn report(&self, text: &str) -> std::io::Result<()> {
        match &self.bar {
            Some(bar) => bar.suspend(|| crate::stop::print_status(text)),
            None => crate::stop::print_status(text),
        }
    }

    fn give_up_stdout(&self) {
        // The report's print returns within its poll interval of that moment.
        crate::stop::give_up_stdout_at(Instant::now())
    }
}

/// Servers done of a fleet, `label` first; the bar is made once the total is known.
pub(crate) struct Count(OnceLock<Option<ProgressBar>>, &'static str);

impl Count {
    pub(crate) fn new(label: &'static str) -> Self {
        Count(OnceLock::new(), label)
    }

    pub(crate) fn start(&self, total: usize) {
        let template = format!(
            "{} {{pos}}/{{len}} [{{bar:30}}] {{elapsed_precise}} ETA {{eta}}",
            self.1
        );
        let _ = self.0.set(stderr_bar(false, total as u64, &template, "█░"));
    }

    pub(crate) fn tick(&self) {
        if let Some(Some(bar)) = self.0.get() {
            bar.inc(1)
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(Some(bar)) = self.0.get() {
            bar.finish_and_clear();
        }
    }
}
