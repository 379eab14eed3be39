//! `iofit catalog`'s listings: the VM sizes, disks, NetApp Files service levels and tables a
//! catalog knows, selected by edition, a text filter and a vCPU floor, as aligned text (every
//! listing names its tables and their sources) or JSON; and the summary `catalog import`
//! prints.
//!
//! ```
//! use iofit_report::catalog_listing::{listing, ListingKind, ListingQuery};
//!
//! let catalog = iofit_catalog::Catalog::embedded().unwrap();
//! let query = ListingQuery { kind: ListingKind::Vms, filter: Some("E8s".into()), ..Default::default() };
//! let text = listing(&catalog, &query).unwrap();
//! assert!(text.contains("Tables used:"));
//! ```

use iofit_model::catalog::{
    CatalogContents, DiskKind, DiskSku, NetAppServiceLevel, ProvisionedDiskType, TableInfo, VmSize,
    EDITION_CURRENT,
};
use iofit_model::units::group_thousands;
use serde::Serialize;
use std::collections::BTreeSet;

/// What to list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListingKind {
    #[default]
    Vms,
    Disks,
    Netapp,
    Tables,
}

/// Which rows to list and how.
#[derive(Clone, Debug, Default)]
pub struct ListingQuery {
    pub kind: ListingKind,
    /// The catalog edition (default `current`); `tables` lists every edition without one.
    pub edition: Option<String>,
    /// Only rows whose name, family, kind or table contains this text (any case).
    pub filter: Option<String>,
    /// Only VM sizes with at least this many vCPUs (VM listings only).
    pub min_vcpu: Option<u32>,
    /// JSON instead of a table.
    pub json: bool,
}

/// Why a listing cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ListingError {
    #[error("--min-vcpu applies only to `iofit catalog vms`; leave it out for other listings")]
    MinVcpuNotVms,
    #[error("cannot render JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl ListingError {
    /// True when the user must fix the query (exit 2).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, ListingError::MinVcpuNotVms)
    }
}

/// The listing `query` asks for, as text or JSON.
pub fn listing(
    catalog: &impl CatalogContents,
    query: &ListingQuery,
) -> Result<String, ListingError> {
    if query.min_vcpu.is_some() && query.kind != ListingKind::Vms {
        return Err(ListingError::MinVcpuNotVms);
    }
    let filter = query.filter.as_deref().map(str::to_lowercase);
    let matches = |texts: &[&str]| match &filter {
        None => true,
        Some(wanted) => texts.iter().any(|t| t.to_lowercase().contains(wanted)),
    };
    let edition = query.edition.as_deref().unwrap_or(EDITION_CURRENT);
    match query.kind {
        ListingKind::Vms => {
            let rows: Vec<&VmSize> = in_edition(catalog, catalog.vm_sizes(), edition)
                .filter(|vm| matches(&[&vm.name, &vm.family, &vm.table]))
                .filter(|vm| vm.vcpu >= query.min_vcpu.unwrap_or(0))
                .collect();
            let tables = used_tables(catalog, rows.iter().map(|vm| vm.table.as_str()));
            if query.json {
                json(edition, &tables, &rows)
            } else {
                Ok(render_vms(edition, &rows, &tables))
            }
        }
        ListingKind::Disks => list_disks(catalog, edition, query.json, &matches),
        ListingKind::Netapp => {
            let rows: Vec<&NetAppServiceLevel> =
                in_edition(catalog, catalog.netapp_levels(), edition)
                    .filter(|level| matches(&[&level.name, &level.table]))
                    .collect();
            let tables = used_tables(catalog, rows.iter().map(|l| l.table.as_str()));
            if query.json {
                json(edition, &tables, &rows)
            } else {
                Ok(render_netapp(edition, &rows, &tables))
            }
        }
        ListingKind::Tables => {
            let rows: Vec<&TableInfo> = catalog
                .table_infos()
                .iter()
                .filter(|t| {
                    query.edition.is_none() || query.edition.as_deref() == Some(t.edition.as_str())
                })
                .filter(|t| matches(&[&t.id, &t.title, &t.source]))
                .collect();
            if query.json {
                Ok(format!("{}\n", serde_json::to_string_pretty(&rows)?))
            } else {
                Ok(render_tables(&rows))
            }
        }
    }
}

