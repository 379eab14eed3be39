//! A catalog seen at one region, one way of paying and one OS: the rows a plan may choose
//! from, each VM and disk carrying the price chosen in its `price_usd_month`, so the planner
//! reads prices exactly as it does without a choice. Which price each row used, and which rows
//! were left out or stay unpriced, is said in the view's tables and notes.

use crate::types::{Os, PriceRow, Pricing, TableInfo};
use crate::{normalize, Catalog};
use std::collections::BTreeMap;

/// A region whose prices come in two or more currencies other than US dollars, which a plan
/// cannot add up ([`Catalog::price_currency`]). Displays as `EUR (t1, t2) and GBP (t3)`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.describe())]
pub struct MixedCurrencies {
    /// Each currency (ISO 4217 code) with the tables priced in it, currencies in order.
    pub tables_by_currency: Vec<(String, Vec<String>)>,
}

impl MixedCurrencies {
    fn describe(&self) -> String {
        self.tables_by_currency
            .iter()
            .map(|(currency, ids)| format!("{currency} ({})", ids.join(", ")))
            .collect::<Vec<_>>()
            .join(" and ")
    }
}

/// Where and how the user will buy: `--region`, `--pricing`, `--os`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriceChoice {
    /// Azure's `armRegionName` (`eastus`, `westeurope`, `japaneast`); compared in any case.
    pub region: String,
    pub pricing: Pricing,
    pub os: Os,
}

impl PriceChoice {
    /// `eastus ri-1y linux`.
    pub fn label(&self) -> String {
        format!("{} {} {}", self.region, self.pricing.name(), self.os.name())
    }
}

/// The result of [`Catalog::priced_for`].
#[derive(Clone, Debug, PartialEq)]
pub struct PricedView {
    /// The chosen edition's rows offered and priced at the choice. Each VM's `table` names a
    /// table of this view that says which price it used (`<vm table> @ <region> <pricing>
    /// <os>`); `price_usd_month` holds that price. Disks keep their table; their price is the
    /// region's pay-as-you-go price or empty when none is known.
    pub catalog: Catalog,
    pub choice: PriceChoice,
    /// VM sizes with no price at all in the region (not offered there, or not sourced).
    pub vms_not_in_region: Vec<String>,
    /// VM sizes priced in the region, but not for this way of paying and OS.
    pub vms_without_this_price: Vec<String>,
    /// Disks (fixed sizes) with no pay-as-you-go price in the region: kept, unpriced.
    pub disks_unpriced: Vec<String>,
    /// Provisioned disk types and NetApp levels whose prices are for another region: kept,
    /// their prices emptied.
    pub other_region_prices_emptied: Vec<String>,
    /// Provisioned disk types priced from a `[[provisioned_prices]]` row of the region
    /// (`PremiumV2 from <table>`).
    pub provisioned_priced_from: Vec<String>,
    /// Provisioned disk types some of whose rates have no source in the region
    /// (`PremiumV2 IOPS, MB/s`): a design needing them stays unpriced.
    pub provisioned_rates_missing: Vec<String>,
    /// The ISO 4217 code of every price in the view ([`Catalog::price_currency`]).
    pub currency: String,
    /// Prices of the region in another currency, left out (never converted): how many, and
    /// the tables they come from.
    pub other_currency_left_out: (usize, Vec<String>),
}

/// What makes two price rows price the same thing: name (normalized), region (lower case), way
/// of paying, OS.
pub(crate) type PriceKey = (String, String, Pricing, Option<Os>);

pub(crate) fn price_key(row: &PriceRow) -> PriceKey {
    (
        normalize(&row.name),
        row.region.to_ascii_lowercase(),
        row.pricing,
        row.os,
    )
}

