//! `iofit catalog import --aws-instance-types FILE -o FILE`: an AWS catalog file from `aws ec2
//! describe-instance-types --output json`, for `plan --cloud aws --catalog FILE` and `predict
//! --cloud aws --catalog FILE` ([`iofit_catalog::clouds::aws_import`]).

use crate::exit::bad_input;
use iofit_catalog::clouds::aws::AwsCatalog;
use iofit_catalog::clouds::aws_import::import_instance_types;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use iofit_procedure::plan_clouds::read_aws_input as read;

/// The built-in AWS tables plus `files` (AWS-shaped catalog files).
pub(crate) fn aws_catalog(files: &[PathBuf]) -> anyhow::Result<AwsCatalog> {
    Ok(iofit_procedure::plan_clouds::aws_catalog(files)?)
}

pub(crate) fn import(
    inputs: &[PathBuf],
    output: Option<&Path>,
    table_id: Option<&str>,
    allow_overwrite: bool,
    date: &str,
) -> anyhow::Result<ExitCode> {
    let Some(output) = output else {
        return Err(bad_input(
            "give -o FILE: `iofit catalog import --aws-instance-types types.json -o aws.toml`",
        ));
    };
    let mut texts = Vec::new();
    for path in inputs {
        texts.push((path.display().to_string(), read(path)?));
    }
    let imported = import_instance_types(&texts, date, table_id).map_err(bad_input)?;
    if output.exists() && !allow_overwrite {
        return Err(bad_input(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            output.display()
        )));
    }
    iofit_safefs::atomic::write_atomic(output, imported.toml.as_bytes())?;
    let mut summary = format!(
        "wrote {}: {} AWS instance type(s) ({})\n",
        output.display(),
        imported.kept.len(),
        imported.kept.join(", ")
    );
    for (name, why) in &imported.left_out {
        summary.push_str(&format!("left out {name}: {why}\n"));
    }
    super::emit(&summary)?;
    Ok(ExitCode::SUCCESS)
}
