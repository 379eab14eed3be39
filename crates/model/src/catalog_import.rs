//! What `catalog import` read, kept and left out: plain counts that `report` prints
//! (`iofit_catalog::import` re-exports them where they were, and fills them in).

/// The written catalog text and what was read, kept and left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub toml: String,
    /// Rows written: VM sizes, disk tiers, prices.
    pub vm_rows: usize,
    pub disk_rows: usize,
    pub price_rows: usize,
    pub skus: SkuCounts,
    pub prices: PriceCounts,
}

/// What the SKU inputs held for the region.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkuCounts {
    /// Records read in all (every region and resource type).
    pub records: usize,
    /// Sizes left out because the region restricts them (`restrictions` of type `Location`, or
    /// of type `Zone` covering every zone it has there), with the reason code.
    pub restricted: Vec<(String, String)>,
    /// Sizes kept although some zones of the region restrict them.
    pub zone_limited: Vec<String>,
    /// VM records that lack `vCPUs`, `MemoryGB` or `MaxDataDiskCount` and so were left out.
    pub incomplete: Vec<String>,
    /// Disk SKUs of kinds other than Premium SSD, Standard SSD and Standard HDD LRS (ZRS,
    /// Premium SSD v2, Ultra: iofit's provisioned types come from its own tables).
    pub other_disk_kinds: usize,
    /// VM sizes that say `UltraSSDAvailable` True (iofit does not model the flag).
    pub ultra_ssd_available: usize,
    /// Records without `locations` (trimmed copies of one region's list, `--location REGION`):
    /// taken as offered in the region.
    pub without_locations: usize,
}

/// What the price pages held.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriceCounts {
    pub items: usize,
    /// Items of other regions (a page may hold several).
    pub other_regions: usize,
    /// Spot and Low Priority items: never taken for on-demand prices.
    pub spot_or_low_priority: usize,
    /// VM items for sizes the SKU input does not offer in the region (restricted or absent).
    pub sizes_not_offered: usize,
    /// Items with a unit or reservation term this importer does not convert.
    pub unit_not_understood: usize,
    /// Items of another service or type (DevTestConsumption, savings-plan-only, bandwidth...).
    pub not_used: usize,
    /// Items that price the same thing twice with different prices; the primary-meter-region
    /// item, else the first, is kept.
    pub conflicts: usize,
    /// Windows reservation prices derived (compute reservation + the Windows licence's
    /// pay-as-you-go rate).
    pub windows_reservations_derived: usize,
}
