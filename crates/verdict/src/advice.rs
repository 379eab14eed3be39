//! The method's advice where a metric fails: which rule explains the failure and what to change.

use crate::checks::{Check, CompareContext, Metric, Verdict};
use crate::limits::LimitScope;
use crate::measured::Measured;
use crate::{AT_LIMIT_FRACTION, CACHE_HIT_LATENCY_MS, SHORT_RUN_S, STRIPE_QD_PER_DISK};
use iofit_model::design::HostCaching;
use iofit_model::formulas::outstanding_ios;
use iofit_model::requirements::VolumeRequirements;
use iofit_model::requirements::VolumeRole;
use iofit_model::units::group_thousands;
use serde::{Deserialize, Serialize};

/// Which rule of the method a piece of advice comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdviceKind {
    /// Little's law: the run kept too few IOs outstanding for the IOPS asked.
    TooFewOutstandingIos,
    /// A stripe needs disks x 8 outstanding IOs to keep every member busy.
    StripeQueueDepth,
    /// Reads on a host-cached volume looked like misses or the run was short.
    CacheNotWarmed,
    /// Measured at the VM's limit: more or faster disks will not help.
    CappedByVm,
    /// Measured at the disks' limit: more disks or a larger SKU.
    CappedByDisks,
    /// The benchmark used another IO size than the application.
    IoSizeUnlikeApplication,
    /// The benchmark used another read/write mix than the application.
    MixUnlikeApplication,
    /// Writes on a host-cached disk are slow; logs belong on caching None.
    WriteLatencyOnCachedDisk,
    /// More IOs outstanding than the target needs: they queue and add latency.
    QueueDepthRaisesLatency,
    /// A failure with no cause iofit can see in the results.
    NoCauseFound,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Advice {
    pub kind: AdviceKind,
    /// The failed metrics this advice explains.
    pub metrics: Vec<Metric>,
    pub message: String,
}

/// Which metrics failed their check, for the advice that explains them.
struct Failed<'a>(&'a [Check]);

impl Failed<'_> {
    fn any(&self, metric: Metric) -> bool {
        self.0
            .iter()
            .any(|check| check.metric == metric && check.verdict == Verdict::Fail)
    }
    fn of(&self, metrics: &[Metric]) -> Vec<Metric> {
        metrics.iter().copied().filter(|m| self.any(*m)).collect()
    }
}

/// The causes of the failed checks visible in the results, most basic first (a workload unlike
/// the application's makes every other number moot), then one line for what none explains.
pub(crate) fn advise(
    checks: &[Check],
    measured: &Measured,
    volume: &VolumeRequirements,
    context: &CompareContext,
) -> Vec<Advice> {
    let failed = Failed(checks);
    let mut advice = Vec::new();
    workload_advice(&failed, measured, &volume.sizing, &mut advice);
    queue_advice(&failed, measured, &volume.sizing, context, &mut advice);
    cache_advice(&failed, measured, volume, context, &mut advice);
    limit_advice(&failed, measured, context, &mut advice);
    unexplained_advice(checks, context, &mut advice);
    advice
}

/// An IO size or read share unlike the application's.
fn workload_advice(
    failed: &Failed,
    measured: &Measured,
    sizing: &iofit_model::requirements::SizingTarget,
    advice: &mut Vec<Advice>,
) {
    let rate_failures = failed.of(&[Metric::Iops, Metric::ThroughputMbS]);
    // IO size and mix first: with another workload the other numbers do not describe the app.
    if failed.any(Metric::IoSizeBytes) {
        if let Some(size) = measured.io_size_bytes {
            advice.push(Advice {
                kind: AdviceKind::IoSizeUnlikeApplication,
                metrics: [vec![Metric::IoSizeBytes], rate_failures.clone()].concat(),
                message: format!(
                    "the benchmark moved {} KiB per IO, the application {} KiB: IOPS and MB/s at \
                     another IO size describe another workload (smaller IOs give more IOPS, larger \
                     more MB/s); run again with bs={}",
                    Metric::IoSizeBytes.format(size),
                    Metric::IoSizeBytes.format(sizing.io_size_bytes.as_f64()),
                    fio_size(sizing.io_size_bytes.as_u64())
                ),
            });
        }
    }
    if failed.any(Metric::ReadPct) {
        if let Some(read_pct) = measured.read_pct {
            advice.push(Advice {
                kind: AdviceKind::MixUnlikeApplication,
                metrics: vec![Metric::ReadPct],
                message: format!(
                    "the benchmark read {read_pct:.1}% of its IOs, the application {:.1}%: run \
                     again with {}",
                    sizing.read_pct,
                    fio_mix(sizing.read_pct, sizing.random_pct)
                ),
            });
        }
    }
}

