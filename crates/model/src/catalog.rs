//! The typed rows of the catalog. These types are the contract between `catalog` (which loads
//! them from data files), `predict`/`planner` (which reason about them) and `report` (which
//! lists them); they live here so that `report` needs no crate that reads files
//! (`iofit_catalog` re-exports them where they were). Every fact carries
//! the table it came from; every table carries its source and date. A value nobody could
//! source is `None`, and the tools say so instead of inventing one.

use crate::units::{GiB, Iops, KiB, MBps, MiBps, TiB};
use serde::{Deserialize, Serialize};

/// Azure's current pages; the default for planning.
pub const EDITION_CURRENT: &str = "current";
/// The seed guide's dated 2016-2018 figures.
pub const EDITION_SEED: &str = "seed-2016";
/// Every edition a table may belong to.
pub const EDITIONS: &[&str] = &[EDITION_CURRENT, EDITION_SEED];

/// The rows of a loaded catalog, as a renderer reads them: `iofit_catalog::Catalog` implements
/// it, so that a listing takes a catalog without depending on the crate that loads one.
pub trait CatalogContents {
    fn table_infos(&self) -> &[TableInfo];
    fn vm_sizes(&self) -> &[VmSize];
    fn disk_skus(&self) -> &[DiskSku];
    fn provisioned_types(&self) -> &[ProvisionedDiskType];
    fn netapp_levels(&self) -> &[NetAppServiceLevel];

    /// The edition of the table with this id (`None`: no such table).
    fn table_edition(&self, table_id: &str) -> Option<&str> {
        self.table_infos()
            .iter()
            .find(|table| table.id == table_id)
            .map(|table| table.edition.as_str())
    }
}

/// One data table: where its numbers come from and when they were read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableInfo {
    /// Short id used on the command line and in outputs, e.g. `azure-2025` or `seed-2016`.
    pub id: String,
    /// Which edition of the catalog the table belongs to: `current` (planning default) or
    /// `seed-2016` (the seed guide's dated 2016-2018 figures). Lookups choose an edition.
    #[serde(default = "default_edition")]
    pub edition: String,
    pub title: String,
    /// Where the numbers were read (URL or document name).
    pub source: String,
    /// When the numbers were read or published (YYYY-MM-DD).
    pub date: String,
    /// Region and currency prices are given in, e.g. "eastus, USD, pay-as-you-go, Linux".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_basis: Option<String>,
    /// Source of the prices when it differs from `source`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_date: Option<String>,
    /// When every `price_usd_month` of this table is a price of one region, way of paying and
    /// (for VMs) OS, which: the rows then also count as `[[prices]]` rows of that kind, so a
    /// plan with `--region` finds them without a second copy of each price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_pricing: Option<Pricing>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_os: Option<Os>,
    /// ISO 4217 code of every price this table's rows hold (its `[[prices]]`, VM and disk
    /// prices, `[[provisioned_prices]]`): every `price_*` key holds amounts in this currency.
    /// Absent: US dollars. A plan adds prices of one currency only and never converts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// Free text: caveats, disagreements with other tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

fn default_edition() -> String {
    "current".to_string()
}

/// The currency of prices when a table names none.
pub const DEFAULT_CURRENCY: &str = "USD";

impl TableInfo {
    /// The ISO 4217 code of this table's prices (USD unless it says otherwise).
    pub fn currency(&self) -> &str {
        self.currency.as_deref().unwrap_or(DEFAULT_CURRENCY)
    }
}

