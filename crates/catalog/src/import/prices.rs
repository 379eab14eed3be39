//! Azure Retail Prices API pages (`{"Items": [...], "NextPageLink": ...}`) -> monthly prices
//! of the region's VM sizes (by way of paying and OS) and fixed-size disks.

use super::skus;
use super::{records, required_text, text, ImportError};
use crate::types::{Os, Pricing};
use iofit_model::catalog_import::PriceCounts;
use serde_json::Value;
use std::collections::BTreeMap;

/// Azure's month: 730 hours.
pub const HOURS_PER_MONTH: f64 = 730.0;

type Key = (String, Pricing, Option<Os>);

#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    pub usd_month: f64,
    pub retail_price_usd: f64,
    pub retail_unit: String,
    pub file: String,
    pub date: Option<String>,
    pub primary: bool,
    pub notes: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Read {
    candidates: BTreeMap<Key, Candidate>,
    counts: PriceCounts,
    provisioned: BTreeMap<String, ProvisionedRates>,
}

/// The hourly meters of one provisioned disk type (Premium SSD v2, Ultra), USD per unit-hour:
/// capacity per GiB, IOPS, MB/s. The charged tier's price (a meter's free first tier, priced
/// 0 at `tierMinimumUnits` 0, is the baseline Azure gives, not a rate).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ProvisionedRates {
    pub usd_per_gib_hour: Option<f64>,
    pub usd_per_iops_hour: Option<f64>,
    pub usd_per_mb_s_hour: Option<f64>,
    pub file: String,
}

/// The prices kept, in a stable order (name, way of paying, OS).
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    pub prices: Vec<(Key, Candidate)>,
    pub counts: PriceCounts,
    /// Premium SSD v2 and Ultra meters found, by type name.
    pub provisioned: BTreeMap<String, ProvisionedRates>,
}

/// Reads one page (or a bare array of items).
pub(crate) fn read(
    file: &str,
    document: &Value,
    region: &str,
    currency: &str,
    offered: &skus::Read,
    read: &mut Read,
) -> Result<(), ImportError> {
    let (items, prefix) = records(file, document, "Items")?;
    for (index, item) in items.iter().enumerate() {
        let path = format!("{prefix}[{index}]");
        read.counts.items += 1;
        // One catalog holds one currency: a price in another is refused, never converted.
        let item_currency = text(file, &path, item, "currencyCode")?.unwrap_or(currency);
        if item_currency != currency {
            return Err(ImportError::Field {
                file: file.into(),
                path,
                key: "currencyCode".into(),
                problem: format!(
                    "{item_currency}, but the import is in {currency}; a catalog holds one \
                     currency: give --currency {item_currency}, or pages of one currency"
                ),
            });
        }
        let item_region = text(file, &path, item, "armRegionName")?.unwrap_or("");
        if !item_region.eq_ignore_ascii_case(region) {
            read.counts.other_regions += 1;
            continue;
        }
        let sku_name = text(file, &path, item, "skuName")?.unwrap_or("");
        let meter = text(file, &path, item, "meterName")?.unwrap_or("");
        if [sku_name, meter]
            .iter()
            .any(|t| t.contains("Spot") || t.contains("Low Priority"))
        {
            read.counts.spot_or_low_priority += 1;
            continue;
        }
        let service = text(file, &path, item, "serviceName")?.unwrap_or("");
        let found = match service {
            "Virtual Machines" => vm_price(file, &path, item, offered, &mut read.counts)?,
            "Storage" if provisioned_meter(item, sku_name, meter).is_some() => {
                read.add_provisioned(file, &path, item, sku_name, meter)?;
                None
            }
            "Storage" => disk_price(file, &path, item, sku_name, meter, &mut read.counts)?,
            _ => {
                read.counts.not_used += 1;
                None
            }
        };
        if let Some((key, mut candidate)) = found {
            candidate.retail_unit = candidate.retail_unit.replacen("USD", currency, 1);
            read.add(key, candidate);
        }
    }
    Ok(())
}

