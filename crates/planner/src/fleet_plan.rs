//! What planning a fleet of servers gives: each server's cheapest design as one table row, the
//! servers that failed (with the failure type of the crate that planned them, `iofit_fleet`),
//! and totals. Plain data, here rather than in `iofit_fleet` so that `iofit_report` renders it
//! without depending on a crate that reads captures.

use iofit_predict::Binding;

/// One volume of a server's cheapest design.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FleetVolume {
    pub label: String,
    pub disk_count: u32,
    pub disk_sku: String,
}

/// One server's cheapest design.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct FleetRow {
    pub server: String,
    pub volumes: usize,
    pub vm: String,
    pub disks: Vec<FleetVolume>,
    pub price_per_month: Option<f64>,
    /// The limit that caps the design first (`None`: nothing binds).
    pub binding: Option<Binding>,
    /// Room left under that limit at the sized load, percent of the limit.
    pub headroom_pct: Option<f64>,
}

/// A server with no row, and why: `failure` is the producer's typed failure (`iofit_fleet`'s
/// `ServerFailure`), whose `Display` is the one line the table shows.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FailedServer<Failure> {
    pub server: String,
    pub failure: Failure,
}

/// The fleet's table, the servers that failed, and totals.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FleetPlan<Failure> {
    pub rows: Vec<FleetRow>,
    /// Bad captures, unreadable requirements, requirements no design meets.
    pub failed: Vec<FailedServer<Failure>>,
    /// ISO 4217 code of every cost (`price_per_month` and `total_price_per_month` hold
    /// amounts in it); empty reads as USD.
    pub currency: String,
    /// What the plan's choices did: prices used and missing, VM sizes left out and why
    /// (per server where servers differ, as PerfMon captures plan x64 sizes only).
    pub notes: Vec<crate::PlanNote>,
    pub total_price_per_month: f64,
    /// Servers whose cost is not in the total (a price the catalog does not source).
    pub unpriced: usize,
    pub total_volumes: usize,
}

// By hand: a derived `Default` would ask the failure type for one, which an empty plan needs not.
impl<Failure> Default for FleetPlan<Failure> {
    fn default() -> Self {
        FleetPlan {
            rows: Vec::new(),
            failed: Vec::new(),
            currency: String::new(),
            notes: Vec::new(),
            total_price_per_month: 0.0,
            unpriced: 0,
            total_volumes: 0,
        }
    }
}