/// A VM size and its storage limits. Throughput in MB/s (10^6 B/s) as Azure publishes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VmSize {
    /// Azure's name, e.g. `Standard_DS14`.
    pub name: String,
    /// Id of the [`TableInfo`] this row belongs to.
    pub table: String,
    /// Series, e.g. `DSv2`, `Esv5`.
    pub family: String,
    pub vcpu: u32,
    pub memory_gib: GiB,
    pub max_data_disks: u32,
    /// Whether Premium SSD (and so host caching of premium disks) is supported.
    pub premium_storage: bool,
    /// Max uncached disk IOPS of the VM (all attached disks with caching None together).
    pub uncached_iops: Option<Iops>,
    pub uncached_throughput_mb_s: Option<MBps>,
    /// Max cached and temp-storage IOPS (reads served by the host cache count here).
    pub cached_iops: Option<Iops>,
    pub cached_throughput_mb_s: Option<MBps>,
    /// Host cache size, GiB.
    pub cache_size_gib: Option<GiB>,
    pub temp_storage_gib: Option<GiB>,
    /// Burst limits where published.
    pub burst_uncached_iops: Option<Iops>,
    pub burst_uncached_throughput_mb_s: Option<MBps>,
    /// Monthly price of the VM in the table's price basis; `None` where not sourced.
    #[serde(rename = "price_per_month", alias = "price_usd_month")]
    pub price_usd_month: Option<f64>,
    /// Architecture, burstable CPU and announced retirement, from the catalog's
    /// `[[vm_rules]]` (filled in when the catalog loads; not written in VM rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traits: Option<VmTraits>,
}

/// A CPU architecture of Azure VM sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    X64,
    Arm64,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::X64 => "x64",
            Arch::Arm64 => "arm64",
        }
    }
}

impl std::str::FromStr for Arch {
    type Err = UnknownChoice;
    fn from_str(text: &str) -> Result<Self, UnknownChoice> {
        match text.trim().to_ascii_lowercase().as_str() {
            "x64" | "x86_64" | "amd64" => Ok(Arch::X64),
            "arm64" | "aarch64" => Ok(Arch::Arm64),
            _ => Err(UnknownChoice {
                text: text.to_string(),
                what: "a CPU architecture",
                choices: "x64 or arm64",
            }),
        }
    }
}

/// What Azure says about one VM family (`name` = a family, e.g. `Dpsv5`) or one size (`name`
/// = a size, e.g. `Standard_M192is_v2`, overriding its family's row): its CPU architecture,
/// whether it is burstable (B-series: CPU credits, not a sustained vCPU), and a retirement
/// Azure has announced, with the announcement as source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VmRule {
    pub name: String,
    pub table: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<Arch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burstable: Option<bool>,
    /// The planned retirement date (YYYY-MM-DD): sizes can no longer run after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retirement_date: Option<String>,
    /// When Azure announced it (YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retirement_announced: Option<String>,
    /// The announcement or retirement list the date was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retirement_source: Option<String>,
    /// Where the architecture and burstable facts were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// The rules that apply to one VM size (its family's row, overridden by its own).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VmTraits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<Arch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burstable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retirement_date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retirement_announced: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retirement_source: Option<String>,
}

impl VmTraits {
    /// `x64, not burstable` (what is known), for a design's VM line.
    pub fn words(&self) -> String {
        let arch = self
            .arch
            .map(Arch::name)
            .unwrap_or("architecture not sourced");
        let burstable = match self.burstable {
            Some(true) => "burstable",
            Some(false) => "not burstable",
            None => "burstable not sourced",
        };
        format!("{arch}, {burstable}")
    }
}

/// Kinds of managed disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiskKind {
    PremiumSsd,
    StandardSsd,
    StandardHdd,
    PremiumSsdV2,
    UltraDisk,
}

impl DiskKind {
    /// Whether Azure allows this kind of disk as a VM's OS disk. Premium SSD v2: "Premium SSD
    /// v2 disks can't be used as an OS disk" (Azure docs 'Deploy a Premium SSD v2',
    /// learn.microsoft.com/azure/virtual-machines/disks-deploy-premium-v2, Limitations); Ultra:
    /// "Ultra Disks can only be used as data disks" (Azure docs 'Azure managed disk types',
    /// disks-types.md, Ultra disk limitations). Every fixed-size kind may be an OS disk.
    pub fn may_be_os_disk(self) -> bool {
        !matches!(self, DiskKind::PremiumSsdV2 | DiskKind::UltraDisk)
    }
    /// Whether Azure host caching can be enabled on this kind of disk (Premium SSD v2 and
    /// Ultra: "doesn't support host caching", same pages).
    pub fn supports_host_caching(self) -> bool {
        matches!(
            self,
            DiskKind::PremiumSsd | DiskKind::StandardSsd | DiskKind::StandardHdd
        )
    }
    /// Whether Azure bills disk operations (transactions, per 10,000) on top of the disk's
    /// monthly price: Standard SSD and Standard HDD (Azure docs 'Understand Azure Disk Storage
    /// billing'). Premium SSD bills none unless on-demand bursting is enabled (not modelled).
    pub fn bills_operations(self) -> bool {
        matches!(self, DiskKind::StandardSsd | DiskKind::StandardHdd)
    }
    /// Whether the VM must support premium storage to attach it.
    pub fn needs_premium_vm(self) -> bool {
        matches!(
            self,
            DiskKind::PremiumSsd | DiskKind::PremiumSsdV2 | DiskKind::UltraDisk
        )
    }
}

