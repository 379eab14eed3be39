//! Which VM sizes a plan may use, beyond what the requirements' numbers rule out: the
//! architecture, families, burstable CPU, vCPUs and memory asked for, and the sizes Azure has
//! announced to retire within the plan's horizon. Given on the command line (`--arch`,
//! `--family`, `--exclude-family`, `--no-burstable`, `--min-vcpu`, `--min-memory-gib`,
//! `--include-retiring`) or in a requirements file's `[filters]` table; every size left out is
//! counted in the plan's notes, with the rule's source.

use iofit_catalog::{Arch, VmSize};
use iofit_model::units::GiB;
use serde::{Deserialize, Serialize};

/// A plan that lasts as long as the longest commitment it can be bought with (a 3-year
/// reservation) leaves out sizes Azure retires within this many months.
pub const RETIREMENT_HORIZON_MONTHS: u32 = 36;

/// A filter value that cannot be used; `label` is where it came from (`--` or
/// `file: [filters] `), so the message names the flag or key.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FilterError {
    #[error("{label}arch: {why} (or any)")]
    Arch {
        label: String,
        why: iofit_catalog::UnknownChoice,
    },
    #[error("{label}min-memory-gib {gib}: must be a number >= 0")]
    MinMemory { label: String, gib: f64 },
}

/// The filters of one plan. `arch` is `x64`, `arm64` or `any`; family names match the
/// catalog's `family` (Dsv5, Bsv2...) in any case.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VmFilters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub families: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude_families: Vec<String>,
    #[serde(default)]
    pub no_burstable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_vcpu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_memory_gib: Option<GiB>,
    #[serde(default)]
    pub include_retiring: bool,
}

impl VmFilters {
    /// `self` (the command line) over `file` (a requirements file's `[filters]`): a value given
    /// on the command line wins; a switch set in either holds.
    pub fn over(&self, file: &VmFilters) -> VmFilters {
        let list = |mine: &Vec<String>, theirs: &Vec<String>| {
            if mine.is_empty() {
                theirs.clone()
            } else {
                mine.clone()
            }
        };
        VmFilters {
            arch: self.arch.clone().or_else(|| file.arch.clone()),
            families: list(&self.families, &file.families),
            exclude_families: list(&self.exclude_families, &file.exclude_families),
            no_burstable: self.no_burstable || file.no_burstable,
            min_vcpu: self.min_vcpu.or(file.min_vcpu),
            min_memory_gib: self.min_memory_gib.or(file.min_memory_gib),
            include_retiring: self.include_retiring || file.include_retiring,
        }
    }

    /// The architecture asked for: `None` for any. `label` names where the value came from.
    fn arch_wanted(&self, label: &str) -> Result<Option<Arch>, FilterError> {
        match self.arch.as_deref().map(str::trim) {
            None => Ok(None),
            Some(text) if text.eq_ignore_ascii_case("any") => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|why| FilterError::Arch {
                label: label.to_string(),
                why,
            }),
        }
    }

    /// Checks values a filter cannot take; `label` prefixes the key (`--` or `file: filters.`).
    pub fn check(&self, label: &str) -> Result<(), FilterError> {
        self.arch_wanted(label)?;
        if let Some(gib) = self.min_memory_gib.map(|gib| gib.get()) {
            if !(gib.is_finite() && gib >= 0.0) {
                return Err(FilterError::MinMemory {
                    label: label.to_string(),
                    gib,
                });
            }
        }
        Ok(())
    }
}

/// The date `months` after `today` (YYYY-MM-DD), the day clamped to 28 so it always exists.
fn months_after(today: &str, months: u32) -> String {
    let year: u32 = today.get(0..4).and_then(|y| y.parse().ok()).unwrap_or(1970);
    let month: u32 = today.get(5..7).and_then(|m| m.parse().ok()).unwrap_or(1);
    let day: u32 = today.get(8..10).and_then(|d| d.parse().ok()).unwrap_or(1);
    let index = year * 12 + (month - 1) + months;
    format!("{:04}-{:02}-{:02}", index / 12, index % 12 + 1, day.min(28))
}

/// Today (UTC), YYYY-MM-DD: the day `SOURCE_DATE_EPOCH` names when it is set to a whole number
/// of seconds (the reproducible-builds convention for "now", so that a plan's retirement
/// horizon can be pinned), else the system clock's.
pub fn today() -> String {
    let pinned = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let seconds = pinned.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    });
    iofit_catalog::import::date_of_unix_seconds(seconds)
}

