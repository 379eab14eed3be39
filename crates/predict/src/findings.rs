//! What a prediction finds wrong with a design, as data: each [`Violation`] names its kind and
//! the figures behind it, so a caller can tell them apart (which volume, which limit) without
//! reading words; its `Display` is the one sentence every report prints.
//!
//! In JSON a violation is that sentence (the format readers already have); one read back from
//! JSON is [`Violation::Recorded`], which keeps the sentence only.

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

impl Serialize for Violation {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Violation {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Violation::Recorded)
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
}
