//! `iofit catalog fetch --region R`: reads the Azure Retail Prices API itself (VM prices:
//! Linux and Windows pay-as-you-go, 1- and 3-year reservations; disk tiers; the Premium SSD v2
//! and Ultra meters), following
//! `NextPageLink` and waiting out HTTP 429 as `Retry-After` asks, then imports the pages as
//! `catalog import` does ([`iofit_catalog::import`]: Spot and Low Priority rows are never taken
//! as on-demand prices) and writes the catalog file whole, its source naming the queries and
//! its date the day of the fetch. A page that is not the API's shape stops the fetch and
//! nothing is written.

use crate::catalog_import::{write_new_file, ImportOutcome};
use crate::ProcedureError;
use iofit_catalog::import::{date_of_unix_seconds, import, Input, Options};
use iofit_catalog::Catalog;
use iofit_model::units::{Seconds, UnixSeconds};
use std::path::PathBuf;
use std::time::Duration;

/// The Retail Prices API (documented at learn.microsoft.com/rest/api/cost-management/retail-prices/azure-retail-prices).
pub const RETAIL_PRICES_API: &str = "https://prices.azure.com/api/retail/prices";

/// A region's VM and disk prices are tens of pages of 100 items (about 70 for VMs); far more
/// means a server that keeps linking onward.
const MAX_PAGES: usize = 2000;
/// Throttled answers waited out per page before giving up.
const MAX_RETRIES: u32 = 6;

/// What to fetch and where to write it.
#[derive(Clone, Debug)]
pub struct FetchRequest {
    pub region: Option<String>,
    /// ISO 4217 code of the prices asked for (the API's `currencyCode`); default USD. A
    /// catalog in another currency names it (`currency = "EUR"`) and a plan adds its prices
    /// apart from US dollars, never converted.
    pub currency: Option<String>,
    /// The API's address (`RETAIL_PRICES_API`; a test gives a local server).
    pub api: String,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    pub allow_overwrite: bool,
    /// The time of the fetch (seconds since 1970): the table's date.
    pub unix_seconds: UnixSeconds,
    /// The longest wait a `Retry-After` may ask for, seconds.
    pub max_wait_s: Seconds<u64>,
}

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// `%`-encodes a query value (RFC 3986 unreserved characters stay).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The OData filters of one region: its VMs, and its managed disk tiers.
fn filters(region: &str) -> Vec<String> {
    vec![
        format!("armRegionName eq '{region}' and serviceName eq 'Virtual Machines'"),
        format!(
            "armRegionName eq '{region}' and serviceName eq 'Storage' and (productName eq \
             'Premium SSD Managed Disks' or productName eq 'Standard SSD Managed Disks' or \
             productName eq 'Standard HDD Managed Disks' or productName eq 'Azure Premium SSD \
             v2' or productName eq 'Ultra Disks')"
        ),
    ]
}

/// One page's body, waiting out 429 answers (`Retry-After` seconds, at most `max_wait_s`).
fn get_page(agent: &ureq::Agent, url: &str, max_wait_s: u64) -> Result<String, ProcedureError> {
    for attempt in 0..=MAX_RETRIES {
        match agent.get(url).call() {
            Ok(response) => {
                return response
                    .into_string()
                    .map_err(|e| bad(format!("{url}: reading the answer: {e}")))
            }
            Err(ureq::Error::Status(429, response)) if attempt < MAX_RETRIES => {
                // Retry-After in seconds (the API's form); without one, back off 2^attempt s.
                let asked = response
                    .header("Retry-After")
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .unwrap_or(1 << attempt);
                std::thread::sleep(Duration::from_secs(asked.min(max_wait_s)));
            }
            Err(ureq::Error::Status(code, _)) => {
                return Err(bad(format!(
                    "{url}: the Retail Prices API answered HTTP {code}{}; nothing was written",
                    if code == 429 {
                        format!(" (still throttled after {MAX_RETRIES} waits)")
                    } else {
                        String::new()
                    }
                )))
            }
            Err(ureq::Error::Transport(e)) => {
                // ureq's own text repeats the URL: say what failed once.
                let detail = e.message().map(str::to_string).unwrap_or_default();
                return Err(bad(format!(
                    "{url}: {} {detail}; check the network (or --api), nothing was written",
                    e.kind()
                )));
            }
        }
    }
    unreachable!("the last attempt returns")
}

