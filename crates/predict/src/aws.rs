//! What an AWS design delivers: an EC2 instance with EBS volumes, each capped twice (per volume
//! and by the instance's dedicated EBS bandwidth), as AWS documents it. Nothing of Azure's
//! model is reused: AWS has no host cache, the instance's smaller sizes hold their maximum
//! only 30 minutes per 24 hours, gp2 bursts on I/O credits, and gp3 is bought by IOPS and MiB/s.
//!
//! IO sizes: EBS counts one SSD operation per 256 KiB and one HDD operation per 1 MiB (larger
//! IOs are split: Amazon EC2 User Guide, 'I/O characteristics and monitoring'); the instance's
//! IOPS limit is counted the same way as its SSD volumes'.

use iofit_catalog::clouds::aws::{AwsInstance, EbsKind, EbsVolumeType};
use iofit_model::units::{Bytes, GiB, Iops, MBps, MiBps, Seconds};
use serde::{Deserialize, Serialize};

/// Bytes in one MiB and one MB.
const MIB: f64 = 1_048_576.0;
const MB: f64 = 1_000_000.0;

/// One volume of a design: `count` identical EBS volumes striped together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsVolumeSpec {
    pub label: String,
    pub count: u32,
    pub volume_type: String,
    /// Size of each volume.
    pub size_gib: GiB,
    /// Provisioned IOPS of each volume (gp3, io2).
    pub iops: Option<Iops>,
    /// Provisioned throughput of each volume, MiB/s (gp3), AWS's `--throughput` unit.
    pub throughput_mib_s: Option<MiBps>,
}

/// Why a volume spec is not a volume AWS would create.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("volume '{label}' ({volume_type}): {problem}")]
pub struct AwsSpecError {
    pub label: String,
    pub volume_type: String,
    pub problem: String,
}

/// What one EBS volume can do, sustained and while it bursts (gp2 credits, st1 credits).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VolumeCaps {
    pub iops: Iops,
    pub throughput_mib_s: MiBps,
    pub burst_iops: Iops,
    pub burst_throughput_mib_s: MiBps,
    /// How long the burst lasts from a full credit balance, seconds (gp2); `None` where the
    /// volume does not burst or the duration is not modelled (st1).
    pub burst_seconds: Option<Seconds>,
    /// The largest operation the volume counts as one, bytes.
    #[serde(with = "iofit_model::units::bytes_as_f64")]
    pub op_bytes: Bytes,
}

fn spec_error(spec: &AwsVolumeSpec, problem: String) -> AwsSpecError {
    AwsSpecError {
        label: spec.label.clone(),
        volume_type: spec.volume_type.clone(),
        problem,
    }
}

