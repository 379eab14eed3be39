//! The rate limits of a design: each volume's factors (cache hits, stripe, IO size), then every
//! per-disk, per-stripe and per-VM limit as a [`RateLimit`] over the volumes it applies to.

use crate::assumptions::Assumptions;
use crate::{check_target, LimitKind, LimitUnit, Notes, PredictError, VolumeLoad};
use crate::{UpToDisk, Violation, Warning};
use iofit_catalog::{DiskKind, VmSize};
use iofit_model::formulas::iops_from_outstanding;
use iofit_model::HostCaching;

/// Per-volume factors derived once from design and workload.
pub(super) struct Factors {
    members: f64,
    pub(super) cached: bool,
    pub(super) read_share: f64,
    pub(super) hit_share: f64,
    pub(super) split_read: f64,
    pub(super) split_write: f64,
    /// Disk IOs per volume IO (after cache hits and stripe splitting).
    pub(super) disk_ios: f64,
    /// Bytes reaching the disks per volume IO.
    pub(super) disk_bytes: f64,
    /// IOs the host sees per volume IO (hits included).
    pub(super) host_ios: f64,
    /// Bytes per volume IO.
    pub(super) host_bytes: f64,
    pub(super) outstanding: u32,
    pub(super) busy_members: u32,
    /// Service time of one IO on this volume's disks, ms.
    pub(super) service_ms: f64,
}

/// A rate limit in linear form: `sum(coeff[v] x iops[v]) <= capacity`.
#[derive(Clone)]
pub(super) struct RateLimit {
    pub(super) kind: LimitKind,
    /// `None`: the VM (shared); `Some(v)`: volume v's own.
    pub(super) volume: Option<usize>,
    pub(super) name: String,
    pub(super) unit: LimitUnit,
    pub(super) coeff: Vec<f64>,
    pub(super) capacity: Option<f64>,
    pub(super) source: String,
}

impl RateLimit {
    pub(super) fn used(&self, rates: &[f64]) -> f64 {
        self.coeff.iter().zip(rates).map(|(c, x)| c * x).sum()
    }
    pub(super) fn sustained(&self) -> bool {
        self.kind.caps_sustained_rate()
    }
}

/// One volume's factors: IOs and bytes per volume IO at the host and at the disks (cache hits,
/// stripe splitting), the outstanding IOs and the stripe members they keep busy.
pub(super) fn volume_factors(
    vm: &VmSize,
    volume: &VolumeLoad,
    assumptions: &Assumptions,
    notes: &mut Notes,
) -> Result<Factors, PredictError> {
    let label = &volume.design.label;
    volume
        .workload
        .validate()
        .map_err(|problem| PredictError::Volume {
            label: label.clone(),
            problem: problem.to_string(),
        })?;
    if volume.design.disk_count == 0 {
        return Err(PredictError::Volume {
            label: label.clone(),
            problem: "disk count must be at least 1".into(),
        });
    }
    if let Some(target) = &volume.target {
        check_target(label, target)?;
    }
    volume_notes(volume, notes);
    let label = &volume.design.label;
    let members = volume.design.disk_count as f64;
    let cached = volume.design.caching.is_cached();
    let cached = cached && volume.disk.kind.supports_host_caching();
    let cached = cached && cache_limits_published(vm, volume, notes);
    let workload = &volume.workload;
    let read_share = workload.read_pct / 100.0;
    let hit_share = if cached {
        assumptions.cache_hit_pct / 100.0
    } else {
        0.0
    };
    let stripe = volume
        .design
        .stripe_size
        .map(|s| s.as_f64())
        .filter(|s| *s > 0.0);
    if volume.design.disk_count > 1 && stripe.is_none() {
        notes.warnings.push(Warning::NoStripeSize {
            volume: label.clone(),
            disks: volume.design.disk_count,
        });
    }
    // An IO larger than the stripe unit becomes one disk IO per unit it spans, and each disk
    // IO counts against the IOPS limits in Azure's IO units (one per started 256 KiB:
    // `azure_io_units`, the rule `emulate` enforces too).
    let split = |size: f64| match stripe {
        Some(unit) if volume.design.disk_count > 1 => {
            (size / unit).ceil().max(1.0) * iofit_model::formulas::azure_io_units(size.min(unit))
        }
        _ => iofit_model::formulas::azure_io_units(size),
    };
    let read_size = workload.read_io_size.as_f64();
    let write_size = workload.write_io_size.as_f64();
    let split_read = split(read_size);
    let split_write = split(write_size);
    let disk_ios = read_share * (1.0 - hit_share) * split_read + (1.0 - read_share) * split_write;
    let disk_bytes = read_share * (1.0 - hit_share) * read_size + (1.0 - read_share) * write_size;
    let host_ios = read_share * split_read + (1.0 - read_share) * split_write;
    let host_bytes = read_share * read_size + (1.0 - read_share) * write_size;
    let outstanding = workload.outstanding_ios();
    let per_io_members = split_read.max(split_write) as u32;
    let busy_members =
        (outstanding.saturating_mul(per_io_members.max(1))).min(volume.design.disk_count);
    Ok(Factors {
        members,
        cached,
        read_share,
        hit_share,
        split_read,
        split_write,
        disk_ios,
        disk_bytes,
        host_ios,
        host_bytes,
        outstanding,
        busy_members,
        service_ms: assumptions
            .service_latency_ms_for(volume.disk.kind, workload.read_pct)
            .get(),
    })
}

