//! `iofit catalog import` and `iofit catalog fetch` apart from the command line: which catalog
//! file the flags ask for (Azure's from `az vm list-skus` and Retail Prices pages, or from the
//! Retail Prices API; AWS's from `describe-instance-types`, or one region's prices from AWS's
//! Price List; Google Cloud's from `gcloud compute machine-types list`), written whole by the
//! procedure that makes it.

use crate::catalog_aws_prices::{aws_prices_if_asked, AwsPriceFlags};
use crate::catalog_fetch::{fetch_catalog, FetchRequest, RETAIL_PRICES_API};
use crate::catalog_gcp_import::{import_cloud_catalog, CloudImportRequest};
use crate::catalog_import::{import_catalog, ImportRequest};
use crate::catalog_list::check_fetch_flags;
use crate::plan_clouds::CloudChoice;
use crate::ProcedureError;
use std::path::PathBuf;

/// Every flag of `catalog import` and `catalog fetch`, as given.
#[derive(Clone, Debug, Default)]
pub struct CatalogFileFlags {
    /// `catalog fetch` (else `catalog import`).
    pub fetch: bool,
    pub skus: Vec<PathBuf>,
    pub aws_instance_types: Vec<PathBuf>,
    pub gcp_machine_types: Vec<PathBuf>,
    pub aws_prices: Option<PathBuf>,
    pub cloud: Option<CloudChoice>,
    pub prices: Vec<PathBuf>,
    pub region: Option<String>,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    pub currency: Option<String>,
    pub api: Option<String>,
}

impl CatalogFileFlags {
    /// Whether any flag that names what to import or where to write it was given (`--skus`,
    /// `--prices`, `--region`, `-o`, `--cloud`, the AWS and Google Cloud inputs): the
    /// listings refuse them ([`crate::catalog_list::check_import_flags`]).
    pub fn any_given(&self) -> bool {
        !self.skus.is_empty()
            || !self.aws_instance_types.is_empty()
            || self.aws_prices.is_some()
            || self.cloud.is_some()
            || !self.gcp_machine_types.is_empty()
            || !self.prices.is_empty()
            || self.region.is_some()
            || self.output.is_some()
    }
}

/// Writes the catalog file the flags ask for; returns what the command prints.
pub fn write_catalog_file(
    flags: CatalogFileFlags,
    unix_seconds: u64,
) -> Result<String, ProcedureError> {
    let date = iofit_catalog::import::date_of_unix_seconds(unix_seconds);
    let azure_inputs = !flags.skus.is_empty() || !flags.prices.is_empty();
    let aws = AwsPriceFlags {
        fetch: flags.fetch,
        cloud: flags.cloud,
        aws_prices: flags.aws_prices.clone(),
        api: flags.api.clone(),
        region: flags.region.clone(),
        output: flags.output.clone(),
        table_id: flags.table_id.clone(),
        allow_overwrite: flags.allow_overwrite,
        azure_inputs,
    };
    if let Some(outcome) = aws_prices_if_asked(&aws, &date)? {
        return Ok(outcome.summary());
    }
    if flags.fetch {
        check_fetch_flags(azure_inputs)?;
        let request = FetchRequest {
            region: flags.region,
            currency: flags.currency,
            api: flags.api.unwrap_or_else(|| RETAIL_PRICES_API.to_string()),
            output: flags.output,
            table_id: flags.table_id,
            allow_overwrite: flags.allow_overwrite,
            unix_seconds,
            max_wait_s: 60,
        };
        return Ok(fetch_catalog(&request)?.summary());
    }
    if !flags.aws_instance_types.is_empty() || !flags.gcp_machine_types.is_empty() {
        return import_cloud_catalog(CloudImportRequest {
            azure_flags: azure_inputs || flags.region.is_some(),
            aws_instance_types: flags.aws_instance_types,
            gcp_machine_types: flags.gcp_machine_types,
            output: flags.output,
            table_id: flags.table_id,
            allow_overwrite: flags.allow_overwrite,
            date,
        });
    }
    let request = ImportRequest {
        skus: flags.skus,
        prices: flags.prices,
        region: flags.region,
        output: flags.output,
        table_id: flags.table_id,
        allow_overwrite: flags.allow_overwrite,
        unix_seconds,
    };
    Ok(import_catalog(&request)?.summary())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_flags_are_seen_one_by_one_and_the_others_are_not() {
        assert!(!CatalogFileFlags::default().any_given());
        let quiet = CatalogFileFlags {
            fetch: true,
            table_id: Some("t".into()),
            allow_overwrite: true,
            currency: Some("EUR".into()),
            api: Some("http://localhost".into()),
            ..CatalogFileFlags::default()
        };
        assert!(!quiet.any_given(), "flags the listings ignore");
        let given = [
            CatalogFileFlags {
                skus: vec![PathBuf::from("s.json")],
                ..CatalogFileFlags::default()
            },
            CatalogFileFlags {
                aws_prices: Some(PathBuf::from("index.json")),
                ..CatalogFileFlags::default()
            },
            CatalogFileFlags {
                cloud: Some(CloudChoice::All),
                ..CatalogFileFlags::default()
            },
            CatalogFileFlags {
                gcp_machine_types: vec![PathBuf::from("m.json")],
                ..CatalogFileFlags::default()
            },
            CatalogFileFlags {
                region: Some("eastus".into()),
                ..CatalogFileFlags::default()
            },
            CatalogFileFlags {
                output: Some(PathBuf::from("c.toml")),
                ..CatalogFileFlags::default()
            },
        ];
        assert!(given.iter().all(CatalogFileFlags::any_given));
    }
}
