//! What a plan says before its designs about its requirements, as data (see
//! `requirement_checks` for when each is said).

use iofit_model::units::group_thousands;
use iofit_model::Bytes;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

fn num(value: f64) -> String {
    if value.abs() < 100.0 {
        format!("{value:.1}")
    } else {
        group_thousands(value.round())
    }
}

/// Which of a volume's two rates sizes the cheapest design's disks (the one with less headroom).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizedBy {
    Iops,
    ThroughputMbS,
}

/// What a plan says before its designs about its requirements, as data; `Display` is the
/// sentence the plan prints after `warning: `. In JSON each is that sentence; one read back
/// from JSON is the `Recorded` kind.
#[derive(Clone, Debug, PartialEq)]
pub enum RequirementWarning {
    /// The MB/s required is more than IOPS x IO size carries (by more than half again).
    Disagree {
        volume: String,
        iops: f64,
        io_size_bytes: u64,
        /// IOPS x IO size, in the plan's MB/s.
        derived_mb_s: f64,
        required_mb_s: f64,
        /// The IOPS the required MB/s takes at the IO size.
        iops_for_required_mb_s: f64,
        /// The IO size at which the IOPS carry the required MB/s.
        io_size_for_both_bytes: u64,
        /// Which rate sizes design #1's disks; `None` without a design or a headroom figure.
        sized_by: Option<SizedBy>,
    },
    /// No capacity given: the disks are sized for IO only.
    NoCapacity { volume: String },
    /// A warning read back from a plan's JSON: its sentence only.
    Recorded(String),
}

impl RequirementWarning {
    /// The volume the warning is about (`None` for one read back from JSON).
    pub fn volume(&self) -> Option<&str> {
        match self {
            RequirementWarning::Disagree { volume, .. }
            | RequirementWarning::NoCapacity { volume } => Some(volume),
            RequirementWarning::Recorded(_) => None,
        }
    }
}

impl fmt::Display for RequirementWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequirementWarning::Disagree {
                volume,
                iops,
                io_size_bytes,
                derived_mb_s,
                required_mb_s,
                iops_for_required_mb_s,
                io_size_for_both_bytes,
                sized_by,
            } => {
                let sizes = match sized_by {
                    None => String::new(),
                    Some(SizedBy::Iops) => {
                        format!(", and {} IOPS is what sizes design #1's disks", num(*iops))
                    }
                    Some(SizedBy::ThroughputMbS) => format!(
                        ", and {} MB/s is what sizes design #1's disks",
                        num(*required_mb_s)
                    ),
                };
                write!(
                    f,
                    "volume '{volume}': the requirements disagree: {} IOPS x {} = {} MB/s, but {} \
                     MB/s is required (at {} per IO that takes {} IOPS; at {} IOPS, {} IOs); \
                     the plan meets both, each limit sized for its own number{sizes}; check the \
                     IO size",
                    num(*iops),
                    Bytes(*io_size_bytes).readable(),
                    num(*derived_mb_s),
                    num(*required_mb_s),
                    Bytes(*io_size_bytes).readable(),
                    num(*iops_for_required_mb_s),
                    num(*iops),
                    Bytes(*io_size_for_both_bytes).readable(),
                )
            }
            RequirementWarning::NoCapacity { volume } => write!(
                f,
                "volume '{volume}': no capacity given, so its disks are sized for IO only (the \
                 smallest that carry it) and may not hold the data; add sizing.capacity_gib to \
                 the requirements (or --capacity-gib)"
            ),
            RequirementWarning::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

/// Warnings as a plan prints them before its designs: `warning: ...` each, then a blank line;
/// nothing without any.
pub fn warning_lines(warnings: &[RequirementWarning]) -> String {
    let mut text: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

impl Serialize for RequirementWarning {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RequirementWarning {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(RequirementWarning::Recorded)
    }
}
