//! Every check of a solved design, as a [`LimitCheck`] with its headroom: rates against limits,
//! slots, premium storage, cache size, queue depth, capacity, latency and targets, and the words
//! that name the binding limit.

use crate::assumptions::Assumptions;
use crate::limits::{Factors, RateLimit};
use crate::solve::{utilisation, Solution};
use crate::{
    fmt_num, fmt_num_precise, Binding, LimitCheck, LimitKind, LimitStatus, LimitUnit, Notes,
    QueueDepthCheck, Solved, VolumeLoad, VolumePrediction,
};
use crate::{Violation, Warning};
use iofit_catalog::VmSize;
use iofit_model::formulas::{iops_from_outstanding, latency_ms_from_outstanding, outstanding_ios};
use iofit_model::units::{GiB, Iops, MBps, Millis};
use iofit_model::SizingTarget;

/// Every rate limit at the operating point: used, headroom and status.
pub(super) fn rate_checks(
    limits: &[RateLimit],
    rates: &[f64],
    binding_index: Option<usize>,
    best: f64,
    volumes: &[VolumeLoad],
) -> Vec<LimitCheck> {
    limits
        .iter()
        .enumerate()
        .map(|(index, limit)| {
            let used = limit.used(rates);
            let (headroom, headroom_pct) = match limit.capacity {
                Some(capacity) => (
                    Some(capacity - used),
                    (capacity > 0.0).then(|| (capacity - used) / capacity * 100.0),
                ),
                None => (None, None),
            };
            let status = if limit.capacity.is_none() {
                LimitStatus::Unknown
            } else if !limit.sustained() {
                LimitStatus::Burst
            } else if Some(index) == binding_index {
                LimitStatus::Binding
            } else if utilisation(limit, rates)
                .is_some_and(|u| u >= 1.0 - 1e-9 && best >= 1.0 - 1e-9)
            {
                LimitStatus::AtLimit
            } else {
                LimitStatus::Ok
            };
            LimitCheck {
                kind: limit.kind,
                scope: match limit.volume {
                    None => "vm".to_string(),
                    Some(v) => volumes[v].design.label.clone(),
                },
                name: limit.name.clone(),
                unit: limit.unit,
                limit: limit.capacity,
                used,
                headroom,
                headroom_pct,
                status,
                source: limit.source.clone(),
                load_unknown: false,
            }
        })
        .collect()
}

/// The yes/no checks: data-disk slots, premium storage, host cache size.
pub(super) fn yes_no_checks(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    factors: &[Factors],
    assumptions: &Assumptions,
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    slots_check(vm, volumes, checks, notes);
    premium_check(vm, volumes, checks, notes);
    cache_size_check(vm, volumes, factors, assumptions, checks, notes);
}

/// The VM's data-disk slots against the disks of every volume.
fn slots_check(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    let vm_source = vm.table.clone();
    let total_disks: u32 = volumes.iter().map(|v| v.design.disk_count).sum();
    let slots_over = total_disks > vm.max_data_disks;
    checks.push(LimitCheck {
        kind: LimitKind::VmDataDisks,
        scope: "vm".into(),
        name: format!("VM data disks ({})", vm.name),
        unit: LimitUnit::Disks,
        limit: Some(vm.max_data_disks as f64),
        used: total_disks as f64,
        headroom: Some(vm.max_data_disks as f64 - total_disks as f64),
        headroom_pct: (vm.max_data_disks > 0).then(|| {
            (vm.max_data_disks as f64 - total_disks as f64) / vm.max_data_disks as f64 * 100.0
        }),
        status: if slots_over {
            LimitStatus::Over
        } else {
            LimitStatus::Ok
        },
        source: vm_source.clone(),
        load_unknown: false,
    });
    if slots_over {
        notes.violations.push(Violation::TooManyDisks {
            disks: total_disks,
            vm: vm.name.clone(),
            max: vm.max_data_disks,
        });
    }
}

/// Premium disks need a VM with premium storage.
fn premium_check(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    let vm_source = vm.table.clone();
    let needs_premium: Vec<&str> = volumes
        .iter()
        .filter(|v| v.disk.kind.needs_premium_vm())
        .map(|v| v.disk.name.as_str())
        .collect();
    if !needs_premium.is_empty() && !vm.premium_storage {
        notes.violations.push(Violation::NoPremiumStorage {
            vm: vm.name.clone(),
            disks: needs_premium.iter().map(|d| d.to_string()).collect(),
        });
        checks.push(LimitCheck {
            kind: LimitKind::VmPremiumStorage,
            scope: "vm".into(),
            name: format!("premium storage on {}", vm.name),
            unit: LimitUnit::Allowed,
            limit: Some(0.0),
            used: 1.0,
            headroom: Some(-1.0),
            headroom_pct: None,
            status: LimitStatus::Over,
            source: vm_source.clone(),
            load_unknown: false,
        });
    }
}

