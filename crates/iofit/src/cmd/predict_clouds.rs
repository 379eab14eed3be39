//! `iofit predict --cloud aws|gcp` ([`iofit_procedure::predict_clouds`]).

use super::predict::Args;
use super::{exit_for, print_json_or_text};
use iofit_catalog::clouds::Cloud;
use iofit_procedure::predict_clouds::{predict_cloud, predict_on, AwsPredictRequest};
use std::process::ExitCode;

/// `iofit predict`: Azure (the default) or the cloud `--cloud` names.
pub fn dispatch(args: Args) -> anyhow::Result<ExitCode> {
    if predict_cloud(&args.cloud, args.burst_tolerant)? == Cloud::Azure {
        return super::predict::run(args);
    }
    let outcome = predict_on(&AwsPredictRequest {
        cloud: args.cloud.parse().ok(),
        azure_only_flags: args.job.is_some() || !args.stripe.is_empty(),
        vm: args.vm,
        disks: args.disks,
        bs: args.bs,
        rw: args.rw,
        rwmixread: args.rwmixread,
        requirements: args.requirements,
        no_burst: args.no_burst,
        burst_tolerant: args.burst_tolerant,
        catalog_files: args.catalog.files,
    })?;
    print_json_or_text(args.output.json, || outcome.json(), || outcome.text())?;
    Ok(exit_for(outcome.passes()))
}
