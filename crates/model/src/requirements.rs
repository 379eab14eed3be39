//! The seed's requirements checklist, per volume, in the form `iofit profile` writes and
//! `iofit plan --requirements` reads (TOML).
//!
//! Two layers are kept apart on purpose: `observed` holds what was measured (each metric at
//! p50/p90/p99), `sizing` holds the single numbers a design must meet, and `derivation` says how
//! one came from the other (percentile, comfort factor, growth). A user who writes requirements
//! by hand fills only `sizing`.

use crate::units::{Bytes, GiB, Iops, MBps, Millis};
use serde::{Deserialize, Serialize};

/// A metric summarised at the three percentiles the seed's checklist asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

impl Percentiles {
    pub fn scaled(self, factor: f64) -> Percentiles {
        Percentiles {
            p50: self.p50 * factor,
            p90: self.p90 * factor,
            p99: self.p99 * factor,
        }
    }
}

/// What a volume is for; decides host caching advice (logs: None, data: ReadOnly).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VolumeRole {
    #[default]
    Data,
    Log,
    Temp,
    Os,
    Other,
}

impl VolumeRole {
    /// The role as requirements files and outputs write it (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            VolumeRole::Data => "data",
            VolumeRole::Log => "log",
            VolumeRole::Temp => "temp",
            VolumeRole::Os => "os",
            VolumeRole::Other => "other",
        }
    }
}

/// The numbers a design must meet for one volume. Units are in the names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizingTarget {
    /// IOPS the volume must sustain.
    pub iops: Iops,
    /// Throughput the volume must sustain, MB/s with 1 MB = 10^6 bytes (Azure's unit).
    pub throughput_mb_s: MBps,
    /// Highest acceptable average latency per IO, milliseconds; `None`: no latency target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<Millis>,
    /// Typical IO size in bytes.
    pub io_size_bytes: Bytes,
    /// Share of reads, 0..=100.
    pub read_pct: f64,
    /// Share of random IO, 0..=100.
    #[serde(default = "default_random_pct")]
    pub random_pct: f64,
    /// Capacity the volume must hold, GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_gib: Option<GiB>,
    /// Queue depth the application keeps outstanding, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<f64>,
}

impl SizingTarget {
    /// The single operating point that meets both the IOPS and the MB/s of this target:
    /// `throughput = IOPS x IO size`, so when the MB/s exceed IOPS x the typical IO size, the
    /// IOs must on average be larger (`MB/s / IOPS`); with no IOPS given, IOPS = MB/s / IO size.
    /// `bytes_per_mb` is the bytes of one MB in the tables used. Returns (IOPS, bytes per IO).
    ///
    /// ```
    /// use iofit_model::{Bytes, Iops, MBps, SizingTarget};
    /// let target = SizingTarget { iops: Iops(1000.0), throughput_mb_s: MBps(64.0), io_size_bytes: Bytes(8192),
    ///     ..SizingTarget::default() };
    /// // 64 MB/s at 1,000 IOPS needs 64,000-byte IOs, more than the typical 8 KiB.
    /// assert_eq!(target.operating_point(1e6), (1000.0, Bytes(64_000)));
    /// ```
    pub fn operating_point(&self, bytes_per_mb: f64) -> (f64, crate::Bytes) {
        let size = self.io_size_bytes.as_u64().max(1) as f64;
        let bytes_per_s = self.throughput_mb_s.get() * bytes_per_mb;
        let iops = self.iops.get();
        if iops <= 0.0 {
            return (bytes_per_s / size, crate::Bytes(size as u64));
        }
        // A profile sizes the IOPS and the MB/s peaks apart (each at its percentile x comfort),
        // so their ratio wobbles around the typical IO size: within 1 % the typical size stands
        // (no "8193 B" IOs); beyond it the MB/s really needs larger IOs on average.
        if bytes_per_s > iops * size * 1.01 {
            (iops, crate::Bytes((bytes_per_s / iops).ceil() as u64))
        } else {
            (iops, crate::Bytes(size as u64))
        }
    }
}

fn default_random_pct() -> f64 {
    100.0
}

/// The checklist as measured, each metric at p50/p90/p99. Optional where a source lacks it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservedMetrics {
    pub samples: u64,
    pub iops: Percentiles,
    pub read_pct: Percentiles,
    /// True when `read_pct` is an estimate (sar gives transfers only; split by byte share).
    #[serde(default)]
    pub read_pct_estimated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_pct: Option<Percentiles>,
    /// True when `random_pct` is an estimate (from request size and merges), not a count.
    #[serde(default)]
    pub random_pct_estimated: bool,
    pub io_size_bytes: Percentiles,
    pub throughput_mb_s: Percentiles,
    pub throughput_mb_s_avg: f64,
    pub throughput_mb_s_max: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<Percentiles>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms_min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms_avg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<Percentiles>,
    pub iops_max: f64,
}

