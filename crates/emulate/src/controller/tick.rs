//! One tick of the control loop: account what each volume did (queue model, Azure units,
//! burst buckets, feedback), estimate demand from the recent peaks, and allot the limits for
//! the next tick.

use super::counting::{cap_of, passed};
use super::feedback::direction_lift_ceiling;
use super::level::{level, share_direction};
use super::split::{smooth, Split, FAR_FROM_BINDING};
use super::Controller;
use crate::backlog::Submitted;
use crate::throttle::{DeviceCaps, DeviceCounters};
use iofit_model::emulation::VolumeUsage;
use iofit_model::formulas::azure_io_units;
use iofit_model::units::{BytesPerSecond, Iops, MBps};

/// For this many ticks after both directions start running, the split follows the last tick's
/// use alone: the ticks before were held by a sliver and would drag a smoothed mix.
const MIX_FRESH_TICKS: u32 = 3;

/// How long the read/write mix is smoothed over. Counters read every 100 ms catch the
/// kernel's per-direction batches unevenly (a 70/30 stream read 2,572/1,792 in one tick and
/// 3,347/1,017 two ticks later); parts that follow such ticks swing by 20 % and a closed-loop
/// stream runs at `min(read part / 0.7, write part / 0.3)`, the lower of the two each time.
const MIX_S: f64 = 1.0;

/// Ticks of use whose peak stands for a direction's demand (300 ms at 100 ms ticks). A direction
/// whose requests wait in the throttle is seen through the queue (`backlog.rs`), so the window
/// only has to bridge the gaps of a bursty stream; a longer one kept a finished file layout's
/// writes "active" for a second and slowed the reads that followed it.
const HOLD_TICKS: usize = 3;

/// The kernel's throttle slice: a rewrite of a device's caps restarts it, and up to this
/// much of the new caps passes again (see `HOLD_CAPS_TICKS`).
const SLICE_AGAIN_S: f64 = 0.1;

/// A mixed stream's light direction may take this much more than its heavy direction's part
/// lets it use at its mix: above `1 / PRESSING`, so that the noise of its mix does not make it
/// press on its part. At 1.15, two 50/50 and a 90/10 beside a 10/90 stream at a tenth of
/// pd-balanced's caps (360 IOPS) ran 87 % of their caps' closed loop in the simulation.
const LIGHT_ROOM: f64 = 1.25;

/// A stream with less than this share of its use in one direction runs that direction alone.
const ALONE_SHARE: f64 = 0.02;

/// How much of each tick's use the smoothed mix of a volume of a shared group takes.
const GROUP_MIX_WEIGHT: f64 = 0.2;

/// The most each direction of a mixed stream can use (read, write): while its other
/// direction presses on its part (`steady` use, see `share_direction`), that part at its mix
/// `mix` (smoothed use), with `LIGHT_ROOM`; unbounded for a stream running one direction, for
/// a direction whose other one does not bind, or before any IO. Only a binding direction sets
/// the stream's pace: a file laid out before a read phase left a write share in the mix, and
/// bounded by the idle writes' sliver the reads crept up over two seconds on the kernel
/// (their IO queued behind a cap of 3 IOPS, then let out at 140 % of the cap in a second).
fn light_bounds(mix: Split, (steady, part): (Split, Split), first: bool) -> (f64, f64) {
    let total = mix.total();
    if first || total <= 0.0 {
        return (f64::INFINITY, f64::INFINITY);
    }
    let read_share = mix.read / total;
    if !(ALONE_SHARE..=1.0 - ALONE_SHARE).contains(&read_share) {
        return (f64::INFINITY, f64::INFINITY);
    }
    let ratio = read_share / (1.0 - read_share);
    let binds = |used: f64, part: f64| part > 0.0 && used >= FAR_FROM_BINDING * part;
    (
        match binds(steady.write, part.write) {
            true => part.write * ratio * LIGHT_ROOM,
            false => f64::INFINITY,
        },
        match binds(steady.read, part.read) {
            true => part.read / ratio * LIGHT_ROOM,
            false => f64::INFINITY,
        },
    )
}