/// Too few IOs in flight for the IOPS, too many for the latency, or too few for a stripe.
fn queue_advice(
    failed: &Failed,
    measured: &Measured,
    sizing: &iofit_model::requirements::SizingTarget,
    context: &CompareContext,
    advice: &mut Vec<Advice>,
) {
    let rate_failures = failed.of(&[Metric::Iops, Metric::ThroughputMbS]);
    // Little's law: to reach the required IOPS at the latency measured, IOPS x latency IOs must
    // be outstanding.
    if failed.any(Metric::Iops) || failed.any(Metric::QueueDepth) {
        if let (Some(latency_ms), Some(outstanding)) =
            (measured.latency_ms_avg, measured.outstanding_ios)
        {
            let needed = outstanding_ios(sizing.iops.get(), latency_ms);
            if (outstanding as f64) < needed {
                advice.push(Advice {
                    kind: AdviceKind::TooFewOutstandingIos,
                    metrics: failed.of(&[Metric::Iops, Metric::QueueDepth]),
                    message: format!(
                        "too few IOs in flight: Little's law needs {} IOPS x {latency_ms:.3} ms = \
                         {needed:.1} outstanding, the run kept {outstanding} (iodepth x jobs); \
                         raise iodepth or numjobs (threads) to at least {}",
                        group_thousands(sizing.iops.get()),
                        needed.ceil()
                    ),
                });
            }
        }
    }

    // The other side of Little's law: IOs beyond what the target needs only wait in a queue,
    // and the method's factor table says lower queue depth gives lower latency.
    let latency_failures_now = failed.of(&[Metric::LatencyMsAvg, Metric::LatencyMsP99]);
    let target_ms = sizing.latency_ms.map(|ms| ms.get());
    if let (Some(target_ms), Some(outstanding)) = (target_ms, measured.outstanding_ios) {
        let enough = outstanding_ios(sizing.iops.get(), target_ms)
            .ceil()
            .max(1.0);
        if !latency_failures_now.is_empty() && f64::from(outstanding) > enough {
            advice.push(Advice {
                kind: AdviceKind::QueueDepthRaisesLatency,
                metrics: latency_failures_now.clone(),
                message: format!(
                    "the run kept {outstanding} IOs outstanding where Little's law needs only {} \
                     IOPS x {target_ms} ms = {enough:.0} for the target; the extra IOs wait in \
                     queues and add latency: measure latency at iodepth x numjobs = {enough:.0} \
                     (or run each test once with 1 thread to find the best latency, as the \
                     NetApp report does)",
                    group_thousands(sizing.iops.get())
                ),
            });
        }
    }

    // A stripe needs every member busy: disks x 8 outstanding IOs at least.
    if let (Some(disks), Some(outstanding)) = (context.disks, measured.outstanding_ios) {
        let floor = disks.saturating_mul(STRIPE_QD_PER_DISK);
        if disks > 1 && outstanding < floor && !rate_failures.is_empty() {
            advice.push(Advice {
                kind: AdviceKind::StripeQueueDepth,
                metrics: rate_failures.clone(),
                message: format!(
                    "queue depth {outstanding} is below {disks} disks x {STRIPE_QD_PER_DISK} = \
                     {floor} on this {disks}-disk stripe: the method wants {STRIPE_QD_PER_DISK} or \
                     more IOs outstanding per member disk to keep each busy; raise iodepth x \
                     numjobs to {floor} or more"
                ),
            });
        }
    }
}

