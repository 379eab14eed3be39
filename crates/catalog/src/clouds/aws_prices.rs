//! AWS on-demand prices from AWS's own Price List: the EC2 offer file of one region
//! (`https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/REGION/index.json`,
//! the Price List Bulk API's documented shape: `products` keyed by SKU, each with its
//! `productFamily` and `attributes`, then `terms.OnDemand` keyed by SKU and offer term, each with
//! its `priceDimensions` of `unit` and `pricePerUnit.USD`). It becomes an AWS catalog file of
//! `[[instance_prices]]` and `[[volume_prices]]` rows for `plan`/`predict --cloud aws --catalog`.
//!
//! A region's EC2 offer file is gigabytes, so it is read as a stream: each product and each
//! term is decoded on its own and dropped unless it is one of the rows below, and memory holds
//! only those. What is kept:
//! - instances: `Compute Instance` products with shared tenancy, no pre-installed software,
//!   capacity status `Used`, `BoxUsage` usage type, Linux (`No License required`) or Windows
//!   (`License Included`), in the region asked; their hourly on-demand price;
//! - EBS volumes the catalog has rules for (gp3, gp2, io2, io1, st1, sc1): per GB-month (`Storage`),
//!   per provisioned IOPS-month (`System Operation`, `EBS:VolumeP-IOPS.*`; io2's three tiers)
//!   and gp3's per provisioned throughput (`Provisioned Throughput`, billed per GiBps-month:
//!   divided by 1,024 to the catalog's per MiB/s-month).
//!
//! ```
//! use iofit_catalog::clouds::aws_prices::import_offer;
//! let offer = r#"{"formatVersion":"v1.0","offerCode":"AmazonEC2","version":"20261101",
//!   "publicationDate":"2026-11-01T00:00:00Z",
//!   "products":{"SKU1":{"sku":"SKU1","productFamily":"Storage","attributes":{
//!     "regionCode":"eu-central-1","volumeApiName":"gp3","usagetype":"EUC1-EBS:VolumeUsage.gp3"}}},
//!   "terms":{"OnDemand":{"SKU1":{"SKU1.T":{"priceDimensions":{"SKU1.T.R":{
//!     "unit":"GB-Mo","pricePerUnit":{"USD":"0.0952"},"beginRange":"0","endRange":"Inf"}}}}}}}"#;
//! let imported = import_offer("index.json", offer.as_bytes(), "eu-central-1", "2026-11-27", None).unwrap();
//! assert!(imported.toml.contains("price_per_gib_month = 0.0952"));
//! ```

use super::aws::AwsCatalog;
use crate::error::CatalogError;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Read;

/// The volume types the catalog has rules for; prices of others would plan nothing.
const VOLUME_TYPES: [&str; 6] = ["gp3", "gp2", "io2", "io1", "st1", "sc1"];
/// AWS bills io2's provisioned IOPS per volume in tiers (Amazon EBS pricing: up to 32,000
/// IOPS, 32,001 to 64,000, more than 64,000). The offer file lists each tier as its own usage
/// type (`EBS:VolumeP-IOPS.io2`, `.io2.tier2`, `.io2.tier3`), each priced from 0 to Inf, so
/// the bounds come from the pricing page, not the file.
const IO2_FIRST_TIER_IOPS: f64 = 32_000.0;
/// The io2 tiers after the first: usage-type suffix and the IOPS count each starts above.
const IO2_TIERS: [(&str, f64); 2] = [(".io2.tier2", 32_000.0), (".io2.tier3", 64_000.0)];

/// The written file and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct AwsPriceImport {
    pub toml: String,
    pub region: String,
    /// Instance types priced, with the OSs each was priced for.
    pub instance_rows: usize,
    /// Volume types priced.
    pub volume_types: Vec<String>,
    /// The offer file's own `publicationDate` and `version`.
    pub publication_date: String,
    pub version: String,
}

/// What one wanted product is.
#[derive(Clone, Debug, PartialEq)]
enum Wanted {
    Instance {
        name: String,
        os: &'static str,
    },
    VolumeStorage(String),
    VolumeIops(String),
    /// A lower io2 IOPS rate above this many IOPS of a volume.
    VolumeIopsTier(String, u32),
    VolumeThroughput(String),
}