/// Which provisioned type and meter an item prices: (`PremiumV2` or `Ultra`, 0 capacity /
/// 1 IOPS / 2 MB/s); `None` for other items.
fn provisioned_meter(item: &Value, sku_name: &str, meter: &str) -> Option<(&'static str, usize)> {
    let product = item
        .get("productName")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("");
    let (name, prefix) = match (product, sku_name) {
        ("Azure Premium SSD v2", "Premium LRS") => ("PremiumV2", "Premium LRS Provisioned "),
        ("Ultra Disks", "Ultra LRS") => ("Ultra", "Ultra LRS Provisioned "),
        _ => return None,
    };
    let which = match meter.strip_prefix(prefix)? {
        "Capacity" => 0,
        "IOPS" => 1,
        "Throughput (MBps)" => 2,
        _ => return None,
    };
    (kind == "Consumption").then_some((name, which))
}

impl Read {
    /// Keeps a provisioned meter's charged price (the highest tier's, above the free one).
    fn add_provisioned(
        &mut self,
        file: &str,
        path: &str,
        item: &Value,
        sku_name: &str,
        meter: &str,
    ) -> Result<(), ImportError> {
        let Some((name, which)) = provisioned_meter(item, sku_name, meter) else {
            return Ok(());
        };
        let price = retail_price(file, path, item)?;
        let rates = self.provisioned.entry(name.to_string()).or_default();
        rates.file = file.to_string();
        let slot = match which {
            0 => &mut rates.usd_per_gib_hour,
            1 => &mut rates.usd_per_iops_hour,
            _ => &mut rates.usd_per_mb_s_hour,
        };
        if price > 0.0 && slot.is_none_or(|old| price > old) {
            *slot = Some(price);
        }
        Ok(())
    }

    fn add(&mut self, key: Key, candidate: Candidate) {
        match self.candidates.get_mut(&key) {
            None => {
                self.candidates.insert(key, candidate);
            }
            Some(old) => {
                if (old.usd_month - candidate.usd_month).abs() > 1e-9 {
                    self.counts.conflicts += 1;
                }
                if candidate.primary && !old.primary {
                    *old = candidate;
                }
            }
        }
    }

    /// Derives Windows reservation prices and returns the rows. Azure's VM reservations cover
    /// the compute only; a Windows VM under a reservation still pays its licence at the
    /// pay-as-you-go rate (Azure docs "Software costs not included with Azure Reserved VM
    /// Instances"), i.e. Windows minus Linux pay-as-you-go per hour.
    pub fn finish(mut self) -> Rows {
        let mut derived = Vec::new();
        for ((name, pricing, os), reserved) in &self.candidates {
            if *pricing == Pricing::Payg || *os != Some(Os::Linux) {
                continue;
            }
            let windows_key = (name.clone(), *pricing, Some(Os::Windows));
            if self.candidates.contains_key(&windows_key) {
                continue;
            }
            let payg = |os| {
                self.candidates
                    .get(&(name.clone(), Pricing::Payg, Some(os)))
            };
            let (Some(linux), Some(windows)) = (payg(Os::Linux), payg(Os::Windows)) else {
                continue;
            };
            let licence_month = windows.usd_month - linux.usd_month;
            if licence_month < 0.0 {
                continue;
            }
            let mut row = reserved.clone();
            row.usd_month = reserved.usd_month + licence_month;
            row.notes = Some(format!(
                "derived: the Linux {} ({:.2}/month) + the Windows licence at pay-as-you-go \
                 (Windows {:.4} - Linux {:.4} per hour, x 730 h); reservations cover compute only",
                pricing.words(),
                reserved.usd_month,
                windows.retail_price_usd,
                linux.retail_price_usd
            ));
            derived.push((windows_key, row));
        }
        self.counts.windows_reservations_derived = derived.len();
        self.candidates.extend(derived);
        Rows {
            prices: self.candidates.into_iter().collect(),
            counts: self.counts,
            provisioned: self.provisioned,
        }
    }
}

/// A VM item: the size's monthly price by way of paying and OS.
fn vm_price(
    file: &str,
    path: &str,
    item: &Value,
    offered: &skus::Read,
    counts: &mut PriceCounts,
) -> Result<Option<(Key, Candidate)>, ImportError> {
    let name = text(file, path, item, "armSkuName")?.unwrap_or("");
    if name.is_empty() {
        counts.not_used += 1;
        return Ok(None);
    }
    if !offered.vms.is_empty() && !offered.has_vm(name) {
        counts.sizes_not_offered += 1;
        return Ok(None);
    }
    let product = text(file, path, item, "productName")?.unwrap_or("");
    let os = if product.contains("Windows") {
        Os::Windows
    } else {
        Os::Linux
    };
    let Some((pricing, months)) = pricing_of(file, path, item, counts)? else {
        return Ok(None);
    };
    let price = retail_price(file, path, item)?;
    let unit = required_text(file, path, item, "unitOfMeasure")?;
    let usd_month = match months {
        // A reservation's retailPrice is the whole term's price, whatever unitOfMeasure says.
        Some(months) => price / months,
        None if unit == "1 Hour" => price * HOURS_PER_MONTH,
        None => {
            counts.unit_not_understood += 1;
            return Ok(None);
        }
    };
    let retail_unit = match pricing {
        Pricing::Payg => "USD per hour".to_string(),
        Pricing::Ri1y => "USD per 1-year term".to_string(),
        Pricing::Ri3y => "USD per 3-year term".to_string(),
    };
    Ok(Some((
        (name.to_string(), pricing, Some(os)),
        candidate(file, path, item, usd_month, price, retail_unit)?,
    )))
}

