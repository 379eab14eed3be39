//! `az vm list-skus --output json` (Resource SKUs API) -> VM sizes and disk SKUs of one region.

use super::{records, required_text, text, ImportError};
use crate::types::{DiskKind, DiskSku, VmSize};
use iofit_model::catalog_import::SkuCounts;
use iofit_model::units::{GiB, Iops, MBps};
use serde_json::Value;

/// A row and where it was read (file and JSON path), for the written file's comments.
#[derive(Clone, Debug)]
pub(crate) struct Sourced<T> {
    pub row: T,
    pub file: String,
    pub path: String,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Read {
    pub vms: Vec<Sourced<VmSize>>,
    pub disks: Vec<Sourced<DiskSku>>,
    pub counts: SkuCounts,
}

impl Read {
    pub fn has_vm(&self, name: &str) -> bool {
        self.vms
            .iter()
            .any(|vm| vm.row.name.eq_ignore_ascii_case(name))
    }
}

/// Reads one list-skus document (a bare array or `{"value": [...]}`).
pub(crate) fn read(
    file: &str,
    document: &Value,
    region: &str,
    read: &mut Read,
) -> Result<(), ImportError> {
    let (items, prefix) = records(file, document, "value")?;
    for (index, record) in items.iter().enumerate() {
        let path = format!("{prefix}[{index}]");
        read.counts.records += 1;
        // Azure writes virtualMachines; some saved copies lower-case it.
        let resource_type = match required_text(file, &path, record, "resourceType")? {
            t if t.eq_ignore_ascii_case("virtualMachines") => "virtualMachines",
            t if t.eq_ignore_ascii_case("disks") => "disks",
            _ => continue,
        };
        match offered_in(file, &path, record, region)? {
            Some(false) => continue,
            Some(true) => {}
            None => read.counts.without_locations += 1,
        }
        let name = required_text(file, &path, record, "name")?;
        if let Some(reason) = restriction(file, &path, record, region)? {
            let label = match resource_type {
                "disks" => format!(
                    "{name} {}",
                    text(file, &path, record, "size")?.unwrap_or("")
                ),
                _ => name.to_string(),
            };
            match reason {
                Restriction::Whole(code) => {
                    read.counts.restricted.push((label, code));
                    continue;
                }
                Restriction::SomeZones => read.counts.zone_limited.push(label),
            }
        }
        let capabilities = Capabilities::of(file, &path, record)?;
        if resource_type == "virtualMachines" {
            vm(file, &path, record, name, &capabilities, read)?;
        } else {
            disk(file, &path, record, name, &capabilities, read)?;
        }
    }
    Ok(())
}

fn vm(
    file: &str,
    path: &str,
    record: &Value,
    name: &str,
    caps: &Capabilities,
    read: &mut Read,
) -> Result<(), ImportError> {
    let (Some(vcpu), Some(memory_gib), Some(max_data_disks)) = (
        caps.number("vCPUs")?,
        caps.number("MemoryGB")?,
        caps.number("MaxDataDiskCount")?,
    ) else {
        read.counts.incomplete.push(name.to_string());
        return Ok(());
    };
    if read.has_vm(name) {
        return Ok(());
    }
    if caps.flag("UltraSSDAvailable")? == Some(true) {
        read.counts.ultra_ssd_available += 1;
    }
    let family = text(file, path, record, "family")?
        .map(family_name)
        .or(text(file, path, record, "size")?.map(str::to_string))
        .unwrap_or_else(|| name.to_string());
    let mb_s = |bytes: Option<f64>| bytes.map(|b| MBps(b / 1e6));
    let row = VmSize {
        name: name.to_string(),
        table: String::new(),
        family,
        vcpu: vcpu as u32,
        memory_gib: GiB(memory_gib),
        max_data_disks: max_data_disks as u32,
        premium_storage: caps.flag("PremiumIO")?.unwrap_or(false),
        uncached_iops: caps.number("UncachedDiskIOPS")?.map(Iops),
        uncached_throughput_mb_s: mb_s(caps.number("UncachedDiskBytesPerSecond")?),
        // A size without a host cache or temp disk lists these as 0 or not at all: both mean
        // "no such limit published", not a limit of 0.
        cached_iops: positive(caps.number("CombinedTempDiskAndCachedIOPS")?).map(Iops),
        cached_throughput_mb_s: mb_s(positive(
            caps.number("CombinedTempDiskAndCachedReadBytesPerSecond")?,
        )),
        cache_size_gib: positive(caps.number("CachedDiskBytes")?)
            .map(|bytes| GiB(bytes / GiB::BYTES_PER_UNIT)),
        temp_storage_gib: caps
            .number("MaxResourceVolumeMB")?
            .filter(|mib| *mib > 0.0)
            .map(|mib| GiB(mib / 1024.0)),
        burst_uncached_iops: None,
        burst_uncached_throughput_mb_s: None,
        price_usd_month: None,
        traits: None,
    };
    read.vms.push(Sourced {
        row,
        file: file.into(),
        path: path.into(),
    });
    Ok(())
}

fn disk(
    file: &str,
    path: &str,
    record: &Value,
    name: &str,
    caps: &Capabilities,
    read: &mut Read,
) -> Result<(), ImportError> {
    let kind = match name {
        "Premium_LRS" => DiskKind::PremiumSsd,
        "StandardSSD_LRS" => DiskKind::StandardSsd,
        "Standard_LRS" => DiskKind::StandardHdd,
        _ => {
            read.counts.other_disk_kinds += 1;
            return Ok(());
        }
    };
    let tier = required_text(file, path, record, "size")?;
    let (Some(size_gib), Some(iops), Some(mb_s)) = (
        caps.number("MaxSizeGiB")?,
        caps.number("MaxIOps")?,
        caps.number("MaxBandwidthMBps")?,
    ) else {
        read.counts.incomplete.push(format!("{name} {tier}"));
        return Ok(());
    };
    if read.disks.iter().any(|d| d.row.name == tier) {
        return Ok(());
    }
    let burst_iops = caps
        .number("MaxBurstIops")?
        .or(caps.number("MaxBurstIOps")?);
    let row = DiskSku {
        name: tier.to_string(),
        table: String::new(),
        kind,
        size_gib: GiB(size_gib),
        iops: Iops(iops),
        throughput_mb_s: MBps(mb_s),
        burst_iops: burst_iops.filter(|b| *b > iops).map(Iops),
        burst_throughput_mb_s: caps
            .number("MaxBurstBandwidthMBps")?
            .filter(|b| *b > mb_s)
            .map(MBps),
        price_usd_month: None,
        price_usd_per_10k_operations: None,
        operation_unit_kib: None,
    };
    read.disks.push(Sourced {
        row,
        file: file.into(),
        path: path.into(),
    });
    Ok(())
}

fn positive(value: Option<f64>) -> Option<f64> {
    value.filter(|v| *v > 0.0)
}

/// `standardDSv5Family` -> `DSv5`.
fn family_name(family: &str) -> String {
    let trimmed = family.strip_suffix("Family").unwrap_or(family);
    let lower = trimmed.to_ascii_lowercase();
    match lower.strip_prefix("standard") {
        Some(_) if trimmed.len() > "standard".len() => trimmed["standard".len()..].to_string(),
        _ => trimmed.to_string(),
    }
}

/// Whether `locations` lists the region; `None` when the record has no `locations`.
fn offered_in(
    file: &str,
    path: &str,
    record: &Value,
    region: &str,
) -> Result<Option<bool>, ImportError> {
    let Some(locations) = record.get("locations") else {
        return Ok(None);
    };
    let Some(locations) = locations.as_array() else {
        return Err(ImportError::Field {
            file: file.into(),
            path: path.into(),
            key: "locations".into(),
            problem: format!("expected an array of region names, found {locations}"),
        });
    };
    Ok(Some(
        locations
            .iter()
            .filter_map(Value::as_str)
            .any(|l| l.eq_ignore_ascii_case(region)),
    ))
}

enum Restriction {
    /// Not offered in the region (to this subscription): the reason code.
    Whole(String),
    /// Some zones only; still offered in the region.
    SomeZones,
}

/// The region's restriction of a SKU, if any: `type` `Location` naming the region, or `Zone`
/// (whole when it covers every zone `locationInfo` lists for the region).
fn restriction(
    file: &str,
    path: &str,
    record: &Value,
    region: &str,
) -> Result<Option<Restriction>, ImportError> {
    let Some(list) = record.get("restrictions").and_then(Value::as_array) else {
        return Ok(None);
    };
    let names = |value: Option<&Value>| -> Vec<String> {
        value
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default()
    };
    let zones_here: Vec<String> = record
        .get("locationInfo")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|info| {
            info.get("location")
                .and_then(Value::as_str)
                .is_some_and(|l| l.eq_ignore_ascii_case(region))
        })
        .flat_map(|info| names(info.get("zones")))
        .collect();
    let mut found = None;
    for (index, item) in list.iter().enumerate() {
        let item_path = format!("{path}.restrictions[{index}]");
        let kind = required_text(file, &item_path, item, "type")?;
        let code = text(file, &item_path, item, "reasonCode")?.unwrap_or("unstated");
        let info = item.get("restrictionInfo");
        let mut regions = names(item.get("values"));
        regions.extend(names(info.and_then(|i| i.get("locations"))));
        if !regions.iter().any(|r| r == region) {
            continue;
        }
        match kind {
            "Location" => return Ok(Some(Restriction::Whole(code.to_string()))),
            "Zone" => {
                let zones = names(info.and_then(|i| i.get("zones")));
                if !zones_here.is_empty() && zones_here.iter().all(|z| zones.contains(z)) {
                    return Ok(Some(Restriction::Whole(format!("{code} (every zone)"))));
                }
                found = Some(Restriction::SomeZones);
            }
            _ => {}
        }
    }
    Ok(found)
}

