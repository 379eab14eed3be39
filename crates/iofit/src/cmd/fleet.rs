//! Glue for the fleet modes: `iofit profile CAPTURES... --fleet-out DIR` and `iofit plan --fleet
//! DIR` ([`iofit_procedure::fleet_profile`], [`iofit_procedure::fleet_plan`]). This wires the
//! progress bar (on a terminal only) and the exit code (1 when some servers failed, 2 when none
//! could be done).

use super::progress::Count;
use crate::cmd::{emit, print_json_or_text};
use iofit_procedure::fleet_plan::{plan_fleet_to, FleetOutputs, FleetPlanRequest};
use iofit_procedure::fleet_profile::{
    fleet_ending, profile_fleet, skipped_notes, FleetProfileRequest,
};
use std::process::ExitCode;

/// Worker threads: one per core.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `iofit profile CAPTURES... --fleet-out DIR [--servers MAP]`.
pub fn profile(request: &FleetProfileRequest<'_>) -> anyhow::Result<ExitCode> {
    let bar = Count::new("profiling");
    let outcome = profile_fleet(request, &|n| bar.start(n), &|| bar.tick())?;
    bar.finish();
    super::say(&outcome.skipped_notes());
    emit(&outcome.summary())?;
    Ok(super::end(fleet_ending(
        outcome.written,
        outcome.skipped.len(),
    )?))
}

/// `iofit plan --fleet DIR [--fleet-csv FILE] [--fleet-html FILE]`.
pub fn plan(
    request: &FleetPlanRequest,
    outputs: &FleetOutputs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let bar = Count::new("planning");
    let fleet = plan_fleet_to(request, outputs, &|n| bar.start(n), &|| bar.tick())?;
    bar.finish();
    print_json_or_text(
        json,
        || &fleet,
        || iofit_report::fleet_table::render_text(&fleet),
    )?;
    let failed = fleet.failed.iter().map(|f| (&f.server, &f.failure));
    super::say(&skipped_notes(failed));
    Ok(super::end(fleet_ending(
        fleet.rows.len(),
        fleet.failed.len(),
    )?))
}
