//! Solving the limits: the largest rates that respect every limit (shared limits scale their
//! volumes down in proportion), which limit binds, the VM's demand, and burst capacity.

use crate::assumptions::Assumptions;
use crate::limits::{targets_of, volume_factors, Factors, RateLimit};
use crate::{BurstFigure, LimitKind, Notes, PredictError, VolumeLoad, BURST_CREDIT_SECONDS, EPS};
use iofit_catalog::VmSize;
use iofit_model::units::{Iops, MBps, Seconds};

pub(super) struct Solution {
    pub(super) rates: Vec<f64>,
    /// Index into the limits of what capped each volume; `None`: the target.
    pub(super) binding: Vec<Option<usize>>,
}

/// Each volume as fast as its own limits (and target) allow, then shared limits scale the
/// volumes that use them in proportion. Every limit holds afterwards: a volume's rate only
/// drops, and each shared limit's load is at most its capacity.
pub(super) fn solve(
    limits: &[RateLimit],
    volume_count: usize,
    targets: &[Option<f64>],
) -> Solution {
    let mut rates = vec![f64::INFINITY; volume_count];
    let mut binding = vec![None; volume_count];
    for (index, limit) in limits.iter().enumerate() {
        let (Some(v), Some(capacity), true) = (limit.volume, limit.capacity, limit.sustained())
        else {
            continue;
        };
        if limit.coeff[v] > 0.0 {
            let bound = capacity / limit.coeff[v];
            if bound < rates[v] * (1.0 - EPS) {
                rates[v] = bound;
                binding[v] = Some(index);
            }
        }
    }
    for v in 0..volume_count {
        if let Some(target) = targets[v] {
            if target < rates[v] {
                rates[v] = target;
                binding[v] = None;
            }
        }
    }
    let mut factors = vec![1.0_f64; volume_count];
    let mut shared_binding: Vec<Option<usize>> = vec![None; volume_count];
    for (index, limit) in limits.iter().enumerate() {
        let (None, Some(capacity), true) = (limit.volume, limit.capacity, limit.sustained()) else {
            continue;
        };
        let load = limit.used(&rates);
        if load > capacity * (1.0 + EPS) {
            let factor = capacity / load;
            for v in 0..volume_count {
                if limit.coeff[v] > 0.0 && factor < factors[v] {
                    factors[v] = factor;
                    shared_binding[v] = Some(index);
                }
            }
        }
    }
    for v in 0..volume_count {
        if shared_binding[v].is_some() {
            rates[v] *= factors[v];
            binding[v] = shared_binding[v];
        }
    }
    Solution { rates, binding }
}

/// What one volume asks of its VM's shared rate limits at its target: the IOs and MB/s the
/// host sees, and which of the VM's two pools (cached or uncached) carries them. Predict's own
/// factors, so a search can add volumes' demands and compare them with the VM's limits exactly
/// as [`predict`](crate::predict) does. `None` without a target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VmDemand {
    /// Counted against the VM's cached limits (else its uncached ones).
    pub cached: bool,
    pub iops: Iops,
    pub throughput_mb_s: MBps,
}

/// The [`VmDemand`] of `volume` on `vm`; `None` when the volume has no target.
pub fn vm_demand(
    vm: &VmSize,
    volume: &VolumeLoad,
    assumptions: &Assumptions,
) -> Result<Option<VmDemand>, PredictError> {
    let mb = assumptions.mb.bytes_per_mb();
    let f = volume_factors(vm, volume, assumptions, &mut Notes::default())?;
    let target = targets_of(std::slice::from_ref(volume), std::slice::from_ref(&f), mb)[0];
    Ok(target.map(|rate| VmDemand {
        cached: f.cached,
        iops: Iops(rate * f.host_ios),
        throughput_mb_s: MBps(rate * f.host_bytes / mb),
    }))
}

