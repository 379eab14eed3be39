//! The limits a design puts on each volume and on the VM, as the emulation enforces them.

use crate::EmulateError;
use iofit_catalog::VmSize;
use iofit_model::VolumeDesign;
use iofit_predict::DiskPerf;
use serde::Serialize;

/// One volume's caps: the disk count times one disk's figures (a stripe spreads IO evenly, so
/// its members' caps and burst buckets add up; one bucket per volume stands for them).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VolumeLimits {
    pub label: String,
    /// "2 x P30 (None)": what the volume stands for.
    pub design: String,
    pub iops: f64,
    pub throughput_mb_s: f64,
    pub burst_iops: Option<f64>,
    pub burst_throughput_mb_s: Option<f64>,
    pub host_cached: bool,
}

/// The VM's caps on uncached IO across every volume together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmLimits {
    pub name: String,
    pub uncached_iops: Option<f64>,
    pub uncached_throughput_mb_s: Option<f64>,
    /// VM-level credit bursting (the size tables' "max burst uncached" figures, up to 30
    /// minutes): `None` where the VM has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_uncached_iops: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub burst_uncached_throughput_mb_s: Option<f64>,
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
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mb_s: f64,
    pub write_mb_s: f64,
}

impl SharedGroup {
    /// The group's caps of one limit, (read, write): IOPS or MB/s.
    pub fn caps(&self, iops: bool) -> (f64, f64) {
        if iops {
            (self.read_iops, self.write_iops)
        } else {
            (self.read_mb_s, self.write_mb_s)
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
    pub fn from_design(
        vm: &VmSize,
        volumes: &[(VolumeDesign, DiskPerf)],
        scale: f64,
    ) -> Result<DesignLimits, EmulateError> {
        if !(scale.is_finite() && scale > 0.0 && scale <= 1e6) {
            return Err(EmulateError::Input(format!(
                "--limit-scale {scale}: must be a number in (0, 1000000]"
            )));
        }
        if volumes.is_empty() {
            return Err(EmulateError::Input(
                "a design needs at least one volume (--disk)".into(),
            ));
        }
        let mut notes = Vec::new();
        let limits = volumes
            .iter()
            .map(|(design, disk)| volume_limits(design, disk, scale, &mut notes))
            .collect();
        if vm.uncached_iops.is_none() || vm.uncached_throughput_mb_s.is_none() {
            notes.push(format!(
                "{} has no published uncached IOPS or MB/s limit in the catalog: the VM cap is \
                 not enforced",
                vm.name
            ));
        }
        Ok(DesignLimits {
            vm: VmLimits {
                name: vm.name.clone(),
                uncached_iops: vm.uncached_iops.map(|v| v.0 * scale),
                uncached_throughput_mb_s: vm.uncached_throughput_mb_s.map(|v| v.0 * scale),
                burst_uncached_iops: vm.burst_uncached_iops.map(|v| v.0 * scale),
                burst_uncached_throughput_mb_s: vm
                    .burst_uncached_throughput_mb_s
                    .map(|v| v.0 * scale),
            },
            volumes: limits,
            scale,
            notes,
            groups: Vec::new(),
            one_io_per_request: false,
        })
    }
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

fn volume_limits(
    design: &VolumeDesign,
    disk: &DiskPerf,
    scale: f64,
    notes: &mut Vec<String>,
) -> VolumeLimits {
    let count = f64::from(design.disk_count.max(1));
    let host_cached = design.caching.is_cached();
    if host_cached {
        notes.push(format!(
            "volume '{}' is planned with {} host caching; the kernel throttle has no host \
             cache, so it is emulated as uncached (pessimistic for cache-friendly reads)",
            design.label, design.caching
        ));
    }
    let bought = match (design.provisioned_size_gib, design.provisioned_iops) {
        (Some(size), Some(iops)) => {
            notes.push(format!(
                "volume '{}' is {}: capped at the IOPS and MB/s bought per disk; the VM's \
                 uncached limits enforced are its Premium SSD ones (some sizes publish higher \
                 ones for Premium SSD v2 and Ultra, not in the catalog: pessimistic there)",
                design.label, disk.name
            ));
            format!(" {size} GiB, {iops} IOPS, {} MB/s", disk.throughput_mb_s)
        }
        _ => String::new(),
    };
    VolumeLimits {
        label: design.label.clone(),
        design: format!(
            "{} x {}{bought} ({})",
            design.disk_count, disk.name, design.caching
        ),
        iops: disk.iops * count * scale,
        throughput_mb_s: disk.throughput_mb_s * count * scale,
        burst_iops: disk.burst_iops.map(|v| v * count * scale),
        burst_throughput_mb_s: disk.burst_throughput_mb_s.map(|v| v * count * scale),
        host_cached,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sustained_limits_drop_every_burst_and_say_so() {
        let catalog = iofit_catalog::Catalog::embedded().unwrap();
        let (vm, volumes) = crate::resolve(
            &catalog,
            "current",
            "Standard_D2s_v5",
            &["data=1xP10".to_string()],
        )
        .unwrap();
        let limits = DesignLimits::from_design(&vm, &volumes, 1.0).unwrap();
        assert_eq!(limits.vm.burst_uncached_iops, Some(10_000.0));
        assert_eq!(limits.volumes[0].burst_iops, Some(3500.0));
        let sustained = limits.sustained();
        assert_eq!(sustained.vm.burst_uncached_iops, None);
        assert_eq!(sustained.volumes[0].burst_iops, None);
        assert_eq!(sustained.volumes[0].iops, 500.0);
        assert!(sustained.notes.iter().any(|n| n.contains("--no-burst")));
    }
}