/// Every page of one query, following `NextPageLink`; each page checked to be the API's
/// shape (`{"Items": [...], "NextPageLink": ...}`).
fn pages(
    agent: &ureq::Agent,
    first: String,
    max_wait_s: u64,
    out: &mut Vec<(String, String)>,
) -> Result<(), ProcedureError> {
    let mut next = Some(first);
    while let Some(url) = next.take() {
        if out.len() >= MAX_PAGES {
            return Err(bad(format!(
                "{url}: more than {MAX_PAGES} pages; the server keeps linking onward"
            )));
        }
        let body = get_page(agent, &url, max_wait_s)?;
        let page: serde_json::Value = serde_json::from_str(&body).map_err(|e| {
            bad(format!(
                "{url}: not a Retail Prices page ({e}); nothing was written"
            ))
        })?;
        if !page.get("Items").is_some_and(|items| items.is_array()) {
            return Err(bad(format!(
                "{url}: not a Retail Prices page (no \"Items\" array); nothing was written"
            )));
        }
        next = match page.get("NextPageLink") {
            Some(serde_json::Value::String(link)) if !link.is_empty() => Some(link.clone()),
            _ => None,
        };
        out.push((url, body));
    }
    Ok(())
}

/// Fetches, imports, checks and writes the catalog file `request.output`.
pub fn fetch_catalog(request: &FetchRequest) -> Result<ImportOutcome, ProcedureError> {
    let (Some(region), Some(output)) = (&request.region, &request.output) else {
        return Err(bad(
            "give --region REGION and -o FILE, e.g. `iofit catalog fetch --region westeurope \
             -o westeurope.toml`",
        ));
    };
    let region = region.trim().to_ascii_lowercase();
    if region.is_empty() || !region.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(bad(format!(
            "--region '{region}': write Azure's region name, e.g. eastus, westeurope, japaneast"
        )));
    }
    let currency = request
        .currency
        .as_deref()
        .unwrap_or("USD")
        .trim()
        .to_ascii_uppercase();
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(bad(format!(
            "--currency {currency}: write an ISO 4217 code the Retail Prices API takes, e.g. \
             USD (the default), EUR, GBP, JPY"
        )));
    }
    if request.output.as_ref().is_some_and(|p| p.exists()) && !request.allow_overwrite {
        return Err(bad(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            output.display()
        )));
    }
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(120))
        .build();
    let mut fetched: Vec<(String, String)> = Vec::new();
    for filter in filters(&region) {
        let url = format!(
            "{}?currencyCode=%27{currency}%27&$filter={}",
            request.api,
            encode(&filter)
        );
        pages(&agent, url, request.max_wait_s.get(), &mut fetched)?;
    }
    let inputs: Vec<Input> = fetched
        .iter()
        .map(|(url, body)| Input::new(url.clone(), body))
        .collect();
    let options = Options {
        region: region.clone(),
        date: date_of_unix_seconds(request.unix_seconds.get()),
        table_id: request.table_id.clone(),
        currency: Some(currency),
    };
    let imported = import(&[], &inputs, &options).map_err(|e| bad(e.to_string()))?;
    Catalog::embedded()
        .map_err(|e| ProcedureError::Internal(e.to_string()))?
        .load_str(&output.display().to_string(), &imported.toml)
        .map_err(|e| bad(e.to_string()))?;
    write_new_file(output, &imported.toml, request.allow_overwrite)?;
    Ok(ImportOutcome {
        output: output.clone(),
        region,
        imported,
    })
}