/// One volume's requirements: a data volume and a log volume are measured and sized apart.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolumeRequirements {
    pub label: String,
    #[serde(default)]
    pub role: VolumeRole,
    /// Devices whose counters were summed into this volume (empty when written by hand).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<String>,
    pub sizing: SizingTarget,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<ObservedMetrics>,
    /// How each sizing number was derived, one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derivation: Vec<String>,
}

/// Starts the derivation line of a volume whose capture has no byte counters (`profile`
/// writes it; the checklist reads a volume's IO size and throughput as assumed when it is
/// there).
pub const BYTES_NOT_MEASURED: &str = "throughput and IO size not measured";

/// Host-wide metrics of the checklist (CPU and memory).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostMetrics {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pct: Option<Percentiles>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_pct_avg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_pct: Option<Percentiles>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_pct_avg: Option<f64>,
    /// vCPUs the application needs, if known; the planner then rules out smaller VMs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcpu_min: Option<u32>,
    /// Memory the application needs, GiB, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_gib_min: Option<GiB>,
}

/// The whole requirements file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirements {
    /// Where the numbers came from: file names, tool, or "command line".
    #[serde(default)]
    pub source: String,
    /// Growth factor already applied to `sizing` (1.0: none).
    #[serde(default = "one")]
    pub growth_factor: f64,
    #[serde(default)]
    pub host: HostMetrics,
    pub volumes: Vec<VolumeRequirements>,
}

fn one() -> f64 {
    1.0
}

impl Requirements {
    /// Total IOPS over all volumes: what the VM must carry.
    pub fn total_iops(&self) -> f64 {
        self.volumes.iter().map(|v| v.sizing.iops.get()).sum()
    }
    /// Total MB/s over all volumes.
    pub fn total_throughput_mb_s(&self) -> f64 {
        self.volumes
            .iter()
            .map(|v| v.sizing.throughput_mb_s.get())
            .sum()
    }

    /// Multiplies every rate (IOPS, throughput, capacity) by `factor` for expected growth.
    /// Latency, IO size and mix are properties of the application and do not grow.
    pub fn apply_growth(&mut self, factor: f64) {
        assert!(factor > 0.0, "growth factor must be positive");
        for volume in &mut self.volumes {
            volume.sizing.iops = volume.sizing.iops * factor;
            volume.sizing.throughput_mb_s = volume.sizing.throughput_mb_s * factor;
            if let Some(capacity) = volume.sizing.capacity_gib.as_mut() {
                *capacity = *capacity * factor;
            }
            volume.derivation.push(format!(
                "IOPS, throughput and capacity multiplied by growth factor {factor}"
            ));
        }
        self.growth_factor *= factor;
    }

    /// Checks the invariants a requirements file must keep; the error names the volume and
    /// key. The one validation: `plan`, `compare`, `profile` and `demo` all call it.
    pub fn validate(&self) -> Result<(), RequirementsError> {
        if self.volumes.is_empty() {
            return Err(RequirementsError::NoVolumes);
        }
        let mut labels = std::collections::HashSet::new();
        for volume in &self.volumes {
            if !labels.insert(volume.label.as_str()) {
                return Err(RequirementsError::DuplicateLabel(volume.label.clone()));
            }
            volume
                .sizing
                .validate()
                .map_err(|(key, problem)| RequirementsError::Key {
                    volume: volume.label.clone(),
                    key,
                    problem,
                })?;
        }
        Ok(())
    }
}

impl SizingTarget {
    /// The key that breaks an invariant and what it must be.
    fn validate(&self) -> Result<(), (&'static str, &'static str)> {
        const AT_LEAST_0: &str = "must be a number >= 0";
        let s = self;
        if !(s.iops.get().is_finite() && s.iops.get() >= 0.0) {
            return Err(("iops", AT_LEAST_0));
        }
        let mb_s = s.throughput_mb_s.get();
        if !(mb_s.is_finite() && mb_s >= 0.0) {
            return Err(("throughput_mb_s", AT_LEAST_0));
        }
        if s.io_size_bytes == Bytes(0) {
            return Err(("io_size_bytes", "must be at least 1 (bytes)"));
        }
        if !(0.0..=100.0).contains(&s.read_pct) {
            return Err(("read_pct", "must be within 0..=100"));
        }
        if !(0.0..=100.0).contains(&s.random_pct) {
            return Err(("random_pct", "must be within 0..=100"));
        }
        if s.latency_ms
            .is_some_and(|ms| !(ms.get().is_finite() && ms.get() > 0.0))
        {
            return Err(("latency_ms", "must be a number > 0"));
        }
        if s.capacity_gib
            .is_some_and(|gib| !(gib.get().is_finite() && gib.get() >= 0.0))
        {
            return Err(("capacity_gib", AT_LEAST_0));
        }
        Ok(())
    }
}

