//! `iofit plan --cloud aws|gcp|all`: the same requirements planned on other clouds, each with
//! its own catalog, limits and prices; `all` sets the cheapest design of each side by side
//! with its binding limit, headroom and price basis.

use super::plan::Args;
pub use super::shared::CloudChoice;
use super::{emit, exit_for};
use crate::exit::bad_input;
use iofit_catalog::clouds::Cloud;
use iofit_model::Requirements;
use iofit_planner::clouds::{plan_aws, AwsDesign, AwsPlan, AwsPlanOptions};
use iofit_procedure::plan::{self as azure, PlanOutcome};
use std::process::ExitCode;

/// Why Google Cloud has no design: said, not hidden.
const GCP_NOT_DONE: &str = "not planned: this build has no Google Cloud catalog yet (machine types' Persistent Disk and Hyperdisk limits, disk rules and us-central1 prices are not sourced)";

/// The requirements the flags or file describe, growth applied.
fn requirements(args: &Args) -> anyhow::Result<Requirements> {
    let request = super::plan::request(args)?;
    let mut requirements = match &request.requirements {
        azure::RequirementsSource::File(path) => azure::read_requirements_with_filters(path)?.0,
        azure::RequirementsSource::Flags(flags) => azure::requirements_from_flags(flags)?,
    };
    azure::apply_growth(&mut requirements, request.growth)?;
    Ok(requirements)
}

fn aws_plan(args: &Args, requirements: &Requirements) -> anyhow::Result<AwsPlan> {
    if !(args.min_headroom_pct.is_finite() && (0.0..100.0).contains(&args.min_headroom_pct)) {
        return Err(bad_input(format!(
            "--min-headroom-pct {}: must be within 0..100",
            args.min_headroom_pct
        )));
    }
    let catalog = super::catalog_aws::aws_catalog(&args.catalog.files)?;
    let options = AwsPlanOptions {
        top: args.top,
        min_headroom_pct: args.min_headroom_pct,
        burst_tolerant: args.burst_tolerant,
        ..Default::default()
    };
    Ok(plan_aws(requirements, &catalog, &options))
}

/// Runs `plan` for `--cloud aws|gcp|all`.
/// `iofit plan`: Azure's plan (the default), or the clouds `--cloud` names.
pub fn dispatch(args: Args) -> anyhow::Result<ExitCode> {
    match args.cloud {
        CloudChoice::One(Cloud::Azure) => super::plan::run(args),
        choice => run(&args, choice),
    }
}

pub fn run(args: &Args, choice: CloudChoice) -> anyhow::Result<ExitCode> {
    if args.fleet.is_some() || args.output.report.is_some() {
        return Err(bad_input(
            "--fleet and --report plan Azure only for now; leave them out with --cloud aws|gcp|all",
        ));
    }
    let requirements = requirements(args)?;
    match choice {
        CloudChoice::One(Cloud::Azure) => unreachable_azure(),
        CloudChoice::One(Cloud::Gcp) => {
            emit(&format!("Google Cloud: {GCP_NOT_DONE}\n"))?;
            Ok(exit_for(false))
        }
        CloudChoice::One(Cloud::Aws) => {
            let plan = aws_plan(args, &requirements)?;
            super::print_json_or_text(args.output.json, || &plan, || aws_text(&plan))?;
            Ok(exit_for(!plan.designs.is_empty()))
        }
        CloudChoice::All => {
            if !args.catalog.files.is_empty() {
                return Err(bad_input(
                    "--catalog FILE is one cloud's file; with --cloud all leave it out (give it with --cloud azure or --cloud aws)",
                ));
            }
            let azure_outcome = azure::plan(&super::plan::request(args)?)?;
            let aws = aws_plan(args, &requirements)?;
            let found = azure_outcome.found() || !aws.designs.is_empty();
            super::print_json_or_text(
                args.output.json,
                || all_json(&azure_outcome, &aws),
                || all_text(&azure_outcome, &aws),
            )?;
            Ok(exit_for(found))
        }
    }
}

/// Azure goes through `plan`'s own path; this module is never asked for it.
fn unreachable_azure() -> anyhow::Result<ExitCode> {
    Err(bad_input("--cloud azure is planned by plan itself"))
}

fn money(usd: f64) -> String {
    format!("${usd:.2}")
}

