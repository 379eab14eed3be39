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

use crate::units::{Iops, MBps};
use serde::Serialize;
use std::path::PathBuf;

/// One volume's caps: the disk count times one disk's figures (a stripe spreads IO evenly, so
/// its members' caps and burst buckets add up; one bucket per volume stands for them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VolumeLimits {
    pub label: String,
    /// "2 x P30 (None)": what the volume stands for.
    pub design: String,
    pub iops: f64,
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

/// Every cap of a design, scaled by `scale` (1.0 = the catalog's figures).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DesignLimits {
    pub vm: VmLimits,
    pub volumes: Vec<VolumeLimits>,
    pub scale: f64,
    /// What the emulation cannot reproduce, said once for the output.
    pub notes: Vec<String>,
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
            self.notes.push(
                "credit bursting is off (--no-burst): the sustained limits only, as predict \
                 gives them"
                    .into(),
            );
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
    pub t_s: f64,
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
    pub burst_seconds: Option<usize>,
    pub notes: Vec<String>,
    /// Everything made was removed (false lists what was left in `notes`).
    pub cleaned_up: bool,
}
