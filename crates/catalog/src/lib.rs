//! iofit-catalog: what Azure VM sizes, managed disks and NetApp Files service levels can
//! deliver, loaded from the TOML data files under `catalog/` in the repository root.
//!
//! Every row belongs to a table ([`TableInfo`]) that names its source and date, and every table
//! belongs to an edition: [`EDITION_CURRENT`] (Azure's current size and disk pages; planning
//! uses it by default) or [`EDITION_SEED`] (the seed guide's dated 2016-2018 figures, which the
//! worked-example tests use). A value nobody could source is `None`; it is never guessed.
//!
//! The data files are embedded in the binary; `--catalog FILE` adds or overrides rows.
//! Prices by region, way of paying and OS are `[[prices]]` rows (or a table's own prices with
//! `price_region`/`price_pricing`/`price_os`); [`Catalog::priced_for`] gives the rows a plan in
//! one region may choose from, each carrying the price chosen. [`import`] writes catalog files
//! from `az vm list-skus` output and Azure Retail Prices API pages.
//!
//! ```
//! use iofit_catalog::{Catalog, EDITION_CURRENT, EDITION_SEED};
//!
//! let catalog = Catalog::embedded().unwrap();
//! // Short names and any case work; the seed edition keeps the seed's own figures.
//! let ds14 = catalog.vm("ds14", EDITION_SEED).unwrap();
//! assert_eq!(ds14.name, "Standard_DS14");
//! assert_eq!(ds14.uncached_iops.unwrap().0, 50_000.0);
//! let table = catalog.table(&ds14.table).unwrap();
//! assert!(!table.source.is_empty() && !table.date.is_empty());
//!
//! let p30 = catalog.disk("P30", EDITION_SEED).unwrap();
//! assert_eq!(p30.iops.0, 5_000.0);
//!
//! // Unknown names suggest the nearest ones.
//! let error = catalog.vm("Standard_DS41", EDITION_SEED).unwrap_err();
//! assert!(error.to_string().contains("Standard_DS4"));
//! ```

// Errors carry file, row, field and advice as owned text; they arise only on bad input, so
// their size does not matter and boxing them would only make matching on them clumsier.
#![allow(clippy::result_large_err)]

pub mod clouds;
mod error;
pub mod import;
mod load;
mod priced;
pub mod types {
    //! The typed rows of the catalog, defined in `iofit_model::catalog` (so that renderers need
    //! no crate that reads files) and re-exported here where they always were.
    pub use iofit_model::catalog::*;
}

pub use error::CatalogError;
pub use priced::{MixedCurrencies, PriceChoice, PricedView};
pub use types::*;

use std::path::Path;

