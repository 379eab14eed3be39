//! What the planning commands and the demo derive from a catalog edition: its rows and the
//! prediction assumptions that go with it.

use crate::error::shown;
use crate::ProcedureError;
use iofit_catalog::{Catalog, EDITION_CURRENT, EDITION_SEED};
use iofit_model::units::Millis;
use iofit_planner::CatalogRows;
use iofit_predict::{Assumptions, MbConvention};

/// The rows of one edition. NetApp levels exist only in the current edition.
pub fn rows_for(catalog: &Catalog, edition: &str) -> CatalogRows {
    CatalogRows {
        vms: catalog.vms_in(edition).cloned().collect(),
        disks: catalog.disks_in(edition).cloned().collect(),
        provisioned: catalog.provisioned_in(edition).cloned().collect(),
        netapp: if edition == EDITION_CURRENT {
            catalog
                .netapp
                .iter()
                .filter(|level| catalog.edition_of(&level.table) == Some(EDITION_CURRENT))
                .cloned()
                .collect()
        } else {
            Vec::new()
        },
    }
}

/// The longest service time a user may assume: a second per IO is slower than any disk.
pub const MAX_SERVICE_LATENCY_MS: f64 = 1000.0;

/// Prediction assumptions for an edition (the seed counts 1 MB = 1024 KB), with the
/// `--service-latency-ms` and `--cache-hit-pct` the user gave.
pub fn assumptions_for(
    edition: &str,
    service_latency_ms: Option<Millis>,
    cache_hit_pct: f64,
) -> Result<Assumptions, ProcedureError> {
    let mut assumptions = Assumptions {
        cache_hit_pct,
        mb: if edition == EDITION_SEED {
            MbConvention::Binary
        } else {
            MbConvention::Decimal
        },
        ..Assumptions::default()
    };
    if let Some(latency) = service_latency_ms.map(|ms| ms.get()) {
        if !(latency > 0.0 && latency <= MAX_SERVICE_LATENCY_MS) {
            return Err(ProcedureError::BadInput(format!(
                "--service-latency-ms {}: must be a number of milliseconds above 0 and at most {MAX_SERVICE_LATENCY_MS}",
                shown(latency)
            )));
        }
        assumptions.service_latency_ms = Millis(latency);
        assumptions.service_latency_source = "given with --service-latency-ms".into();
        assumptions.standard_ssd_latency_ms = Millis(latency);
        assumptions.standard_ssd_latency_source = "given with --service-latency-ms".into();
    }
    if !(0.0..=100.0).contains(&cache_hit_pct) {
        return Err(ProcedureError::BadInput(format!(
            "--cache-hit-pct {}: must be within 0..=100",
            shown(cache_hit_pct)
        )));
    }
    Ok(assumptions)
}
