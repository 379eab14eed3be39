//! `iofit catalog import`: Azure's own machine-readable facts -> a catalog file in iofit's
//! format.
//!
//! Reads the output of `az vm list-skus --output json` (the Resource SKUs API; VM sizes and,
//! with `--resource-type disks`, disk SKUs) and pages of the Azure Retail Prices API (`Items[]`,
//! `NextPageLink`), keeps what one region offers, converts units once, and writes TOML that
//! [`crate::Catalog::load_str`] reads back. Every row says which input file it came from.
//!
//! Units, converted here and stated in the written table's notes:
//! - `UncachedDiskBytesPerSecond`, `CombinedTempDiskAndCachedReadBytesPerSecond`: bytes/s
//!   -> MB/s with 1 MB = 10^6 bytes;
//! - `MemoryGB`: Azure's "GB" here is GiB (2^30), recorded as `memory_gib` unchanged;
//! - `CachedDiskBytes`: bytes -> GiB (2^30); `MaxResourceVolumeMB`: MiB -> GiB (/ 1,024);
//! - disk `MaxBandwidthMBps` is already MB/s; `MaxSizeGiB` GiB;
//! - prices: Consumption per `1 Hour` x 730 h (Azure's month); a Reservation's `retailPrice`
//!   is the price of the whole term (the API labels it `1 Hour` all the same), so monthly =
//!   price / 12 (`1 Year`) or / 36 (`3 Years`); disks' `1/Month` meters are monthly already.
//!
//! ```
//! use iofit_catalog::import::{import, Input, Options};
//! let skus = r#"[{"resourceType": "virtualMachines", "name": "Standard_D2s_v5",
//!   "family": "standardDSv5Family", "locations": ["eastus"], "restrictions": [],
//!   "capabilities": [{"name": "vCPUs", "value": "2"}, {"name": "MemoryGB", "value": "8"},
//!     {"name": "MaxDataDiskCount", "value": "4"}, {"name": "PremiumIO", "value": "True"},
//!     {"name": "UncachedDiskIOPS", "value": "3750"},
//!     {"name": "UncachedDiskBytesPerSecond", "value": "85000000"}]}]"#;
//! let prices = r#"{"Items": [{"armSkuName": "Standard_D2s_v5", "armRegionName": "eastus",
//!   "retailPrice": 0.096, "unitOfMeasure": "1 Hour", "type": "Consumption",
//!   "serviceName": "Virtual Machines", "productName": "Virtual Machines Dsv5 Series",
//!   "skuName": "D2s v5", "meterName": "D2s v5"}], "NextPageLink": null}"#;
//! let options = Options { region: "eastus".into(), date: "2026-11-22".into(), table_id: None,
//!     currency: None };
//! let out = import(&[Input::new("skus.json", skus)], &[Input::new("p.json", prices)], &options)
//!     .unwrap();
//! let mut catalog = iofit_catalog::Catalog::default();
//! catalog.load_str("out.toml", &out.toml).unwrap();
//! assert_eq!(catalog.vms[0].uncached_throughput_mb_s.unwrap().0, 85.0);
//! assert!((catalog.vms[0].price_usd_month.unwrap() - 70.08).abs() < 1e-9);
//! ```

mod prices;
mod skus;
mod write;

pub use iofit_model::catalog_import::{Imported, PriceCounts, SkuCounts};

use serde_json::Value;

/// One input file: its name (for errors and the rows' `source`) and its text.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    pub name: String,
    pub text: &'a str,
}

impl<'a> Input<'a> {
    pub fn new(name: impl Into<String>, text: &'a str) -> Input<'a> {
        Input {
            name: name.into(),
            text,
        }
    }
}

/// What to import.
#[derive(Clone, Debug)]
pub struct Options {
    /// Azure's region name (`armRegionName`, `az vm list-skus --location`), e.g. `eastus`.
    pub region: String,
    /// The day of the import, YYYY-MM-DD: the written table's `date`.
    pub date: String,
    /// The written table's id; default `import-<region>-<date>`.
    pub table_id: Option<String>,
    /// ISO 4217 code every price read must be in (the API's `currencyCode`), written as the
    /// table's `currency`; `None`: USD.
    pub currency: Option<String>,
}

/// Why an input could not be imported: one line naming file, JSON path and key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: line {line}, column {column}: not valid JSON: {message}; give the output of `az vm list-skus --output json` or a page of the Retail Prices API saved as is")]
    Json {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}: {path}: key {key}: {problem}")]
    Field {
        file: String,
        path: String,
        key: String,
        problem: String,
    },
    #[error("--region '{region}': {problem}")]
    Region { region: String, problem: String },
    #[error("--currency '{currency}': {problem}")]
    Currency { currency: String, problem: String },
}

