//! One reader for the `--disk` specs that `predict` and `emulate` both take:
//! `[LABEL=]COUNTxSKU[:CACHING][,size_gib=N,iops=N,mb_s=N]`. A fixed SKU (P30, E30) brings its
//! own limits; a provisioned type (Premium SSD v2, Ultra) needs what is bought per disk, from
//! the spec itself or from defaults the caller has (predict's `--provisioned-*` flags).
//!
//! ```
//! use iofit_predict::disk_spec::{resolve_volume, Bought};
//! let catalog = iofit_catalog::Catalog::embedded().unwrap();
//! let edition = iofit_catalog::EDITION_CURRENT;
//! let (design, disk) =
//!     resolve_volume(&catalog, edition, "data=2xPremiumV2,size_gib=64,iops=4000,mb_s=150", 0, Bought::default())
//!         .unwrap();
//! assert_eq!((design.label.as_str(), design.disk_count), ("data", 2));
//! assert_eq!(disk.iops.get(), 4000.0);
//! ```

use crate::DiskPerf;
use iofit_catalog::Catalog;
use iofit_model::units::{GiB, Iops, MBps};
use iofit_model::VolumeDesign;

/// A `--disk` spec that cannot be used; the message names the spec and what to write.
#[derive(Debug, thiserror::Error)]
#[error("--disk '{spec}': {reason}")]
pub struct DiskSpecError {
    pub spec: String,
    pub reason: String,
    /// A provisioned type without all of size, IOPS and MB/s: a caller with other ways to
    /// give them (predict's `--provisioned-*` flags) can say so.
    pub missing_figures: bool,
}

/// Size, IOPS and MB/s bought per disk of a provisioned type; `None` where not given.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bought {
    pub size_gib: Option<GiB>,
    pub iops: Option<Iops>,
    pub mb_s: Option<MBps>,
}

/// The volume design and disk row of spec number `index` (0-based; the default label is
/// `vol{index+1}`). Figures in the spec win over `defaults`.
pub fn resolve_volume(
    catalog: &Catalog,
    edition: &str,
    spec: &str,
    index: usize,
    defaults: Bought,
) -> Result<(VolumeDesign, DiskPerf), DiskSpecError> {
    let error = |reason: String| DiskSpecError {
        spec: spec.to_string(),
        missing_figures: reason.starts_with(MISSING_FIGURES),
        reason,
    };
    let (label, rest) = match spec.split_once('=') {
        // A label comes before the first '=' and holds no ',' (`1xPremiumV2,size_gib=64` has none).
        Some((label, rest)) if !label.contains(',') => {
            if !valid_label(label) {
                return Err(error(format!(
                    "label '{label}' must be 1-32 letters, digits, '-' or '_'"
                )));
            }
            (label.to_string(), rest)
        }
        _ => (format!("vol{}", index + 1), spec),
    };
    let (design_text, figures) = match rest.split_once(',') {
        Some((design, figures)) => (design, Some(figures)),
        None => (rest, None),
    };
    let mut design: VolumeDesign = design_text
        .parse()
        .map_err(|e: iofit_model::design::DiskSpecError| error(e.to_string()))?;
    design.label = label;
    let disk = disk_of(catalog, edition, &mut design, figures, defaults)
        .map_err(|why| error(why.to_string()))?;
    Ok((design, disk))
}

/// Why a volume's disk cannot be used: the `reason` of a [`DiskSpecError`].
#[derive(Debug, thiserror::Error)]
enum DiskReason {
    #[error(
        "{0} (a fixed-size SKU such as P30 or E30, or PremiumV2/Ultra with \
         ,size_gib=N,iops=N,mb_s=N)"
    )]
    UnknownSku(Box<iofit_catalog::CatalogError>),
    #[error("{0} has fixed limits; size, IOPS and MB/s are bought only for PremiumV2 and Ultra")]
    FixedLimits(String),
    #[error("{0} supports no host caching (Azure's disk types page); write :none or leave it out")]
    NoHostCaching(String),
    #[error("{why}; {kind} needs ,size_gib=N,iops=N,mb_s=N")]
    Figures { why: FiguresError, kind: String },
    #[error(transparent)]
    Provisioned(#[from] crate::PredictError),
}

/// Why the `size_gib=,iops=,mb_s=` figures of a provisioned disk cannot be read.
#[derive(Debug, thiserror::Error)]
enum FiguresError {
    #[error("'{0}' is not KEY=VALUE")]
    NotKeyValue(String),
    #[error("{key}={value}: not a positive number")]
    NotPositive { key: String, value: String },
    #[error("unknown key '{0}'")]
    UnknownKey(String),
    #[error("{0} is given twice")]
    Twice(String),
    #[error("{MISSING_FIGURES}")]
    Missing,
}

