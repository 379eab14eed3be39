//! Requirements TOML as `plan` and `compare` read it: deserialised, validated (model and
//! planner), and, when valid and small, planned over the embedded catalog. Any input either
//! plans or gives a one-line error; no number in it makes the planner panic.
#![no_main]
use iofit_catalog::{Catalog, EDITION_CURRENT};
use iofit_model::requirements::Requirements;
use iofit_planner::{plan, CatalogRows, PlanOptions};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn rows() -> &'static CatalogRows {
    static ROWS: OnceLock<CatalogRows> = OnceLock::new();
    ROWS.get_or_init(|| {
        let catalog = Catalog::embedded().expect("embedded catalog loads");
        iofit_procedure::inputs::rows_for(&catalog, EDITION_CURRENT)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(requirements) = toml::from_str::<Requirements>(text) else {
        return;
    };
    if let Err(error) = requirements.validate() {
        assert!(!error.to_string().contains('\n'), "{error}");
        return;
    }
    if let Err(error) = iofit_planner::validate(&requirements) {
        assert!(!error.to_string().contains('\n'), "{error}");
        return;
    }
    if requirements.volumes.len() <= 8 {
        if let Err(error) = plan(&requirements, rows(), &PlanOptions::default()) {
            assert!(!error.to_string().contains('\n'), "{error}");
        }
    }
});
