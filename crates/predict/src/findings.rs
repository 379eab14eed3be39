//! What a prediction finds, as data: each [`Violation`] (what is wrong), [`Warning`] (what to
//! watch) and [`Advice`] (what to change) names its kind and the figures behind it, so a caller
//! can tell them apart (which volume, which limit) without reading words; its `Display` is the
//! one sentence every report prints.
//!
//! In JSON each is that sentence (the format readers already have); one read back from JSON is
//! the `Recorded` kind, which keeps the sentence only.

use crate::{fmt_num, DISKS_TYPES_SOURCE, STANDARD_HDD_WORDING, STANDARD_SSD_WORDING};
use iofit_model::units::GiB;
use iofit_model::HostCaching;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A yes/no check a design fails: it cannot be built as given, or misses a hard target.
#[derive(Clone, Debug, PartialEq)]
pub enum Violation {
    /// The volume's disks do not support host caching, which the design asks for.
    CachingNotSupported {
        volume: String,
        disk: String,
        caching: HostCaching,
    },
    /// More data disks than the VM takes.
    TooManyDisks { disks: u32, vm: String, max: u32 },
    /// Premium disks on a VM without premium storage.
    NoPremiumStorage { vm: String, disks: Vec<String> },
    /// Less capacity than the volume's target.
    CapacityShort {
        volume: String,
        needed_gib: f64,
        provided_gib: f64,
    },
    /// The expected latency is over the volume's target.
    LatencyOver {
        volume: String,
        expected_ms: f64,
        target_ms: f64,
    },
    /// A violation read back from a prediction's JSON: its sentence only.
    Recorded(String),
}

