//! Why no design meets the requirements, as data: each [`ImpossibleReason`] names the limit
//! no catalog row reaches and the figures behind it; its `Display` is the sentence the plan
//! prints. In JSON each is that sentence; one read back from JSON is the `Recorded` kind.

use iofit_model::units::{group_thousands, GiB};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One of the VM's rates the volumes need in total.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VmRate {
    UncachedIops,
    UncachedThroughputMbS,
}

/// A limit no row of the catalog reaches (or, when each alone is reached, what ruled out most
/// VMs).
#[derive(Clone, Debug, PartialEq)]
pub enum ImpossibleReason {
    /// The volumes' total rate is above the largest VM's (uncached or cached, whichever is
    /// more).
    VmTotal {
        rate: VmRate,
        needed: f64,
        largest_vm: String,
        allows: f64,
    },
    /// A latency target below the service time assumed per IO.
    Latency {
        volume: String,
        target_ms: f64,
        service_ms: f64,
    },
    /// More capacity than any VM can attach: its data-disk slots x the largest disk.
    Capacity {
        needed_gib: GiB,
        most_slots: u32,
        largest_disk_gib: GiB,
        most_gib: GiB,
    },
    /// No disk rows in the edition.
    NoDisks,
    /// Every limit was kept this far above the need (said when another reason is).
    HeadroomKept { min_headroom_pct: f64 },
    /// No single limit is out of reach, but no combination fits: the commonest rejection.
    CommonestRejection {
        vms_failing: usize,
        vms: usize,
        example: String,
    },
    /// A reason read back from a plan's JSON: its sentence only.
    Recorded(String),
}

impl fmt::Display for ImpossibleReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImpossibleReason::VmTotal {
                rate,
                needed,
                largest_vm,
                allows,
            } => {
                let (what, unit) = match rate {
                    VmRate::UncachedIops => ("uncached IOPS", " IOPS"),
                    VmRate::UncachedThroughputMbS => ("uncached MB/s", " MB/s"),
                };
                write!(
                    f,
                    "VM {what}: the requirements need {}{unit} in total; the largest VM in the \
                     catalog, {largest_vm}, allows {}{unit}",
                    group_thousands(*needed),
                    group_thousands(*allows)
                )
            }
            ImpossibleReason::Latency {
                volume,
                target_ms,
                service_ms,
            } => write!(
                f,
                "latency: volume '{volume}' asks for {target_ms} ms, below the {service_ms} ms \
                 service time assumed per IO (set --service-latency-ms if you have measured lower)"
            ),
            ImpossibleReason::Capacity {
                needed_gib,
                most_slots,
                largest_disk_gib,
                most_gib,
            } => write!(
                f,
                "capacity: the requirements need {} GiB; at most {most_slots} data disks of at \
                 most {} GiB each can be attached to one VM in the catalog ({} GiB)",
                group_thousands(needed_gib.get()),
                group_thousands(largest_disk_gib.get()),
                group_thousands(most_gib.get())
            ),
            ImpossibleReason::NoDisks => f.write_str("the catalog has no disks in this edition"),
            ImpossibleReason::HeadroomKept { min_headroom_pct } => write!(
                f,
                "every limit was kept {}% above the need (--min-headroom-pct; 0 restores the \
                 strict fit)",
                group_thousands(*min_headroom_pct)
            ),
            ImpossibleReason::CommonestRejection {
                vms_failing,
                vms,
                example,
            } => write!(
                f,
                "no VM and disk combination fits; {vms_failing} of {vms} VMs fail the same way, \
                 e.g. {example}"
            ),
            ImpossibleReason::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

impl Serialize for ImpossibleReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ImpossibleReason {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(ImpossibleReason::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_is_the_sentence_the_plan_printed_and_json_keeps_it() {
        let latency = ImpossibleReason::Latency {
            volume: "log".into(),
            target_ms: 0.5,
            service_ms: 2.0,
        };
        assert_eq!(
            latency.to_string(),
            "latency: volume 'log' asks for 0.5 ms, below the 2 ms service time assumed per IO \
             (set --service-latency-ms if you have measured lower)"
        );
        let total = ImpossibleReason::VmTotal {
            rate: VmRate::UncachedThroughputMbS,
            needed: 12000.0,
            largest_vm: "Standard_M416ms_v2".into(),
            allows: 8000.0,
        };
        assert_eq!(
            total.to_string(),
            "VM uncached MB/s: the requirements need 12,000 MB/s in total; the largest VM in the \
             catalog, Standard_M416ms_v2, allows 8,000 MB/s"
        );
        let json = serde_json::to_string(&vec![latency.clone(), total]).unwrap();
        let back: Vec<ImpossibleReason> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], ImpossibleReason::Recorded(latency.to_string()));
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }
}
