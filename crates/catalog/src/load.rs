//! Reading one catalog file: TOML text -> checked rows.
//!
//! Rows are checked field by field against a small schema before serde turns them into the
//! typed rows of [`crate::types`]. Serde alone would accept a misspelt key silently (an
//! optional field would just stay empty) and its messages do not name the row; the schema
//! check names file, line, section, row and field, and says how to fix it.

use crate::error::CatalogError;
use crate::types::{
    DiskSku, NetAppServiceLevel, PriceRow, ProvisionedDiskType, ProvisionedPriceRow, TableInfo,
    VmRule, VmSize,
};
use crate::{EDITIONS, EDITION_CURRENT};
use std::collections::HashSet;
use toml::Value;

/// The rows of one file, checked, with the file's table.
#[derive(Debug, Clone)]
pub(crate) struct FileRows {
    pub table: TableInfo,
    pub vms: Vec<VmSize>,
    pub disks: Vec<DiskSku>,
    pub provisioned: Vec<ProvisionedDiskType>,
    pub netapp: Vec<NetAppServiceLevel>,
    pub prices: Vec<PriceRow>,
    pub provisioned_prices: Vec<ProvisionedPriceRow>,
    pub vm_rules: Vec<VmRule>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// Non-empty text.
    Text,
    /// A calendar date YYYY-MM-DD.
    Date,
    /// A whole number >= 0.
    Whole,
    /// A number >= 0 (integer or float).
    Number,
    Bool,
    /// One of the [`crate::types::DiskKind`] names.
    DiskKindName,
    /// One of the [`crate::types::Pricing`] names.
    PricingName,
    /// One of the [`crate::types::Os`] names.
    OsName,
    /// One of the [`crate::types::Arch`] names.
    ArchName,
}

struct Field {
    name: &'static str,
    kind: Kind,
    required: bool,
}

const fn req(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: true,
    }
}

const fn opt(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: false,
    }
}

const TABLE_FIELDS: &[Field] = &[
    req("id", Kind::Text),
    req("edition", Kind::Text),
    req("title", Kind::Text),
    req("source", Kind::Text),
    req("date", Kind::Date),
    opt("price_basis", Kind::Text),
    opt("price_source", Kind::Text),
    opt("price_date", Kind::Date),
    opt("price_region", Kind::Text),
    opt("price_pricing", Kind::PricingName),
    opt("price_os", Kind::OsName),
    opt("currency", Kind::Text),
    opt("notes", Kind::Text),
];

const VM_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    req("family", Kind::Text),
    req("vcpu", Kind::Whole),
    req("memory_gib", Kind::Number),
    req("max_data_disks", Kind::Whole),
    req("premium_storage", Kind::Bool),
    opt("uncached_iops", Kind::Number),
    opt("uncached_throughput_mb_s", Kind::Number),
    opt("cached_iops", Kind::Number),
    opt("cached_throughput_mb_s", Kind::Number),
    opt("cache_size_gib", Kind::Number),
    opt("temp_storage_gib", Kind::Number),
    opt("burst_uncached_iops", Kind::Number),
    opt("burst_uncached_throughput_mb_s", Kind::Number),
    opt("price_per_month", Kind::Number),
];

const DISK_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    req("kind", Kind::DiskKindName),
    req("size_gib", Kind::Number),
    req("iops", Kind::Number),
    req("throughput_mb_s", Kind::Number),
    opt("burst_iops", Kind::Number),
    opt("burst_throughput_mb_s", Kind::Number),
    opt("price_per_month", Kind::Number),
    opt("price_per_10k_operations", Kind::Number),
    opt("operation_unit_kib", Kind::Whole),
];

const PROVISIONED_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    req("kind", Kind::DiskKindName),
    req("size_gib_min", Kind::Number),
    req("size_gib_max", Kind::Number),
    req("iops_baseline", Kind::Number),
    req("iops_per_gib_max", Kind::Number),
    req("iops_max", Kind::Number),
    req("throughput_mb_s_baseline", Kind::Number),
    req("throughput_mb_s_per_iops_max", Kind::Number),
    req("throughput_mb_s_max", Kind::Number),
    opt("price_per_gib_month", Kind::Number),
    opt("price_per_iops_month", Kind::Number),
    opt("price_per_mb_s_month", Kind::Number),
];

const NETAPP_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    req("throughput_mib_s_per_tib", Kind::Number),
    opt("price_per_tib_month", Kind::Number),
    opt("quota_tib_min", Kind::Number),
    opt("quota_tib_max", Kind::Number),
    opt("volume_throughput_mib_s_max", Kind::Number),
];