/// A fixed-size disk SKU (P30, E30, S30...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiskSku {
    /// Azure's tier name, e.g. `P30`.
    pub name: String,
    pub table: String,
    pub kind: DiskKind,
    pub size_gib: GiB,
    /// Provisioned IOPS of one disk; for standard HDD/SSD the "up to" figure.
    pub iops: Iops,
    pub throughput_mb_s: MBps,
    pub burst_iops: Option<Iops>,
    pub burst_throughput_mb_s: Option<MBps>,
    #[serde(rename = "price_per_month", alias = "price_usd_month")]
    pub price_usd_month: Option<f64>,
    /// Price of 10,000 billable disk operations (transactions), for the kinds Azure bills per
    /// operation on top of the monthly price (Standard SSD, Standard HDD); `None` where not
    /// sourced (a plan then marks the cost incomplete) or where the kind bills none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(
        rename = "price_per_10k_operations",
        alias = "price_usd_per_10k_operations"
    )]
    pub price_usd_per_10k_operations: Option<f64>,
    /// Size of one billable operation, KiB: an IO larger than this counts as several
    /// (Standard SSD: 256). `None`: every IO counts as one operation whatever its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_unit_kib: Option<KiB<u64>>,
}

/// A disk kind whose performance is bought separately from its size (Premium SSD v2, Ultra).
/// All rules are per disk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProvisionedDiskType {
    /// Name used in designs, e.g. `PremiumV2` or `Ultra`.
    pub name: String,
    pub table: String,
    pub kind: DiskKind,
    pub size_gib_min: GiB,
    pub size_gib_max: GiB,
    /// IOPS included free with any size.
    pub iops_baseline: Iops,
    /// Highest IOPS per GiB of size that may be provisioned.
    pub iops_per_gib_max: f64,
    pub iops_max: Iops,
    pub throughput_mb_s_baseline: MBps,
    /// Highest MB/s per provisioned IOPS.
    pub throughput_mb_s_per_iops_max: f64,
    pub throughput_mb_s_max: MBps,
    #[serde(rename = "price_per_gib_month", alias = "price_usd_per_gib_month")]
    pub price_usd_per_gib_month: Option<f64>,
    #[serde(rename = "price_per_iops_month", alias = "price_usd_per_iops_month")]
    pub price_usd_per_iops_month: Option<f64>,
    #[serde(rename = "price_per_mb_s_month", alias = "price_usd_per_mb_s_month")]
    pub price_usd_per_mb_s_month: Option<f64>,
}

impl ProvisionedDiskType {
    /// Monthly price of one disk of this type with `size_gib`, `iops` and `throughput_mb_s`
    /// provisioned, as Azure bills it: capacity per GiB, plus the IOPS and MB/s billed: for
    /// Premium SSD v2 only those above the free baseline (3,000 IOPS, 125 MB/s: the meters'
    /// first tier, `tierMinimumUnits` 0, is priced 0), for Ultra all of them (Azure's billing
    /// page names no free Ultra allowance). `None` when a rate it needs is not sourced; a rate
    /// it does not need (a v2 disk within the baseline) may stay empty.
    pub fn monthly_price_usd(&self, size_gib: GiB, iops: f64, throughput_mb_s: f64) -> Option<f64> {
        let (free_iops, free_mb_s) = match self.kind {
            DiskKind::PremiumSsdV2 => (self.iops_baseline.0, self.throughput_mb_s_baseline.0),
            _ => (0.0, 0.0),
        };
        let extra_iops = (iops - free_iops).max(0.0);
        let extra_mb_s = (throughput_mb_s - free_mb_s).max(0.0);
        let mut price = size_gib.get() * self.price_usd_per_gib_month?;
        if extra_iops > 0.0 {
            price += extra_iops * self.price_usd_per_iops_month?;
        }
        if extra_mb_s > 0.0 {
            price += extra_mb_s * self.price_usd_per_mb_s_month?;
        }
        Some(price)
    }
}