/// A host cache not warmed, or writes through a host cache that slows them.
fn cache_advice(
    failed: &Failed,
    measured: &Measured,
    volume: &VolumeRequirements,
    context: &CompareContext,
    advice: &mut Vec<Advice>,
) {
    let sizing = &volume.sizing;
    let cached = context.caching.is_some_and(HostCaching::is_cached);
    let caching_name = context.caching.unwrap_or_default();

    // Host cache not warm: reads slower than a cache hit, or too short a run to fill the cache.
    let read_failures = failed.of(&[
        Metric::Iops,
        Metric::ThroughputMbS,
        Metric::LatencyMsAvg,
        Metric::LatencyMsP99,
    ]);
    if cached && measured.read_ios > 0 && !read_failures.is_empty() {
        let slow_reads = measured
            .read_latency_ms_avg
            .filter(|latency| *latency > CACHE_HIT_LATENCY_MS);
        let short = measured.runtime_s.get() < SHORT_RUN_S;
        if slow_reads.is_some() || short {
            let mut evidence = Vec::new();
            if let Some(latency) = slow_reads {
                evidence.push(format!(
                    "reads averaged {latency:.3} ms where cache hits take under \
                     {CACHE_HIT_LATENCY_MS} ms"
                ));
            }
            if short {
                evidence.push(format!(
                    "the run lasted {:.0} s (under {SHORT_RUN_S:.0} s)",
                    measured.runtime_s.get()
                ));
            }
            advice.push(Advice {
                kind: AdviceKind::CacheNotWarmed,
                metrics: read_failures.clone(),
                message: format!(
                    "the {caching_name} host cache was probably not warm: {}; warm it as the seed \
                     does (RandomWrites_1MB then RandomReads_1MB, 2 h each, 3 workers at QD 128, \
                     after every VM restart) and measure again",
                    evidence.join(" and ")
                ),
            });
        }
    }

    // Writes through a host cache are slower than on an uncached disk; logs belong on None.
    let latency_failures = failed.of(&[Metric::LatencyMsAvg, Metric::LatencyMsP99]);
    let write_heavy = measured.read_pct.is_some_and(|read_pct| read_pct < 50.0);
    let writes_slow = match (
        measured.write_latency_ms_avg,
        sizing.latency_ms.map(|ms| ms.get()),
    ) {
        (Some(write), Some(target)) => write > target,
        (Some(_), None) => true,
        (None, _) => false,
    };
    let caching_wrong_for_writes = volume.role == VolumeRole::Log
        || write_heavy
        || context.caching == Some(HostCaching::ReadWrite);
    if cached
        && measured.write_ios > 0
        && writes_slow
        && caching_wrong_for_writes
        && !latency_failures.is_empty()
    {
        let write_latency = measured
            .write_latency_ms_avg
            .map(|latency| format!("writes averaged {latency:.3} ms on "))
            .unwrap_or_default();
        let role_text = if volume.role == VolumeRole::Log {
            "a log volume belongs on host caching None"
        } else {
            "write-heavy disks (database logs) belong on host caching None, ReadOnly only where reads dominate"
        };
        advice.push(Advice {
            kind: AdviceKind::WriteLatencyOnCachedDisk,
            metrics: latency_failures.clone(),
            message: format!(
                "{write_latency}a disk with host caching {caching_name}: {role_text} (changing it \
                 detaches and reattaches the disk)"
            ),
        });
    }
}