/// Whether the VM publishes the cached limits a cached volume runs under. Where it does not,
/// the volume is predicted as uncached, as `plan` refuses caching there: a cache whose limits
/// nobody published would otherwise deliver any number of IOPS.
fn cache_limits_published(vm: &VmSize, volume: &VolumeLoad, notes: &mut Notes) -> bool {
    let published = vm.cached_iops.is_some() || vm.cached_throughput_mb_s.is_some();
    if !published {
        notes.warnings.push(Warning::CachedLimitsUnpublished {
            volume: volume.design.label.clone(),
            caching: volume.design.caching,
            vm: vm.name.clone(),
        });
    }
    published
}

/// What a volume's design says before any number: caching the disk cannot do, "up to"
/// performance, ReadWrite's risk.
fn volume_notes(volume: &VolumeLoad, notes: &mut Notes) {
    let label = &volume.design.label;
    let cached = volume.design.caching.is_cached();
    if cached && !volume.disk.kind.supports_host_caching() {
        notes.violations.push(Violation::CachingNotSupported {
            volume: label.clone(),
            disk: volume.disk.name.clone(),
            caching: volume.design.caching,
        });
    }
    if let Some(target) = &volume.target {
        let sensitive = target.iops.get() > 0.0 || target.latency_ms.is_some();
        let up_to = match volume.disk.kind {
            DiskKind::StandardSsd => Some(UpToDisk::StandardSsd),
            DiskKind::StandardHdd => Some(UpToDisk::StandardHdd),
            _ => None,
        };
        if let (true, Some(disk)) = (sensitive, up_to) {
            notes.warnings.push(Warning::UpToFigures {
                volume: label.clone(),
                disk,
            });
        }
    }
    if volume.design.caching == HostCaching::ReadWrite {
        notes.warnings.push(Warning::ReadWriteCaching {
            volume: label.clone(),
        });
    }
}

/// The VM's rate limits (shared by its volumes): uncached and cached IOPS and MB/s, bursts.
pub(super) fn vm_rate_limits(vm: &VmSize, factors: &[Factors], mb: f64) -> Vec<RateLimit> {
    let mut limits: Vec<RateLimit> = Vec::new();
    let vm_source = vm.table.clone();
    let any_uncached = factors.iter().any(|f| !f.cached);
    let any_cached = factors.iter().any(|f| f.cached);
    let coeffs = |cached: bool, per: &dyn Fn(&Factors) -> f64| -> Vec<f64> {
        factors
            .iter()
            .map(|f| if f.cached == cached { per(f) } else { 0.0 })
            .collect()
    };
    let vm_limit = |kind, name: String, unit, coeff: Vec<f64>, capacity: Option<f64>| RateLimit {
        kind,
        volume: None,
        name,
        unit,
        coeff,
        capacity,
        source: vm_source.clone(),
    };
    if any_uncached {
        limits.push(vm_limit(
            LimitKind::VmUncachedIops,
            format!("VM uncached IOPS ({})", vm.name),
            LimitUnit::Iops,
            coeffs(false, &|f| f.host_ios),
            vm.uncached_iops.map(|v| v.0),
        ));
        limits.push(vm_limit(
            LimitKind::VmUncachedThroughput,
            format!("VM uncached MB/s ({})", vm.name),
            LimitUnit::MbPerSecond,
            coeffs(false, &|f| f.host_bytes / mb),
            vm.uncached_throughput_mb_s.map(|v| v.0),
        ));
    }
    if any_cached {
        limits.push(vm_limit(
            LimitKind::VmCachedIops,
            format!("VM cached IOPS ({})", vm.name),
            LimitUnit::Iops,
            coeffs(true, &|f| f.host_ios),
            vm.cached_iops.map(|v| v.0),
        ));
        limits.push(vm_limit(
            LimitKind::VmCachedThroughput,
            format!("VM cached MB/s ({})", vm.name),
            LimitUnit::MbPerSecond,
            coeffs(true, &|f| f.host_bytes / mb),
            vm.cached_throughput_mb_s.map(|v| v.0),
        ));
    }
    if any_uncached {
        if let Some(burst) = vm.burst_uncached_iops {
            limits.push(vm_limit(
                LimitKind::VmBurstIops,
                format!("VM burst uncached IOPS ({})", vm.name),
                LimitUnit::Iops,
                coeffs(false, &|f| f.host_ios),
                Some(burst.0),
            ));
        }
        if let Some(burst) = vm.burst_uncached_throughput_mb_s {
            limits.push(vm_limit(
                LimitKind::VmBurstThroughput,
                format!("VM burst uncached MB/s ({})", vm.name),
                LimitUnit::MbPerSecond,
                coeffs(false, &|f| f.host_bytes / mb),
                Some(burst.0),
            ));
        }
    }
    limits
}

