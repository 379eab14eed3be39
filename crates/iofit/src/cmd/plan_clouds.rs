//! `iofit plan --cloud aws|gcp|all` ([`iofit_procedure::plan_clouds`]).

use super::plan::Args;
pub use super::shared::CloudChoice;
use super::{exit_for, print_json_or_text};
use iofit_catalog::clouds::Cloud;
use iofit_procedure::plan_clouds::{check_azure_only, plan_clouds};
use std::process::ExitCode;

/// `iofit plan`: Azure's plan (the default), or the clouds `--cloud` names.
pub fn dispatch(args: Args) -> anyhow::Result<ExitCode> {
    match args.cloud {
        CloudChoice::One(Cloud::Azure) => super::plan::run(args),
        choice => run(&args, choice),
    }
}

pub fn run(args: &Args, choice: CloudChoice) -> anyhow::Result<ExitCode> {
    check_azure_only(args.fleet.is_some(), args.output.report.is_some())?;
    let outcome = plan_clouds(choice, &super::plan::request(args)?, args.burst_tolerant)?;
    print_json_or_text(args.output.json, || outcome.json(), || outcome.text())?;
    Ok(exit_for(outcome.found()))
}
