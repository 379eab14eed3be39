//! `iofit predict --cloud aws` apart from the command line: what an EC2 instance with EBS
//! volumes delivers, sustained and in its burst window, and which limit binds (AWS's model in
//! [`iofit_predict::aws`]). The binary picks the cloud with [`predict_cloud`], fills an
//! [`AwsPredictRequest`], calls [`predict_aws`] and prints [`AwsPredictOutcome::text`] or
//! [`AwsPredictOutcome::json`].

use crate::plan_clouds::{aws_catalog, CloudChoice};
use crate::ProcedureError;
use iofit_catalog::clouds::Cloud;
use iofit_model::{Bytes, Iops, MBps};
use iofit_predict::aws::{self, AwsDemand, AwsPrediction, AwsState};
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// The cloud `predict --cloud TEXT` predicts on: Azure (the default), AWS or Google Cloud.
pub fn predict_cloud(text: &str, burst_tolerant: bool) -> Result<Cloud> {
    match text.parse::<CloudChoice>() {
        Ok(CloudChoice::One(Cloud::Azure | Cloud::Gcp)) if burst_tolerant => Err(bad(
            "--burst-tolerant is AWS's instance burst window; use it with --cloud aws",
        )),
        Ok(CloudChoice::One(cloud)) => Ok(cloud),
        Ok(CloudChoice::All) => Err(bad(format!(
            "--cloud {text}: predict takes one cloud: azure, aws or gcp"
        ))),
        Err(e) => Err(bad(format!("--cloud: {e}"))),
    }
}

/// Demand that no EBS limit reaches: the design runs flat out and its least limit binds.
const FLAT_OUT_IOPS: f64 = 1e12;

/// Everything `iofit predict --cloud aws|gcp` asks for.
#[derive(Clone, Debug, Default)]
pub struct AwsPredictRequest {
    /// `--cloud` [default: AWS]; Google Cloud's request reads the same flags.
    pub cloud: Option<Cloud>,
    /// `--vm`: the EC2 instance type.
    pub vm: String,
    /// `--disk`: one volume spec each ([`aws::parse_volume_spec`]).
    pub disks: Vec<String>,
    /// `--bs`: once for every volume or once per `--disk` [default: 8k].
    pub bs: Vec<String>,
    /// `--rw` and `--rwmixread` (Google Cloud: reads and writes have their own limits).
    pub rw: Vec<String>,
    pub rwmixread: f64,
    /// `--requirements`: targets per volume, matched to `--disk` in order.
    pub requirements: Option<PathBuf>,
    pub no_burst: bool,
    pub burst_tolerant: bool,
    /// `--catalog`: AWS-shaped catalog files added to the built-in tables.
    pub catalog_files: Vec<PathBuf>,
    /// Azure predict's `--job` and `--stripe` were given (refused here).
    pub azure_only_flags: bool,
}

/// A prediction on AWS or Google Cloud, as `predict --cloud aws|gcp` prints it.
#[derive(Clone, Debug)]
pub enum CloudPredictOutcome {
    Aws(AwsPredictOutcome),
    Gcp(crate::clouds_gcp::GcpPredictOutcome),
}

impl CloudPredictOutcome {
    /// Exit 0 when no requirements were given or they are met.
    pub fn passes(&self) -> bool {
        match self {
            CloudPredictOutcome::Aws(o) => o.passes(),
            CloudPredictOutcome::Gcp(o) => o.passes(),
        }
    }
    /// What `--json` prints.
    pub fn json(&self) -> serde_json::Value {
        match self {
            CloudPredictOutcome::Aws(o) => o.json(),
            CloudPredictOutcome::Gcp(o) => o.json(),
        }
    }
    /// What the command prints.
    pub fn text(&self) -> String {
        match self {
            CloudPredictOutcome::Aws(o) => o.text(),
            CloudPredictOutcome::Gcp(o) => o.text(),
        }
    }
}