impl Violation {
    /// The volume the violation is about; `None` for the VM's (slots, premium storage).
    pub fn volume(&self) -> Option<&str> {
        match self {
            Violation::CachingNotSupported { volume, .. }
            | Violation::CapacityShort { volume, .. }
            | Violation::LatencyOver { volume, .. } => Some(volume),
            Violation::TooManyDisks { .. }
            | Violation::NoPremiumStorage { .. }
            | Violation::Recorded(_) => None,
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::CachingNotSupported {
                volume,
                disk,
                caching,
            } => write!(
                f,
                "volume '{volume}': {disk} disks do not support host caching ({caching}); use \
                 caching None"
            ),
            Violation::TooManyDisks { disks, vm, max } => {
                write!(f, "{disks} data disks but {vm} allows {max}")
            }
            Violation::NoPremiumStorage { vm, disks } => write!(
                f,
                "{vm} does not support premium storage, which {} needs",
                disks.join(", ")
            ),
            Violation::CapacityShort {
                volume,
                needed_gib,
                provided_gib,
            } => write!(
                f,
                "volume '{volume}': capacity {} GiB needed, {} GiB provided",
                crate::fmt_num(*needed_gib),
                crate::fmt_num(*provided_gib)
            ),
            Violation::LatencyOver {
                volume,
                expected_ms,
                target_ms,
            } => write!(
                f,
                "volume '{volume}': expected latency {} ms exceeds the {} ms target",
                crate::fmt_num_precise(*expected_ms),
                crate::fmt_num_precise(*target_ms)
            ),
            Violation::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

/// In JSON each finding is its sentence; read back, it is the `Recorded` kind.
macro_rules! sentence_in_json {
    ($($finding:ident),*) => {$(
        impl Serialize for $finding {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $finding {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                String::deserialize(deserializer).map($finding::Recorded)
            }
        }
    )*};
}

sentence_in_json!(Violation, Warning, Advice);

/// The disk kinds whose IOPS and MB/s Azure gives as "up to" figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpToDisk {
    StandardSsd,
    StandardHdd,
}

impl UpToDisk {
    /// The kind's name and the words of Azure's page that say "up to".
    fn name_and_wording(self) -> (&'static str, &'static str) {
        match self {
            UpToDisk::StandardSsd => ("Standard SSD", STANDARD_SSD_WORDING),
            UpToDisk::StandardHdd => ("Standard HDD", STANDARD_HDD_WORDING),
        }
    }
}

/// Something the design's reader should know: an assumption made, a risk taken, a figure the
/// catalog does not publish. The prediction stands, unlike a [`Violation`].
#[derive(Clone, Debug, PartialEq)]
pub enum Warning {
    /// A striped volume without a stripe size: no IO is assumed to span two members.
    NoStripeSize { volume: String, disks: u32 },
    /// A cached volume on a VM whose cached limits are not published: predicted as uncached.
    CachedLimitsUnpublished {
        volume: String,
        caching: HostCaching,
        vm: String,
    },
    /// A volume with targets on disks whose rates are "up to" figures, not provisioned.
    UpToFigures { volume: String, disk: UpToDisk },
    /// ReadWrite host caching, which loses writes on a VM crash unless the application persists
    /// them.
    ReadWriteCaching { volume: String },
    /// The cached disks hold more than the host cache, so the assumed hit ratio needs hot data
    /// that fits.
    CacheSmallerThanDisks {
        vm: String,
        cached_gib: GiB,
        cache_gib: GiB,
        cache_hit_pct: f64,
    },
    /// Too few outstanding IOs to keep every stripe member busy.
    IdleStripeMembers {
        volume: String,
        outstanding_ios: u32,
        members: u32,
        busy_members: u32,
        depth_per_disk: u32,
        service_ms: f64,
    },
    /// Limits the catalog does not publish, by name: not checked.
    NotPublished { limits: Vec<String> },
    /// The captured queue depth is below what Little's law needs for the target: predicted at
    /// plan's depth instead.
    CapturedDepthShort {
        volume: String,
        captured_depth: f64,
        target_iops: f64,
        service_ms: f64,
        littles_law_depth: u32,
        plan_depth: u32,
    },
    /// A warning read back from a prediction's JSON: its sentence only.
    Recorded(String),
}

impl Warning {
    /// The volume the warning is about; `None` for the VM's and the catalog's.
    pub fn volume(&self) -> Option<&str> {
        match self {
            Warning::NoStripeSize { volume, .. }
            | Warning::CachedLimitsUnpublished { volume, .. }
            | Warning::UpToFigures { volume, .. }
            | Warning::ReadWriteCaching { volume }
            | Warning::IdleStripeMembers { volume, .. }
            | Warning::CapturedDepthShort { volume, .. } => Some(volume),
            Warning::CacheSmallerThanDisks { .. }
            | Warning::NotPublished { .. }
            | Warning::Recorded(_) => None,
        }
    }
}

/// A figure as Rust writes it, in exponent form outside 1e-4..1e15 (as the procedures show
/// figures they were given).
fn plain(value: f64) -> String {
    if value != 0.0 && !(1e-4..1e15).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        value.to_string()
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NoStripeSize { volume, disks } => write!(
                f,
                "volume '{volume}': {disks} disks without a stripe size; assuming no IO spans two \
                 members (give --stripe, e.g. 64k for small random IO, 256k for sequential)"
            ),
            Warning::CachedLimitsUnpublished {
                volume,
                caching,
                vm,
            } => write!(
                f,
                "volume '{volume}': caching {caching} on {vm}, whose cached limits are not \
                 published: predicted as uncached (every IO to the disks, under the VM's uncached \
                 limits), as plan does; the real host cache may do better, unmeasured"
            ),
            Warning::UpToFigures { volume, disk } => {
                let (kind, wording) = disk.name_and_wording();
                write!(
                    f,
                    "volume '{volume}': {kind} IOPS and MB/s are 'up to' figures, not provisioned \
                     ({DISKS_TYPES_SOURCE}: \"{wording}\")"
                )
            }
            Warning::ReadWriteCaching { volume } => write!(
                f,
                "volume '{volume}': ReadWrite caching is safe only when the application itself \
                 persists cached writes; otherwise a VM crash loses data (use ReadOnly or None)"
            ),
            Warning::CacheSmallerThanDisks {
                vm,
                cached_gib,
                cache_gib,
                cache_hit_pct,
            } => write!(
                f,
                "cached disks hold {} GiB but the host cache of {vm} is {} GiB: the cache serves \
                 {}% of reads only when the hot data fits in it",
                fmt_num(cached_gib.get()),
                fmt_num(cache_gib.get()),
                fmt_num(*cache_hit_pct)
            ),
            Warning::IdleStripeMembers {
                volume,
                outstanding_ios,
                members: n,
                busy_members,
                depth_per_disk,
                service_ms,
            } => write!(
                f,
                "volume '{volume}': queue depth {outstanding_ios} on a {n}-disk stripe keeps \
                 {busy_members} members busy and leaves {} idle; run at least {n} outstanding IOs \
                 ({depth_per_disk} per disk x {n} disks = {} reaches the disks' limits at \
                 {service_ms} ms)",
                n.saturating_sub(*busy_members),
                depth_per_disk.saturating_mul(*n),
            ),
            Warning::NotPublished { limits } => write!(
                f,
                "not published in the catalog, so not checked: {}",
                limits.join("; ")
            ),
            Warning::CapturedDepthShort {
                volume,
                captured_depth,
                target_iops,
                service_ms,
                littles_law_depth,
                plan_depth,
            } => write!(
                f,
                "volume '{volume}': the capture kept {captured_depth:.1} IOs outstanding on \
                 average; {} IOPS at {} ms per IO takes {littles_law_depth} (Little's law): \
                 predicted at plan's depth ({plan_depth}), which the application must keep in \
                 flight to reach its target",
                iofit_model::units::group_thousands(target_iops.round()),
                plain(*service_ms),
            ),
            Warning::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

/// A catalog row the advice names as a way out, with the figure that makes it one.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub name: String,
    /// In the advice's unit (IOPS or MB/s).
    pub value: f64,
}

/// What to change so that a volume that misses its target reaches it.
#[derive(Clone, Debug, PartialEq)]
pub enum Advice {
    /// Capped by its disks: stripe more disks of the same SKU, or use larger disks.
    MoreDisks {
        volume: String,
        /// IOPS or MB/s.
        unit: crate::LimitUnit,
        /// What the target needs from the disks, in `unit`.
        needed: f64,
        disk: String,
        disks: u32,
        per_disk: f64,
        disks_needed: u32,
        /// Larger disks of the same kind whose `disks` carry the target (up to four).
        larger_disks: Vec<Candidate>,
    },
    /// Capped by its queue depth: keep more IOs outstanding.
    RaiseQueueDepth {
        volume: String,
        outstanding_ios: u32,
        depth: u32,
        target_iops: f64,
        service_ms: f64,
    },
    /// Capped by a VM limit: what the targets need of it, larger VMs that allow it, and whether
    /// ReadOnly host caching would spare it.
    LargerVm {
        volume: String,
        /// The limit's name as the limits table shows it.
        limit: String,
        unit: crate::LimitUnit,
        allowed: f64,
        needed: f64,
        /// The cheapest VMs that allow `needed` (up to three).
        larger_vms: Vec<Candidate>,
        read_only_caching: bool,
    },
    /// Advice read back from a prediction's JSON: its sentence only.
    Recorded(String),
}

impl Advice {
    /// The volume the advice is for; `None` when read back from JSON.
    pub fn volume(&self) -> Option<&str> {
        match self {
            Advice::MoreDisks { volume, .. }
            | Advice::RaiseQueueDepth { volume, .. }
            | Advice::LargerVm { volume, .. } => Some(volume),
            Advice::Recorded(_) => None,
        }
    }
}

fn candidates(list: &[Candidate], unit: &str, separator: &str) -> String {
    let names: Vec<String> = list
        .iter()
        .map(|c| format!("{} ({}{unit})", c.name, fmt_num(c.value)))
        .collect();
    names.join(separator)
}

impl fmt::Display for Advice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Advice::MoreDisks {
                volume,
                unit,
                needed,
                disk,
                disks: n,
                per_disk,
                disks_needed,
                larger_disks,
            } => {
                let unit = unit.suffix();
                write!(
                    f,
                    "volume '{volume}' needs {}{unit} from its disks; {n} x {disk} give {}{unit}: \
                     use {disks_needed} x {disk} striped ({}{unit})",
                    fmt_num(*needed),
                    fmt_num(per_disk * f64::from(*n)),
                    fmt_num(per_disk * f64::from(*disks_needed)),
                )?;
                if !larger_disks.is_empty() {
                    write!(
                        f,
                        ", or a larger disk: {n} x {}",
                        candidates(larger_disks, unit, " or ")
                    )?;
                }
                Ok(())
            }
            Advice::RaiseQueueDepth {
                volume,
                outstanding_ios,
                depth,
                target_iops,
                service_ms,
            } => write!(
                f,
                "volume '{volume}': raise outstanding IOs from {outstanding_ios} to at least \
                 {depth} (Little's law: {} IOPS x {service_ms} ms, and at least one per stripe \
                 member)",
                fmt_num(*target_iops),
            ),
            Advice::LargerVm {
                limit,
                unit,
                allowed,
                needed,
                larger_vms,
                read_only_caching,
                ..
            } => {
                let unit = unit.suffix();
                write!(
                    f,
                    "{limit} allows {}{unit} here, the targets need {}{unit}",
                    fmt_num(*allowed),
                    fmt_num(*needed)
                )?;
                if !larger_vms.is_empty() {
                    write!(f, "; a larger VM: {}", candidates(larger_vms, unit, ", "))?;
                }
                if *read_only_caching {
                    f.write_str("; or ReadOnly host caching on read-heavy volumes")?;
                }
                Ok(())
            }
            Advice::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_violation_says_its_sentence_and_json_keeps_it() {
        let slots = Violation::TooManyDisks {
            disks: 9,
            vm: "Standard_D2s_v5".into(),
            max: 4,
        };
        assert_eq!(
            slots.to_string(),
            "9 data disks but Standard_D2s_v5 allows 4"
        );
        assert_eq!(slots.volume(), None);
        let latency = Violation::LatencyOver {
            volume: "log".into(),
            expected_ms: 2.5,
            target_ms: 1.0,
        };
        assert_eq!(
            latency.to_string(),
            "volume 'log': expected latency 2.50 ms exceeds the 1.00 ms target"
        );
        assert_eq!(latency.volume(), Some("log"));
        let json = serde_json::to_string(&vec![slots.clone(), latency]).unwrap();
        assert!(json.starts_with("[\"9 data disks but"), "{json}");
        let back: Vec<Violation> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], Violation::Recorded(slots.to_string()));
        assert_eq!(back[0].to_string(), slots.to_string());
    }

    #[test]
    fn warnings_say_their_sentence_and_read_back_recorded() {
        let idle = Warning::IdleStripeMembers {
            volume: "data".into(),
            outstanding_ios: 2,
            members: 4,
            busy_members: 2,
            depth_per_disk: 5,
            service_ms: 1.0,
        };
        assert_eq!(
            idle.to_string(),
            "volume 'data': queue depth 2 on a 4-disk stripe keeps 2 members busy and leaves 2 \
             idle; run at least 4 outstanding IOs (5 per disk x 4 disks = 20 reaches the disks' \
             limits at 1 ms)"
        );
        assert_eq!(idle.volume(), Some("data"));
        let cache = Warning::CacheSmallerThanDisks {
            vm: "Standard_DS13".into(),
            cached_gib: GiB(4096.0),
            cache_gib: GiB(288.0),
            cache_hit_pct: 80.0,
        };
        assert_eq!(
            cache.to_string(),
            "cached disks hold 4,096 GiB but the host cache of Standard_DS13 is 288 GiB: the \
             cache serves 80% of reads only when the hot data fits in it"
        );
        assert_eq!(cache.volume(), None);
        let captured = Warning::CapturedDepthShort {
            volume: "log".into(),
            captured_depth: 1.25,
            target_iops: 12000.0,
            service_ms: 2.0,
            littles_law_depth: 24,
            plan_depth: 32,
        };
        assert!(
            captured.to_string().starts_with(
                "volume 'log': the capture kept 1.2 IOs outstanding on average; 12,000 IOPS at \
                 2 ms per IO takes 24 (Little's law): predicted at plan's depth (32)"
            ),
            "{captured}"
        );
        let json = serde_json::to_string(&vec![idle.clone(), cache]).unwrap();
        assert!(
            json.starts_with("[\"volume 'data': queue depth 2"),
            "{json}"
        );
        let back: Vec<Warning> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], Warning::Recorded(idle.to_string()));
        assert_eq!(back[0].volume(), None);
    }

    #[test]
    fn advice_says_its_sentence_with_the_candidates_it_names() {
        let disks = Advice::MoreDisks {
            volume: "data".into(),
            unit: crate::LimitUnit::MbPerSecond,
            needed: 250.0,
            disk: "P30".into(),
            disks: 1,
            per_disk: 200.0,
            disks_needed: 2,
            larger_disks: vec![
                Candidate {
                    name: "P40".into(),
                    value: 250.0,
                },
                Candidate {
                    name: "P50".into(),
                    value: 250.0,
                },
            ],
        };
        assert_eq!(
            disks.to_string(),
            "volume 'data' needs 250 MB/s from its disks; 1 x P30 give 200 MB/s: use 2 x P30 \
             striped (400 MB/s), or a larger disk: 1 x P40 (250 MB/s) or P50 (250 MB/s)"
        );
        let vm = Advice::LargerVm {
            volume: "data".into(),
            limit: "VM uncached IOPS (Standard_DS4)".into(),
            unit: crate::LimitUnit::Iops,
            allowed: 25600.0,
            needed: 30000.0,
            larger_vms: Vec::new(),
            read_only_caching: true,
        };
        assert_eq!(
            vm.to_string(),
            "VM uncached IOPS (Standard_DS4) allows 25,600 IOPS here, the targets need 30,000 \
             IOPS; or ReadOnly host caching on read-heavy volumes"
        );
        assert_eq!(vm.volume(), Some("data"));
        let json = serde_json::to_string(&disks).unwrap();
        let back: Advice = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Advice::Recorded(disks.to_string()));
    }
}