/// The per-volume limits of `spec` under `rules`, checked against what AWS allows.
pub fn volume_caps(
    spec: &AwsVolumeSpec,
    rules: &EbsVolumeType,
) -> Result<VolumeCaps, AwsSpecError> {
    let n = |name: &str| rules.number(name);
    if !(spec.size_gib >= rules.size_gib_min && spec.size_gib <= rules.size_gib_max) {
        return Err(spec_error(
            spec,
            format!(
                "size {} GiB is outside {}..{} GiB",
                spec.size_gib.get(),
                rules.size_gib_min.get(),
                rules.size_gib_max.get()
            ),
        ));
    }
    let size = spec.size_gib.get();
    let ssd_op = Bytes::kib(256);
    let caps = match rules.kind() {
        EbsKind::Gp3 => {
            let iops = spec.iops.map_or(n("iops_baseline"), Iops::get);
            let iops_cap = n("iops_max")
                .min(n("iops_per_gib_max") * size)
                .max(n("iops_baseline"));
            if iops < n("iops_baseline") || iops > iops_cap {
                return Err(spec_error(
                    spec,
                    format!(
                        "iops={iops}: a {size} GiB {} volume takes {}..{} IOPS ({} per GiB, at most {})",
                        rules.name, n("iops_baseline"), iops_cap, n("iops_per_gib_max"), n("iops_max")
                    ),
                ));
            }
            let mib_s = spec
                .throughput_mib_s
                .map_or(n("throughput_mib_s_baseline"), MiBps::get);
            let mib_s_cap = n("throughput_mib_s_max")
                .min(n("throughput_mib_s_per_iops_max") * iops)
                .max(n("throughput_mib_s_baseline"));
            if mib_s < n("throughput_mib_s_baseline") || mib_s > mib_s_cap + 1e-9 {
                return Err(spec_error(
                    spec,
                    format!(
                        "throughput {mib_s:.1} MiB/s: {} with {iops} IOPS takes {}..{mib_s_cap} MiB/s ({} MiB/s per IOPS, at most {})",
                        rules.name, n("throughput_mib_s_baseline"), n("throughput_mib_s_per_iops_max"), n("throughput_mib_s_max")
                    ),
                ));
            }
            VolumeCaps {
                iops: Iops(iops),
                throughput_mib_s: MiBps(mib_s),
                burst_iops: Iops(iops),
                burst_throughput_mib_s: MiBps(mib_s),
                burst_seconds: None,
                op_bytes: ssd_op,
            }
        }
        EbsKind::Gp2 => gp2_caps(spec, rules)?,
        EbsKind::Io2 => {
            let iops = provisioned_iops(spec, rules)?;
            let mib_s = if iops <= n("low_iops_max") {
                n("throughput_mib_s_max_low_iops")
            } else {
                (iops * n("throughput_kib_per_iops_high") / 1024.0).min(n("throughput_mib_s_max"))
            };
            VolumeCaps {
                iops: Iops(iops),
                throughput_mib_s: MiBps(mib_s),
                burst_iops: Iops(iops),
                burst_throughput_mib_s: MiBps(mib_s),
                burst_seconds: None,
                // A whole number of KiB in the catalog (io2: 256).
                op_bytes: Bytes(
                    rules
                        .io_size_kib_max
                        .unwrap_or_default()
                        .to_bytes_f64()
                        .round() as u64,
                ),
            }
        }
        EbsKind::Io2BlockExpress => io2_block_express_caps(spec, rules, ssd_op)?,
        EbsKind::St1 => {
            let tib = spec.size_gib.to_tib().get();
            VolumeCaps {
                iops: Iops(n("iops_max")),
                throughput_mib_s: MiBps(
                    (n("throughput_mib_s_per_tib_baseline") * tib).min(n("throughput_mib_s_max")),
                ),
                burst_iops: Iops(n("iops_max")),
                burst_throughput_mib_s: MiBps(
                    (n("throughput_mib_s_per_tib_burst") * tib).min(n("throughput_mib_s_max")),
                ),
                burst_seconds: None,
                op_bytes: Bytes::mib(1),
            }
        }
    };
    Ok(caps)
}

/// The IOPS an io1/io2 spec provisions, within `iops_min`..`iops_per_gib_max` x size (at most
/// `iops_max`).
fn provisioned_iops(spec: &AwsVolumeSpec, rules: &EbsVolumeType) -> Result<f64, AwsSpecError> {
    let n = |name: &str| rules.number(name);
    let size = spec.size_gib.get();
    let iops = spec.iops.map(Iops::get).ok_or_else(|| {
        spec_error(
            spec,
            format!("{} needs iops=N (provisioned IOPS)", rules.name),
        )
    })?;
    let iops_cap = n("iops_max").min(n("iops_per_gib_max") * size);
    if iops < n("iops_min") || iops > iops_cap {
        return Err(spec_error(
            spec,
            format!(
                "iops={iops}: a {size} GiB {} volume takes {}..{iops_cap} IOPS ({} per GiB, at most {})",
                rules.name, n("iops_min"), n("iops_per_gib_max"), n("iops_max")
            ),
        ));
    }
    Ok(iops)
}

/// io2 Block Express: provisioned IOPS up to `iops_per_gib_max` x size and `iops_max`;
/// throughput follows the IOPS at `throughput_mib_s_per_iops_max` up to `throughput_mib_s_max`
/// ('Throughput scales proportionally up to 0.256 MiB/s per provisioned IOPS').
fn io2_block_express_caps(
    spec: &AwsVolumeSpec,
    rules: &EbsVolumeType,
    op_bytes: Bytes,
) -> Result<VolumeCaps, AwsSpecError> {
    let n = |name: &str| rules.number(name);
    let iops = provisioned_iops(spec, rules)?;
    if spec.throughput_mib_s.is_some() {
        return Err(spec_error(
            spec,
            format!(
                "{} throughput follows its IOPS ({} MiB/s per IOPS, at most {}); give iops=N only",
                rules.name,
                n("throughput_mib_s_per_iops_max"),
                n("throughput_mib_s_max")
            ),
        ));
    }
    let mib_s = (iops * n("throughput_mib_s_per_iops_max")).min(n("throughput_mib_s_max"));
    Ok(VolumeCaps {
        iops: Iops(iops),
        throughput_mib_s: MiBps(mib_s),
        burst_iops: Iops(iops),
        burst_throughput_mib_s: MiBps(mib_s),
        burst_seconds: None,
        op_bytes,
    })
}

