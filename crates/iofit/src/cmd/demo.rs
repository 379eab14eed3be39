//! `iofit demo`: the method's loop on embedded defaults, one step after another. The example
//! application is the seed's SQL Server: a data volume (read-heavy random 8 KiB) and a log
//! volume (sequential writes). Each step is its own function taking what the earlier steps
//! produced, so later steps (a real run, compare) slot in after `step_predict`.

use super::plan::{assumptions_for, emit, load_catalog, parse_requirements, rows_for, tables_of};
use crate::exit::bad_input;
use iofit_catalog::{Catalog, EDITION_CURRENT};
use iofit_model::Requirements;
use iofit_planner::{Plan, PlanOptions, EXAMPLE_REQUIREMENTS};
use iofit_predict::Prediction;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Catalog edition: current (default) or seed-2016.
    #[arg(long, default_value = EDITION_CURRENT)]
    pub edition: String,
    /// Extra catalog file(s) that add or override rows.
    #[arg(long = "catalog", value_name = "FILE")]
    pub catalog: Vec<PathBuf>,
    /// How many designs the plan step shows.
    #[arg(long, default_value_t = 3)]
    pub top: usize,
    /// Print only JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Everything the demo found, step by step (also its `--json` form).
#[derive(Debug, Serialize)]
pub struct DemoReport {
    pub edition: String,
    pub requirements: Requirements,
    pub plan: Plan,
    /// The top design under a warm cache (the plan sized it for a cold one).
    pub prediction: Option<Prediction>,
}

/// Step 1: the example application's requirements (the same file
/// `iofit plan --example-requirements` prints).
pub fn step_requirements() -> anyhow::Result<Requirements> {
    parse_requirements("embedded example requirements", EXAMPLE_REQUIREMENTS)
}

/// Step 2: plan designs for them from the catalog.
pub fn step_plan(
    requirements: &Requirements,
    catalog: &Catalog,
    edition: &str,
    top: usize,
) -> anyhow::Result<Plan> {
    let options = PlanOptions {
        top: top.max(1),
        assumptions: assumptions_for(edition, None, 0.0)?,
        ..PlanOptions::default()
    };
    iofit_planner::plan(requirements, &rows_for(catalog, edition), &options).map_err(bad_input)
}

/// Step 3: predict the top design with a warm host cache: what it delivers and what binds.
pub fn step_predict(
    requirements: &Requirements,
    plan: &Plan,
    catalog: &Catalog,
    edition: &str,
) -> anyhow::Result<Option<Prediction>> {
    let Some(best) = plan.designs.first() else {
        return Ok(None);
    };
    let vm = catalog.vm(&best.vm, edition).map_err(bad_input)?;
    let loads = best.volume_loads(requirements);
    let assumptions = assumptions_for(edition, None, 100.0)?;
    let prediction = iofit_predict::predict(vm, &loads, &assumptions, None).map_err(bad_input)?;
    Ok(Some(prediction))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let catalog = load_catalog(&args.edition, &args.catalog)?;
    let requirements = step_requirements()?;
    let plan = step_plan(&requirements, &catalog, &args.edition, args.top)?;
    let prediction = step_predict(&requirements, &plan, &catalog, &args.edition)?;
    let report = DemoReport {
        edition: args.edition.clone(),
        requirements,
        plan,
        prediction,
    };
    if args.json {
        emit(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
        return Ok(ExitCode::SUCCESS);
    }
    let tables = tables_of(&catalog, &args.edition);
    let mut text =
        String::from("iofit demo: the method's loop on the seed's SQL Server example\n\n");
    text.push_str("== step 1: requirements (iofit plan --example-requirements prints them) ==\n");
    text.push_str(&iofit_report::plan_text::render_requirements(
        &report.requirements,
    ));
    text.push_str("\n== step 2: plan (cheapest designs that meet every requirement) ==\n");
    text.push_str(&iofit_report::plan_text::render(
        &report.plan,
        &args.edition,
        &tables,
    ));
    text.push_str("\n== step 3: prediction for design #1 with a warm host cache ==\n");
    match &report.prediction {
        Some(prediction) => text.push_str(&iofit_report::predict_text::render(prediction)),
        None => text.push_str("no design to predict\n"),
    }
    emit(&text)?;
    Ok(ExitCode::SUCCESS)
}
