//! `iofit plan --cloud aws|gcp|all` apart from the command line: the same requirements planned
//! on other clouds, each with its own catalog, limits and prices (Google Cloud's text is in
//! [`crate::clouds_gcp`]); `all` sets the cheapest design of each side by side with its binding limit, headroom and price basis. The binary
//! builds the [`PlanRequest`] (as for Azure's plan), calls [`plan_clouds`] and prints
//! [`CloudsPlanOutcome::text`] or [`CloudsPlanOutcome::json`].

use crate::plan::{self as azure, PlanOutcome, PlanRequest, RequirementsSource};
use crate::ProcedureError;
use iofit_catalog::clouds::aws::AwsCatalog;
use iofit_catalog::clouds::Cloud;
use iofit_model::Requirements;
use iofit_planner::clouds::{plan_aws, AwsDesign, AwsPlan, AwsPlanOptions};
use iofit_planner::clouds_gcp::{plan_gcp, GcpPlan, GcpPlanOptions};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// The largest AWS catalog input read (describe-instance-types for every type is a few MB).
pub const AWS_INPUT_BYTES: u64 = 512 << 20;

/// What `--cloud` asks for: one cloud or all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloudChoice {
    One(Cloud),
    All,
}

impl std::str::FromStr for CloudChoice {
    type Err = iofit_catalog::UnknownChoice;
    fn from_str(text: &str) -> std::result::Result<Self, Self::Err> {
        if text.trim().eq_ignore_ascii_case("all") {
            return Ok(CloudChoice::All);
        }
        text.parse::<Cloud>().map(CloudChoice::One)
    }
}

/// An AWS region name as AWS writes it (`us-east-1`, `eu-central-1`, `ap-northeast-1`).
pub fn check_aws_region(region: &str) -> Result<()> {
    let parts: Vec<&str> = region.split('-').collect();
    let shaped = parts.len() >= 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
        && parts
            .last()
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if shaped {
        Ok(())
    } else {
        Err(bad(format!(
            "--region '{region}': write AWS's region code, e.g. us-east-1, eu-central-1, ap-northeast-1"
        )))
    }
}

/// An AWS catalog input file's text, read within [`AWS_INPUT_BYTES`].
pub fn read_aws_input(path: &Path) -> Result<String> {
    Ok(iofit_safefs::input::read_capped_string(
        path,
        AWS_INPUT_BYTES,
        "AWS catalog input",
    )?)
}

/// The built-in AWS tables plus `files` (AWS-shaped catalog files).
pub fn aws_catalog(files: &[PathBuf]) -> Result<AwsCatalog> {
    let mut catalog = AwsCatalog::embedded().map_err(|e| bad(e.to_string()))?;
    for file in files {
        let text = read_aws_input(file)?;
        catalog
            .add_text(&file.display().to_string(), &text)
            .map_err(|e| bad(e.to_string()))?;
    }
    Ok(catalog)
}

/// `--fleet` and `--report` plan Azure only: refused before any other flag is read.
pub fn check_azure_only(fleet: bool, report: bool) -> Result<()> {
    if fleet || report {
        return Err(bad(
            "--fleet and --report plan Azure only for now; leave them out with --cloud aws|gcp|all",
        ));
    }
    Ok(())
}

/// `--json`'s document: AWS's plan as its fields stand (a `Value` would sort its keys), or the
/// side-by-side one.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum CloudsJson<'a> {
    Aws(&'a AwsPlan),
    Gcp(&'a GcpPlan),
    All(serde_json::Value),
}

/// A plan on the clouds `--cloud` names (Azure alone is [`azure::plan`]'s).
#[derive(Clone, Debug)]
pub enum CloudsPlanOutcome {
    Gcp(GcpPlan),
    Aws(AwsPlan),
    /// The cheapest design of each cloud side by side.
    All {
        azure: Box<PlanOutcome>,
        aws: AwsPlan,
        gcp: GcpPlan,
    },
}

impl CloudsPlanOutcome {
    /// Whether any design meets the requirements (exit 0), or none (exit 1).
    pub fn found(&self) -> bool {
        match self {
            CloudsPlanOutcome::Gcp(plan) => !plan.designs.is_empty(),
            CloudsPlanOutcome::Aws(plan) => !plan.designs.is_empty(),
            CloudsPlanOutcome::All { azure, aws, gcp } => {
                azure.found() || !aws.designs.is_empty() || !gcp.designs.is_empty()
            }
        }
    }

    /// What `--json` prints.
    pub fn json(&self) -> CloudsJson<'_> {
        match self {
            CloudsPlanOutcome::Gcp(plan) => CloudsJson::Gcp(plan),
            CloudsPlanOutcome::Aws(plan) => CloudsJson::Aws(plan),
            CloudsPlanOutcome::All { azure, aws, gcp } => {
                CloudsJson::All(all_json(azure, aws, gcp))
            }
        }
    }

    /// What the command prints.
    pub fn text(&self) -> String {
        match self {
            CloudsPlanOutcome::Gcp(plan) => crate::clouds_gcp::plan_text(plan),
            CloudsPlanOutcome::Aws(plan) => aws_text(plan),
            CloudsPlanOutcome::All { azure, aws, gcp } => all_text(azure, aws, gcp),
        }
    }
}

