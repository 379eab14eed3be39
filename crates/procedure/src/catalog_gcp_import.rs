//! `iofit catalog import --gcp-machine-types FILE -o FILE` apart from the command line: a
//! Google Cloud catalog file from `gcloud compute machine-types list --format=json`, for
//! `plan --cloud gcp --catalog FILE` and `predict --cloud gcp --catalog FILE`
//! ([`iofit_catalog::clouds::gcp_import`]), written whole.

use crate::clouds_gcp::read_gcp_input;
use crate::ProcedureError;
use iofit_catalog::clouds::gcp_import::import_machine_types;
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Everything `catalog import --gcp-machine-types` asks for.
#[derive(Clone, Debug, Default)]
pub struct GcpImportRequest {
    /// `machine-types list` outputs.
    pub inputs: Vec<PathBuf>,
    /// `-o FILE`.
    pub output: Option<PathBuf>,
    /// `--table-id` [default: the importer's].
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// Another cloud's import flags were given too (refused).
    pub other_flags: bool,
    /// The table's date, YYYY-MM-DD.
    pub date: String,
}

/// `catalog import --gcp-machine-types`'s outcome.
pub type GcpImportOutcome = crate::catalog_aws_import::TypesImportOutcome;

/// Reads the inputs, builds the Google Cloud catalog file and writes it whole.
pub fn import_gcp_catalog(request: &GcpImportRequest) -> Result<GcpImportOutcome> {
    if request.other_flags {
        return Err(bad(
            "--gcp-machine-types writes a Google Cloud file; --skus, --prices, --region and --aws-instance-types are other clouds': give one or the other",
        ));
    }
    crate::catalog_aws_import::write_types(
        request.output.as_ref(),
        "iofit catalog import --gcp-machine-types types.json -o gcp.toml",
        request.allow_overwrite,
        "Google Cloud machine type(s)",
        || {
            let mut texts = Vec::new();
            for path in &request.inputs {
                texts.push((path.display().to_string(), read_gcp_input(path)?));
            }
            let imported = import_machine_types(&texts, &request.date, request.table_id.as_deref())
                .map_err(|e| bad(e.to_string()))?;
            Ok((imported.toml, imported.kept, imported.left_out))
        },
    )
}

/// Everything `catalog import --aws-instance-types|--gcp-machine-types` asks for.
#[derive(Clone, Debug, Default)]
pub struct CloudImportRequest {
    pub aws_instance_types: Vec<PathBuf>,
    pub gcp_machine_types: Vec<PathBuf>,
    /// Azure's import flags (`--skus`, `--prices`, `--region`) were given too (refused).
    pub azure_flags: bool,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// The table's date, YYYY-MM-DD.
    pub date: String,
}

/// Imports one cloud's file (AWS's or Google Cloud's); returns what the command prints.
pub fn import_cloud_catalog(request: CloudImportRequest) -> Result<String> {
    if request.gcp_machine_types.is_empty() {
        use crate::catalog_aws_import::{import_aws_catalog, AwsImportRequest};
        return import_aws_catalog(&AwsImportRequest {
            inputs: request.aws_instance_types,
            output: request.output,
            table_id: request.table_id,
            allow_overwrite: request.allow_overwrite,
            azure_flags: request.azure_flags,
            date: request.date,
        })
        .map(|outcome| outcome.summary());
    }
    import_gcp_catalog(&GcpImportRequest {
        other_flags: request.azure_flags || !request.aws_instance_types.is_empty(),
        inputs: request.gcp_machine_types,
        output: request.output,
        table_id: request.table_id,
        allow_overwrite: request.allow_overwrite,
        date: request.date,
    })
    .map(|outcome| outcome.summary())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written `gcloud compute machine-types list --format=json` answer.
    const TYPES: &str = r#"[
      {"kind": "compute#machineType", "name": "n2-highcpu-16", "guestCpus": 16,
       "memoryMb": 16384, "maximumPersistentDisks": 128, "zone": "asia-northeast1-a",
       "isSharedCpu": false},
      {"kind": "compute#machineType", "name": "e2-micro", "guestCpus": 2, "memoryMb": 1024,
       "maximumPersistentDisks": 16, "zone": "asia-northeast1-a", "isSharedCpu": true}
    ]"#;

    #[test]
    fn the_imported_file_loads_as_a_google_cloud_catalog() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("types.json");
        std::fs::write(&input, TYPES).unwrap();
        let output = dir.path().join("gcp.toml");
        let request = GcpImportRequest {
            inputs: vec![input],
            output: Some(output.clone()),
            date: "2026-11-27".into(),
            ..Default::default()
        };
        let outcome = import_gcp_catalog(&request).unwrap();
        assert_eq!(outcome.kept, vec!["n2-highcpu-16".to_string()]);
        let summary = outcome.summary();
        assert!(
            summary.contains(": 1 Google Cloud machine type(s) (n2-highcpu-16)\n")
                && summary.contains("left out e2-micro: shared-core"),
            "{summary}"
        );
        let catalog = crate::clouds_gcp::gcp_catalog(std::slice::from_ref(&output)).unwrap();
        let machine = catalog.machine_type("n2-highcpu-16").unwrap();
        assert_eq!(
            (machine.vcpu, machine.memory_gib),
            (16, iofit_model::units::GiB(16.0))
        );
        let again = import_gcp_catalog(&request).unwrap_err();
        assert!(again.is_bad_input() && again.to_string().contains("--allow-overwrite"));
        let mixed = GcpImportRequest {
            other_flags: true,
            ..request
        };
        assert!(import_gcp_catalog(&mixed)
            .unwrap_err()
            .to_string()
            .starts_with("--gcp-machine-types writes a Google Cloud file"));
        let error = import_gcp_catalog(&GcpImportRequest::default()).unwrap_err();
        assert!(error.to_string().starts_with("give -o FILE"));
        // One cloud's file at a time: both clouds' inputs are refused, naming the flags.
        let both = import_cloud_catalog(CloudImportRequest {
            aws_instance_types: vec!["a.json".into()],
            gcp_machine_types: vec!["g.json".into()],
            output: Some(dir.path().join("x.toml")),
            ..Default::default()
        })
        .unwrap_err();
        assert!(both.is_bad_input() && both.to_string().contains("--aws-instance-types"));
    }
}