/// A failed rate measured at the limit the prediction says binds: the VM's or the disks'.
fn limit_advice(
    failed: &Failed,
    measured: &Measured,
    context: &CompareContext,
    advice: &mut Vec<Advice>,
) {
    // A prediction says which limit binds; a measured rate at that limit names the cap.
    // Limits in MiB/s come from tables that count 1 MB = 2^20 bytes (the seed's); the measured
    // rate is converted to match rather than the published limit being restated.
    for (metric, unit, value) in [
        (Metric::Iops, "IOPS", measured.iops.get()),
        (
            Metric::ThroughputMbS,
            "MB/s",
            measured.throughput_mb_s.get(),
        ),
        (
            Metric::ThroughputMbS,
            "MiB/s",
            measured.throughput_mb_s.get() * 1e6 / 1_048_576.0,
        ),
    ] {
        if !failed.any(metric) {
            continue;
        }
        let Some(limit) = context
            .limits
            .iter()
            .find(|limit| limit.binding && limit.unit == unit)
        else {
            continue;
        };
        // At the limit means within the band around it; far above it the prediction missed
        // something (cache hits, bursting) and naming it as the cap would mislead.
        if value < limit.value * AT_LIMIT_FRACTION
            || value > limit.value * (2.0 - AT_LIMIT_FRACTION)
        {
            continue;
        }
        let disk_limit = context
            .limits
            .iter()
            .filter(|other| other.unit == unit && other.scope == LimitScope::Disk)
            .map(|other| other.value)
            .reduce(f64::min);
        match limit.scope {
            LimitScope::Vm | LimitScope::Cache => advice.push(Advice {
                kind: AdviceKind::CappedByVm,
                metrics: vec![metric],
                message: format!(
                    "capped by the VM, not the disks: {} {unit} measured at the VM's limit '{}' \
                     ({} {unit}){}; more or larger disks will not help, pick a VM size whose \
                     limit is above the requirement",
                    group_thousands(value),
                    limit.name,
                    group_thousands(limit.value),
                    disk_limit
                        .map(|disks| format!(" while the disks allow {}", group_thousands(disks)))
                        .unwrap_or_default()
                ),
            }),
            LimitScope::Disk => advice.push(Advice {
                kind: AdviceKind::CappedByDisks,
                metrics: vec![metric],
                message: format!(
                    "capped by the disks: {} {unit} measured at the disks' limit '{}' ({} {unit}); \
                     stripe more disks or choose a larger disk size, within the VM's limit",
                    group_thousands(value),
                    limit.name,
                    group_thousands(limit.value)
                ),
            }),
            _ => {}
        }
    }
}

/// The failed metrics no advice explains, with where to look next.
fn unexplained_advice(checks: &[Check], context: &CompareContext, advice: &mut Vec<Advice>) {
    let explained: Vec<Metric> = advice
        .iter()
        .flat_map(|advice| advice.metrics.iter().copied())
        .collect();
    let unexplained: Vec<Metric> = checks
        .iter()
        .filter(|check| check.verdict == Verdict::Fail && !explained.contains(&check.metric))
        .map(|check| check.metric)
        .collect();
    if !unexplained.is_empty() {
        let names: Vec<&str> = unexplained.iter().map(|metric| metric.label()).collect();
        let mut message = format!(
            "{} failed with no cause visible in the results",
            names.join(", ")
        );
        if context.limits.is_empty() {
            message.push_str(
                "; give the design (--vm SIZE --disk COUNTxSKU:CACHING) so compare can predict \
                 its limits and name the one that binds",
            );
        } else {
            message.push_str(
                "; the storage itself is the likely limit at this load: compare the design's \
                 latency and limits with `iofit predict`",
            );
        }
        advice.push(Advice {
            kind: AdviceKind::NoCauseFound,
            metrics: unexplained,
            message,
        });
    }
}

/// The fio options that give a read share and randomness: `rw=randrw rwmixread=70`,
/// `rw=randread`, `rw=write`...
pub(crate) fn fio_mix(read_pct: f64, random_pct: f64) -> String {
    let random = random_pct >= 50.0;
    let read_pct = read_pct.round();
    match (read_pct as u32, random) {
        (100, true) => "rw=randread".to_string(),
        (100, false) => "rw=read".to_string(),
        (0, true) => "rw=randwrite".to_string(),
        (0, false) => "rw=write".to_string(),
        (share, true) => format!("rw=randrw rwmixread={share}"),
        (share, false) => format!("rw=rw rwmixread={share}"),
    }
}

/// A byte count as fio's `bs=` writes it: 8192 -> "8k", 1048576 -> "1m", 1000 -> "1000".
fn fio_size(bytes: u64) -> String {
    for (size, suffix) in [(1u64 << 30, "g"), (1 << 20, "m"), (1 << 10, "k")] {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{suffix}", bytes / size);
        }
    }
    bytes.to_string()
}
