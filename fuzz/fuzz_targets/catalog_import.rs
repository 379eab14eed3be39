//! `iofit catalog import`: list-skus JSON and a Retail Prices page (the input split at its
//! first NUL byte) into catalog TOML; what it writes must load as a catalog file.
#![no_main]
use iofit_catalog::import::{import, Input, Options};
use iofit_catalog::Catalog;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The embedded catalog, loaded once (it takes longer than an import).
fn base() -> &'static Catalog {
    static BASE: OnceLock<Catalog> = OnceLock::new();
    BASE.get_or_init(|| Catalog::embedded().expect("embedded catalog loads"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (skus, prices) = text.split_once('\0').unwrap_or((text, ""));
    let options = Options {
        region: "eastus".into(),
        date: "2026-01-01".into(),
        table_id: None,
    };
    let price_inputs: Vec<Input> = if prices.is_empty() {
        vec![]
    } else {
        vec![Input::new("prices.json", prices)]
    };
    match import(&[Input::new("skus.json", skus)], &price_inputs, &options) {
        Ok(imported) => {
            let mut catalog = base().clone();
            if let Err(error) = catalog.load_str("imported.toml", &imported.toml) {
                panic!("import wrote a file that does not load: {error}");
            }
        }
        Err(error) => assert!(!error.to_string().contains('\n'), "{error}"),
    }
});