/// An Azure NetApp Files service level. Throughput in MiB/s per TiB of quota, as NetApp counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetAppServiceLevel {
    /// `Standard`, `Premium`, `Ultra`.
    pub name: String,
    pub table: String,
    pub throughput_mib_s_per_tib: MiBps,
    #[serde(rename = "price_per_tib_month", alias = "price_usd_per_tib_month")]
    pub price_usd_per_tib_month: Option<f64>,
    /// Smallest and largest volume quota, TiB.
    pub quota_tib_min: Option<TiB>,
    pub quota_tib_max: Option<TiB>,
    /// Highest throughput of one regular volume, MiB/s, where published.
    pub volume_throughput_mib_s_max: Option<MiBps>,
}

/// How a price is paid: pay-as-you-go, or a 1- or 3-year reservation (Azure Reserved VM
/// Instances), stated per month either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Pricing {
    #[serde(rename = "payg")]
    Payg,
    #[serde(rename = "ri-1y")]
    Ri1y,
    #[serde(rename = "ri-3y")]
    Ri3y,
}

impl Pricing {
    pub const ALL: [Pricing; 3] = [Pricing::Payg, Pricing::Ri1y, Pricing::Ri3y];
    /// The name used in files and on the command line (`payg`, `ri-1y`, `ri-3y`).
    pub fn name(self) -> &'static str {
        match self {
            Pricing::Payg => "payg",
            Pricing::Ri1y => "ri-1y",
            Pricing::Ri3y => "ri-3y",
        }
    }
    /// Words for outputs.
    pub fn words(self) -> &'static str {
        match self {
            Pricing::Payg => "pay-as-you-go",
            Pricing::Ri1y => "1-year reservation",
            Pricing::Ri3y => "3-year reservation",
        }
    }
    /// Months a reservation term lasts (the Retail Prices API states a reservation's price for
    /// the whole term); `None` for pay-as-you-go.
    pub fn term_months(self) -> Option<f64> {
        match self {
            Pricing::Payg => None,
            Pricing::Ri1y => Some(12.0),
            Pricing::Ri3y => Some(36.0),
        }
    }
}

/// A name that is none of the choices a field allows (`--pricing`, `--os`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not {what}; use {choices}")]
pub struct UnknownChoice {
    pub text: String,
    pub what: &'static str,
    pub choices: &'static str,
}

impl std::str::FromStr for Pricing {
    type Err = UnknownChoice;
    fn from_str(text: &str) -> Result<Self, UnknownChoice> {
        Pricing::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| UnknownChoice {
                text: text.to_string(),
                what: "a way of paying",
                choices: "payg, ri-1y or ri-3y",
            })
    }
}

/// The operating system a VM price includes: Linux (no licence) or Windows (licence included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Windows,
}

impl Os {
    pub const ALL: [Os; 2] = [Os::Linux, Os::Windows];
    pub fn name(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Windows => "windows",
        }
    }
}

impl std::str::FromStr for Os {
    type Err = UnknownChoice;
    fn from_str(text: &str) -> Result<Self, UnknownChoice> {
        Os::ALL
            .into_iter()
            .find(|os| os.name().eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| UnknownChoice {
                text: text.to_string(),
                what: "an operating system",
                choices: "linux or windows",
            })
    }
}