const PRICE_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    req("region", Kind::Text),
    req("pricing", Kind::PricingName),
    opt("os", Kind::OsName),
    req("price_per_month", Kind::Number),
    opt("retail_price", Kind::Number),
    opt("retail_unit", Kind::Text),
    opt("source", Kind::Text),
    opt("date", Kind::Date),
    opt("notes", Kind::Text),
];

const PROVISIONED_PRICE_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    req("region", Kind::Text),
    opt("price_per_gib_month", Kind::Number),
    opt("price_per_iops_month", Kind::Number),
    opt("price_per_mb_s_month", Kind::Number),
    opt("retail_price_per_gib_hour", Kind::Number),
    opt("retail_price_per_iops_hour", Kind::Number),
    opt("retail_price_per_mb_s_hour", Kind::Number),
    opt("source", Kind::Text),
    opt("date", Kind::Date),
    opt("notes", Kind::Text),
];

const VM_RULE_FIELDS: &[Field] = &[
    req("name", Kind::Text),
    opt("table", Kind::Text),
    opt("arch", Kind::ArchName),
    opt("burstable", Kind::Bool),
    opt("retirement_date", Kind::Date),
    opt("retirement_announced", Kind::Date),
    opt("retirement_source", Kind::Text),
    opt("source", Kind::Text),
    opt("notes", Kind::Text),
];

/// Price keys as files written before 2026-11-27 name them (`usd_*`, though they held the
/// table's currency) and their names now: a row may use either, so older catalog files load.
const KEY_ALIASES: &[(&str, &str)] = &[
    ("price_usd_month", "price_per_month"),
    ("price_usd_per_10k_operations", "price_per_10k_operations"),
    ("price_usd_per_gib_month", "price_per_gib_month"),
    ("price_usd_per_iops_month", "price_per_iops_month"),
    ("price_usd_per_mb_s_month", "price_per_mb_s_month"),
    ("price_usd_per_tib_month", "price_per_tib_month"),
    ("usd_month", "price_per_month"),
    ("retail_price_usd", "retail_price"),
    ("usd_per_gib_month", "price_per_gib_month"),
    ("usd_per_iops_month", "price_per_iops_month"),
    ("usd_per_mb_s_month", "price_per_mb_s_month"),
    ("retail_usd_per_gib_hour", "retail_price_per_gib_hour"),
    ("retail_usd_per_iops_hour", "retail_price_per_iops_hour"),
    ("retail_usd_per_mb_s_hour", "retail_price_per_mb_s_hour"),
];

/// Renames the old `usd_*` keys of a row to their names now (only where the schema has the
/// new name); a row with both spellings of one key is refused, since they could disagree.
fn rename_old_keys(row: &mut toml::Table, schema: &[Field]) -> Result<(), (String, String)> {
    for (old, new) in KEY_ALIASES {
        if !schema.iter().any(|field| field.name == *new) {
            continue;
        }
        let Some(value) = row.remove(*old) else {
            continue;
        };
        if row.contains_key(*new) {
            return Err((
                old.to_string(),
                format!("is the old name of '{new}', which this row also has; keep only {new}"),
            ));
        }
        row.insert(new.to_string(), value);
    }
    Ok(())
}

/// What makes a row unique within its section: the name, and for prices also where, how and
/// for which OS.
const NAME_KEY: &[&str] = &["name"];
const PRICE_KEY: &[&str] = &["name", "region", "pricing", "os"];
const PROVISIONED_PRICE_KEY: &[&str] = &["name", "region"];

const PRICINGS: &[&str] = &["payg", "ri-1y", "ri-3y"];
const OSES: &[&str] = &["linux", "windows"];

const DISK_KINDS: &[&str] = &[
    "premium_ssd",
    "standard_ssd",
    "standard_hdd",
    "premium_ssd_v2",
    "ultra_disk",
];

const SECTIONS: &[&str] = &[
    "table",
    "vms",
    "disks",
    "provisioned",
    "netapp",
    "prices",
    "provisioned_prices",
    "vm_rules",
];

