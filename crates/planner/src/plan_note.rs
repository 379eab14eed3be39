//! What a plan says after its designs, as data: the assumptions it was made under and the
//! conditions its designs carry, one kind per note with its figures. `Display` is the sentence
//! the plan prints after `- `; in JSON each note is that sentence, and one read back from JSON
//! is the `Recorded` kind (as [`crate::RequirementWarning`] and [`crate::ImpossibleReason`]).

use iofit_model::units::group_thousands as fmt_num;
use iofit_predict::{Assumptions, MbConvention};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Azure's conditions for Premium SSD v2, with their source.
pub const PREMIUM_V2_CONDITIONS: &str =
    "Premium SSD v2: attaches only to VMs deployed in an availability zone (zonal VMs), \
     supports no host caching and cannot be an OS disk (Azure docs 'Deploy a Premium SSD v2', \
     learn.microsoft.com/azure/virtual-machines/disks-deploy-premium-v2, Limitations); it is \
     offered in select regions only";

/// Azure's conditions for Ultra Disk, with their source.
pub const ULTRA_CONDITIONS: &str =
    "Ultra Disk: a data disk only, with no host caching (Azure docs 'Azure managed disk types', \
     disks-types.md); a VM with Ultra enabled but no Ultra disk attached pays a per-vCPU \
     reservation fee (not in the totals)";

/// One note of a plan.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanNote {
    /// The host-cache hit the ReadOnly disks are sized for, percent.
    CacheHit { cache_hit_pct: f64 },
    /// The service time per IO assumed for each disk type, with where each figure comes from.
    ServiceTimes {
        premium_ms: f64,
        premium_source: String,
        standard_ssd_ms: f64,
        standard_ssd_source: String,
        hdd_read_ms: f64,
        hdd_write_ms: f64,
        hdd_source: String,
    },
    /// How many bytes one MB has in the plan's figures.
    Mb(MbConvention),
    /// The headroom every design keeps below each limit it is sized against, percent (> 0).
    Headroom { min_headroom_pct: f64 },
    /// `--min-headroom-pct 0`: designs may sit at a limit.
    StrictFit,
    /// Standard SSD/HDD operations are charged for the sized IOPS over these hours a month.
    OperationsCharge { busy_hours_per_month: f64 },
    /// The rates and capacity include this growth factor.
    Growth { factor: f64 },
    /// How the catalog priced the plan (region, way of paying, rows left out), in the
    /// catalog's words.
    Prices(String),
    /// VM sizes the filters left out (retiring sizes, architecture, `--vm-*` flags), in the
    /// filters' words.
    VmFilter(String),
    /// A design uses Premium SSD v2: Azure's conditions for it ([`PREMIUM_V2_CONDITIONS`]).
    PremiumV2Conditions,
    /// A design uses Ultra Disk: Azure's conditions for it ([`ULTRA_CONDITIONS`]).
    UltraConditions,
    /// The seed's printed total of its premium design differs from the sum of its parts.
    SeedTotal {
        printed_usd: f64,
        vm_usd: f64,
        disks_usd: f64,
    },
    /// A fleet plan's note that holds for some of its servers only (`servers a, b: ...`).
    ForServers {
        servers: Vec<String>,
        note: Box<PlanNote>,
    },
    /// A note read back from a plan's JSON: its sentence only.
    Recorded(String),
}

impl PlanNote {
    /// The notes saying which assumptions a plan was made under.
    pub fn assumptions(
        assumptions: &Assumptions,
        min_headroom_pct: f64,
        busy_hours_per_month: f64,
    ) -> Vec<PlanNote> {
        vec![
            PlanNote::CacheHit {
                cache_hit_pct: assumptions.cache_hit_pct,
            },
            PlanNote::ServiceTimes {
                premium_ms: assumptions.service_latency_ms.get(),
                premium_source: assumptions.service_latency_source.clone(),
                standard_ssd_ms: assumptions.standard_ssd_latency_ms.get(),
                standard_ssd_source: assumptions.standard_ssd_latency_source.clone(),
                hdd_read_ms: assumptions.hdd_read_latency_ms.get(),
                hdd_write_ms: assumptions.hdd_write_latency_ms.get(),
                hdd_source: assumptions.hdd_latency_source.clone(),
            },
            PlanNote::Mb(assumptions.mb),
            if min_headroom_pct > 0.0 {
                PlanNote::Headroom { min_headroom_pct }
            } else {
                PlanNote::StrictFit
            },
            PlanNote::OperationsCharge {
                busy_hours_per_month,
            },
        ]
    }
}

