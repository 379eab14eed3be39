//! What an emulation holds and what it saw: the limits of a design as the kernel throttle
//! enforces them (`DesignLimits`), one second of a rehearsal (`Second`) and the whole
//! rehearsal (`Outcome`). Plain data: `iofit-emulate` builds and fills them (it does the IO),
//! and `report` renders them without depending on it.
//!
//! ```
//! use iofit_model::emulation::VolumeUsage;
//! use iofit_model::units::Iops;
//! let usage = VolumeUsage { read_iops: Iops(300.0), write_iops: Iops(200.0), ..Default::default() };
//! assert_eq!(usage.iops(), 500.0);
//! ```

use crate::units::{Iops, MBps, Seconds};
use serde::Serialize;
use std::path::PathBuf;

/// One volume's caps: the disk count times one disk's figures (a stripe spreads IO evenly, so
/// its members' caps and burst buckets add up; one bucket per volume stands for them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VolumeLimits {
    pub label: String,
    /// "2 x P30 (None)": what the volume stands for.
    pub design: String,
    pub iops: Iops,
    pub throughput_mb_s: MBps,
    pub burst_iops: Option<Iops>,
    pub burst_throughput_mb_s: Option<MBps>,
    pub host_cached: bool,
}

/// The VM's caps on uncached IO across every volume together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmLimits {
    pub name: String,
    pub uncached_iops: Option<Iops>,
    pub uncached_throughput_mb_s: Option<MBps>,
    /// VM-level credit bursting (the size tables' "max burst uncached" figures, up to 30
    /// minutes): `None` where the VM has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_uncached_iops: Option<Iops>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_uncached_throughput_mb_s: Option<MBps>,
}

/// Caps that some volumes share, each direction on its own: Google Cloud's budget of one disk
/// type on one VM (`baseline + rate x GiB` of the type attached, up to the VM's limit), which
/// its disks of that type share by demand, reads and writes limited apart. Divided among its
/// volumes every tick as the VM's cap is (`controller`), one direction at a time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SharedGroup {
    /// What it is: `pd-ssd` (the disk type whose budget it is).
    pub name: String,
    /// The volumes sharing it (indices into `DesignLimits::volumes`).
    pub volumes: Vec<usize>,
    pub read_iops: Iops,
    pub write_iops: Iops,
    pub read_mb_s: MBps,
    pub write_mb_s: MBps,
}

impl SharedGroup {
    /// The group's caps of one limit, (read, write): IOPS or MB/s.
    pub fn caps(&self, iops: bool) -> (f64, f64) {
        if iops {
            (self.read_iops.get(), self.write_iops.get())
        } else {
            (self.read_mb_s.get(), self.write_mb_s.get())
        }
    }
}

/// What an emulation cannot reproduce or did differently, said once in its output. `Display`
/// is the sentence the output shows; JSON holds the same sentence.
#[derive(Clone, Debug, PartialEq)]
pub enum EmulationNote {
    /// The VM has no published uncached IOPS or MB/s limit, so no VM cap is enforced.
    NoVmCap { vm: String },
    /// A host-cached volume is emulated uncached (the throttle has no host cache).
    HostCacheNotEmulated { volume: String, caching: String },
    /// A provisioned disk (Premium SSD v2, Ultra) is capped at what was bought per disk.
    ProvisionedCaps { volume: String, disk: String },
    /// An AWS instance's EBS baseline is the shared cap; `maximum` (IOPS, MB/s) is its burst
    /// bucket when it has one.
    AwsInstanceCaps {
        instance: String,
        baseline_iops: f64,
        baseline_mb_s: f64,
        maximum: Option<(f64, f64)>,
    },
    /// EBS counts one operation per 256 KiB and so does the throttle.
    EbsIoUnits,
    /// Google Cloud's per-disk-type caps are shared by that type's disks.
    GcpSharedTypeCaps { machine: String, vcpu: u32 },
    /// Google Cloud: one IO per request, whatever its size.
    GcpOneIoPerRequest,
    /// Google Cloud: a provisioned disk (pd-extreme, Hyperdisk) is capped at what it is given.
    GcpProvisionedCaps,
    /// `--no-burst`: credit bursting is off.
    BurstOff,
    /// cgroup v1 does not charge buffered writes flushed later.
    CgroupV1BufferedWrites,
    /// Something made for the emulation could not be removed.
    Cleanup(String),
}