#[derive(Deserialize)]
struct Product {
    #[serde(rename = "productFamily", default)]
    product_family: String,
    #[serde(default)]
    attributes: HashMap<String, String>,
}

#[derive(Deserialize)]
struct Term {
    #[serde(rename = "priceDimensions", default)]
    price_dimensions: HashMap<String, Dimension>,
}

#[derive(Deserialize)]
struct Dimension {
    #[serde(default)]
    unit: String,
    #[serde(rename = "pricePerUnit", default)]
    price_per_unit: HashMap<String, String>,
    #[serde(rename = "beginRange", default)]
    begin_range: Option<String>,
}

fn attr<'a>(product: &'a Product, key: &str) -> &'a str {
    product
        .attributes
        .get(key)
        .map(String::as_str)
        .unwrap_or("")
}

/// Whether a product is one of the kept rows, in `region`.
fn wanted(product: &Product, region: &str) -> Option<Wanted> {
    // Offer files before 2021 have no regionCode; the regional file then holds one region (and
    // its Local Zones, which are not the region).
    match product.attributes.get("regionCode") {
        Some(code) if code != region => return None,
        None if attr(product, "locationType") != "AWS Region" => return None,
        _ => {}
    }
    let usage = attr(product, "usagetype");
    match product.product_family.as_str() {
        "Compute Instance" => {
            let os = match (
                attr(product, "operatingSystem"),
                attr(product, "licenseModel"),
            ) {
                ("Linux", "No License required") => "linux",
                ("Windows", "License Included") => "windows",
                _ => return None,
            };
            let on_demand = attr(product, "tenancy") == "Shared"
                && attr(product, "preInstalledSw") == "NA"
                && attr(product, "capacitystatus") == "Used"
                && usage.split('-').any(|part| part.starts_with("BoxUsage"))
                && matches!(
                    product.attributes.get("marketoption").map(String::as_str),
                    None | Some("OnDemand")
                );
            let name = attr(product, "instanceType");
            (on_demand && !name.is_empty()).then(|| Wanted::Instance {
                name: name.to_string(),
                os,
            })
        }
        "Storage" => volume_of(product, usage, "EBS:VolumeUsage").map(Wanted::VolumeStorage),
        "System Operation" => volume_of(product, usage, "EBS:VolumeP-IOPS")
            .map(Wanted::VolumeIops)
            .or_else(|| io2_tier_of(product, usage)),
        "Provisioned Throughput" => {
            volume_of(product, usage, "EBS:VolumeP-Throughput").map(Wanted::VolumeThroughput)
        }
        _ => None,
    }
}

/// The volume type of an EBS usage type `[PREFIX-]EBS:Volume...{.TYPE}`, when the catalog knows
/// it; io2's higher IOPS tiers (`.io2.tier2`) are read by [`io2_tier_of`].
fn volume_of(product: &Product, usage: &str, kind: &str) -> Option<String> {
    let name = attr(product, "volumeApiName");
    // io1 is billed under its old name, Provisioned IOPS: `EBS:VolumeUsage.piops`.
    let billed_as = if name == "io1" { "piops" } else { name };
    let suffix = format!("{kind}.{billed_as}");
    (VOLUME_TYPES.contains(&name) && usage.ends_with(&suffix)).then(|| name.to_string())
}

/// An io2 IOPS tier after the first (`EBS:VolumeP-IOPS.io2.tier2`, `.tier3`).
fn io2_tier_of(product: &Product, usage: &str) -> Option<Wanted> {
    if attr(product, "volumeApiName") != "io2" {
        return None;
    }
    IO2_TIERS
        .iter()
        .find(|(suffix, _)| {
            usage
                .strip_suffix(suffix)
                .is_some_and(|u| u.ends_with("EBS:VolumeP-IOPS"))
        })
        .map(|&(_, above)| Wanted::VolumeIopsTier("io2".into(), above as u32))
}

/// The offer file's top level, read as a stream.
struct Offer<'a> {
    region: &'a str,
    wanted: HashMap<String, Wanted>,
    /// (what, SKU, unit, USD per unit)
    prices: Vec<(Wanted, String, String, f64)>,
    products_seen: bool,
    publication_date: String,
    version: String,
}