/// One price of one VM size or fixed-size disk in one region, one way of paying and (for VMs)
/// one operating system, per month in its table's currency. A VM size or disk may have many; the planner reads
/// the one `iofit_catalog::Catalog::priced_for` chooses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceRow {
    /// The VM size (`Standard_D4s_v5`) or disk tier (`P30`) priced.
    pub name: String,
    pub table: String,
    /// Azure's `armRegionName`, e.g. `eastus`.
    pub region: String,
    pub pricing: Pricing,
    /// For VM sizes; `None` for disks (their price does not depend on the OS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<Os>,
    /// Per month, in the table's currency: hourly x 730 for pay-as-you-go, the term's total / 12 or / 36 for a
    /// reservation, the monthly meter for disks.
    #[serde(rename = "price_per_month", alias = "usd_month")]
    pub usd_month: f64,
    /// The price as the source states it (per hour, per term, per month) and its unit, so the
    /// conversion to `usd_month` can be checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "retail_price", alias = "retail_price_usd")]
    pub retail_price_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retail_unit: Option<String>,
    /// Where this row was read when it differs from the table's `price_source` (a file name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The price's effective date (YYYY-MM-DD) when the source gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// How a derived price was computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// The rates of one provisioned disk type (Premium SSD v2, Ultra) in one region, pay-as-you-go,
/// per month in the table's currency (the Retail Prices API's hourly meters x 730 h). A region's rates replace the
/// type's own `price_usd_per_*` when a plan is priced for that region
/// (`iofit_catalog::Catalog::priced_for`); a rate left out stays unpriced there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProvisionedPriceRow {
    /// The provisioned type priced (`PremiumV2`, `Ultra`).
    pub name: String,
    pub table: String,
    /// Azure's `armRegionName`.
    pub region: String,
    /// Capacity, per GiB-month (meter `... LRS Provisioned Capacity`, per GiB-hour x 730).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "price_per_gib_month", alias = "usd_per_gib_month")]
    pub usd_per_gib_month: Option<f64>,
    /// IOPS billed (above the free baseline for Premium SSD v2), per IOPS-month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "price_per_iops_month", alias = "usd_per_iops_month")]
    pub usd_per_iops_month: Option<f64>,
    /// MB/s billed (above the free baseline for Premium SSD v2), per MB/s-month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "price_per_mb_s_month", alias = "usd_per_mb_s_month")]
    pub usd_per_mb_s_month: Option<f64>,
    /// The hourly meters as the source states them, so the x 730 can be checked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(
        rename = "retail_price_per_gib_hour",
        alias = "retail_usd_per_gib_hour"
    )]
    pub retail_usd_per_gib_hour: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(
        rename = "retail_price_per_iops_hour",
        alias = "retail_usd_per_iops_hour"
    )]
    pub retail_usd_per_iops_hour: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(
        rename = "retail_price_per_mb_s_hour",
        alias = "retail_usd_per_mb_s_hour"
    )]
    pub retail_usd_per_mb_s_hour: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Typed capacities keep each row's JSON: GiB as the float it was (`1024.0`), the billing
    /// unit as the whole KiB it was (`256`), and a catalog's whole numbers read into them.
    #[test]
    fn disk_rows_keep_their_number_forms() {
        let text = "name = \"E30\"\ntable = \"t\"\nkind = \"standard_ssd\"\nsize_gib = 1024\n\
                    iops = 500\nthroughput_mb_s = 100\nburst_iops = 600\n\
                    burst_throughput_mb_s = 150\nprice_per_month = 76.8\n\
                    operation_unit_kib = 256\n";
        let disk: DiskSku = toml::from_str(text).unwrap();
        assert_eq!(disk.size_gib, GiB(1024.0));
        assert_eq!(disk.operation_unit_kib, Some(KiB(256)));
        let json = serde_json::to_string(&disk).unwrap();
        assert!(json.contains("\"size_gib\":1024.0"), "{json}");
        assert!(json.ends_with("\"operation_unit_kib\":256}"), "{json}");
    }

    #[test]
    fn netapp_quotas_read_as_tib() {
        let text = "name = \"Premium\"\ntable = \"t\"\nthroughput_mib_s_per_tib = 64\n\
                    price_per_tib_month = 300\nquota_tib_min = 1\nquota_tib_max = 100\n";
        let level: NetAppServiceLevel = toml::from_str(text).unwrap();
        assert_eq!(
            (level.quota_tib_min, level.quota_tib_max),
            (Some(TiB(1.0)), Some(TiB(100.0)))
        );
        let json = serde_json::to_string(&level).unwrap();
        assert!(
            json.contains("\"quota_tib_min\":1.0,\"quota_tib_max\":100.0"),
            "{json}"
        );
    }
}
