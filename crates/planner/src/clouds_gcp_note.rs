//! What a Google Cloud plan says after its designs, as data: one kind per note with its
//! figures. `Display` is the sentence the plan prints after `- `; in JSON each note is that
//! sentence, and one read back from JSON is the `Recorded` kind (as [`crate::PlanNote`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One note of a Google Cloud plan.
#[derive(Clone, Debug, PartialEq)]
pub enum GcpPlanNote {
    /// No machine type carries the requirements: the largest per-VM limits of the disk types
    /// planned (`types`), each direction's most over the catalog's machine types.
    NoneFits {
        types: Vec<String>,
        read_iops: f64,
        write_iops: f64,
        read_mib_s: f64,
        write_mib_s: f64,
    },
    /// Machine types without a sourced price in `region`, left out.
    Unpriced {
        region: String,
        machine_types: Vec<String>,
    },
    /// The catalog has no prices for `region`; `sourced` are the regions it prices.
    NoRegionPrices {
        region: String,
        sourced: Vec<String>,
    },
    /// More volumes than the plan mixes disk types for: one type for all.
    OneDiskType { max_volumes: usize },
    /// How Persistent Disk performance is modelled and disks are sized.
    PersistentDiskModel,
    /// Each disk type has its own per-VM limit; sharing across types is not sourced.
    PerTypeLimits,
    /// A provisioned type (pd-extreme, Hyperdisk) planned: how it is sized and billed.
    ProvisionedPlanned {
        disk_type: String,
        bills_throughput: bool,
        /// The type whose by-size MiB/s it follows (pd-extreme: pd-ssd), if any.
        throughput_by_size_as: Option<String>,
        families: Vec<String>,
    },
    /// A provisioned type not planned: the facts a plan needs that no table gives.
    ProvisionedNotPlanned {
        disk_type: String,
        gaps: Vec<String>,
    },
    /// A note read back from a plan's JSON: its sentence only.
    Recorded(String),
}

impl fmt::Display for GcpPlanNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GcpPlanNote::NoneFits {
                types,
                read_iops,
                write_iops,
                read_mib_s,
                write_mib_s,
            } => write!(
                f,
                "no machine type carries the requirements with the headroom kept: the largest \
                 per-VM disk limits of the types planned ({}) are {read_iops:.0} read / \
                 {write_iops:.0} write IOPS and {read_mib_s:.0} MiB/s read / {write_mib_s:.0} \
                 MiB/s write",
                types.join(", ")
            ),
            GcpPlanNote::Unpriced {
                region,
                machine_types,
            } => write!(
                f,
                "{} machine types left out: no sourced {region} price ({})",
                machine_types.len(),
                machine_types.join(", ")
            ),
            GcpPlanNote::NoRegionPrices { region, sourced } => write!(
                f,
                "no prices for {region}; sourced regions: {}",
                sourced.join(", ")
            ),
            GcpPlanNote::OneDiskType { max_volumes } => write!(
                f,
                "more than {max_volumes} volumes: one disk type for all of them"
            ),
            GcpPlanNote::PersistentDiskModel => f.write_str(
                "Persistent Disk performance is the VM's: baseline + per-GiB rate x the GiB of \
                 each type attached, capped by the machine's limit for its vCPU count (Google, \
                 About Persistent Disk performance); disks are sized for IOPS and MiB/s as well \
                 as capacity, and bought by the GiB only",
            ),
            GcpPlanNote::PerTypeLimits => f.write_str(
                "each disk type has its own per-VM limit (as Google's tables give them); whether \
                 disks of different types also share one limit is not sourced, and CPU and \
                 memory are not sized",
            ),
            GcpPlanNote::ProvisionedPlanned {
                disk_type,
                bills_throughput,
                throughput_by_size_as,
                families,
            } => {
                let throughput = match throughput_by_size_as {
                    Some(name) => format!(
                        "its MiB/s are {name}'s by the size of all its disks (as Google's \
                         gcpdiag computes it)"
                    ),
                    None => "its MiB/s are what it is given or what its IOPS bring".to_string(),
                };
                write!(
                    f,
                    "{disk_type} planned: each disk is given the least size and IOPS{} that \
                     carry its volume, billed per GiB, per IOPS{}; {throughput}; only on {} \
                     machine types, the ones whose per-VM {disk_type} limits are sourced",
                    if *bills_throughput { " and MiB/s" } else { "" },
                    if *bills_throughput {
                        " and per MiB/s"
                    } else {
                        ""
                    },
                    families.join(", ")
                )
            }
            GcpPlanNote::ProvisionedNotPlanned { disk_type, gaps } => write!(
                f,
                "{disk_type} not planned: {} not sourced",
                gaps.join("; ")
            ),
            GcpPlanNote::Recorded(sentence) => f.write_str(sentence),
        }
    }
}

impl Serialize for GcpPlanNote {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GcpPlanNote {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(GcpPlanNote::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_note_is_the_sentence_the_plan_printed_and_json_keeps_it() {
        let none = GcpPlanNote::NoneFits {
            types: vec!["pd-balanced".into(), "pd-ssd".into()],
            read_iops: 100_000.0,
            write_iops: 50_000.4,
            read_mib_s: 1_200.0,
            write_mib_s: 1_200.0,
        };
        assert_eq!(
            none.to_string(),
            "no machine type carries the requirements with the headroom kept: the largest \
             per-VM disk limits of the types planned (pd-balanced, pd-ssd) are 100000 read / \
             50000 write IOPS and 1200 MiB/s read / 1200 MiB/s write"
        );
        let planned = GcpPlanNote::ProvisionedPlanned {
            disk_type: "pd-extreme".into(),
            bills_throughput: false,
            throughput_by_size_as: Some("pd-ssd".into()),
            families: vec!["n2".into()],
        };
        assert_eq!(
            planned.to_string(),
            "pd-extreme planned: each disk is given the least size and IOPS that carry its \
             volume, billed per GiB, per IOPS; its MiB/s are pd-ssd's by the size of all its \
             disks (as Google's gcpdiag computes it); only on n2 machine types, the ones whose \
             per-VM pd-extreme limits are sourced"
        );
        let unpriced = GcpPlanNote::Unpriced {
            region: "europe-west3".into(),
            machine_types: vec!["c3-standard-8".into(), "n2-standard-2".into()],
        };
        assert_eq!(
            unpriced.to_string(),
            "2 machine types left out: no sourced europe-west3 price (c3-standard-8, \
             n2-standard-2)"
        );
        let json = serde_json::to_string(&vec![none.clone(), planned]).unwrap();
        let back: Vec<GcpPlanNote> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], GcpPlanNote::Recorded(none.to_string()));
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }
}
