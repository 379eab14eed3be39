//! AWS rows: EC2 instance types with their EBS-optimized limits, EBS volume types with their
//! per-volume rules, and on-demand prices by region. Loaded from `catalog/aws-*.toml` (built
//! into the binary) plus any `--catalog FILE` of the same shape.
//!
//! The shapes are AWS's own: an instance has a baseline and a maximum, and sizes marked in
//! AWS's table hold the maximum for 30 minutes once every 24 hours (`burst_minutes_per_24h`);
//! a volume type carries only the fields its kind uses (gp3's provisioning, gp2's I/O
//! credits, io2's IOPS-per-GiB, st1's MiB/s per TiB).

use crate::error::CatalogError;
use crate::types::{Arch, Os, TableInfo};
use iofit_model::units::{GiB, Iops, KiB, MBps, MiBps};
use serde::{Deserialize, Serialize};

/// The AWS data files built into the binary.
const EMBEDDED: &[(&str, &str)] = &[
    (
        "catalog/aws-ec2-instances.toml",
        include_str!("../../../../catalog/aws-ec2-instances.toml"),
    ),
    (
        "catalog/aws-ebs-volumes.toml",
        include_str!("../../../../catalog/aws-ebs-volumes.toml"),
    ),
    (
        "catalog/aws-prices-us-east-1.toml",
        include_str!("../../../../catalog/aws-prices-us-east-1.toml"),
    ),
    (
        "catalog/aws-prices-windows-us-east-1.toml",
        include_str!("../../../../catalog/aws-prices-windows-us-east-1.toml"),
    ),
    (
        "catalog/aws-prices-ap-northeast-1.toml",
        include_str!("../../../../catalog/aws-prices-ap-northeast-1.toml"),
    ),
    (
        "catalog/aws-prices-eu-central-1.toml",
        include_str!("../../../../catalog/aws-prices-eu-central-1.toml"),
    ),
    (
        "catalog/aws-prices-instances-eu-central-1-ap-northeast-1.toml",
        include_str!("../../../../catalog/aws-prices-instances-eu-central-1-ap-northeast-1.toml"),
    ),
];

/// The region AWS plans are priced in unless told otherwise.
pub const DEFAULT_REGION: &str = "us-east-1";

/// An EC2 instance type and its dedicated EBS limits. Throughput is MB/s (10^6 B/s) at 128 KiB
/// I/O and IOPS at 16 KiB I/O, as AWS's EBS-optimized table measures them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AwsInstance {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub family: String,
    pub vcpu: u32,
    pub memory_gib: GiB,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<Arch>,
    /// Data volumes that may be attached (the root volume and one network interface taken).
    pub ebs_volume_slots: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_bandwidth_mbps: Option<f64>,
    pub baseline_throughput_mb_s: MBps,
    pub baseline_iops: Iops,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum_bandwidth_mbps: Option<f64>,
    pub maximum_throughput_mb_s: MBps,
    pub maximum_iops: Iops,
    /// Minutes per 24 hours the maximum may be held; `None`: the maximum is sustained
    /// indefinitely (AWS's sizes without an asterisk, where baseline = maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_minutes_per_24h: Option<f64>,
}

impl AwsInstance {
    /// Whether the maximum is above the baseline only for a window (smaller sizes).
    pub fn bursts(&self) -> bool {
        self.burst_minutes_per_24h.is_some()
            && (self.maximum_iops > self.baseline_iops
                || self.maximum_throughput_mb_s > self.baseline_throughput_mb_s)
    }
}

/// The kinds of EBS volume modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EbsKind {
    Gp3,
    Gp2,
    Io2,
    /// io2 Block Express: IOPS per GiB up to 256,000, throughput a fixed MiB/s per provisioned
    /// IOPS (every io2 volume since 30 April 2025, on Nitro instances).
    #[serde(rename = "io2-block-express")]
    Io2BlockExpress,
    St1,
}

impl EbsKind {
    pub fn name(self) -> &'static str {
        match self {
            EbsKind::Gp3 => "gp3",
            EbsKind::Gp2 => "gp2",
            EbsKind::Io2 => "io2",
            EbsKind::Io2BlockExpress => "io2-block-express",
            EbsKind::St1 => "st1",
        }
    }
}

