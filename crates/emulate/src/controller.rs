//! The control loop's arithmetic: from what each device did in the last tick to the caps for
//! the next one. Pure (no IO, no clock), so it is tested with made-up counters.
//!
//! Per tick: each volume's burst buckets are charged with what it used; the VM's uncached IOPS
//! and MB/s are divided among the volumes by demand (each up to its own cap, burst included);
//! each volume's share is divided between reads and writes by demand, because Azure caps the
//! two together while the kernel throttles them apart. IOPS are counted in Azure's IO units
//! (`iofit_model::formulas::azure_io_units`): a request larger than the unit counts as several.

use crate::bucket::BurstBucket;
use crate::divide::{demand_estimate, divide};
use crate::limits::DesignLimits;
use crate::throttle::{DeviceCaps, DeviceCounters};
use iofit_model::formulas::azure_io_units;
use serde::Serialize;

/// The least share of a cap an idle claimant keeps, so it can start without waiting a tick.
const IDLE_SHARE: f64 = 0.01;

/// What one volume did in one tick, against the caps in force during it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct VolumeUsage {
    pub read_iops: f64,
    pub write_iops: f64,
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    /// The volume's own caps in force (burst while credits last), Azure IO units.
    pub cap_iops: f64,
    pub cap_mb_s: f64,
    pub burst_seconds_left: Option<f64>,
}

