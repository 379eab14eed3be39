//! Glue for the fleet modes: `iofit profile CAPTURES... --fleet-out DIR` and `iofit plan --fleet
//! DIR`. The work is in `iofit_fleet`; this wires flags, the progress bar (on a terminal only)
//! and the exit code (1 when some servers failed, 2 when none could be done).

use crate::cmd::{emit, print_json_or_text};
use crate::exit::{bad_input, FAILED};
use iofit_fleet::{FleetPlan, ServerResult};
use iofit_planner::PlanOptions;
use iofit_procedure::inputs::{assumptions_for, rows_for};
use iofit_procedure::plan::parse_caching;
use iofit_profile::{ParseOptions, SizingOptions};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use std::process::ExitCode;

/// Worker threads: one per core.
fn threads() -> usize {
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

/// Options of `iofit plan --fleet`.
pub struct PlanFleet<'a> {
    pub dir: &'a Path,
    pub csv: Option<&'a Path>,
    pub html: Option<&'a Path>,
    pub json: bool,
    /// `--allow-overwrite`: the CSV and HTML may replace files iofit did not write.
    pub allow_overwrite: bool,
    pub edition: &'a str,
    pub catalog: &'a iofit_catalog::Catalog,
    pub caching: Option<&'a str>,
    pub cache_hit_pct: f64,
    pub service_latency_ms: Option<f64>,
    pub min_headroom_pct: f64,
    pub busy_hours_per_month: f64,
    /// What the price choice used and missed (`--region`, `--pricing`, `--os`).
    pub price_notes: Vec<String>,
    /// Which VM sizes the servers may use (`--arch`, `--family`, ...).
    pub filters: iofit_procedure::vm_filters::VmFilters,
}

/// `iofit plan --fleet DIR [--fleet-csv FILE] [--fleet-html FILE]`.
pub fn plan(args: PlanFleet<'_>) -> anyhow::Result<ExitCode> {
    if !(args.min_headroom_pct.is_finite() && (0.0..100.0).contains(&args.min_headroom_pct)) {
        return Err(bad_input(format!(
            "--min-headroom-pct {}: must be within 0..100",
            args.min_headroom_pct
        )));
    }
    let options = PlanOptions {
        caching: args.caching.map(parse_caching).transpose()?,
        assumptions: assumptions_for(args.edition, args.service_latency_ms, args.cache_hit_pct)?,
        min_headroom_pct: args.min_headroom_pct,
        busy_hours_per_month: args.busy_hours_per_month,
        ..PlanOptions::default()
    };
    // Before any work: the outputs must be writable files, not the inputs.
    for (path, flag) in [(args.csv, "--fleet-csv"), (args.html, "--fleet-html")] {
        if let Some(path) = path {
            let inputs = [args.dir.to_path_buf()];
            super::files::check_output_allowing(path, &inputs, flag, args.allow_overwrite)?;
        }
    }
    let servers = iofit_fleet::read_requirements_dir(args.dir).map_err(bad_input)?;
    let mut rows = rows_for(args.catalog, args.edition);
    let mut notes = args.price_notes.clone();
    notes.extend(
        iofit_procedure::vm_filters::apply(
            &mut rows.vms,
            &args.filters,
            false,
            &iofit_procedure::vm_filters::today(),
            "--",
        )
        .map_err(bad_input)?,
    );
    let bar = progress(servers.len(), "planning");
    let tick = || {
        if let Some(bar) = &bar {
            bar.inc(1)
        }
    };
    let fleet: FleetPlan = iofit_fleet::plan_fleet(&servers, &rows, &options, threads(), &tick);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let title = format!("iofit fleet plan: {}", args.dir.display());
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
        || {
            let mut text = iofit_report::fleet_table::render_text(&fleet);
            if !notes.is_empty() {
                text.push_str("\nnotes:\n");
                for note in &notes {
                    text.push_str(&format!("  - {note}\n"));
                }
            }
            text
        },
    )?;
    if args.json {
        // The JSON document stays the fleet's; the price notes still reach the user.
        for note in &notes {
            eprintln!("iofit: note: {note}");
        }
    }
    for failed in &fleet.failed {
        eprintln!(
            "iofit: skipped server {}: {}",
            failed.server, failed.failure
        );
    }
    exit_code(fleet.rows.len(), fleet.failed.len())
}