impl Catalog {
    /// The rows of `edition` a plan in `choice.region`, paid `choice.pricing`, running
    /// `choice.os`, may choose from:
    /// - a VM size is kept only when a price row for exactly that region, way of paying and OS
    ///   exists; its `price_usd_month` becomes that price and its `table` a derived table of the
    ///   view whose `price_basis`, `price_source` and `price_date` say which price it is;
    /// - fixed-size disks are priced at the region's pay-as-you-go price (reservations of
    ///   disks are not modelled, whatever `pricing` says), or left unpriced when none is known;
    /// - provisioned disk types and NetApp levels keep their prices only when their table's
    ///   `price_region` is the region; otherwise their prices are emptied.
    ///
    /// The view's `notes()` say all of this in words.
    pub fn priced_for(&self, edition: &str, choice: &PriceChoice) -> PricedView {
        let currency = self
            .price_currency(edition, &choice.region)
            .unwrap_or_else(|_| crate::types::DEFAULT_CURRENCY.to_string());
        let mut other_currency = (0, Vec::new());
        let prices: Vec<&PriceRow> = self
            .prices
            .iter()
            .filter(|p| self.edition_of(&p.table) == Some(edition))
            .filter(|p| p.region.eq_ignore_ascii_case(&choice.region))
            .filter(|p| {
                let same = self.currency_of(&p.table) == currency;
                if !same {
                    other_currency.0 += 1;
                    if !other_currency.1.contains(&p.table) {
                        other_currency.1.push(p.table.clone());
                    }
                }
                same
            })
            .collect();
        let by_key: std::collections::HashMap<PriceKey, &PriceRow> =
            prices.iter().map(|p| (price_key(p), *p)).collect();
        let region = choice.region.to_ascii_lowercase();
        let find = |name: &str, pricing: Pricing, os: Option<Os>| {
            by_key
                .get(&(normalize(name), region.clone(), pricing, os))
                .copied()
        };
        let priced_names: std::collections::HashSet<String> =
            prices.iter().map(|p| normalize(&p.name)).collect();
        let mut view = PricedView {
            catalog: Catalog {
                tables: self.tables.clone(),
                ..Catalog::default()
            },
            choice: choice.clone(),
            vms_not_in_region: Vec::new(),
            vms_without_this_price: Vec::new(),
            disks_unpriced: Vec::new(),
            other_region_prices_emptied: Vec::new(),
            provisioned_priced_from: Vec::new(),
            provisioned_rates_missing: Vec::new(),
            currency: currency.clone(),
            other_currency_left_out: other_currency,
        };
        let mut derived: BTreeMap<String, TableInfo> = BTreeMap::new();
        for vm in self.vms_in(edition) {
            let Some(price) = find(&vm.name, choice.pricing, Some(choice.os)) else {
                if priced_names.contains(&normalize(&vm.name)) {
                    view.vms_without_this_price.push(vm.name.clone());
                } else {
                    view.vms_not_in_region.push(vm.name.clone());
                }
                continue;
            };
            let table = self.derived_table(&vm.table, price, choice, &currency);
            let mut vm = vm.clone();
            vm.price_usd_month = Some(price.usd_month);
            vm.table = table.id.clone();
            derived.entry(table.id.clone()).or_insert(table);
            view.catalog.vms.push(vm);
        }
        for disk in self.disks_in(edition) {
            let mut disk = disk.clone();
            disk.price_usd_month = find(&disk.name, Pricing::Payg, None).map(|p| p.usd_month);
            if disk.price_usd_month.is_none() {
                view.disks_unpriced.push(disk.name.clone());
            }
            // An operations charge in another currency is left out, never converted.
            if self.currency_of(&disk.table) != currency
                && disk.price_usd_per_10k_operations.take().is_some()
            {
                view.other_region_prices_emptied
                    .push(format!("{} operations", disk.name));
            }
            view.catalog.disks.push(disk);
        }
        // A table's own prices count only in the region and currency of the view.
        let in_region = |table_id: &str| {
            self.prices_are_for(table_id, &choice.region) && self.currency_of(table_id) == currency
        };
        for disk in self.provisioned_in(edition) {
            let mut disk = disk.clone();
            let regional = self.provisioned_prices.iter().find(|row| {
                normalize(&row.name) == normalize(&disk.name)
                    && row.region.eq_ignore_ascii_case(&choice.region)
                    && self.edition_of(&row.table) == Some(edition)
                    && self.currency_of(&row.table) == currency
            });
            if let Some(row) = regional {
                // The region's own meters; a meter the source lacks stays empty.
                disk.price_usd_per_gib_month = row.usd_per_gib_month;
                disk.price_usd_per_iops_month = row.usd_per_iops_month;
                disk.price_usd_per_mb_s_month = row.usd_per_mb_s_month;
                view.provisioned_priced_from
                    .push(format!("{} from {}", disk.name, row.table));
            } else if !in_region(&disk.table) && disk.price_usd_per_gib_month.is_some() {
                disk.price_usd_per_gib_month = None;
                disk.price_usd_per_iops_month = None;
                disk.price_usd_per_mb_s_month = None;
                view.other_region_prices_emptied.push(disk.name.clone());
            }
            let missing: Vec<&str> = [
                ("capacity", disk.price_usd_per_gib_month),
                ("IOPS", disk.price_usd_per_iops_month),
                ("MB/s", disk.price_usd_per_mb_s_month),
            ]
            .iter()
            .filter(|(_, rate)| rate.is_none())
            .map(|(what, _)| *what)
            .collect();
            if !missing.is_empty() && !view.other_region_prices_emptied.contains(&disk.name) {
                view.provisioned_rates_missing.push(format!(
                    "{} {}",
                    disk.name,
                    missing.join(", ")
                ));
            }
            view.catalog.provisioned.push(disk);
        }
        for level in &self.netapp {
            let mut level = level.clone();
            if !in_region(&level.table) && level.price_usd_per_tib_month.is_some() {
                level.price_usd_per_tib_month = None;
                view.other_region_prices_emptied
                    .push(format!("NetApp {}", level.name));
            }
            view.catalog.netapp.push(level);
        }
        view.catalog.tables.extend(derived.into_values());
        view
    }