impl VolumeUsage {
    pub fn iops(&self) -> f64 {
        self.read_iops + self.write_iops
    }
    pub fn mb_s(&self) -> f64 {
        self.read_mb_s + self.write_mb_s
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Split {
    read: f64,
    write: f64,
}

impl Split {
    fn total(self) -> f64 {
        self.read + self.write
    }
}

pub struct Controller {
    limits: DesignLimits,
    iops_buckets: Vec<Option<BurstBucket>>,
    mb_buckets: Vec<Option<BurstBucket>>,
    last: Vec<DeviceCounters>,
    iops_allot: Vec<Split>,
    mb_allot: Vec<Split>,
    /// Azure IO units per kernel request, per volume and direction, from the last tick.
    units_per_request: Vec<Split>,
    tick_s: f64,
}

impl Controller {
    /// `time_scale` shortens the 30-minute burst buckets (see `BurstBucket::full`); `tick_s` is
    /// how long each set of caps stays in force.
    pub fn new(limits: DesignLimits, time_scale: f64, tick_s: f64) -> Controller {
        let bucket = |base: f64, burst: Option<f64>| {
            burst
                .filter(|b| *b > base)
                .map(|b| BurstBucket::full(base, b, time_scale))
        };
        let iops_buckets = limits
            .volumes
            .iter()
            .map(|v| bucket(v.iops, v.burst_iops))
            .collect();
        let mb_buckets = limits
            .volumes
            .iter()
            .map(|v| bucket(v.throughput_mb_s, v.burst_throughput_mb_s))
            .collect();
        let count = limits.volumes.len();
        let mut controller = Controller {
            limits,
            iops_buckets,
            mb_buckets,
            last: vec![DeviceCounters::default(); count],
            iops_allot: vec![Split::default(); count],
            mb_allot: vec![Split::default(); count],
            units_per_request: vec![
                Split {
                    read: 1.0,
                    write: 1.0
                };
                count
            ],
            tick_s,
        };
        // Before any IO: every volume may use its own cap (within the VM's), half each way.
        let used = vec![(Split::default(), Split::default()); count];
        controller.allot(&used, true);
        controller
    }

    pub fn limits(&self) -> &DesignLimits {
        &self.limits
    }

    /// The kernel caps to set now, one per volume.
    pub fn caps(&self) -> Vec<DeviceCaps> {
        (0..self.iops_allot.len())
            .map(|i| {
                let iops = self.iops_allot[i];
                let units = self.units_per_request[i];
                let mb = self.mb_allot[i];
                DeviceCaps {
                    read_iops: Some(requests(iops.read, units.read)),
                    write_iops: Some(requests(iops.write, units.write)),
                    read_bytes_s: Some(bytes_s(mb.read)),
                    write_bytes_s: Some(bytes_s(mb.write)),
                }
            })
            .collect()
    }

    /// Takes the cumulative counters of every volume after `elapsed_s` seconds, returns what
    /// each volume did in that tick; the caps for the next tick are then in `caps()`.
    pub fn tick(&mut self, counters: &[DeviceCounters], elapsed_s: f64) -> Vec<VolumeUsage> {
        assert_eq!(
            counters.len(),
            self.last.len(),
            "one counter set per volume"
        );
        let elapsed_s = elapsed_s.max(1e-3);
        let mut usage = Vec::with_capacity(counters.len());
        let mut used = Vec::with_capacity(counters.len());
        for (i, now) in counters.iter().enumerate() {
            let (volume_usage, iops_used, mb_used) = self.account(i, now, elapsed_s);
            usage.push(volume_usage);
            used.push((iops_used, mb_used));
        }
        self.last = counters.to_vec();
        self.allot(&used, false);
        usage
    }

    fn account(
        &mut self,
        i: usize,
        now: &DeviceCounters,
        elapsed_s: f64,
    ) -> (VolumeUsage, Split, Split) {
        let last = self.last[i];
        let read_ios = now.read_ios.saturating_sub(last.read_ios) as f64;
        let write_ios = now.write_ios.saturating_sub(last.write_ios) as f64;
        let read_bytes = now.read_bytes.saturating_sub(last.read_bytes) as f64;
        let write_bytes = now.write_bytes.saturating_sub(last.write_bytes) as f64;
        let units = |bytes: f64, ios: f64, previous: f64| {
            if ios > 0.0 {
                azure_io_units(bytes / ios)
            } else {
                previous
            }
        };
        self.units_per_request[i] = Split {
            read: units(read_bytes, read_ios, self.units_per_request[i].read),
            write: units(write_bytes, write_ios, self.units_per_request[i].write),
        };
        let iops = Split {
            read: read_ios * self.units_per_request[i].read / elapsed_s,
            write: write_ios * self.units_per_request[i].write / elapsed_s,
        };
        let mb = Split {
            read: read_bytes / 1e6 / elapsed_s,
            write: write_bytes / 1e6 / elapsed_s,
        };
        let volume = &self.limits.volumes[i];
        let cap_iops = cap_of(&self.iops_buckets[i], volume.iops, self.tick_s);
        let cap_mb_s = cap_of(&self.mb_buckets[i], volume.throughput_mb_s, self.tick_s);
        let burst_seconds_left = self.iops_buckets[i].as_ref().map(|b| b.seconds_left());
        if let Some(bucket) = &mut self.iops_buckets[i] {
            bucket.account(iops.total() * elapsed_s, elapsed_s);
        }
        if let Some(bucket) = &mut self.mb_buckets[i] {
            bucket.account(mb.total() * elapsed_s, elapsed_s);
        }
        let usage = VolumeUsage {
            read_iops: iops.read,
            write_iops: iops.write,
            read_mb_s: mb.read,
            write_mb_s: mb.write,
            cap_iops,
            cap_mb_s,
            burst_seconds_left,
        };
        (usage, iops, mb)
    }

    /// Divides the VM caps among volumes and each volume's share between directions.
    fn allot(&mut self, used: &[(Split, Split)], first: bool) {
        let volume_caps_iops: Vec<f64> = (0..used.len())
            .map(|i| {
                cap_of(
                    &self.iops_buckets[i],
                    self.limits.volumes[i].iops,
                    self.tick_s,
                )
            })
            .collect();
        let volume_caps_mb: Vec<f64> = (0..used.len())
            .map(|i| {
                cap_of(
                    &self.mb_buckets[i],
                    self.limits.volumes[i].throughput_mb_s,
                    self.tick_s,
                )
            })
            .collect();
        let iops_used: Vec<Split> = used.iter().map(|u| u.0).collect();
        let mb_used: Vec<Split> = used.iter().map(|u| u.1).collect();
        self.iops_allot = level(
            self.limits.vm.uncached_iops,
            &volume_caps_iops,
            &iops_used,
            &self.iops_allot,
            first,
        );
        self.mb_allot = level(
            self.limits.vm.uncached_throughput_mb_s,
            &volume_caps_mb,
            &mb_used,
            &self.mb_allot,
            first,
        );
    }
}

/// One limit (IOPS or MB/s) at both levels: VM among volumes, then volume between directions.
fn level(
    vm_cap: Option<f64>,
    volume_caps: &[f64],
    used: &[Split],
    previous: &[Split],
    first: bool,
) -> Vec<Split> {
    let volume_share: Vec<f64> = match vm_cap {
        Some(vm_cap) => {
            let demands: Vec<f64> = (0..used.len())
                .map(|i| {
                    if first {
                        volume_caps[i]
                    } else {
                        demand_estimate(used[i].total(), previous[i].total(), vm_cap * IDLE_SHARE)
                    }
                })
                .collect();
            divide(vm_cap, &demands, volume_caps)
        }
        None => volume_caps.to_vec(),
    };
    (0..used.len())
        .map(|i| {
            let share = volume_share[i];
            if first {
                return Split {
                    read: share / 2.0,
                    write: share / 2.0,
                };
            }
            let floor = share * IDLE_SHARE;
            let demands = [
                demand_estimate(used[i].read, previous[i].read, floor),
                demand_estimate(used[i].write, previous[i].write, floor),
            ];
            let split = divide(share, &demands, &[share, share]);
            Split {
                read: split[0],
                write: split[1],
            }
        })
        .collect()
}

fn cap_of(bucket: &Option<BurstBucket>, baseline: f64, tick_s: f64) -> f64 {
    bucket.as_ref().map_or(baseline, |b| b.cap_per_s(tick_s))
}

/// Kernel requests per second for `azure_iops` Azure IO units at `units` per request.
fn requests(azure_iops: f64, units: f64) -> u64 {
    (azure_iops / units.max(1.0)).round().max(1.0) as u64
}

fn bytes_s(mb_s: f64) -> u64 {
    (mb_s * 1e6).round().max(1.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{VmLimits, VolumeLimits};

    fn limits(vm_iops: Option<f64>, volumes: &[(f64, Option<f64>)]) -> DesignLimits {
        DesignLimits {
            vm: VmLimits {
                name: "test".into(),
                uncached_iops: vm_iops,
                uncached_throughput_mb_s: None,
            },
            volumes: volumes
                .iter()
                .enumerate()
                .map(|(i, (iops, burst))| VolumeLimits {
                    label: format!("v{i}"),
                    design: String::new(),
                    iops: *iops,
                    throughput_mb_s: 1000.0,
                    burst_iops: *burst,
                    burst_throughput_mb_s: None,
                    host_cached: false,
                })
                .collect(),
            scale: 1.0,
            notes: vec![],
        }
    }

    fn reads(ios: u64) -> DeviceCounters {
        DeviceCounters {
            read_ios: ios,
            read_bytes: ios * 4096,
            ..Default::default()
        }
    }

    #[test]
    fn a_reader_gets_nearly_the_whole_disk_cap_after_one_tick() {
        let mut c = Controller::new(limits(None, &[(500.0, None)]), 1.0, 0.1);
        assert_eq!(c.caps()[0].read_iops, Some(250));
        c.tick(&[reads(25)], 0.1); // used all of its 250/s half
        let caps = c.caps()[0];
        assert_eq!(caps.read_iops, Some(495));
        assert_eq!(caps.write_iops, Some(5));
    }

    #[test]
    fn the_vm_cap_is_shared_by_demand_and_never_exceeded() {
        let mut c = Controller::new(
            limits(Some(1000.0), &[(800.0, None), (800.0, None)]),
            1.0,
            0.1,
        );
        let mut counters = [reads(0), reads(0)];
        for _ in 0..20 {
            let caps = c.caps();
            // volume 0 wants all it can get; volume 1 reads 100/s.
            counters[0] = reads(counters[0].read_ios + caps[0].read_iops.unwrap() / 10);
            counters[1] = reads(counters[1].read_ios + 10);
            c.tick(&counters, 0.1);
        }
        let caps = c.caps();
        let total: u64 = caps
            .iter()
            .map(|c| c.read_iops.unwrap() + c.write_iops.unwrap())
            .sum();
        assert!(total <= 1001, "total {total}");
        assert!(caps[0].read_iops.unwrap() >= 780, "{caps:?}");
        assert!(caps[1].read_iops.unwrap() >= 100, "{caps:?}");
    }

    #[test]
    fn a_bursting_disk_falls_to_baseline_when_credits_run_out() {
        // P10-like: 500 base, 3,500 burst; time scale 1800 -> a 1 s bucket.
        let mut c = Controller::new(limits(None, &[(500.0, Some(3500.0))]), 1800.0, 0.1);
        let mut ios = 0;
        let mut caps_seen = vec![];
        for _ in 0..30 {
            let cap = c.caps()[0].read_iops.unwrap();
            ios += cap / 10;
            let usage = c.tick(&[reads(ios)], 0.1);
            caps_seen.push(usage[0].cap_iops);
        }
        assert_eq!(caps_seen[0], 3500.0);
        // The reader holds 99 % of the cap (1 % stays with the idle writes), so it earns a
        // trickle of credits back: the cap settles just above the baseline, never near burst.
        let last = *caps_seen.last().unwrap();
        assert!((500.0..520.0).contains(&last), "{caps_seen:?}");
    }

    #[test]
    fn large_requests_count_as_several_azure_ios() {
        let mut c = Controller::new(limits(None, &[(100.0, None)]), 1.0, 0.1);
        // 1 MiB reads: 4 units of 256 KiB each.
        let counters = DeviceCounters {
            read_ios: 5,
            read_bytes: 5 << 20,
            ..Default::default()
        };
        let usage = c.tick(&[counters], 0.1);
        assert_eq!(usage[0].read_iops, 200.0);
        assert!(c.caps()[0].read_iops.unwrap() <= 25);
    }
}