impl std::fmt::Display for EmulationNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmulationNote::NoVmCap { vm } => write!(
                f,
                "{vm} has no published uncached IOPS or MB/s limit in the catalog: the VM cap is \
                 not enforced"
            ),
            EmulationNote::HostCacheNotEmulated { volume, caching } => write!(
                f,
                "volume '{volume}' is planned with {caching} host caching; the kernel throttle \
                 has no host cache, so it is emulated as uncached (pessimistic for cache-friendly \
                 reads)"
            ),
            EmulationNote::ProvisionedCaps { volume, disk } => write!(
                f,
                "volume '{volume}' is {disk}: capped at the IOPS and MB/s bought per disk; the \
                 VM's uncached limits enforced are its Premium SSD ones (some sizes publish \
                 higher ones for Premium SSD v2 and Ultra, not in the catalog: pessimistic there)"
            ),
            EmulationNote::AwsInstanceCaps {
                instance,
                baseline_iops,
                baseline_mb_s,
                maximum,
            } => {
                write!(
                    f,
                    "AWS {instance}: its EBS baseline ({baseline_iops} IOPS, {baseline_mb_s} \
                     MB/s) is the shared cap"
                )?;
                match maximum {
                    Some((iops, mb_s)) => write!(
                        f,
                        "; its maximum ({iops} IOPS, {mb_s} MB/s) is a bucket of 30 minutes at \
                         the maximum, refilled below the baseline as Azure's are (AWS states the \
                         window, 'at least once every 24 hours', not the refill rate)"
                    ),
                    None => f.write_str(" (it sustains its maximum: no burst)"),
                }
            }
            EmulationNote::EbsIoUnits => f.write_str(
                "EBS counts one SSD operation per 256 KiB; the throttle counts larger IOs as \
                 several the same way",
            ),
            EmulationNote::GcpSharedTypeCaps { machine, vcpu } => write!(
                f,
                "Google Cloud {machine}: each disk type's caps (baseline + rate x the GiB of that \
                 type attached, up to the VM's limit for {vcpu} vCPU) are shared by that type's \
                 disks by demand, reads and writes apart; nothing bursts"
            ),
            EmulationNote::GcpOneIoPerRequest => f.write_str(
                "each request counts as one IO against the IOPS caps, whatever its size, as \
                 predict --cloud gcp counts it (Google's splitting of large IOs is not sourced)",
            ),
            EmulationNote::GcpProvisionedCaps => f.write_str(
                "a provisioned disk (pd-extreme, Hyperdisk) is also capped at the IOPS and MiB/s \
                 it is given or its rules bring, reads and writes together; its type's caps are \
                 the VM's limit of the type",
            ),
            EmulationNote::BurstOff => f.write_str(
                "credit bursting is off (--no-burst): the sustained limits only, as predict \
                 gives them",
            ),
            EmulationNote::CgroupV1BufferedWrites => f.write_str(
                "cgroup v1 throttles reads and direct writes only: buffered writes the kernel \
                 flushes later are not charged to the command (use direct IO, or a machine with \
                 cgroup v2)",
            ),
            EmulationNote::Cleanup(what) => write!(f, "cleanup: {what}"),
        }
    }
}