/// Predicts `request` on its cloud (AWS or Google Cloud; Azure is `predict`'s own).
pub fn predict_on(request: &AwsPredictRequest) -> Result<CloudPredictOutcome> {
    match request.cloud.unwrap_or(Cloud::Aws) {
        Cloud::Aws => predict_aws(request).map(CloudPredictOutcome::Aws),
        Cloud::Gcp => crate::clouds_gcp::predict_gcp(&crate::clouds_gcp::GcpPredictRequest {
            vm: request.vm.clone(),
            disks: request.disks.clone(),
            bs: request.bs.clone(),
            rw: request.rw.clone(),
            rwmixread: request.rwmixread,
            requirements: request.requirements.clone(),
            catalog_files: request.catalog_files.clone(),
            azure_only_flags: request.azure_only_flags,
        })
        .map(CloudPredictOutcome::Gcp),
        Cloud::Azure => Err(bad("--cloud azure is predicted by predict itself")),
    }
}

/// A prediction on AWS: sustained, and the burst state when it differs.
#[derive(Clone, Debug)]
pub struct AwsPredictOutcome {
    pub sustained: AwsPrediction,
    pub burst: Option<AwsPrediction>,
    /// Whether requirements were given (the exit code then says whether they are met).
    pub with_targets: bool,
    /// Whether the state that must carry the requirements meets them.
    pub meets: bool,
}

impl AwsPredictOutcome {
    /// Exit 0 when no requirements were given or they are met.
    pub fn passes(&self) -> bool {
        !self.with_targets || self.meets
    }

    /// What `--json` prints.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({ "cloud": "aws", "sustained": &self.sustained, "burst": &self.burst })
    }

    /// What the command prints.
    pub fn text(&self) -> String {
        text(&self.sustained, self.burst.as_ref(), self.with_targets)
    }
}

type VolumeInput = (
    aws::AwsVolumeSpec,
    iofit_catalog::clouds::aws::EbsVolumeType,
    AwsDemand,
);

/// Each `--disk` with its rules and demand (the requirements' volume, or flat out at `--bs`).
fn volume_inputs(
    request: &AwsPredictRequest,
    catalog: &iofit_catalog::clouds::aws::AwsCatalog,
    targets: Option<&iofit_model::Requirements>,
) -> Result<Vec<VolumeInput>> {
    let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
    let mut specs = Vec::new();
    for (index, text) in request.disks.iter().enumerate() {
        let (spec, rules) =
            aws::parse_volume_spec(text, index, &rules_of).map_err(|e| bad(e.to_string()))?;
        let bs_text = request
            .bs
            .get(index)
            .or(request.bs.first())
            .map(String::as_str)
            .unwrap_or("8k");
        let io_size_bytes =
            Bytes::parse(bs_text).map_err(|e| bad(format!("--bs {bs_text}: {e}")))?;
        let demand = match targets.and_then(|t| t.volumes.get(index)) {
            Some(volume) => iofit_planner::clouds::demand_of(volume),
            None => AwsDemand {
                iops: Iops(FLAT_OUT_IOPS),
                throughput_mb_s: MBps(FLAT_OUT_IOPS * io_size_bytes.as_f64() / 1e6),
                io_size_bytes,
            },
        };
        specs.push((spec, rules, demand));
    }
    crate::cloud_inputs::check_one_disk_per_volume(targets, specs.len())?;
    Ok(specs)
}

