//! What a Google Cloud design delivers: a Compute Engine VM with Persistent Disks, as Google
//! documents it ('About Persistent Disk performance') and as Google's gcpdiag computes it. Its
//! shape is not Azure's nor AWS's: a disk type's performance belongs to the VM, `baseline +
//! rate x the total GiB of that type attached`, capped by the VM's limit for its vCPU count,
//! with reads and writes limited apart. Nothing is provisioned and nothing bursts: the state
//! predicted is the one that holds all day.
//!
//! Disks of one type share the VM's budget of that type; each volume's share is its part of
//! the demand (as the instance's limits are shared in [`crate::aws`]). One IO counts as one
//! operation: Google's splitting of large IOs is not sourced.

use crate::gcp_volume::{directional_limits, shares, total_gib_of, vm_rows, DirectionalRow};
pub use crate::gcp_volume::{DiskProblem, GcpDemand, GcpDiskSpec, GcpLimit};
use iofit_catalog::clouds::gcp::{GcpCatalog, GcpMachineType, PdType, VmPdLimit};
use iofit_model::units::{GiB, Iops, MBps};
use serde::{Deserialize, Serialize};

const MB: f64 = 1_000_000.0;

/// Why a design is not one Google Cloud would run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("disk '{label}' ({disk_type}): {problem}")]
pub struct GcpSpecError {
    pub label: String,
    pub disk_type: String,
    pub problem: String,
}

/// What one volume delivers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpVolumeResult {
    pub label: String,
    pub disk_type: String,
    pub size_gib: GiB,
    pub demand: GcpDemand,
    pub delivered_iops: Iops,
    pub delivered_mb_s: MBps,
    pub binding: String,
    /// `(limit - demand) / limit` of the binding limit, percent (negative: throttled).
    pub headroom_pct: f64,
    pub limits: Vec<GcpLimit>,
}

/// What a design delivers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpPrediction {
    pub machine_type: String,
    pub volumes: Vec<GcpVolumeResult>,
    pub delivered_iops: Iops,
    pub delivered_mb_s: MBps,
    /// The limit that binds first over the whole design.
    pub binding: String,
    pub headroom_pct: f64,
    /// Whether every volume gets its whole demand.
    pub meets: bool,
}

/// One disk type's budget on one VM: by size (baseline + rate x GiB) and the VM's limit.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeBudget {
    pub total_gib: GiB,
    pub read_iops_by_size: f64,
    pub write_iops_by_size: f64,
    pub mib_s_by_size: f64,
    pub vm: VmPdLimit,
}

/// The budget `total_gib` of `rules` gives on `machine`, or why there is none.
pub fn type_budget(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    rules: &PdType,
    total_gib: GiB,
) -> Option<TypeBudget> {
    let vm = catalog.vm_limit(machine, &rules.name)?.clone();
    // Below its floor (pd-standard: 100 GiB) a type performs as the floor.
    let rated_gib = rules.rated_gib(total_gib).get();
    Some(TypeBudget {
        total_gib,
        read_iops_by_size: rules.baseline_iops.get() + rules.read_iops_per_gib * rated_gib,
        write_iops_by_size: rules.baseline_iops.get() + rules.write_iops_per_gib * rated_gib,
        mib_s_by_size: rules.baseline_mib_s.get() + rules.throughput_mib_s_per_gib * rated_gib,
        vm,
    })
}

/// Predicts `volumes` (each one disk with its demand) on `machine`.
pub fn predict(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    volumes: &[(GcpDiskSpec, GcpDemand)],
) -> Result<GcpPrediction, GcpSpecError> {
    let mut results = Vec::new();
    for (spec, demand) in volumes {
        let error = |problem: DiskProblem| GcpSpecError {
            label: spec.label.clone(),
            disk_type: spec.disk_type.clone(),
            problem: problem.0,
        };
        let (disk_type, limits) = match catalog.provisioned_type(&spec.disk_type) {
            Some(row) => (
                row.name.clone(),
                crate::gcp_provisioned::volume_limits(catalog, machine, row, spec, demand, volumes)
                    .map_err(error)?,
            ),
            None => pd_volume(catalog, machine, spec, demand, volumes).map_err(error)?,
        };
        results.push(GcpVolumeResult {
            label: spec.label.clone(),
            disk_type,
            size_gib: spec.size_gib,
            demand: demand.clone(),
            delivered_iops: Iops(0.0),
            delivered_mb_s: MBps(0.0),
            binding: String::new(),
            headroom_pct: 0.0,
            limits,
        });
    }
    Ok(summarise(machine, results))
}