/// Why a size is left out, or `None` when it stays.
fn reason_out(
    vm: &VmSize,
    filters: &VmFilters,
    arch: Option<Arch>,
    cutoff: &str,
) -> Option<&'static str> {
    let traits = vm.traits.as_ref();
    let family_in = |list: &[String]| list.iter().any(|f| f.eq_ignore_ascii_case(&vm.family));
    if let Some(arch) = arch {
        if traits.and_then(|t| t.arch) != Some(arch) {
            return Some("architecture");
        }
    }
    if !filters.families.is_empty() && !family_in(&filters.families) {
        return Some("family");
    }
    if family_in(&filters.exclude_families) {
        return Some("family");
    }
    if filters.no_burstable && traits.and_then(|t| t.burstable) != Some(false) {
        return Some("burstable");
    }
    if filters.min_vcpu.is_some_and(|n| vm.vcpu < n) {
        return Some("vCPUs");
    }
    if filters
        .min_memory_gib
        .is_some_and(|gib| vm.memory_gib < gib)
    {
        return Some("memory");
    }
    let retiring = traits
        .and_then(|t| t.retirement_date.as_deref())
        .is_some_and(|date| date <= cutoff);
    if retiring && !filters.include_retiring {
        return Some("retiring");
    }
    None
}

/// Keeps the sizes the filters allow; returns the notes saying what was left out and why.
/// `windows_capture`: the requirements come from a PerfMon (Windows) capture, so without an
/// `arch` the plan keeps x64 sizes only (Windows Server runs on x64 Azure sizes only).
pub fn apply(
    vms: &mut Vec<VmSize>,
    filters: &VmFilters,
    windows_capture: bool,
    today: &str,
    label: &str,
) -> Result<Vec<String>, FilterError> {
    filters.check(label)?;
    let mut notes = Vec::new();
    let mut arch = filters.arch_wanted(label)?;
    if filters.arch.is_none() && windows_capture {
        arch = Some(Arch::X64);
        notes.push(
            "architecture: x64 sizes only, as the requirements come from a PerfMon (Windows) \
             capture and Windows Server runs on x64 Azure sizes only; --arch any includes \
             Arm64"
                .to_string(),
        );
    }
    let cutoff = months_after(today, RETIREMENT_HORIZON_MONTHS);
    let mut out: std::collections::BTreeMap<&'static str, Vec<String>> = Default::default();
    let mut retiring_kept = Vec::new();
    vms.retain(|vm| match reason_out(vm, filters, arch, &cutoff) {
        Some(reason) => {
            let name = match (reason, vm.traits.as_ref()) {
                ("retiring", Some(t)) => format!(
                    "{} ({})",
                    vm.name,
                    t.retirement_date.as_deref().unwrap_or_default()
                ),
                _ => vm.name.clone(),
            };
            out.entry(reason).or_default().push(name);
            false
        }
        None => {
            if let Some(date) = vm.traits.as_ref().and_then(|t| t.retirement_date.clone()) {
                retiring_kept.push(format!("{} ({date})", vm.name));
            }
            true
        }
    });
    let list = |names: &[String]| {
        let mut text = names.iter().take(6).cloned().collect::<Vec<_>>().join(", ");
        if names.len() > 6 {
            text.push_str(&format!(" and {} more", names.len() - 6));
        }
        text
    };
    for (reason, names) in &out {
        let why = match *reason {
            "architecture" => format!(
                "not {} (or no architecture rule)",
                arch.map(Arch::name).unwrap_or("-")
            ),
            "family" => "family not asked for (--family/--exclude-family)".to_string(),
            "burstable" => "burstable CPU (--no-burstable)".to_string(),
            "vCPUs" => format!("fewer than {} vCPUs", filters.min_vcpu.unwrap_or(0)),
            "memory" => format!(
                "less than {} GiB of memory",
                filters.min_memory_gib.unwrap_or_default().get()
            ),
            _ => format!(
                "Azure has announced their retirement before {cutoff}, within the plan's \
                 {RETIREMENT_HORIZON_MONTHS}-month horizon (catalog azure-vm-rules, from Azure's \
                 retired-sizes list); --include-retiring keeps them, marked"
            ),
        };
        notes.push(format!(
            "{} VM sizes left out: {why}: {}",
            names.len(),
            list(names)
        ));
    }
    if !retiring_kept.is_empty() {
        notes.push(format!(
            "{} VM sizes kept have an announced retirement (each design names its date): {}",
            retiring_kept.len(),
            list(&retiring_kept)
        ));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_horizon_is_months_after_today() {
        assert_eq!(months_after("2026-11-27", 36), "2029-11-27");
        assert_eq!(months_after("2026-01-31", 1), "2026-02-28");
        assert_eq!(months_after("2026-12-05", 1), "2027-01-05");
    }

    #[test]
    fn the_command_line_wins_over_the_file() {
        let file = VmFilters {
            arch: Some("arm64".into()),
            families: vec!["Dsv5".into()],
            no_burstable: true,
            ..Default::default()
        };
        let cli = VmFilters {
            arch: Some("x64".into()),
            ..Default::default()
        };
        let both = cli.over(&file);
        assert_eq!(both.arch.as_deref(), Some("x64"));
        assert_eq!(both.families, vec!["Dsv5".to_string()]);
        assert!(both.no_burstable);
        assert!(cli.check("--").is_ok());
        let bad = VmFilters {
            arch: Some("sparc".into()),
            ..Default::default()
        };
        assert!(bad
            .check("--")
            .unwrap_err()
            .to_string()
            .starts_with("--arch: 'sparc'"));
    }
}
