//! `iofit catalog import --aws-instance-types FILE -o FILE` apart from the command line: an
//! AWS catalog file from `aws ec2 describe-instance-types --output json`, for `plan --cloud aws
//! --catalog FILE` and `predict --cloud aws --catalog FILE`
//! ([`iofit_catalog::clouds::aws_import`]), written whole.

use crate::plan_clouds::read_aws_input;
use crate::ProcedureError;
use iofit_catalog::clouds::aws_import::import_instance_types;
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Everything `catalog import --aws-instance-types` asks for.
#[derive(Clone, Debug, Default)]
pub struct AwsImportRequest {
    /// `describe-instance-types` outputs.
    pub inputs: Vec<PathBuf>,
    /// `-o FILE`.
    pub output: Option<PathBuf>,
    /// `--table-id` [default: the importer's].
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// Azure's import flags (`--skus`, `--prices`, `--region`) were given too (refused).
    pub azure_flags: bool,
    /// The table's date, YYYY-MM-DD.
    pub date: String,
}

/// The file written and what it holds (AWS instance types or Google Cloud machine types).
#[derive(Clone, Debug, PartialEq)]
pub struct TypesImportOutcome {
    pub output: PathBuf,
    /// What the rows are: "AWS instance type(s)", "Google Cloud machine type(s)".
    pub what: &'static str,
    /// Types kept.
    pub kept: Vec<String>,
    /// Types left out, with why.
    pub left_out: Vec<(String, String)>,
}

/// `catalog import --aws-instance-types`'s outcome.
pub type AwsImportOutcome = TypesImportOutcome;

impl TypesImportOutcome {
    /// What the command prints.
    pub fn summary(&self) -> String {
        let mut summary = format!(
            "wrote {}: {} {} ({})\n",
            self.output.display(),
            self.kept.len(),
            self.what,
            self.kept.join(", ")
        );
        for (name, why) in &self.left_out {
            summary.push_str(&format!("left out {name}: {why}\n"));
        }
        summary
    }
}

/// What a cloud's type importer gives: the file's text, the types kept, those left out.
pub(crate) type Imported = (String, Vec<String>, Vec<(String, String)>);

/// Imports with `import` and writes the file whole to `output` (`usage` shows the command that
/// names one when it is missing); an existing file needs `allow_overwrite`.
pub(crate) fn write_types(
    output: Option<&PathBuf>,
    usage: &str,
    allow_overwrite: bool,
    what: &'static str,
    import: impl FnOnce() -> Result<Imported>,
) -> Result<TypesImportOutcome> {
    let Some(output) = output else {
        return Err(bad(format!("give -o FILE: `{usage}`")));
    };
    let (toml, kept, left_out) = import()?;
    if output.exists() && !allow_overwrite {
        return Err(bad(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            output.display()
        )));
    }
    iofit_safefs::atomic::write_atomic(output, toml.as_bytes())?;
    Ok(TypesImportOutcome {
        output: output.clone(),
        what,
        kept,
        left_out,
    })
}

/// Reads the inputs, builds the AWS catalog file and writes it whole.
pub fn import_aws_catalog(request: &AwsImportRequest) -> Result<AwsImportOutcome> {
    if request.azure_flags {
        return Err(bad(
            "--aws-instance-types writes an AWS file; --skus, --prices and --region are Azure's: give one or the other",
        ));
    }
    write_types(
        request.output.as_ref(),
        "iofit catalog import --aws-instance-types types.json -o aws.toml",
        request.allow_overwrite,
        "AWS instance type(s)",
        || {
            let mut texts = Vec::new();
            for path in &request.inputs {
                texts.push((path.display().to_string(), read_aws_input(path)?));
            }
            let imported =
                import_instance_types(&texts, &request.date, request.table_id.as_deref())
                    .map_err(|e| bad(e.to_string()))?;
            Ok((imported.toml, imported.kept, imported.left_out))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written `describe-instance-types` answer: one Nitro type with its EBS limits,
    /// one that is not EBS-optimized.
    const TYPES: &str = r#"{"InstanceTypes": [
      {"InstanceType": "r7g.4xlarge", "Hypervisor": "nitro",
       "VCpuInfo": {"DefaultVCpus": 16}, "MemoryInfo": {"SizeInMiB": 131072},
       "ProcessorInfo": {"SupportedArchitectures": ["arm64"]},
       "EbsInfo": {"EbsOptimizedInfo": {
         "BaselineBandwidthInMbps": 10000, "BaselineThroughputInMBps": 1250.0, "BaselineIops": 40000,
         "MaximumBandwidthInMbps": 10000, "MaximumThroughputInMBps": 1250.0, "MaximumIops": 40000}}},
      {"InstanceType": "t1.micro", "Hypervisor": "xen", "VCpuInfo": {"DefaultVCpus": 1},
       "MemoryInfo": {"SizeInMiB": 628}, "EbsInfo": {"EbsOptimizedSupport": "unsupported"}}
    ]}"#;

    #[test]
    fn the_imported_file_holds_the_kept_types_and_loads_as_an_aws_catalog() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("types.json");
        std::fs::write(&input, TYPES).unwrap();
        let output = dir.path().join("aws.toml");
        let request = AwsImportRequest {
            inputs: vec![input],
            output: Some(output.clone()),
            date: "2026-11-27".into(),
            ..Default::default()
        };
        let outcome = import_aws_catalog(&request).unwrap();
        assert_eq!(outcome.kept, vec!["r7g.4xlarge".to_string()]);
        assert_eq!(outcome.left_out.len(), 1);
        assert_eq!(outcome.left_out[0].0, "t1.micro");
        let summary = outcome.summary();
        assert!(
            summary.contains(": 1 AWS instance type(s) (r7g.4xlarge)\n"),
            "{summary}"
        );
        assert!(summary.contains("left out t1.micro: "), "{summary}");
        // A second import onto it needs allow_overwrite.
        let again = import_aws_catalog(&request).unwrap_err();
        assert!(again.is_bad_input() && again.to_string().contains("--allow-overwrite"));
        let allowed = AwsImportRequest {
            allow_overwrite: true,
            ..request
        };
        assert!(import_aws_catalog(&allowed).is_ok());
        // Loaded as plan loads it; once read, this process never writes over it.
        let catalog = crate::plan_clouds::aws_catalog(std::slice::from_ref(&output)).unwrap();
        assert_eq!(catalog.instance("r7g.4xlarge").unwrap().vcpu, 16);
        let onto_input = import_aws_catalog(&allowed).unwrap_err();
        assert!(
            onto_input.to_string().contains("which this run reads"),
            "{onto_input}"
        );
    }

    #[test]
    fn azure_flags_or_no_output_are_bad_input() {
        let mixed = AwsImportRequest {
            azure_flags: true,
            output: Some("aws.toml".into()),
            ..Default::default()
        };
        assert!(import_aws_catalog(&mixed)
            .unwrap_err()
            .to_string()
            .starts_with("--aws-instance-types writes an AWS file"));
        let error = import_aws_catalog(&AwsImportRequest::default()).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().starts_with("give -o FILE"));
    }
}