/// One Persistent Disk's type name and limits.
fn pd_volume(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    spec: &GcpDiskSpec,
    demand: &GcpDemand,
    volumes: &[(GcpDiskSpec, GcpDemand)],
) -> Result<(String, Vec<GcpLimit>), DiskProblem> {
    let rules = catalog
        .disk_type(&spec.disk_type)
        .map_err(|e| DiskProblem(e.to_string()))?;
    let size = spec.size_gib.get();
    if !(size.is_finite() && size >= 1.0) {
        return Err(DiskProblem(format!(
            "size {size} GiB: give size_gib=N, at least 1"
        )));
    }
    // The type's budget is the VM's, from every disk of the type: share it by demand.
    let total_gib = total_gib_of(&rules.name, volumes);
    let budget = type_budget(catalog, machine, rules, total_gib).ok_or_else(|| {
        DiskProblem(format!(
            "no sourced {} limit for {} ({} family, {} vCPU)",
            rules.name, machine.name, machine.family, machine.vcpu
        ))
    })?;
    let share = shares(&rules.name, demand, volumes);
    let limits = volume_limits(machine, &rules.name, &budget, demand, &|i| share[i]);
    Ok((rules.name.clone(), limits))
}

/// The eight limits of one volume (by size and the VM's, reads and writes, IOPS and MiB/s),
/// each in application IOPS for the volume's share; a limit the demand never touches (no
/// writes: no write limit) is left out.
fn volume_limits(
    machine: &GcpMachineType,
    disk_type: &str,
    budget: &TypeBudget,
    demand: &GcpDemand,
    share: &dyn Fn(usize) -> f64,
) -> Vec<GcpLimit> {
    let gib = budget.total_gib.get();
    let by_size = format!("{gib:.0} GiB of {disk_type} attached");
    let mut rows: Vec<DirectionalRow> = vec![
        (
            format!("{disk_type} read IOPS by size"),
            format!("{:.0} IOPS ({by_size})", budget.read_iops_by_size),
            budget.read_iops_by_size,
            0,
            true,
        ),
        (
            format!("{disk_type} write IOPS by size"),
            format!("{:.0} IOPS ({by_size})", budget.write_iops_by_size),
            budget.write_iops_by_size,
            1,
            true,
        ),
        (
            format!("{disk_type} read throughput by size"),
            format!("{:.1} MiB/s ({by_size})", budget.mib_s_by_size),
            budget.mib_s_by_size,
            2,
            false,
        ),
        (
            format!("{disk_type} write throughput by size"),
            format!("{:.1} MiB/s ({by_size})", budget.mib_s_by_size),
            budget.mib_s_by_size,
            3,
            false,
        ),
    ];
    rows.extend(vm_rows(machine, disk_type, &budget.vm));
    directional_limits(rows, demand, share)
}

fn summarise(machine: &GcpMachineType, mut results: Vec<GcpVolumeResult>) -> GcpPrediction {
    let mut worst: Option<(f64, String)> = None;
    for result in &mut results {
        let Some(binding) = result
            .limits
            .iter()
            .min_by(|a, b| a.iops_allowed.total_cmp(&b.iops_allowed))
            .cloned()
        else {
            continue;
        };
        let demand = result.demand.iops.get();
        result.delivered_iops = Iops(demand.min(binding.iops_allowed));
        result.delivered_mb_s =
            MBps(result.delivered_iops.get() * result.demand.io_size_bytes.as_f64() / MB);
        result.headroom_pct = if binding.iops_allowed > 0.0 {
            (binding.iops_allowed - demand) / binding.iops_allowed * 100.0
        } else {
            -100.0
        };
        result.binding = binding.name.clone();
        if worst.as_ref().is_none_or(|(h, _)| result.headroom_pct < *h) {
            worst = Some((result.headroom_pct, binding.name));
        }
    }
    let (headroom_pct, binding) = worst.unwrap_or((100.0, "none".into()));
    GcpPrediction {
        machine_type: machine.name.clone(),
        delivered_iops: Iops(results.iter().map(|r| r.delivered_iops.get()).sum()),
        delivered_mb_s: MBps(results.iter().map(|r| r.delivered_mb_s.get()).sum()),
        meets: results
            .iter()
            .all(|r| r.delivered_iops.get() >= r.demand.iops.get() * (1.0 - 1e-9)),
        volumes: results,
        binding,
        headroom_pct,
    }
}

/// Why a `--disk` spec of [`parse_disk_spec`] cannot be read; each names the spec.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GcpDiskFlagError {
    #[error("--disk {spec}: unknown Persistent Disk type '{kind}'; use {known}")]
    UnknownType {
        spec: String,
        kind: String,
        known: String,
    },
    #[error("--disk {spec}: '{part}' is not KEY=VALUE")]
    NotKeyValue { spec: String, part: String },
    #[error("--disk {spec}: size_gib={value} is not a number of at least 1")]
    BadSize { spec: String, value: String },
    #[error("--disk {spec}: unknown key '{key}'; a Persistent Disk takes size_gib only (its performance follows its size)")]
    UnknownKey { spec: String, key: String },
    #[error("--disk {0}: add size_gib=N (a Persistent Disk's performance follows its size)")]
    SizeNeeded(String),
    #[error("--disk {spec}: {kind} is provisioned per disk (IOPS and MiB/s chosen, not following its size) and is not modelled: {why} not sourced (catalog/README.md, Google Cloud); use {known}")]
    Provisioned {
        spec: String,
        kind: String,
        why: String,
        known: String,
    },
    #[error("--disk {spec}: {problem}")]
    ProvisionedValue { spec: String, problem: String },
}

