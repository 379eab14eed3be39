//! `--disk` specs as predict, emulate and compare take them
//! (`[LABEL=]COUNTxSKU[:CACHING][,size_gib=N,iops=N,mb_s=N]`), resolved against the embedded
//! catalog. Never a panic, and an error is one line.
#![no_main]
use iofit_catalog::{Catalog, EDITION_CURRENT};
use iofit_predict::disk_spec::{resolve_volume, Bought};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

static CATALOG: OnceLock<Catalog> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    let catalog = CATALOG.get_or_init(|| Catalog::embedded().expect("the embedded catalog"));
    if let Err(error) = resolve_volume(catalog, EDITION_CURRENT, spec, 0, Bought::default()) {
        // One line, unless the spec itself holds a line break (it is quoted in the message).
        assert!(spec.contains('\n') || !error.to_string().contains('\n'), "{error}");
    }
});