fn aws_volume_line(volume: &iofit_planner::clouds::AwsPlannedVolume) -> String {
    let s = &volume.spec;
    let mut what = format!("{} x {}, {} GiB", s.count, s.volume_type, s.size_gib);
    if let Some(iops) = s.iops {
        what.push_str(&format!(", {iops:.0} IOPS"));
    }
    if let Some(mib_s) = s.throughput_mib_s {
        what.push_str(&format!(", {mib_s:.0} MiB/s"));
    }
    if s.count > 1 {
        what.push_str(" each");
    }
    let c = &volume.cost;
    format!(
        "{}: {what}  {}/month (storage {}, IOPS {}, throughput {})",
        s.label,
        money(c.total_usd_month),
        money(c.storage_usd_month),
        money(c.iops_usd_month),
        money(c.throughput_usd_month)
    )
}

fn aws_design_text(design: &AwsDesign) -> String {
    let mut text = format!(
        "#{}  {} ({} vCPU, {} GiB)  {}/month = instance {}{} + volumes {}\n",
        design.rank,
        design.instance,
        design.vcpu,
        design.memory_gib,
        money(design.total_usd_month),
        money(design.instance_usd_month),
        if design.instance_price_derived {
            " (derived)"
        } else {
            ""
        },
        money(design.volumes_usd_month),
    );
    for volume in &design.volumes {
        text.push_str(&format!("    {}\n", aws_volume_line(volume)));
    }
    let p = &design.prediction;
    text.push_str(&format!(
        "    delivers {:.0} IOPS, {:.1} MB/s, {}; binding: {} (headroom {:.1}%)\n",
        p.delivered_iops, p.delivered_mb_s, p.held_for, p.binding, p.headroom_pct
    ));
    let disks: Vec<String> = design
        .volumes
        .iter()
        .map(|v| format!("--disk {}", v.disk_arg))
        .collect();
    let window = if design.state == iofit_predict::aws::AwsState::Burst {
        " --burst-tolerant"
    } else {
        ""
    };
    text.push_str(&format!(
        "    check: iofit predict --cloud aws{window} --vm {} {}\n",
        design.instance,
        disks.join(" ")
    ));
    text.push_str(&format!("    price basis: {}\n", design.price_basis));
    text
}

fn aws_text(plan: &AwsPlan) -> String {
    let mut text = format!(
        "AWS: {} design(s) meet the requirements ({} instance types in the catalog)\n\n",
        plan.designs.len(),
        plan.instances_considered
    );
    for design in &plan.designs {
        text.push_str(&aws_design_text(design));
        text.push('\n');
    }
    if plan.designs.is_empty() {
        text.push_str("no AWS design meets the requirements\n\n");
    }
    text.push_str("notes:\n");
    for note in &plan.notes {
        text.push_str(&format!("  - {note}\n"));
    }
    text
}

/// Azure's cheapest design in one block: VM + disks, cost split, binding limit and headroom.
fn azure_block(outcome: &PlanOutcome) -> String {
    let Some(design) = outcome.plan.designs.first() else {
        return "Azure: no design meets the requirements\n".into();
    };
    let volumes: Vec<String> = design
        .volumes
        .iter()
        .map(|v| {
            format!(
                "{} {} x {} ({:?})",
                v.label, v.disk_count, v.disk_sku, v.caching
            )
        })
        .collect();
    let (binding, headroom) = match &design.prediction.binding {
        Some(b) if b.limit > 0.0 => (b.words.clone(), (b.limit - b.used) / b.limit * 100.0),
        Some(b) => (b.words.clone(), 0.0),
        None => ("none found".to_string(), f64::NAN),
    };
    // The Azure catalog may be priced in another currency (catalog fetch --currency): name it.
    let currency = outcome.plan.currency.as_str();
    let opt = |v: Option<f64>| {
        v.map(|amount| iofit_report::plan_text::money_in(Some(amount), currency))
            .unwrap_or_else(|| "not sourced".into())
    };
    let basis = outcome
        .tables
        .iter()
        .find(|t| t.id == design.vm_table)
        .and_then(|t| t.price_basis.clone())
        .unwrap_or_else(|| "the VM table's prices".into());
    format!(
        "Azure: {} + {}\n  {}/month = VM {} + disks {}\n  binding: {binding}; headroom {headroom:.1}%\n  price basis: {basis}\n",
        design.vm,
        volumes.join(", "),
        opt(design.total_usd_month),
        opt(design.vm_price_usd_month),
        opt(design.disks_price_usd_month),
    )
}