/// The peak of each limit and direction over some ticks of use.
fn peak_of(ticks: &std::collections::VecDeque<(Split, Split)>) -> (Split, Split) {
    ticks
        .iter()
        .fold((Split::default(), Split::default()), |peak, u| {
            (peak.0.max(u.0), peak.1.max(u.1))
        })
}

fn min_of(a: Split, b: Split) -> Split {
    Split {
        read: a.read.min(b.read),
        write: a.write.min(b.write),
    }
}

impl Controller {
    /// Takes the cumulative counters of every volume after `elapsed_s` seconds, returns what
    /// each volume did in that tick; the caps for the next tick are then in `caps()`.
    pub fn tick(&mut self, counters: &[DeviceCounters], elapsed_s: f64) -> Vec<VolumeUsage> {
        assert_eq!(
            counters.len(),
            self.last.len(),
            "one counter set per volume"
        );
        let elapsed_s = elapsed_s.max(1e-3);
        self.vm_in_force = self.vm_caps();
        let mut usage = Vec::with_capacity(counters.len());
        let mut used = Vec::with_capacity(counters.len());
        let caps = self.in_force.take().unwrap_or_else(|| self.caps());
        let kernel = caps.clone();
        for (i, now) in caps.iter().enumerate() {
            let before = self.kernel_before[i].replace(*now);
            self.ticks_since_rewrite[i] = if before.is_some_and(|b| b != *now) {
                0
            } else {
                self.ticks_since_rewrite[i].saturating_add(1)
            };
        }
        for (i, now) in counters.iter().enumerate() {
            let (volume_usage, iops_used, mb_used) = self.account(i, now, &caps[i], elapsed_s);
            usage.push(volume_usage);
            used.push((iops_used, mb_used));
        }
        self.last = counters.to_vec();
        let vm_iops: f64 = used.iter().map(|u| u.0.total()).sum();
        let vm_mb: f64 = used.iter().map(|u| u.1.total()).sum();
        if let Some(bucket) = &mut self.vm_iops_bucket {
            bucket.account(vm_iops * elapsed_s, elapsed_s);
        }
        if let Some(bucket) = &mut self.vm_mb_bucket {
            bucket.account(vm_mb * elapsed_s, elapsed_s);
        }
        let peaks: Vec<(Split, Split)> = used
            .iter()
            .enumerate()
            .map(|(i, now)| {
                let recent = &mut self.recent[i];
                recent.push_back(*now);
                if recent.len() > HOLD_TICKS {
                    recent.pop_front();
                }
                peak_of(recent)
            })
            .collect();
        for (mix, now) in self.group_mix.iter_mut().zip(&used) {
            let ewma = |m: Split, n: Split| {
                m.scaled(1.0 - GROUP_MIX_WEIGHT)
                    .plus(n.scaled(GROUP_MIX_WEIGHT))
            };
            *mix = (ewma(mix.0, now.0), ewma(mix.1, now.1));
        }
        let steady: Vec<(Split, Split)> = (0..used.len())
            .map(|i| self.steady_peak(i, used[i]))
            .collect();
        let device_waiting = self.device_waiting.take();
        let device = |i: usize| {
            device_waiting
                .as_ref()
                .and_then(|w| w.get(i).copied())
                .unwrap_or_default()
        };
        // A held direction counts as using all of its parts: active and saturated.
        let peaks: Vec<(Split, Split)> = peaks
            .into_iter()
            .enumerate()
            .map(|(i, peak)| self.with_held(i, peak, device(i)))
            .collect();
        self.group_steady = Some(
            steady
                .into_iter()
                .enumerate()
                .map(|(i, peak)| self.with_held(i, peak, device(i)))
                .collect(),
        );
        let weight = (elapsed_s / MIX_S).min(1.0);
        for (i, ((mix, now), recent)) in
            self.mix.iter_mut().zip(&used).zip(&self.recent).enumerate()
        {
            let n = recent.len().max(1) as f64;
            let fast = recent
                .iter()
                .fold((Split::default(), Split::default()), |sum, u| {
                    (sum.0.plus(u.0), sum.1.plus(u.1))
                });
            let fresh = |ticks: u32| ticks < MIX_FRESH_TICKS;
            mix.0 = if fresh(self.iops_mixed_ticks[i]) {
                now.0
            } else {
                smooth(mix.0, now.0, fast.0.scaled(1.0 / n), weight)
            };
            mix.1 = if fresh(self.mb_mixed_ticks[i]) {
                now.1
            } else {
                smooth(mix.1, now.1, fast.1.scaled(1.0 / n), weight)
            };
        }
        let mix = self.mix.clone();
        self.allot(&peaks, &mix, false);
        self.present(&kernel);
        usage
    }

