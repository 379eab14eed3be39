//! `iofit catalog vms|disks|netapp|tables` apart from the command line: what the catalog knows
//! (the built-in tables plus `--catalog` files), each listing naming its tables and their
//! sources ([`iofit_report::catalog_listing`]); and the checks of which flags go with which
//! `catalog` subcommand.

use crate::ProcedureError;
use iofit_catalog::Catalog;
use iofit_report::catalog_listing::{listing, ListingQuery};
use std::path::PathBuf;

type Result<T> = std::result::Result<T, ProcedureError>;

fn bad(message: impl Into<String>) -> ProcedureError {
    ProcedureError::BadInput(message.into())
}

/// Import's flags (`--skus`, `--prices`, `--region`, `-o`, `--aws-instance-types`) belong to
/// `catalog import` and `catalog fetch` only.
pub fn check_import_flags(given: bool, import_or_fetch: bool) -> Result<()> {
    if given && !import_or_fetch {
        return Err(bad(
            "--skus, --prices, --region and -o belong to `iofit catalog import` (--region and \
             -o also to `iofit catalog fetch`)",
        ));
    }
    Ok(())
}

/// `catalog fetch` reads the Retail Prices API itself: saved pages are import's.
pub fn check_fetch_flags(skus_or_prices: bool) -> Result<()> {
    if skus_or_prices {
        return Err(bad(
            "--skus and --prices belong to `iofit catalog import`; `catalog fetch` reads the \
             Retail Prices API itself",
        ));
    }
    Ok(())
}

/// The listing `query` asks for, from the built-in catalog plus `files`.
pub fn list_catalog(files: &[PathBuf], query: &ListingQuery) -> Result<String> {
    // The built-in files are tested to load, so any error here comes from a --catalog file.
    let catalog = Catalog::embedded_with_files(files).map_err(|e| bad(e.to_string()))?;
    listing(&catalog, query).map_err(|e| {
        if e.is_bad_input() {
            bad(e.to_string())
        } else {
            ProcedureError::Internal(e.to_string())
        }
    })
}

/// Seconds since the Unix epoch now: the date an imported or fetched table carries.
pub fn unix_seconds_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_report::catalog_listing::ListingKind;

    fn query(kind: ListingKind) -> ListingQuery {
        ListingQuery {
            kind,
            edition: None,
            filter: Some("DS14".into()),
            min_vcpu: None,
            json: false,
        }
    }

    #[test]
    fn a_filtered_listing_shows_the_rows_that_match() {
        let text = list_catalog(&[], &query(ListingKind::Vms)).unwrap();
        assert!(text.to_lowercase().contains("ds14"), "{text}");
        assert!(!text.contains("Standard_D2s_v5"), "{text}");
    }

    #[test]
    fn flags_of_another_subcommand_are_bad_input() {
        let min_vcpu = ListingQuery {
            min_vcpu: Some(4),
            ..query(ListingKind::Disks)
        };
        let error = list_catalog(&[], &min_vcpu).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().starts_with("--min-vcpu"));
        let error = check_import_flags(true, false).unwrap_err();
        assert!(error.is_bad_input() && error.to_string().contains("catalog import"));
        assert!(check_import_flags(true, true).is_ok() && check_import_flags(false, false).is_ok());
        assert!(check_fetch_flags(true)
            .unwrap_err()
            .to_string()
            .starts_with("--skus and --prices"));
        assert!(check_fetch_flags(false).is_ok());
        let missing = list_catalog(
            &[PathBuf::from("/nonexistent/extra.toml")],
            &query(ListingKind::Vms),
        )
        .unwrap_err();
        assert!(missing.is_bad_input() && missing.to_string().contains("extra.toml"));
    }
}