/// gp2: 3 IOPS per GiB (100..16,000); under 1 TiB it bursts to 3,000 IOPS while its credits
/// last: `balance / (burst - baseline)` seconds from a full 5.4 million.
fn gp2_caps(spec: &AwsVolumeSpec, rules: &EbsVolumeType) -> Result<VolumeCaps, AwsSpecError> {
    let n = |name: &str| rules.number(name);
    if spec.iops.is_some() || spec.throughput_mib_s.is_some() {
        return Err(spec_error(
            spec,
            "gp2 performance follows its size; give size_gib only (or use gp3 to provision IOPS and MiB/s)".into(),
        ));
    }
    let size = spec.size_gib;
    let iops = (n("iops_per_gib") * size.get()).clamp(n("iops_min"), n("iops_max"));
    let bursts = size < rules.burst_size_gib_below.unwrap_or_default() && iops < n("burst_iops");
    let burst_iops = if bursts { n("burst_iops") } else { iops };
    let mib_s = if size >= rules.throughput_max_size_gib_min.unwrap_or_default() {
        n("throughput_mib_s_max")
    } else {
        n("throughput_mib_s_small")
    };
    let burst_mib_s = if size > rules.throughput_small_size_gib_max.unwrap_or_default() {
        n("throughput_mib_s_max")
    } else {
        mib_s
    };
    Ok(VolumeCaps {
        iops: Iops(iops),
        throughput_mib_s: MiBps(mib_s),
        burst_iops: Iops(burst_iops),
        burst_throughput_mib_s: MiBps(burst_mib_s),
        burst_seconds: bursts.then(|| Seconds(n("burst_credits_max") / (burst_iops - iops))),
        op_bytes: Bytes::kib(256),
    })
}

/// The demand on one volume: what the application asks for at one IO size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsDemand {
    pub iops: Iops,
    pub throughput_mb_s: MBps,
    #[serde(with = "iofit_model::units::bytes_as_f64")]
    pub io_size_bytes: Bytes,
}

/// One limit met by one volume's IO, in the application's IOs at its IO size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsLimit {
    /// What it is: `volume data: 2 x gp3 IOPS`, `instance m6i.2xlarge baseline MB/s`.
    pub name: String,
    /// The limit as the cloud states it, with its unit.
    pub stated: String,
    /// The application IOPS this limit allows for this volume's share.
    pub iops_allowed: f64,
}

/// What one volume delivers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsVolumeResult {
    pub label: String,
    pub demand: AwsDemand,
    pub delivered_iops: Iops,
    pub delivered_mb_s: MBps,
    pub binding: String,
    /// `(limit - demand) / limit` of the binding limit, percent (negative: throttled).
    pub headroom_pct: f64,
    pub limits: Vec<AwsLimit>,
}

/// Which of the two states AWS describes is predicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AwsState {
    /// Instance baseline, gp2/st1 baseline: what holds all day.
    Sustained,
    /// Instance maximum (30 minutes per 24 hours on smaller sizes), gp2/st1 burst.
    Burst,
}

/// What a design delivers in one state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AwsPrediction {
    pub instance: String,
    pub state: AwsState,
    pub volumes: Vec<AwsVolumeResult>,
    pub delivered_iops: Iops,
    pub delivered_mb_s: MBps,
    /// The limit that binds first over the whole design.
    pub binding: String,
    pub headroom_pct: f64,
    /// How long this state lasts, words (`sustained`, `30 minutes per 24 hours`...).
    pub held_for: String,
    /// Whether every volume gets its whole demand.
    pub meets: bool,
}

fn ops_per_io(io_size_bytes: f64, op_bytes: f64) -> f64 {
    (io_size_bytes / op_bytes).ceil().max(1.0)
}

