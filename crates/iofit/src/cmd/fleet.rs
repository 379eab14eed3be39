//! Glue for the fleet modes: `iofit profile CAPTURES... --fleet-out DIR` and `iofit plan --fleet
//! DIR` ([`iofit_procedure::fleet_profile`], [`iofit_procedure::fleet_plan`]). This wires the
//! progress bar (on a terminal only) and the exit code (1 when some servers failed, 2 when none
//! could be done).

use crate::cmd::{emit, print_json_or_text};
use iofit_procedure::fleet_plan::{plan_fleet_to, FleetOutputs, FleetPlanRequest};
use iofit_procedure::fleet_profile::{fleet_ending, profile_fleet, FleetProfileRequest};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::OnceLock;

/// Worker threads: one per core.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A progress bar on stderr when it is a terminal, made once the total is known; nothing
/// otherwise (logs stay clean).
struct Progress(OnceLock<Option<indicatif::ProgressBar>>, &'static str);

impl Progress {
    fn start(&self, total: usize) {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
                "{} {{pos}}/{{len}} [{{bar:30}}] {{elapsed_precise}} ETA {{eta}}",
                self.1
            )) {
                bar.set_style(style);
            }
            bar
        });
        let _ = self.0.set(bar);
    }
    fn tick(&self) {
        if let Some(Some(bar)) = self.0.get() {
            bar.inc(1)
        }
    }
    fn finish(&self) {
        if let Some(Some(bar)) = self.0.get() {
            bar.finish_and_clear();
        }
    }
}

/// `iofit profile CAPTURES... --fleet-out DIR [--servers MAP]`.
pub fn profile(request: &FleetProfileRequest<'_>) -> anyhow::Result<ExitCode> {
    let bar = Progress(OnceLock::new(), "profiling");
    let outcome = profile_fleet(request, &|n| bar.start(n), &|| bar.tick())?;
    bar.finish();
    for (server, why) in &outcome.skipped {
        eprintln!("iofit: skipped server {server}: {why}");
    }
    emit(&outcome.summary())?;
    exit_code(outcome.written, outcome.skipped.len())
}

fn exit_code(done: usize, failed: usize) -> anyhow::Result<ExitCode> {
    Ok(super::end(fleet_ending(done, failed)?))
}

/// `iofit plan --fleet DIR [--fleet-csv FILE] [--fleet-html FILE]`.
pub fn plan(
    request: &FleetPlanRequest,
    outputs: &FleetOutputs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let bar = Progress(OnceLock::new(), "planning");
    let fleet = plan_fleet_to(request, outputs, &|n| bar.start(n), &|| bar.tick())?;
    bar.finish();
    print_json_or_text(
        json,
        || &fleet,
        || iofit_report::fleet_table::render_text(&fleet),
    )?;
    for failed in &fleet.failed {
        eprintln!(
            "iofit: skipped server {}: {}",
            failed.server, failed.failure
        );
    }
    exit_code(fleet.rows.len(), fleet.failed.len())
}
