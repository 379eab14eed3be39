//! `iofit predict` on whichever cloud `--cloud` names: Azure's prediction
//! ([`crate::predict::predict`]) or AWS's and Google Cloud's
//! ([`crate::predict_clouds::predict_on`]), from the one request the flags describe.

use crate::plan_cmd::ReportFlags;
use crate::predict::{self, PredictOutcome, PredictRequest};
use crate::predict_clouds::{predict_cloud, predict_on, AwsPredictRequest, CloudPredictOutcome};
use crate::ProcedureError;
use iofit_catalog::clouds::Cloud;

/// A prediction on the cloud `--cloud` names.
#[derive(Clone, Debug)]
pub enum AnyPredictOutcome {
    Azure(Box<PredictOutcome>),
    Cloud(Box<CloudPredictOutcome>),
}

impl AnyPredictOutcome {
    /// Exit 0 when the design fits (and meets the requirements, if given); an impossible
    /// design (too many disks for the VM, premium disks on a standard VM) fails like a missed
    /// requirement, whatever it would deliver.
    pub fn passes(&self) -> bool {
        match self {
            AnyPredictOutcome::Azure(outcome) => outcome.fits(),
            AnyPredictOutcome::Cloud(outcome) => outcome.passes(),
        }
    }

    /// What `--json` prints.
    pub fn json(&self) -> serde_json::Value {
        match self {
            AnyPredictOutcome::Azure(outcome) => outcome.json(),
            AnyPredictOutcome::Cloud(outcome) => outcome.json(),
        }
    }

    /// What the command prints.
    pub fn text(&self) -> String {
        match self {
            AnyPredictOutcome::Azure(outcome) => outcome.text(),
            AnyPredictOutcome::Cloud(outcome) => outcome.text(),
        }
    }
}

/// `predict`'s flags besides the design and the workload.
#[derive(Clone, Debug, Default)]
pub struct PredictFlags {
    /// `--cloud` as written [default: azure].
    pub cloud: String,
    /// `--no-burst`: the sustained limits only.
    pub no_burst: bool,
    /// `--burst-tolerant`: AWS's instance burst window may carry the peak.
    pub burst_tolerant: bool,
    /// `--report` (Azure only; read only there).
    pub report: ReportFlags,
}

/// Predicts `request` on the cloud `flags` name. Azure's flags that the other clouds do not
/// take (`--job`, `--stripe`) are refused there; the report is Azure's.
pub fn predict_any(
    mut request: PredictRequest,
    flags: &PredictFlags,
) -> Result<AnyPredictOutcome, ProcedureError> {
    if predict_cloud(&flags.cloud, flags.burst_tolerant)? == Cloud::Azure {
        request.report = flags.report.request()?;
        let mut outcome = predict::predict(&request)?;
        if flags.no_burst {
            outcome.prediction.burst = None;
        }
        return Ok(AnyPredictOutcome::Azure(Box::new(outcome)));
    }
    let outcome = predict_on(&AwsPredictRequest {
        cloud: flags.cloud.parse().ok(),
        azure_only_flags: request.job.is_some() || !request.stripe.is_empty(),
        vm: request.vm,
        disks: request.disks,
        bs: request.bs,
        rw: request.rw,
        rwmixread: request.rwmixread,
        requirements: request.requirements,
        no_burst: flags.no_burst,
        burst_tolerant: flags.burst_tolerant,
        catalog_files: request.catalog.files,
    })?;
    Ok(AnyPredictOutcome::Cloud(Box::new(outcome)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::CatalogChoice;
    use crate::predict::Provisioned;

    fn request(vm: &str, disks: &[&str]) -> PredictRequest {
        PredictRequest {
            vm: vm.into(),
            disks: disks.iter().map(|d| d.to_string()).collect(),
            stripe: Vec::new(),
            rw: vec!["randread".into()],
            rwmixread: 50.0,
            bs: vec!["8k".into()],
            iodepth: None,
            numjobs: None,
            requirements: None,
            job: None,
            service_latency_ms: None,
            cache_hit_pct: 100.0,
            provisioned: Provisioned::default(),
            catalog: CatalogChoice {
                edition: "current".into(),
                files: Vec::new(),
                region: None,
                pricing: None,
                os: None,
                filters: Default::default(),
            },
            report: None,
        }
    }

    fn flags(cloud: &str) -> PredictFlags {
        PredictFlags {
            cloud: cloud.into(),
            ..PredictFlags::default()
        }
    }

    #[test]
    fn azure_predicts_with_its_burst_unless_no_burst() {
        let azure = request("Standard_D4s_v5", &["data=1xP10"]);
        let bursting = predict_any(azure.clone(), &flags("azure")).unwrap();
        let AnyPredictOutcome::Azure(outcome) = &bursting else {
            panic!("Azure's prediction");
        };
        assert!(outcome.prediction.burst.is_some() && bursting.passes());
        let sustained = PredictFlags {
            no_burst: true,
            ..flags("azure")
        };
        let AnyPredictOutcome::Azure(outcome) = predict_any(azure, &sustained).unwrap() else {
            panic!("Azure's prediction");
        };
        assert!(outcome.prediction.burst.is_none());
    }

    #[test]
    fn aws_predicts_its_own_design_and_refuses_azures_flags() {
        let aws = request("m6i.2xlarge", &["data=1xgp3,size_gib=100"]);
        let outcome = predict_any(aws.clone(), &flags("aws")).unwrap();
        let AnyPredictOutcome::Cloud(cloud) = &outcome else {
            panic!("AWS's prediction");
        };
        assert!(matches!(**cloud, CloudPredictOutcome::Aws(_)));
        assert!(outcome.text().contains("m6i.2xlarge"), "{}", outcome.text());
        let striped = PredictRequest {
            stripe: vec!["64k".into()],
            ..aws
        };
        assert!(predict_any(striped, &flags("aws"))
            .unwrap_err()
            .is_bad_input());
    }

    #[test]
    fn the_report_flags_are_read_for_azure_only() {
        let report = ReportFlags {
            format: Some("nonsense".into()),
            ..ReportFlags::default()
        };
        let with_report = |cloud: &str| PredictFlags {
            report: report.clone(),
            ..flags(cloud)
        };
        let azure = request("Standard_D4s_v5", &["data=1xP10"]);
        assert!(predict_any(azure, &with_report("azure"))
            .unwrap_err()
            .is_bad_input());
        let aws = request("m6i.2xlarge", &["data=1xgp3,size_gib=100"]);
        assert!(predict_any(aws, &with_report("aws")).is_ok());
    }
}
