//! Google Cloud disk types whose performance is provisioned per disk instead of following the
//! VM's total GiB: pd-extreme and Hyperdisk Balanced, Extreme and Throughput. Each row holds
//! the rules Google states for one type (size range, IOPS and MiB/s a disk may be given, what
//! comes included, what one unit of IOPS brings in MiB/s) with the source of every fact; a
//! rule nobody could source stays out of the row.
//!
//! Such a type is planned only when everything a plan needs is sourced: its per-VM limits
//! (`[[vm_limits]]` rows naming the type), its capacity price and the price of each unit it
//! bills (`[[disk_prices]]` of the region). [`super::gcp::GcpCatalog::planning_gaps`] names
//! what is missing, so a plan can say why the type was left out.

use crate::clouds::aws::{check_numbers, FieldProblem};
use iofit_model::units::{GiB, Iops, MiBps};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a provisioned type bills besides nothing: Google's SKUs `<type> Capacity`,
/// `<type> IOPS`, `<type> Throughput` (Cloud Billing Catalog descriptions).
pub const BILLED_UNITS: [&str; 3] = ["capacity", "iops", "throughput"];

/// One provisioned disk type's per-disk rules, each `None` when not sourced.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvisionedType {
    pub name: String,
    #[serde(default)]
    pub table: String,
    /// Where each fact of the row was read, with the date read.
    pub source: String,
    /// What Google bills for it: some of `capacity`, `iops`, `throughput`.
    pub bills: Vec<String>,
    pub size_min_gib: Option<GiB>,
    pub size_max_gib: Option<GiB>,
    /// IOPS one disk may be given.
    pub iops_min: Option<f64>,
    pub iops_max: Option<f64>,
    /// IOPS one disk may be given per GiB of its size.
    pub iops_min_per_gib: Option<f64>,
    pub iops_max_per_gib: Option<f64>,
    /// MiB/s one disk may be given.
    pub mib_s_min: Option<f64>,
    pub mib_s_max: Option<f64>,
    /// Least MiB/s per TiB of size (Hyperdisk Throughput).
    pub mib_s_min_per_tib: Option<f64>,
    /// IOPS and MiB/s every disk has without being billed for them (Hyperdisk Balanced).
    pub included_iops: Option<Iops>,
    pub included_mib_s: Option<MiBps>,
    /// MiB/s that come with each 1,000 provisioned IOPS (Hyperdisk Extreme).
    pub mib_s_per_1000_iops: Option<f64>,
    /// IOPS that come with each provisioned MiB/s (Hyperdisk Throughput).
    pub iops_per_mib_s: Option<f64>,
    /// The least vCPUs a machine of a family needs to take the type (`c3 = 88`).
    #[serde(default)]
    pub vcpu_min_by_family: BTreeMap<String, u32>,
    /// A Persistent Disk type whose by-size throughput rule (baseline + MiB/s per GiB of the
    /// type attached) gives this type's MiB/s: pd-extreme as Google's gcpdiag computes it.
    pub throughput_by_size_as: Option<String>,
    /// Rules Google states the type has and no source gave (`IOPS bounds by size`): a type
    /// with one is not planned, since a disk sized without the rule might not be one Google
    /// would create.
    #[serde(default)]
    pub unsourced_rules: Vec<String>,
}

impl ProvisionedType {
    /// Whether Google bills the type by `unit` (`capacity`, `iops`, `throughput`).
    pub fn bills(&self, unit: &str) -> bool {
        self.bills.iter().any(|b| b == unit)
    }

    /// Whether a disk's IOPS follow from what it is given (provisioned, or per MiB/s).
    pub fn iops_rule_known(&self) -> bool {
        self.bills("iops") || self.iops_per_mib_s.is_some()
    }

    /// Whether a disk's MiB/s follow from what it is given (provisioned, per 1,000 IOPS, or
    /// by size as a Persistent Disk type).
    pub fn throughput_rule_known(&self) -> bool {
        self.bills("throughput")
            || self.mib_s_per_1000_iops.is_some()
            || self.throughput_by_size_as.is_some()
    }
}

/// Checks one row: numbers finite and not negative, ranges in order, a source, known units.
pub(crate) fn check_provisioned(row: &ProvisionedType) -> Result<(), FieldProblem> {
    if row.name.trim().is_empty() {
        return Err(("name", "must not be empty".into()));
    }
    if row.source.trim().is_empty() {
        return Err((
            "source",
            "must name where the row's facts were read and when".into(),
        ));
    }
    if let Some(unit) = row
        .bills
        .iter()
        .find(|u| !BILLED_UNITS.contains(&u.as_str()))
    {
        return Err((
            "bills",
            format!("unknown unit '{unit}'; write some of capacity, iops, throughput"),
        ));
    }
    if row.unsourced_rules.iter().any(|r| r.trim().is_empty()) {
        return Err((
            "unsourced_rules",
            "an entry is empty; name the rule no source gave".into(),
        ));
    }
    check_numbers(&[
        ("size_min_gib", row.size_min_gib.map(|gib| gib.get())),
        ("size_max_gib", row.size_max_gib.map(|gib| gib.get())),
        ("iops_min", row.iops_min),
        ("iops_max", row.iops_max),
        ("iops_min_per_gib", row.iops_min_per_gib),
        ("iops_max_per_gib", row.iops_max_per_gib),
        ("mib_s_min", row.mib_s_min),
        ("mib_s_max", row.mib_s_max),
        ("mib_s_min_per_tib", row.mib_s_min_per_tib),
        ("included_iops", row.included_iops.map(Iops::get)),
        ("included_mib_s", row.included_mib_s.map(MiBps::get)),
        ("mib_s_per_1000_iops", row.mib_s_per_1000_iops),
        ("iops_per_mib_s", row.iops_per_mib_s),
    ])?;
    for (low, high, field) in [
        (
            row.size_min_gib.map(|gib| gib.get()),
            row.size_max_gib.map(|gib| gib.get()),
            "size_max_gib",
        ),
        (row.iops_min, row.iops_max, "iops_max"),
        (
            row.iops_min_per_gib,
            row.iops_max_per_gib,
            "iops_max_per_gib",
        ),
        (row.mib_s_min, row.mib_s_max, "mib_s_max"),
    ] {
        if let (Some(low), Some(high)) = (low, high) {
            if high < low {
                return Err((field, format!("{high} is below its minimum {low}")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_with_its_range_upside_down_or_an_unknown_unit_is_refused() {
        let row = ProvisionedType {
            name: "hd".into(),
            source: "s".into(),
            bills: vec!["capacity".into()],
            iops_min: Some(500.0),
            iops_max: Some(100.0),
            ..Default::default()
        };
        assert_eq!(check_provisioned(&row).unwrap_err().0, "iops_max");
        let row = ProvisionedType {
            bills: vec!["ops".into()],
            iops_max: None,
            ..row
        };
        let (field, problem) = check_provisioned(&row).unwrap_err();
        assert_eq!(field, "bills");
        assert!(problem.contains("'ops'"), "{problem}");
        let row = ProvisionedType {
            bills: vec!["iops".into()],
            source: " ".into(),
            ..row
        };
        assert_eq!(check_provisioned(&row).unwrap_err().0, "source");
    }
}