/// The data files built into the binary: (name shown in errors, contents).
const EMBEDDED: &[(&str, &str)] = &[
    (
        "catalog/vm-seed-2016.toml",
        include_str!("../../../catalog/vm-seed-2016.toml"),
    ),
    (
        "catalog/disk-seed-2016.toml",
        include_str!("../../../catalog/disk-seed-2016.toml"),
    ),
    (
        "catalog/disk-seed-2016-standard.toml",
        include_str!("../../../catalog/disk-seed-2016-standard.toml"),
    ),
    (
        "catalog/disk-premium-azure-current.toml",
        include_str!("../../../catalog/disk-premium-azure-current.toml"),
    ),
    (
        "catalog/disk-standard-ssd-azure-current.toml",
        include_str!("../../../catalog/disk-standard-ssd-azure-current.toml"),
    ),
    (
        "catalog/disk-standard-hdd-azure-current.toml",
        include_str!("../../../catalog/disk-standard-hdd-azure-current.toml"),
    ),
    (
        "catalog/provisioned-azure-current.toml",
        include_str!("../../../catalog/provisioned-azure-current.toml"),
    ),
    (
        "catalog/netapp-azure-current.toml",
        include_str!("../../../catalog/netapp-azure-current.toml"),
    ),
    (
        "catalog/vm-previous-gen-azure-current.toml",
        include_str!("../../../catalog/vm-previous-gen-azure-current.toml"),
    ),
    (
        "catalog/vm-dsv2-azure-current.toml",
        include_str!("../../../catalog/vm-dsv2-azure-current.toml"),
    ),
    (
        "catalog/vm-dsv5-azure-current.toml",
        include_str!("../../../catalog/vm-dsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-ddsv5-azure-current.toml",
        include_str!("../../../catalog/vm-ddsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-esv5-azure-current.toml",
        include_str!("../../../catalog/vm-esv5-azure-current.toml"),
    ),
    (
        "catalog/vm-ebsv5-azure-current.toml",
        include_str!("../../../catalog/vm-ebsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-ebdsv5-azure-current.toml",
        include_str!("../../../catalog/vm-ebdsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-fsv2-azure-current.toml",
        include_str!("../../../catalog/vm-fsv2-azure-current.toml"),
    ),
    (
        "catalog/vm-edsv5-azure-current.toml",
        include_str!("../../../catalog/vm-edsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-lsv3-azure-current.toml",
        include_str!("../../../catalog/vm-lsv3-azure-current.toml"),
    ),
    (
        "catalog/vm-msv2-azure-current.toml",
        include_str!("../../../catalog/vm-msv2-azure-current.toml"),
    ),
    (
        "catalog/vm-dasv5-azure-current.toml",
        include_str!("../../../catalog/vm-dasv5-azure-current.toml"),
    ),
    (
        "catalog/vm-dadsv5-azure-current.toml",
        include_str!("../../../catalog/vm-dadsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-dsv6-azure-current.toml",
        include_str!("../../../catalog/vm-dsv6-azure-current.toml"),
    ),
    (
        "catalog/vm-dasv6-azure-current.toml",
        include_str!("../../../catalog/vm-dasv6-azure-current.toml"),
    ),
    (
        "catalog/vm-dpsv5-azure-current.toml",
        include_str!("../../../catalog/vm-dpsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-bsv2-azure-current.toml",
        include_str!("../../../catalog/vm-bsv2-azure-current.toml"),
    ),
    (
        "catalog/vm-easv5-azure-current.toml",
        include_str!("../../../catalog/vm-easv5-azure-current.toml"),
    ),
    (
        "catalog/vm-esv6-azure-current.toml",
        include_str!("../../../catalog/vm-esv6-azure-current.toml"),
    ),
    (
        "catalog/vm-eadsv5-azure-current.toml",
        include_str!("../../../catalog/vm-eadsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-epsv5-azure-current.toml",
        include_str!("../../../catalog/vm-epsv5-azure-current.toml"),
    ),
    (
        "catalog/vm-rules-azure-current.toml",
        include_str!("../../../catalog/vm-rules-azure-current.toml"),
    ),
];

/// The embedded regional price lists (only `[[prices]]` rows): read by [`Catalog::embedded`],
/// left out by [`Catalog::embedded_without_regional_prices`].
const EMBEDDED_PRICES: &[(&str, &str)] = &[
    (
        "catalog/prices-westeurope-azure-current.toml",
        include_str!("../../../catalog/prices-westeurope-azure-current.toml"),
    ),
    (
        "catalog/prices-japaneast-azure-current.toml",
        include_str!("../../../catalog/prices-japaneast-azure-current.toml"),
    ),
    (
        "catalog/prices-westeurope-radar-azure-current.toml",
        include_str!("../../../catalog/prices-westeurope-radar-azure-current.toml"),
    ),
    (
        "catalog/provisioned-prices-azure-current.toml",
        include_str!("../../../catalog/provisioned-prices-azure-current.toml"),
    ),
];

/// All tables and rows known: the embedded files plus any added with [`Catalog::load_file`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalog {
    pub tables: Vec<TableInfo>,
    pub vms: Vec<VmSize>,
    pub disks: Vec<DiskSku>,
    pub provisioned: Vec<ProvisionedDiskType>,
    pub netapp: Vec<NetAppServiceLevel>,
    /// Prices by region, way of paying and OS (see [`Catalog::priced_for`]).
    pub prices: Vec<PriceRow>,
    /// Rates of provisioned disk types by region (see [`Catalog::priced_for`]).
    pub provisioned_prices: Vec<ProvisionedPriceRow>,
    /// Azure's rules per VM family or size: architecture, burstable, retirement.
    pub vm_rules: Vec<VmRule>,
}

/// What a renderer reads of a loaded catalog (`iofit_report`'s listings), without this crate.
impl CatalogContents for Catalog {
    fn table_infos(&self) -> &[TableInfo] {
        &self.tables
    }
    fn vm_sizes(&self) -> &[VmSize] {
        &self.vms
    }
    fn disk_skus(&self) -> &[DiskSku] {
        &self.disks
    }
    fn provisioned_types(&self) -> &[ProvisionedDiskType] {
        &self.provisioned
    }
    fn netapp_levels(&self) -> &[NetAppServiceLevel] {
        &self.netapp
    }
}

impl Catalog {
    /// The catalog built into the binary (the files under `catalog/`).
    pub fn embedded() -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::embedded_without_regional_prices()?;
        for (name, text) in EMBEDDED_PRICES {
            catalog.load_str(name, text)?;
        }
        Ok(catalog)
    }

    /// The embedded catalog without the regional price lists: every table and its own prices,
    /// which is all a plan without `--region` reads (parsing the lists would only cost time).
    pub fn embedded_without_regional_prices() -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::default();
        for (name, text) in EMBEDDED {
            catalog.load_str(name, text)?;
        }
        Ok(catalog)
    }

    /// The embedded catalog plus user files in order (what `--catalog FILE...` means on the
    /// command line): later files override earlier rows of the same name and edition.
    pub fn embedded_with_files<P: AsRef<Path>>(paths: &[P]) -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::embedded()?;
        for path in paths {
            catalog.load_file(path.as_ref())?;
        }
        Ok(catalog)
    }

    /// Adds the tables and rows of one file. A row whose name (and edition) already exists
    /// replaces the old row; others are added. On any error nothing is changed.
    pub fn load_file(&mut self, path: &Path) -> Result<(), CatalogError> {
        let label = path.display().to_string();
        // A catalog file is a regular file of at most a few MiB (not /dev/zero or a FIFO).
        let text = iofit_safefs::input::read_capped_string(
            path,
            iofit_safefs::input::caps::CATALOG_BYTES,
            "catalog TOML",
        )
        .map_err(|error| CatalogError::Read {
            file: label.clone(),
            message: error.detail(),
        })?;
        self.load_str(&label, &text)
    }

    /// Like [`Catalog::load_file`] for text already in memory; `file` names it in errors.
    pub fn load_str(&mut self, file: &str, text: &str) -> Result<(), CatalogError> {
        let rows = load::parse_file(file, text)?;
        if self.table(&rows.table.id).is_some() {
            return Err(CatalogError::Table {
                file: file.to_string(),
                line: None,
                field: "id".to_string(),
                problem: format!(
                    "a table '{}' is already loaded; give this file's table its own id",
                    rows.table.id
                ),
            });
        }
        let edition = rows.table.edition.clone();
        // Prices the table's price_region/_pricing/_os imply come first, so that explicit
        // [[prices]] rows of the same file override them.
        let mut prices = priced::implied_prices(&rows.table, &rows.vms, &rows.disks);
        prices.extend(rows.prices);
        self.tables.push(rows.table);
        for vm in rows.vms {
            let slot = self.find(&self.vms, &vm.name, &edition);
            upsert(&mut self.vms, slot, vm);
        }
        for disk in rows.disks {
            let slot = self.find(&self.disks, &disk.name, &edition);
            upsert(&mut self.disks, slot, disk);
        }
        for disk in rows.provisioned {
            let slot = self.find(&self.provisioned, &disk.name, &edition);
            upsert(&mut self.provisioned, slot, disk);
        }
        for level in rows.netapp {
            let slot = self.find(&self.netapp, &level.name, &edition);
            upsert(&mut self.netapp, slot, level);
        }
        for row in rows.provisioned_prices {
            let same = |old: &ProvisionedPriceRow| {
                normalize(&old.name) == normalize(&row.name)
                    && old.region.eq_ignore_ascii_case(&row.region)
                    && self.edition_of(&old.table) == Some(edition.as_str())
            };
            let slot = self.provisioned_prices.iter().position(same);
            upsert(&mut self.provisioned_prices, slot, row);
        }
        for rule in rows.vm_rules {
            let slot = self.vm_rules.iter().position(|old| {
                normalize(&old.name) == normalize(&rule.name)
                    && self.edition_of(&old.table) == Some(edition.as_str())
            });
            upsert(&mut self.vm_rules, slot, rule);
        }
        // Rules may come before or after the sizes they describe: fill every size in again.
        for index in 0..self.vms.len() {
            self.vms[index].traits = self.traits_of(&self.vms[index]);
        }
        // Prices come by the hundred: index the existing ones once rather than scanning per row.
        let mut index: std::collections::HashMap<priced::PriceKey, usize> = self
            .prices
            .iter()
            .enumerate()
            .filter(|(_, old)| self.edition_of(&old.table) == Some(edition.as_str()))
            .map(|(slot, old)| (priced::price_key(old), slot))
            .collect();
        for price in prices {
            match index.get(&priced::price_key(&price)) {
                Some(&slot) => self.prices[slot] = price,
                None => {
                    index.insert(priced::price_key(&price), self.prices.len());
                    self.prices.push(price);
                }
            }
        }
        Ok(())
    }

    /// The rules that apply to a VM size: its family's `[[vm_rules]]` row of its edition,
    /// with the size's own row (if any) overriding field by field; `None` when neither exists.
    pub fn traits_of(&self, vm: &VmSize) -> Option<VmTraits> {
        let edition = self.edition_of(&vm.table);
        let in_edition = |rule: &&VmRule| self.edition_of(&rule.table) == edition;
        let family = (self.vm_rules.iter().filter(in_edition))
            .find(|rule| rule.name.eq_ignore_ascii_case(&vm.family));
        let size = (self.vm_rules.iter().filter(in_edition))
            .find(|rule| normalize(&rule.name) == normalize(&vm.name));
        if family.is_none() && size.is_none() {
            return None;
        }
        // A size's own retirement comes with its own announcement, never mixed with the
        // family's.
        let retiring = size
            .filter(|rule| rule.retirement_date.is_some())
            .or(family);
        Some(VmTraits {
            arch: size.and_then(|r| r.arch).or(family.and_then(|r| r.arch)),
            burstable: size
                .and_then(|r| r.burstable)
                .or(family.and_then(|r| r.burstable)),
            retirement_date: retiring.and_then(|r| r.retirement_date.clone()),
            retirement_announced: retiring.and_then(|r| r.retirement_announced.clone()),
            retirement_source: retiring.and_then(|r| r.retirement_source.clone()),
        })
    }

    /// Index of the row with this (normalized) name in this edition, if any.
    fn find<T: HasRow>(&self, rows: &[T], name: &str, edition: &str) -> Option<usize> {
        let wanted = normalize(name);
        rows.iter().position(|row| {
            normalize(row.row_name()) == wanted && self.edition_of(row.table_id()) == Some(edition)
        })
    }

    /// The edition of a table id.
    pub fn edition_of(&self, table_id: &str) -> Option<&str> {
        self.table(table_id).map(|table| table.edition.as_str())
    }

    /// The table with this id.
    pub fn table(&self, id: &str) -> Option<&TableInfo> {
        self.tables.iter().find(|table| table.id == id)
    }

    /// Tables of one edition.
    pub fn tables_in<'a>(&'a self, edition: &str) -> impl Iterator<Item = &'a TableInfo> + 'a {
        let edition = edition.to_string();
        self.tables
            .iter()
            .filter(move |table| table.edition == edition)
    }

    /// VM sizes of one edition, in file order.
    pub fn vms_in<'a>(&'a self, edition: &str) -> impl Iterator<Item = &'a VmSize> + 'a {
        let edition = edition.to_string();
        self.vms
            .iter()
            .filter(move |vm| self.edition_of(&vm.table) == Some(edition.as_str()))
    }

    /// Fixed-size disks of one edition, in file order.
    pub fn disks_in<'a>(&'a self, edition: &str) -> impl Iterator<Item = &'a DiskSku> + 'a {
        let edition = edition.to_string();
        self.disks
            .iter()
            .filter(move |disk| self.edition_of(&disk.table) == Some(edition.as_str()))
    }

    /// Provisioned-performance disk types of one edition.
    pub fn provisioned_in<'a>(
        &'a self,
        edition: &str,
    ) -> impl Iterator<Item = &'a ProvisionedDiskType> + 'a {
        let edition = edition.to_string();
        self.provisioned
            .iter()
            .filter(move |disk| self.edition_of(&disk.table) == Some(edition.as_str()))
    }

    /// A VM size by name: any case, with or without the `Standard_` prefix ("ds14" finds
    /// `Standard_DS14`). Unknown names give an error listing the nearest names.
    pub fn vm(&self, name: &str, edition: &str) -> Result<&VmSize, CatalogError> {
        check_edition(edition)?;
        lookup(
            "VM size",
            name,
            edition,
            self.vms_in(edition).map(|vm| (vm.name.as_str(), vm)),
            self.vms
                .iter()
                .map(|vm| (vm.name.as_str(), self.edition_of(&vm.table))),
        )
    }

    /// A fixed-size disk (P30, E10, S30...) by name, any case.
    pub fn disk(&self, name: &str, edition: &str) -> Result<&DiskSku, CatalogError> {
        check_edition(edition)?;
        lookup(
            "disk",
            name,
            edition,
            self.disks_in(edition)
                .map(|disk| (disk.name.as_str(), disk)),
            self.disks
                .iter()
                .map(|disk| (disk.name.as_str(), self.edition_of(&disk.table))),
        )
    }

    /// A provisioned-performance disk type (`PremiumV2`, `Ultra`) by name, any case.
    pub fn provisioned_disk(
        &self,
        name: &str,
        edition: &str,
    ) -> Result<&ProvisionedDiskType, CatalogError> {
        check_edition(edition)?;
        lookup(
            "provisioned disk type",
            name,
            edition,
            self.provisioned_in(edition)
                .map(|disk| (disk.name.as_str(), disk)),
            self.provisioned
                .iter()
                .map(|disk| (disk.name.as_str(), self.edition_of(&disk.table))),
        )
    }

    /// An Azure NetApp Files service level (`Standard`, `Premium`, `Ultra`), any case. NetApp
    /// levels exist only in the current edition; a row from another edition is used only when
    /// the current edition has none of that name.
    pub fn netapp_level(&self, name: &str) -> Result<&NetAppServiceLevel, CatalogError> {
        let current = self
            .netapp
            .iter()
            .filter(|level| self.edition_of(&level.table) == Some(EDITION_CURRENT));
        let others = self
            .netapp
            .iter()
            .filter(|level| self.edition_of(&level.table) != Some(EDITION_CURRENT));
        lookup(
            "NetApp Files service level",
            name,
            EDITION_CURRENT,
            current
                .chain(others)
                .map(|level| (level.name.as_str(), level)),
            std::iter::empty(),
        )
    }
}