/// The host cache's size against the cached disks, when any volume is cached (it does not
/// throttle: a smaller cache lowers the hit ratio).
fn cache_size_check(
    vm: &VmSize,
    volumes: &[VolumeLoad],
    factors: &[Factors],
    assumptions: &Assumptions,
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) {
    let vm_source = vm.table.clone();
    let any_cached = factors.iter().any(|f| f.cached);
    let cached_gib: GiB = volumes
        .iter()
        .zip(factors)
        .filter(|(_, f)| f.cached)
        .map(|(v, _)| v.disk.size_gib * v.design.disk_count as f64)
        .sum();
    if any_cached {
        if let Some(cache) = vm.cache_size_gib {
            if cached_gib > cache && assumptions.cache_hit_pct > 0.0 {
                notes.warnings.push(Warning::CacheSmallerThanDisks {
                    vm: vm.name.clone(),
                    cached_gib,
                    cache_gib: cache,
                    cache_hit_pct: assumptions.cache_hit_pct,
                });
            }
        }
        // A limit check holds plain numbers in the unit it names (GiB here).
        let (limit, used) = (vm.cache_size_gib.map(|c| c.get()), cached_gib.get());
        checks.push(LimitCheck {
            kind: LimitKind::HostCacheSize,
            scope: "vm".into(),
            name: format!("host cache size ({}) vs cached disks", vm.name),
            unit: LimitUnit::Gib,
            limit,
            used,
            headroom: limit.map(|c| c - used),
            headroom_pct: limit.filter(|c| *c > 0.0).map(|c| (c - used) / c * 100.0),
            // The cache size does not throttle; a smaller cache lowers the hit ratio.
            status: if limit.is_some() {
                LimitStatus::Burst
            } else {
                LimitStatus::Unknown
            },
            source: vm_source.clone(),
            load_unknown: false,
        });
    }
}

/// One volume's results at the operating point: rates, latency (Little's law when throttled),
/// queue depth, what binds it, and whether it meets its target.
pub(super) fn volume_prediction(
    v: usize,
    volume: &VolumeLoad,
    f: &Factors,
    solved: &Solved<'_>,
    checks: &mut Vec<LimitCheck>,
    notes: &mut Notes,
) -> VolumePrediction {
    let mb = solved.mb;
    let label = volume.design.label.clone();
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let iops = solved.operating.rates[v];
    let max_iops = solved.max.rates[v];
    let throttled = solved.operating.binding[v].is_some();
    let latency_ms = if throttled && iops > 0.0 {
        latency_ms_from_outstanding(f.outstanding as f64, iops).max(f.service_ms)
    } else {
        f.service_ms
    };
    let target_latency_ms = volume
        .target
        .as_ref()
        .and_then(|t| t.latency_ms.map(|ms| ms.get()));
    let unpublished_limits: Vec<String> = solved
        .limits
        .iter()
        .filter(|l| l.capacity.is_none() && l.sustained() && l.coeff[v] > 0.0)
        .map(|l| l.name.clone())
        .collect();
    let queue = queue_check(volume, f, solved.targets[v], notes);
    let meets = volume.target.as_ref().map(|target| {
        let wanted = solved.targets[v].unwrap_or(0.0);
        let ok = iops >= wanted * (1.0 - 1e-9);
        let capacity_ok = capacity_check(volume, target, checks);
        let latency_ok = latency_check(&label, target, latency_ms, checks);
        ok & capacity_ok & latency_ok
    });
    VolumePrediction {
        label,
        disk_sku: disk.name.clone(),
        disk_table: disk.table.clone(),
        disk_kind: disk.kind,
        disk_count: n,
        caching: volume.design.caching,
        stripe_size_bytes: volume.design.stripe_size,
        read_pct: volume.workload.read_pct,
        random_pct: volume.workload.random_pct,
        read_io_size_bytes: volume.workload.read_io_size,
        write_io_size_bytes: volume.workload.write_io_size,
        max_iops: Iops(max_iops),
        max_throughput_mb_s: MBps(max_iops * f.host_bytes / mb),
        iops: Iops(iops),
        throughput_mb_s: MBps(iops * f.host_bytes / mb),
        read_iops: Iops(iops * f.read_share),
        write_iops: Iops(iops * (1.0 - f.read_share)),
        cache_read_iops: Iops(iops * f.read_share * f.hit_share),
        disk_iops: Iops(iops * f.disk_ios),
        latency_ms: Millis(latency_ms),
        disk_ios_per_read: f.split_read,
        disk_ios_per_write: f.split_write,
        queue,
        binding: binding_words(solved.limits, solved.max, v),
        // Flat out into an unpublished limit, the rate the IO size turns into MB/s is unknown.
        io_size_effect: io_size_effect(solved.limits, solved.max, v, f.host_bytes, mb)
            .filter(|_| volume.target.is_some() || unpublished_limits.is_empty()),
        target_iops: volume.target.as_ref().map(|t| t.iops),
        target_throughput_mb_s: volume.target.as_ref().map(|t| t.throughput_mb_s),
        target_latency_ms: target_latency_ms.map(Millis),
        meets_target: meets,
        unpublished_limits,
    }
}