/// An EBS volume type. Throughput is MiB/s (2^20 B/s), as AWS's EBS pages state it. Only the
/// fields of its kind are set; [`AwsCatalog`] checks each kind has the ones it needs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EbsVolumeType {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub kind: Option<EbsKind>,
    pub size_gib_min: GiB,
    pub size_gib_max: GiB,
    // gp3, io2, st1
    pub iops_max: Option<f64>,
    // gp3
    pub iops_baseline: Option<f64>,
    pub iops_per_gib_max: Option<f64>,
    pub throughput_mib_s_baseline: Option<f64>,
    pub throughput_mib_s_max: Option<f64>,
    pub throughput_mib_s_per_iops_max: Option<f64>,
    // gp2
    pub iops_per_gib: Option<f64>,
    pub iops_min: Option<f64>,
    pub burst_iops: Option<Iops>,
    pub burst_size_gib_below: Option<GiB>,
    pub burst_credits_max: Option<f64>,
    pub burst_credits_per_gib_s: Option<f64>,
    pub throughput_mib_s_small: Option<f64>,
    pub throughput_small_size_gib_max: Option<GiB>,
    pub throughput_max_size_gib_min: Option<GiB>,
    // io2
    pub io_size_kib_max: Option<KiB>,
    pub throughput_mib_s_max_low_iops: Option<MiBps>,
    pub low_iops_max: Option<f64>,
    pub throughput_kib_per_iops_high: Option<f64>,
    // st1
    pub throughput_mib_s_per_tib_baseline: Option<f64>,
    pub throughput_mib_s_per_tib_burst: Option<f64>,
}

/// The fields each kind needs (checked when the catalog loads, so the models never meet an
/// empty one).
fn needed_fields(kind: EbsKind) -> &'static [&'static str] {
    match kind {
        EbsKind::Gp3 => &[
            "iops_baseline",
            "iops_max",
            "iops_per_gib_max",
            "throughput_mib_s_baseline",
            "throughput_mib_s_max",
            "throughput_mib_s_per_iops_max",
        ],
        EbsKind::Gp2 => &[
            "iops_per_gib",
            "iops_min",
            "iops_max",
            "burst_iops",
            "burst_size_gib_below",
            "burst_credits_max",
            "burst_credits_per_gib_s",
            "throughput_mib_s_small",
            "throughput_small_size_gib_max",
            "throughput_mib_s_max",
            "throughput_max_size_gib_min",
        ],
        EbsKind::Io2 => &[
            "iops_min",
            "iops_max",
            "iops_per_gib_max",
            "io_size_kib_max",
            "throughput_mib_s_max_low_iops",
            "low_iops_max",
            "throughput_kib_per_iops_high",
            "throughput_mib_s_max",
        ],
        EbsKind::Io2BlockExpress => &[
            "iops_min",
            "iops_max",
            "iops_per_gib_max",
            "throughput_mib_s_per_iops_max",
            "throughput_mib_s_max",
        ],
        EbsKind::St1 => &[
            "iops_max",
            "throughput_mib_s_per_tib_baseline",
            "throughput_mib_s_per_tib_burst",
            "throughput_mib_s_max",
        ],
    }
}

impl EbsVolumeType {
    /// The kind (always set once loaded).
    pub fn kind(&self) -> EbsKind {
        self.kind.unwrap_or(EbsKind::Gp3)
    }

    /// A field by name, for the load-time check of [`needed_fields`].
    fn field(&self, name: &str) -> Option<f64> {
        match name {
            "iops_max" => self.iops_max,
            "iops_baseline" => self.iops_baseline,
            "iops_per_gib_max" => self.iops_per_gib_max,
            "throughput_mib_s_baseline" => self.throughput_mib_s_baseline,
            "throughput_mib_s_max" => self.throughput_mib_s_max,
            "throughput_mib_s_per_iops_max" => self.throughput_mib_s_per_iops_max,
            "iops_per_gib" => self.iops_per_gib,
            "iops_min" => self.iops_min,
            "burst_iops" => self.burst_iops.map(Iops::get),
            "burst_size_gib_below" => self.burst_size_gib_below.map(|gib| gib.get()),
            "burst_credits_max" => self.burst_credits_max,
            "burst_credits_per_gib_s" => self.burst_credits_per_gib_s,
            "throughput_mib_s_small" => self.throughput_mib_s_small,
            "throughput_small_size_gib_max" => {
                self.throughput_small_size_gib_max.map(|gib| gib.get())
            }
            "throughput_max_size_gib_min" => self.throughput_max_size_gib_min.map(|gib| gib.get()),
            "io_size_kib_max" => self.io_size_kib_max.map(|kib| kib.get()),
            "throughput_mib_s_max_low_iops" => self.throughput_mib_s_max_low_iops.map(MiBps::get),
            "low_iops_max" => self.low_iops_max,
            "throughput_kib_per_iops_high" => self.throughput_kib_per_iops_high,
            "throughput_mib_s_per_tib_baseline" => self.throughput_mib_s_per_tib_baseline,
            "throughput_mib_s_per_tib_burst" => self.throughput_mib_s_per_tib_burst,
            _ => None,
        }
    }

