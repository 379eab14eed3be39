//! Google Cloud on-demand prices from Google's Cloud Billing Catalog API: the public SKUs of
//! Compute Engine (`GET https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus`,
//! Google's "Get Google Cloud pricing information" how-to, cloud.google.com/billing/v1/how-tos/
//! catalog-api). Its documented shape: `skus[]`, each with `skuId`, `description`,
//! `category.resourceFamily/resourceGroup/usageType`, `serviceRegions[]` and `pricingInfo[]`
//! whose `pricingExpression` has a `usageUnit` and `tieredRates[].unitPrice{currencyCode,
//! units, nanos}` (a google.type.Money: `units` is an int64, which JSON carries as a string);
//! pages of up to 5,000 SKUs chained by `nextPageToken` (empty on the last page).
//!
//! The pages become a Google Cloud catalog file in `catalog/gcp-prices.toml`'s shape for one
//! region: `[[machine_prices]]` per hour of every machine type of the built-in tables whose
//! family's core and RAM SKUs are found (vCPUs x the core's rate + GiB x the RAM's), and
//! `[[disk_prices]]` per GiB-month of each disk type (with the IOPS and throughput rates of
//! the provisioned types when their SKUs are found). Every row names its SKU ids. What is kept:
//! `OnDemand` SKUs whose `serviceRegions` name the region and whose description starts with one
//! of the prefixes below (the descriptions Cyclenerd's price list maps, e.g. `N2 Instance Core`,
//! `Balanced PD Capacity`; `Regional ...`, custom, sole-tenant and commitment SKUs do not match).
//! A tiered rate's last tier is taken, as Cyclenerd's pricing.pl does. Prices must be USD.

use super::gcp::GcpCatalog;
use crate::error::CatalogError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Compute Engine's service id in the Cloud Billing Catalog.
pub const COMPUTE_ENGINE_SERVICE_ID: &str = "6F81-5844-456A";

/// A machine family's core and RAM SKU description prefixes.
const FAMILY_SKUS: [(&str, &str, &str); 6] = [
    (
        "n1",
        "N1 Predefined Instance Core",
        "N1 Predefined Instance Ram",
    ),
    ("n2", "N2 Instance Core", "N2 Instance Ram"),
    ("n2d", "N2D AMD Instance Core", "N2D AMD Instance Ram"),
    ("e2", "E2 Instance Core", "E2 Instance Ram"),
    ("c3", "C3 Instance Core", "C3 Instance Ram"),
    ("t2d", "T2D AMD Instance Core", "T2D AMD Instance Ram"),
];