/// A limit's burst capacity where it bursts by credits: the VM's uncached limits, a disk's
/// (and so a stripe's, and the members a queue keeps busy); `None` where it does not burst.
fn burst_capacity(limit: &RateLimit, vm: &VmSize, volumes: &[VolumeLoad]) -> Option<f64> {
    let capacity = limit.capacity?;
    let disk = limit.volume.map(|v| &volumes[v].disk);
    let ratio = |burst: Option<f64>, base: f64| burst.filter(|b| *b > base).map(|b| b / base);
    let factor = match (limit.kind, disk) {
        (LimitKind::VmUncachedIops, _) => ratio(vm.burst_uncached_iops.map(|v| v.0), capacity),
        (LimitKind::VmUncachedThroughput, _) => {
            ratio(vm.burst_uncached_throughput_mb_s.map(|v| v.0), capacity)
        }
        (LimitKind::DiskIops | LimitKind::VolumeIops | LimitKind::StripeMembersBusy, Some(d)) => {
            ratio(d.burst_iops.map(Iops::get), d.iops.get())
        }
        (LimitKind::DiskThroughput | LimitKind::VolumeThroughput, Some(d)) => ratio(
            d.burst_throughput_mb_s.map(MBps::get),
            d.throughput_mb_s.get(),
        ),
        _ => None,
    }?;
    Some(capacity * factor)
}

/// The design flat out with every credit-bursting limit at its burst figure, and how long the
/// first bucket to run dry lasts at that rate; `None` where bursting adds nothing.
pub(super) fn burst_figure(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    limits: &[RateLimit],
    factors: &[Factors],
    sustained: &Solution,
    mb: f64,
) -> Option<BurstFigure> {
    let bursting: Vec<RateLimit> = limits
        .iter()
        .map(|limit| RateLimit {
            capacity: burst_capacity(limit, vm, volumes).or(limit.capacity),
            ..limit.clone()
        })
        .collect();
    let solved = solve(&bursting, volumes.len(), &vec![None; volumes.len()]);
    let total_iops: f64 = solved.rates.iter().sum();
    let sustained_iops: f64 = sustained.rates.iter().sum();
    if total_iops <= sustained_iops * (1.0 + 1e-6) || total_iops.is_nan() {
        return None;
    }
    // Each bucket holds (burst - base) x 30 min and drains by what is used above the base.
    let credit_seconds = limits
        .iter()
        .zip(&bursting)
        .filter_map(|(base, burst)| {
            let (base_cap, burst_cap) = (base.capacity?, burst.capacity?);
            let drain = base.used(&solved.rates) - base_cap;
            (burst_cap > base_cap && drain > 0.0)
                .then(|| (burst_cap - base_cap) * BURST_CREDIT_SECONDS / drain)
        })
        .fold(f64::INFINITY, f64::min);
    if !credit_seconds.is_finite() {
        return None;
    }
    let (index, _) = binding_limit(&bursting, &solved.rates);
    Some(BurstFigure {
        total_iops: Iops(total_iops),
        total_throughput_mb_s: MBps(
            solved
                .rates
                .iter()
                .zip(factors)
                .map(|(x, f)| x * f.host_bytes / mb)
                .sum(),
        ),
        credit_seconds: Seconds(credit_seconds),
        binding: index.map_or_else(|| "none known".to_string(), |i| bursting[i].name.clone()),
    })
}

/// How much of a sustained limit the rates use (`None`: unpublished, burst or zero).
pub(super) fn utilisation(limit: &RateLimit, rates: &[f64]) -> Option<f64> {
    let capacity = limit.capacity?;
    if !limit.sustained() || capacity <= 0.0 {
        return None;
    }
    Some(limit.used(rates) / capacity)
}

/// The binding limit: the most used sustained limit at the operating point, and its use.
pub(super) fn binding_limit(limits: &[RateLimit], rates: &[f64]) -> (Option<usize>, f64) {
    let mut binding_index: Option<usize> = None;
    let mut best = -1.0;
    for (index, limit) in limits.iter().enumerate() {
        if let Some(u) = utilisation(limit, rates) {
            if u > best * (1.0 + 1e-9) + 1e-12 {
                best = u;
                binding_index = Some(index);
            }
        }
    }
    (binding_index, best)
}
