//! The AWS catalog (built-in tables plus `--catalog` files) for the commands that read it here
//! ([`iofit_procedure::plan_clouds::aws_catalog`]).

use iofit_catalog::clouds::aws::AwsCatalog;
use std::path::PathBuf;

/// The built-in AWS tables plus `files` (AWS-shaped catalog files).
pub(crate) fn aws_catalog(files: &[PathBuf]) -> anyhow::Result<AwsCatalog> {
    Ok(iofit_procedure::plan_clouds::aws_catalog(files)?)
}