    /// Every number of the row, named, for the >= 0 check.
    fn numbers(&self) -> Vec<(&'static str, Option<f64>)> {
        let mut numbers = vec![
            ("size_gib_min", Some(self.size_gib_min.get())),
            ("size_gib_max", Some(self.size_gib_max.get())),
        ];
        for name in ALL_OPTIONAL_NUMBERS {
            numbers.push((name, self.field(name)));
        }
        numbers
    }

    /// A needed number (checked at load; 0 if a caller built a row by hand without it).
    pub fn number(&self, name: &str) -> f64 {
        self.field(name).unwrap_or(0.0)
    }
}

const ALL_OPTIONAL_NUMBERS: &[&str] = &[
    "iops_max",
    "iops_baseline",
    "iops_per_gib_max",
    "throughput_mib_s_baseline",
    "throughput_mib_s_max",
    "throughput_mib_s_per_iops_max",
    "iops_per_gib",
    "iops_min",
    "burst_iops",
    "burst_size_gib_below",
    "burst_credits_max",
    "burst_credits_per_gib_s",
    "throughput_mib_s_small",
    "throughput_small_size_gib_max",
    "throughput_max_size_gib_min",
    "io_size_kib_max",
    "throughput_mib_s_max_low_iops",
    "low_iops_max",
    "throughput_kib_per_iops_high",
    "throughput_mib_s_per_tib_baseline",
    "throughput_mib_s_per_tib_burst",
];

/// One region's rates of one EBS volume type, USD per month. A rate left out is not sourced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EbsPrice {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub region: String,
    #[serde(rename = "price_per_gib_month", alias = "usd_per_gib_month")]
    pub usd_per_gib_month: Option<f64>,
    /// Per provisioned IOPS-month (gp3: above the free baseline; io2: all of them).
    #[serde(rename = "price_per_iops_month", alias = "usd_per_iops_month")]
    pub usd_per_iops_month: Option<f64>,
    /// gp3: per provisioned MiB/s-month above the free baseline.
    #[serde(rename = "price_per_mib_s_month", alias = "usd_per_mib_s_month")]
    pub usd_per_mib_s_month: Option<f64>,
    /// The rate per IOPS is sourced up to this many IOPS (io2's lower tiers above it are not).
    pub iops_priced_up_to: Option<f64>,
    /// Lower rates for a volume's provisioned IOPS above a count (io2: above 32,000 and above
    /// 64,000), ascending; `price_per_iops_month` holds below the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub iops_tiers: Vec<IopsTier>,
    pub source: Option<String>,
    pub notes: Option<String>,
}

/// One tier of a volume's provisioned IOPS: the rate of each IOPS above `above_iops` (up to
/// the next tier's).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IopsTier {
    pub above_iops: Iops,
    #[serde(rename = "price_per_iops_month")]
    pub usd_per_iops_month: f64,
}

impl EbsPrice {
    /// What `iops` provisioned IOPS of one volume cost a month, tier by tier; `None` when a
    /// rate they need is not sourced (no rate, or above `iops_priced_up_to`).
    pub fn iops_usd_month(&self, iops: f64) -> Option<f64> {
        if iops <= 0.0 {
            return Some(0.0);
        }
        if iops > self.iops_priced_up_to.unwrap_or(f64::INFINITY) {
            return None;
        }
        // Each rate holds from its bound up to the next tier's: below the first tier the base
        // rate, above it the tier's.
        let mut usd = 0.0;
        let (mut from, mut rate) = (0.0, self.usd_per_iops_month?);
        for tier in &self.iops_tiers {
            usd += (iops.min(tier.above_iops.get()) - from).max(0.0) * rate;
            (from, rate) = (tier.above_iops.get(), tier.usd_per_iops_month);
        }
        usd += (iops - from).max(0.0) * rate;
        Some(usd)
    }
}

/// Tiers must rise and be priced (a tier out of order would bill IOPS twice or not at all).
fn check_tiers(row: &EbsPrice) -> Result<(), FieldProblem> {
    if !row.iops_tiers.is_empty() && row.usd_per_iops_month.is_none() {
        return Err((
            "iops_tiers",
            "need price_per_iops_month for the IOPS below the first tier".into(),
        ));
    }
    let mut last = 0.0;
    for tier in &row.iops_tiers {
        check_numbers(&[
            ("iops_tiers.above_iops", Some(tier.above_iops.get())),
            (
                "iops_tiers.price_per_iops_month",
                Some(tier.usd_per_iops_month),
            ),
        ])?;
        if tier.above_iops.get() <= last {
            return Err((
                "iops_tiers",
                format!(
                    "above_iops {} is not above the tier before ({last}); list tiers ascending",
                    tier.above_iops.get()
                ),
            ));
        }
        last = tier.above_iops.get();
    }
    Ok(())
}

