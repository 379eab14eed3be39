//! `iofit predict --cloud aws`: what an EC2 instance with EBS volumes delivers, sustained and
//! in its burst window, and which limit binds (AWS's model in [`iofit_predict::aws`]).

use super::exit_for;
use super::predict::Args;
use super::shared::CloudChoice;
use crate::exit::bad_input;
use iofit_catalog::clouds::Cloud;
use iofit_model::Bytes;
use iofit_predict::aws::{self, AwsDemand, AwsPrediction, AwsState};
use std::process::ExitCode;

/// `iofit predict`: Azure (the default) or the cloud `--cloud` names.
pub fn dispatch(args: Args) -> anyhow::Result<ExitCode> {
    match args.cloud.parse::<CloudChoice>() {
        Ok(CloudChoice::One(Cloud::Azure)) if args.burst_tolerant => Err(crate::exit::bad_input(
            "--burst-tolerant is AWS's instance burst window; use it with --cloud aws",
        )),
        Ok(CloudChoice::One(Cloud::Azure)) => super::predict::run(args),
        Ok(CloudChoice::One(Cloud::Aws)) => run(&args),
        Ok(_) => Err(crate::exit::bad_input(format!(
            "--cloud {}: predict knows azure and aws (Google Cloud is not in the catalog yet)",
            args.cloud
        ))),
        Err(e) => Err(crate::exit::bad_input(format!("--cloud: {e}"))),
    }
}

/// Demand that no EBS limit reaches: the design runs flat out and its least limit binds.
const FLAT_OUT_IOPS: f64 = 1e12;

pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    if args.job.is_some() || !args.stripe.is_empty() {
        return Err(bad_input(
            "--job and --stripe are Azure predict's; with --cloud aws give --disk, --bs, --rw and optionally --requirements",
        ));
    }
    let catalog = super::catalog_aws::aws_catalog(&args.catalog.files)?;
    let instance = catalog.instance(&args.vm).map_err(bad_input)?;
    let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
    let targets = match &args.requirements {
        Some(path) => Some(iofit_procedure::plan::read_requirements(path)?),
        None => None,
    };
    let mut specs = Vec::new();
    for (index, text) in args.disks.iter().enumerate() {
        let (spec, rules) = aws::parse_volume_spec(text, index, &rules_of).map_err(bad_input)?;
        let bs_text = args
            .bs
            .get(index)
            .or(args.bs.first())
            .map(String::as_str)
            .unwrap_or("8k");
        let io_size_bytes = Bytes::parse(bs_text)
            .map_err(|e| bad_input(format!("--bs {bs_text}: {e}")))?
            .as_f64();
        let demand = match targets.as_ref().and_then(|t| t.volumes.get(index)) {
            Some(volume) => iofit_planner::clouds::demand_of(volume),
            None => AwsDemand {
                iops: FLAT_OUT_IOPS,
                throughput_mb_s: FLAT_OUT_IOPS * io_size_bytes / 1e6,
                io_size_bytes,
            },
        };
        specs.push((spec, rules, demand));
    }
    if let Some(t) = &targets {
        if t.volumes.len() != specs.len() {
            return Err(bad_input(format!(
                "--requirements has {} volume(s) but {} --disk given; give one --disk per volume, in order",
                t.volumes.len(),
                specs.len()
            )));
        }
    }
    let inputs: Vec<_> = specs
        .iter()
        .map(|(s, r, d)| (s.clone(), r, d.clone()))
        .collect();
    let sustained = aws::predict(instance, &inputs, AwsState::Sustained).map_err(bad_input)?;
    if args.no_burst && args.burst_tolerant {
        return Err(bad_input(
            "--no-burst and --burst-tolerant contradict each other; give one",
        ));
    }
    let burst = if args.no_burst || !bursts_differ(instance, &specs) {
        None
    } else {
        Some(aws::predict(instance, &inputs, AwsState::Burst).map_err(bad_input)?)
    };
    let with_targets = targets.is_some();
    // Burst-tolerant: the requirement is a peak of at most the window, so the burst state is
    // the one that must meet it (and it is always predicted then).
    let meets = match (&burst, args.burst_tolerant) {
        (Some(burst), true) => burst.meets,
        _ => sustained.meets,
    };
    super::print_json_or_text(
        args.output.json,
        || serde_json::json!({ "cloud": "aws", "sustained": &sustained, "burst": &burst }),
        || text(&sustained, burst.as_ref(), with_targets),
    )?;
    if !with_targets {
        return Ok(ExitCode::SUCCESS);
    }
    Ok(exit_for(meets))
}

/// Whether the burst state differs from the sustained one (instance window, gp2/st1 credits).
fn bursts_differ(
    instance: &iofit_catalog::clouds::aws::AwsInstance,
    specs: &[(
        aws::AwsVolumeSpec,
        iofit_catalog::clouds::aws::EbsVolumeType,
        AwsDemand,
    )],
) -> bool {
    instance.bursts()
        || specs.iter().any(|(spec, rules, _)| {
            aws::volume_caps(spec, rules)
                .map(|c| c.burst_iops > c.iops || c.burst_throughput_mib_s > c.throughput_mib_s)
                .unwrap_or(false)
        })
}

fn state_text(prediction: &AwsPrediction, with_targets: bool) -> String {
    let mut text = String::new();
    for volume in &prediction.volumes {
        let target = if with_targets {
            format!(" of {:.0} IOPS required", volume.demand.iops)
        } else {
            String::new()
        };
        text.push_str(&format!(
            "  {}: {:.0} IOPS{target}, {:.1} MB/s at {} KiB IOs; binding: {}\n",
            volume.label,
            volume.delivered_iops,
            volume.delivered_mb_s,
            volume.demand.io_size_bytes / 1024.0,
            volume.binding
        ));
        for limit in &volume.limits {
            text.push_str(&format!(
                "      {:<48} {:>22}  allows {:.0} IOPS\n",
                limit.name, limit.stated, limit.iops_allowed
            ));
        }
    }
    text.push_str(&format!(
        "  delivers {:.0} IOPS, {:.1} MB/s; binding: {}",
        prediction.delivered_iops, prediction.delivered_mb_s, prediction.binding
    ));
    if with_targets {
        text.push_str(&format!(
            "; headroom {:.1}%; {}",
            prediction.headroom_pct,
            if prediction.meets {
                "meets the requirements"
            } else {
                "does NOT meet the requirements"
            }
        ));
    }
    text.push('\n');
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