fn aws_block(plan: &AwsPlan) -> String {
    let Some(design) = plan.designs.first() else {
        return "AWS: no design meets the requirements\n".into();
    };
    let volumes: Vec<String> = design
        .volumes
        .iter()
        .map(|v| format!("{} {} x {}", v.spec.label, v.spec.count, v.spec.volume_type))
        .collect();
    let mut text = format!(
        "AWS: {} + {}\n  {}/month = instance {}{} + volumes {}\n",
        design.instance,
        volumes.join(", "),
        money(design.total_usd_month),
        money(design.instance_usd_month),
        if design.instance_price_derived {
            " (derived)"
        } else {
            ""
        },
        money(design.volumes_usd_month),
    );
    for volume in &design.volumes {
        text.push_str(&format!("    {}\n", aws_volume_line(volume)));
    }
    text.push_str(&format!(
        "  binding: {} ({}); headroom {:.1}%\n  price basis: {}\n",
        design.prediction.binding,
        design.prediction.held_for,
        design.prediction.headroom_pct,
        design.price_basis
    ));
    text
}

fn all_text(azure_outcome: &PlanOutcome, aws: &AwsPlan) -> String {
    let mut text = String::from(
        "Cheapest design on each cloud (the same requirements; each cloud's own limits and prices)\n\n",
    );
    text.push_str(&azure_block(azure_outcome));
    text.push('\n');
    text.push_str(&aws_block(aws));
    text.push('\n');
    text.push_str(&format!("Google Cloud: {GCP_NOT_DONE}\n"));
    text.push_str("\nnotes:\n");
    for note in &aws.notes {
        text.push_str(&format!("  - AWS: {note}\n"));
    }
    text.push_str(
        "  - `plan --cloud azure` and `plan --cloud aws` list every cloud's ranked designs\n",
    );
    text
}

fn all_json(azure_outcome: &PlanOutcome, aws: &AwsPlan) -> serde_json::Value {
    serde_json::json!({
        "azure": azure_outcome.json(),
        "aws": aws,
        "gcp": { "planned": false, "reason": GCP_NOT_DONE },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Azure block names the plan's currency: a plan priced in euros never shows "$".
    #[test]
    fn the_azure_block_names_the_plans_currency() {
        use iofit_model::{SizingTarget, VolumeRequirements};
        let catalog = iofit_catalog::Catalog::embedded().unwrap();
        let requirements = Requirements {
            source: "test".into(),
            growth_factor: 1.0,
            volumes: vec![VolumeRequirements {
                label: "data".into(),
                sizing: SizingTarget {
                    iops: 2000.0,
                    throughput_mb_s: 0.0,
                    latency_ms: None,
                    io_size_bytes: 8192,
                    read_pct: 70.0,
                    random_pct: 100.0,
                    capacity_gib: Some(256.0),
                    queue_depth: None,
                },
                ..Default::default()
            }],
            ..Default::default()
        };
        let edition = iofit_catalog::EDITION_CURRENT;
        let rows = iofit_procedure::inputs::rows_for(&catalog, edition);
        let options = iofit_planner::PlanOptions {
            top: 1,
            assumptions: iofit_procedure::inputs::assumptions_for(edition, None, 0.0).unwrap(),
            ..Default::default()
        };
        let plan = iofit_planner::plan(&requirements, &rows, &options).unwrap();
        assert!(!plan.designs.is_empty());
        let mut outcome = PlanOutcome {
            edition: edition.into(),
            tables: Vec::new(),
            requirements,
            options,
            plan,
        };
        let dollars = azure_block(&outcome);
        assert!(dollars.contains("/month = VM $"), "{dollars}");
        // The same amounts read as euros (as a catalog fetched with --currency EUR holds them).
        outcome.plan.currency = "EUR".into();
        let euros = azure_block(&outcome);
        assert!(
            euros.contains("EUR ") && euros.contains("= VM EUR "),
            "{euros}"
        );
        assert!(!euros.contains('$'), "{euros}");
    }
}
