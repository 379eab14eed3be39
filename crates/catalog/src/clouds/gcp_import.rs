//! `iofit catalog import --gcp-machine-types FILE`: a Google Cloud catalog file from the output
//! of `gcloud compute machine-types list --format=json`: a JSON array of Compute Engine
//! `MachineType` resources (`name`, `guestCpus`, `memoryMb`, `maximumPersistentDisks`, `zone`,
//! `isSharedCpu`...). The list repeats a type once per zone: a type is written once, with the
//! zones it was seen in counted in the summary.
//!
//! The API does not state Persistent Disk limits or prices: an imported type gets the family
//! of its name (`n2` of `n2-standard-8`), so the built-in per-family limits apply to it, and a
//! plan leaves it out until a `[[machine_prices]]` row for it is added.

use super::gcp::GcpCatalog;
use crate::error::CatalogError;
use serde_json::Value;

/// The written file and what was kept and left out.
#[derive(Clone, Debug, PartialEq)]
pub struct GcpImport {
    pub toml: String,
    pub kept: Vec<String>,
    pub left_out: Vec<(String, String)>,
}

fn bad(file: &str, path: &str, problem: String) -> CatalogError {
    CatalogError::File {
        file: file.to_string(),
        problem: format!("{path}: {problem}"),
    }
}

/// A whole number >= `min` at `key`, or why not.
fn whole(file: &str, path: &str, item: &Value, key: &str, min: u64) -> Result<u64, CatalogError> {
    match item.get(key) {
        Some(Value::Number(n)) => match n.as_u64() {
            Some(x) if x >= min => Ok(x),
            _ => Err(bad(
                file,
                path,
                format!("key {key}: expected a whole number >= {min}, found {n}"),
            )),
        },
        None | Some(Value::Null) => Err(bad(file, path, format!("key {key} is missing"))),
        Some(other) => Err(bad(
            file,
            path,
            format!("key {key}: expected a whole number >= {min}, found {other}"),
        )),
    }
}

/// A kept type's name and row, or a left-out type's name and why.
type Row = Result<(String, String), (String, String)>;

/// One machine type's row, or why it is left out.
fn row(file: &str, index: usize, item: &Value) -> Result<Row, CatalogError> {
    let path = format!("$[{index}]");
    let name = item
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| {
            bad(
                file,
                &path,
                "key name: expected the machine type's name".into(),
            )
        })?
        .to_string();
    if item.get("isSharedCpu").and_then(Value::as_bool) == Some(true) {
        return Ok(Err((
            name,
            "shared-core (isSharedCpu): its Persistent Disk limits are not per vCPU".into(),
        )));
    }
    let vcpu = whole(file, &path, item, "guestCpus", 1)?;
    let memory_mb = whole(file, &path, item, "memoryMb", 1)?;
    let family = name.split('-').next().unwrap_or_default().to_string();
    let mut text = format!(
        "[[machine_types]]\nname = \"{name}\"\nfamily = \"{family}\"\nvcpu = {vcpu}\nmemory_gib = {}\n",
        memory_mb as f64 / 1024.0
    );
    if item.get("maximumPersistentDisks").is_some() {
        let disks = whole(file, &path, item, "maximumPersistentDisks", 1)?;
        text.push_str(&format!("max_persistent_disks = {disks}\n"));
    }
    Ok(Ok((name, text)))
}