/// Parses and checks one catalog file. `file` is the name used in error messages.
pub(crate) fn parse_file(file: &str, text: &str) -> Result<FileRows, CatalogError> {
    let document: toml::Table = text.parse().map_err(|error: toml::de::Error| {
        let line = error
            .span()
            .map(|span| line_of_offset(text, span.start))
            .unwrap_or(1);
        CatalogError::Syntax {
            file: file.to_string(),
            line,
            message: one_line(error.message()),
        }
    })?;
    let locator = Locator { text };

    for key in document.keys() {
        if !SECTIONS.contains(&key.as_str()) {
            return Err(CatalogError::File {
                file: file.to_string(),
                problem: format!(
                    "unknown section '{key}'; a catalog file has one [table] and rows in \
                     [[vms]], [[disks]], [[provisioned]], [[netapp]], [[prices]], \
                     [[provisioned_prices]] or [[vm_rules]]"
                ),
            });
        }
    }

    let table_value = document.get("table").ok_or_else(|| CatalogError::File {
        file: file.to_string(),
        problem: "no [table] section; add [table] with id, edition, title, source and date \
                  (see catalog/README.md)"
            .to_string(),
    })?;
    let table_map = table_value.as_table().ok_or_else(|| CatalogError::File {
        file: file.to_string(),
        problem: "'table' must be a section [table], not a value or an array".to_string(),
    })?;
    check_fields(table_map, TABLE_FIELDS).map_err(|(field, problem)| CatalogError::Table {
        file: file.to_string(),
        line: locator.table_field_line(&field),
        field,
        problem,
    })?;
    let edition = table_map["edition"].as_str().unwrap_or_default();
    if !EDITIONS.contains(&edition) {
        return Err(CatalogError::Table {
            file: file.to_string(),
            line: locator.table_field_line("edition"),
            field: "edition".to_string(),
            problem: format!(
                "'{edition}' is not an edition; write edition = \"{EDITION_CURRENT}\" or \
                 edition = \"{}\"",
                crate::EDITION_SEED
            ),
        });
    }
    let table: TableInfo =
        Value::Table(table_map.clone())
            .try_into()
            .map_err(|error: toml::de::Error| CatalogError::Table {
                file: file.to_string(),
                line: None,
                field: "?".to_string(),
                problem: one_line(error.message()),
            })?;

    if table.price_region.is_some() != table.price_pricing.is_some() {
        let (missing, present) = if table.price_region.is_none() {
            ("price_region", "price_pricing")
        } else {
            ("price_pricing", "price_region")
        };
        return Err(CatalogError::Table {
            file: file.to_string(),
            line: locator.table_field_line(present),
            field: missing.to_string(),
            problem: "price_region and price_pricing go together (price_os too, for VM \
                      prices); add it, e.g. price_region = \"eastus\", price_pricing = \"payg\""
                .to_string(),
        });
    }
    if let Some(currency) = &table.currency {
        if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(CatalogError::Table {
                file: file.to_string(),
                line: locator.table_field_line("currency"),
                field: "currency".to_string(),
                problem: format!(
                    "'{currency}' is not an ISO 4217 code; write three capitals, e.g. \
                     currency = \"EUR\" (absent: USD)"
                ),
            });
        }
    }
    let context = RowContext {
        file,
        table_id: &table.id,
        locator: &locator,
    };
    let vms: Vec<VmSize> = context.rows(&document, "vms", VM_FIELDS, NAME_KEY)?;
    let disks: Vec<DiskSku> = context.rows(&document, "disks", DISK_FIELDS, NAME_KEY)?;
    let provisioned: Vec<ProvisionedDiskType> =
        context.rows(&document, "provisioned", PROVISIONED_FIELDS, NAME_KEY)?;
    check_provisioned(&context, &provisioned)?;
    let netapp: Vec<NetAppServiceLevel> =
        context.rows(&document, "netapp", NETAPP_FIELDS, NAME_KEY)?;
    let prices: Vec<PriceRow> = context.rows(&document, "prices", PRICE_FIELDS, PRICE_KEY)?;
    let provisioned_prices: Vec<ProvisionedPriceRow> = context.rows(
        &document,
        "provisioned_prices",
        PROVISIONED_PRICE_FIELDS,
        PROVISIONED_PRICE_KEY,
    )?;
    let vm_rules: Vec<VmRule> = context.rows(&document, "vm_rules", VM_RULE_FIELDS, NAME_KEY)?;
    check_vm_rules(&context, &vm_rules)?;

    Ok(FileRows {
        table,
        vms,
        disks,
        provisioned,
        netapp,
        prices,
        provisioned_prices,
        vm_rules,
    })
}

/// A provisioned type's ranges must run upwards (size, IOPS).
fn check_provisioned(
    context: &RowContext,
    provisioned: &[ProvisionedDiskType],
) -> Result<(), CatalogError> {
    for (index, row) in provisioned.iter().enumerate() {
        if row.size_gib_min > row.size_gib_max {
            return Err(context.row_error(
                "provisioned",
                index,
                &row.name,
                "size_gib_max",
                format!(
                    "{} is below size_gib_min {}; the largest size must be at least the smallest",
                    row.size_gib_max.get(),
                    row.size_gib_min.get()
                ),
            ));
        }
        if row.iops_baseline.0 > row.iops_max.0 {
            return Err(context.row_error(
                "provisioned",
                index,
                &row.name,
                "iops_max",
                format!(
                    "{} is below iops_baseline {}; the maximum must be at least the baseline",
                    row.iops_max.0, row.iops_baseline.0
                ),
            ));
        }
    }
    Ok(())
}