/// Imports list-skus outputs and Retail Prices pages for one region into catalog TOML.
pub fn import(
    skus: &[Input],
    prices: &[Input],
    options: &Options,
) -> Result<Imported, ImportError> {
    let region = options.region.trim().to_ascii_lowercase();
    if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(ImportError::Region {
            region: options.region.clone(),
            problem: "write Azure's region name as `az account list-locations` shows it, e.g. \
                      eastus, westeurope, japaneast"
                .into(),
        });
    }
    let currency = options
        .currency
        .as_deref()
        .unwrap_or(crate::types::DEFAULT_CURRENCY)
        .trim()
        .to_ascii_uppercase();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(ImportError::Currency {
            currency,
            problem: "not an ISO 4217 code; write three letters, e.g. EUR or USD".into(),
        });
    }
    let mut read = skus::Read::default();
    for input in skus {
        let document = parse(input)?;
        skus::read(&input.name, &document, &region, &mut read)?;
    }
    let mut priced = prices::Read::default();
    for input in prices {
        let document = parse(input)?;
        prices::read(
            &input.name,
            &document,
            &region,
            &currency,
            &read,
            &mut priced,
        )?;
    }
    let rows = priced.finish();
    let toml = write::catalog_toml(options, &region, &currency, skus, prices, &read, &rows);
    Ok(Imported {
        toml,
        vm_rows: read.vms.len(),
        disk_rows: read.disks.len(),
        price_rows: rows.prices.len(),
        skus: read.counts.clone(),
        prices: rows.counts.clone(),
    })
}

fn parse(input: &Input) -> Result<Value, ImportError> {
    serde_json::from_str(input.text).map_err(|error| ImportError::Json {
        file: input.name.clone(),
        line: error.line(),
        column: error.column(),
        message: error
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or("")
            .into(),
    })
}

/// The array of records of a document: a bare array, or the array under `key` of an object
/// (`{"value": [...]}` from the REST API, `{"Items": [...]}` from a prices page). Returns the
/// records and the JSON path prefix they live at.
fn records<'a>(
    file: &str,
    document: &'a Value,
    key: &str,
) -> Result<(&'a Vec<Value>, String), ImportError> {
    match document {
        Value::Array(items) => Ok((items, "$".into())),
        Value::Object(map) => match map.get(key) {
            Some(Value::Array(items)) => Ok((items, format!("$.{key}"))),
            _ => Err(ImportError::Field {
                file: file.into(),
                path: "$".into(),
                key: key.into(),
                problem: format!("expected an array of records under \"{key}\" (or a bare array)"),
            }),
        },
        _ => Err(ImportError::Field {
            file: file.into(),
            path: "$".into(),
            key: key.into(),
            problem: "expected a JSON array or object".into(),
        }),
    }
}

/// A field of a record that must be text when present.
fn text<'a>(
    file: &str,
    path: &str,
    record: &'a Value,
    key: &str,
) -> Result<Option<&'a str>, ImportError> {
    match record.get(key) {
        None | Some(Value::Null) => Ok(None),
        // Blanks around a name are not part of it (the catalog loader trims them too, so
        // "E4s_v5 " and "E4s_v5" would become one name twice); blank text is no text.
        Some(Value::String(text)) => Ok(Some(text.trim()).filter(|text| !text.is_empty())),
        Some(other) => Err(ImportError::Field {
            file: file.into(),
            path: path.into(),
            key: key.into(),
            problem: format!("expected text, found {other}"),
        }),
    }
}

/// A field that must be present and text.
fn required_text<'a>(
    file: &str,
    path: &str,
    record: &'a Value,
    key: &str,
) -> Result<&'a str, ImportError> {
    text(file, path, record, key)?.ok_or_else(|| ImportError::Field {
        file: file.into(),
        path: path.into(),
        key: key.into(),
        problem: "missing; every record of this input has it".into(),
    })
}

/// The day `seconds` after the Unix epoch, YYYY-MM-DD (UTC), for the import's date.
pub fn date_of_unix_seconds(seconds: u64) -> String {
    // Howard Hinnant's days-to-civil algorithm: exact for the proleptic Gregorian calendar.
    let days = (seconds / 86_400) as i64 + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests;
