//! `iofit catalog import` and `iofit catalog fetch` apart from the command line: which catalog
//! file the flags ask for (Azure's from `az vm list-skus` and Retail Prices pages, or from the
//! Retail Prices API; AWS's from `describe-instance-types`, or one region's prices from AWS's
//! Price List; Google Cloud's from `gcloud compute machine-types list`, or one region's prices
//! from the Cloud Billing Catalog API), written whole by the procedure that makes it.

use crate::catalog_aws_prices::{aws_prices_if_asked, AwsPriceFlags};
use crate::catalog_fetch::{fetch_catalog, FetchRequest, RETAIL_PRICES_API};
use crate::catalog_gcp_import::{import_cloud_catalog, CloudImportRequest};
use crate::catalog_gcp_prices::{
    api_key, import_gcp_prices, GcpPricesRequest, SkuSource, CLOUD_BILLING_API,
};
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
    /// `catalog import --gcp-prices FILE`: saved Cloud Billing Catalog pages, in order.
    pub gcp_prices: Vec<PathBuf>,
    /// `catalog fetch --cloud gcp --api-key-file FILE`.
    pub api_key_file: Option<PathBuf>,
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
            || !self.gcp_prices.is_empty()
            || self.api_key_file.is_some()
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
    if let Some(summary) = gcp_prices_if_asked(&flags, azure_inputs, &date)? {
        return Ok(summary);
    }
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
            unix_seconds: iofit_model::units::UnixSeconds(unix_seconds),
            max_wait_s: iofit_model::units::Seconds(60),
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
        unix_seconds: iofit_model::units::UnixSeconds(unix_seconds),
    };
    Ok(import_catalog(&request)?.summary())
}

/// `catalog fetch --cloud gcp` and `catalog import --gcp-prices FILE`; `None` when the flags
/// ask for another cloud's file.
fn gcp_prices_if_asked(
    flags: &CatalogFileFlags,
    azure_inputs: bool,
    date: &str,
) -> Result<Option<String>, ProcedureError> {
    use iofit_catalog::clouds::Cloud;
    let gcp = matches!(flags.cloud, Some(CloudChoice::One(Cloud::Gcp)));
    if flags.fetch && !flags.gcp_prices.is_empty() {
        return Err(ProcedureError::BadInput(
            "--gcp-prices FILE belongs to `iofit catalog import` (saved pages); `catalog fetch --cloud gcp` reads the Cloud Billing Catalog API itself".into(),
        ));
    }
    if flags.api_key_file.is_some() && !(flags.fetch && gcp) {
        return Err(ProcedureError::BadInput(
            "--api-key-file belongs to `iofit catalog fetch --cloud gcp`".into(),
        ));
    }
    let source = if !flags.gcp_prices.is_empty() {
        SkuSource::Files(flags.gcp_prices.clone())
    } else if flags.fetch && gcp {
        SkuSource::Api {
            base: flags
                .api
                .clone()
                .unwrap_or_else(|| CLOUD_BILLING_API.to_string()),
            key: api_key(flags.api_key_file.as_deref())?,
        }
    } else {
        return Ok(None);
    };
    if azure_inputs || flags.aws_prices.is_some() {
        return Err(ProcedureError::BadInput(
            "Google Cloud prices come from the Cloud Billing Catalog alone: leave out --skus, --prices and --aws-prices".into(),
        ));
    }
    let outcome = import_gcp_prices(&GcpPricesRequest {
        source,
        region: flags.region.clone(),
        output: flags.output.clone(),
        table_id: flags.table_id.clone(),
        allow_overwrite: flags.allow_overwrite,
        date: date.to_string(),
    })?;
    Ok(Some(outcome.summary()))
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
            CatalogFileFlags {
                gcp_prices: vec![PathBuf::from("skus.json")],
                ..CatalogFileFlags::default()
            },
            CatalogFileFlags {
                api_key_file: Some(PathBuf::from("key")),
                ..CatalogFileFlags::default()
            },
        ];
        assert!(given.iter().all(CatalogFileFlags::any_given));
    }
}