/// Volume `v`'s own rate limits: the stripe's, each disk's, the members its queue keeps
/// busy, its queue depth (Little's law), bursts.
pub(super) fn volume_rate_limits(
    v: usize,
    volume: &VolumeLoad,
    f: &Factors,
    count: usize,
    mb: f64,
    limits: &mut Vec<RateLimit>,
) {
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let only = |value: f64| {
        let mut coeff = vec![0.0; count];
        coeff[v] = value;
        coeff
    };
    let own = |kind, name: String, unit, coeff, capacity: Option<f64>, source: String| RateLimit {
        kind,
        volume: Some(v),
        name,
        unit,
        coeff,
        capacity,
        source,
    };
    if n > 1 {
        limits.push(own(
            LimitKind::VolumeIops,
            format!("{n} x {} striped, IOPS", disk.name),
            LimitUnit::Iops,
            only(f.disk_ios),
            Some(f.members * disk.iops.get()),
            disk.table.clone(),
        ));
        limits.push(own(
            LimitKind::VolumeThroughput,
            format!("{n} x {} striped, MB/s", disk.name),
            LimitUnit::MbPerSecond,
            only(f.disk_bytes / mb),
            Some(f.members * disk.throughput_mb_s.get()),
            disk.table.clone(),
        ));
    }
    limits.push(own(
        LimitKind::DiskIops,
        format!("per disk {} IOPS", disk.name),
        LimitUnit::Iops,
        only(f.disk_ios / f.members),
        Some(disk.iops.get()),
        disk.table.clone(),
    ));
    limits.push(own(
        LimitKind::DiskThroughput,
        format!("per disk {} MB/s", disk.name),
        LimitUnit::MbPerSecond,
        only(f.disk_bytes / mb / f.members),
        Some(disk.throughput_mb_s.get()),
        disk.table.clone(),
    ));
    if f.busy_members < n && f.disk_ios > 0.0 {
        limits.push(own(
            LimitKind::StripeMembersBusy,
            format!(
                "stripe members with work: {} of {n} at {} outstanding IOs",
                f.busy_members, f.outstanding
            ),
            LimitUnit::Iops,
            only(f.disk_ios),
            Some(f.busy_members as f64 * disk.iops.get()),
            disk.table.clone(),
        ));
    }
    limits.push(own(
        LimitKind::QueueDepth,
        format!(
            "queue depth: {} outstanding IOs / {} ms (Little's law)",
            f.outstanding, f.service_ms
        ),
        LimitUnit::Iops,
        only(1.0),
        Some(iops_from_outstanding(f.outstanding as f64, f.service_ms)),
        "assumption".into(),
    ));
    if let Some(burst) = disk.burst_iops {
        limits.push(own(
            LimitKind::DiskBurstIops,
            format!("per disk {} burst IOPS", disk.name),
            LimitUnit::Iops,
            only(f.disk_ios / f.members),
            Some(burst.get()),
            disk.table.clone(),
        ));
    }
    if let Some(burst) = disk.burst_throughput_mb_s {
        limits.push(own(
            LimitKind::DiskBurstThroughput,
            format!("per disk {} burst MB/s", disk.name),
            LimitUnit::MbPerSecond,
            only(f.disk_bytes / mb / f.members),
            Some(burst.get()),
            disk.table.clone(),
        ));
    }
}

/// The IOPS each volume's target asks for (enough for its MB/s at its IO size too).
pub(super) fn targets_of(volumes: &[VolumeLoad], factors: &[Factors], mb: f64) -> Vec<Option<f64>> {
    volumes
        .iter()
        .zip(factors)
        .map(|(volume, f)| {
            volume.target.as_ref().map(|t| {
                t.iops
                    .get()
                    .max(t.throughput_mb_s.get() * mb / f.host_bytes)
            })
        })
        .collect()
}