/// Predicts `volumes` (each with its rules and demand) on `instance` in `state`.
pub fn predict(
    instance: &AwsInstance,
    volumes: &[(AwsVolumeSpec, &EbsVolumeType, AwsDemand)],
    state: AwsState,
) -> Result<AwsPrediction, AwsSpecError> {
    let burst = state == AwsState::Burst;
    let mut results = Vec::new();
    for (spec, rules, demand) in volumes {
        let caps = volume_caps(spec, rules)?;
        let count = spec.count.max(1) as f64;
        let (iops, mib_s) = if burst {
            (caps.burst_iops.get(), caps.burst_throughput_mib_s.get())
        } else {
            (caps.iops.get(), caps.throughput_mib_s.get())
        };
        let io = demand.io_size_bytes.as_f64().max(512.0);
        let ops = ops_per_io(io, caps.op_bytes.as_f64());
        let what = format!(
            "volume {}: {} x {}",
            spec.label, spec.count, spec.volume_type
        );
        let limits = vec![
            AwsLimit {
                name: format!("{what} IOPS"),
                stated: format!("{:.0} IOPS ({:.0} each)", iops * count, iops),
                iops_allowed: iops * count / ops,
            },
            AwsLimit {
                name: format!("{what} throughput"),
                stated: format!("{:.0} MiB/s ({:.0} each)", mib_s * count, mib_s),
                iops_allowed: mib_s * count * MIB / io,
            },
        ];
        results.push(AwsVolumeResult {
            label: spec.label.clone(),
            demand: demand.clone(),
            delivered_iops: Iops(0.0),
            delivered_mb_s: MBps(0.0),
            binding: String::new(),
            headroom_pct: 0.0,
            limits,
        });
    }
    apply_instance(instance, &mut results, burst);
    Ok(summarise(instance, results, state))
}

/// Shares the instance's IOPS and MB/s between the volumes in proportion to their demand.
fn apply_instance(instance: &AwsInstance, results: &mut [AwsVolumeResult], burst: bool) {
    let (iops, mb_s, which) = if burst {
        (
            instance.maximum_iops.get(),
            instance.maximum_throughput_mb_s.get(),
            "maximum",
        )
    } else {
        (
            instance.baseline_iops.get(),
            instance.baseline_throughput_mb_s.get(),
            "baseline",
        )
    };
    let ops_demand: f64 = results
        .iter()
        .map(|r| r.demand.iops.get() * ops_per_io(r.demand.io_size_bytes.as_f64(), 256.0 * 1024.0))
        .sum();
    let bytes_demand: f64 = results
        .iter()
        .map(|r| r.demand.iops.get() * r.demand.io_size_bytes.as_f64())
        .sum();
    for result in results.iter_mut() {
        let io = result.demand.io_size_bytes.as_f64().max(512.0);
        let ops_share = if ops_demand > 0.0 {
            result.demand.iops.get() * ops_per_io(io, 256.0 * 1024.0) / ops_demand
        } else {
            1.0
        };
        let bytes_share = if bytes_demand > 0.0 {
            result.demand.iops.get() * io / bytes_demand
        } else {
            1.0
        };
        result.limits.push(AwsLimit {
            name: format!("instance {} {which} IOPS", instance.name),
            stated: format!("{iops:.0} IOPS (16 KiB I/O)"),
            iops_allowed: iops * ops_share / ops_per_io(io, 256.0 * 1024.0),
        });
        result.limits.push(AwsLimit {
            name: format!("instance {} {which} throughput", instance.name),
            stated: format!("{mb_s:.2} MB/s (128 KiB I/O)"),
            iops_allowed: mb_s * MB * bytes_share / io,
        });
    }
}

