//! AWS designs under the same throttle: an EC2 instance's EBS baseline is the shared cap and
//! its maximum the burst, held as a bucket of 30 minutes at the maximum (AWS: smaller sizes
//! "can support maximum performance for 30 minutes at least once every 24 hours, after which
//! they revert to their baseline performance"); each volume's caps are its EBS figures (gp3
//! as provisioned, gp2's burst to 3,000 IOPS on its own bucket, st1's MiB/s per TiB).

use crate::limits::{DesignLimits, EmulationNote, VmLimits, VolumeLimits};
use crate::EmulateError;
use iofit_catalog::clouds::aws::{AwsInstance, EbsVolumeType};
use iofit_model::units::{Iops, MBps};
use iofit_predict::aws::{volume_caps, AwsVolumeSpec};

/// The limits of `instance` with `volumes`, every figure times `scale`.
pub fn aws_design_limits(
    instance: &AwsInstance,
    volumes: &[(AwsVolumeSpec, EbsVolumeType)],
    scale: f64,
) -> Result<DesignLimits, EmulateError> {
    if !(scale.is_finite() && scale > 0.0 && scale <= 1e6) {
        return Err(EmulateError::Input(format!(
            "--scale {scale}: must be a number in (0, 1000000]"
        )));
    }
    if volumes.is_empty() {
        return Err(EmulateError::Input(
            "a design needs at least one volume (--disk)".into(),
        ));
    }
    let mut limits = Vec::new();
    for (spec, rules) in volumes {
        let caps = volume_caps(spec, rules).map_err(|e| EmulateError::Input(e.to_string()))?;
        let count = f64::from(spec.count.max(1)) * scale;
        let burst = |burst: f64, base: f64| (burst > base).then_some(burst * count);
        limits.push(VolumeLimits {
            label: spec.label.clone(),
            design: format!(
                "{} x {} {} GiB{}{}",
                spec.count,
                spec.volume_type,
                spec.size_gib.get(),
                spec.iops
                    .map(|i| format!(", {} IOPS", i.get()))
                    .unwrap_or_default(),
                spec.throughput_mib_s
                    .map(|m| format!(", {:.0} MiB/s", m.get()))
                    .unwrap_or_default()
            ),
            iops: caps.iops * count,
            throughput_mb_s: caps.throughput_mib_s.to_mb_s() * count,
            burst_iops: burst(caps.burst_iops.get(), caps.iops.get()).map(Iops),
            burst_throughput_mb_s: burst(
                caps.burst_throughput_mib_s.to_mb_s().get(),
                caps.throughput_mib_s.to_mb_s().get(),
            )
            .map(MBps),
            host_cached: false,
        });
    }
    let bursts = instance.bursts();
    let notes = vec![
        EmulationNote::AwsInstanceCaps {
            instance: instance.name.clone(),
            baseline_iops: instance.baseline_iops.get(),
            baseline_mb_s: instance.baseline_throughput_mb_s.get(),
            maximum: bursts.then(|| {
                (
                    instance.maximum_iops.get(),
                    instance.maximum_throughput_mb_s.get(),
                )
            }),
        },
        EmulationNote::EbsIoUnits,
    ];
    Ok(DesignLimits {
        vm: VmLimits {
            name: instance.name.clone(),
            uncached_iops: Some(Iops(instance.baseline_iops.get() * scale)),
            uncached_throughput_mb_s: Some(instance.baseline_throughput_mb_s * scale),
            burst_uncached_iops: bursts.then_some(Iops(instance.maximum_iops.get() * scale)),
            burst_uncached_throughput_mb_s: bursts
                .then_some(instance.maximum_throughput_mb_s * scale),
        },
        volumes: limits,
        scale,
        notes,
        groups: Vec::new(),
        one_io_per_request: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Controller;
    use crate::throttle::DeviceCounters;
    use iofit_catalog::clouds::aws::AwsCatalog;
    use iofit_predict::aws::parse_volume_spec;

    fn reads(ios: u64) -> DeviceCounters {
        DeviceCounters {
            read_ios: ios,
            read_bytes: iofit_model::Bytes(ios * 4096),
            ..Default::default()
        }
    }

    /// m6i.2xlarge with two gp3 volumes of 16,000 IOPS: the volumes allow 32,000, the
    /// instance 12,000 all day and 40,000 in its window. A greedy reader gets 32,000 while the
    /// window's bucket lasts (time scale 1800: 1 s of the 30 minutes, 28,000 IOs above the
    /// baseline), then the instance baseline, 12,000.
    #[test]
    fn emulate_holds_the_instance_burst_window_then_the_baseline() {
        let catalog = AwsCatalog::embedded().unwrap();
        let instance = catalog.instance("m6i.2xlarge").unwrap();
        let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
        let volume =
            parse_volume_spec("data=2xgp3,size_gib=32,iops=16000,mib_s=250", 0, &rules_of).unwrap();
        let limits = aws_design_limits(instance, &[volume], 1.0).unwrap();
        assert_eq!(limits.vm.uncached_iops, Some(Iops(12_000.0)));
        assert_eq!(limits.vm.burst_uncached_iops, Some(Iops(40_000.0)));
        assert_eq!(limits.volumes[0].iops.get(), 32_000.0);
        let mut c = Controller::new(limits, 1800.0, 0.1);
        let mut counter = reads(0);
        let mut totals = vec![];
        for _ in 0..40 {
            let cap = c.caps()[0].read_iops.unwrap();
            counter = reads(counter.read_ios + cap / 10);
            let usage = c.tick(std::slice::from_ref(&counter), 0.1);
            totals.push(usage[0].iops());
        }
        assert!(totals[1..4].iter().all(|t| *t > 28_000.0), "{totals:?}");
        assert!(
            totals[30..]
                .iter()
                .all(|t| (11_500.0..12_500.0).contains(t)),
            "{totals:?}"
        );
    }

    #[test]
    fn a_size_that_sustains_its_maximum_has_no_burst_and_gp2_keeps_its_own() {
        let catalog = AwsCatalog::embedded().unwrap();
        let instance = catalog.instance("m6i.8xlarge").unwrap();
        let rules_of = |name: &str| catalog.volume_type(name).ok().cloned();
        let volume = parse_volume_spec("log=1xgp2,size_gib=100", 0, &rules_of).unwrap();
        let limits = aws_design_limits(instance, &[volume], 1.0).unwrap();
        assert_eq!(limits.vm.burst_uncached_iops, None);
        assert_eq!(limits.volumes[0].iops.get(), 300.0);
        assert_eq!(limits.volumes[0].burst_iops, Some(Iops(3000.0)));
    }
}
