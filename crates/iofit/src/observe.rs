//! How the binary shows a procedure's events: steps on stdout (unless quiet), typed warnings
//! on stderr, a progress line on stderr when it is a terminal.

use iofit_engine::Progress;
use iofit_model::units::{group_thousands, Bytes};
use iofit_procedure::observer::{Event, Observer, Warning};
use std::io::IsTerminal;

pub struct CliObserver {
    /// Print the steps (off for `--json`, where stdout holds only JSON).
    pub steps: bool,
    /// Show a progress line (stderr is a terminal and not `--quiet`).
    pub progress: bool,
    /// vdbench reports MiB/s; iofit's own commands MB/s.
    pub mib: bool,
}

impl CliObserver {
    pub fn new(steps: bool, quiet: bool) -> Self {
        CliObserver {
            steps,
            progress: !quiet && std::io::stderr().is_terminal(),
            mib: false,
        }
    }
}

impl Observer for CliObserver {
    fn event(&mut self, event: &Event) {
        match event {
            // The demo prints its steps at the end; that a run is under way is for stderr.
            Event::DemoRun { .. } if self.steps => eprintln!("{event}"),
            _ if self.steps => println!("{event}"),
            _ => {}
        }
    }

    fn warning(&mut self, warning: &Warning) {
        eprintln!("warning: {warning}");
    }

    fn layout(&mut self, label: &str, files: usize, bytes: u64) {
        if self.progress {
            eprint!("\r{label}: laying out {files} file(s), {}   ", Bytes(bytes));
        }
    }

    fn progress(&mut self, label: &str, progress: &Progress) {
        if !self.progress {
            return;
        }
        let seconds = progress.elapsed.as_secs_f64().max(1e-9);
        let planned = progress
            .planned
            .map(|p| format!("/{:.0}s", p.as_secs_f64()))
            .unwrap_or_default();
        let rate = progress.bytes.as_u64() as f64 / seconds;
        let (rate, unit) = if self.mib {
            (rate / 1_048_576.0, "MiB/s")
        } else {
            (rate / 1e6, "MB/s")
        };
        eprint!(
            "\r{label}: {seconds:.0}s{planned} {} IO/s {rate:.1} {unit}   ",
            group_thousands(progress.ios as f64 / seconds),
        );
    }

    fn run_done(&mut self, _label: &str) {
        if self.progress {
            eprint!("\r\x1b[K");
        }
    }
}
