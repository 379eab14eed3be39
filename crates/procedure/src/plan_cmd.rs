//! `iofit plan`'s decisions apart from clap: its number flags, the flags that apply to one
//! cloud only, the plan on whichever cloud `--cloud` names (Azure's [`crate::plan::plan`] or
//! [`crate::plan_clouds::plan_clouds`]) and the fleet request the same flags describe.

use crate::fleet_plan::FleetPlanRequest;
use crate::plan::{self, report_format, PlanOutcome, PlanRequest, ReportRequest};
use crate::plan_clouds::{
    check_azure_only, plan_clouds, CloudChoice, CloudsJson, CloudsPlanOutcome,
};
use crate::ProcedureError;
use iofit_catalog::clouds::Cloud;
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProcedureError>;

/// A number flag (`--iops 5000`): clap's "invalid float literal" does not say what to write.
pub fn plain_number(text: &str) -> Result<f64> {
    text.trim().parse::<f64>().map_err(|_| {
        ProcedureError::bad_input(format!(
            "write a plain number such as 5000 (no unit or suffix like k: '{text}' is not one)"
        ))
    })
}

/// `--report FILE`, `--report-format` and `--allow-overwrite` as given (`plan`, `predict`).
#[derive(Clone, Debug, Default)]
pub struct ReportFlags {
    pub path: Option<PathBuf>,
    pub format: Option<String>,
    pub allow_overwrite: bool,
}

impl ReportFlags {
    /// The report asked for, its format checked ([`report_format`]); `None` when none was.
    pub fn request(&self) -> Result<Option<ReportRequest>> {
        let format = report_format(self.format.as_deref(), self.path.as_deref())?;
        Ok(self
            .path
            .clone()
            .zip(format)
            .map(|(path, format)| ReportRequest {
                path,
                format,
                allow_overwrite: self.allow_overwrite,
            }))
    }
}

/// Refuses, before anything is read, the flags that do not apply to the cloud `choice` names:
/// `--burst-tolerant` (AWS's) with Azure, `--fleet` and `--report` (Azure's) with the others.
pub fn check_cloud_flags(
    choice: CloudChoice,
    burst_tolerant: bool,
    fleet: bool,
    report: bool,
) -> Result<()> {
    match choice {
        CloudChoice::One(Cloud::Azure) if burst_tolerant => Err(ProcedureError::bad_input(
            "--burst-tolerant is AWS's instance burst window; use it with --cloud aws or --cloud all",
        )),
        CloudChoice::One(Cloud::Azure) => Ok(()),
        _ => check_azure_only(fleet, report),
    }
}

/// A plan on the cloud(s) `--cloud` names.
#[derive(Clone, Debug)]
pub enum AnyPlanOutcome {
    Azure(Box<PlanOutcome>),
    Clouds(CloudsPlanOutcome),
}

/// `--json`'s document: each plan's own.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum AnyPlanJson<'a> {
    Azure(serde_json::Value),
    Clouds(CloudsJson<'a>),
}

impl AnyPlanOutcome {
    /// Whether any design meets the requirements (exit 0), or none (exit 1).
    pub fn found(&self) -> bool {
        match self {
            AnyPlanOutcome::Azure(outcome) => outcome.found(),
            AnyPlanOutcome::Clouds(outcome) => outcome.found(),
        }
    }

    /// What `--json` prints.
    pub fn json(&self) -> AnyPlanJson<'_> {
        match self {
            AnyPlanOutcome::Azure(outcome) => AnyPlanJson::Azure(outcome.json()),
            AnyPlanOutcome::Clouds(outcome) => AnyPlanJson::Clouds(outcome.json()),
        }
    }

    /// What the command prints.
    pub fn text(&self) -> String {
        match self {
            AnyPlanOutcome::Azure(outcome) => outcome.text(),
            AnyPlanOutcome::Clouds(outcome) => outcome.text(),
        }
    }
}

/// Plans `request` on the cloud(s) `choice` names.
pub fn plan_on(
    choice: CloudChoice,
    request: &PlanRequest,
    burst_tolerant: bool,
) -> Result<AnyPlanOutcome> {
    match choice {
        CloudChoice::One(Cloud::Azure) => Ok(AnyPlanOutcome::Azure(Box::new(plan::plan(request)?))),
        choice => Ok(AnyPlanOutcome::Clouds(plan_clouds(
            choice,
            request,
            burst_tolerant,
        )?)),
    }
}

