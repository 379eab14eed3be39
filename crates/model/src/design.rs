//! A storage design: a VM, its disks grouped into volumes, host caching, striping, concurrency.

use crate::units::{Bytes, GiB, Iops, MBps};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Azure host caching of one disk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum HostCaching {
    #[default]
    None,
    ReadOnly,
    ReadWrite,
}

impl HostCaching {
    pub fn is_cached(self) -> bool {
        !matches!(self, HostCaching::None)
    }
}

impl fmt::Display for HostCaching {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HostCaching::None => "None",
            HostCaching::ReadOnly => "ReadOnly",
            HostCaching::ReadWrite => "ReadWrite",
        })
    }
}

/// A host caching name that is none of None, ReadOnly, ReadWrite.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown host caching '{0}'; use none, readonly or readwrite")]
pub struct UnknownHostCaching(pub String);

impl FromStr for HostCaching {
    type Err = UnknownHostCaching;
    fn from_str(text: &str) -> Result<Self, UnknownHostCaching> {
        match text.to_ascii_lowercase().as_str() {
            "none" | "off" => Ok(HostCaching::None),
            "readonly" | "ro" | "read" => Ok(HostCaching::ReadOnly),
            "readwrite" | "rw" => Ok(HostCaching::ReadWrite),
            _ => Err(UnknownHostCaching(text.to_string())),
        }
    }
}

/// One volume: `count` disks of one SKU, striped when `count > 1`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VolumeDesign {
    pub label: String,
    /// Disk SKU name as the catalog spells it (`P30`, `E30`, `S30`, `PremiumV2`, `Ultra`).
    pub disk_sku: String,
    pub disk_count: u32,
    pub caching: HostCaching,
    /// Stripe unit; `None` for a single disk.
    pub stripe_size: Option<Bytes>,
    /// For provisioned disks (Premium SSD v2, Ultra): size, IOPS and MB/s bought per disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_size_gib: Option<GiB>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_iops: Option<Iops>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioned_throughput_mb_s: Option<MBps>,
}

impl VolumeDesign {
    pub fn new(
        label: impl Into<String>,
        disk_sku: impl Into<String>,
        disk_count: u32,
        caching: HostCaching,
    ) -> Self {
        VolumeDesign {
            label: label.into(),
            disk_sku: disk_sku.into(),
            disk_count,
            caching,
            stripe_size: None,
            provisioned_size_gib: None,
            provisioned_iops: None,
            provisioned_throughput_mb_s: None,
        }
    }
}

/// The most disks one volume stripes: the most data disks any Azure VM attaches.
pub const MAX_DISKS_PER_VOLUME: u32 = 64;

/// Why a `--disk` spec could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("disk spec '{spec}': {reason}; write COUNTxSKU[:CACHING], for example 10xP30:none or 1xP30:readonly")]
pub struct DiskSpecError {
    pub spec: String,
    pub reason: String,
}

impl FromStr for VolumeDesign {
    type Err = DiskSpecError;
    /// Reads `10xP30:none`, `P30` (one disk, caching None) or `4xE30:readonly`.
    fn from_str(spec: &str) -> Result<Self, DiskSpecError> {
        let error = |reason: &str| DiskSpecError {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let (disks_part, caching_part) = match spec.split_once(':') {
            Some((disks, caching)) => (disks, Some(caching)),
            None => (spec, None),
        };
        let (count, sku) = match disks_part.split_once(['x', 'X', '*']) {
            Some((count, sku))
                if !count.is_empty() && count.chars().all(|c| c.is_ascii_digit()) =>
            {
                let count: u32 = count
                    .parse()
                    .map_err(|_| error("disk count is not a number"))?;
                (count, sku)
            }
            _ => (1, disks_part),
        };
        if !(1..=MAX_DISKS_PER_VOLUME).contains(&count) {
            return Err(error(&format!(
                "disk count must be at least 1 and at most {MAX_DISKS_PER_VOLUME}"
            )));
        }
        if sku.trim().is_empty() {
            return Err(error("no disk SKU"));
        }
        let caching = match caching_part {
            Some(text) => text
                .parse()
                .map_err(|reason: UnknownHostCaching| error(&reason.to_string()))?,
            None => HostCaching::None,
        };
        Ok(VolumeDesign::new("vol0", sku.trim(), count, caching))
    }
}

/// A complete design: what `plan` proposes and `predict` evaluates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Design {
    /// VM size name as the catalog spells it (`Standard_DS14`).
    pub vm: String,
    pub volumes: Vec<VolumeDesign>,
    /// IOs in flight per thread.
    pub queue_depth: u32,
    pub threads: u32,
}

impl Design {
    pub fn total_disks(&self) -> u32 {
        self.volumes.iter().map(|v| v.disk_count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_specs_parse() {
        let volume: VolumeDesign = "10xP30:none".parse().unwrap();
        assert_eq!(
            (volume.disk_count, volume.disk_sku.as_str(), volume.caching),
            (10, "P30", HostCaching::None)
        );
        let volume: VolumeDesign = "1xP30:readonly".parse().unwrap();
        assert_eq!(volume.caching, HostCaching::ReadOnly);
        let volume: VolumeDesign = "P40".parse().unwrap();
        assert_eq!((volume.disk_count, volume.disk_sku.as_str()), (1, "P40"));
        assert!("0xP30".parse::<VolumeDesign>().is_err());
        assert!("4xP30:fast".parse::<VolumeDesign>().is_err());
        assert!("4x".parse::<VolumeDesign>().is_err());
    }
}