/// The queue-depth check of one volume: members busy, depth to keep them all busy, to reach
/// the disks' limits, and (Little's law) to reach the target.
fn queue_check(
    volume: &VolumeLoad,
    f: &Factors,
    target_iops: Option<f64>,
    notes: &mut Notes,
) -> QueueDepthCheck {
    let label = &volume.design.label;
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let target_latency_ms = volume
        .target
        .as_ref()
        .and_then(|t| t.latency_ms.map(|ms| ms.get()));
    let per_disk_depth = outstanding_ios(disk.iops.get(), f.service_ms)
        .ceil()
        .max(1.0) as u32;
    let depth_for_target = target_iops.map(|t| {
        let latency_ms = target_latency_ms.unwrap_or(f.service_ms);
        (outstanding_ios(t, latency_ms) - 1e-9).ceil().max(1.0) as u32
    });
    let queue = QueueDepthCheck {
        outstanding_ios: f.outstanding,
        stripe_members: n,
        busy_members: f.busy_members,
        depth_to_keep_members_busy: n,
        depth_to_reach_disk_limits: per_disk_depth.saturating_mul(n),
        depth_for_target,
        littles_law_iops: Iops(iops_from_outstanding(f.outstanding as f64, f.service_ms)),
    };
    if f.busy_members < n {
        notes.warnings.push(Warning::IdleStripeMembers {
            volume: label.clone(),
            outstanding_ios: f.outstanding,
            members: n,
            busy_members: f.busy_members,
            depth_per_disk: per_disk_depth,
            service_ms: f.service_ms,
        });
    }
    queue
}

/// What caps volume `v` flat out, with the other limits it reaches at the same time.
fn binding_words(limits: &[RateLimit], max: &Solution, v: usize) -> String {
    match max.binding[v] {
        Some(index) => {
            // Other limits this volume also reaches when running flat out.
            let tied: Vec<&str> = limits
                .iter()
                .enumerate()
                .filter(|(other, limit)| {
                    *other != index
                        && limit.sustained()
                        && limit.coeff[v] > 0.0
                        && limit
                            .capacity
                            .is_some_and(|c| limit.used(&max.rates) >= c * (1.0 - 1e-9))
                })
                .map(|(_, limit)| limit.name.as_str())
                .collect();
            if tied.is_empty() {
                limits[index].name.clone()
            } else {
                format!("{} (also at: {})", limits[index].name, tied.join("; "))
            }
        }
        None => "its target".to_string(),
    }
}

/// Throughput = IOPS x IO size, made explicit for the limit that caps volume `v` flat out.
fn io_size_effect(
    limits: &[RateLimit],
    max: &Solution,
    v: usize,
    mean_size: f64,
    mb: f64,
) -> Option<String> {
    // Throughput = IOPS x IO size, made explicit for the limit that caps the volume.
    max.binding[v].and_then(|index| {
        let limit = &limits[index];
        let capacity = limit.capacity?;
        let size_text = iofit_model::Bytes(mean_size.round() as u64).readable();
        match limit.unit {
            LimitUnit::MbPerSecond => Some(format!(
                "at {size_text} per IO the {} MB/s limit allows {} IOPS \
                 ({} MB/s x {} bytes per MB / {} bytes)",
                fmt_num(capacity),
                fmt_num(max.rates[v]),
                fmt_num(max.rates[v] * mean_size / mb),
                fmt_num(mb),
                fmt_num(mean_size)
            )),
            LimitUnit::Iops => Some(format!(
                "at {size_text} per IO, {} IOPS move {} MB/s (IOPS x IO size)",
                fmt_num(max.rates[v]),
                fmt_num_precise(max.rates[v] * mean_size / mb)
            )),
            _ => None,
        }
    })
}

/// The capacity check of a volume with a capacity target; true when it holds.
fn capacity_check(
    volume: &VolumeLoad,
    target: &SizingTarget,
    checks: &mut Vec<LimitCheck>,
) -> bool {
    let Some(capacity) = target.capacity_gib else {
        return true;
    };
    let disk = &volume.disk;
    let n = volume.design.disk_count;
    let have = disk.size_gib * n as f64;
    let over = have < capacity * (1.0 - 1e-9);
    checks.push(LimitCheck {
        kind: LimitKind::Capacity,
        scope: volume.design.label.clone(),
        name: format!(
            "capacity {n} x {} ({} GiB each)",
            disk.name,
            fmt_num(disk.size_gib.get())
        ),
        unit: LimitUnit::Gib,
        limit: Some(have.get()),
        used: capacity.get(),
        headroom: Some((have - capacity).get()),
        headroom_pct: (have > GiB(0.0)).then(|| (have - capacity) / have * 100.0),
        status: if over {
            LimitStatus::Over
        } else {
            LimitStatus::Ok
        },
        source: disk.table.clone(),
        load_unknown: false,
    });
    !over
}

