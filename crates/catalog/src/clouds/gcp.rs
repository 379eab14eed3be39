//! Google Cloud rows: Compute Engine machine types, Persistent Disk types with their per-GiB
//! rules, the per-VM Persistent Disk limits by machine family and vCPU count, and on-demand
//! prices by region. Loaded from `catalog/gcp-*.toml` (built into the binary) plus any
//! `--catalog FILE` of the same shape.
//!
//! The shape is Google's own: a Persistent Disk's performance is not a property of one disk but
//! of the VM: `baseline + rate x total GiB of that type attached`, up to the VM's limit for its
//! vCPU count, with separate read and write limits (Google's 'About Persistent Disk
//! performance', as Google's gcpdiag computes it). Nothing is provisioned and nothing bursts.

use crate::clouds::aws::{check_numbers, check_table, named, FieldProblem};
use crate::clouds::gcp_provisioned::{check_provisioned, ProvisionedType};
use crate::error::CatalogError;
use crate::types::TableInfo;
use iofit_model::units::{GiB, Iops, MiBps};
use serde::{Deserialize, Serialize};

/// The Google Cloud data files built into the binary.
const EMBEDDED: &[(&str, &str)] = &[
    (
        "catalog/gcp-machine-types.toml",
        include_str!("../../../../catalog/gcp-machine-types.toml"),
    ),
    (
        "catalog/gcp-persistent-disk.toml",
        include_str!("../../../../catalog/gcp-persistent-disk.toml"),
    ),
    (
        "catalog/gcp-prices.toml",
        include_str!("../../../../catalog/gcp-prices.toml"),
    ),
    (
        "catalog/gcp-provisioned-disk.toml",
        include_str!("../../../../catalog/gcp-provisioned-disk.toml"),
    ),
];

/// The region Google Cloud plans are priced in unless told otherwise.
pub const DEFAULT_REGION: &str = "us-central1";

/// The regions whose prices are in the built-in tables.
pub const SOURCED_REGIONS: [&str; 3] = ["us-central1", "europe-west3", "asia-northeast1"];

/// A machine type: its family picks its Persistent Disk limits, its vCPU count the row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcpMachineType {
    pub name: String,
    #[serde(default)]
    pub table: String,
    /// `n2`, `n2d`, `e2`, `n1`: the family whose `[[vm_limits]]` apply.
    pub family: String,
    pub vcpu: u32,
    pub memory_gib: GiB,
    /// Most Persistent Disk volumes (gcloud's `maximumPersistentDisks`), when known.
    pub max_persistent_disks: Option<u32>,
}

/// A Persistent Disk type: what each GiB adds and the VM-wide baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdType {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub read_iops_per_gib: f64,
    pub write_iops_per_gib: f64,
    /// MiB/s per GiB, reads and writes alike.
    pub throughput_mib_s_per_gib: f64,
    /// IOPS a VM gets from this type whatever its size (counted once per VM).
    pub baseline_iops: Iops,
    pub baseline_mib_s: MiBps,
    /// A total below this many GiB performs as this many (gcpdiag: "upto first 100GB,
    /// pd-standard disks have fixed IO limits"); `None`: the rate holds from 1 GiB.
    pub rate_floor_gib: Option<GiB>,
}

impl PdType {
    /// The GiB the per-GiB rates apply to when `total_gib` of the type is attached.
    pub fn rated_gib(&self, total_gib: GiB) -> GiB {
        total_gib.max(self.rate_floor_gib.unwrap_or_default())
    }
}

/// One family's per-VM limit of one disk type for a range of vCPU counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmPdLimit {
    #[serde(default)]
    pub table: String,
    pub family: String,
    pub disk_type: String,
    pub vcpu_min: u32,
    /// `None`: this many vCPUs or more.
    pub vcpu_max: Option<u32>,
    pub read_iops: Iops,
    pub write_iops: Iops,
    pub read_mib_s: MiBps,
    pub write_mib_s: MiBps,
}

impl VmPdLimit {
    fn covers(&self, family: &str, disk_type: &str, vcpu: u32) -> bool {
        self.family.eq_ignore_ascii_case(family)
            && self.disk_type.eq_ignore_ascii_case(disk_type)
            && vcpu >= self.vcpu_min
            && self.vcpu_max.is_none_or(|max| vcpu <= max)
    }
}