/// One region's on-demand price of one instance type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AwsInstancePrice {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub region: String,
    pub os: Os,
    #[serde(rename = "price_per_hour", alias = "usd_hour")]
    pub usd_hour: f64,
    pub source: Option<String>,
    pub notes: Option<String>,
}

impl AwsInstancePrice {
    /// USD per month of 730 hours (the month every iofit price uses).
    pub fn usd_month(&self) -> f64 {
        self.usd_hour * 730.0
    }
    /// Whether the price was computed from another one (its notes say how).
    pub fn derived(&self) -> bool {
        self.source.is_none()
    }
}

/// One AWS catalog file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AwsFile {
    table: TableInfo,
    #[serde(default)]
    instances: Vec<AwsInstance>,
    #[serde(default)]
    volume_types: Vec<EbsVolumeType>,
    #[serde(default)]
    volume_prices: Vec<EbsPrice>,
    #[serde(default)]
    instance_prices: Vec<AwsInstancePrice>,
}

/// Everything known about AWS.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AwsCatalog {
    pub tables: Vec<TableInfo>,
    pub instances: Vec<AwsInstance>,
    pub volume_types: Vec<EbsVolumeType>,
    pub volume_prices: Vec<EbsPrice>,
    pub instance_prices: Vec<AwsInstancePrice>,
}

impl AwsCatalog {
    /// The built-in AWS tables.
    pub fn embedded() -> Result<AwsCatalog, CatalogError> {
        let mut catalog = AwsCatalog::default();
        for (file, text) in EMBEDDED {
            catalog.add_text(file, text)?;
        }
        Ok(catalog)
    }

    /// Adds one file's rows; a row with the name (and region) of an earlier one replaces it.
    pub fn add_text(&mut self, file: &str, text: &str) -> Result<(), CatalogError> {
        let parsed: AwsFile = toml::from_str(text).map_err(|e| CatalogError::Syntax {
            file: file.to_string(),
            line: e
                .span()
                .map(|span| text[..span.start.min(text.len())].lines().count().max(1))
                .unwrap_or(1),
            message: e.message().replace('\n', " "),
        })?;
        let table = parsed.table;
        check_table(file, &table)?;
        if self.tables.iter().any(|t| t.id == table.id) {
            return Err(CatalogError::Table {
                file: file.to_string(),
                line: line_of(text, "id ="),
                field: "id".into(),
                problem: format!(
                    "table id '{}' is already loaded; give the file its own id",
                    table.id
                ),
            });
        }
        let row_error = |section: &str, index: usize, name: &str, field: &str, problem: String| {
            CatalogError::Row {
                file: file.to_string(),
                line: line_of(text, &format!("name = \"{name}\"")),
                section: section.to_string(),
                index,
                name: name.to_string(),
                field: field.to_string(),
                problem,
            }
        };
        for (index, row) in parsed.instances.iter().enumerate() {
            check_instance(row).map_err(|(field, problem)| {
                row_error("instances", index, &row.name, field, problem)
            })?;
        }
        for (index, row) in parsed.volume_types.iter().enumerate() {
            check_volume_type(row).map_err(|(field, problem)| {
                row_error("volume_types", index, &row.name, field, problem)
            })?;
        }
        for (index, row) in parsed.volume_prices.iter().enumerate() {
            let numbers = [
                ("price_per_gib_month", row.usd_per_gib_month),
                ("price_per_iops_month", row.usd_per_iops_month),
                ("price_per_mib_s_month", row.usd_per_mib_s_month),
                ("iops_priced_up_to", row.iops_priced_up_to),
            ];
            check_numbers(&numbers)
                .and_then(|()| check_tiers(row))
                .map_err(|(field, problem)| {
                    row_error("volume_prices", index, &row.name, field, problem)
                })?;
        }
        for (index, row) in parsed.instance_prices.iter().enumerate() {
            check_numbers(&[("price_per_hour", Some(row.usd_hour))]).map_err(
                |(field, problem)| row_error("instance_prices", index, &row.name, field, problem),
            )?;
        }
        let id = table.id.clone();
        for mut row in parsed.instances {
            row.table = id.clone();
            self.instances.retain(|r| r.name != row.name);
            self.instances.push(row);
        }
        for mut row in parsed.volume_types {
            row.table = id.clone();
            self.volume_types.retain(|r| r.name != row.name);
            self.volume_types.push(row);
        }
        for mut row in parsed.volume_prices {
            row.table = id.clone();
            self.volume_prices
                .retain(|r| !(r.name == row.name && r.region == row.region));
            self.volume_prices.push(row);
        }
        for mut row in parsed.instance_prices {
            row.table = id.clone();
            self.instance_prices
                .retain(|r| !(r.name == row.name && r.region == row.region && r.os == row.os));
            self.instance_prices.push(row);
        }
        self.tables.push(table);
        Ok(())
    }