/// What a disk SKU prices: (disk type, description prefix, part, the usage unit expected).
const DISK_SKUS: [(&str, &str, Part, &str); 11] = [
    (
        "pd-balanced",
        "Balanced PD Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
    (
        "pd-ssd",
        "SSD backed PD Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
    (
        "pd-standard",
        "Storage PD Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
    (
        "pd-extreme",
        "Extreme PD Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
    ("pd-extreme", "Extreme PD IOPS", Part::Iops, "mo"),
    (
        "hyperdisk-balanced",
        "Hyperdisk Balanced Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
    (
        "hyperdisk-balanced",
        "Hyperdisk Balanced IOPS",
        Part::Iops,
        "mo",
    ),
    (
        "hyperdisk-balanced",
        "Hyperdisk Balanced Throughput",
        Part::Throughput,
        "MiBy/s.mo",
    ),
    (
        "hyperdisk-extreme",
        "Hyperdisk Extreme Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
    (
        "hyperdisk-extreme",
        "Hyperdisk Extreme IOPS",
        Part::Iops,
        "mo",
    ),
    (
        "hyperdisk-throughput",
        "Hyperdisk Throughput Capacity",
        Part::Capacity,
        "GiBy.mo",
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Capacity,
    Iops,
    Throughput,
}

/// One page of the API's response, as documented.
#[derive(Debug, Deserialize)]
struct SkuPage {
    skus: Vec<Sku>,
    #[serde(rename = "nextPageToken", default)]
    next_page_token: String,
}

#[derive(Debug, Deserialize)]
struct Sku {
    #[serde(rename = "skuId")]
    sku_id: String,
    description: String,
    category: Category,
    #[serde(rename = "serviceRegions", default)]
    service_regions: Vec<String>,
    #[serde(rename = "pricingInfo", default)]
    pricing_info: Vec<PricingInfo>,
}

#[derive(Debug, Deserialize)]
struct Category {
    #[serde(rename = "usageType", default)]
    usage_type: String,
}

#[derive(Debug, Deserialize)]
struct PricingInfo {
    #[serde(rename = "pricingExpression")]
    pricing_expression: PricingExpression,
}

#[derive(Debug, Deserialize)]
struct PricingExpression {
    #[serde(rename = "usageUnit", default)]
    usage_unit: String,
    #[serde(rename = "tieredRates", default)]
    tiered_rates: Vec<TierRate>,
}

#[derive(Debug, Deserialize)]
struct TierRate {
    #[serde(rename = "unitPrice")]
    unit_price: Money,
}

/// google.type.Money: `units` an int64 (a JSON string, or a number from some encoders).
#[derive(Debug, Deserialize)]
struct Money {
    #[serde(rename = "currencyCode", default)]
    currency_code: String,
    #[serde(default)]
    units: Option<serde_json::Value>,
    #[serde(default)]
    nanos: i64,
}

/// One kept SKU: its id, description and rate per usage unit.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptSku {
    pub sku_id: String,
    pub description: String,
    pub usage_unit: String,
    pub price_usd: f64,
}

/// The SKUs of one region kept so far, page by page.
#[derive(Clone, Debug, Default)]
pub struct GcpSkuCollector {
    region: String,
    kept: BTreeMap<String, KeptSku>,
    left_out: Vec<String>,
    pages: usize,
}

/// What was written.
#[derive(Clone, Debug, PartialEq)]
pub struct GcpPriceImport {
    pub toml: String,
    pub region: String,
    pub machine_rows: usize,
    /// Disk types priced (capacity at least).
    pub disk_types: Vec<String>,
    /// Families of the built-in tables with no core or RAM SKU in the region.
    pub families_unpriced: Vec<String>,
    /// Wanted SKUs left out, each with why (a usage unit iofit does not expect).
    pub left_out: Vec<String>,
    pub pages: usize,
}

fn bad(file: &str, line: usize, message: String) -> CatalogError {
    CatalogError::Syntax {
        file: file.to_string(),
        line,
        message,
    }
}

/// The prefix a description starts with, as a whole word run (`N2 Instance Core` is not a
/// prefix of `N2D AMD ...`, and `N2 Instance Core running in Americas` matches it).
fn starts(description: &str, prefix: &str) -> bool {
    description == prefix
        || description
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(' '))
}

/// The prefix `description` starts with and the usage unit its rate must be in.
fn wanted_prefix(description: &str) -> Option<(&'static str, &'static str)> {
    FAMILY_SKUS
        .iter()
        .flat_map(|(_, core, ram)| [(*core, "h"), (*ram, "GiBy.h")])
        .chain(
            DISK_SKUS
                .iter()
                .map(|(_, prefix, _, unit)| (*prefix, *unit)),
        )
        .find(|(prefix, _)| starts(description, prefix))
}

/// A Money's value in USD; `page` names the page in errors.
fn money_usd(page: &str, sku: &Sku, money: &Money) -> Result<f64, CatalogError> {
    let problem = |message: String| bad(page, 1, message);
    if money.currency_code != "USD" {
        return Err(problem(format!(
            "SKU {} ({}): currencyCode '{}'; iofit's Google Cloud prices are USD: fetch without currencyCode",
            sku.sku_id, sku.description, money.currency_code
        )));
    }
    let not_integer = |shown: String| {
        problem(format!(
            "SKU {}: unitPrice.units {shown} is not an integer",
            sku.sku_id
        ))
    };
    let units = match &money.units {
        None => 0,
        Some(serde_json::Value::String(text)) => text
            .trim()
            .parse::<i64>()
            .map_err(|_| not_integer(format!("'{text}'")))?,
        Some(serde_json::Value::Number(n)) => {
            n.as_i64().ok_or_else(|| not_integer(n.to_string()))?
        }
        Some(other) => return Err(not_integer(other.to_string())),
    } as f64;
    Ok(units + money.nanos as f64 * 1e-9)
}

impl GcpSkuCollector {
    pub fn new(region: &str) -> GcpSkuCollector {
        GcpSkuCollector {
            region: region.to_string(),
            ..Default::default()
        }
    }

    /// Reads one page (`name` names it in errors); returns its `nextPageToken`, if any.
    pub fn add_page(&mut self, name: &str, text: &str) -> Result<Option<String>, CatalogError> {
        let page: SkuPage = serde_json::from_str(text).map_err(|e| {
            bad(
                name,
                e.line(),
                format!(
                    "not a Cloud Billing Catalog SKU page ({e}); save the whole response of GET /v1/services/{COMPUTE_ENGINE_SERVICE_ID}/skus"
                ),
            )
        })?;
        self.pages += 1;
        for sku in &page.skus {
            self.keep(name, sku)?;
        }
        Ok(Some(page.next_page_token).filter(|t| !t.trim().is_empty()))
    }

    fn keep(&mut self, page: &str, sku: &Sku) -> Result<(), CatalogError> {
        let Some((prefix, unit)) = wanted_prefix(&sku.description) else {
            return Ok(());
        };
        if sku.category.usage_type != "OnDemand"
            || !sku.service_regions.iter().any(|r| r == &self.region)
            || self.kept.contains_key(prefix)
        {
            return Ok(());
        }
        let Some(info) = sku.pricing_info.last() else {
            return Ok(());
        };
        let expression = &info.pricing_expression;
        let Some(rate) = expression.tiered_rates.last() else {
            return Err(bad(
                page,
                1,
                format!(
                    "SKU {} ({}): pricingExpression has no tieredRates",
                    sku.sku_id, sku.description
                ),
            ));
        };
        // A unit iofit does not expect is left out and named, not converted by a guess.
        if expression.usage_unit != unit {
            self.left_out.push(format!(
                "SKU {} ({}): usageUnit '{}', expected '{unit}'",
                sku.sku_id, sku.description, expression.usage_unit
            ));
            return Ok(());
        }
        let price_usd = money_usd(page, sku, &rate.unit_price)?;
        self.kept.insert(
            prefix.to_string(),
            KeptSku {
                sku_id: sku.sku_id.clone(),
                description: sku.description.clone(),
                usage_unit: expression.usage_unit.clone(),
                price_usd,
            },
        );
        Ok(())
    }

    /// A kept SKU by its description prefix.
    fn rate(&self, prefix: &str) -> Option<&KeptSku> {
        self.kept.get(prefix)
    }

    /// The catalog file of the region's prices for the machine types of `catalog`.
    pub fn render(
        &self,
        catalog: &GcpCatalog,
        date: &str,
        table_id: Option<&str>,
    ) -> Result<GcpPriceImport, CatalogError> {
        let region = &self.region;
        let id = table_id
            .map(str::to_string)
            .unwrap_or_else(|| format!("gcp-prices-{region}-{date}"));
        let mut toml = format!(
            "# Google Cloud on-demand prices in {region} from Google's Cloud Billing Catalog API \
             (Compute Engine SKUs), written by `iofit catalog fetch --cloud gcp`.\n[table]\n\
             id = {}\nedition = \"current\"\ntitle = {}\nsource = {}\ndate = {}\nprice_basis = \
             \"USD, on-demand, Linux (no OS licence), no sustained-use or committed-use discount; \
             month = 730 hours\"\n",
            quoted(&id),
            quoted(&format!(
                "Google Cloud on-demand prices in {region} (Cloud Billing Catalog API)"
            )),
            quoted(&format!(
                "cloudbilling.googleapis.com/v1/services/{COMPUTE_ENGINE_SERVICE_ID}/skus, read {date}"
            )),
            quoted(date),
        );
        let (machine_rows, families_unpriced) = self.render_machines(catalog, &mut toml);
        let disk_types = self.render_disks(&mut toml);
        // What is written must load as a catalog file.
        GcpCatalog::default().add_text(&format!("{id}.toml"), &toml)?;
        Ok(GcpPriceImport {
            toml,
            region: region.clone(),
            machine_rows,
            disk_types,
            families_unpriced,
            left_out: self.left_out.clone(),
            pages: self.pages,
        })
    }

    fn render_machines(&self, catalog: &GcpCatalog, toml: &mut String) -> (usize, Vec<String>) {
        let mut rows = 0;
        let mut unpriced = Vec::new();
        for (family, core, ram) in FAMILY_SKUS {
            let (Some(core), Some(ram)) = (self.rate(core), self.rate(ram)) else {
                if catalog.machine_types.iter().any(|m| m.family == family) {
                    unpriced.push(family.to_string());
                }
                continue;
            };
            for machine in catalog.machine_types.iter().filter(|m| m.family == family) {
                let hour = f64::from(machine.vcpu) * core.price_usd
                    + machine.memory_gib.get() * ram.price_usd;
                let source = format!(
                    "{} vCPU x ${}/h ({}) + {} GiB x ${}/GiB-h ({})",
                    machine.vcpu,
                    round(core.price_usd),
                    core.description,
                    machine.memory_gib.get(),
                    round(ram.price_usd),
                    ram.description
                );
                let _ = write!(
                    toml,
                    "\n[[machine_prices]]\nname = {}\nregion = {}\nprice_per_hour = {}\n\
                     sku = {}\nsource = {}\n",
                    quoted(&machine.name),
                    quoted(&self.region),
                    round(hour),
                    quoted(&format!("{}+{}", core.sku_id, ram.sku_id)),
                    quoted(&source)
                );
                rows += 1;
            }
        }
        (rows, unpriced)
    }

    fn render_disks(&self, toml: &mut String) -> Vec<String> {
        let mut priced = Vec::new();
        let mut types: Vec<&str> = DISK_SKUS.iter().map(|(t, _, _, _)| *t).collect();
        types.dedup();
        for disk_type in types {
            let mut parts: Vec<(Part, &KeptSku)> = Vec::new();
            for (_, prefix, part, _) in DISK_SKUS.iter().filter(|(t, ..)| *t == disk_type) {
                if let Some(sku) = self.rate(prefix) {
                    parts.push((*part, sku));
                }
            }
            let Some((_, capacity)) = parts.iter().find(|(p, _)| *p == Part::Capacity) else {
                continue;
            };
            let _ = write!(
                toml,
                "\n[[disk_prices]]\nname = {}\nregion = {}\nprice_per_gib_month = {}\n",
                quoted(disk_type),
                quoted(&self.region),
                round(capacity.price_usd)
            );
            for (part, key) in [
                (Part::Iops, "price_per_iops_month"),
                (Part::Throughput, "price_per_mib_s_month"),
            ] {
                if let Some((_, sku)) = parts.iter().find(|(p, _)| *p == part) {
                    let _ = writeln!(toml, "{key} = {}", round(sku.price_usd));
                }
            }
            let ids: Vec<&str> = parts.iter().map(|(_, s)| s.sku_id.as_str()).collect();
            let names: Vec<&str> = parts.iter().map(|(_, s)| s.description.as_str()).collect();
            let _ = writeln!(
                toml,
                "sku = {}\nsource = {}",
                quoted(&ids.join("+")),
                quoted(&names.join("; "))
            );
            priced.push(disk_type.to_string());
        }
        priced
    }
}

/// `text` as a TOML string (descriptions may hold quotes).
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// Twelve significant decimals: the sum of a few products of nanos, without float noise.
fn round(value: f64) -> f64 {
    (value * 1e12).round() / 1e12
}

#[cfg(test)]
#[path = "gcp_prices_tests.rs"]
mod tests;
