//! Glue for the fleet modes: `iofit profile CAPTURES... --fleet-out DIR` and `iofit plan --fleet
//! DIR`. The work is in `iofit_fleet`; this wires flags, the progress bar (on a terminal only)
//! and the exit code (1 when some servers failed, 2 when none could be done).

use crate::cmd::{emit, print_json_or_text};
use crate::exit::{bad_input, FAILED};
use iofit_fleet::{FleetPlan, ServerResult};
use iofit_profile::{ParseOptions, SizingOptions};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use std::process::ExitCode;

/// Worker threads: one per core.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A progress bar on stderr when it is a terminal; nothing otherwise (logs stay clean).
fn progress(total: usize, what: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
        "{what} {{pos}}/{{len}} [{{bar:30}}] {{elapsed_precise}} ETA {{eta}}"
    )) {
        bar.set_style(style);
    }
    Some(bar)
}

/// `iofit profile CAPTURES... --fleet-out DIR [--servers MAP]`.
pub fn profile(
    inputs: &[PathBuf],
    mapping: Option<&Path>,
    out: &Path,
    allow_overwrite: bool,
    parse: &ParseOptions,
    sizing: &SizingOptions,
) -> anyhow::Result<ExitCode> {
    let files = iofit_fleet::expand(inputs).map_err(bad_input)?;
    let servers = iofit_fleet::group_servers(&files, mapping).map_err(bad_input)?;
    let bar = progress(servers.len(), "profiling");
    let tick = || {
        if let Some(bar) = &bar {
            bar.inc(1)
        }
    };
    let profiles = iofit_fleet::profile_fleet(&servers, parse, sizing, threads(), &tick);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let written =
        iofit_fleet::write_requirements(out, &profiles, allow_overwrite).map_err(bad_input)?;
    let failed = report_failures(&profiles);
    emit(&format!(
        "profiled {} of {} servers ({} capture files) into {}; next: iofit plan --fleet {}\n",
        written.len(),
        servers.len(),
        files.len(),
        out.display(),
        out.display()
    ))?;
    exit_code(written.len(), failed)
}

fn report_failures<T>(results: &[ServerResult<T>]) -> usize {
    let mut failed = 0;
    for server in results {
        if let Err(why) = &server.result {
            eprintln!("iofit: skipped server {}: {why}", server.label);
            failed += 1;
        }
    }
    failed
}

fn exit_code(done: usize, failed: usize) -> anyhow::Result<ExitCode> {
    match (done, failed) {
        (0, _) => Err(bad_input(format!(
            "all {failed} servers failed (each named above); fix their captures"
        ))),
        (_, 0) => Ok(ExitCode::SUCCESS),
        _ => {
            eprintln!("iofit: {failed} servers failed and were skipped; exit code {FAILED}");
            Ok(ExitCode::from(FAILED))
        }
    }
}

/// Options of `iofit plan --fleet`: where the table goes, and the plan itself.
pub struct PlanFleet<'a> {
    pub csv: Option<&'a Path>,
    pub html: Option<&'a Path>,
    pub json: bool,
    /// `--allow-overwrite`: the CSV and HTML may replace files iofit did not write.
    pub allow_overwrite: bool,
    pub request: iofit_procedure::fleet_plan::FleetPlanRequest,
}

/// `iofit plan --fleet DIR [--fleet-csv FILE] [--fleet-html FILE]`: planned by
/// `iofit_procedure::fleet_plan`, the same rules as `iofit plan` per server.
pub fn plan(args: PlanFleet<'_>) -> anyhow::Result<ExitCode> {
    // Before any work: the outputs must be writable files, not the inputs.
    for (path, flag) in [(args.csv, "--fleet-csv"), (args.html, "--fleet-html")] {
        if let Some(path) = path {
            let inputs = [args.request.dir.clone()];
            super::files::check_output_allowing(path, &inputs, flag, args.allow_overwrite)?;
        }
    }
    // The progress bar's length: the requirements files the plan reads.
    let servers = std::fs::read_dir(&args.request.dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
            .count()
    });
    let bar = progress(servers, "planning");
    let tick = || {
        if let Some(bar) = &bar {
            bar.inc(1)
        }
    };
    let fleet: FleetPlan = iofit_procedure::fleet_plan::plan_fleet(&args.request, &tick)?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let title = format!("iofit fleet plan: {}", args.request.dir.display());
    if let Some(path) = args.csv {
        super::files::write_output(
            path,
            iofit_report::fleet_table::render_csv(&fleet).as_bytes(),
        )?;
    }
    if let Some(path) = args.html {
        super::files::write_output(
            path,
            iofit_report::fleet_table::render_html(&fleet, &title).as_bytes(),
        )?;
    }
    print_json_or_text(
        args.json,
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