/// The requirements the request describes, growth applied.
fn requirements(request: &PlanRequest) -> Result<Requirements> {
    let mut requirements = match &request.requirements {
        RequirementsSource::File(path) => azure::read_requirements_with_filters(path)?.0,
        RequirementsSource::Flags(flags) => azure::requirements_from_flags(flags)?,
    };
    azure::apply_growth(&mut requirements, request.growth)?;
    Ok(requirements)
}

fn check_headroom(headroom: f64) -> Result<()> {
    if !(headroom.is_finite() && (0.0..100.0).contains(&headroom)) {
        return Err(bad(format!(
            "--min-headroom-pct {headroom}: must be within 0..100"
        )));
    }
    Ok(())
}

/// `aws_region`: the region AWS prices come from (`--region` with `--cloud aws`; with `--cloud
/// all` the region is Azure's and AWS keeps its default). `--os` holds on every cloud.
fn aws_plan(
    request: &PlanRequest,
    burst_tolerant: bool,
    requirements: &Requirements,
    aws_region: Option<&str>,
) -> Result<AwsPlan> {
    let headroom = request.min_headroom_pct;
    check_headroom(headroom)?;
    let catalog = aws_catalog(&request.catalog.files)?;
    let mut options = AwsPlanOptions {
        top: request.top,
        min_headroom_pct: headroom,
        burst_tolerant,
        ..Default::default()
    };
    if let Some(region) = aws_region {
        check_aws_region(region)?;
        options.region = region.to_string();
    }
    if let Some(os) = &request.catalog.os {
        options.os = os.parse().map_err(|e| bad(format!("--os {os}: {e}")))?;
    }
    Ok(plan_aws(requirements, &catalog, &options))
}

/// Google Cloud's plan, in `region` (`--region` with `--cloud gcp`) or us-central1.
fn gcp_plan(
    request: &PlanRequest,
    requirements: &Requirements,
    region: Option<&str>,
) -> Result<GcpPlan> {
    let catalog = crate::clouds_gcp::gcp_catalog(&request.catalog.files)?;
    let mut options = GcpPlanOptions {
        top: request.top,
        min_headroom_pct: request.min_headroom_pct,
        ..Default::default()
    };
    if let Some(region) = region {
        options.region = region.trim().to_ascii_lowercase();
    }
    Ok(plan_gcp(requirements, &catalog, &options))
}

/// Plans `request` on the clouds `choice` names, each with its own catalog (`request`'s
/// `--catalog` files are that cloud's shape), or all side by side.
pub fn plan_clouds(
    choice: CloudChoice,
    request: &PlanRequest,
    burst_tolerant: bool,
) -> Result<CloudsPlanOutcome> {
    let requirements = requirements(request)?;
    match choice {
        CloudChoice::One(Cloud::Azure) => Err(bad("--cloud azure is planned by plan itself")),
        CloudChoice::One(Cloud::Gcp) => {
            if burst_tolerant {
                return Err(bad(
                    "--burst-tolerant is AWS's instance burst window; Google Cloud's Persistent Disks do not burst: leave it out with --cloud gcp",
                ));
            }
            check_headroom(request.min_headroom_pct)?;
            let region = request.catalog.region.as_deref();
            Ok(CloudsPlanOutcome::Gcp(gcp_plan(
                request,
                &requirements,
                region,
            )?))
        }
        CloudChoice::One(Cloud::Aws) => Ok(CloudsPlanOutcome::Aws(aws_plan(
            request,
            burst_tolerant,
            &requirements,
            request.catalog.region.as_deref(),
        )?)),
        CloudChoice::All => {
            if !request.catalog.files.is_empty() {
                return Err(bad(
                    "--catalog FILE is one cloud's file; with --cloud all leave it out (give it with --cloud azure, aws or gcp)",
                ));
            }
            let azure = azure::plan(request)?;
            let aws = aws_plan(request, burst_tolerant, &requirements, None)?;
            // `--region` names Azure's region here: Google Cloud is priced in us-central1.
            let gcp = gcp_plan(request, &requirements, None)?;
            Ok(CloudsPlanOutcome::All {
                azure: Box::new(azure),
                aws,
                gcp,
            })
        }
    }
}

