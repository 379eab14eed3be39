//! How often a deployment ran at an Azure limit: the consumed-percentage metrics of a capture
//! read as shares of the time at each limit. The capture holds this verdict and the Azure
//! Monitor reader makes it, so it lives apart from both.

/// A consumed percentage at or above this counts as throttled for the interval. Microsoft's
/// SQL Server on Azure VM guidance alerts on ">= 95% in a consecutive 5-minute period" of the
/// VM/disk consumed-percentage metrics ("Performance guidelines ... collect baseline",
/// learn.microsoft.com/azure/azure-sql/virtual-machines/windows/performance-guidelines-best-practices-collect-baseline, read 2026-11-22).
pub const THROTTLED_AT_PCT: f64 = 95.0;

/// A limit Azure reports a consumed percentage of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AzureLimit {
    VmCachedIops,
    VmCachedBandwidth,
    VmUncachedIops,
    VmUncachedBandwidth,
    DiskIops,
    DiskBandwidth,
}

impl AzureLimit {
    pub fn words(self) -> &'static str {
        match self {
            AzureLimit::VmCachedIops => "VM cached IOPS",
            AzureLimit::VmCachedBandwidth => "VM cached bandwidth",
            AzureLimit::VmUncachedIops => "VM uncached IOPS",
            AzureLimit::VmUncachedBandwidth => "VM uncached bandwidth",
            AzureLimit::DiskIops => "disk IOPS",
            AzureLimit::DiskBandwidth => "disk bandwidth",
        }
    }

    /// A VM-level limit (moving to a bigger VM removes it) rather than a disk's.
    pub fn is_vm(self) -> bool {
        !matches!(self, AzureLimit::DiskIops | AzureLimit::DiskBandwidth)
    }
}

/// How often one limit was reached.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LimitShare {
    pub limit: AzureLimit,
    /// `VM`, `LUN 0`, `OS disk`.
    pub scope: String,
    /// Intervals with a value.
    pub intervals: usize,
    /// Intervals whose average consumed % was at least [`THROTTLED_AT_PCT`].
    pub throttled_intervals: usize,
    pub throttled_share_pct: f64,
    /// Average consumed % over the capture, and its highest interval average.
    pub average_consumed_pct: f64,
    pub max_consumed_pct: f64,
}

/// Which limits the deployment hits and for what share of the time, busiest first.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Verdict {
    pub limits: Vec<LimitShare>,
    pub interval_s: Option<iofit_model::units::Seconds>,
}

impl Verdict {
    /// The limit hit most often, if any was hit at all.
    pub fn binding(&self) -> Option<&LimitShare> {
        self.limits.first().filter(|l| l.throttled_intervals > 0)
    }

    /// One line per limit, for the checklist.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.binding() {
            Some(b) => out.push(format!(
                "throttled by {} ({}): at >= {THROTTLED_AT_PCT} % of the limit in {} of {} \
                 intervals ({:.1} % of the time)",
                b.limit.words(),
                b.scope,
                b.throttled_intervals,
                b.intervals,
                b.throttled_share_pct
            )),
            None => out.push(format!(
                "not throttled: no consumed-percentage metric reached {THROTTLED_AT_PCT} %"
            )),
        }
        for l in &self.limits {
            out.push(format!(
                "{:<24} {:<8} at the limit {:>5.1} % of the time; consumed avg {:>5.1} %, max {:>5.1} %",
                l.limit.words(),
                l.scope,
                l.throttled_share_pct,
                l.average_consumed_pct,
                l.max_consumed_pct
            ));
        }
        out
    }
}
