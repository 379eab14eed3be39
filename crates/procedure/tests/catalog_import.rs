//! `catalog import` as a library call: the written file loads, its date comes from the
//! injected time, and an existing file is never replaced without `allow_overwrite`.

use iofit_procedure::catalog_import::{import_catalog, ImportRequest};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/azure")
        .join(name)
}

fn request(output: PathBuf) -> ImportRequest {
    ImportRequest {
        skus: vec![data("list-skus-vms.json"), data("list-skus-disks.json")],
        prices: vec![data("retail-prices-westus3.json")],
        region: Some("westus3".into()),
        output: Some(output),
        table_id: None,
        allow_overwrite: false,
        // 2026-01-02T00:00:00Z
        unix_seconds: iofit_model::units::UnixSeconds(1_767_312_000),
    }
}

#[test]
fn the_written_file_loads_and_is_dated_by_the_injected_clock() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("westus3.toml");
    let outcome = import_catalog(&request(output.clone())).unwrap();
    let written = std::fs::read_to_string(&output).unwrap();
    assert_eq!(written, outcome.imported.toml);
    assert!(written.contains("2026-01-02"), "dated by the injected time");
    assert!(outcome.imported.vm_rows > 0);
    let catalog = iofit_catalog::Catalog::embedded_with_files(&[&output]).unwrap();
    assert!(catalog.tables.iter().any(|t| t.id.contains("westus3")));
    assert!(outcome
        .summary()
        .starts_with(&format!("wrote {}", output.display())));
}

#[test]
fn an_existing_output_is_kept_without_allow_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("mine.toml");
    std::fs::write(&output, "precious").unwrap();
    let error = import_catalog(&request(output.clone())).unwrap_err();
    assert!(error.is_bad_input());
    assert!(error.to_string().contains("--allow-overwrite"), "{error}");
    assert_eq!(std::fs::read_to_string(&output).unwrap(), "precious");
    let replaced = ImportRequest {
        allow_overwrite: true,
        ..request(output.clone())
    };
    import_catalog(&replaced).unwrap();
    assert_ne!(std::fs::read_to_string(&output).unwrap(), "precious");
}

#[test]
fn missing_region_or_skus_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let no_region = ImportRequest {
        region: None,
        ..request(dir.path().join("x.toml"))
    };
    assert!(import_catalog(&no_region).unwrap_err().is_bad_input());
    let no_skus = ImportRequest {
        skus: vec![],
        ..request(dir.path().join("x.toml"))
    };
    let error = import_catalog(&no_skus).unwrap_err();
    assert!(error.to_string().contains("--skus"), "{error}");
    assert!(!dir.path().join("x.toml").exists());
}