    /// Every region some price of `edition` is for (`[[prices]]` rows, tables'
    /// `price_region`, `[[provisioned_prices]]`), lower case, sorted.
    pub fn known_regions(&self, edition: &str) -> Vec<String> {
        let in_edition = |table: &str| self.edition_of(table) == Some(edition);
        let mut regions: Vec<String> = self
            .prices
            .iter()
            .filter(|p| in_edition(&p.table))
            .map(|p| p.region.to_ascii_lowercase())
            .chain(
                self.provisioned_prices
                    .iter()
                    .filter(|p| in_edition(&p.table))
                    .map(|p| p.region.to_ascii_lowercase()),
            )
            .chain(
                self.tables
                    .iter()
                    .filter(|t| t.edition == edition)
                    .filter_map(|t| t.price_region.as_deref().map(str::to_ascii_lowercase)),
            )
            .collect();
        regions.sort();
        regions.dedup();
        regions
    }

    /// The known regions nearest to a name not among them, closest first (at most three):
    /// for "did you mean" in an error.
    pub fn nearest_regions(&self, edition: &str, region: &str) -> Vec<String> {
        let wanted = region.to_ascii_lowercase();
        let mut scored: Vec<(f64, String)> = self
            .known_regions(edition)
            .into_iter()
            .map(|known| (strsim::jaro_winkler(&known, &wanted), known))
            .collect();
        scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        scored.into_iter().take(3).map(|(_, known)| known).collect()
    }

    /// The ISO 4217 code of a table's prices (USD for a table the catalog does not hold).
    pub fn currency_of(&self, table_id: &str) -> &str {
        self.table(table_id)
            .map(TableInfo::currency)
            .unwrap_or(crate::types::DEFAULT_CURRENCY)
    }