struct ProductsSeed<'o, 'a>(&'o mut Offer<'a>);
struct TermsSeed<'o, 'a>(&'o mut Offer<'a>);
struct OnDemandSeed<'o, 'a>(&'o mut Offer<'a>);

impl<'de> DeserializeSeed<'de> for ProductsSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ProductsSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the offer file's products, an object keyed by SKU")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(sku) = map.next_key::<String>()? {
            let product: Product = map.next_value()?;
            if let Some(w) = wanted(&product, self.0.region) {
                self.0.wanted.insert(sku, w);
            }
        }
        self.0.products_seen = true;
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for TermsSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TermsSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the offer file's terms, an object keyed by term type")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(kind) = map.next_key::<String>()? {
            if kind == "OnDemand" {
                if !self.0.products_seen {
                    return Err(serde::de::Error::custom(
                        "terms come before products; expected AWS's offer file as published \
                         (products first)",
                    ));
                }
                map.next_value_seed(OnDemandSeed(&mut *self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for OnDemandSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OnDemandSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("on-demand terms keyed by SKU")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(sku) = map.next_key::<String>()? {
            let Some(w) = self.0.wanted.get(&sku).cloned() else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let terms: HashMap<String, Term> = map.next_value()?;
            for dimension in terms
                .into_values()
                .flat_map(|t| t.price_dimensions.into_values())
            {
                // A tiered dimension's first range is the price a plan pays first.
                if dimension.begin_range.as_deref().is_some_and(|b| b != "0") {
                    continue;
                }
                let Some(usd) = dimension.price_per_unit.get("USD") else {
                    continue;
                };
                let usd: f64 = usd.trim().parse().map_err(|_| {
                    serde::de::Error::custom(format!(
                        "terms.OnDemand.{sku}: pricePerUnit.USD '{usd}' is not a number"
                    ))
                })?;
                if !usd.is_finite() || usd < 0.0 {
                    return Err(serde::de::Error::custom(format!(
                        "terms.OnDemand.{sku}: pricePerUnit.USD {usd} is not a price"
                    )));
                }
                self.0
                    .prices
                    .push((w.clone(), sku.clone(), dimension.unit, usd));
            }
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for &mut Offer<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for &mut Offer<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an AWS Price List offer file (an object with products and terms)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "products" => map.next_value_seed(ProductsSeed(&mut *self))?,
                "terms" => map.next_value_seed(TermsSeed(&mut *self))?,
                "publicationDate" => self.publication_date = map.next_value()?,
                "version" => self.version = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// Reads one region's EC2 offer file from `reader` (named `file` in errors) into an AWS
/// catalog file of that region's prices, checked to load.
pub fn import_offer(
    file: &str,
    reader: impl Read,
    region: &str,
    date: &str,
    table_id: Option<&str>,
) -> Result<AwsPriceImport, CatalogError> {
    let mut offer = Offer {
        region,
        wanted: HashMap::new(),
        prices: Vec::new(),
        products_seen: false,
        publication_date: String::new(),
        version: String::new(),
    };
    let mut stream = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    (&mut offer)
        .deserialize(&mut stream)
        .and_then(|()| stream.end())
        .map_err(|e| CatalogError::Syntax {
            file: file.to_string(),
            line: e.line(),
            message: format!(
                "{e}; expected AWS's EC2 offer file of one region (offers/v1.0/aws/AmazonEC2/current/REGION/index.json)"
            ),
        })?;
    if !offer.products_seen {
        return Err(CatalogError::File {
            file: file.to_string(),
            problem: "no products: expected AWS's EC2 offer file of one region \
                      (offers/v1.0/aws/AmazonEC2/current/REGION/index.json)"
                .into(),
        });
    }
    render(file, offer, date, table_id)
}

/// io2's tiers as far as the file prices them without a gap (tier 3 without tier 2 would
/// leave 32,001 to 64,000 unpriced); io1, billed flat as io2's first tier, up to 32,000 (a
/// higher io1 rate is not sourced).
fn iops_tiers_toml(name: &str, tiers: &BTreeMap<u32, f64>) -> String {
    if !matches!(name, "io2" | "io1") {
        return String::new();
    }
    let listed: Vec<String> = if name == "io2" {
        IO2_TIERS
            .iter()
            .map_while(|&(_, above)| {
                tiers.get(&(above as u32)).map(|rate| {
                    format!("{{ above_iops = {above}, price_per_iops_month = {rate} }}")
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    // Priced up to the start of the first tier the file does not price; all of it when it
    // prices every tier.
    let priced_up_to = if listed.is_empty() {
        Some(IO2_FIRST_TIER_IOPS)
    } else {
        IO2_TIERS.get(listed.len()).map(|&(_, above)| above)
    };
    let mut out = String::new();
    if !listed.is_empty() {
        out.push_str(&format!("iops_tiers = [{}]\n", listed.join(", ")));
    }
    if let Some(up_to) = priced_up_to {
        out.push_str(&format!("iops_priced_up_to = {up_to}\n"));
    }
    out
}

/// The rows of one volume type, as rates per month.
#[derive(Default)]
struct VolumeRates {
    per_gib: Option<f64>,
    per_iops: Option<f64>,
    per_mib_s: Option<f64>,
    /// (above IOPS, rate), io2's tiers after the first.
    iops_tiers: BTreeMap<u32, f64>,
}

fn render(
    file: &str,
    offer: Offer,
    date: &str,
    table_id: Option<&str>,
) -> Result<AwsPriceImport, CatalogError> {
    let region = offer.region;
    let mut instances: BTreeMap<(String, &'static str), (f64, String)> = BTreeMap::new();
    let mut volumes: BTreeMap<String, VolumeRates> = BTreeMap::new();
    for (wanted, sku, unit, usd) in offer.prices {
        match (wanted, unit.as_str()) {
            (Wanted::Instance { name, os }, "Hrs") => {
                instances.insert((name, os), (usd, sku));
            }
            (Wanted::VolumeStorage(v), "GB-Mo" | "GB-month") => {
                volumes.entry(v).or_default().per_gib = Some(usd)
            }
            (Wanted::VolumeIops(v), "IOPS-Mo") => volumes.entry(v).or_default().per_iops = Some(usd),
            (Wanted::VolumeIopsTier(v, above), "IOPS-Mo") => {
                volumes.entry(v).or_default().iops_tiers.insert(above, usd);
            }
            (Wanted::VolumeThroughput(v), "GiBps-mo") => {
                volumes.entry(v).or_default().per_mib_s = Some(usd / 1024.0)
            }
            (Wanted::VolumeThroughput(v), "MiBps-Mo") => {
                volumes.entry(v).or_default().per_mib_s = Some(usd)
            }
            (w, unit) => {
                return Err(CatalogError::File {
                    file: file.to_string(),
                    problem: format!(
                        "{w:?}: unit '{unit}' is not one iofit converts; expected Hrs, GB-Mo, IOPS-Mo or GiBps-mo"
                    ),
                })
            }
        }
    }
    let id = table_id
        .map(str::to_string)
        .unwrap_or_else(|| format!("aws-prices-{region}-{date}"));
    let mut toml = format!(
        "[table]\nid = \"{id}\"\nedition = \"current\"\n\
         title = \"AWS {region} on-demand prices from AWS's Price List (EC2 offer file)\"\n\
         source = \"AWS Price List Bulk API, offers/v1.0/aws/AmazonEC2/current/{region}/index.json: {}, version {}, publicationDate {}\"\n\
         date = \"{date}\"\nprice_basis = \"{region}, USD, on-demand; month = 730 hours\"\n\
         notes = \"Instances: shared tenancy, no pre-installed software, Linux (No License required) and Windows (License Included). gp3 throughput is billed per GiBps-month in the file, divided by 1,024 here. io2's IOPS are billed per volume in tiers: up to 32,000, 32,001 to 64,000 and above 64,000 (the bounds are Amazon EBS pricing's; the file lists each tier as a usage type of its own, .io2, .io2.tier2, .io2.tier3); a tier the file does not price ends the priced range. io1 has one rate, used up to 32,000 IOPS.\"\n",
        file.replace('"', "'"),
        offer.version.replace('"', "'"),
        offer.publication_date.replace('"', "'"),
    );
    for (name, rates) in &volumes {
        toml.push_str(&format!(
            "\n[[volume_prices]]\nname = \"{name}\"\nregion = \"{region}\"\n"
        ));
        for (key, value) in [
            ("price_per_gib_month", rates.per_gib),
            ("price_per_iops_month", rates.per_iops),
            ("price_per_mib_s_month", rates.per_mib_s),
        ] {
            if let Some(v) = value {
                toml.push_str(&format!("{key} = {v}\n"));
            }
        }
        if rates.per_iops.is_some() {
            toml.push_str(&iops_tiers_toml(name, &rates.iops_tiers));
        }
    }
    for ((name, os), (usd, sku)) in &instances {
        toml.push_str(&format!(
            "\n[[instance_prices]]\nname = \"{name}\"\nregion = \"{region}\"\nos = \"{os}\"\nprice_per_hour = {usd}\nsource = \"Price List SKU {}\"\n",
            sku.replace('"', "'")
        ));
    }
    AwsCatalog::default().add_text("imported file", &toml)?;
    Ok(AwsPriceImport {
        toml,
        region: region.to_string(),
        instance_rows: instances.len(),
        volume_types: volumes.into_keys().collect(),
        publication_date: offer.publication_date,
        version: offer.version,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Os;

    /// A product of the offer file, in the documented shape.
    fn product(sku: &str, family: &str, attributes: &[(&str, &str)]) -> String {
        let attrs: Vec<String> = attributes
            .iter()
            .map(|(k, v)| format!("\"{k}\":\"{v}\""))
            .collect();
        format!(
            "\"{sku}\":{{\"sku\":\"{sku}\",\"productFamily\":\"{family}\",\"attributes\":{{{}}}}}",
            attrs.join(",")
        )
    }

    fn on_demand(sku: &str, unit: &str, usd: &str) -> String {
        format!(
            "\"{sku}\":{{\"{sku}.JRTCKXETXF\":{{\"offerTermCode\":\"JRTCKXETXF\",\"sku\":\"{sku}\",\
             \"priceDimensions\":{{\"{sku}.JRTCKXETXF.6YS6EN2CT7\":{{\"unit\":\"{unit}\",\
             \"beginRange\":\"0\",\"endRange\":\"Inf\",\"pricePerUnit\":{{\"USD\":\"{usd}\"}},\
             \"appliesTo\":[]}}}},\"termAttributes\":{{}}}}}}"
        )
    }

    fn instance(sku: &str, name: &str, os: &str, license: &str, extra: &[(&str, &str)]) -> String {
        let usage = format!("EUC1-BoxUsage:{name}");
        let mut attributes = vec![
            ("regionCode", "eu-central-1"),
            ("location", "EU (Frankfurt)"),
            ("locationType", "AWS Region"),
            ("instanceType", name),
            ("operatingSystem", os),
            ("licenseModel", license),
            ("tenancy", "Shared"),
            ("preInstalledSw", "NA"),
            ("capacitystatus", "Used"),
            ("marketoption", "OnDemand"),
            ("usagetype", usage.as_str()),
        ];
        for (k, v) in extra {
            attributes.retain(|(key, _)| key != k);
            attributes.push((k, v));
        }
        product(sku, "Compute Instance", &attributes)
    }

    fn ebs(sku: &str, family: &str, volume: &str, usage: &str) -> String {
        product(
            sku,
            family,
            &[
                ("regionCode", "eu-central-1"),
                ("volumeApiName", volume),
                ("usagetype", usage),
            ],
        )
    }

    /// An EC2 offer file of eu-central-1 with the kept rows and one of each kind left out.
    fn sample() -> String {
        let products = [
            instance("I1", "m6i.large", "Linux", "No License required", &[]),
            instance("I2", "m6i.large", "Windows", "License Included", &[]),
            instance("X1", "m6i.large", "Windows", "Bring your own license", &[]),
            instance(
                "X2",
                "m6i.large",
                "Linux",
                "No License required",
                &[("tenancy", "Dedicated")],
            ),
            instance("X3", "m6i.large", "RHEL", "No License required", &[]),
            instance(
                "X4",
                "m6i.large",
                "Linux",
                "No License required",
                &[("capacitystatus", "UnusedCapacityReservation")],
            ),
            instance(
                "X5",
                "m6i.large",
                "Linux",
                "No License required",
                &[("regionCode", "eu-central-1-ham-1a")],
            ),
            instance(
                "X6",
                "m6i.large",
                "Linux",
                "No License required",
                &[("preInstalledSw", "SQL Std")],
            ),
            instance("I3", "m6i.xlarge", "Linux", "No License required", &[]),
            ebs("V1", "Storage", "gp3", "EUC1-EBS:VolumeUsage.gp3"),
            ebs("V2", "System Operation", "gp3", "EUC1-EBS:VolumeP-IOPS.gp3"),
            ebs(
                "V3",
                "Provisioned Throughput",
                "gp3",
                "EUC1-EBS:VolumeP-Throughput.gp3",
            ),
            ebs("V4", "Storage", "io2", "EUC1-EBS:VolumeUsage.io2"),
            ebs("V5", "System Operation", "io2", "EUC1-EBS:VolumeP-IOPS.io2"),
            ebs(
                "V6",
                "System Operation",
                "io2",
                "EUC1-EBS:VolumeP-IOPS.io2.tier2",
            ),
            ebs(
                "V13",
                "System Operation",
                "io2",
                "EUC1-EBS:VolumeP-IOPS.io2.tier3",
            ),
            ebs("V7", "Storage", "st1", "EUC1-EBS:VolumeUsage.st1"),
            ebs("V8", "Storage", "sc1", "EUC1-EBS:VolumeUsage.sc1"),
            ebs("V10", "Storage", "io1", "EUC1-EBS:VolumeUsage.piops"),
            ebs(
                "V11",
                "System Operation",
                "io1",
                "EUC1-EBS:VolumeP-IOPS.piops",
            ),
            ebs("V12", "Storage", "standard", "EUC1-EBS:VolumeUsage"),
            ebs("V9", "Storage Snapshot", "", "EUC1-EBS:SnapshotUsage"),
        ];
        let terms = [
            on_demand("I1", "Hrs", "0.1140000000"),
            on_demand("I2", "Hrs", "0.2060000000"),
            on_demand("X1", "Hrs", "0.1140000000"),
            on_demand("X2", "Hrs", "0.1250000000"),
            on_demand("X3", "Hrs", "0.1740000000"),
            on_demand("X4", "Hrs", "0.1140000000"),
            on_demand("X5", "Hrs", "0.1370000000"),
            on_demand("X6", "Hrs", "0.5000000000"),
            on_demand("I3", "Hrs", "0.2280000000"),
            on_demand("V1", "GB-Mo", "0.0952000000"),
            on_demand("V2", "IOPS-Mo", "0.0060000000"),
            on_demand("V3", "GiBps-mo", "48.7424000000"),
            on_demand("V4", "GB-Mo", "0.1490000000"),
            on_demand("V5", "IOPS-Mo", "0.0780000000"),
            on_demand("V6", "IOPS-Mo", "0.0546000000"),
            on_demand("V13", "IOPS-Mo", "0.0382200000"),
            on_demand("V7", "GB-Mo", "0.0540000000"),
            on_demand("V8", "GB-Mo", "0.0180000000"),
            on_demand("V9", "GB-Mo", "0.0540000000"),
            on_demand("V10", "GB-Mo", "0.1490000000"),
            on_demand("V11", "IOPS-Mo", "0.0780000000"),
            on_demand("V12", "GB-Mo", "0.0500000000"),
        ];
        format!(
            "{{\"formatVersion\":\"v1.0\",\"disclaimer\":\"...\",\"offerCode\":\"AmazonEC2\",\
             \"version\":\"20261120000000\",\"publicationDate\":\"2026-11-20T00:00:00Z\",\
             \"products\":{{{}}},\"terms\":{{\"OnDemand\":{{{}}},\"Reserved\":{{{}}}}}}}",
            products.join(","),
            terms.join(","),
            on_demand("I1", "Hrs", "0.0700000000")
        )
    }

    #[test]
    fn an_offer_file_becomes_the_regions_prices_and_nothing_else() {
        let text = sample();
        let imported = import_offer(
            "index.json",
            text.as_bytes(),
            "eu-central-1",
            "2026-11-27",
            None,
        )
        .unwrap();
        assert_eq!(imported.instance_rows, 3, "{}", imported.toml);
        // sc1 and io1 (billed as piops) kept; magnetic `standard` has no rules: left out.
        assert_eq!(
            imported.volume_types,
            vec!["gp3", "io1", "io2", "sc1", "st1"]
        );
        assert_eq!(imported.publication_date, "2026-11-20T00:00:00Z");
        let mut catalog = AwsCatalog::embedded().unwrap();
        catalog.add_text("prices.toml", &imported.toml).unwrap();
        let price = |name, os| {
            catalog
                .instance_price(name, "eu-central-1", os)
                .map(|p| p.usd_hour)
        };
        assert_eq!(price("m6i.large", Os::Linux), Some(0.114));
        assert_eq!(price("m6i.large", Os::Windows), Some(0.206));
        assert_eq!(price("m6i.xlarge", Os::Linux), Some(0.228));
        // The file has no Windows m6i.xlarge: the built-in row stays, not one from this file.
        let windows = catalog
            .instance_price("m6i.xlarge", "eu-central-1", Os::Windows)
            .unwrap();
        assert!(windows
            .source
            .as_deref()
            .unwrap()
            .contains("ec2-cheaper-finder"));
        let gp3 = catalog.volume_price("gp3", "eu-central-1").unwrap();
        assert_eq!(gp3.usd_per_gib_month, Some(0.0952));
        assert_eq!(gp3.usd_per_iops_month, Some(0.006));
        // 48.7424 per GiBps-month is 0.0476 per MiB/s-month.
        assert!((gp3.usd_per_mib_s_month.unwrap() - 0.0476).abs() < 1e-12);
        let io2 = catalog.volume_price("io2", "eu-central-1").unwrap();
        assert_eq!(
            io2.usd_per_iops_month,
            Some(0.078),
            "the first tier, not tier2"
        );
        // Every tier priced: no limit, and a volume's IOPS are billed tier by tier.
        assert_eq!(io2.iops_priced_up_to, None);
        let tiers: Vec<(f64, f64)> = io2
            .iops_tiers
            .iter()
            .map(|t| (t.above_iops.get(), t.usd_per_iops_month))
            .collect();
        assert_eq!(tiers, vec![(32_000.0, 0.0546), (64_000.0, 0.03822)]);
        let usd = io2.iops_usd_month(80_000.0).unwrap();
        let expected = 32_000.0 * 0.078 + 32_000.0 * 0.0546 + 16_000.0 * 0.03822;
        assert!((usd - expected).abs() < 1e-9, "{usd} vs {expected}");
        assert!((io2.iops_usd_month(10_000.0).unwrap() - 780.0).abs() < 1e-9);
        // io1 has one rate, sourced up to 32,000 IOPS.
        assert_eq!(
            catalog
                .volume_price("sc1", "eu-central-1")
                .unwrap()
                .usd_per_gib_month,
            Some(0.018)
        );
        let io1 = catalog.volume_price("io1", "eu-central-1").unwrap();
        assert_eq!(io1.iops_priced_up_to, Some(32_000.0));
        assert_eq!(io1.iops_usd_month(32_001.0), None);
        assert_eq!(
            (io1.usd_per_gib_month, io1.usd_per_iops_month),
            (Some(0.149), Some(0.078))
        );
        assert!(catalog.volume_price("standard", "eu-central-1").is_none());
        // us-east-1's sourced rows are still there beside the new region's.
        assert!(catalog.volume_price("gp3", "us-east-1").is_some());
        assert!(imported.toml.contains("version 20261120000000"));
    }

    /// A file that prices io2's third tier but not its second leaves IOPS above 32,000 unpriced
    /// (a gap would bill 32,001 to 64,000 at nothing); with the second alone, up to 64,000.
    #[test]
    fn io2_tiers_are_priced_only_without_a_gap() {
        let io2_without = |usage: &str| {
            let offer = sample().replace(usage, "EUC1-EBS:Other");
            let imported = import_offer(
                "f.json",
                offer.as_bytes(),
                "eu-central-1",
                "2026-11-27",
                None,
            )
            .unwrap();
            let mut catalog = AwsCatalog::default();
            catalog.add_text("f.toml", &imported.toml).unwrap();
            catalog.volume_price("io2", "eu-central-1").unwrap().clone()
        };
        let io2 = io2_without("EUC1-EBS:VolumeP-IOPS.io2.tier2");
        assert!(io2.iops_tiers.is_empty());
        assert_eq!(io2.iops_priced_up_to, Some(32_000.0));
        let io2 = io2_without("EUC1-EBS:VolumeP-IOPS.io2.tier3");
        assert_eq!(io2.iops_tiers.len(), 1);
        assert_eq!(io2.iops_priced_up_to, Some(64_000.0));
        assert!(io2.iops_usd_month(64_000.0).is_some() && io2.iops_usd_month(64_001.0).is_none());
    }

    /// Tiers out of order, or without the first rate, are refused with the row and the fix.
    #[test]
    fn bad_iops_tiers_are_refused() {
        let head = "[table]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-01-01\"\n\n\
                    [[volume_prices]]\nname = \"io2\"\nregion = \"r\"\n";
        let descending = format!(
            "{head}price_per_iops_month = 0.065\niops_tiers = [{{ above_iops = 64000, price_per_iops_month = 0.03 }}, {{ above_iops = 32000, price_per_iops_month = 0.04 }}]\n"
        );
        let error = AwsCatalog::default()
            .add_text("p.toml", &descending)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("iops_tiers") && error.contains("ascending"),
            "{error}"
        );
        let no_base =
            format!("{head}iops_tiers = [{{ above_iops = 32000, price_per_iops_month = 0.04 }}]\n");
        let error = AwsCatalog::default()
            .add_text("p.toml", &no_base)
            .unwrap_err()
            .to_string();
        assert!(error.contains("price_per_iops_month"), "{error}");
    }

    #[test]
    fn another_region_in_the_same_file_is_not_priced_as_this_one() {
        let text = sample();
        let err = import_offer(
            "index.json",
            text.as_bytes(),
            "us-east-1",
            "2026-11-27",
            None,
        );
        let imported = err.unwrap();
        assert_eq!(imported.instance_rows, 0);
        assert!(imported.volume_types.is_empty());
    }

    #[test]
    fn bad_offer_files_name_the_file_line_and_fix() {
        let text = sample();
        let cut = &text[..text.len() / 2];
        let err = import_offer("cut.json", cut.as_bytes(), "eu-central-1", "d", None).unwrap_err();
        assert!(err.to_string().starts_with("cut.json: line 1:"), "{err}");
        assert!(err.to_string().contains("offer file"), "{err}");

        let swapped = r#"{"terms":{"OnDemand":{}},"products":{}}"#;
        let err =
            import_offer("s.json", swapped.as_bytes(), "eu-central-1", "d", None).unwrap_err();
        assert!(
            err.to_string().contains("terms come before products"),
            "{err}"
        );

        let bad_price = text.replace("0.1140000000", "n/a");
        let err =
            import_offer("p.json", bad_price.as_bytes(), "eu-central-1", "d", None).unwrap_err();
        assert!(
            err.to_string()
                .contains("terms.OnDemand.I1: pricePerUnit.USD 'n/a'"),
            "{err}"
        );

        let err = import_offer("e.json", "{}".as_bytes(), "eu-central-1", "d", None).unwrap_err();
        assert!(err.to_string().contains("no products"), "{err}");
        let err = import_offer("a.json", "[1]".as_bytes(), "eu-central-1", "d", None).unwrap_err();
        assert!(err.to_string().contains("a.json: line 1"), "{err}");
    }

    /// 200,000 products none of which is kept (a region's file holds about that many): read one
    /// at a time and dropped; the import is empty, not an error.
    #[test]
    fn a_large_offer_file_streams() {
        let mut text = String::from("{\"products\":{");
        for i in 0..200_000 {
            if i > 0 {
                text.push(',');
            }
            text.push_str(&product(
                &format!("S{i}"),
                "Data Transfer",
                &[("regionCode", "eu-central-1")],
            ));
        }
        text.push_str("},\"terms\":{\"OnDemand\":{}}}");
        let imported = import_offer(
            "big.json",
            text.as_bytes(),
            "eu-central-1",
            "2026-11-27",
            None,
        )
        .unwrap();
        assert_eq!(imported.instance_rows, 0);
    }
}