fn summarise(
    instance: &AwsInstance,
    mut results: Vec<AwsVolumeResult>,
    state: AwsState,
) -> AwsPrediction {
    let mut worst: Option<(f64, String)> = None;
    for result in &mut results {
        let binding = result
            .limits
            .iter()
            .min_by(|a, b| a.iops_allowed.total_cmp(&b.iops_allowed))
            .cloned();
        let Some(binding) = binding else { continue };
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
    let held_for = match (state, instance.burst_minutes_per_24h) {
        (AwsState::Sustained, _) => "sustained".to_string(),
        (AwsState::Burst, Some(minutes)) if instance.bursts() => {
            format!("{minutes:.0} minutes per 24 hours (instance burst window)")
        }
        (AwsState::Burst, _) => {
            "while volume credits last (the instance sustains its maximum)".to_string()
        }
    };
    AwsPrediction {
        instance: instance.name.clone(),
        state,
        delivered_iops: Iops(results.iter().map(|r| r.delivered_iops.get()).sum()),
        delivered_mb_s: MBps(results.iter().map(|r| r.delivered_mb_s.get()).sum()),
        meets: results
            .iter()
            .all(|r| r.delivered_iops.get() >= r.demand.iops.get() * (1.0 - 1e-9)),
        volumes: results,
        binding,
        headroom_pct,
        held_for,
    }
}

/// Why a `--disk` spec of [`parse_volume_spec`] cannot be read; each names the spec.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DiskFlagError {
    #[error("{0}")]
    Count(#[from] std::num::ParseIntError),
    #[error("--disk {0}: the count must be at least 1")]
    ZeroCount(String),
    #[error("--disk {spec}: unknown EBS volume type '{kind}'; use gp3, gp2, io2 or st1")]
    UnknownType { spec: String, kind: String },
    #[error("--disk {spec}: '{part}' is not KEY=VALUE")]
    NotKeyValue { spec: String, part: String },
    #[error("--disk {spec}: {key}={value} is not a plain number")]
    NotANumber {
        spec: String,
        key: String,
        value: String,
    },
    #[error("--disk {spec}: {key} must be above 0")]
    NotPositive { spec: String, key: String },
    #[error("--disk {spec}: unknown key '{key}'; use size_gib, iops, mb_s (MB/s) or mib_s")]
    UnknownKey { spec: String, key: String },
    #[error("--disk {0}: gp2 performance follows its size; add size_gib=N")]
    SizeNeeded(String),
}

/// Parses `[LABEL=]COUNTxTYPE[,size_gib=N][,iops=N][,mb_s=N|mib_s=N]` (`mb_s` is MB/s,
/// 10^6 B/s, converted to AWS's MiB/s). Size defaults to the smallest the IOPS allow (gp3:
/// 1 GiB per 500 IOPS; io2 likewise, at least 4 GiB; st1: 125 GiB); gp2 needs `size_gib`.
pub fn parse_volume_spec(
    text: &str,
    index: usize,
    rules_of: &dyn Fn(&str) -> Option<EbsVolumeType>,
) -> Result<(AwsVolumeSpec, EbsVolumeType), DiskFlagError> {
    let mut parts = text.split(',');
    let head = parts.next().unwrap_or_default().trim();
    let (label, body) = match head.split_once('=') {
        Some((label, body)) => (label.trim().to_string(), body.trim()),
        None => (format!("vol{}", index + 1), head),
    };
    let (count, kind) = match body.split_once(['x', 'X']) {
        Some((count, kind)) if count.chars().all(|c| c.is_ascii_digit()) && !count.is_empty() => {
            (count.parse::<u32>()?, kind)
        }
        _ => (1, body),
    };
    if count == 0 {
        return Err(DiskFlagError::ZeroCount(text.to_string()));
    }
    let rules = rules_of(kind).ok_or_else(|| DiskFlagError::UnknownType {
        spec: text.to_string(),
        kind: kind.to_string(),
    })?;
    let mut spec = AwsVolumeSpec {
        label,
        count,
        volume_type: rules.name.clone(),
        size_gib: GiB(0.0),
        iops: None,
        throughput_mib_s: None,
    };
    for part in parts {
        let (key, value) = part
            .split_once('=')
            .ok_or_else(|| DiskFlagError::NotKeyValue {
                spec: text.to_string(),
                part: part.to_string(),
            })?;
        let value: f64 = value
            .trim()
            .parse()
            .map_err(|_| DiskFlagError::NotANumber {
                spec: text.to_string(),
                key: key.to_string(),
                value: value.to_string(),
            })?;
        if !(value.is_finite() && value > 0.0) {
            return Err(DiskFlagError::NotPositive {
                spec: text.to_string(),
                key: key.to_string(),
            });
        }
        match key.trim() {
            "size_gib" => spec.size_gib = GiB(value),
            "iops" => spec.iops = Some(Iops(value)),
            "mb_s" => spec.throughput_mib_s = Some(MBps(value).to_bytes_per_second().to_mib_s()),
            "mib_s" => spec.throughput_mib_s = Some(MiBps(value)),
            other => {
                return Err(DiskFlagError::UnknownKey {
                    spec: text.to_string(),
                    key: other.to_string(),
                })
            }
        }
    }
    if spec.size_gib == GiB(0.0) {
        spec.size_gib = default_size_gib(&spec, &rules)
            .ok_or_else(|| DiskFlagError::SizeNeeded(text.to_string()))?;
    }
    Ok((spec, rules))
}

fn default_size_gib(spec: &AwsVolumeSpec, rules: &EbsVolumeType) -> Option<GiB> {
    let per_gib = rules.number("iops_per_gib_max");
    match rules.kind() {
        EbsKind::Gp3 | EbsKind::Io2 | EbsKind::Io2BlockExpress => {
            let iops = spec.iops.map_or(rules.number("iops_baseline"), Iops::get);
            Some(GiB(iops / per_gib).ceil().max(rules.size_gib_min))
        }
        EbsKind::St1 => Some(rules.size_gib_min),
        EbsKind::Gp2 => None,
    }
}

#[cfg(test)]
#[path = "aws_tests.rs"]
mod tests;