/// The latency check of a volume with a latency target; true when it holds.
fn latency_check(
    label: &str,
    target: &SizingTarget,
    latency_ms: f64,
    checks: &mut Vec<LimitCheck>,
) -> bool {
    let Some(wanted_latency) = target.latency_ms.map(|ms| ms.get()) else {
        return true;
    };
    let over = latency_ms > wanted_latency * (1.0 + 1e-9);
    checks.push(LimitCheck {
        kind: LimitKind::Latency,
        scope: label.to_string(),
        name: "expected latency vs target".into(),
        unit: LimitUnit::Milliseconds,
        limit: Some(wanted_latency),
        used: latency_ms,
        headroom: Some(wanted_latency - latency_ms),
        headroom_pct: Some((wanted_latency - latency_ms) / wanted_latency * 100.0),
        status: if over {
            LimitStatus::Over
        } else {
            LimitStatus::Ok
        },
        source: "assumption".into(),
        load_unknown: false,
    });
    !over
}

/// Capacity and latency misses as violations (so one list says what fails), and the limits
/// not published as a warning.
pub(super) fn target_violations(checks: &[LimitCheck], notes: &mut Notes) {
    for check in checks {
        if check.status == LimitStatus::Over
            && matches!(check.kind, LimitKind::Capacity | LimitKind::Latency)
        {
            // Reported through meets_target; listed here too so one list says what fails.
            let limit = check.limit.unwrap_or(0.0);
            notes.violations.push(if check.kind == LimitKind::Capacity {
                Violation::CapacityShort {
                    volume: check.scope.clone(),
                    needed_gib: check.used,
                    provided_gib: limit,
                }
            } else {
                Violation::LatencyOver {
                    volume: check.scope.clone(),
                    expected_ms: check.used,
                    target_ms: limit,
                }
            });
        }
    }
    let unknown: Vec<String> = checks
        .iter()
        .filter(|c| c.status == LimitStatus::Unknown)
        .map(|c| c.name.clone())
        .collect();
    if !unknown.is_empty() {
        notes
            .warnings
            .push(Warning::NotPublished { limits: unknown });
    }
}

/// The binding limit in words: capped by it, or the first to bind as load grows.
pub(super) fn binding_of(
    limits: &[RateLimit],
    index: usize,
    rates: &[f64],
    volumes: &[VolumeLoad],
) -> Binding {
    let limit = &limits[index];
    let capacity = limit.capacity.unwrap_or(0.0);
    let used = limit.used(rates);
    let at_limit = used >= capacity * (1.0 - 1e-9);
    let unit = limit.unit.suffix();
    let words = if at_limit {
        format!(
            "capped at {}{unit} by {} ({}{unit})",
            fmt_num(used),
            limit.name,
            fmt_num(capacity)
        )
    } else {
        format!(
            "not capped at the targets; the first limit to bind as load grows is {} \
             ({} of {}{unit} used, {:.0}% headroom){}",
            limit.name,
            fmt_num(used),
            fmt_num(capacity),
            (capacity - used) / capacity * 100.0,
            tied_with(limits, index, rates)
        )
    };
    Binding {
        kind: limit.kind,
        scope: match limit.volume {
            None => "vm".to_string(),
            Some(v) => volumes[v].design.label.clone(),
        },
        name: limit.name.clone(),
        unit: limit.unit,
        limit: capacity,
        used,
        words,
    }
}

/// Limits as close to binding as the one named (the same share used): named too, so that a
/// plan and a prediction that break the tie differently (a cold and a warm cache) do not seem
/// to disagree about what binds.
fn tied_with(limits: &[RateLimit], index: usize, rates: &[f64]) -> String {
    let share = |limit: &RateLimit| match limit.capacity {
        Some(capacity) if capacity > 0.0 => Some(limit.used(rates) / capacity),
        _ => None,
    };
    let Some(named) = share(&limits[index]) else {
        return String::new();
    };
    let tied: Vec<&str> = limits
        .iter()
        .enumerate()
        .filter(|(i, limit)| {
            *i != index && share(limit).is_some_and(|s| (s - named).abs() <= 1e-9 * named.max(1.0))
        })
        .map(|(_, limit)| limit.name.as_str())
        .collect();
    if tied.is_empty() {
        String::new()
    } else {
        format!("; as close: {}", tied.join(", "))
    }
}