    /// A volume's peak use with its held directions: requests queued behind a direction's
    /// cap (modelled, or what the device shows waiting, `device`) mean it is held back by it,
    /// however little it passed, and wants what drains its queue within a second.
    fn with_held(
        &self,
        i: usize,
        (mut iops, mut mb): (Split, Split),
        device: (bool, bool),
    ) -> (Split, Split) {
        let queued = self.queued[i];
        let (read, write) = queued.waiting();
        let (device_read, device_write) = device;
        let (read, write) = (read || device_read, write || device_write);
        // The MB/s parts grow for bytes that wait (or what the device shows waiting), not for
        // requests an IOPS cap holds: that would mark a limit far from binding busy, and
        // rewrite its caps (see `HOLD_CAPS_TICKS`).
        let (read_bytes, write_bytes) = (
            queued.read_bytes > 0.0 || device_read,
            queued.write_bytes > 0.0 || device_write,
        );
        let units = self.units_per_request[i];
        let per = self.bytes_per_request[i];
        // Queued requests: counted, or from the queued bytes at the last request size.
        let ios = |ios: f64, bytes: f64, per: f64| ios.max(bytes / per.max(1.0));
        if read {
            let waiting = ios(queued.read_ios, queued.read_bytes, per.read);
            iops.read = iops
                .read
                .max(2.0 * self.iops_allot[i].read)
                .max(waiting * units.read);
        }
        if read_bytes {
            mb.read = mb
                .read
                .max(2.0 * self.mb_allot[i].read)
                .max(queued.read_bytes / 1e6);
        }
        if write {
            let waiting = ios(queued.write_ios, queued.write_bytes, per.write);
            iops.write = iops
                .write
                .max(2.0 * self.iops_allot[i].write)
                .max(waiting * units.write);
        }
        if write_bytes {
            mb.write = mb
                .write
                .max(2.0 * self.mb_allot[i].write)
                .max(queued.write_bytes / 1e6);
        }
        (iops, mb)
    }

    /// The peak use of a volume of a shared group over the last `HOLD_TICKS` ticks without the
    /// slice its last rewrite let through again: in the two ticks after a rewrite (this one
    /// and, for what is counted late, the next) no more than the peak before. A rewrite
    /// restarts the kernel's throttle slices and up to a slice more passes (`SLICE_AGAIN_S`);
    /// read as a volume pressing on its part, it re-divided a direction nobody was short
    /// of, which is a rewrite of the other volumes' caps, whose slices did the same: two
    /// 70/30 streams on one disk type rewrote each other's write caps every tick and ran
    /// their reads at 126 % of the read cap in a second.
    fn steady_peak(&mut self, i: usize, now: (Split, Split)) -> (Split, Split) {
        let steady = &mut self.steady[i];
        let now = match steady.is_empty() || self.ticks_since_rewrite[i] > 1 {
            true => now,
            false => {
                let before = peak_of(steady);
                (min_of(now.0, before.0), min_of(now.1, before.1))
            }
        };
        steady.push_back(now);
        if steady.len() > HOLD_TICKS {
            steady.pop_front();
        }
        peak_of(steady)
    }