/// Name and table of any row type, so the override logic is written once.
trait HasRow {
    fn row_name(&self) -> &str;
    fn table_id(&self) -> &str;
}
impl HasRow for VmSize {
    fn row_name(&self) -> &str {
        &self.name
    }
    fn table_id(&self) -> &str {
        &self.table
    }
}
impl HasRow for DiskSku {
    fn row_name(&self) -> &str {
        &self.name
    }
    fn table_id(&self) -> &str {
        &self.table
    }
}
impl HasRow for ProvisionedDiskType {
    fn row_name(&self) -> &str {
        &self.name
    }
    fn table_id(&self) -> &str {
        &self.table
    }
}
impl HasRow for NetAppServiceLevel {
    fn row_name(&self) -> &str {
        &self.name
    }
    fn table_id(&self) -> &str {
        &self.table
    }
}

fn upsert<T>(rows: &mut Vec<T>, slot: Option<usize>, row: T) {
    match slot {
        Some(index) => rows[index] = row,
        None => rows.push(row),
    }
}

fn check_edition(edition: &str) -> Result<(), CatalogError> {
    if EDITIONS.contains(&edition) {
        Ok(())
    } else {
        Err(CatalogError::UnknownEdition {
            edition: edition.to_string(),
            known: EDITIONS.iter().map(|e| e.to_string()).collect(),
        })
    }
}