/// A managed disk item: `<tier> LRS` with a `... Disk(s)` meter per `1/Month`.
fn disk_price(
    file: &str,
    path: &str,
    item: &Value,
    sku_name: &str,
    meter: &str,
    counts: &mut PriceCounts,
) -> Result<Option<(Key, Candidate)>, ImportError> {
    let product = text(file, path, item, "productName")?.unwrap_or("");
    let kind = text(file, path, item, "type")?.unwrap_or("");
    let tier = sku_name.strip_suffix(" LRS").unwrap_or("");
    let is_tier = tier.len() >= 2
        && matches!(tier.as_bytes()[0], b'P' | b'E' | b'S')
        && tier[1..].bytes().all(|b| b.is_ascii_digit());
    let is_disk_meter = meter.ends_with(" Disk") || meter.ends_with(" Disks");
    if !(product.contains("Managed Disks") && is_tier && is_disk_meter && kind == "Consumption") {
        counts.not_used += 1;
        return Ok(None);
    }
    let unit = required_text(file, path, item, "unitOfMeasure")?;
    if unit != "1/Month" {
        counts.unit_not_understood += 1;
        return Ok(None);
    }
    let price = retail_price(file, path, item)?;
    Ok(Some((
        (tier.to_string(), Pricing::Payg, None),
        candidate(file, path, item, price, price, "USD per month".into())?,
    )))
}

/// `type` and `reservationTerm` -> the way of paying and, for reservations, the term's months.
/// `None` (counted) for other types and terms.
fn pricing_of(
    file: &str,
    path: &str,
    item: &Value,
    counts: &mut PriceCounts,
) -> Result<Option<(Pricing, Option<f64>)>, ImportError> {
    let kind = required_text(file, path, item, "type")?;
    match kind {
        "Consumption" => Ok(Some((Pricing::Payg, None))),
        "Reservation" => {
            let term = required_text(file, path, item, "reservationTerm")?;
            let pricing = match term {
                "1 Year" => Pricing::Ri1y,
                "3 Years" => Pricing::Ri3y,
                _ => {
                    counts.unit_not_understood += 1;
                    return Ok(None);
                }
            };
            Ok(Some((pricing, pricing.term_months())))
        }
        _ => {
            counts.not_used += 1;
            Ok(None)
        }
    }
}

fn retail_price(file: &str, path: &str, item: &Value) -> Result<f64, ImportError> {
    match item.get("retailPrice").and_then(Value::as_f64) {
        Some(price) if price.is_finite() && price >= 0.0 => Ok(price),
        other => Err(ImportError::Field {
            file: file.into(),
            path: path.into(),
            key: "retailPrice".into(),
            problem: format!(
                "expected a number >= 0, found {}",
                other.map_or_else(
                    || item
                        .get("retailPrice")
                        .map_or("nothing".into(), Value::to_string),
                    |p| p.to_string()
                )
            ),
        }),
    }
}

fn candidate(
    file: &str,
    path: &str,
    item: &Value,
    usd_month: f64,
    retail_price_usd: f64,
    retail_unit: String,
) -> Result<Candidate, ImportError> {
    let date = text(file, path, item, "effectiveStartDate")?
        .filter(|d| d.len() >= 10 && d.is_char_boundary(10))
        .map(|d| d[..10].to_string());
    Ok(Candidate {
        usd_month,
        retail_price_usd,
        retail_unit,
        file: file.to_string(),
        date,
        primary: item
            .get("isPrimaryMeterRegion")
            .and_then(Value::as_bool)
            .unwrap_or(true),
        notes: None,
    })
}