    fn account(
        &mut self,
        i: usize,
        now: &DeviceCounters,
        caps: &DeviceCaps,
        elapsed_s: f64,
    ) -> (VolumeUsage, Split, Split) {
        let last = self.last[i];
        let delta = |now: u64, last: u64| now.saturating_sub(last) as f64;
        // A volume of a shared group whose caps were just rewritten let out up to a slice
        // more (`SLICE_AGAIN`): that is not a queue.
        let again = match self.ticks_since_rewrite[i] {
            0 if self.directions[i].is_some() => 1.0 + SLICE_AGAIN_S / elapsed_s,
            1 if self.directions[i].is_some() => 1.0 + 0.5 * SLICE_AGAIN_S / elapsed_s,
            _ => 1.0,
        };
        let cap = |v: Option<u64>| v.map(|v| v as f64 * again);
        let queued = self.queued[i].after(
            Submitted {
                bytes: delta(now.read_bytes.as_u64(), last.read_bytes.as_u64()),
                ios: delta(now.read_ios, last.read_ios),
                cap_bytes_s: cap(caps.read_bytes_s).map(BytesPerSecond),
                cap_ios_per_s: cap(caps.read_iops),
            },
            Submitted {
                bytes: delta(now.write_bytes.as_u64(), last.write_bytes.as_u64()),
                ios: delta(now.write_ios, last.write_ios),
                cap_bytes_s: cap(caps.write_bytes_s).map(BytesPerSecond),
                cap_ios_per_s: cap(caps.write_iops),
            },
            elapsed_s,
        );
        let before = std::mem::replace(&mut self.queued[i], queued);
        let per = &mut self.bytes_per_request[i];
        let backlog_per = &mut self.backlog_bytes_per_request[i];
        let unit: fn(f64) -> f64 = if self.limits.one_io_per_request {
            |_| 1.0
        } else {
            azure_io_units
        };
        let read = passed(
            (
                delta(now.read_ios, last.read_ios),
                delta(now.read_bytes.as_u64(), last.read_bytes.as_u64()),
            ),
            (before.read_bytes, queued.read_bytes),
            (&mut per.read, &mut backlog_per.read),
            unit,
        );
        let write = passed(
            (
                delta(now.write_ios, last.write_ios),
                delta(now.write_bytes.as_u64(), last.write_bytes.as_u64()),
            ),
            (before.write_bytes, queued.write_bytes),
            (&mut per.write, &mut backlog_per.write),
            unit,
        );
        let (read_units, read_bytes) = read;
        let (write_units, write_bytes) = write;
        self.units_per_request[i] = Split {
            read: unit(per.read),
            write: unit(per.write),
        };
        let iops = Split {
            read: read_units / elapsed_s,
            write: write_units / elapsed_s,
        };
        let mb = Split {
            read: read_bytes / 1e6 / elapsed_s,
            write: write_bytes / 1e6 / elapsed_s,
        };
        let volume = &self.limits.volumes[i];
        let cap_iops = cap_of(&self.iops_buckets[i], volume.iops.get(), self.tick_s);
        let cap_mb_s = cap_of(
            &self.mb_buckets[i],
            volume.throughput_mb_s.get(),
            self.tick_s,
        );
        let burst_seconds_left = self.iops_buckets[i].as_ref().map(|b| b.seconds_left());
        // Its caps follow each direction's feedback; the combined feedback below runs on but
        // is not applied to them (`fresh_caps`). The two ticks after a rewrite carry the slice
        // it let through again (`SLICE_AGAIN_S`), not the kernel's steady overshoot: left out.
        if self.directions[i].is_some() && self.ticks_since_rewrite[i] > 1 {
            self.record_directions(i, (iops, mb), caps, elapsed_s);
        }
        self.iops_gain[i].record(iops.total() * elapsed_s, self.iops_share[i] * elapsed_s);
        self.mb_gain[i].record(mb.total() * elapsed_s, self.mb_share[i] * elapsed_s);
        let units = self.units_per_request[i];
        let held = |v: Option<u64>, per: f64| v.map_or(f64::INFINITY, |v| v as f64 * per);
        let in_force_iops = held(caps.read_iops, units.read) + held(caps.write_iops, units.write);
        let in_force_mb = (held(caps.read_bytes_s, 1.0) + held(caps.write_bytes_s, 1.0)) / 1e6;
        let (iops_ceiling, mb_ceiling) = self.lift_ceilings(i);
        self.iops_lift[i].record(
            iops.total() * elapsed_s,
            self.iops_share[i] * elapsed_s,
            in_force_iops * elapsed_s,
            iops_ceiling,
        );
        self.mb_lift[i].record(
            mb.total() * elapsed_s,
            self.mb_share[i] * elapsed_s,
            in_force_mb * elapsed_s,
            mb_ceiling,
        );
        if let Some(bucket) = &mut self.iops_buckets[i] {
            bucket.account(iops.total() * elapsed_s, elapsed_s);
        }
        if let Some(bucket) = &mut self.mb_buckets[i] {
            bucket.account(mb.total() * elapsed_s, elapsed_s);
        }
        let usage = VolumeUsage {
            read_iops: Iops(iops.read),
            write_iops: Iops(iops.write),
            read_mb_s: MBps(mb.read),
            write_mb_s: MBps(mb.write),
            cap_iops: Iops(cap_iops),
            cap_mb_s: MBps(cap_mb_s),
            burst_seconds_left,
        };
        (usage, iops, mb)
    }