/// The form names are compared in: lower case, without Azure's `Standard_` prefix and
/// without separators, so `DS14`, `standard_ds14` and `Standard_DS14` are one name.
pub(crate) fn normalize(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let stripped = ["standard_", "standard-", "standard "]
        .iter()
        .find_map(|prefix| lower.strip_prefix(prefix))
        .unwrap_or(&lower);
    stripped
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .collect()
}

/// Finds `name` among `candidates`; else an error naming the 3 nearest names and, when the
/// name exists in another edition, which one.
fn lookup<'a, T>(
    what: &str,
    name: &str,
    edition: &str,
    candidates: impl Iterator<Item = (&'a str, &'a T)>,
    everywhere: impl Iterator<Item = (&'a str, Option<&'a str>)>,
) -> Result<&'a T, CatalogError> {
    let wanted = normalize(name);
    let candidates: Vec<(&str, &T)> = candidates.collect();
    if let Some((_, row)) = candidates
        .iter()
        .find(|(candidate, _)| candidate.eq_ignore_ascii_case(name.trim()))
        .or_else(|| {
            candidates
                .iter()
                .find(|(candidate, _)| normalize(candidate) == wanted)
        })
    {
        return Ok(row);
    }
    let mut scored: Vec<(f64, &str)> = candidates
        .iter()
        .map(|(candidate, _)| {
            let normalized = normalize(candidate);
            let mut score = strsim::normalized_damerau_levenshtein(&normalized, &wanted);
            if !wanted.is_empty() && normalized.starts_with(&wanted) {
                score += 0.5;
            }
            (score, *candidate)
        })
        .collect();
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let nearest: Vec<String> = scored
        .iter()
        .take(3)
        .map(|(_, candidate)| candidate.to_string())
        .collect();
    let elsewhere: Vec<&str> = everywhere
        .filter(|(candidate, _)| normalize(candidate) == wanted)
        .filter_map(|(_, other)| other)
        .filter(|other| *other != edition)
        .collect();
    let hint = match elsewhere.first() {
        Some(other) => format!(" ('{name}' exists in the {other} edition: pass --edition {other})"),
        None => String::new(),
    };
    Err(CatalogError::Unknown {
        what: what.to_string(),
        name: name.to_string(),
        edition: edition.to_string(),
        nearest: if nearest.is_empty() {
            vec!["(none in this edition)".to_string()]
        } else {
            nearest
        },
        hint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::units::{GiB, Iops, MBps};

    fn embedded() -> Catalog {
        Catalog::embedded().expect("the embedded catalog loads")
    }

    #[test]
    fn every_row_names_a_table_with_source_and_date() {
        let catalog = embedded();
        let table_ids = catalog
            .vms
            .iter()
            .map(|r| &r.table)
            .chain(catalog.disks.iter().map(|r| &r.table))
            .chain(catalog.provisioned.iter().map(|r| &r.table))
            .chain(catalog.netapp.iter().map(|r| &r.table));
        for id in table_ids {
            let table = catalog
                .table(id)
                .unwrap_or_else(|| panic!("table {id} missing"));
            assert!(!table.source.trim().is_empty(), "{id} has no source");
            assert_eq!(table.date.len(), 10, "{id} has no YYYY-MM-DD date");
            assert!(EDITIONS.contains(&table.edition.as_str()));
        }
    }

    #[test]
    fn the_seed_edition_has_the_seed_figures() {
        let catalog = embedded();
        let vm = |name| catalog.vm(name, EDITION_SEED).unwrap();
        assert_eq!(vm("DS1").uncached_iops, Some(Iops(3200.0)));
        assert_eq!(vm("DS4").uncached_throughput_mb_s, Some(MBps(256.0)));
        assert_eq!(vm("DS13").uncached_iops, Some(Iops(25600.0)));
        assert_eq!(vm("DS13").price_usd_month, Some(1003.66));
        let ds14 = vm("Standard_DS14");
        assert_eq!(ds14.uncached_iops, Some(Iops(50000.0)));
        assert_eq!(ds14.uncached_throughput_mb_s, Some(MBps(512.0)));
        assert_eq!(ds14.cached_iops, Some(Iops(64000.0)));
        assert_eq!(
            (ds14.vcpu, ds14.memory_gib, ds14.max_data_disks),
            (16, GiB(112.0), 32)
        );
        assert_eq!(ds14.cache_size_gib, Some(GiB(576.0)));
        let gs5 = vm("gs5");
        assert_eq!(gs5.uncached_iops, Some(Iops(80000.0)));
        assert_eq!(gs5.uncached_throughput_mb_s, Some(MBps(2000.0)));
        assert_eq!(gs5.max_data_disks, 64);
        let d14 = vm("Standard_D14");
        assert!(!d14.premium_storage);
        assert_eq!(d14.price_usd_month, Some(1570.58));

        let disk = |name| catalog.disk(name, EDITION_SEED).unwrap();
        let expected = [
            ("P4", 32.0, 120.0, 25.0),
            ("P6", 64.0, 240.0, 50.0),
            ("P10", 128.0, 500.0, 100.0),
            ("P20", 512.0, 2300.0, 150.0),
            ("P30", 1024.0, 5000.0, 200.0),
            ("P40", 2048.0, 7500.0, 250.0),
        ];
        for (name, size, iops, mb_s) in expected {
            let row = disk(name);
            assert_eq!(
                (row.size_gib, row.iops.0, row.throughput_mb_s.0),
                (GiB(size), iops, mb_s)
            );
            assert_eq!(row.kind, DiskKind::PremiumSsd);
        }
        assert_eq!(disk("P50").iops, Iops(7500.0));
        let s30 = disk("S30");
        assert_eq!((s30.kind, s30.iops), (DiskKind::StandardHdd, Iops(500.0)));
        // Disk prices are derived from the seed's totals; the parts must give the totals back.
        let p30_total = 4.0 * disk("P30").price_usd_month.unwrap();
        let s30_total = 32.0 * s30.price_usd_month.unwrap();
        assert!((p30_total - 544.34).abs() < 1e-9, "{p30_total}");
        assert!((s30_total - 1638.40).abs() < 1e-9, "{s30_total}");
        let notes = catalog
            .table(&disk("P30").table)
            .and_then(|t| t.notes.clone())
            .unwrap();
        assert!(notes.contains("DERIVED") && notes.contains("1,548.00"));
    }

    #[test]
    fn the_current_vms_are_many_and_consistent() {
        let catalog = embedded();
        let vms: Vec<&VmSize> = catalog.vms_in(EDITION_CURRENT).collect();
        assert!(vms.len() >= 60, "only {} current VM sizes", vms.len());
        for vm in &vms {
            assert!(
                vm.vcpu > 0 && vm.memory_gib > GiB(0.0) && vm.max_data_disks > 0,
                "{}",
                vm.name
            );
            assert!(
                vm.uncached_iops.is_some(),
                "{} has no uncached IOPS",
                vm.name
            );
            if let (Some(burst), Some(base)) = (vm.burst_uncached_iops, vm.uncached_iops) {
                assert!(burst.0 >= base.0, "{}: burst below base", vm.name);
            }
        }
        // The current pages differ from the seed where SPEC.md says so.
        let ds14 = catalog.vm("DS14", EDITION_CURRENT).unwrap();
        assert_eq!(ds14.uncached_iops, Some(Iops(51200.0)));
        assert_eq!(
            catalog.vm("DS14", EDITION_SEED).unwrap().uncached_iops,
            Some(Iops(50000.0))
        );
        for family in [
            "DSv2", "Dsv5", "Ddsv5", "Esv5", "Edsv5", "Ebsv5", "Fsv2", "Lsv3", "Msv2", "Mdsv2",
            "GS", "DS", "Dasv5", "Dadsv5", "Dsv6", "Dasv6", "Dpsv5", "Bsv2", "Easv5", "Esv6",
            "Eadsv5", "Epsv5",
        ] {
            assert!(vms.iter().any(|vm| vm.family == family), "{family}");
        }
        let e8 = catalog.vm("Standard_E8s_v5", EDITION_CURRENT).unwrap();
        assert_eq!(
            (e8.uncached_iops, e8.uncached_throughput_mb_s),
            (Some(Iops(12800.0)), Some(MBps(290.0)))
        );
    }

    #[test]
    fn the_current_disks_cover_p_e_and_s_tiers() {
        let catalog = embedded();
        let names: Vec<&str> = catalog
            .disks_in(EDITION_CURRENT)
            .map(|d| d.name.as_str())
            .collect();
        for tier in ["P", "E"] {
            for n in [1, 2, 3, 4, 6, 10, 15, 20, 30, 40, 50, 60, 70, 80] {
                assert!(names.contains(&format!("{tier}{n}").as_str()), "{tier}{n}");
            }
        }
        for n in [4, 6, 10, 15, 20, 30, 40, 50, 60, 70, 80] {
            assert!(names.contains(&format!("S{n}").as_str()), "S{n}");
        }
        let p30 = catalog.disk("P30", EDITION_CURRENT).unwrap();
        assert_eq!((p30.iops, p30.throughput_mb_s), (Iops(5000.0), MBps(200.0)));
        let p20 = catalog.disk("p20", EDITION_CURRENT).unwrap();
        assert_eq!(p20.burst_iops, Some(Iops(3500.0)));
        // Sizes grow with the tier number within each kind.
        for kind in [
            DiskKind::PremiumSsd,
            DiskKind::StandardSsd,
            DiskKind::StandardHdd,
        ] {
            let sizes: Vec<GiB> = catalog
                .disks_in(EDITION_CURRENT)
                .filter(|d| d.kind == kind)
                .map(|d| d.size_gib)
                .collect();
            assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{kind:?} {sizes:?}");
        }
    }

    #[test]
    fn provisioned_types_and_netapp_levels_are_there() {
        let catalog = embedded();
        let v2 = catalog
            .provisioned_disk("premiumv2", EDITION_CURRENT)
            .unwrap();
        assert_eq!(v2.kind, DiskKind::PremiumSsdV2);
        assert_eq!(
            (v2.iops_baseline, v2.iops_max),
            (Iops(3000.0), Iops(80000.0))
        );
        let ultra = catalog.provisioned_disk("Ultra", EDITION_CURRENT).unwrap();
        assert_eq!(ultra.throughput_mb_s_max, MBps(10000.0));
        let rates: Vec<f64> = ["standard", "Premium", "ULTRA"]
            .iter()
            .map(|name| {
                catalog
                    .netapp_level(name)
                    .unwrap()
                    .throughput_mib_s_per_tib
                    .0
            })
            .collect();
        assert_eq!(rates, [16.0, 64.0, 128.0]);
        let error = catalog.netapp_level("Premiun").unwrap_err().to_string();
        assert!(error.contains("Premium"), "{error}");
    }

    #[test]
    fn names_match_in_any_case_and_without_the_prefix() {
        let catalog = embedded();
        for name in [
            "DS14",
            "ds14",
            "Standard_DS14",
            "STANDARD_ds14",
            " standard-ds14 ",
        ] {
            assert_eq!(
                catalog.vm(name, EDITION_SEED).unwrap().name,
                "Standard_DS14"
            );
        }
        assert_eq!(catalog.disk("p30", EDITION_SEED).unwrap().name, "P30");
    }

    #[test]
    fn unknown_names_suggest_the_three_nearest() {
        let catalog = embedded();
        let error = catalog.vm("Standard_DS15", EDITION_SEED).unwrap_err();
        let CatalogError::Unknown { nearest, .. } = &error else {
            panic!("{error}")
        };
        assert_eq!(nearest.len(), 3);
        assert!(
            nearest.contains(&"Standard_DS14".to_string()),
            "{nearest:?}"
        );
        assert!(error
            .to_string()
            .starts_with("unknown VM size 'Standard_DS15' in the seed-2016 catalog; nearest: "));
        let error = catalog.disk("P31", EDITION_SEED).unwrap_err().to_string();
        assert!(error.contains("P30"), "{error}");
        let error = catalog.vm("DS14", "2016").unwrap_err().to_string();
        assert!(error.contains("use one of: current, seed-2016"), "{error}");
    }

    #[test]
    fn a_name_in_another_edition_says_which() {
        let catalog = embedded();
        let error = catalog.vm("E2s_v5", EDITION_SEED).unwrap_err().to_string();
        assert!(error.contains("exists in the current edition"), "{error}");
    }

    #[test]
    fn a_user_file_adds_and_overrides_rows_of_its_edition() {
        let mut catalog = embedded();
        let seed_vms = catalog.vms_in(EDITION_SEED).count();
        let text = r#"
[table]
id = "my-measurements"
edition = "seed-2016"
title = "measured"
source = "our lab"
date = "2026-01-01"

[[vms]]
name = "standard_ds14"
family = "DS"
vcpu = 16
memory_gib = 112
max_data_disks = 32
premium_storage = true
uncached_iops = 48000

[[vms]]
name = "Standard_X1"
family = "X"
vcpu = 1
memory_gib = 1
max_data_disks = 1
premium_storage = false
"#;
        catalog.load_str("my.toml", text).unwrap();
        assert_eq!(catalog.vms_in(EDITION_SEED).count(), seed_vms + 1);
        let ds14 = catalog.vm("DS14", EDITION_SEED).unwrap();
        assert_eq!(ds14.uncached_iops, Some(Iops(48000.0)));
        assert_eq!(ds14.table, "my-measurements");
        assert!(catalog.vm("X1", EDITION_SEED).is_ok());

        // The same table id twice is refused, and a refused file changes nothing.
        let before = catalog.clone();
        let error = catalog
            .load_str("again.toml", text)
            .unwrap_err()
            .to_string();
        assert!(error.contains("already loaded"), "{error}");
        assert_eq!(catalog, before);
    }

    #[test]
    fn the_readme_example_file_loads_and_overrides() {
        let readme = include_str!("../../../catalog/README.md");
        let start = readme.find("```toml\n").expect("a toml example") + "```toml\n".len();
        let end = start + readme[start..].find("\n```").unwrap();
        let mut catalog = embedded();
        catalog.load_str("README.md", &readme[start..end]).unwrap();
        let e8 = catalog.vm("E8s_v5", EDITION_CURRENT).unwrap();
        assert_eq!(e8.table, "lab-2026");
        assert_eq!(catalog.netapp_level("premium").unwrap().table, "lab-2026");
    }

    #[test]
    fn load_file_names_the_path_in_errors() {
        let mut catalog = Catalog::default();
        let error = catalog
            .load_file(Path::new("/nonexistent/cat.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("/nonexistent/cat.toml: cannot read"),
            "{error}"
        );
    }

    /// The embedded [[prices]]: eastus repeats every table's own price; westeurope and
    /// japaneast price the v5/v6/B/ARM families and every disk tier; reservations and Windows are
    /// not sourced, so a plan asking for them finds nothing priced rather than a guess.
    #[test]
    fn embedded_prices_cover_eastus_westeurope_and_japaneast() {
        let catalog = embedded();
        let view = |region: &str, pricing, os| {
            catalog.priced_for(
                EDITION_CURRENT,
                &PriceChoice {
                    region: region.into(),
                    pricing,
                    os,
                },
            )
        };
        let east = view("eastus", Pricing::Payg, Os::Linux);
        let priced: Vec<&VmSize> = catalog
            .vms_in(EDITION_CURRENT)
            .filter(|vm| vm.price_usd_month.is_some())
            .collect();
        assert_eq!(east.catalog.vms.len(), priced.len());
        for vm in &east.catalog.vms {
            let own = catalog.vm(&vm.name, EDITION_CURRENT).unwrap();
            assert_eq!(vm.price_usd_month, own.price_usd_month, "{}", vm.name);
            // The eastus tables' own prices (price_region/price_pricing/price_os), no copy.
            assert!(vm.table.ends_with("@ eastus payg linux"), "{}", vm.table);
        }
        assert!(east.disks_unpriced.is_empty(), "{:?}", east.disks_unpriced);
        let eastus_d4as = catalog
            .vm("D4as_v5", EDITION_CURRENT)
            .unwrap()
            .price_usd_month
            .unwrap();
        assert!((eastus_d4as - 0.172 * 730.0).abs() < 1e-9);
        // westeurope: every size (the 2026-09-23 list plus the 2026-08-22 radar records).
        for (region, sizes) in [("westeurope", 188), ("japaneast", 107)] {
            let other = view(region, Pricing::Payg, Os::Linux);
            assert_eq!(other.catalog.vms.len(), sizes, "{region}");
            for family in [
                "Dasv5", "Dsv6", "Dasv6", "Dpsv5", "Bsv2", "Easv5", "Esv6", "Eadsv5", "Epsv5",
                "Dsv5",
            ] {
                assert!(
                    other.catalog.vms.iter().any(|vm| vm.family == family),
                    "{region} {family}"
                );
            }
            assert!(other.disks_unpriced.is_empty(), "{region}");
            let d4as = other
                .catalog
                .vms
                .iter()
                .find(|vm| vm.name == "Standard_D4as_v5")
                .unwrap();
            assert!(d4as.price_usd_month.unwrap() > eastus_d4as, "{region}");
            // Sizes with no price there are left out and counted, not priced at eastus rates.
            assert_eq!(
                other
                    .vms_not_in_region
                    .contains(&"Standard_L8s_v3".to_string()),
                region == "japaneast"
            );
        }
        for (pricing, os) in [(Pricing::Ri1y, Os::Linux), (Pricing::Payg, Os::Windows)] {
            let none = view("eastus", pricing, os);
            assert!(none.catalog.vms.is_empty());
            assert_eq!(none.vms_without_this_price.len(), priced.len());
        }
    }

    #[test]
    fn leaving_out_the_regional_price_lists_changes_no_table_row() {
        let all = embedded();
        let lean = Catalog::embedded_without_regional_prices().unwrap();
        assert_eq!((&lean.vms, &lean.disks), (&all.vms, &all.disks));
        assert!(lean.prices.iter().all(|p| p.region == "eastus"));
        assert!(all.prices.iter().any(|p| p.region == "japaneast"));
    }

    /// A table's price_region/price_pricing/price_os make its prices [[prices]] rows; an
    /// explicit row of the same key in the file wins; the two keys go together.
    #[test]
    fn table_price_keys_imply_price_rows_that_explicit_rows_override() {
        let text = r#"
[table]
id = "t-prices"
edition = "current"
title = "t"
source = "s"
date = "2026-01-01"
price_region = "westus2"
price_pricing = "payg"
price_os = "linux"

[[vms]]
name = "Standard_Q1"
family = "Q"
vcpu = 2
memory_gib = 8
max_data_disks = 4
premium_storage = true
uncached_iops = 1000
price_per_month = 100

[[vms]]
name = "Standard_Q2"
family = "Q"
vcpu = 4
memory_gib = 16
max_data_disks = 8
premium_storage = true
uncached_iops = 2000
price_per_month = 200

[[prices]]
name = "Standard_Q2"
region = "westus2"
pricing = "payg"
os = "linux"
price_per_month = 150
"#;
        let mut catalog = Catalog::default();
        catalog.load_str("t.toml", text).unwrap();
        let view = catalog.priced_for(
            EDITION_CURRENT,
            &PriceChoice {
                region: "WestUS2".into(),
                pricing: Pricing::Payg,
                os: Os::Linux,
            },
        );
        let prices: Vec<(String, Option<f64>)> = view
            .catalog
            .vms
            .iter()
            .map(|vm| (vm.name.clone(), vm.price_usd_month))
            .collect();
        assert_eq!(
            prices,
            [
                ("Standard_Q1".to_string(), Some(100.0)),
                ("Standard_Q2".to_string(), Some(150.0))
            ]
        );
        let error = Catalog::default()
            .load_str("u.toml", &text.replace("price_pricing = \"payg\"\n", ""))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("u.toml: line 8: [table]: field price_pricing: price_region and"),
            "{error}"
        );
    }

    /// Current prices: every priced table says where, when and on what basis; VM monthly prices
    /// are the hourly prices its notes list times 730 hours; what could not be sourced is empty.
    #[test]
    fn current_prices_carry_their_basis_and_follow_their_notes() {
        let catalog = embedded();
        let current: Vec<&TableInfo> = catalog.tables_in(EDITION_CURRENT).collect();
        let priced_tables: Vec<&str> = catalog
            .vms_in(EDITION_CURRENT)
            .filter(|v| v.price_usd_month.is_some())
            .map(|v| v.table.as_str())
            .chain(
                catalog
                    .disks_in(EDITION_CURRENT)
                    .filter(|d| d.price_usd_month.is_some())
                    .map(|d| d.table.as_str()),
            )
            .chain(
                catalog
                    .provisioned_in(EDITION_CURRENT)
                    .filter(|d| d.price_usd_per_gib_month.is_some())
                    .map(|d| d.table.as_str()),
            )
            .chain(
                catalog
                    .netapp
                    .iter()
                    .filter(|l| l.price_usd_per_tib_month.is_some())
                    .map(|l| l.table.as_str()),
            )
            .collect();
        for table in &current {
            if priced_tables.contains(&table.id.as_str()) {
                assert!(table.price_basis.is_some(), "{}", table.id);
                assert!(table.price_source.is_some(), "{}", table.id);
                assert!(table.price_date.is_some(), "{}", table.id);
            }
        }

        // Monthly VM price = the hourly price listed in the table notes x 730 hours.
        let mut priced_vms = 0;
        let mut unpriced: Vec<&str> = Vec::new();
        for vm in catalog.vms_in(EDITION_CURRENT) {
            let Some(month) = vm.price_usd_month else {
                unpriced.push(&vm.name);
                continue;
            };
            priced_vms += 1;
            let notes = catalog.table(&vm.table).unwrap().notes.as_deref().unwrap();
            // The list runs to the end of its sentence: "Hourly USD: D2s_v5 0.096, D4s_v5 0.192."
            let list = notes
                .split("Hourly USD: ")
                .nth(1)
                .and_then(|rest| rest.split(". ").next())
                .expect("an hourly price list in the notes");
            let short = vm.name.trim_start_matches("Standard_");
            let hourly: f64 = list
                .split(", ")
                .find_map(|entry| {
                    let (name, price) = entry.split_once(' ')?;
                    (name == short).then(|| price.trim_end_matches('.').parse().ok())?
                })
                .unwrap_or_else(|| panic!("{short} has no hourly price in the notes"));
            assert!(
                (hourly * 730.0 - month).abs() < 1e-6,
                "{short}: {hourly} x 730 != {month}"
            );
        }
        assert_eq!(priced_vms, 177);
        // GS3-GS5 have no sourced price; Ebdsv5's stays empty as its table's notes say.
        let ebdsv5 = [2, 4, 8, 16, 32, 48, 64, 96].map(|n| format!("Standard_E{n}bds_v5"));
        let mut expected: Vec<String> = ["Standard_GS3", "Standard_GS4", "Standard_GS5"]
            .map(String::from)
            .to_vec();
        expected.extend(ebdsv5);
        assert_eq!(
            unpriced, expected,
            "only the sizes without an eastus price stay empty"
        );
        let notes = catalog
            .table("azure-vm-ebdsv5")
            .unwrap()
            .notes
            .as_deref()
            .unwrap();
        assert!(notes.contains("price_per_month stays empty"), "{notes}");
        let d4s = catalog.vm("D4s_v5", EDITION_CURRENT).unwrap();
        assert!((d4s.price_usd_month.unwrap() - 140.16).abs() < 1e-9);

        // Every current fixed-size disk is priced, and price grows with size within a kind.
        for kind in [
            DiskKind::PremiumSsd,
            DiskKind::StandardSsd,
            DiskKind::StandardHdd,
        ] {
            let prices: Vec<f64> = catalog
                .disks_in(EDITION_CURRENT)
                .filter(|d| d.kind == kind)
                .map(|d| d.price_usd_month.expect("priced"))
                .collect();
            assert!(
                prices.windows(2).all(|w| w[0] < w[1]),
                "{kind:?} {prices:?}"
            );
        }
        let p30 = catalog.disk("P30", EDITION_CURRENT).unwrap();
        assert_eq!(p30.price_usd_month, Some(135.17));
        // The seed edition keeps its own, older price.
        let seed_p30 = catalog.disk("P30", EDITION_SEED).unwrap();
        assert_ne!(seed_p30.price_usd_month, p30.price_usd_month);

        // Premium SSD v2 eastus IOPS and MB/s rates: the hourly meters x 730 h.
        let v2 = catalog
            .provisioned_disk("PremiumV2", EDITION_CURRENT)
            .unwrap();
        assert_eq!(v2.price_usd_per_gib_month, Some(0.08103));
        assert!((v2.price_usd_per_iops_month.unwrap() - 0.000007 * 730.0).abs() < 1e-9);
        assert!((v2.price_usd_per_mb_s_month.unwrap() - 0.000055 * 730.0).abs() < 1e-9);
        let ultra = catalog.provisioned_disk("Ultra", EDITION_CURRENT).unwrap();
        assert!(
            ultra.price_usd_per_iops_month.is_some() && ultra.price_usd_per_mb_s_month.is_some()
        );

        // NetApp: per GiB-hour x 730 h x 1,024 GiB.
        let premium = catalog.netapp_level("Premium").unwrap();
        let expected = 0.000403 * 730.0 * 1024.0;
        assert!((premium.price_usd_per_tib_month.unwrap() - expected).abs() < 1e-6);
    }

    /// A plan priced for westeurope reads the region's own Premium SSD v2 and Ultra meters
    /// (each monthly rate = the hourly meter as stored x 730 h); japaneast, where none is
    /// sourced, leaves them empty and says so.
    #[test]
    fn provisioned_rates_follow_the_region() {
        let catalog = embedded();
        for row in &catalog.provisioned_prices {
            for (month, hour) in [
                (row.usd_per_gib_month, row.retail_usd_per_gib_hour),
                (row.usd_per_iops_month, row.retail_usd_per_iops_hour),
                (row.usd_per_mb_s_month, row.retail_usd_per_mb_s_hour),
            ] {
                let (month, hour) = (month.unwrap(), hour.unwrap());
                assert!(
                    (month - hour * 730.0).abs() < 1e-9,
                    "{}: {month} vs {hour}",
                    row.name
                );
            }
            assert!(catalog
                .table(&row.table)
                .is_some_and(|t| !t.source.is_empty()));
        }
        let choice = |region: &str| PriceChoice {
            region: region.to_string(),
            pricing: Pricing::Payg,
            os: Os::Linux,
        };
        let west = catalog.priced_for(EDITION_CURRENT, &choice("westeurope"));
        let v2 = west
            .catalog
            .provisioned
            .iter()
            .find(|d| d.name == "PremiumV2")
            .unwrap();
        assert_eq!(v2.price_usd_per_iops_month, Some(0.00584));
        assert_eq!(v2.price_usd_per_mb_s_month, Some(0.04745));
        assert_eq!(v2.price_usd_per_gib_month, Some(0.0949));
        assert!(west.notes().iter().any(|n| n.contains("PremiumV2 from")));
        let japan = catalog.priced_for(EDITION_CURRENT, &choice("japaneast"));
        let v2 = japan
            .catalog
            .provisioned
            .iter()
            .find(|d| d.name == "PremiumV2")
            .unwrap();
        assert_eq!(v2.price_usd_per_iops_month, None);
        assert!(japan.notes().iter().any(|n| n.contains("PremiumV2")));
    }

    /// westeurope's Windows pay-as-you-go prices: one per catalog size that runs Windows
    /// (not the Arm64 sizes), each = its hourly price x 730 and above the same size's Linux
    /// price (the licence), each naming its record.
    #[test]
    fn westeurope_has_sourced_windows_prices() {
        let catalog = embedded();
        let price = |name: &str, os: Os| {
            catalog.prices.iter().find(|p| {
                p.name == name
                    && p.region == "westeurope"
                    && p.pricing == Pricing::Payg
                    && p.os == Some(os)
            })
        };
        let mut windows = 0;
        for vm in catalog.vms_in(EDITION_CURRENT) {
            let Some(win) = price(&vm.name, Os::Windows) else {
                assert!(
                    vm.name.contains("ps_v5"),
                    "{} has no Windows price",
                    vm.name
                );
                continue;
            };
            windows += 1;
            let hourly = win.retail_price_usd.unwrap();
            assert!((win.usd_month - hourly * 730.0).abs() < 0.01, "{}", vm.name);
            assert!(win
                .source
                .as_deref()
                .is_some_and(|s| s.contains("vm-eu-west.json key")));
            let linux = price(&vm.name, Os::Linux).expect("a Linux price too");
            assert!(win.usd_month > linux.usd_month, "{}", vm.name);
        }
        assert_eq!(windows, 175);
    }

    /// Every current VM size has its architecture and burstable flag from a rule with a
    /// source; Arm64 and burstable are the Ampere and B-series families; every retirement
    /// date names its announcement.
    #[test]
    fn every_current_size_has_sourced_rules() {
        let catalog = embedded();
        for vm in catalog.vms_in(EDITION_CURRENT) {
            let traits = vm
                .traits
                .as_ref()
                .unwrap_or_else(|| panic!("{} has no rules", vm.name));
            let arch = traits.arch.unwrap();
            assert_eq!(
                arch == Arch::Arm64,
                vm.name.contains("ps_v5"),
                "{}",
                vm.name
            );
            assert_eq!(traits.burstable, Some(vm.family == "Bsv2"), "{}", vm.name);
            if traits.retirement_date.is_some() {
                assert!(traits
                    .retirement_source
                    .as_deref()
                    .is_some_and(|s| s.contains("updates?id=")));
            }
        }
        let ds3 = catalog.vm("Standard_DS3", EDITION_CURRENT).unwrap();
        let traits = ds3.traits.as_ref().unwrap();
        assert_eq!(traits.retirement_date.as_deref(), Some("2028-05-01"));
        // A size's own row wins over its family's.
        let m192 = catalog.vm("Standard_M192is_v2", EDITION_CURRENT).unwrap();
        assert_eq!(
            m192.traits.as_ref().unwrap().retirement_date.as_deref(),
            Some("2027-03-31")
        );
        assert_eq!(m192.traits.as_ref().unwrap().arch, Some(Arch::X64));
        let m128 = catalog.vm("Standard_M128s_v2", EDITION_CURRENT).unwrap();
        assert_eq!(m128.traits.as_ref().unwrap().retirement_date, None);
        // The seed edition's sizes are not described by current rules.
        let seed = catalog.vm("Standard_DS13", EDITION_SEED).unwrap();
        assert_eq!(seed.traits, None);
    }

    /// Premium SSD v2 bills capacity plus only the IOPS above 3,000 and MB/s above 125; within
    /// the baseline it needs no IOPS or MB/s rate; Ultra bills every IOPS and MB/s.
    #[test]
    fn provisioned_disks_are_priced_as_azure_bills_them() {
        let catalog = embedded();
        let v2 = catalog
            .provisioned_disk("PremiumV2", EDITION_CURRENT)
            .unwrap();
        let price = v2.monthly_price_usd(GiB(64.0), 3334.0, 125.0).unwrap();
        let expected = 64.0 * 0.08103 + 334.0 * 0.00511;
        assert!((price - expected).abs() < 1e-9, "{price} vs {expected}");
        let mut unrated = v2.clone();
        unrated.price_usd_per_iops_month = None;
        unrated.price_usd_per_mb_s_month = None;
        assert_eq!(
            unrated.monthly_price_usd(GiB(64.0), 3000.0, 125.0),
            Some(64.0 * 0.08103)
        );
        assert_eq!(unrated.monthly_price_usd(GiB(64.0), 3001.0, 125.0), None);
        let ultra = catalog.provisioned_disk("Ultra", EDITION_CURRENT).unwrap();
        let price = ultra.monthly_price_usd(GiB(100.0), 1000.0, 10.0).unwrap();
        let expected = 100.0 * 0.11972 + 1000.0 * 0.04964 + 10.0 * 0.3495;
        assert!((price - expected).abs() < 1e-9);
    }
}