/// JSON holds the sentence, as it did when notes were strings.
impl Serialize for EmulationNote {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Every cap of a design, scaled by `scale` (1.0 = the catalog's figures).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DesignLimits {
    pub vm: VmLimits,
    pub volumes: Vec<VolumeLimits>,
    pub scale: f64,
    /// What the emulation cannot reproduce, said once for the output.
    pub notes: Vec<EmulationNote>,
    /// Per-direction caps shared by some of the volumes (Google Cloud: one per disk type);
    /// empty for Azure and AWS, whose shared cap is the VM's (`vm`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<SharedGroup>,
    /// Every request counts as one IO against the IOPS caps, whatever its size (Google Cloud
    /// states no splitting of large IOs); false: a request over 256 KiB counts as several, as
    /// Azure and EBS count them.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub one_io_per_request: bool,
}

impl DesignLimits {
    /// The same design without credit bursting (disks' and the VM's): the sustained limits,
    /// which is what `predict` gives. (An empty bucket alone is not that: idle seconds, such
    /// as a job laying out its files, earn credits that a burst then spends.)
    pub fn sustained(mut self) -> DesignLimits {
        let had_burst = self.vm.burst_uncached_iops.is_some()
            || self.vm.burst_uncached_throughput_mb_s.is_some()
            || self
                .volumes
                .iter()
                .any(|v| v.burst_iops.is_some() || v.burst_throughput_mb_s.is_some());
        self.vm.burst_uncached_iops = None;
        self.vm.burst_uncached_throughput_mb_s = None;
        for volume in &mut self.volumes {
            volume.burst_iops = None;
            volume.burst_throughput_mb_s = None;
        }
        if had_burst {
            self.notes.push(EmulationNote::BurstOff);
        }
        self
    }
}

/// What one volume did in one tick, against the caps in force during it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VolumeUsage {
    pub read_iops: Iops,
    pub write_iops: Iops,
    pub read_mb_s: MBps,
    pub write_mb_s: MBps,
    /// The volume's own caps in force (burst while credits last), Azure IO units.
    pub cap_iops: Iops,
    pub cap_mb_s: MBps,
    pub burst_seconds_left: Option<f64>,
}

impl VolumeUsage {
    pub fn iops(&self) -> f64 {
        (self.read_iops + self.write_iops).get()
    }
    pub fn mb_s(&self) -> f64 {
        (self.read_mb_s + self.write_mb_s).get()
    }
}

/// A block device by number, as the cgroup files name it ("8:16").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DeviceNumber {
    pub major: u32,
    pub minor: u32,
}

impl std::fmt::Display for DeviceNumber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.major, self.minor)
    }
}

/// Which cgroup interface this machine offers for block throttling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum CgroupVersion {
    V1,
    V2,
}

/// A volume ready for the command.
#[derive(Clone, Debug, Serialize)]
pub struct PreparedVolume {
    pub label: String,
    pub device_path: PathBuf,
    pub device: DeviceNumber,
    /// What the command gets: the mount point of a scratch volume, the device of a mapped one.
    pub path: PathBuf,
    pub scratch: bool,
}

/// One second of the rehearsal: what each volume did against the caps in force.
#[derive(Clone, Debug, Serialize)]
pub struct Second {
    pub t_s: Seconds,
    pub volumes: Vec<VolumeUsage>,
    pub vm_iops: Iops,
    pub vm_mb_s: MBps,
    /// The VM's uncached caps in force (above the baseline while VM-level burst credits last).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vm_cap_iops: Option<Iops>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vm_cap_mb_s: Option<MBps>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vm_burst_seconds_left: Option<f64>,
    /// The limit most consumed in this second and its consumed share (Azure Monitor's
    /// "consumed percentage").
    pub binding: String,
    pub binding_consumed_pct: f64,
}