fn list_disks(
    catalog: &impl CatalogContents,
    edition: &str,
    as_json: bool,
    matches: &dyn Fn(&[&str]) -> bool,
) -> Result<String, ListingError> {
    let disks: Vec<&DiskSku> = in_edition(catalog, catalog.disk_skus(), edition)
        .filter(|d| matches(&[&d.name, kind_name(d.kind), &d.table]))
        .collect();
    let provisioned: Vec<&ProvisionedDiskType> =
        in_edition(catalog, catalog.provisioned_types(), edition)
            .filter(|d| matches(&[&d.name, kind_name(d.kind), &d.table]))
            .collect();
    let tables = used_tables(
        catalog,
        disks
            .iter()
            .map(|d| d.table.as_str())
            .chain(provisioned.iter().map(|d| d.table.as_str())),
    );
    if !as_json {
        return Ok(render_disks(edition, &disks, &provisioned, &tables));
    }
    #[derive(Serialize)]
    struct Disks<'a> {
        disks: &'a [&'a DiskSku],
        provisioned: &'a [&'a ProvisionedDiskType],
    }
    json(
        edition,
        &tables,
        &Disks {
            disks: &disks,
            provisioned: &provisioned,
        },
    )
}

/// The rows of `rows` whose table belongs to `edition`, in file order.
fn in_edition<'a, Row: HasTable>(
    catalog: &'a impl CatalogContents,
    rows: &'a [Row],
    edition: &'a str,
) -> impl Iterator<Item = &'a Row> + 'a {
    rows.iter()
        .filter(move |row| catalog.table_edition(row.table_id()) == Some(edition))
}

/// A catalog row's table id.
trait HasTable {
    fn table_id(&self) -> &str;
}

macro_rules! has_table {
    ($($row:ty),*) => {$(
        impl HasTable for $row {
            fn table_id(&self) -> &str {
                &self.table
            }
        }
    )*};
}

has_table!(VmSize, DiskSku, ProvisionedDiskType, NetAppServiceLevel);

/// The tables the listed rows come from, in catalog order.
fn used_tables<'a>(
    catalog: &'a impl CatalogContents,
    ids: impl Iterator<Item = &'a str>,
) -> Vec<&'a TableInfo> {
    let ids: BTreeSet<&str> = ids.collect();
    catalog
        .table_infos()
        .iter()
        .filter(|t| ids.contains(t.id.as_str()))
        .collect()
}

fn json<T: Serialize + ?Sized>(
    edition: &str,
    tables: &[&TableInfo],
    rows: &T,
) -> Result<String, ListingError> {
    #[derive(Serialize)]
    struct Listing<'a, T: ?Sized> {
        edition: &'a str,
        tables: &'a [&'a TableInfo],
        rows: &'a T,
    }
    let listing = Listing {
        edition,
        tables,
        rows,
    };
    Ok(format!("{}\n", serde_json::to_string_pretty(&listing)?))
}

fn kind_name(kind: DiskKind) -> &'static str {
    match kind {
        DiskKind::PremiumSsd => "premium_ssd",
        DiskKind::StandardSsd => "standard_ssd",
        DiskKind::StandardHdd => "standard_hdd",
        DiskKind::PremiumSsdV2 => "premium_ssd_v2",
        DiskKind::UltraDisk => "ultra_disk",
    }
}

/// A number for a table cell: thousands grouped, "-" when not published.
fn num(value: Option<f64>) -> String {
    value.map(group_thousands).unwrap_or_else(|| "-".into())
}

/// A monthly price (a money amount): cents, "-" when not sourced.
fn price(value: Option<f64>) -> String {
    value
        .map(|p| format!("{p:.2}"))
        .unwrap_or_else(|| "-".into())
}

/// A per-unit rate (USD per GiB, IOPS, MB/s or 10,000 operations): rates are fractions of a
/// cent, so cents would hide them (0.04964 is not 0.05). Six significant digits, trailing zeros
/// dropped down to two decimals; "-" when not sourced.
fn rate(value: Option<f64>) -> String {
    let Some(rate) = value else {
        return "-".into();
    };
    if rate == 0.0 || !rate.is_finite() {
        return format!("{rate:.2}");
    }
    let magnitude = rate.abs().log10().floor() as i32;
    let decimals = (5 - magnitude).max(2) as usize;
    let mut text = format!("{rate:.decimals$}");
    while text.ends_with('0') && text.len() - text.find('.').unwrap_or(text.len()) > 3 {
        text.pop();
    }
    text
}

/// Whether a disk has anything to show in the operations columns.
fn has_operations(disk: &DiskSku) -> bool {
    disk.kind.bills_operations()
        || disk.price_usd_per_10k_operations.is_some()
        || disk.operation_unit_kib.is_some()
}

