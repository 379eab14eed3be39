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

use iofit_catalog::clouds::gcp::{GcpCatalog, GcpMachineType, PdType, VmPdLimit};
use iofit_model::units::{Bytes, Iops, MBps};
use serde::{Deserialize, Serialize};

const MIB: f64 = 1_048_576.0;
const MB: f64 = 1_000_000.0;

/// One volume of a design: one Persistent Disk of `size_gib`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpDiskSpec {
    pub label: String,
    pub disk_type: String,
    pub size_gib: f64,
}

/// What the application asks of one volume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpDemand {
    pub iops: f64,
    #[serde(with = "iofit_model::units::bytes_as_f64")]
    pub io_size_bytes: Bytes,
    /// Reads as a percentage of the IOs, 0..100.
    pub read_pct: f64,
}

impl GcpDemand {
    fn read_fraction(&self) -> f64 {
        (self.read_pct / 100.0).clamp(0.0, 1.0)
    }
    fn mib_s(&self) -> f64 {
        self.iops * self.io_size_bytes.as_f64() / MIB
    }
}

/// Why a design is not one Google Cloud would run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("disk '{label}' ({disk_type}): {problem}")]
pub struct GcpSpecError {
    pub label: String,
    pub disk_type: String,
    pub problem: String,
}

/// One limit met by one volume's IO, in the application's IOs at its IO size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpLimit {
    /// What it is: `pd-ssd read IOPS by size`, `VM n2-standard-8 pd-ssd read IOPS`.
    pub name: String,
    /// The limit as Google states it, with how it was reached.
    pub stated: String,
    /// The application IOPS this limit allows for this volume's share.
    pub iops_allowed: f64,
}

/// What one volume delivers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GcpVolumeResult {
    pub label: String,
    pub disk_type: String,
    pub size_gib: f64,
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
    pub total_gib: f64,
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
    total_gib: f64,
) -> Option<TypeBudget> {
    let vm = catalog.vm_limit(machine, &rules.name)?.clone();
    // Below its floor (pd-standard: 100 GiB) a type performs as the floor.
    let rated_gib = rules.rated_gib(total_gib);
    Some(TypeBudget {
        total_gib,
        read_iops_by_size: rules.baseline_iops.get() + rules.read_iops_per_gib * rated_gib,
        write_iops_by_size: rules.baseline_iops.get() + rules.write_iops_per_gib * rated_gib,
        mib_s_by_size: rules.baseline_mib_s.get() + rules.throughput_mib_s_per_gib * rated_gib,
        vm,
    })
}

/// The demand of each volume on its type's budget: (read ops, write ops, read MiB/s, write MiB/s).
fn parts(demand: &GcpDemand) -> [f64; 4] {
    let r = demand.read_fraction();
    [
        demand.iops * r,
        demand.iops * (1.0 - r),
        demand.mib_s() * r,
        demand.mib_s() * (1.0 - r),
    ]
}