    /// An instance type by name (any case).
    pub fn instance(&self, name: &str) -> Result<&AwsInstance, CatalogError> {
        named(&self.instances, name, "AWS instance type", |i| &i.name)
    }

    /// A volume type by name (any case).
    pub fn volume_type(&self, name: &str) -> Result<&EbsVolumeType, CatalogError> {
        named(&self.volume_types, name, "EBS volume type", |v| &v.name)
    }

    /// The on-demand price of an instance type in a region for an OS, when sourced.
    pub fn instance_price(&self, name: &str, region: &str, os: Os) -> Option<&AwsInstancePrice> {
        self.instance_prices
            .iter()
            .find(|p| p.name == name && p.region == region && p.os == os)
    }

    /// A volume type's rates in a region, when sourced.
    pub fn volume_price(&self, name: &str, region: &str) -> Option<&EbsPrice> {
        self.volume_prices
            .iter()
            .find(|p| p.name == name && p.region == region)
    }

    /// The table a row names.
    pub fn table(&self, id: &str) -> Option<&TableInfo> {
        self.tables.iter().find(|t| t.id == id)
    }
}

/// The row of `rows` named `name` (any case, trimmed), or an error naming the nearest three.
pub(crate) fn named<'a, T>(
    rows: &'a [T],
    name: &str,
    what: &str,
    name_of: impl Fn(&T) -> &String,
) -> Result<&'a T, CatalogError> {
    rows.iter()
        .find(|row| name_of(row).eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| unknown(what, name, rows.iter().map(&name_of)))
}

pub(crate) fn unknown<'a>(
    what: &str,
    name: &str,
    names: impl Iterator<Item = &'a String>,
) -> CatalogError {
    let mut scored: Vec<(f64, &String)> = names
        .map(|n| {
            (
                strsim::jaro_winkler(&n.to_lowercase(), &name.to_lowercase()),
                n,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    CatalogError::Unknown {
        what: what.to_string(),
        name: name.to_string(),
        edition: crate::EDITION_CURRENT.to_string(),
        nearest: scored.into_iter().take(3).map(|(_, n)| n.clone()).collect(),
        hint: String::new(),
    }
}

/// The 1-based line where `needle` first occurs, to point an error at its row.
pub(crate) fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.find(needle)
        .map(|offset| text[..offset].lines().count() + 1)
}

pub(crate) fn check_table(file: &str, table: &TableInfo) -> Result<(), CatalogError> {
    let problem = |field: &str, problem: &str| CatalogError::Table {
        file: file.to_string(),
        line: None,
        field: field.to_string(),
        problem: problem.to_string(),
    };
    for (field, value) in [
        ("id", &table.id),
        ("title", &table.title),
        ("source", &table.source),
    ] {
        if value.trim().is_empty() {
            return Err(problem(
                field,
                "must not be empty; say where the numbers come from",
            ));
        }
    }
    let date_ok = table.date.len() == 10
        && table.date.chars().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == '-'
            } else {
                c.is_ascii_digit()
            }
        });
    if !date_ok {
        return Err(problem(
            "date",
            "write the date the numbers were read as YYYY-MM-DD",
        ));
    }
    if !crate::EDITIONS.contains(&table.edition.as_str()) {
        return Err(problem("edition", "use \"current\" or \"seed-2016\""));
    }
    Ok(())
}