/// One region's rate of one disk type, per GiB-month.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdPrice {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub region: String,
    pub price_per_gib_month: f64,
    /// Provisioned types: the price of one provisioned IOPS a month (beyond what is included).
    pub price_per_iops_month: Option<f64>,
    /// Provisioned types: the price of one provisioned MiB/s a month (beyond what is included).
    pub price_per_mib_s_month: Option<f64>,
    /// The Cloud Billing Catalog SKU ids the row was read from, when fetched.
    pub sku: Option<String>,
    pub source: Option<String>,
}

/// One region's on-demand price of one machine type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GcpMachinePrice {
    pub name: String,
    #[serde(default)]
    pub table: String,
    pub region: String,
    pub price_per_hour: f64,
    /// The Cloud Billing Catalog SKU ids the row was read from, when fetched.
    pub sku: Option<String>,
    pub source: Option<String>,
}

impl GcpMachinePrice {
    /// Per month of 730 hours (the month every iofit price uses).
    pub fn price_per_month(&self) -> f64 {
        self.price_per_hour * 730.0
    }
}

/// One Google Cloud catalog file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GcpFile {
    table: TableInfo,
    #[serde(default)]
    machine_types: Vec<GcpMachineType>,
    #[serde(default)]
    disk_types: Vec<PdType>,
    #[serde(default)]
    vm_limits: Vec<VmPdLimit>,
    #[serde(default)]
    disk_prices: Vec<PdPrice>,
    #[serde(default)]
    machine_prices: Vec<GcpMachinePrice>,
    #[serde(default)]
    provisioned_types: Vec<ProvisionedType>,
}

/// Everything known about Google Cloud.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GcpCatalog {
    pub tables: Vec<TableInfo>,
    pub machine_types: Vec<GcpMachineType>,
    pub disk_types: Vec<PdType>,
    pub vm_limits: Vec<VmPdLimit>,
    pub disk_prices: Vec<PdPrice>,
    pub machine_prices: Vec<GcpMachinePrice>,
    pub provisioned_types: Vec<ProvisionedType>,
}

/// The 1-based line of the `index`-th `[[section]]` header, to point an error at its row.
fn row_line(text: &str, section: &str, index: usize) -> Option<usize> {
    let header = format!("[[{section}]]");
    text.lines()
        .enumerate()
        .filter(|(_, line)| line.trim() == header)
        .nth(index)
        .map(|(number, _)| number + 1)
}

impl GcpCatalog {
    /// The built-in Google Cloud tables.
    pub fn embedded() -> Result<GcpCatalog, CatalogError> {
        let mut catalog = GcpCatalog::default();
        for (file, text) in EMBEDDED {
            catalog.add_text(file, text)?;
        }
        Ok(catalog)
    }