/// Why a requirements file breaks an invariant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequirementsError {
    #[error("no [[volumes]] entry; add at least one volume with a [volumes.sizing] table")]
    NoVolumes,
    #[error("two volumes are labelled '{0}'; give each [[volumes]] its own label")]
    DuplicateLabel(String),
    #[error("volume '{volume}', key sizing.{key}: {problem}")]
    Key {
        volume: String,
        key: &'static str,
        problem: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_are_the_serde_names() {
        for role in [
            VolumeRole::Data,
            VolumeRole::Log,
            VolumeRole::Temp,
            VolumeRole::Os,
            VolumeRole::Other,
        ] {
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(json, format!("\"{}\"", role.name()));
        }
    }

    fn sample() -> Requirements {
        Requirements {
            source: "test".into(),
            growth_factor: 1.0,
            host: HostMetrics::default(),
            volumes: vec![VolumeRequirements {
                label: "data".into(),
                role: VolumeRole::Data,
                sizing: SizingTarget {
                    iops: Iops(16000.0),
                    throughput_mb_s: MBps(300.0),
                    latency_ms: Some(Millis(5.0)),
                    io_size_bytes: Bytes(8192),
                    read_pct: 70.0,
                    random_pct: 100.0,
                    capacity_gib: Some(GiB(2000.0)),
                    queue_depth: None,
                },
                ..Default::default()
            }],
        }
    }

    #[test]
    fn growth_scales_rates_not_latency() {
        let mut requirements = sample();
        requirements.apply_growth(1.5);
        let sizing = &requirements.volumes[0].sizing;
        assert_eq!(sizing.iops, Iops(24000.0));
        assert_eq!(sizing.throughput_mb_s, MBps(450.0));
        assert_eq!(sizing.capacity_gib, Some(GiB(3000.0)));
        assert_eq!(sizing.latency_ms, Some(Millis(5.0)));
        assert_eq!(requirements.growth_factor, 1.5);
    }

    /// Capacities are typed, but files keep their form: a whole number reads as GiB, JSON
    /// writes the same `2000.0` a bare f64 wrote, and an absent capacity stays absent.
    #[test]
    fn capacities_read_whole_numbers_and_write_as_plain_numbers() {
        let text = "[host]\nmemory_gib_min = 64\n\n[[volumes]]\nlabel = \"data\"\n\
                    [volumes.sizing]\niops = 100\nthroughput_mb_s = 10\nio_size_bytes = 8192\n\
                    read_pct = 50\ncapacity_gib = 500\n";
        let read: Requirements = toml::from_str(text).unwrap();
        assert_eq!(read.host.memory_gib_min, Some(GiB(64.0)));
        assert_eq!(read.volumes[0].sizing.capacity_gib, Some(GiB(500.0)));
        let json = serde_json::to_string(&sample().volumes[0].sizing).unwrap();
        assert!(json.contains("\"capacity_gib\":2000.0"), "{json}");
        let mut none = sample().volumes[0].sizing.clone();
        none.capacity_gib = None;
        let json = serde_json::to_string(&none).unwrap();
        assert!(!json.contains("capacity_gib"), "{json}");
    }

    #[test]
    fn toml_round_trip() {
        let requirements = sample();
        let text = toml::to_string(&requirements).unwrap();
        let back: Requirements = toml::from_str(&text).unwrap();
        assert_eq!(back, requirements);
    }

    #[test]
    fn validation_names_volume_and_key() {
        let mut requirements = sample();
        requirements.volumes[0].sizing.read_pct = 170.0;
        let message = requirements.validate().unwrap_err().to_string();
        assert!(
            message.contains("'data'") && message.contains("sizing.read_pct"),
            "{message}"
        );
    }

    #[test]
    fn duplicate_labels_are_refused() {
        let mut requirements = sample();
        let copy = requirements.volumes[0].clone();
        requirements.volumes.push(copy);
        assert_eq!(
            requirements.validate(),
            Err(RequirementsError::DuplicateLabel("data".into()))
        );
    }
}
