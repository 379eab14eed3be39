//! A `--catalog FILE` (catalog TOML) loaded over the embedded catalog.
#![no_main]
use iofit_catalog::Catalog;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn base() -> &'static Catalog {
    static BASE: OnceLock<Catalog> = OnceLock::new();
    BASE.get_or_init(|| Catalog::embedded().expect("embedded catalog loads"))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut catalog = base().clone();
    if let Err(error) = catalog.load_str("fuzz.toml", text) {
        assert!(!error.to_string().contains('\n'), "{error}");
    }
});