/// What one limit saw over the whole rehearsal.
#[derive(Clone, Debug, Serialize)]
pub struct LimitSummary {
    pub limit: String,
    pub cap: f64,
    pub mean_used: f64,
    pub peak_used: f64,
    pub mean_consumed_pct: f64,
    /// The typical second's consumed share: a start-up burst (page cache flushed in one go)
    /// does not move it, as it moves the mean.
    pub median_consumed_pct: f64,
    /// Share of seconds at >= 95 % of the limit.
    pub at_limit_pct_of_time: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub cgroup: CgroupVersion,
    pub volumes: Vec<PreparedVolume>,
    pub seconds: Vec<Second>,
    pub limits: Vec<LimitSummary>,
    /// The limit with the highest median consumed share, when any reached 50 %.
    pub binding: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub interrupted: bool,
    /// Seconds any cap in force was above its baseline (credit bursting, the VM's or a
    /// volume's), of `seconds.len()`; `None` where the design cannot burst (or `--no-burst`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_seconds: Option<Seconds<u64>>,
    pub notes: Vec<EmulationNote>,
    /// Everything made was removed (false lists what was left in `notes`).
    pub cleaned_up: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each note says exactly the sentence it said as a string (the output and the JSON do not
    /// change), with its figures in their places.
    #[test]
    fn notes_say_the_sentences_they_said_as_strings() {
        let cases = [
            (
                EmulationNote::NoVmCap {
                    vm: "Standard_X".into(),
                },
                "Standard_X has no published uncached IOPS or MB/s limit in the catalog: the VM \
                 cap is not enforced",
            ),
            (
                EmulationNote::HostCacheNotEmulated {
                    volume: "data".into(),
                    caching: "ReadOnly".into(),
                },
                "volume 'data' is planned with ReadOnly host caching; the kernel throttle has no \
                 host cache, so it is emulated as uncached (pessimistic for cache-friendly reads)",
            ),
            (
                EmulationNote::ProvisionedCaps {
                    volume: "log".into(),
                    disk: "PremiumV2_LRS".into(),
                },
                "volume 'log' is PremiumV2_LRS: capped at the IOPS and MB/s bought per disk; the \
                 VM's uncached limits enforced are its Premium SSD ones (some sizes publish higher \
                 ones for Premium SSD v2 and Ultra, not in the catalog: pessimistic there)",
            ),
            (
                EmulationNote::AwsInstanceCaps {
                    instance: "m6i.2xlarge".into(),
                    baseline_iops: 12000.0,
                    baseline_mb_s: 156.25,
                    maximum: Some((40000.0, 1250.0)),
                },
                "AWS m6i.2xlarge: its EBS baseline (12000 IOPS, 156.25 MB/s) is the shared cap; \
                 its maximum (40000 IOPS, 1250 MB/s) is a bucket of 30 minutes at the maximum, \
                 refilled below the baseline as Azure's are (AWS states the window, 'at least \
                 once every 24 hours', not the refill rate)",
            ),
            (
                EmulationNote::AwsInstanceCaps {
                    instance: "m6i.8xlarge".into(),
                    baseline_iops: 40000.0,
                    baseline_mb_s: 1250.0,
                    maximum: None,
                },
                "AWS m6i.8xlarge: its EBS baseline (40000 IOPS, 1250 MB/s) is the shared cap (it \
                 sustains its maximum: no burst)",
            ),
            (
                EmulationNote::EbsIoUnits,
                "EBS counts one SSD operation per 256 KiB; the throttle counts larger IOs as \
                 several the same way",
            ),
            (
                EmulationNote::GcpSharedTypeCaps {
                    machine: "n2-standard-8".into(),
                    vcpu: 8,
                },
                "Google Cloud n2-standard-8: each disk type's caps (baseline + rate x the GiB of \
                 that type attached, up to the VM's limit for 8 vCPU) are shared by that type's \
                 disks by demand, reads and writes apart; nothing bursts",
            ),
            (
                EmulationNote::GcpOneIoPerRequest,
                "each request counts as one IO against the IOPS caps, whatever its size, as \
                 predict --cloud gcp counts it (Google's splitting of large IOs is not sourced)",
            ),
            (
                EmulationNote::BurstOff,
                "credit bursting is off (--no-burst): the sustained limits only, as predict gives \
                 them",
            ),
            (
                EmulationNote::CgroupV1BufferedWrites,
                "cgroup v1 throttles reads and direct writes only: buffered writes the kernel \
                 flushes later are not charged to the command (use direct IO, or a machine with \
                 cgroup v2)",
            ),
            (
                EmulationNote::Cleanup("rmdir /sys/fs/cgroup/x: busy".into()),
                "cleanup: rmdir /sys/fs/cgroup/x: busy",
            ),
        ];
        for (note, sentence) in cases {
            assert_eq!(note.to_string(), sentence);
            assert_eq!(
                serde_json::to_string(&note).unwrap(),
                serde_json::to_string(sentence).unwrap()
            );
        }
    }
}