/// The disk types `predict` models: the Persistent Disk types and each provisioned type with
/// nothing missing.
fn known_types(catalog: &GcpCatalog) -> String {
    catalog
        .disk_types
        .iter()
        .map(|d| d.name.as_str())
        .chain(
            catalog
                .provisioned_types
                .iter()
                .filter(|row| catalog.model_gaps(row).is_empty())
                .map(|row| row.name.as_str()),
        )
        .collect::<Vec<_>>()
        .join(", ")
}

/// `size_gib=`, `iops=`, `mib_s=` of a provisioned type's spec, checked against its rules.
fn parse_provisioned(
    text: &str,
    label: String,
    row: &iofit_catalog::clouds::gcp_provisioned::ProvisionedType,
    parts: std::str::Split<'_, char>,
) -> Result<GcpDiskSpec, GcpDiskFlagError> {
    let bad = |problem: String| GcpDiskFlagError::ProvisionedValue {
        spec: text.to_string(),
        problem,
    };
    let mut spec = GcpDiskSpec {
        label,
        disk_type: row.name.clone(),
        ..Default::default()
    };
    let mut size = None;
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| GcpDiskFlagError::NotKeyValue {
                spec: text.to_string(),
                part: part.to_string(),
            })?;
        let number: f64 = value
            .trim()
            .parse()
            .map_err(|_| bad(format!("{}={value} is not a number", key.trim())))?;
        match key.trim() {
            "size_gib" => size = Some(GiB(number)),
            "iops" => spec.provisioned_iops = Some(iofit_model::units::Iops(number)),
            "mib_s" => spec.provisioned_mib_s = Some(iofit_model::units::MiBps(number)),
            other => {
                return Err(bad(format!(
                    "unknown key '{other}'; a {} disk takes size_gib, and iops or mib_s as Google bills it",
                    row.name
                )))
            }
        }
    }
    spec.size_gib = size.ok_or_else(|| {
        bad(format!(
            "add size_gib=N ({} GiB at least)",
            row.size_min_gib.unwrap_or(GiB(1.0)).get()
        ))
    })?;
    crate::gcp_provisioned::check_spec(row, &spec).map_err(|e| bad(e.0))?;
    Ok(spec)
}

/// Parses `[LABEL=]TYPE,size_gib=N` (`data=pd-ssd,size_gib=1000`), and for a provisioned type
/// its `iops=N` and `mib_s=N` as Google bills it (`data=pd-extreme,size_gib=1000,iops=50000`).
pub fn parse_disk_spec(
    text: &str,
    index: usize,
    catalog: &GcpCatalog,
) -> Result<GcpDiskSpec, GcpDiskFlagError> {
    let mut parts = text.split(',');
    let head = parts.next().unwrap_or_default().trim();
    let (label, kind) = match head.split_once('=') {
        Some((label, kind)) => (label.trim().to_string(), kind.trim()),
        None => (format!("disk{}", index + 1), head),
    };
    let known = || known_types(catalog);
    if let Some(row) = catalog.provisioned_type(kind) {
        let gaps = catalog.model_gaps(row);
        if !gaps.is_empty() {
            return Err(GcpDiskFlagError::Provisioned {
                spec: text.to_string(),
                kind: kind.to_string(),
                why: gaps.join("; "),
                known: known(),
            });
        }
        return parse_provisioned(text, label, row, parts);
    }
    let rules = catalog
        .disk_type(kind)
        .map_err(|_| GcpDiskFlagError::UnknownType {
            spec: text.to_string(),
            kind: kind.to_string(),
            known: known(),
        })?;
    let mut size_gib = None;
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| GcpDiskFlagError::NotKeyValue {
                spec: text.to_string(),
                part: part.to_string(),
            })?;
        if key.trim() != "size_gib" {
            return Err(GcpDiskFlagError::UnknownKey {
                spec: text.to_string(),
                key: key.trim().to_string(),
            });
        }
        let size: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 1.0)
            .ok_or_else(|| GcpDiskFlagError::BadSize {
                spec: text.to_string(),
                value: value.to_string(),
            })?;
        size_gib = Some(GiB(size));
    }
    Ok(GcpDiskSpec {
        label,
        disk_type: rules.name.clone(),
        size_gib: size_gib.ok_or_else(|| GcpDiskFlagError::SizeNeeded(text.to_string()))?,
        ..Default::default()
    })
}

#[cfg(test)]
#[path = "gcp_tests.rs"]
mod tests;