/// The `capabilities` name/value pairs of one record.
struct Capabilities<'a> {
    file: &'a str,
    path: String,
    pairs: Vec<(&'a str, &'a str, usize)>,
}

impl<'a> Capabilities<'a> {
    fn of(file: &'a str, path: &str, record: &'a Value) -> Result<Capabilities<'a>, ImportError> {
        let mut pairs = Vec::new();
        if let Some(list) = record.get("capabilities").and_then(Value::as_array) {
            for (index, item) in list.iter().enumerate() {
                let item_path = format!("{path}.capabilities[{index}]");
                let name = required_text(file, &item_path, item, "name")?;
                let value = required_text(file, &item_path, item, "value")?;
                pairs.push((name, value, index));
            }
        }
        Ok(Capabilities {
            file,
            path: path.to_string(),
            pairs,
        })
    }

    fn get(&self, name: &str) -> Option<(&'a str, usize)> {
        self.pairs
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|(_, v, i)| (*v, *i))
    }

    fn error(&self, name: &str, index: usize, problem: String) -> ImportError {
        ImportError::Field {
            file: self.file.into(),
            path: format!("{}.capabilities[{index}].value", self.path),
            key: name.into(),
            problem,
        }
    }

    /// A number >= 0; `None` when the capability is not listed.
    fn number(&self, name: &str) -> Result<Option<f64>, ImportError> {
        let Some((value, index)) = self.get(name) else {
            return Ok(None);
        };
        match value.trim().parse::<f64>() {
            Ok(number) if number.is_finite() && number >= 0.0 => Ok(Some(number)),
            _ => Err(self.error(
                name,
                index,
                format!("expected a number >= 0 in quotes, found \"{value}\""),
            )),
        }
    }

    /// `True`/`False`; `None` when not listed.
    fn flag(&self, name: &str) -> Result<Option<bool>, ImportError> {
        let Some((value, index)) = self.get(name) else {
            return Ok(None);
        };
        match value.to_ascii_lowercase().as_str() {
            "true" => Ok(Some(true)),
            "false" => Ok(Some(false)),
            _ => Err(self.error(
                name,
                index,
                format!("expected \"True\" or \"False\", found \"{value}\""),
            )),
        }
    }
}