/// The disk row of one volume: a fixed SKU, or a provisioned type with its figures checked
/// against the type's rules.
fn disk_of(
    catalog: &Catalog,
    edition: &str,
    design: &mut VolumeDesign,
    figures: Option<&str>,
    defaults: Bought,
) -> Result<DiskPerf, DiskReason> {
    let fixed = catalog.disk(&design.disk_sku, edition);
    if let (Ok(sku), None) = (&fixed, figures) {
        design.disk_sku = sku.name.clone();
        return Ok(DiskPerf::from(*sku));
    }
    let Ok(kind) = catalog.provisioned_disk(&design.disk_sku, edition) else {
        return Err(match fixed {
            Err(e) => DiskReason::UnknownSku(Box::new(e)),
            Ok(sku) => DiskReason::FixedLimits(sku.name.clone()),
        });
    };
    if design.caching.is_cached() && !kind.kind.supports_host_caching() {
        return Err(DiskReason::NoHostCaching(kind.name.clone()));
    }
    let bought =
        figures_of(figures.unwrap_or(""), defaults).map_err(|why| DiskReason::Figures {
            why,
            kind: kind.name.clone(),
        })?;
    let disk = DiskPerf::from_provisioned(kind, bought.0, bought.1, bought.2)?;
    design.disk_sku = kind.name.clone();
    design.provisioned_size_gib = Some(bought.0);
    design.provisioned_iops = Some(iofit_model::Iops(bought.1));
    design.provisioned_throughput_mb_s = Some(iofit_model::MBps(bought.2));
    Ok(disk)
}

const MISSING_FIGURES: &str = "size_gib, iops and mb_s are each needed";

/// `size_gib=512,iops=6000,mb_s=250` (any order, each once) over `defaults`, as (GiB, IOPS,
/// MB/s).
fn figures_of(text: &str, defaults: Bought) -> Result<(GiB, f64, f64), FiguresError> {
    let mut bought = defaults;
    let mut seen = Vec::new();
    for pair in text.split(',').filter(|p| !p.is_empty()) {
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| FiguresError::NotKeyValue(pair.to_string()))?;
        let key = key.trim();
        let number: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v > 0.0)
            .ok_or_else(|| FiguresError::NotPositive {
                key: key.to_string(),
                value: value.to_string(),
            })?;
        if seen.contains(&key) {
            return Err(FiguresError::Twice(key.to_string()));
        }
        match key {
            "size_gib" => bought.size_gib = Some(GiB(number)),
            "iops" => bought.iops = Some(Iops(number)),
            "mb_s" => bought.mb_s = Some(MBps(number)),
            other => return Err(FiguresError::UnknownKey(other.to_string())),
        }
        seen.push(key);
    }
    match (bought.size_gib, bought.iops, bought.mb_s) {
        (Some(size), Some(iops), Some(mb)) => Ok((size, iops.get(), mb.get())),
        _ => Err(FiguresError::Missing),
    }
}

fn valid_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= 32
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog::embedded().unwrap()
    }

    fn resolve(spec: &str, defaults: Bought) -> Result<(VolumeDesign, DiskPerf), DiskSpecError> {
        resolve_volume(
            &catalog(),
            iofit_catalog::EDITION_CURRENT,
            spec,
            1,
            defaults,
        )
    }

    #[test]
    fn a_fixed_sku_keeps_its_own_limits_and_a_default_label() {
        let (design, disk) = resolve("2xP30:readonly", Bought::default()).unwrap();
        assert_eq!(design.label, "vol2");
        assert_eq!(design.disk_count, 2);
        assert!(design.caching.is_cached());
        assert_eq!(
            (disk.iops.get(), disk.throughput_mb_s.get()),
            (5000.0, 200.0)
        );
    }

    #[test]
    fn figures_in_the_spec_win_over_the_defaults() {
        let defaults = Bought {
            size_gib: Some(GiB(128.0)),
            iops: Some(Iops(3000.0)),
            mb_s: Some(MBps(125.0)),
        };
        let (design, disk) = resolve("log=1xPremiumV2,iops=4000,mb_s=150", defaults).unwrap();
        assert_eq!(design.label, "log");
        assert_eq!(
            (disk.size_gib, disk.iops.get(), disk.throughput_mb_s.get()),
            (GiB(128.0), 4000.0, 150.0)
        );
        assert_eq!(design.provisioned_iops, Some(iofit_model::Iops(4000.0)));
        let (_, from_defaults) = resolve("1xPremiumV2", defaults).unwrap();
        assert_eq!(from_defaults.iops, Iops(3000.0));
    }

    #[test]
    fn what_cannot_be_used_is_named() {
        let cases = [
            ("1xPremiumV2", "size_gib, iops and mb_s are each needed"),
            ("1xP30,iops=9000", "P30 has fixed limits"),
            (
                "1xPremiumV2:readonly,size_gib=64,iops=3000,mb_s=125",
                "no host caching",
            ),
            ("a b=1xP30", "label 'a b'"),
            (
                "1xPremiumV2,size_gib=64,iops=3000,iops=4000,mb_s=125",
                "iops is given twice",
            ),
            (
                "1xPremiumV2,size_gib=64,iops=-1,mb_s=125",
                "not a positive number",
            ),
            (
                "1xPremiumV2,size_gib=64,iops=3000,mb_s=125,speed=9",
                "unknown key 'speed'",
            ),
            ("1xQ99", "Q99"),
        ];
        for (spec, expected) in cases {
            let error = resolve(spec, Bought::default()).unwrap_err();
            assert_eq!(error.missing_figures, spec == "1xPremiumV2", "{spec}");
            let message = error.to_string();
            assert!(message.contains(expected), "{spec}: {message}");
            assert!(
                message.starts_with(&format!("--disk '{spec}'")),
                "{message}"
            );
        }
    }
}