    /// Adds one file's rows; a row with the name (and region) of an earlier one replaces it.
    pub fn add_text(&mut self, file: &str, text: &str) -> Result<(), CatalogError> {
        let parsed: GcpFile = toml::from_str(text).map_err(|e| CatalogError::Syntax {
            file: file.to_string(),
            line: e
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1),
            message: e.message().replace('\n', " "),
        })?;
        let table = parsed.table;
        check_table(file, &table)?;
        if self.tables.iter().any(|t| t.id == table.id) {
            return Err(CatalogError::Table {
                file: file.to_string(),
                line: text
                    .lines()
                    .position(|l| l.trim_start().starts_with("id ="))
                    .map(|i| i + 1),
                field: "id".into(),
                problem: format!(
                    "table id '{}' is already loaded; give the file its own id",
                    table.id
                ),
            });
        }
        let row_error =
            |section: &str, index: usize, name: &str, problem: FieldProblem| CatalogError::Row {
                file: file.to_string(),
                line: row_line(text, section, index),
                section: section.to_string(),
                index,
                name: name.to_string(),
                field: problem.0.to_string(),
                problem: problem.1,
            };
        for (index, row) in parsed.machine_types.iter().enumerate() {
            check_machine_type(row).map_err(|p| row_error("machine_types", index, &row.name, p))?;
        }
        for (index, row) in parsed.disk_types.iter().enumerate() {
            check_disk_type(row).map_err(|p| row_error("disk_types", index, &row.name, p))?;
        }
        for (index, row) in parsed.vm_limits.iter().enumerate() {
            let name = format!("{} {}", row.family, row.disk_type);
            check_vm_limit(row).map_err(|p| row_error("vm_limits", index, &name, p))?;
        }
        for (index, row) in parsed.disk_prices.iter().enumerate() {
            check_price(&row.region, "price_per_gib_month", row.price_per_gib_month)
                .and_then(|()| {
                    check_numbers(&[
                        ("price_per_iops_month", row.price_per_iops_month),
                        ("price_per_mib_s_month", row.price_per_mib_s_month),
                    ])
                })
                .map_err(|p| row_error("disk_prices", index, &row.name, p))?;
        }
        for (index, row) in parsed.provisioned_types.iter().enumerate() {
            check_provisioned(row)
                .map_err(|p| row_error("provisioned_types", index, &row.name, p))?;
        }
        for (index, row) in parsed.machine_prices.iter().enumerate() {
            check_price(&row.region, "price_per_hour", row.price_per_hour)
                .map_err(|p| row_error("machine_prices", index, &row.name, p))?;
        }
        self.merge(
            table,
            parsed.machine_types,
            parsed.disk_types,
            parsed.vm_limits,
        );
        let id = &self.tables.last().map(|t| t.id.clone()).unwrap_or_default();
        for mut row in parsed.provisioned_types {
            row.table = id.clone();
            self.provisioned_types.retain(|r| r.name != row.name);
            self.provisioned_types.push(row);
        }
        for mut row in parsed.disk_prices {
            row.table = id.clone();
            self.disk_prices
                .retain(|r| !(r.name == row.name && r.region == row.region));
            self.disk_prices.push(row);
        }
        for mut row in parsed.machine_prices {
            row.table = id.clone();
            self.machine_prices
                .retain(|r| !(r.name == row.name && r.region == row.region));
            self.machine_prices.push(row);
        }
        Ok(())
    }

    /// Adds checked rows, each naming `table`.
    fn merge(
        &mut self,
        table: TableInfo,
        machine_types: Vec<GcpMachineType>,
        disk_types: Vec<PdType>,
        vm_limits: Vec<VmPdLimit>,
    ) {
        let id = table.id.clone();
        for mut row in machine_types {
            row.table = id.clone();
            self.machine_types.retain(|r| r.name != row.name);
            self.machine_types.push(row);
        }
        for mut row in disk_types {
            row.table = id.clone();
            self.disk_types.retain(|r| r.name != row.name);
            self.disk_types.push(row);
        }
        for mut row in vm_limits {
            row.table = id.clone();
            self.vm_limits.retain(|r| {
                !(r.family == row.family
                    && r.disk_type == row.disk_type
                    && r.vcpu_min == row.vcpu_min)
            });
            self.vm_limits.push(row);
        }
        self.tables.push(table);
    }

    /// A machine type by name (any case).
    pub fn machine_type(&self, name: &str) -> Result<&GcpMachineType, CatalogError> {
        named(
            &self.machine_types,
            name,
            "Google Cloud machine type",
            |m| &m.name,
        )
    }

    /// A Persistent Disk type by name (any case).
    pub fn disk_type(&self, name: &str) -> Result<&PdType, CatalogError> {
        named(&self.disk_types, name, "Persistent Disk type", |d| &d.name)
    }

    /// The per-VM limit of `disk_type` on `machine`, when sourced.
    pub fn vm_limit(&self, machine: &GcpMachineType, disk_type: &str) -> Option<&VmPdLimit> {
        self.vm_limits
            .iter()
            .find(|l| l.covers(&machine.family, disk_type, machine.vcpu))
    }

    /// The on-demand price of a machine type in a region, when sourced.
    pub fn machine_price(&self, name: &str, region: &str) -> Option<&GcpMachinePrice> {
        self.machine_prices
            .iter()
            .find(|p| p.name == name && p.region == region)
    }

    /// A disk type's rate in a region, when sourced.
    pub fn disk_price(&self, name: &str, region: &str) -> Option<&PdPrice> {
        self.disk_prices
            .iter()
            .find(|p| p.name == name && p.region == region)
    }

    /// A provisioned disk type (pd-extreme, Hyperdisk) by name (any case), when listed.
    pub fn provisioned_type(&self, name: &str) -> Option<&ProvisionedType> {
        self.provisioned_types
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(name.trim()))
    }

    /// What a prediction of provisioned type `row` would need and no table gives (its rules
    /// and per-VM limits; prices aside): empty when `predict` can model it.
    pub fn model_gaps(&self, row: &ProvisionedType) -> Vec<String> {
        let mut gaps: Vec<String> = row.unsourced_rules.clone();
        if !row.iops_rule_known() {
            gaps.push("how a disk's IOPS follow from what it is given".to_string());
        }
        if !row.throughput_rule_known() {
            gaps.push("how a disk's MiB/s follow from what it is given".to_string());
        }
        if let Some(name) = &row.throughput_by_size_as {
            if self.disk_type(name).is_err() {
                gaps.push(format!("the Persistent Disk type {name} its MiB/s follow"));
            }
        }
        if !self.vm_limits.iter().any(|l| l.disk_type == row.name) {
            gaps.push("per-VM limits by machine type".to_string());
        } else if !self
            .machine_types
            .iter()
            .any(|m| self.vm_limit(m, &row.name).is_some())
        {
            gaps.push("per-VM limits of any machine type in the catalog".to_string());
        }
        gaps
    }

    /// What a plan in `region` would need of provisioned type `row` and no table gives (the
    /// model's gaps and the region's prices): empty when it could be planned.
    pub fn planning_gaps(&self, row: &ProvisionedType, region: &str) -> Vec<String> {
        let mut gaps = self.model_gaps(row);
        let price = self.disk_price(&row.name, region);
        if price.is_none() {
            gaps.push(format!("capacity price per GiB-month in {region}"));
        }
        if row.bills("iops") && price.and_then(|p| p.price_per_iops_month).is_none() {
            gaps.push(format!("provisioned IOPS price per IOPS-month in {region}"));
        }
        if row.bills("throughput") && price.and_then(|p| p.price_per_mib_s_month).is_none() {
            gaps.push(format!(
                "provisioned throughput price per MiB/s-month in {region}"
            ));
        }
        gaps
    }

    /// The provisioned types a plan in `region` can use: every fact it needs is in the tables.
    pub fn plannable_provisioned(&self, region: &str) -> Vec<&ProvisionedType> {
        self.provisioned_types
            .iter()
            .filter(|row| self.planning_gaps(row, region).is_empty())
            .collect()
    }

    /// The table a row names.
    pub fn table(&self, id: &str) -> Option<&TableInfo> {
        self.tables.iter().find(|t| t.id == id)
    }

    /// The regions some price row names, sorted.
    pub fn priced_regions(&self) -> Vec<String> {
        let mut regions: Vec<String> = self
            .machine_prices
            .iter()
            .map(|p| p.region.clone())
            .collect();
        regions.sort();
        regions.dedup();
        regions
    }
}