/// Predicts `volumes` (each one disk with its demand) on `machine`.
pub fn predict(
    catalog: &GcpCatalog,
    machine: &GcpMachineType,
    volumes: &[(GcpDiskSpec, GcpDemand)],
) -> Result<GcpPrediction, GcpSpecError> {
    let mut results = Vec::new();
    for (spec, demand) in volumes {
        let error = |problem: String| GcpSpecError {
            label: spec.label.clone(),
            disk_type: spec.disk_type.clone(),
            problem,
        };
        let rules = catalog
            .disk_type(&spec.disk_type)
            .map_err(|e| error(e.to_string()))?;
        if !(spec.size_gib.is_finite() && spec.size_gib >= 1.0) {
            return Err(error(format!(
                "size {} GiB: give size_gib=N, at least 1",
                spec.size_gib
            )));
        }
        // The type's budget is the VM's, from every disk of the type: share it by demand.
        let same: Vec<&(GcpDiskSpec, GcpDemand)> = volumes
            .iter()
            .filter(|(s, _)| s.disk_type.eq_ignore_ascii_case(&rules.name))
            .collect();
        let total_gib: f64 = same.iter().map(|(s, _)| s.size_gib).sum();
        let budget = type_budget(catalog, machine, rules, total_gib).ok_or_else(|| {
            error(format!(
                "no sourced {} limit for {} ({} family, {} vCPU)",
                rules.name, machine.name, machine.family, machine.vcpu
            ))
        })?;
        let mine = parts(demand);
        let mut group = [0.0; 4];
        for (_, d) in &same {
            for (sum, part) in group.iter_mut().zip(parts(d)) {
                *sum += part;
            }
        }
        let share = |i: usize| {
            if group[i] > 0.0 {
                mine[i] / group[i]
            } else {
                1.0 / same.len() as f64
            }
        };
        let limits = volume_limits(machine, &rules.name, &budget, demand, &share);
        results.push(GcpVolumeResult {
            label: spec.label.clone(),
            disk_type: rules.name.clone(),
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
    let r = demand.read_fraction();
    let io = demand.io_size_bytes.as_f64().max(512.0);
    let gib = budget.total_gib;
    let vm = &budget.vm;
    let by_size = format!("{gib:.0} GiB of {disk_type} attached");
    // (name, stated, limit, index of the demand part it limits, unit ops or MiB/s)
    let rows: [(String, String, f64, usize, bool); 8] = [
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
        (
            format!("VM {} {disk_type} read IOPS", machine.name),
            format!("{:.0} IOPS ({} vCPU)", vm.read_iops.get(), machine.vcpu),
            vm.read_iops.get(),
            0,
            true,
        ),
        (
            format!("VM {} {disk_type} write IOPS", machine.name),
            format!("{:.0} IOPS ({} vCPU)", vm.write_iops.get(), machine.vcpu),
            vm.write_iops.get(),
            1,
            true,
        ),
        (
            format!("VM {} {disk_type} read throughput", machine.name),
            format!("{:.0} MiB/s ({} vCPU)", vm.read_mib_s.get(), machine.vcpu),
            vm.read_mib_s.get(),
            2,
            false,
        ),
        (
            format!("VM {} {disk_type} write throughput", machine.name),
            format!("{:.0} MiB/s ({} vCPU)", vm.write_mib_s.get(), machine.vcpu),
            vm.write_mib_s.get(),
            3,
            false,
        ),
    ];
    rows.into_iter()
        .filter_map(|(name, stated, limit, part, ops)| {
            let fraction = if part % 2 == 0 { r } else { 1.0 - r };
            if fraction <= 0.0 {
                return None;
            }
            let mine = limit * share(part);
            let iops_allowed = if ops {
                mine / fraction
            } else {
                mine * MIB / io / fraction
            };
            Some(GcpLimit {
                name,
                stated,
                iops_allowed,
            })
        })
        .collect()
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
        let demand = result.demand.iops;
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
            .all(|r| r.delivered_iops.get() >= r.demand.iops * (1.0 - 1e-9)),
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
    #[error("--disk {spec}: {kind} is provisioned per disk (IOPS and MiB/s chosen, not following its size) and predict does not model it in this build; {why}; use {known}")]
    Provisioned {
        spec: String,
        kind: String,
        why: String,
        known: String,
    },
}

/// Why `predict` refuses provisioned type `name`, from what its rows lack.
fn provisioned_refusal(catalog: &GcpCatalog, name: &str) -> Option<String> {
    let row = catalog.provisioned_type(name)?;
    let has_vm_limits = catalog.vm_limits.iter().any(|l| l.disk_type == row.name);
    Some(if has_vm_limits {
        "its per-VM limits are listed for some machine types, its per-disk throughput rule is not sourced (catalog/README.md, Google Cloud)".to_string()
    } else {
        "its per-VM limits by machine type are not sourced (catalog/README.md, Google Cloud)"
            .to_string()
    })
}

/// Parses `[LABEL=]TYPE,size_gib=N` (`data=pd-ssd,size_gib=1000`).
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
    let known = || {
        catalog
            .disk_types
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(why) = provisioned_refusal(catalog, kind) {
        return Err(GcpDiskFlagError::Provisioned {
            spec: text.to_string(),
            kind: kind.to_string(),
            why,
            known: known(),
        });
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
        size_gib = Some(size);
    }
    Ok(GcpDiskSpec {
        label,
        disk_type: rules.name.clone(),
        size_gib: size_gib.ok_or_else(|| GcpDiskFlagError::SizeNeeded(text.to_string()))?,
    })
}

#[cfg(test)]
#[path = "gcp_tests.rs"]
mod tests;
