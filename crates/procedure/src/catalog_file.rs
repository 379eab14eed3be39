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