/// A retirement date needs its announcement as source.
fn check_vm_rules(context: &RowContext, vm_rules: &[VmRule]) -> Result<(), CatalogError> {
    for (index, rule) in vm_rules.iter().enumerate() {
        if rule.retirement_date.is_some() && rule.retirement_source.is_none() {
            return Err(context.row_error(
                "vm_rules",
                index,
                &rule.name,
                "retirement_source",
                "missing; a retirement date needs its announcement as source".to_string(),
            ));
        }
    }
    Ok(())
}

struct RowContext<'a> {
    file: &'a str,
    table_id: &'a str,
    locator: &'a Locator<'a>,
}

impl RowContext<'_> {
    fn row_error(
        &self,
        section: &str,
        index: usize,
        name: &str,
        field: &str,
        problem: String,
    ) -> CatalogError {
        CatalogError::Row {
            file: self.file.to_string(),
            line: self.locator.row_field_line(section, index, field),
            section: section.to_string(),
            index,
            name: if name.is_empty() {
                "unnamed".to_string()
            } else {
                name.to_string()
            },
            field: field.to_string(),
            problem,
        }
    }

    /// Checks every row of one section and deserializes it; fills in `table` when left out.
    fn rows<T: serde::de::DeserializeOwned>(
        &self,
        document: &toml::Table,
        section: &str,
        schema: &[Field],
        key_fields: &[&str],
    ) -> Result<Vec<T>, CatalogError> {
        let Some(value) = document.get(section) else {
            return Ok(Vec::new());
        };
        let Some(array) = value.as_array() else {
            return Err(CatalogError::File {
                file: self.file.to_string(),
                problem: format!("'{section}' must be an array of rows written [[{section}]]"),
            });
        };
        let mut seen_names: HashSet<String> = HashSet::new();
        let mut rows = Vec::with_capacity(array.len());
        for (index, row_value) in array.iter().enumerate() {
            let Some(row) = row_value.as_table() else {
                return Err(CatalogError::File {
                    file: self.file.to_string(),
                    problem: format!("{section}[{index}] must be a row written [[{section}]]"),
                });
            };
            let name = row
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let mut row = row.clone();
            rename_old_keys(&mut row, schema)
                .and_then(|()| check_fields(&row, schema))
                .map_err(|(field, problem)| {
                    self.row_error(section, index, &name, &field, problem)
                })?;
            match row.get("table").and_then(Value::as_str) {
                None => {
                    row.insert(
                        "table".to_string(),
                        Value::String(self.table_id.to_string()),
                    );
                }
                Some(given) if given == self.table_id => {}
                Some(given) => {
                    return Err(self.row_error(
                        section,
                        index,
                        &name,
                        "table",
                        format!(
                            "'{given}' is not this file's table; leave the key out or write \
                             table = \"{}\"",
                            self.table_id
                        ),
                    ))
                }
            }
            let key: Vec<String> = key_fields
                .iter()
                .map(|field| match row.get(*field).and_then(Value::as_str) {
                    Some(text) if *field == "name" => crate::normalize(text),
                    Some(text) => text.to_ascii_lowercase(),
                    None => String::new(),
                })
                .collect();
            if !seen_names.insert(key.join("\u{1f}")) {
                let what = if key_fields.len() > 1 {
                    format!("'{name}' with the same {}", key_fields[1..].join(", "))
                } else {
                    format!("'{name}'")
                };
                return Err(self.row_error(
                    section,
                    index,
                    &name,
                    "name",
                    format!(
                        "{what} appears twice in this file; keep one row per name (a later \
                         --catalog file may override it)"
                    ),
                ));
            }
            let typed: T = Value::Table(row)
                .try_into()
                .map_err(|error: toml::de::Error| {
                    self.row_error(section, index, &name, "?", one_line(error.message()))
                })?;
            rows.push(typed);
        }
        Ok(rows)
    }
}