    /// One tick of a volume shared per direction: each direction's use against its part of the
    /// group's whole caps (`Gain`) and against the caps in force (`Lift`).
    fn record_directions(
        &mut self,
        i: usize,
        (iops, mb): (Split, Split),
        caps: &DeviceCaps,
        elapsed_s: f64,
    ) {
        let (units, margin) = (self.units_per_request[i], self.kernel_margin);
        let (iops_allot, mb_allot) = (self.iops_allot[i], self.mb_allot[i]);
        let Some(d) = self.directions[i].as_mut() else {
            return;
        };
        let held = |v: Option<u64>, per: f64| v.map_or(f64::INFINITY, |v| v as f64 * per);
        let rows = [
            (0, true, iops.read, d.iops_whole.read, iops_allot.read),
            (1, true, iops.write, d.iops_whole.write, iops_allot.write),
            (0, false, mb.read, d.mb_whole.read, mb_allot.read),
            (1, false, mb.write, d.mb_whole.write, mb_allot.write),
        ];
        for (direction, is_iops, used, whole, part) in rows {
            let in_force = match (is_iops, direction) {
                (true, 0) => held(caps.read_iops, units.read),
                (true, _) => held(caps.write_iops, units.write),
                (false, 0) => held(caps.read_bytes_s, 1.0) / 1e6,
                (false, _) => held(caps.write_bytes_s, 1.0) / 1e6,
            };
            let (gain, lift) = if is_iops {
                (&mut d.iops_gain[direction], &mut d.iops_lift[direction])
            } else {
                (&mut d.mb_gain[direction], &mut d.mb_lift[direction])
            };
            gain.record(used * elapsed_s, whole * elapsed_s);
            lift.record(
                used * elapsed_s,
                whole * elapsed_s,
                in_force * elapsed_s,
                direction_lift_ceiling(whole, part, margin),
            );
        }
    }