fn money(usd: f64) -> String {
    format!("${usd:.2}")
}

fn aws_volume_line(volume: &iofit_planner::clouds::AwsPlannedVolume) -> String {
    let s = &volume.spec;
    let mut what = format!("{} x {}, {} GiB", s.count, s.volume_type, s.size_gib.get());
    if let Some(iops) = s.iops {
        what.push_str(&format!(", {:.0} IOPS", iops.get()));
    }
    if let Some(mib_s) = s.throughput_mib_s {
        what.push_str(&format!(", {:.0} MiB/s", mib_s.get()));
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
        design.memory_gib.get(),
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
        p.delivered_iops.get(),
        p.delivered_mb_s.get(),
        p.held_for,
        p.binding,
        p.headroom_pct
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
    text.push_str(&iofit_planner::warning_lines(&plan.requirement_warnings));
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

fn all_text(azure_outcome: &PlanOutcome, aws: &AwsPlan, gcp: &GcpPlan) -> String {
    let mut text = String::from(
        "Cheapest design on each cloud (the same requirements; each cloud's own limits and prices)\n\n",
    );
    text.push_str(&azure_block(azure_outcome));
    text.push('\n');
    text.push_str(&aws_block(aws));
    text.push('\n');
    text.push_str(&crate::clouds_gcp::plan_block(gcp));
    text.push_str("\nnotes:\n");
    for note in &aws.notes {
        text.push_str(&format!("  - AWS: {note}\n"));
    }
    for note in &gcp.notes {
        text.push_str(&format!("  - Google Cloud: {note}\n"));
    }
    text.push_str(
        "  - `plan --cloud azure`, `--cloud aws` and `--cloud gcp` list each cloud's ranked designs\n",
    );
    text
}

fn all_json(azure_outcome: &PlanOutcome, aws: &AwsPlan, gcp: &GcpPlan) -> serde_json::Value {
    serde_json::json!({
        "azure": azure_outcome.json(),
        "aws": aws,
        "gcp": gcp,
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
                    iops: iofit_model::Iops(2000.0),
                    throughput_mb_s: iofit_model::MBps(0.0),
                    latency_ms: None,
                    io_size_bytes: iofit_model::Bytes(8192),
                    read_pct: 70.0,
                    random_pct: 100.0,
                    capacity_gib: Some(iofit_model::units::GiB(256.0)),
                    queue_depth: None,
                },
                ..Default::default()
            }],
            ..Default::default()
        };
        let edition = iofit_catalog::EDITION_CURRENT;
        let rows = crate::inputs::rows_for(&catalog, edition);
        let options = iofit_planner::PlanOptions {
            top: 1,
            assumptions: crate::inputs::assumptions_for(edition, None, 0.0).unwrap(),
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

    /// A plan request for one volume of 8 KiB random reads, 4,000 IOPS, 500 GiB.
    fn request(top: usize) -> PlanRequest {
        PlanRequest {
            requirements: RequirementsSource::Flags(azure::VolumeFlags {
                iops: Some(iofit_model::units::Iops(4000.0)),
                throughput_mb_s: None,
                latency_ms: None,
                capacity_gib: Some(iofit_model::units::GiB(500.0)),
                read_pct: 70.0,
                random_pct: 100.0,
                io_size: "8k".into(),
                role: "data".into(),
            }),
            growth: None,
            top,
            caching: None,
            cache_hit_pct: 0.0,
            service_latency_ms: None,
            min_headroom_pct: 10.0,
            busy_hours_per_month: iofit_planner::HOURS_PER_MONTH,
            catalog: azure::CatalogChoice {
                edition: iofit_catalog::EDITION_CURRENT.into(),
                ..Default::default()
            },
            report: None,
            capture: Vec::new(),
        }
    }

    #[test]
    fn aws_designs_are_ranked_by_price_and_each_meets_the_requirements() {
        let outcome = plan_clouds(CloudChoice::One(Cloud::Aws), &request(3), false).unwrap();
        let CloudsPlanOutcome::Aws(plan) = &outcome else {
            panic!("{outcome:?}");
        };
        assert!(outcome.found());
        assert_eq!(plan.designs.len(), 3);
        assert!(plan
            .designs
            .windows(2)
            .all(|w| w[0].total_usd_month <= w[1].total_usd_month));
        assert!(plan.designs.iter().all(|d| d.prediction.meets));
        let text = outcome.text();
        assert!(
            text.starts_with("AWS: 3 design(s) meet the requirements"),
            "{text}"
        );
        let check = format!(
            "check: iofit predict --cloud aws --vm {} --disk ",
            plan.designs[0].instance
        );
        assert!(text.contains(&check), "{text}");
        // The JSON keeps the plan's own field order (`designs` first, as AwsPlan declares it).
        let json = serde_json::to_value(outcome.json()).unwrap();
        assert_eq!(json["designs"].as_array().unwrap().len(), 3);
    }

    #[test]
    fn google_cloud_designs_are_ranked_by_price_and_each_meets_the_requirements() {
        let outcome = plan_clouds(CloudChoice::One(Cloud::Gcp), &request(3), false).unwrap();
        let CloudsPlanOutcome::Gcp(plan) = &outcome else {
            panic!("{outcome:?}");
        };
        assert!(outcome.found());
        assert_eq!(plan.designs.len(), 3);
        assert!(plan
            .designs
            .windows(2)
            .all(|w| w[0].total_price_per_month <= w[1].total_price_per_month));
        assert!(plan.designs.iter().all(|d| d.prediction.meets));
        let text = outcome.text();
        assert!(
            text.starts_with("Google Cloud: 3 design(s) meet the requirements"),
            "{text}"
        );
        let check = format!(
            "check: iofit predict --cloud gcp --vm {} --disk data=",
            plan.designs[0].machine_type
        );
        assert!(text.contains(&check), "{text}");
        let json = serde_json::to_value(outcome.json()).unwrap();
        assert_eq!(json["designs"].as_array().unwrap().len(), 3);
        let mut tokyo = request(1);
        tokyo.catalog.region = Some("asia-northeast1".into());
        let outcome = plan_clouds(CloudChoice::One(Cloud::Gcp), &tokyo, false).unwrap();
        assert!(outcome
            .text()
            .contains("price basis: Google Cloud asia-northeast1"));
        let error = plan_clouds(CloudChoice::One(Cloud::Gcp), &request(3), true).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().starts_with("--burst-tolerant"));
    }

    #[test]
    fn all_sets_each_clouds_cheapest_design_side_by_side() {
        let outcome = plan_clouds(CloudChoice::All, &request(5), false).unwrap();
        let CloudsPlanOutcome::All { azure, aws, gcp } = &outcome else {
            panic!("{outcome:?}");
        };
        assert!(azure.found() && !aws.designs.is_empty() && !gcp.designs.is_empty());
        let text = outcome.text();
        let azure_at = text.find("Azure: ").unwrap();
        let aws_at = text
            .find(&format!("AWS: {} + ", aws.designs[0].instance))
            .unwrap();
        let gcp_at = text
            .find(&format!("Google Cloud: {} + ", gcp.designs[0].machine_type))
            .unwrap();
        assert!(azure_at < aws_at && aws_at < gcp_at, "{text}");
        assert_eq!(text.matches("binding: ").count(), 3, "{text}");
        assert_eq!(text.matches("price basis: ").count(), 3, "{text}");
        let json = serde_json::to_value(outcome.json()).unwrap();
        assert_eq!(
            json["gcp"]["designs"][0]["machine_type"],
            gcp.designs[0].machine_type.as_str()
        );
        assert_eq!(
            json["aws"]["designs"][0]["instance"],
            aws.designs[0].instance.as_str()
        );
    }

    #[test]
    fn bad_flags_are_bad_input_naming_the_flag() {
        let mut with_file = request(5);
        with_file.catalog.files = vec!["aws.toml".into()];
        let error = plan_clouds(CloudChoice::All, &with_file, false).unwrap_err();
        assert!(error.is_bad_input());
        assert!(error
            .to_string()
            .starts_with("--catalog FILE is one cloud's file"));
        let mut headroom = request(5);
        headroom.min_headroom_pct = 100.0;
        let error = plan_clouds(CloudChoice::One(Cloud::Aws), &headroom, false).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--min-headroom-pct 100: must be within 0..100"
        );
        let error = check_azure_only(false, true).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().contains("--report"));
        assert!(check_azure_only(false, false).is_ok());
        assert_eq!("ALL".parse::<CloudChoice>(), Ok(CloudChoice::All));
        assert_eq!(
            "aws".parse::<CloudChoice>(),
            Ok(CloudChoice::One(Cloud::Aws))
        );
    }
}