impl fmt::Display for PlanNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanNote::CacheHit { cache_hit_pct } => write!(
                f,
                "sized for a {}% cache hit on ReadOnly disks ({}); a warm cache only adds headroom",
                fmt_num(*cache_hit_pct),
                if *cache_hit_pct == 0.0 {
                    "cold cache: every read reaches the disks"
                } else {
                    "reads served by the cache do not reach the disks"
                }
            ),
            PlanNote::ServiceTimes {
                premium_ms,
                premium_source,
                standard_ssd_ms,
                standard_ssd_source,
                hdd_read_ms,
                hdd_write_ms,
                hdd_source,
            } => write!(
                f,
                "service time per IO {premium_ms} ms on Premium SSD, Premium SSD v2 and Ultra \
                 ({premium_source}); Standard SSD {standard_ssd_ms} ms ({standard_ssd_source}); \
                 Standard HDD {hdd_read_ms} ms reads, {hdd_write_ms} ms writes ({hdd_source})"
            ),
            PlanNote::Mb(convention) => write!(f, "MB: {}", convention.describe()),
            PlanNote::Headroom { min_headroom_pct } => write!(
                f,
                "every design keeps at least {}% headroom below each limit it is sized against \
                 (disk and stripe IOPS and MB/s, the VM's IOPS and MB/s, data-disk slots): \
                 measured workloads fluctuate and Azure limits throttle rather than fail; \
                 --min-headroom-pct 0 restores the strict fit",
                fmt_num(*min_headroom_pct)
            ),
            PlanNote::StrictFit => f.write_str(
                "strict fit (--min-headroom-pct 0): a design may sit at 0% headroom on a limit, \
                 and the first peak above the sized figures is throttled",
            ),
            PlanNote::OperationsCharge {
                busy_hours_per_month,
            } => write!(
                f,
                "Standard SSD/HDD bill disk operations per 10,000 on top of their monthly price; \
                 the plan counts the sized IOPS for {} h/month (--busy-hours-per-month; 730 = \
                 sustained) and adds the charge to the total",
                fmt_num(*busy_hours_per_month)
            ),
            PlanNote::Growth { factor } => {
                write!(f, "rates and capacity include growth x{factor}")
            }
            PlanNote::Prices(words) | PlanNote::VmFilter(words) | PlanNote::Recorded(words) => {
                f.write_str(words)
            }
            PlanNote::ForServers { servers, note } => {
                write!(f, "servers {}: {note}", servers.join(", "))
            }
            PlanNote::PremiumV2Conditions => f.write_str(PREMIUM_V2_CONDITIONS),
            PlanNote::UltraConditions => f.write_str(ULTRA_CONDITIONS),
            PlanNote::SeedTotal {
                printed_usd,
                vm_usd,
                disks_usd,
            } => write!(
                f,
                "totals are computed from the parts: the seed prints {printed_usd:.2} $ for \
                 Standard_DS13 + 4 x P30, but its parts add up to {vm_usd:.2} + {disks_usd:.2} = \
                 {:.2} $",
                vm_usd + disks_usd
            ),
        }
    }
}

impl Serialize for PlanNote {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PlanNote {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(PlanNote::Recorded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_note_is_the_sentence_the_plan_printed_and_json_keeps_it() {
        let cold = Assumptions {
            cache_hit_pct: 0.0,
            ..Assumptions::default()
        };
        let notes = PlanNote::assumptions(&cold, 10.0, 730.0);
        assert!(matches!(notes[0], PlanNote::CacheHit { cache_hit_pct } if cache_hit_pct == 0.0));
        assert_eq!(
            notes[0].to_string(),
            "sized for a 0% cache hit on ReadOnly disks (cold cache: every read reaches the \
             disks); a warm cache only adds headroom"
        );
        assert_eq!(
            notes[2].to_string(),
            "MB: 1 MB = 10^6 bytes, as Azure's tables count"
        );
        assert!(notes[3]
            .to_string()
            .starts_with("every design keeps at least 10% headroom below each limit"));
        assert!(matches!(
            PlanNote::assumptions(&Assumptions::default(), 0.0, 730.0)[3],
            PlanNote::StrictFit
        ));
        let seed = PlanNote::SeedTotal {
            printed_usd: 1544.34,
            vm_usd: 1000.0,
            disks_usd: 540.68,
        };
        assert_eq!(
            seed.to_string(),
            "totals are computed from the parts: the seed prints 1544.34 $ for Standard_DS13 + \
             4 x P30, but its parts add up to 1000.00 + 540.68 = 1540.68 $"
        );
        assert_eq!(
            PlanNote::PremiumV2Conditions.to_string(),
            PREMIUM_V2_CONDITIONS
        );
        let scoped = PlanNote::ForServers {
            servers: vec!["sql02".into(), "sql03".into()],
            note: Box::new(PlanNote::VmFilter("architecture: x64 sizes only".into())),
        };
        assert_eq!(
            scoped.to_string(),
            "servers sql02, sql03: architecture: x64 sizes only"
        );
        let json = serde_json::to_string(&vec![notes[0].clone(), seed]).unwrap();
        let back: Vec<PlanNote> = serde_json::from_str(&json).unwrap();
        assert_eq!(back[0], PlanNote::Recorded(notes[0].to_string()));
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }
}
