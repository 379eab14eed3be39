//! A design's limits as compare matches them to metrics (and as the report's charts draw them).

use serde::{Deserialize, Serialize};

/// What a limit belongs to; compare uses it to tell a VM cap from a disk cap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitScope {
    Vm,
    Disk,
    /// The host cache's own per-VM limits.
    Cache,
    /// A NetApp or other volume-level limit.
    Volume,
    /// The workload's own requirement drawn alongside the limits.
    Requirement,
    #[default]
    Other,
}

/// One limit of a design, as any caller (predict, plan, demo) can feed the report:
/// `LimitBar::new("VM uncached IOPS", 50_000.0, "IOPS", true).scope(LimitScope::Vm)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitBar {
    pub name: String,
    pub value: f64,
    /// "IOPS" or "MB/s" (compare matches limits to metrics by this unit).
    pub unit: String,
    /// True for the limit that caps the design (the smallest that applies).
    pub binding: bool,
    #[serde(default)]
    pub scope: LimitScope,
    /// What the design uses of it at its operating point, when known: drawn inside the bar.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used: Option<f64>,
}

impl LimitBar {
    pub fn new(
        name: impl Into<String>,
        value: f64,
        unit: impl Into<String>,
        binding: bool,
    ) -> Self {
        LimitBar {
            name: name.into(),
            value,
            unit: unit.into(),
            binding,
            scope: LimitScope::Other,
            used: None,
        }
    }

    /// The part of the limit the design uses.
    pub fn with_used(mut self, used: f64) -> Self {
        self.used = Some(used);
        self
    }

    pub fn scope(mut self, scope: LimitScope) -> Self {
        self.scope = scope;
        self
    }

    /// What the bar is, for a table's last column: "binding", "requirement" or "".
    pub fn role_text(&self) -> &'static str {
        if self.binding {
            "binding"
        } else if self.scope == LimitScope::Requirement {
            "requirement"
        } else {
            ""
        }
    }
}

/// The rate limits of a prediction as bars: every published IOPS and MB/s limit that caps
/// sustained load (VM, host cache, volume, disk, queue depth), the binding one marked. Yes/no
/// checks, burst allowances and unpublished limits are left out; the prediction's own text
/// lists them.
pub fn limit_bars_from_prediction(prediction: &iofit_predict::Prediction) -> Vec<LimitBar> {
    use iofit_predict::{LimitKind, LimitStatus, LimitUnit, MbConvention};
    prediction
        .limits
        .iter()
        .filter(|check| check.kind.caps_sustained_rate())
        .filter_map(|check| {
            let unit = match (check.unit, prediction.assumptions.mb) {
                (LimitUnit::Iops, _) => "IOPS",
                (LimitUnit::MbPerSecond, MbConvention::Decimal) => "MB/s",
                // The seed's "MB" is 2^20 bytes; say so in the unit, keep its number.
                (LimitUnit::MbPerSecond, MbConvention::Binary) => "MiB/s",
                _ => return None,
            };
            let scope = match check.kind {
                LimitKind::VmUncachedIops | LimitKind::VmUncachedThroughput => LimitScope::Vm,
                LimitKind::VmCachedIops | LimitKind::VmCachedThroughput => LimitScope::Cache,
                LimitKind::DiskIops
                | LimitKind::DiskThroughput
                | LimitKind::VolumeIops
                | LimitKind::VolumeThroughput => LimitScope::Disk,
                _ => LimitScope::Other,
            };
            // A volume's limit says which volume: "per disk P30 IOPS" alone does not.
            let name = if check.scope == "vm" {
                check.name.clone()
            } else {
                format!("{}: {}", check.scope, check.name)
            };
            let bar = LimitBar::new(
                name,
                check.limit?,
                unit,
                check.status == LimitStatus::Binding,
            )
            .scope(scope);
            // A load the unpublished limits leave unknown is not drawn as a number.
            Some(if check.load_unknown {
                bar
            } else {
                bar.with_used(check.used)
            })
        })
        .collect()
}