/// `plan --fleet DIR`: every server of `dir` planned with `request`'s sizing and catalog
/// flags (its requirements are each server's own), `threads` at once.
pub fn fleet_request(dir: PathBuf, request: &PlanRequest, threads: usize) -> FleetPlanRequest {
    FleetPlanRequest {
        dir,
        catalog: request.catalog.clone(),
        caching: request.caching.clone(),
        cache_hit_pct: request.cache_hit_pct,
        service_latency_ms: request.service_latency_ms,
        min_headroom_pct: request.min_headroom_pct,
        busy_hours_per_month: request.busy_hours_per_month,
        threads,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{CatalogChoice, RequirementsSource, VolumeFlags};

    fn request(iops: f64) -> PlanRequest {
        PlanRequest {
            requirements: RequirementsSource::Flags(VolumeFlags {
                iops: Some(iofit_model::units::Iops(iops)),
                throughput_mb_s: None,
                latency_ms: None,
                capacity_gib: Some(iofit_model::units::GiB(100.0)),
                read_pct: 50.0,
                random_pct: 100.0,
                io_size: "8k".into(),
                role: "data".into(),
            }),
            growth: None,
            top: 3,
            caching: Some("none".into()),
            cache_hit_pct: 0.0,
            service_latency_ms: None,
            min_headroom_pct: 10.0,
            busy_hours_per_month: 730.0,
            catalog: CatalogChoice {
                edition: "current".into(),
                files: Vec::new(),
                region: None,
                pricing: None,
                os: None,
                filters: Default::default(),
            },
            report: None,
            capture: Vec::new(),
        }
    }

    #[test]
    fn a_number_flag_names_what_to_write() {
        assert_eq!(plain_number(" 5000 ").unwrap(), 5000.0);
        let error = plain_number("5k").unwrap_err();
        assert!(error.is_bad_input());
        assert_eq!(
            error.to_string(),
            "write a plain number such as 5000 (no unit or suffix like k: '5k' is not one)"
        );
    }

    #[test]
    fn report_flags_give_the_report_with_its_format_or_none() {
        let none = ReportFlags::default();
        assert!(none.request().unwrap().is_none());
        let markdown = ReportFlags {
            path: Some(PathBuf::from("r.md")),
            format: Some("MD".into()),
            allow_overwrite: true,
        };
        let report = markdown.request().unwrap().expect("a report");
        assert_eq!(report.path, PathBuf::from("r.md"));
        assert_eq!(report.format, iofit_report::ReportFormat::Markdown);
        assert!(report.allow_overwrite);
        let without_file = ReportFlags {
            format: Some("markdown".into()),
            ..ReportFlags::default()
        };
        assert!(without_file.request().unwrap_err().is_bad_input());
    }

    #[test]
    fn one_cloud_flags_are_refused_on_the_other_clouds() {
        let azure = CloudChoice::One(Cloud::Azure);
        let aws = CloudChoice::One(Cloud::Aws);
        let error = check_cloud_flags(azure, true, false, false).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().starts_with("--burst-tolerant"));
        assert!(check_cloud_flags(azure, false, true, true).is_ok());
        assert!(check_cloud_flags(aws, true, false, false).is_ok());
        assert!(check_cloud_flags(CloudChoice::All, false, true, false).is_err());
        assert!(check_cloud_flags(aws, false, false, true).is_err());
    }

    #[test]
    fn azure_and_aws_plans_answer_through_one_outcome() {
        let azure = plan_on(CloudChoice::One(Cloud::Azure), &request(5_000.0), false).unwrap();
        assert!(matches!(azure, AnyPlanOutcome::Azure(_)) && azure.found());
        let json = serde_json::to_value(azure.json()).unwrap();
        assert_eq!(json["edition"], "current");
        assert!(azure.text().contains("Standard_"), "{}", azure.text());
        let aws = plan_on(CloudChoice::One(Cloud::Aws), &request(5_000.0), false).unwrap();
        assert!(matches!(
            aws,
            AnyPlanOutcome::Clouds(CloudsPlanOutcome::Aws(_))
        ));
        assert!(aws.found());
        // Far beyond any single VM: nothing found, exit 1.
        let none = plan_on(CloudChoice::One(Cloud::Azure), &request(1e9), false).unwrap();
        assert!(!none.found());
    }

    #[test]
    fn the_fleet_request_carries_the_plans_sizing_and_catalog_flags() {
        let plan = request(5_000.0);
        let fleet = fleet_request(PathBuf::from("fleet"), &plan, 4);
        assert_eq!(fleet.dir, PathBuf::from("fleet"));
        assert_eq!(fleet.caching.as_deref(), Some("none"));
        assert_eq!(
            (
                fleet.min_headroom_pct,
                fleet.busy_hours_per_month,
                fleet.threads
            ),
            (10.0, 730.0, 4)
        );
        assert_eq!(fleet.catalog.edition, "current");
    }
}