    /// The one currency a plan in `region` adds up. The region's prices (`[[prices]]`,
    /// `[[provisioned_prices]]`, tables priced for the region) are US dollars unless a catalog
    /// file gives them in another currency (`iofit catalog fetch --currency EUR`): then that
    /// currency, and the region's prices in US dollars are left out of the view, never
    /// converted. Prices in two currencies other than US dollars cannot be added up: `Err`
    /// names them and their tables.
    pub fn price_currency(&self, edition: &str, region: &str) -> Result<String, MixedCurrencies> {
        let in_edition = |table: &str| self.edition_of(table) == Some(edition);
        let tables = self
            .prices
            .iter()
            .filter(|p| in_edition(&p.table) && p.region.eq_ignore_ascii_case(region))
            .map(|p| p.table.as_str())
            .chain(
                self.provisioned_prices
                    .iter()
                    .filter(|p| in_edition(&p.table) && p.region.eq_ignore_ascii_case(region))
                    .map(|p| p.table.as_str()),
            )
            .chain(
                self.tables
                    .iter()
                    .filter(|t| t.edition == edition && self.prices_are_for(&t.id, region))
                    .map(|t| t.id.as_str()),
            );
        let mut others: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for table in tables {
            let currency = self.currency_of(table);
            if currency != crate::types::DEFAULT_CURRENCY {
                let ids = others.entry(currency).or_default();
                if !ids.contains(&table) {
                    ids.push(table);
                }
            }
        }
        match others.len() {
            0 => Ok(crate::types::DEFAULT_CURRENCY.to_string()),
            1 => Ok(others.keys().next().unwrap_or(&"USD").to_string()),
            _ => Err(MixedCurrencies {
                tables_by_currency: others
                    .into_iter()
                    .map(|(currency, ids)| {
                        (
                            currency.to_string(),
                            ids.into_iter().map(str::to_string).collect(),
                        )
                    })
                    .collect(),
            }),
        }
    }

    /// Whether a table's prices are for `region`: its `price_region` says so.
    fn prices_are_for(&self, table_id: &str, region: &str) -> bool {
        self.table(table_id)
            .and_then(|t| t.price_region.as_deref())
            .is_some_and(|r| r.eq_ignore_ascii_case(region))
    }

    /// The table a VM row of the view points to: its own table, with the price basis, source
    /// and date of the price row it uses.
    fn derived_table(
        &self,
        vm_table: &str,
        price: &PriceRow,
        choice: &PriceChoice,
        currency: &str,
    ) -> TableInfo {
        let base = self.table(vm_table).cloned();
        let price_table = self.table(&price.table);
        let id = if price.table == vm_table {
            format!("{vm_table} @ {}", choice.label())
        } else {
            format!("{vm_table} @ {} from {}", choice.label(), price.table)
        };
        let conversion = match choice.pricing.term_months() {
            None => "monthly = hourly x 730 h".to_string(),
            Some(months) => format!("monthly = the term's price / {months}"),
        };
        let source = price
            .source
            .clone()
            .or_else(|| price_table.and_then(|t| t.price_source.clone()))
            .or_else(|| price_table.map(|t| t.source.clone()));
        let date = price
            .date
            .clone()
            .or_else(|| price_table.and_then(|t| t.price_date.clone()))
            .or_else(|| price_table.map(|t| t.date.clone()));
        let mut table = base.unwrap_or_else(|| TableInfo {
            id: String::new(),
            edition: crate::EDITION_CURRENT.to_string(),
            title: vm_table.to_string(),
            source: String::new(),
            date: String::new(),
            price_basis: None,
            price_source: None,
            price_date: None,
            price_region: None,
            price_pricing: None,
            price_os: None,
            currency: None,
            notes: None,
        });
        table.id = id;
        table.currency = Some(currency.to_string());
        table.price_basis = Some(format!(
            "{}, {currency}, {}, {}, per VM; {conversion}",
            choice.region,
            choice.pricing.words(),
            choice.os.name()
        ));
        table.price_source = source;
        table.price_date = date;
        table
    }
}

