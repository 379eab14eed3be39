//! The limits a design puts on each volume and on the VM, as the emulation enforces them.

use crate::EmulateError;
use iofit_catalog::VmSize;
pub use iofit_model::emulation::{
    DesignLimits, EmulationNote, SharedGroup, VmLimits, VolumeLimits,
};
use iofit_model::units::{Iops, MBps};
use iofit_model::VolumeDesign;
use iofit_predict::DiskPerf;

/// A design's limits from its VM and volumes, scaled by `scale` (1.0 = the catalog's figures).
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
        notes.push(EmulationNote::NoVmCap {
            vm: vm.name.clone(),
        });
    }
    Ok(DesignLimits {
        vm: VmLimits {
            name: vm.name.clone(),
            uncached_iops: vm.uncached_iops.map(|v| v * scale),
            uncached_throughput_mb_s: vm.uncached_throughput_mb_s.map(|v| v * scale),
            burst_uncached_iops: vm.burst_uncached_iops.map(|v| v * scale),
            burst_uncached_throughput_mb_s: vm.burst_uncached_throughput_mb_s.map(|v| v * scale),
        },
        volumes: limits,
        scale,
        notes,
        groups: Vec::new(),
        one_io_per_request: false,
    })
}

fn volume_limits(
    design: &VolumeDesign,
    disk: &DiskPerf,
    scale: f64,
    notes: &mut Vec<EmulationNote>,
) -> VolumeLimits {
    let count = f64::from(design.disk_count.max(1));
    let host_cached = design.caching.is_cached();
    if host_cached {
        notes.push(EmulationNote::HostCacheNotEmulated {
            volume: design.label.clone(),
            caching: design.caching.to_string(),
        });
    }
    let bought = match (design.provisioned_size_gib, design.provisioned_iops) {
        (Some(size), Some(iops)) => {
            let (size, iops) = (size.get(), iops.get());
            notes.push(EmulationNote::ProvisionedCaps {
                volume: design.label.clone(),
                disk: disk.name.clone(),
            });
            format!(
                " {size} GiB, {iops} IOPS, {} MB/s",
                disk.throughput_mb_s.get()
            )
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
        throughput_mb_s: MBps(disk.throughput_mb_s.get() * count * scale),
        burst_iops: disk.burst_iops.map(|v| Iops(v.get() * count * scale)),
        burst_throughput_mb_s: disk
            .burst_throughput_mb_s
            .map(|v| MBps(v.get() * count * scale)),
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
        let limits = from_design(&vm, &volumes, 1.0).unwrap();
        assert_eq!(limits.vm.burst_uncached_iops, Some(Iops(10_000.0)));
        assert_eq!(limits.volumes[0].burst_iops, Some(Iops(3500.0)));
        let sustained = limits.sustained();
        assert_eq!(sustained.vm.burst_uncached_iops, None);
        assert_eq!(sustained.volumes[0].burst_iops, None);
        assert_eq!(sustained.volumes[0].iops.get(), 500.0);
        assert!(sustained.notes.contains(&EmulationNote::BurstOff));
    }
}
