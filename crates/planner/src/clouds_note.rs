//! What an AWS plan says after its designs, as data: one kind per note with its figures.
//! `Display` is the sentence the plan prints after `- `; in JSON each note is that sentence,
//! and one read back from JSON is the `Recorded` kind (as [`crate::PlanNote`]).

use iofit_model::units::group_thousands;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Which of the instance's two EBS limits a total runs into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceRate {
    Iops,
    MbS,
}

/// How io2's provisioned IOPS are priced in the plan's region.
#[derive(Clone, Debug, PartialEq)]
pub enum Io2Pricing {
    /// No io2 IOPS rate in the region: only gp3's rule is said.
    Unpriced,
    /// Priced up to this many IOPS per volume; the lower tiers above are not sourced.
    PricedUpTo(f64),
    /// Billed in tiers: lower rates above each of these IOPS per volume.
    Tiers(Vec<f64>),
}

/// One note of an AWS plan.
#[derive(Clone, Debug, PartialEq)]
pub enum AwsPlanNote {
    /// The instance type carried the demand on paper but its prediction did not meet it.
    PredictionMissed { instance: String },
    /// No priced volume type carries one volume's need in a stripe of at most `max_volumes`.
    NoVolumeType {
        iops: f64,
        mib_s: f64,
        max_volumes: u32,
    },
    /// The design's total (headroom included) is above what any priced instance type carries;
    /// `instance` carries the most, `limit`, at its maximum when `at_maximum`.
    InstanceTotal {
        rate: InstanceRate,
        needed: f64,
        limit: f64,
        instance: String,
        at_maximum: bool,
    },
    /// Instance types without a sourced price for the region and OS.
    Unpriced {
        region: String,
        os: String,
        instances: Vec<String>,
    },
    /// EBS volume types without a sourced price in the region: no design uses them.
    UnpricedVolumeTypes {
        region: String,
        volume_types: Vec<String>,
    },
    /// `--burst-tolerant`: the peak may use the instance's 30-minute maximum.
    BurstTolerant,
    /// gp2, st1 and sc1 sized on their baselines.
    BaselinesOnly,
    /// Stripes of at most this many volumes.
    StripeWidth { max_volumes: u32 },
    /// How provisioned IOPS are billed in `region`.
    IopsPricing { region: String, io2: Io2Pricing },
    /// A note read back from a plan's JSON: its sentence only.
    Recorded(String),
}

const GP3_PRICING: &str = "gp3 IOPS and MiB/s are provisioned per volume and billed above the \
                           free 3,000 IOPS and 125 MiB/s";

impl fmt::Display for AwsPlanNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AwsPlanNote::PredictionMissed { instance } => write!(
                f,
                "{instance}: left out, its prediction did not meet the requirements"
            ),
            AwsPlanNote::NoVolumeType {
                iops,
                mib_s,
                max_volumes,
            } => write!(
                f,
                "no priced EBS volume type carries {iops:.0} IOPS and {mib_s:.0} MiB/s (headroom \
                 included) in a stripe of at most {max_volumes} volumes"
            ),
            AwsPlanNote::InstanceTotal {
                rate,
                needed,
                limit,
                instance,
                at_maximum,
            } => {
                let when = if *at_maximum {
                    "at its maximum"
                } else {
                    "all day"
                };
                let (unit, limit_unit) = match rate {
                    InstanceRate::Iops => ("IOPS", ""),
                    InstanceRate::MbS => ("MB/s", " MB/s"),
                };
                write!(
                    f,
                    "the design needs {needed:.0} {unit} at the instance (headroom included); the \
                     most a priced instance type carries {when} is {limit:.0}{limit_unit} \
                     ({instance})"
                )
            }
            AwsPlanNote::Unpriced {
                region,
                os,
                instances,
            } => write!(
                f,
                "{} instance types left out: no sourced {region} {os} price ({})",
                instances.len(),
                instances.join(", ")
            ),
            AwsPlanNote::UnpricedVolumeTypes {
                region,
                volume_types,
            } => write!(
                f,
                "volume types left out: no sourced {region} price ({}); no design uses them",
                volume_types.join(", ")
            ),
            AwsPlanNote::BurstTolerant => f.write_str(
                "burst-tolerant: the sized peak may use the instance's maximum, which smaller \
                 sizes hold 30 minutes at least once every 24 hours (AWS, EBS-optimized \
                 instances); the rest of the day their baseline applies",
            ),
            AwsPlanNote::BaselinesOnly => f.write_str(
                "gp2, st1 and sc1 are sized on their baselines: their burst credits are not \
                 counted on",
            ),
            AwsPlanNote::StripeWidth { max_volumes } => write!(
                f,
                "stripes of at most {max_volumes} EBS volumes (AWS: arrays larger than 8 volumes \
                 have diminished returns)"
            ),
            AwsPlanNote::IopsPricing { region, io2 } => match io2 {
                Io2Pricing::Unpriced => f.write_str(GP3_PRICING),
                Io2Pricing::PricedUpTo(iops) => write!(
                    f,
                    "{GP3_PRICING}; io2 above {} IOPS per volume is not priced (its lower tiers \
                     are not sourced for {region})",
                    group_thousands(*iops)
                ),
                Io2Pricing::Tiers(bounds) => write!(
                    f,
                    "{GP3_PRICING}; io2 IOPS are billed per volume in tiers (lower rates above {})",
                    bounds
                        .iter()
                        .map(|b| group_thousands(*b))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            },
            AwsPlanNote::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

impl Serialize for AwsPlanNote {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for AwsPlanNote {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(AwsPlanNote::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_note_is_the_sentence_the_plan_printed_and_json_keeps_it() {
        let total = AwsPlanNote::InstanceTotal {
            rate: InstanceRate::MbS,
            needed: 12_000.4,
            limit: 10_000.0,
            instance: "m6i.32xlarge".into(),
            at_maximum: false,
        };
        assert_eq!(
            total.to_string(),
            "the design needs 12000 MB/s at the instance (headroom included); the most a priced \
             instance type carries all day is 10000 MB/s (m6i.32xlarge)"
        );
        let pricing = AwsPlanNote::IopsPricing {
            region: "us-east-1".into(),
            io2: Io2Pricing::Tiers(vec![32_000.0, 64_000.0]),
        };
        assert_eq!(
            pricing.to_string(),
            "gp3 IOPS and MiB/s are provisioned per volume and billed above the free 3,000 IOPS \
             and 125 MiB/s; io2 IOPS are billed per volume in tiers (lower rates above 32,000 \
             and 64,000)"
        );
        let json = serde_json::to_string(&vec![total.clone(), pricing]).unwrap();
        let back: Vec<AwsPlanNote> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], AwsPlanNote::Recorded(total.to_string()));
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }
}