pub(crate) type FieldProblem = (&'static str, String);

pub(crate) fn check_numbers(numbers: &[(&'static str, Option<f64>)]) -> Result<(), FieldProblem> {
    for (field, value) in numbers {
        if let Some(value) = value {
            if !(value.is_finite() && *value >= 0.0) {
                return Err((
                    field,
                    format!(
                        "expected a number >= 0, found {value}; leave the key out when the value is not published"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_instance(row: &AwsInstance) -> Result<(), FieldProblem> {
    if row.name.trim().is_empty() {
        return Err(("name", "must not be empty".into()));
    }
    check_numbers(&[
        ("memory_gib", Some(row.memory_gib.get())),
        ("baseline_bandwidth_mbps", row.baseline_bandwidth_mbps),
        (
            "baseline_throughput_mb_s",
            Some(row.baseline_throughput_mb_s.get()),
        ),
        ("baseline_iops", Some(row.baseline_iops.get())),
        ("maximum_bandwidth_mbps", row.maximum_bandwidth_mbps),
        (
            "maximum_throughput_mb_s",
            Some(row.maximum_throughput_mb_s.get()),
        ),
        ("maximum_iops", Some(row.maximum_iops.get())),
        ("burst_minutes_per_24h", row.burst_minutes_per_24h),
    ])?;
    if row.maximum_iops < row.baseline_iops {
        return Err((
            "maximum_iops",
            format!(
                "{} is below baseline_iops {}; the maximum is at least the baseline",
                row.maximum_iops.get(),
                row.baseline_iops.get()
            ),
        ));
    }
    if row.maximum_throughput_mb_s < row.baseline_throughput_mb_s {
        return Err((
            "maximum_throughput_mb_s",
            "is below baseline_throughput_mb_s; the maximum is at least the baseline".into(),
        ));
    }
    Ok(())
}

fn check_volume_type(row: &EbsVolumeType) -> Result<(), FieldProblem> {
    let Some(kind) = row.kind else {
        return Err((
            "kind",
            "missing; use gp3, gp2, io2, io2-block-express or st1".into(),
        ));
    };
    check_numbers(&row.numbers())?;
    for field in needed_fields(kind) {
        if row.field(field).is_none() {
            return Err((
                field,
                format!("missing; a {} volume type needs it", kind.name()),
            ));
        }
    }
    if row.size_gib_max < row.size_gib_min {
        return Err(("size_gib_max", "is below size_gib_min".into()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_tables_have_sources_and_rows() {
        let catalog = AwsCatalog::embedded().unwrap();
        assert!(catalog
            .tables
            .iter()
            .all(|t| !t.source.is_empty() && t.date.len() == 10));
        // AWS's table: m6i.2xlarge 12,000 IOPS / 312.5 MB/s baseline, 40,000 / 1,250 maximum
        // for 30 minutes a day; m6i.8xlarge sustains 40,000 (no asterisk).
        let m6i = catalog.instance("M6I.2xlarge").unwrap();
        assert_eq!(
            (m6i.baseline_iops.get(), m6i.maximum_iops.get()),
            (12_000.0, 40_000.0)
        );
        assert_eq!(m6i.baseline_throughput_mb_s.get(), 312.5);
        assert_eq!(m6i.burst_minutes_per_24h, Some(30.0));
        assert!(m6i.bursts());
        let big = catalog.instance("m6i.8xlarge").unwrap();
        assert!(!big.bursts());
        assert_eq!(big.baseline_iops, big.maximum_iops);
        let gp3 = catalog.volume_type("gp3").unwrap();
        assert_eq!(gp3.number("iops_baseline"), 3000.0);
        let price = catalog.volume_price("gp3", DEFAULT_REGION).unwrap();
        assert_eq!(price.usd_per_gib_month, Some(0.08));
        let m6i_price = catalog
            .instance_price("m6i.xlarge", DEFAULT_REGION, Os::Linux)
            .unwrap();
        assert!(!m6i_price.derived());
        assert!((m6i_price.usd_month() - 140.16).abs() < 1e-9);
    }

    /// Every instance type of the catalog has a sourced us-east-1 price for Linux and for
    /// Windows, none derived from another size; the figures are the sources' own (Karpenter's
    /// generated table for Linux, ec2instances.info's for Windows).
    #[test]
    fn us_east_1_prices_every_instance_for_linux_and_windows_from_a_source() {
        let catalog = AwsCatalog::embedded().unwrap();
        assert_eq!(catalog.instances.len(), 35);
        for instance in &catalog.instances {
            for os in [Os::Linux, Os::Windows] {
                let price = catalog
                    .instance_price(&instance.name, DEFAULT_REGION, os)
                    .unwrap_or_else(|| panic!("{} {os:?} unpriced", instance.name));
                assert!(!price.derived(), "{} {os:?}", instance.name);
                let source = price.source.as_deref().unwrap();
                assert!(source.contains(&instance.name), "{source}");
                assert!(price
                    .notes
                    .as_deref()
                    .is_none_or(|n| !n.contains("derived")));
            }
        }
        let hourly = |name: &str, os| {
            catalog
                .instance_price(name, DEFAULT_REGION, os)
                .unwrap()
                .usd_hour
        };
        assert_eq!(hourly("r6i.large", Os::Linux), 0.126);
        assert_eq!(hourly("c6i.32xlarge", Os::Linux), 5.44);
        assert_eq!(hourly("m5.24xlarge", Os::Linux), 4.608);
        assert_eq!(hourly("m6i.xlarge", Os::Windows), 0.376);
        assert_eq!(hourly("r6i.32xlarge", Os::Windows), 13.952);
        // Windows carries the licence on top of the Linux rate.
        for instance in &catalog.instances {
            assert!(hourly(&instance.name, Os::Windows) > hourly(&instance.name, Os::Linux));
        }
        let windows = catalog.table("aws-prices-windows-us-east-1").unwrap();
        assert!(windows.source.contains("ef5638af") && windows.date == "2023-08-30");
        let linux = catalog.table("aws-prices-us-east-1").unwrap();
        assert!(linux.source.contains("karpenter-provider-aws") && linux.date == "2026-01-19");
    }

    /// ap-northeast-1: every EBS type the catalog has rules for is priced from AWS's Price List
    /// (SKUs pinned 2026-09-13), io2 in its three tiers; eu-central-1 prices gp3 and gp2 only
    /// (see `frankfurt_prices_gp3_and_gp2_from_a_dated_source`). Both regions price every
    /// instance type, Linux and Windows, from the Price List as generated on 2026-09-04.
    #[test]
    fn tokyo_prices_volumes_and_both_regions_price_instances() {
        let catalog = AwsCatalog::embedded().unwrap();
        let tokyo = "ap-northeast-1";
        for volume_type in ["gp3", "gp2", "io2", "io1", "st1", "sc1"] {
            let price = catalog.volume_price(volume_type, tokyo).unwrap();
            assert!(price.usd_per_gib_month.is_some());
            assert!(
                price.source.as_deref().unwrap().contains("SKU"),
                "{volume_type}"
            );
        }
        let gp3 = catalog.volume_price("gp3", tokyo).unwrap();
        // 49.152 USD per GiBps-month is 0.048 per MiB/s-month.
        assert_eq!(gp3.usd_per_mib_s_month, Some(0.048));
        let io2 = catalog.volume_price("io2", tokyo).unwrap();
        // 32,000 x 0.074 + 32,000 x 0.0518 + 16,000 x 0.03626
        let usd = io2.iops_usd_month(80_000.0).unwrap();
        assert!((usd - (2368.0 + 1657.6 + 580.16)).abs() < 1e-6, "{usd}");
        for region in [tokyo, "eu-central-1"] {
            for instance in &catalog.instances {
                for os in [Os::Linux, Os::Windows] {
                    let price = catalog
                        .instance_price(&instance.name, region, os)
                        .unwrap_or_else(|| panic!("{} {region}", instance.name));
                    assert!(!price.derived());
                    assert!(price.source.as_deref().unwrap().contains(&instance.name));
                }
                let linux = catalog.instance_price(&instance.name, region, Os::Linux);
                let windows = catalog.instance_price(&instance.name, region, Os::Windows);
                // Windows carries the licence on top of the Linux rate.
                assert!(windows.unwrap().usd_hour > linux.unwrap().usd_hour);
            }
        }
        let hourly = |name: &str, region: &str, os| {
            catalog.instance_price(name, region, os).unwrap().usd_hour
        };
        assert_eq!(hourly("m5.large", tokyo, Os::Linux), 0.124);
        assert_eq!(hourly("c6i.4xlarge", tokyo, Os::Windows), 1.592);
        assert_eq!(hourly("r6i.12xlarge", tokyo, Os::Linux), 3.648);
        assert_eq!(hourly("m6i.32xlarge", "eu-central-1", Os::Linux), 7.36);
        assert_eq!(hourly("r6i.xlarge", "eu-central-1", Os::Windows), 0.488);
        let table = catalog
            .table("aws-prices-instances-eu-central-1-ap-northeast-1")
            .unwrap();
        assert!(table.source.contains("104f716e") && table.date == "2026-09-04");
    }

    /// eu-central-1's gp3 (storage, IOPS above 3,000, MiB/s above 125) and gp2 rates are the
    /// ones a dated post printed for Frankfurt (2023-11-02), the storage rates also in a price
    /// table checked against AWS's Price List on 2026-07-28, each row quoting its lines; io2,
    /// io1, st1 and sc1 stay unpriced there (no source), rather than taking another region's.
    #[test]
    fn frankfurt_prices_gp3_and_gp2_from_a_dated_source() {
        let catalog = AwsCatalog::embedded().unwrap();
        let frankfurt = "eu-central-1";
        let gp3 = catalog.volume_price("gp3", frankfurt).unwrap();
        assert_eq!(gp3.usd_per_gib_month, Some(0.0952));
        assert_eq!(gp3.usd_per_iops_month, Some(0.006));
        assert_eq!(gp3.usd_per_mib_s_month, Some(0.048));
        assert!(gp3.source.as_deref().unwrap().contains("$0,0952"));
        assert_eq!(gp3.table, "aws-prices-eu-central-1");
        let gp2 = catalog.volume_price("gp2", frankfurt).unwrap();
        assert_eq!(gp2.usd_per_gib_month, Some(0.119));
        assert!(gp2.source.as_deref().unwrap().contains("0,119"));
        for unpriced in ["io2", "io1", "st1", "sc1"] {
            assert!(
                catalog.volume_price(unpriced, frankfurt).is_none(),
                "{unpriced}"
            );
        }
        let table = catalog.table("aws-prices-eu-central-1").unwrap();
        assert_eq!(table.date, "2023-11-02");
        assert!(table
            .source
            .contains("hendric-jabs.de/2023/11/02/gp3-in-2-minuten"));
        // The storage rates have a second, later source (checked against the Price List on
        // 2026-07-28); the gp3 IOPS and MiB/s rates have the post alone.
        assert!(table
            .source
            .contains("eda04f572c48b42d554f8047304a358c1f636bde"));
        assert!(gp3
            .source
            .as_deref()
            .unwrap()
            .contains("\"ebs-gp3\": 0.0952"));
        assert!(gp2
            .source
            .as_deref()
            .unwrap()
            .contains("\"ebs-gp2\": 0.119"));
        // The Frankfurt rates are their own, not Tokyo's or us-east-1's.
        let tokyo = catalog.volume_price("gp3", "ap-northeast-1").unwrap();
        let virginia = catalog.volume_price("gp3", "us-east-1").unwrap();
        assert_ne!(gp3.usd_per_gib_month, tokyo.usd_per_gib_month);
        assert_ne!(gp3.usd_per_gib_month, virginia.usd_per_gib_month);
    }

    #[test]
    fn unknown_names_suggest_nearest() {
        let catalog = AwsCatalog::embedded().unwrap();
        let error = catalog.instance("m6i.2xlarg").unwrap_err().to_string();
        assert!(error.contains("m6i.2xlarge"), "{error}");
    }

    #[test]
    fn bad_rows_name_file_row_and_field() {
        let text = "[table]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-01-01\"\n\n\
                    [[volume_types]]\nname = \"mygp3\"\nkind = \"gp3\"\nsize_gib_min = 1\n\
                    size_gib_max = 10\niops_baseline = 3000\n";
        let error = AwsCatalog::default()
            .add_text("my.toml", text)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("my.toml") && error.contains("volume_types[0] (mygp3)"),
            "{error}"
        );
        assert!(
            error.contains("iops_max") && error.contains("gp3"),
            "{error}"
        );
        let misspelt = text.replace("iops_baseline", "iops_basline");
        let error = AwsCatalog::default()
            .add_text("my.toml", &misspelt)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("line") && error.contains("iops_basline"),
            "{error}"
        );
        let negative =
            "[table]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-01-01\"\n\n\
                        [[instance_prices]]\nname = \"m6i.large\"\nregion = \"us-east-1\"\n\
                        os = \"linux\"\nprice_per_hour = -1\n";
        let error = AwsCatalog::default()
            .add_text("p.toml", negative)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("p.toml: line 8") && error.contains("price_per_hour"),
            "{error}"
        );
    }

    /// Price files written before the keys were named for any currency (`usd_hour`,
    /// `usd_per_*`) load to the same rows as files with the names now.
    #[test]
    fn old_usd_price_keys_still_load() {
        let now = "[table]\nid = \"x\"\ntitle = \"t\"\nsource = \"s\"\ndate = \"2026-01-01\"\n\n\
                   [[instance_prices]]\nname = \"m6i.large\"\nregion = \"us-east-1\"\n\
                   os = \"linux\"\nprice_per_hour = 0.096\n\n\
                   [[volume_prices]]\nname = \"gp3\"\nregion = \"us-east-1\"\n\
                   price_per_gib_month = 0.08\nprice_per_iops_month = 0.005\n\
                   price_per_mib_s_month = 0.04\n";
        let old = now
            .replace("price_per_hour", "usd_hour")
            .replace("price_per_gib_month", "usd_per_gib_month")
            .replace("price_per_iops_month", "usd_per_iops_month")
            .replace("price_per_mib_s_month", "usd_per_mib_s_month");
        let mut a = AwsCatalog::default();
        a.add_text("now.toml", now).unwrap();
        let mut b = AwsCatalog::default();
        b.add_text("old.toml", &old).unwrap();
        assert_eq!(a.instance_prices, b.instance_prices);
        assert_eq!(a.volume_prices, b.volume_prices);
        assert_eq!(a.instance_prices[0].usd_hour, 0.096);
        assert_eq!(a.volume_prices[0].usd_per_mib_s_month, Some(0.04));
    }
}