/// Imports the `(file name, text)` inputs into one Google Cloud catalog file, checked to load.
pub fn import_machine_types(
    inputs: &[(String, String)],
    date: &str,
    table_id: Option<&str>,
) -> Result<GcpImport, CatalogError> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut left_out: Vec<(String, String)> = Vec::new();
    for (file, text) in inputs {
        let json: Value = serde_json::from_str(text).map_err(|e| CatalogError::Syntax {
            file: file.clone(),
            line: e.line(),
            message: format!(
                "{e}; expected the output of `gcloud compute machine-types list --format=json`"
            ),
        })?;
        let items = json.as_array().ok_or_else(|| {
            bad(
                file,
                "$",
                "expected a JSON array of machine types (gcloud compute machine-types list --format=json)".into(),
            )
        })?;
        for (index, item) in items.iter().enumerate() {
            match row(file, index, item)? {
                // The list repeats a type per zone: the first is kept (a type is the same in
                // every zone it is offered in).
                Ok((name, _)) if rows.iter().any(|(n, _)| *n == name) => {}
                Ok(kept) => rows.push(kept),
                Err(reason) if left_out.iter().any(|(n, _)| *n == reason.0) => {}
                Err(reason) => left_out.push(reason),
            }
        }
    }
    let id = table_id
        .map(str::to_string)
        .unwrap_or_else(|| format!("gcp-import-{date}"));
    let files: Vec<&str> = inputs.iter().map(|(f, _)| f.as_str()).collect();
    let mut toml = format!(
        "[table]\nid = \"{id}\"\nedition = \"current\"\ntitle = \"Compute Engine machine types imported from gcloud compute machine-types list\"\n\
         source = \"gcloud compute machine-types list --format=json: {}\"\ndate = \"{date}\"\n\
         notes = \"family is the name's first part (n2 of n2-standard-8): the built-in Persistent Disk limits of that family apply. Prices are not in the API output: add [[machine_prices]] rows for a plan to consider these types.\"\n\n",
        files.join(", ").replace('"', "'")
    );
    let texts: Vec<&str> = rows.iter().map(|(_, t)| t.as_str()).collect();
    toml.push_str(&texts.join("\n"));
    // The file must load as the planner will load it.
    GcpCatalog::default().add_text("imported file", &toml)?;
    Ok(GcpImport {
        toml,
        kept: rows.into_iter().map(|(n, _)| n).collect(),
        left_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-written sample in the documented shape of `gcloud compute machine-types list
    /// --format=json` (Compute Engine MachineType resources): one type in two zones, one more,
    /// one shared-core type.
    const SAMPLE: &str = r#"[
      {"kind": "compute#machineType", "name": "n2-standard-8", "description": "8 vCPUs, 32 GB RAM",
       "guestCpus": 8, "memoryMb": 32768, "imageSpaceGb": 0, "maximumPersistentDisks": 128,
       "maximumPersistentDisksSizeGb": "263168", "zone": "us-central1-a", "isSharedCpu": false},
      {"kind": "compute#machineType", "name": "n2-standard-8", "description": "8 vCPUs, 32 GB RAM",
       "guestCpus": 8, "memoryMb": 32768, "maximumPersistentDisks": 128,
       "zone": "us-central1-b", "isSharedCpu": false},
      {"kind": "compute#machineType", "name": "n2d-highmem-4", "description": "4 vCPUs, 32 GB RAM",
       "guestCpus": 4, "memoryMb": 32768, "maximumPersistentDisks": 128,
       "zone": "europe-west3-a", "isSharedCpu": false},
      {"kind": "compute#machineType", "name": "e2-small", "description": "2 vCPUs, 2 GB RAM",
       "guestCpus": 2, "memoryMb": 2048, "maximumPersistentDisks": 16,
       "zone": "us-central1-a", "isSharedCpu": true}
    ]"#;

    #[test]
    fn imports_the_documented_shape_once_per_type() {
        let inputs = vec![("types.json".to_string(), SAMPLE.to_string())];
        let imported = import_machine_types(&inputs, "2026-11-27", None).unwrap();
        assert_eq!(imported.kept, vec!["n2-standard-8", "n2d-highmem-4"]);
        assert_eq!(imported.left_out.len(), 1);
        assert!(imported.left_out[0].1.contains("shared-core"));
        let mut catalog = GcpCatalog::embedded().unwrap();
        catalog.add_text("imported", &imported.toml).unwrap();
        let highmem = catalog.machine_type("n2d-highmem-4").unwrap();
        assert_eq!(
            (highmem.vcpu, highmem.memory_gib),
            (4, iofit_model::units::GiB(32.0))
        );
        assert_eq!(highmem.max_persistent_disks, Some(128));
        // The family's built-in limits apply to the imported type: n2d, 2-7 vCPUs, pd-ssd.
        let limit = catalog.vm_limit(highmem, "pd-ssd").unwrap();
        assert_eq!(
            (limit.read_iops.get(), limit.read_mib_s.get()),
            (15_000.0, 240.0)
        );
        assert!(catalog
            .machine_price("n2d-highmem-4", "us-central1")
            .is_none());
        assert!(catalog.tables.last().unwrap().source.contains("types.json"));
    }

    #[test]
    fn bad_input_names_file_path_and_key() {
        let broken = SAMPLE.replacen("\"guestCpus\": 8,", "\"guestCpus\": \"eight\",", 1);
        let error = import_machine_types(&[("t.json".into(), broken)], "2026-11-27", None)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("t.json") && error.contains("$[0]") && error.contains("guestCpus"),
            "{error}"
        );
        let error = import_machine_types(
            &[("t.json".into(), "{\"items\": []}".into())],
            "2026-11-27",
            None,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("JSON array"), "{error}");
        let error = import_machine_types(&[("t.json".into(), "[".into())], "2026-11-27", None)
            .unwrap_err()
            .to_string();
        assert!(error.contains("t.json: line 1"), "{error}");
    }
}