fn check_machine_type(row: &GcpMachineType) -> Result<(), FieldProblem> {
    if row.name.trim().is_empty() {
        return Err(("name", "must not be empty".into()));
    }
    if row.family.trim().is_empty() {
        return Err(("family", "must not be empty; write n2, n2d, e2...".into()));
    }
    if row.vcpu == 0 {
        return Err(("vcpu", "must be at least 1".into()));
    }
    check_numbers(&[("memory_gib", Some(row.memory_gib.get()))])
}

fn check_disk_type(row: &PdType) -> Result<(), FieldProblem> {
    check_numbers(&[
        ("read_iops_per_gib", Some(row.read_iops_per_gib)),
        ("write_iops_per_gib", Some(row.write_iops_per_gib)),
        (
            "throughput_mib_s_per_gib",
            Some(row.throughput_mib_s_per_gib),
        ),
        ("baseline_iops", Some(row.baseline_iops.get())),
        ("baseline_mib_s", Some(row.baseline_mib_s.get())),
    ])?;
    if row.read_iops_per_gib <= 0.0 && row.write_iops_per_gib <= 0.0 {
        return Err((
            "read_iops_per_gib",
            "a disk type's performance grows with its size: give its IOPS per GiB".into(),
        ));
    }
    Ok(())
}

fn check_vm_limit(row: &VmPdLimit) -> Result<(), FieldProblem> {
    check_numbers(&[
        ("read_iops", Some(row.read_iops.get())),
        ("write_iops", Some(row.write_iops.get())),
        ("read_mib_s", Some(row.read_mib_s.get())),
        ("write_mib_s", Some(row.write_mib_s.get())),
    ])?;
    if row.vcpu_max.is_some_and(|max| max < row.vcpu_min) {
        return Err(("vcpu_max", "is below vcpu_min".into()));
    }
    Ok(())
}

fn check_price(region: &str, field: &'static str, value: f64) -> Result<(), FieldProblem> {
    if region.trim().is_empty() {
        return Err(("region", "must not be empty; write us-central1...".into()));
    }
    check_numbers(&[(field, Some(value))])
}

#[cfg(test)]
#[path = "gcp_tests.rs"]
mod tests;
