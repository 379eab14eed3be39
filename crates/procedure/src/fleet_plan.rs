//! `iofit plan --fleet DIR` apart from the command line: every server's requirements file
//! planned with the same catalog, prices and filters as `iofit plan` uses for one server, each
//! server's cheapest design in one table. The rules `plan` applies per requirements apply per
//! server here: a server profiled from a PerfMon (Windows) capture plans x64 sizes only unless
//! `--arch` says otherwise. The notes (prices used and missing, sizes left out and why, the
//! conditions of the disk kinds chosen) stay with the fleet plan, in its JSON too.

use crate::plan::{parse_caching, CatalogChoice};
use crate::vm_filters::{apply, today};
use crate::ProcedureError;
use iofit_fleet::FleetPlan;
use iofit_model::units::Millis;
use iofit_model::Requirements;
use iofit_planner::{PlanNote, PlanOptions};
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Everything `iofit plan --fleet` asks for.
#[derive(Clone, Debug)]
pub struct FleetPlanRequest {
    /// A directory of requirements files, one per server (`profile --fleet-out`).
    pub dir: PathBuf,
    pub catalog: CatalogChoice,
    pub caching: Option<String>,
    pub cache_hit_pct: f64,
    pub service_latency_ms: Option<Millis>,
    pub min_headroom_pct: f64,
    pub busy_hours_per_month: f64,
    /// Servers planned at once.
    pub threads: usize,
}

/// Whether a server's requirements come from a PerfMon (Windows) capture: the same test
/// `iofit plan` makes of one requirements file.
pub fn from_windows_capture(requirements: &Requirements) -> bool {
    requirements.source.starts_with("PerfMon")
}

/// Plans every server of `request.dir`; `done` is called once per server planned.
pub fn plan_fleet(request: &FleetPlanRequest, done: &(dyn Fn() + Sync)) -> Result<FleetPlan> {
    let headroom = request.min_headroom_pct;
    if !(headroom.is_finite() && (0.0..100.0).contains(&headroom)) {
        return Err(bad(format!(
            "--min-headroom-pct {}: must be within 0..100",
            crate::error::shown(headroom)
        )));
    }
    let (catalog, price_notes, currency) = request.catalog.load_priced_in()?;
    let edition = &request.catalog.edition;
    let options = PlanOptions {
        caching: request.caching.as_deref().map(parse_caching).transpose()?,
        assumptions: crate::inputs::assumptions_for(
            edition,
            request.service_latency_ms,
            request.cache_hit_pct,
        )?,
        min_headroom_pct: request.min_headroom_pct,
        busy_hours_per_month: request.busy_hours_per_month,
        currency,
        ..PlanOptions::default()
    };
    let servers =
        iofit_fleet::read_requirements_dir(&request.dir).map_err(|e| bad(e.to_string()))?;
    let windows: Vec<&str> = servers
        .iter()
        .filter(|s| s.result.as_ref().is_ok_and(from_windows_capture))
        .map(|s| s.label.as_str())
        .collect();
    // Two sets of rows: as filtered for any server, and for servers from Windows captures.
    let base = crate::inputs::rows_for(&catalog, edition);
    let filters = &request.catalog.filters;
    let mut any = base.clone();
    let mut notes: Vec<PlanNote> = price_notes.into_iter().map(PlanNote::Prices).collect();
    notes.extend(
        apply(&mut any.vms, filters, false, &today(), "--")?
            .into_iter()
            .map(PlanNote::VmFilter),
    );
    let mut x64 = base;
    let windows_notes = apply(&mut x64.vms, filters, true, &today(), "--")?;
    if !windows.is_empty() {
        // What only the servers from Windows captures were planned without, said so.
        for note in windows_notes.into_iter().map(PlanNote::VmFilter) {
            if !notes.contains(&note) {
                notes.push(PlanNote::ForServers {
                    servers: windows.iter().map(|s| s.to_string()).collect(),
                    note: Box::new(note),
                });
            }
        }
    }
    let choose = |requirements: &Requirements| usize::from(from_windows_capture(requirements));
    let mut fleet = iofit_fleet::plan_fleet_per_server(
        &servers,
        &[any, x64],
        &choose,
        &options,
        request.threads.max(1),
        done,
    );
    notes.extend(disk_conditions(&fleet));
    fleet.notes = notes;
    Ok(fleet)
}

/// The conditions Azure sets for the provisioned disk kinds the fleet's designs use (as
/// `iofit plan` says them for one server).
fn disk_conditions(fleet: &FleetPlan) -> Vec<PlanNote> {
    let uses = |sku: &str| {
        fleet
            .rows
            .iter()
            .any(|r| r.disks.iter().any(|d| d.disk_sku.eq_ignore_ascii_case(sku)))
    };
    let mut notes = Vec::new();
    if uses("PremiumV2") {
        notes.push(PlanNote::PremiumV2Conditions);
    }
    if uses("Ultra") {
        notes.push(PlanNote::UltraConditions);
    }
    notes
}

/// Where `plan --fleet` writes its table besides stdout (`--fleet-csv`, `--fleet-html`).
#[derive(Clone, Debug, Default)]
pub struct FleetOutputs {
    pub csv: Option<PathBuf>,
    pub html: Option<PathBuf>,
    /// `--allow-overwrite`: they may replace files iofit did not write.
    pub allow_overwrite: bool,
}

/// How many requirements files (servers) `dir` holds: the length of a progress bar.
fn servers_in(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(std::result::Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
            .count()
    })
}

/// [`plan_fleet`], its outputs checked before any work (writable files, not the directory
/// read) and written whole after; `start` is told how many servers the directory holds.
pub fn plan_fleet_to(
    request: &FleetPlanRequest,
    outputs: &FleetOutputs,
    start: &dyn Fn(usize),
    done: &(dyn Fn() + Sync),
) -> Result<FleetPlan> {
    let checked = [
        (&outputs.csv, "--fleet-csv"),
        (&outputs.html, "--fleet-html"),
    ];
    for (path, flag) in checked {
        if let Some(path) = path {
            let inputs = [request.dir.clone()];
            iofit_safefs::guard::check_output_allowing(
                path,
                &inputs,
                flag,
                outputs.allow_overwrite,
            )?;
        }
    }
    start(servers_in(&request.dir));
    let fleet = plan_fleet(request, done)?;
    if let Some(path) = &outputs.csv {
        let csv = iofit_report::fleet_table::render_csv(&fleet);
        iofit_safefs::atomic::write_atomic(path, csv.as_bytes())?;
    }
    if let Some(path) = &outputs.html {
        let title = format!("iofit fleet plan: {}", request.dir.display());
        let html = iofit_report::fleet_table::render_html(&fleet, &title);
        iofit_safefs::atomic::write_atomic(path, html.as_bytes())?;
    }
    Ok(fleet)
}