/// The operations columns of a fixed-size disk: its price per 10,000 operations and the size of
/// one billable operation. A value the row has is shown whatever the kind; otherwise kinds
/// Azure does not bill per operation show "n/a" (not billed, as opposed to "-", not sourced),
/// and an empty unit on a billed kind means every IO is one operation whatever its size.
fn operations(disk: &DiskSku) -> [String; 2] {
    let billed = disk.kind.bills_operations();
    let price = match disk.price_usd_per_10k_operations {
        Some(_) => rate(disk.price_usd_per_10k_operations),
        None if billed => "-".into(),
        None => "n/a".into(),
    };
    let unit = match disk.operation_unit_kib {
        Some(kib) => kib.get().to_string(),
        None if billed => "per IO".into(),
        None => "n/a".into(),
    };
    [price, unit]
}

/// Renders rows as aligned columns: text left-aligned, numbers right-aligned.
struct Grid {
    header: Vec<&'static str>,
    numeric: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Grid {
    fn new(columns: &[(&'static str, bool)]) -> Grid {
        Grid {
            header: columns.iter().map(|c| c.0).collect(),
            numeric: columns.iter().map(|c| c.1).collect(),
            rows: Vec::new(),
        }
    }

    fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn render(&self, out: &mut String) {
        use crate::columns::{align, Align};
        let aligns: Vec<Align> = self
            .numeric
            .iter()
            .map(|&n| if n { Align::Right } else { Align::Left })
            .collect();
        let mut rows = vec![self.header.iter().map(|h| h.to_string()).collect()];
        rows.extend(self.rows.iter().cloned());
        out.push_str(&align(&rows, &aligns, false));
    }
}

fn footer(out: &mut String, tables: &[&TableInfo]) {
    out.push_str("\n- : not published / not sourced\n");
    if !tables.is_empty() {
        out.push_str("Tables used:\n");
        for table in tables {
            out.push_str(&format!(
                "  {} ({}, {}): {}\n    source: {}\n",
                table.id, table.edition, table.date, table.title, table.source
            ));
            price_provenance(out, table);
        }
    }
}

/// Where a table's prices come from and when they were read: prices are often read from a
/// different source, on a different day, than the limits beside them.
fn price_provenance(out: &mut String, table: &TableInfo) {
    if let Some(basis) = &table.price_basis {
        out.push_str(&format!("    prices: {basis}\n"));
    }
    if let Some(source) = &table.price_source {
        out.push_str(&format!("    price source: {source}\n"));
    }
    if let Some(date) = &table.price_date {
        out.push_str(&format!("    price date: {date}\n"));
    }
}

fn render_vms(edition: &str, rows: &[&VmSize], tables: &[&TableInfo]) -> String {
    let mut out = format!("VM sizes, {edition} edition: {} shown\n", rows.len());
    if rows.is_empty() {
        out.push_str("No VM size matches; try another --filter or --edition.\n");
        return out;
    }
    out.push_str(
        "Limits are per VM: IOPS, MB/s (10^6 B/s); cached = host cache and temp storage.\n\n",
    );
    let mut grid = Grid::new(&[
        ("name", false),
        ("family", false),
        ("vCPU", true),
        ("mem GiB", true),
        ("disks", true),
        ("premium", false),
        ("uncached IOPS", true),
        ("uncached MB/s", true),
        ("burst IOPS", true),
        ("burst MB/s", true),
        ("cached IOPS", true),
        ("cached MB/s", true),
        ("cache GiB", true),
        ("temp GiB", true),
        ("USD/month", true),
        ("table", false),
    ]);
    for vm in rows {
        grid.push(vec![
            vm.name.clone(),
            vm.family.clone(),
            vm.vcpu.to_string(),
            group_thousands(vm.memory_gib.get()),
            vm.max_data_disks.to_string(),
            if vm.premium_storage { "yes" } else { "no" }.to_string(),
            num(vm.uncached_iops.map(|v| v.0)),
            num(vm.uncached_throughput_mb_s.map(|v| v.0)),
            num(vm.burst_uncached_iops.map(|v| v.0)),
            num(vm.burst_uncached_throughput_mb_s.map(|v| v.0)),
            num(vm.cached_iops.map(|v| v.0)),
            num(vm.cached_throughput_mb_s.map(|v| v.0)),
            num(vm.cache_size_gib.map(|gib| gib.get())),
            num(vm.temp_storage_gib.map(|gib| gib.get())),
            price(vm.price_usd_month),
            vm.table.clone(),
        ]);
    }
    grid.render(&mut out);
    footer(&mut out, tables);
    out
}

fn render_disks(
    edition: &str,
    disks: &[&DiskSku],
    provisioned: &[&ProvisionedDiskType],
    tables: &[&TableInfo],
) -> String {
    let mut out = format!(
        "Disks, {edition} edition: {} sizes and {} provisioned types shown\n",
        disks.len(),
        provisioned.len()
    );
    if disks.is_empty() && provisioned.is_empty() {
        out.push_str("No disk matches; try another --filter or --edition.\n");
        return out;
    }
    if !disks.is_empty() {
        out.push_str("\nFixed sizes (limits per disk; MB/s = 10^6 B/s):\n");
        // The operations columns only when a listed disk has something to put in them, so a
        // Premium-only listing does not carry two columns of "n/a".
        let with_operations = disks.iter().any(|d| has_operations(d));
        let mut columns = vec![
            ("name", false),
            ("kind", false),
            ("size GiB", true),
            ("IOPS", true),
            ("MB/s", true),
            ("burst IOPS", true),
            ("burst MB/s", true),
            ("USD/month", true),
        ];
        if with_operations {
            columns.extend([("USD/10k ops", true), ("op KiB", true)]);
        }
        columns.push(("table", false));
        let mut grid = Grid::new(&columns);
        for disk in disks {
            let mut row = vec![
                disk.name.clone(),
                kind_name(disk.kind).to_string(),
                group_thousands(disk.size_gib.get()),
                group_thousands(disk.iops.0),
                group_thousands(disk.throughput_mb_s.0),
                num(disk.burst_iops.map(|v| v.0)),
                num(disk.burst_throughput_mb_s.map(|v| v.0)),
                price(disk.price_usd_month),
            ];
            if with_operations {
                row.extend(operations(disk));
            }
            row.push(disk.table.clone());
            grid.push(row);
        }
        grid.render(&mut out);
        if with_operations {
            out.push_str(
                "USD/10k ops: disk operations billed on top of USD/month; op KiB: size of one \
                 billable operation (per IO: each IO counts as one); n/a: not billed.\n",
            );
        }
    }
    if !provisioned.is_empty() {
        out.push_str("\nProvisioned performance (rules per disk):\n");
        let mut grid = Grid::new(&[
            ("name", false),
            ("kind", false),
            ("size GiB", true),
            ("base IOPS", true),
            ("IOPS/GiB", true),
            ("max IOPS", true),
            ("base MB/s", true),
            ("MB/s per IOPS", true),
            ("max MB/s", true),
            ("USD/GiB", true),
            ("USD/IOPS", true),
            ("USD/MB/s", true),
            ("table", false),
        ]);
        for disk in provisioned {
            grid.push(vec![
                disk.name.clone(),
                kind_name(disk.kind).to_string(),
                format!(
                    "{}-{}",
                    group_thousands(disk.size_gib_min.get()),
                    group_thousands(disk.size_gib_max.get())
                ),
                group_thousands(disk.iops_baseline.0),
                group_thousands(disk.iops_per_gib_max),
                group_thousands(disk.iops_max.0),
                group_thousands(disk.throughput_mb_s_baseline.0),
                format!("{}", disk.throughput_mb_s_per_iops_max),
                group_thousands(disk.throughput_mb_s_max.0),
                rate(disk.price_usd_per_gib_month),
                rate(disk.price_usd_per_iops_month),
                rate(disk.price_usd_per_mb_s_month),
                disk.table.clone(),
            ]);
        }
        grid.render(&mut out);
    }
    footer(&mut out, tables);
    out
}

fn render_netapp(edition: &str, rows: &[&NetAppServiceLevel], tables: &[&TableInfo]) -> String {
    let mut out = format!(
        "Azure NetApp Files service levels, {edition} edition: {} shown\n",
        rows.len()
    );
    if rows.is_empty() {
        out.push_str("No service level matches; try another --filter or --edition.\n");
        return out;
    }
    out.push_str("Volume throughput = rate x quota; MiB/s = 2^20 B/s as NetApp counts.\n\n");
    let mut grid = Grid::new(&[
        ("level", false),
        ("MiB/s per TiB", true),
        ("USD/TiB/month", true),
        ("quota TiB min", true),
        ("quota TiB max", true),
        ("volume max MiB/s", true),
        ("table", false),
    ]);
    for level in rows {
        grid.push(vec![
            level.name.clone(),
            group_thousands(level.throughput_mib_s_per_tib.0),
            price(level.price_usd_per_tib_month),
            num(level.quota_tib_min.map(|tib| tib.get())),
            num(level.quota_tib_max.map(|tib| tib.get())),
            num(level.volume_throughput_mib_s_max.map(|v| v.0)),
            level.table.clone(),
        ]);
    }
    grid.render(&mut out);
    footer(&mut out, tables);
    out
}

fn render_tables(rows: &[&TableInfo]) -> String {
    let mut out = format!("Catalog tables: {} shown\n\n", rows.len());
    let mut grid = Grid::new(&[
        ("id", false),
        ("edition", false),
        ("date", false),
        ("price date", false),
        ("title", false),
    ]);
    for table in rows {
        grid.push(vec![
            table.id.clone(),
            table.edition.clone(),
            table.date.clone(),
            table.price_date.clone().unwrap_or_else(|| "-".into()),
            table.title.clone(),
        ]);
    }
    grid.render(&mut out);
    out.push_str("\n- : no price date recorded\n");
    out.push_str("\nSources:\n");
    for table in rows {
        out.push_str(&format!("  {}: {}\n", table.id, table.source));
        price_provenance(&mut out, table);
        if let Some(notes) = &table.notes {
            out.push_str(&format!("    notes: {notes}\n"));
        }
    }
    out
}

/// What `iofit catalog import` prints: what was written, left out and skipped.
pub fn import_summary(
    output: &std::path::Path,
    region: &str,
    imported: &iofit_model::catalog_import::Imported,
) -> String {
    let (kept, disks, prices) = (imported.vm_rows, imported.disk_rows, imported.price_rows);
    let skus = &imported.skus;
    let counts = &imported.prices;
    format!(
        "wrote {}: {kept} VM sizes, {disks} disk tiers, {prices} prices for {}\n\
         left out: {} restricted in {}{}, {} incomplete VM records, {} other disk kinds; \
         {} sizes restricted in some zones kept\n\
         price items: {} read, {} other regions, {} Spot/Low Priority skipped, {} for sizes \
         not offered, {} not used, {} units not converted, {} Windows reservations derived\n",
        output.display(),
        region.to_ascii_lowercase(),
        skus.restricted.len(),
        region.to_ascii_lowercase(),
        if skus.restricted.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = skus
                .restricted
                .iter()
                .map(|(name, code)| format!("{name}: {code}"))
                .collect();
            format!(" ({})", names.join(", "))
        },
        skus.incomplete.len(),
        skus.other_disk_kinds,
        skus.zone_limited.len(),
        counts.items,
        counts.other_regions,
        counts.spot_or_low_priority,
        counts.sizes_not_offered,
        counts.not_used,
        counts.unit_not_understood,
        counts.windows_reservations_derived,
    )
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_keep_their_significant_digits() {
        assert_eq!(rate(Some(0.04964)), "0.04964");
        assert_eq!(rate(Some(0.3495)), "0.3495");
        assert_eq!(rate(Some(0.0005)), "0.0005");
        assert_eq!(rate(Some(0.002)), "0.002");
        assert_eq!(rate(Some(0.08103)), "0.08103");
        assert_eq!(rate(Some(150.99904)), "150.999");
        assert_eq!(rate(Some(2.4)), "2.40");
        assert_eq!(rate(Some(0.0)), "0.00");
        assert_eq!(rate(None), "-");
    }
}

#[cfg(test)]
mod listing_tests {
    use super::{listing, ListingError, ListingKind, ListingQuery};

    #[test]
    fn a_filtered_vm_listing_names_only_its_rows_and_their_tables() {
        let catalog = iofit_catalog::Catalog::embedded().unwrap();
        let query = ListingQuery {
            kind: ListingKind::Vms,
            filter: Some("e8s_v5".into()),
            json: true,
            ..ListingQuery::default()
        };
        let json: serde_json::Value =
            serde_json::from_str(&listing(&catalog, &query).unwrap()).unwrap();
        let rows = json["rows"].as_array().unwrap();
        assert!(!rows.is_empty());
        for row in rows {
            assert!(row["name"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("e8s_v5"));
            let table = row["table"].as_str().unwrap();
            assert!(json["tables"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["id"] == table));
        }
    }

    #[test]
    fn min_vcpu_outside_vms_is_bad_input() {
        let catalog = iofit_catalog::Catalog::embedded().unwrap();
        let query = ListingQuery {
            kind: ListingKind::Disks,
            min_vcpu: Some(4),
            ..ListingQuery::default()
        };
        let error = listing(&catalog, &query).unwrap_err();
        assert!(matches!(error, ListingError::MinVcpuNotVms));
        assert!(error.is_bad_input());
    }
}
