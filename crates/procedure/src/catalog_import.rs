//! `iofit catalog import`: reads `az vm list-skus` outputs and Retail Prices API pages, turns
//! them into a catalog file for one region ([`iofit_catalog::import`]), checks that the file
//! loads over the embedded catalog as `plan` will load it, and writes it whole or not at all.
//! The day of the import is an input (`unix_seconds`), so the written table is deterministic.

use crate::ProcedureError;
use iofit_catalog::import::{date_of_unix_seconds, import, Imported, Input, Options};
use iofit_catalog::Catalog;
use iofit_model::units::UnixSeconds;
use std::path::{Path, PathBuf};

/// A list-skus output of every region is tens of MB; a cap well above that stops a device or
/// a runaway file from being read until memory runs out.
pub const IMPORT_INPUT_BYTES: u64 = 512 << 20;

/// What to import and where to write it.
#[derive(Clone, Debug, Default)]
pub struct ImportRequest {
    pub skus: Vec<PathBuf>,
    pub prices: Vec<PathBuf>,
    pub region: Option<String>,
    pub output: Option<PathBuf>,
    pub table_id: Option<String>,
    /// Replace `output` when it exists.
    pub allow_overwrite: bool,
    /// The time of the import (seconds since 1970): the table's date.
    pub unix_seconds: UnixSeconds,
}

/// What was written.
#[derive(Clone, Debug)]
pub struct ImportOutcome {
    pub output: PathBuf,
    pub region: String,
    pub imported: Imported,
}

impl ImportOutcome {
    /// What `iofit catalog import` prints: what was written, left out and skipped.
    pub fn summary(&self) -> String {
        iofit_report::catalog_listing::import_summary(&self.output, &self.region, &self.imported)
    }
}

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Imports, checks and writes the catalog file `request.output`.
pub fn import_catalog(request: &ImportRequest) -> Result<ImportOutcome, ProcedureError> {
    let (Some(region), Some(output)) = (&request.region, &request.output) else {
        return Err(bad(
            "give --region REGION and -o FILE, e.g. `iofit catalog import --skus skus.json \
             --prices prices.json --region eastus -o eastus.toml`",
        ));
    };
    if request.skus.is_empty() {
        return Err(bad(
            "give --skus FILE: the output of `az vm list-skus --location REGION --output json`",
        ));
    }
    let sku_texts = read_all(&request.skus)?;
    let price_texts = read_all(&request.prices)?;
    let options = Options {
        region: region.clone(),
        date: date_of_unix_seconds(request.unix_seconds.get()),
        table_id: request.table_id.clone(),
        currency: None,
    };
    let imported = import(
        &inputs(&request.skus, &sku_texts),
        &inputs(&request.prices, &price_texts),
        &options,
    )
    .map_err(|e| bad(e.to_string()))?;
    // The file must load as the plan will load it (over the embedded catalog).
    Catalog::embedded()
        .map_err(|e| ProcedureError::Internal(e.to_string()))?
        .load_str(&output.display().to_string(), &imported.toml)
        .map_err(|e| bad(e.to_string()))?;
    write_new_file(output, &imported.toml, request.allow_overwrite)?;
    Ok(ImportOutcome {
        output: output.clone(),
        region: region.clone(),
        imported,
    })
}

fn read_all(paths: &[PathBuf]) -> Result<Vec<String>, ProcedureError> {
    paths
        .iter()
        .map(|path| {
            iofit_safefs::input::read_capped_string(path, IMPORT_INPUT_BYTES, "import input")
                .map_err(ProcedureError::from)
        })
        .collect()
}

fn inputs<'a>(paths: &[PathBuf], texts: &'a [String]) -> Vec<Input<'a>> {
    paths
        .iter()
        .zip(texts)
        .map(|(p, t)| Input::new(p.display().to_string(), t))
        .collect()
}

/// Writes `text` to `path` whole or not at all. An existing file is replaced only with
/// `--allow-overwrite`: iofit never destroys data it did not make.
pub(crate) fn write_new_file(
    path: &Path,
    text: &str,
    allow_overwrite: bool,
) -> Result<(), ProcedureError> {
    if path.exists() && !allow_overwrite {
        return Err(bad(format!(
            "-o {}: exists; choose another name or add --allow-overwrite",
            path.display()
        )));
    }
    iofit_safefs::atomic::write_atomic(path, text.as_bytes()).map_err(|source| {
        ProcedureError::WriteResults {
            path: path.to_path_buf(),
            source,
        }
    })
}