/// Checks the keys of one row or table against its schema; on failure returns (field, problem).
fn check_fields(map: &toml::Table, schema: &[Field]) -> Result<(), (String, String)> {
    for key in map.keys() {
        if !schema.iter().any(|field| field.name == key) {
            let known: Vec<&str> = schema.iter().map(|field| field.name).collect();
            let nearest = known
                .iter()
                .max_by(|a, b| {
                    strsim::jaro_winkler(a, key)
                        .partial_cmp(&strsim::jaro_winkler(b, key))
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .copied()
                .unwrap_or("");
            return Err((
                key.clone(),
                format!(
                    "unknown field; did you mean '{nearest}'? (known fields: {})",
                    known.join(", ")
                ),
            ));
        }
    }
    for field in schema {
        match map.get(field.name) {
            None if field.required => {
                return Err((
                    field.name.to_string(),
                    format!("missing; add {} = {}", field.name, example(field.kind)),
                ))
            }
            None => {}
            Some(value) => {
                check_value(value, field.kind).map_err(|problem| {
                    let hint = if field.required {
                        String::new()
                    } else {
                        "; leave the key out when the value is not published".to_string()
                    };
                    (field.name.to_string(), format!("{problem}{hint}"))
                })?;
            }
        }
    }
    Ok(())
}

fn example(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "\"...\"",
        Kind::Date => "\"2025-01-31\"",
        Kind::Whole => "16",
        Kind::Number => "25600",
        Kind::Bool => "true",
        Kind::DiskKindName => "\"premium_ssd\"",
        Kind::PricingName => "\"payg\"",
        Kind::OsName => "\"linux\"",
        Kind::ArchName => "\"x64\"",
    }
}

/// Why one field's value is wrong; the caller adds the file, row and field.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct FieldProblem(String);

impl From<String> for FieldProblem {
    fn from(problem: String) -> Self {
        FieldProblem(problem)
    }
}

fn check_value(value: &Value, kind: Kind) -> Result<(), FieldProblem> {
    match kind {
        Kind::Text => match value.as_str() {
            Some(text) if !text.trim().is_empty() => Ok(()),
            Some(_) => Err(FieldProblem("must not be empty".to_string())),
            None => Err(FieldProblem::from(format!(
                "expected text in quotes, found {}",
                describe(value)
            ))),
        },
        Kind::Date => match value.as_str() {
            Some(text) if is_date(text) => Ok(()),
            _ => Err(FieldProblem::from(format!(
                "expected a date in quotes as \"YYYY-MM-DD\", found {}",
                describe(value)
            ))),
        },
        Kind::Bool => match value {
            Value::Boolean(_) => Ok(()),
            _ => Err(FieldProblem::from(format!(
                "expected true or false, found {}",
                describe(value)
            ))),
        },
        Kind::DiskKindName => match value.as_str() {
            Some(text) if DISK_KINDS.contains(&text) => Ok(()),
            _ => Err(FieldProblem::from(format!(
                "expected one of {}, found {}",
                DISK_KINDS.join(", "),
                describe(value)
            ))),
        },
        Kind::PricingName => one_of(value, PRICINGS),
        Kind::OsName => one_of(value, OSES),
        Kind::ArchName => one_of(value, &["x64", "arm64"]),
        Kind::Whole => match value {
            Value::Integer(number) if *number >= 0 && *number <= u32::MAX as i64 => Ok(()),
            _ => Err(FieldProblem::from(format!(
                "expected a whole number >= 0, found {}",
                describe(value)
            ))),
        },
        Kind::Number => {
            let number = match value {
                Value::Integer(number) => Some(*number as f64),
                Value::Float(number) => Some(*number),
                _ => None,
            };
            match number {
                Some(number) if number.is_finite() && number >= 0.0 => Ok(()),
                _ => Err(FieldProblem::from(format!(
                    "expected a number >= 0, found {}",
                    describe(value)
                ))),
            }
        }
    }
}

fn one_of(value: &Value, names: &[&str]) -> Result<(), FieldProblem> {
    match value.as_str() {
        Some(text) if names.contains(&text) => Ok(()),
        _ => Err(FieldProblem::from(format!(
            "expected one of {}, found {}",
            names.join(", "),
            describe(value)
        ))),
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::String(text) => format!("\"{text}\""),
        Value::Integer(_) | Value::Float(_) | Value::Boolean(_) | Value::Datetime(_) => {
            value.to_string()
        }
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

pub(crate) fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit())
        && (1..=12).contains(&text[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&text[8..10].parse::<u32>().unwrap_or(0))
}

/// toml's messages may span lines; the CLI prints errors on one line.
fn one_line(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Finds line numbers for error messages by scanning the text for `[[section]]` headers and
/// `key =` lines. Best effort: rows written as inline tables get no line.
struct Locator<'a> {
    text: &'a str,
}

impl Locator<'_> {
    fn lines(&self) -> impl Iterator<Item = (usize, &str)> {
        self.text
            .lines()
            .enumerate()
            .map(|(i, line)| (i + 1, line.trim()))
    }

    fn key_line_after(&self, start_line: usize, key: &str) -> Option<usize> {
        for (number, line) in self.lines().skip(start_line) {
            if line.starts_with('[') {
                return None;
            }
            if let Some(rest) = line.strip_prefix(key) {
                if rest.trim_start().starts_with('=') {
                    return Some(number);
                }
            }
        }
        None
    }

    fn table_field_line(&self, field: &str) -> Option<usize> {
        let (start, _) = self.lines().find(|(_, line)| *line == "[table]")?;
        self.key_line_after(start, field).or(Some(start))
    }

    fn row_field_line(&self, section: &str, index: usize, field: &str) -> Option<usize> {
        let header = format!("[[{section}]]");
        let (start, _) = self
            .lines()
            .filter(|(_, line)| *line == header)
            .nth(index)?;
        self.key_line_after(start, field).or(Some(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::units::GiB;

    const GOOD: &str = r#"
[table]
id = "t1"
edition = "current"
title = "test"
source = "a page"
date = "2025-01-31"

[[vms]]
name = "Standard_A"
family = "A"
vcpu = 2
memory_gib = 8
max_data_disks = 4
premium_storage = true
uncached_iops = 3750

[[disks]]
name = "P1"
kind = "premium_ssd"
size_gib = 4
iops = 120
throughput_mb_s = 25
"#;

    #[test]
    fn a_good_file_loads_and_rows_get_the_file_table() {
        let rows = parse_file("t.toml", GOOD).unwrap();
        assert_eq!(rows.table.id, "t1");
        assert_eq!(rows.vms.len(), 1);
        assert_eq!(rows.vms[0].table, "t1");
        assert_eq!(rows.vms[0].uncached_iops.map(|i| i.0), Some(3750.0));
        assert_eq!(rows.vms[0].cached_iops, None);
        assert_eq!(rows.disks[0].size_gib, GiB(4.0));
    }

    /// Every kind of priced row, written with the key names of `names` (new or old).
    fn priced_file(names: &[(&str, &str)]) -> String {
        let mut text = String::from(
            "[table]\nid = \"p\"\nedition = \"current\"\ntitle = \"t\"\nsource = \"s\"\n\
             date = \"2026-11-27\"\ncurrency = \"EUR\"\n\n\
             [[vms]]\nname = \"Standard_A\"\nfamily = \"A\"\nvcpu = 2\nmemory_gib = 8\n\
             max_data_disks = 4\npremium_storage = true\nprice_per_month = 70.08\n\n\
             [[disks]]\nname = \"E4\"\nkind = \"standard_ssd\"\nsize_gib = 32\niops = 500\n\
             throughput_mb_s = 100\nprice_per_month = 2.4\nprice_per_10k_operations = 0.002\n\n\
             [[provisioned]]\nname = \"PremiumV2\"\nkind = \"premium_ssd_v2\"\nsize_gib_min = 1\n\
             size_gib_max = 65536\niops_baseline = 3000\niops_per_gib_max = 500\n\
             iops_max = 80000\nthroughput_mb_s_baseline = 125\n\
             throughput_mb_s_per_iops_max = 0.25\nthroughput_mb_s_max = 1200\n\
             price_per_gib_month = 0.08\nprice_per_iops_month = 0.005\n\
             price_per_mb_s_month = 0.04\n\n\
             [[netapp]]\nname = \"Premium\"\nthroughput_mib_s_per_tib = 64\n\
             price_per_tib_month = 300\n\n\
             [[prices]]\nname = \"Standard_A\"\nregion = \"westeurope\"\npricing = \"payg\"\n\
             os = \"linux\"\nprice_per_month = 80.3\nretail_price = 0.11\n\
             retail_unit = \"1 Hour\"\n\n\
             [[provisioned_prices]]\nname = \"PremiumV2\"\nregion = \"westeurope\"\n\
             price_per_gib_month = 0.0949\nprice_per_iops_month = 0.00584\n\
             price_per_mb_s_month = 0.04745\nretail_price_per_gib_hour = 0.00013\n\
             retail_price_per_iops_hour = 0.000008\nretail_price_per_mb_s_hour = 0.000065\n",
        );
        for (new, old) in names {
            text = text.replace(&format!("\n{new} = "), &format!("\n{old} = "));
        }
        text
    }

    #[test]
    fn price_keys_load_by_their_names_now_and_by_the_old_usd_names() {
        let now = parse_file("now.toml", &priced_file(&[])).unwrap();
        // The old names, one spelling a file: every key of each section is written the old way
        // (`usd_month` and `price_usd_month` both stand for price_per_month in different rows).
        let vm_disk_old = [
            ("price_per_month", "price_usd_month"),
            ("price_per_10k_operations", "price_usd_per_10k_operations"),
            ("price_per_tib_month", "price_usd_per_tib_month"),
        ];
        let old_text = priced_file(&vm_disk_old);
        assert!(old_text.contains("price_usd_month = 70.08"));
        let old = parse_file("old.toml", &old_text).unwrap();
        assert_eq!(old.vms, now.vms);
        assert_eq!(old.disks, now.disks);
        assert_eq!(old.netapp, now.netapp);
        assert_eq!(now.vms[0].price_usd_month, Some(70.08));
        assert_eq!(now.disks[0].price_usd_per_10k_operations, Some(0.002));
        assert_eq!(now.netapp[0].price_usd_per_tib_month, Some(300.0));
        // The price rows' and provisioned rows' old names (usd_month, usd_per_*, retail_*).
        let rows_old = priced_file(&[
            ("retail_price", "retail_price_usd"),
            ("retail_price_per_gib_hour", "retail_usd_per_gib_hour"),
            ("retail_price_per_iops_hour", "retail_usd_per_iops_hour"),
            ("retail_price_per_mb_s_hour", "retail_usd_per_mb_s_hour"),
        ])
        .replace("\nprice_per_month = 80.3", "\nusd_month = 80.3")
        .replace(
            "\"westeurope\"\nprice_per_gib_month",
            "\"westeurope\"\nusd_per_gib_month",
        )
        .replace("0.0949\nprice_per_iops_month", "0.0949\nusd_per_iops_month")
        .replace(
            "0.00584\nprice_per_mb_s_month",
            "0.00584\nusd_per_mb_s_month",
        )
        .replace(
            "\nprice_per_gib_month = 0.08",
            "\nprice_usd_per_gib_month = 0.08",
        )
        .replace(
            "\nprice_per_iops_month = 0.005\n",
            "\nprice_usd_per_iops_month = 0.005\n",
        )
        .replace(
            "\nprice_per_mb_s_month = 0.04\n",
            "\nprice_usd_per_mb_s_month = 0.04\n",
        );
        for old_key in [
            "usd_month = 80.3",
            "retail_price_usd = 0.11",
            "usd_per_gib_month = 0.0949",
            "usd_per_iops_month = 0.00584",
            "usd_per_mb_s_month = 0.04745",
            "retail_usd_per_gib_hour",
            "price_usd_per_gib_month = 0.08",
            "price_usd_per_mb_s_month = 0.04",
        ] {
            assert!(rows_old.contains(old_key), "{old_key}");
        }
        let old = parse_file("old.toml", &rows_old).unwrap();
        assert_eq!(old.prices, now.prices);
        assert_eq!(old.provisioned, now.provisioned);
        assert_eq!(old.provisioned_prices, now.provisioned_prices);
        assert_eq!(now.prices[0].usd_month, 80.3);
        assert_eq!(now.prices[0].retail_price_usd, Some(0.11));
        assert_eq!(now.provisioned_prices[0].usd_per_iops_month, Some(0.00584));
        assert_eq!(
            now.provisioned_prices[0].retail_usd_per_mb_s_hour,
            Some(0.000065)
        );
        assert_eq!(now.provisioned[0].price_usd_per_mb_s_month, Some(0.04));
        assert_eq!(now.table.currency.as_deref(), Some("EUR"));
        // Every alias maps to a key some schema has.
        for (old_key, new_key) in KEY_ALIASES {
            assert!(
                [
                    VM_FIELDS,
                    DISK_FIELDS,
                    PROVISIONED_FIELDS,
                    NETAPP_FIELDS,
                    PRICE_FIELDS,
                    PROVISIONED_PRICE_FIELDS
                ]
                .iter()
                .any(|schema| schema.iter().any(|f| f.name == *new_key)),
                "{old_key} -> {new_key}"
            );
        }
        // Serialised (JSON, as plan and predict write rows), the new names; read back, both.
        let json = serde_json::to_value(&now.prices[0]).unwrap();
        assert_eq!(json["price_per_month"], 80.3);
        assert!(json.get("usd_month").is_none());
        let mut legacy = json.clone();
        let value = legacy
            .as_object_mut()
            .unwrap()
            .remove("price_per_month")
            .unwrap();
        legacy
            .as_object_mut()
            .unwrap()
            .insert("usd_month".into(), value);
        let back: PriceRow = serde_json::from_value(legacy).unwrap();
        assert_eq!(back, now.prices[0]);
    }

    #[test]
    fn a_row_with_both_spellings_of_a_price_key_is_refused() {
        let text = priced_file(&[]).replace(
            "price_per_month = 70.08\n",
            "price_per_month = 70.08\nprice_usd_month = 71\n",
        );
        let error = parse_file("both.toml", &text).unwrap_err().to_string();
        assert!(error.contains("both.toml"), "{error}");
        assert!(error.contains("price_usd_month"), "{error}");
        assert!(error.contains("keep only price_per_month"), "{error}");
    }

    #[test]
    fn a_negative_number_names_file_line_row_and_field() {
        let text = GOOD.replace("uncached_iops = 3750", "uncached_iops = -1");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert_eq!(
            error,
            "my.toml: line 16: vms[0] (Standard_A): field uncached_iops: expected a number >= 0, \
             found -1; leave the key out when the value is not published"
        );
    }

    #[test]
    fn a_misspelt_key_is_refused_with_the_nearest_field() {
        let text = GOOD.replace("uncached_iops = 3750", "uncached_iop = 3750");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(error.contains("field uncached_iop: unknown field; did you mean 'uncached_iops'"));
    }

    #[test]
    fn missing_fields_empty_names_and_duplicates_are_errors() {
        let text = GOOD.replace("vcpu = 2\n", "");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(error.contains("vms[0] (Standard_A): field vcpu: missing; add vcpu = 16"));

        let text = GOOD.replace("name = \"Standard_A\"", "name = \"\"");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(
            error.contains("(unnamed): field name: must not be empty"),
            "{error}"
        );

        let text = format!(
            "{GOOD}\n[[disks]]\nname = \"p1\"\nkind = \"premium_ssd\"\nsize_gib = 4\niops = 1\nthroughput_mb_s = 1\n"
        );
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(
            error.contains("disks[1] (p1): field name: 'p1' appears twice"),
            "{error}"
        );
    }

    #[test]
    fn table_problems_are_named() {
        let text = GOOD.replace("edition = \"current\"", "edition = \"2016\"");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(
            error.starts_with("my.toml: line 4: [table]: field edition:"),
            "{error}"
        );

        let text = GOOD.replace("date = \"2025-01-31\"", "date = \"Jan 2025\"");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(error.contains("field date: expected a date"), "{error}");

        let text = GOOD.replace("[[vms]]\nname", "[[vms]]\ntable = \"other\"\nname");
        let error = parse_file("my.toml", &text).unwrap_err().to_string();
        assert!(
            error.contains("field table: 'other' is not this file's table"),
            "{error}"
        );
    }

    #[test]
    fn a_corpus_of_bad_rows_each_names_its_field() {
        // (edit applied to GOOD, expected part of the one-line error)
        let cases: &[(&str, &str, &str)] = &[
            (
                "vcpu = 2",
                "vcpu = 2.5",
                "line 12: vms[0] (Standard_A): field vcpu: expected a whole number >= 0, found 2.5",
            ),
            (
                "vcpu = 2",
                "vcpu = \"two\"",
                "field vcpu: expected a whole number >= 0, found \"two\"",
            ),
            (
                "memory_gib = 8",
                "memory_gib = -8",
                "field memory_gib: expected a number >= 0, found -8",
            ),
            (
                "premium_storage = true",
                "premium_storage = \"yes\"",
                "field premium_storage: expected true or false",
            ),
            (
                "kind = \"premium_ssd\"",
                "kind = \"premium\"",
                "disks[0] (P1): field kind: expected one of premium_ssd, standard_ssd",
            ),
            (
                "iops = 120",
                "iops = nan",
                "disks[0] (P1): field iops: expected a number >= 0, found nan",
            ),
            (
                "throughput_mb_s = 25\n",
                "",
                "disks[0] (P1): field throughput_mb_s: missing; add throughput_mb_s = 25600",
            ),
            (
                "size_gib = 4",
                "size_gb = 4",
                "field size_gb: unknown field; did you mean 'size_gib'?",
            ),
            ("title = \"test\"\n", "", "[table]: field title: missing"),
            (
                "source = \"a page\"",
                "source = \"  \"",
                "[table]: field source: must not be empty",
            ),
            ("[[disks]]", "[[disk]]", "unknown section 'disk'"),
            ("[table]", "[tables]", "unknown section 'tables'"),
            (
                "name = \"P1\"",
                "name = 1",
                "disks[0] (unnamed): field name: expected text in quotes, found 1",
            ),
        ];
        for (from, to, expected) in cases {
            assert!(GOOD.contains(from), "{from}");
            let text = GOOD.replacen(from, to, 1);
            let error = parse_file("bad.toml", &text).unwrap_err().to_string();
            assert!(error.starts_with("bad.toml:"), "{error}");
            assert!(error.contains(expected), "{from} -> {to}: {error}");
            assert!(!error.contains('\n'), "one line: {error}");
        }
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let text = GOOD.replace("vcpu = 2", "vcpu = = 2");
        let error = parse_file("my.toml", &text).unwrap_err();
        assert!(
            matches!(error, CatalogError::Syntax { line: 12, .. }),
            "{error}"
        );
    }
}