/// Predicts the design `request` describes on AWS.
pub fn predict_aws(request: &AwsPredictRequest) -> Result<AwsPredictOutcome> {
    // Azure's flags are refused before any file is read.
    let targets = crate::cloud_inputs::checked_targets(
        "aws",
        request.azure_only_flags,
        request.requirements.as_ref(),
    )?;
    let catalog = aws_catalog(&request.catalog_files)?;
    let instance = catalog
        .instance(&request.vm)
        .map_err(|e| bad(e.to_string()))?;
    let specs = volume_inputs(request, &catalog, targets.as_ref())?;
    let inputs: Vec<_> = specs
        .iter()
        .map(|(s, r, d)| (s.clone(), r, d.clone()))
        .collect();
    let sustained =
        aws::predict(instance, &inputs, AwsState::Sustained).map_err(|e| bad(e.to_string()))?;
    if request.no_burst && request.burst_tolerant {
        return Err(bad(
            "--no-burst and --burst-tolerant contradict each other; give one",
        ));
    }
    let burst = if request.no_burst || !bursts_differ(instance, &specs) {
        None
    } else {
        Some(aws::predict(instance, &inputs, AwsState::Burst).map_err(|e| bad(e.to_string()))?)
    };
    // Burst-tolerant: the requirement is a peak of at most the window, so the burst state is
    // the one that must meet it (and it is always predicted then).
    let meets = match (&burst, request.burst_tolerant) {
        (Some(burst), true) => burst.meets,
        _ => sustained.meets,
    };
    Ok(AwsPredictOutcome {
        sustained,
        burst,
        with_targets: targets.is_some(),
        meets,
    })
}

/// Whether the burst state differs from the sustained one (instance window, gp2/st1 credits).
fn bursts_differ(
    instance: &iofit_catalog::clouds::aws::AwsInstance,
    specs: &[VolumeInput],
) -> bool {
    instance.bursts()
        || specs.iter().any(|(spec, rules, _)| {
            aws::volume_caps(spec, rules)
                .map(|c| {
                    c.burst_iops.get() > c.iops.get()
                        || c.burst_throughput_mib_s.get() > c.throughput_mib_s.get()
                })
                .unwrap_or(false)
        })
}

fn state_text(prediction: &AwsPrediction, with_targets: bool) -> String {
    let mut text = String::new();
    for volume in &prediction.volumes {
        let target = if with_targets {
            format!(" of {:.0} IOPS required", volume.demand.iops.get())
        } else {
            String::new()
        };
        text.push_str(&format!(
            "  {}: {:.0} IOPS{target}, {:.1} MB/s at {} KiB IOs; binding: {}\n",
            volume.label,
            volume.delivered_iops.get(),
            volume.delivered_mb_s.get(),
            volume.demand.io_size_bytes.as_kib_f64(),
            volume.binding
        ));
        for limit in &volume.limits {
            text.push_str(&format!(
                "      {:<48} {:>22}  allows {:.0} IOPS\n",
                limit.name, limit.stated, limit.iops_allowed
            ));
        }
    }
    text.push_str(&crate::cloud_inputs::delivers_line(
        prediction.delivered_iops.get(),
        prediction.delivered_mb_s.get(),
        &prediction.binding,
        with_targets.then_some((prediction.headroom_pct, prediction.meets)),
    ));
    text
}