impl PricedView {
    /// What the view did, in words, for a plan's notes: which price was used, what was left
    /// out, what stays unpriced.
    pub fn notes(&self) -> Vec<String> {
        let choice = &self.choice;
        let mut notes = vec![format!(
            "prices: {} in {} for {}, in {}; {} VM sizes priced so (each design names its price \
             table); disks at the region's pay-as-you-go price{}",
            choice.pricing.words(),
            choice.region,
            choice.os.name(),
            self.currency,
            self.catalog.vms.len(),
            if choice.pricing == Pricing::Payg {
                ""
            } else {
                " (disk reservations are not modelled)"
            }
        )];
        let list = |names: &[String]| {
            let mut text = names.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
            if names.len() > 8 {
                text.push_str(&format!(" and {} more", names.len() - 8));
            }
            text
        };
        let (left_out, tables) = &self.other_currency_left_out;
        if *left_out > 0 {
            notes.push(format!(
                "{left_out} prices of {} in another currency than {} left out (a plan adds one \
                 currency and never converts): from {}",
                choice.region,
                self.currency,
                tables.join(", ")
            ));
        }
        if !self.vms_not_in_region.is_empty() {
            notes.push(format!(
                "{} VM sizes left out: no price in {} (not offered there, or not sourced): {}",
                self.vms_not_in_region.len(),
                choice.region,
                list(&self.vms_not_in_region)
            ));
        }
        if !self.vms_without_this_price.is_empty() {
            notes.push(format!(
                "{} VM sizes left out: priced in {} but with no {} {} price: {}",
                self.vms_without_this_price.len(),
                choice.region,
                choice.pricing.words(),
                choice.os.name(),
                list(&self.vms_without_this_price)
            ));
        }
        if !self.disks_unpriced.is_empty() {
            notes.push(format!(
                "price missing: {} disk tiers have no {} price and stay unpriced: {}",
                self.disks_unpriced.len(),
                choice.region,
                list(&self.disks_unpriced)
            ));
        }
        if !self.provisioned_priced_from.is_empty() {
            notes.push(format!(
                "provisioned disks priced at {}'s own meters: {}",
                choice.region,
                self.provisioned_priced_from.join("; ")
            ));
        }
        if !self.provisioned_rates_missing.is_empty() {
            notes.push(format!(
                "price missing: rates not sourced in {} (a design that needs them stays \
                 unpriced): {}",
                choice.region,
                self.provisioned_rates_missing.join("; ")
            ));
        }
        if !self.other_region_prices_emptied.is_empty() {
            notes.push(format!(
                "price missing: {} prices are sourced for another region only and stay empty \
                 in {}",
                list(&self.other_region_prices_emptied),
                choice.region
            ));
        }
        notes
    }
}

/// The `[[prices]]` rows a table's `price_region`/`price_pricing`/`price_os` imply: one per VM
/// (when `price_os` is given) and per disk with a `price_usd_month`.
pub(crate) fn implied_prices(
    table: &TableInfo,
    vms: &[crate::VmSize],
    disks: &[crate::DiskSku],
) -> Vec<PriceRow> {
    let (Some(region), Some(pricing)) = (&table.price_region, table.price_pricing) else {
        return Vec::new();
    };
    let row = |name: &str, os: Option<Os>, usd_month: f64| PriceRow {
        name: name.to_string(),
        table: table.id.clone(),
        region: region.clone(),
        pricing,
        os,
        usd_month,
        retail_price_usd: None,
        retail_unit: None,
        source: None,
        date: None,
        notes: None,
    };
    let vm_rows = vms.iter().filter_map(|vm| {
        let os = table.price_os?;
        vm.price_usd_month.map(|usd| row(&vm.name, Some(os), usd))
    });
    let disk_rows = disks
        .iter()
        .filter_map(|disk| disk.price_usd_month.map(|usd| row(&disk.name, None, usd)));
    vm_rows.chain(disk_rows).collect()
}
