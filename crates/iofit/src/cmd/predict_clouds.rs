//! `iofit predict --cloud aws|gcp`: what an EC2 instance with EBS volumes, or a Compute Engine
//! VM with Persistent Disks, delivers ([`iofit_procedure::predict_clouds`],
//! [`iofit_procedure::clouds_gcp`]).

use super::predict::Args;
use super::{exit_for, print_json_or_text};
use iofit_catalog::clouds::Cloud;
use iofit_procedure::predict_clouds::{predict_aws, predict_cloud, AwsPredictRequest};
use std::process::ExitCode;

/// `iofit predict`: Azure (the default) or the cloud `--cloud` names.
pub fn dispatch(args: Args) -> anyhow::Result<ExitCode> {
    match predict_cloud(&args.cloud, args.burst_tolerant)? {
        Cloud::Azure => return super::predict::run(args),
        Cloud::Gcp => return gcp(args),
        Cloud::Aws => {}
    }
    let outcome = predict_aws(&AwsPredictRequest {
        azure_only_flags: args.job.is_some() || !args.stripe.is_empty(),
        vm: args.vm,
        disks: args.disks,
        bs: args.bs,
        requirements: args.requirements,
        no_burst: args.no_burst,
        burst_tolerant: args.burst_tolerant,
        catalog_files: args.catalog.files,
    })?;
    print_json_or_text(args.output.json, || outcome.json(), || outcome.text())?;
    Ok(exit_for(outcome.passes()))
}

/// `iofit predict --cloud gcp`.
fn gcp(args: Args) -> anyhow::Result<ExitCode> {
    use iofit_procedure::clouds_gcp::{predict_gcp, GcpPredictRequest};
    let outcome = predict_gcp(&GcpPredictRequest {
        azure_only_flags: args.job.is_some() || !args.stripe.is_empty(),
        vm: args.vm,
        disks: args.disks,
        bs: args.bs,
        rw: args.rw,
        rwmixread: args.rwmixread,
        requirements: args.requirements,
        catalog_files: args.catalog.files,
    })?;
    print_json_or_text(args.output.json, || outcome.json(), || outcome.text())?;
    Ok(exit_for(outcome.passes()))
}