fn text(sustained: &AwsPrediction, burst: Option<&AwsPrediction>, with_targets: bool) -> String {
    let mut text = format!(
        "AWS {}: sustained (instance baseline, volume baselines)\n",
        sustained.instance
    );
    text.push_str(&state_text(sustained, with_targets));
    if let Some(burst) = burst {
        text.push_str(&format!("burst: {}\n", burst.held_for));
        text.push_str(&state_text(burst, with_targets));
    }
    text.push_str(
        "limits: AWS's EBS-optimized table (instance IOPS at 16 KiB, MB/s at 128 KiB I/O) and EBS volume types; \
         SSD volumes count one operation per 256 KiB (catalog/aws-*.toml)\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::{Requirements, SizingTarget, VolumeRequirements};

    fn request(disks: &[&str]) -> AwsPredictRequest {
        AwsPredictRequest {
            vm: "m5.4xlarge".into(),
            disks: disks.iter().map(|d| d.to_string()).collect(),
            ..Default::default()
        }
    }

    /// A requirements file with one volume per IOPS target, 8 KiB random reads.
    fn requirements_file(dir: &std::path::Path, iops: &[f64]) -> PathBuf {
        let requirements = Requirements {
            source: "test".into(),
            growth_factor: 1.0,
            volumes: iops
                .iter()
                .enumerate()
                .map(|(index, iops)| VolumeRequirements {
                    label: format!("v{index}"),
                    sizing: SizingTarget {
                        iops: iofit_model::Iops(*iops),
                        throughput_mb_s: iofit_model::MBps(0.0),
                        latency_ms: None,
                        io_size_bytes: iofit_model::Bytes(8192),
                        read_pct: 100.0,
                        random_pct: 100.0,
                        capacity_gib: Some(iofit_model::units::GiB(100.0)),
                        queue_depth: None,
                    },
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        };
        let path = dir.join("requirements.toml");
        std::fs::write(&path, toml::to_string(&requirements).unwrap()).unwrap();
        path
    }

    #[test]
    fn without_requirements_the_design_runs_flat_out_and_passes() {
        let outcome = predict_aws(&request(&["data=1xgp3,size_gib=500"])).unwrap();
        assert!(!outcome.with_targets && outcome.passes());
        // One gp3 volume at its free baseline: 3,000 IOPS, the volume's limit binds.
        let volume = &outcome.sustained.volumes[0];
        assert_eq!(volume.label, "data");
        assert!(
            (volume.delivered_iops.get() - 3000.0).abs() < 1.0,
            "{volume:?}"
        );
        let text = outcome.text();
        assert!(text.starts_with("AWS m5.4xlarge: sustained"), "{text}");
        assert!(!text.contains("meets the requirements"), "{text}");
        assert_eq!(outcome.json()["cloud"], "aws");
    }

    #[test]
    fn requirements_decide_whether_the_design_passes() {
        let dir = tempfile::tempdir().unwrap();
        let met = AwsPredictRequest {
            requirements: Some(requirements_file(dir.path(), &[2000.0])),
            ..request(&["1xgp3,size_gib=500"])
        };
        let outcome = predict_aws(&met).unwrap();
        assert!(outcome.with_targets && outcome.meets && outcome.passes());
        assert!(outcome.text().contains("; meets the requirements"));
        let missed = AwsPredictRequest {
            requirements: Some(requirements_file(dir.path(), &[9000.0])),
            ..request(&["1xgp3,size_gib=500"])
        };
        let outcome = predict_aws(&missed).unwrap();
        assert!(!outcome.passes());
        assert!(outcome.text().contains("does NOT meet the requirements"));
    }

    #[test]
    fn bad_requests_are_bad_input_naming_the_flag() {
        let dir = tempfile::tempdir().unwrap();
        let two = AwsPredictRequest {
            requirements: Some(requirements_file(dir.path(), &[100.0, 100.0])),
            ..request(&["1xgp3,size_gib=500"])
        };
        let error = predict_aws(&two).unwrap_err();
        assert!(error.is_bad_input());
        assert!(error
            .to_string()
            .starts_with("--requirements has 2 volume(s) but 1 --disk given"));
        let both = AwsPredictRequest {
            no_burst: true,
            burst_tolerant: true,
            ..request(&["1xgp3,size_gib=500"])
        };
        assert!(predict_aws(&both)
            .unwrap_err()
            .to_string()
            .starts_with("--no-burst and --burst-tolerant contradict"));
        let job = AwsPredictRequest {
            azure_only_flags: true,
            ..request(&["1xgp3"])
        };
        assert!(predict_aws(&job)
            .unwrap_err()
            .to_string()
            .starts_with("--job and --stripe"));
    }

    #[test]
    fn the_cloud_flag_picks_one_cloud() {
        assert_eq!(predict_cloud("azure", false).unwrap(), Cloud::Azure);
        assert_eq!(predict_cloud("AWS", true).unwrap(), Cloud::Aws);
        assert_eq!(predict_cloud("gcp", false).unwrap(), Cloud::Gcp);
        let error = predict_cloud("azure", true).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().contains("--burst-tolerant"));
        assert!(predict_cloud("gcp", true).is_err());
        assert!(predict_cloud("all", false)
            .unwrap_err()
            .to_string()
            .starts_with("--cloud all: predict takes one cloud"));
        assert!(predict_cloud("ibm", false)
            .unwrap_err()
            .to_string()
            .starts_with("--cloud: "));
    }
}