    /// Divides each group's per-direction caps among its volumes by demand, as `level` divides
    /// the VM's cap (the same demand estimate, idle floor and margin when two or more run),
    /// one direction at a time: the kernel throttles each direction apart, as Google caps
    /// them. A volume's parts then fit within its own share (its cap, or its part of the VM's).
    fn allot_groups(
        &mut self,
        (iops_used, iops_before): (&[Split], &[Split]),
        (mb_used, mb_before): (&[Split], &[Split]),
        first: bool,
    ) {
        for g in 0..self.limits.groups.len() {
            let members = self.limits.groups[g].volumes.clone();
            for is_iops in [true, false] {
                let (read_cap, write_cap) = self.limits.groups[g].caps(is_iops);
                let used = if is_iops { iops_used } else { mb_used };
                let allot = if is_iops { iops_before } else { mb_before };
                let of = |f: fn(&Split) -> f64, from: &[Split]| -> Vec<f64> {
                    members.iter().map(|&i| f(&from[i])).collect()
                };
                let (read_used, write_used) = (of(|s| s.read, used), of(|s| s.write, used));
                let steady = match &self.group_steady {
                    Some(steady) if is_iops => steady.iter().map(|s| s.0).collect(),
                    Some(steady) => steady.iter().map(|s| s.1).collect(),
                    None => used.to_vec(),
                };
                let (read_steady, write_steady) =
                    (of(|s| s.read, &steady), of(|s| s.write, &steady));
                let (read_before, write_before) = (of(|s| s.read, allot), of(|s| s.write, allot));
                let margin = self.mixed_margin;
                // One IO per tick for IOPS, as `level` keeps for an idle direction.
                let idle_least = if is_iops { 1.0 / self.tick_s } else { 0.0 };
                let (read_bounds, write_bounds): (Vec<f64>, Vec<f64>) = members
                    .iter()
                    .enumerate()
                    .map(|(k, &i)| {
                        let mix = if is_iops {
                            self.group_mix[i].0
                        } else {
                            self.group_mix[i].1
                        };
                        let steady = Split {
                            read: read_steady[k],
                            write: write_steady[k],
                        };
                        light_bounds(mix, (steady, allot[i]), first)
                    })
                    .unzip();
                let (read, read_whole) = share_direction(
                    read_cap,
                    (&read_used, &read_steady, &read_before),
                    &read_bounds,
                    (first, idle_least),
                    margin,
                );
                let (write, write_whole) = share_direction(
                    write_cap,
                    (&write_used, &write_steady, &write_before),
                    &write_bounds,
                    (first, idle_least),
                    margin,
                );
                for (k, &i) in members.iter().enumerate() {
                    let own = if is_iops {
                        self.iops_share[i]
                    } else {
                        self.mb_share[i]
                    };
                    let fit = |s: Split| {
                        if s.total() > own && s.total() > 0.0 {
                            s.scaled(own / s.total())
                        } else {
                            s
                        }
                    };
                    let part = fit(Split {
                        read: read[k],
                        write: write[k],
                    });
                    let whole = fit(Split {
                        read: read_whole[k],
                        write: write_whole[k],
                    });
                    let Some(d) = self.directions[i].as_mut() else {
                        continue;
                    };
                    if is_iops {
                        (self.iops_allot[i], self.iops_share[i], d.iops_whole) =
                            (part, whole.total(), whole);
                    } else {
                        (self.mb_allot[i], self.mb_share[i], d.mb_whole) =
                            (part, whole.total(), whole);
                    }
                }
            }
        }
    }

    /// Divides the VM caps among volumes (by `used`, the recent peaks) and each volume's share
    /// between directions (by `means`, the smoothed use: see `MIX_S`).
    pub(super) fn allot(&mut self, used: &[(Split, Split)], means: &[(Split, Split)], first: bool) {
        let volume_caps_iops: Vec<f64> = (0..used.len())
            .map(|i| {
                cap_of(
                    &self.iops_buckets[i],
                    self.limits.volumes[i].iops.get(),
                    self.tick_s,
                )
            })
            .collect();
        let volume_caps_mb: Vec<f64> = (0..used.len())
            .map(|i| {
                cap_of(
                    &self.mb_buckets[i],
                    self.limits.volumes[i].throughput_mb_s.get(),
                    self.tick_s,
                )
            })
            .collect();
        let iops_used: Vec<Split> = used.iter().map(|u| u.0).collect();
        let mb_used: Vec<Split> = used.iter().map(|u| u.1).collect();
        let iops_means: Vec<Split> = means.iter().map(|u| u.0).collect();
        let mb_means: Vec<Split> = means.iter().map(|u| u.1).collect();
        let vm = self.vm_caps();
        // A group's parts before this tick, for its demand estimates (`level` rewrites them).
        let before = if self.limits.groups.is_empty() {
            None
        } else {
            Some((self.iops_allot.clone(), self.mb_allot.clone()))
        };
        (self.iops_allot, self.iops_share) = level(
            vm.iops.map(Iops::get),
            &volume_caps_iops,
            (&iops_used, &iops_means),
            (&self.iops_allot, &mut self.iops_mixed_ticks),
            (first, 1.0 / self.tick_s, self.mixed_margin),
        );
        (self.mb_allot, self.mb_share) = level(
            vm.mb_s.map(MBps::get),
            &volume_caps_mb,
            (&mb_used, &mb_means),
            (&self.mb_allot, &mut self.mb_mixed_ticks),
            (first, 0.0, self.mixed_margin),
        );
        if let Some((iops_before, mb_before)) = before {
            self.allot_groups((&iops_used, &iops_before), (&mb_used, &mb_before), first);
        }
    }
}
