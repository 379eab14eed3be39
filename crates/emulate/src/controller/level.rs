//! Dividing one limit among its claimants: the VM's cap among volumes by demand and each
//! volume's share between its directions ([`level`]), and a shared group's per-direction caps
//! among its volumes ([`share_direction`]).

use super::split::{
    split_between_directions, sticky, Split, ACTIVE_SHARE, FAR_FROM_BINDING, IDLE_DIRECTION,
    IDLE_SHARE, STICKY_PART,
};
use crate::divide::{demand_estimate, divide};

/// A volume using this share of its part (without a rewrite's extra slice) presses on it.
const PRESSING: f64 = 0.9;

/// One direction of a group's cap divided among its volumes: `(used, steady, previous)` are
/// each volume's recent peak, the same without the slice its last rewrite let through again
/// (`Controller::steady_peak`), and its part before; `bounds` the most each may take
/// (`light_bounds`), `idle_least` the least sliver an idle volume keeps (one IO per tick for
/// IOPS, as in `level`). Returns the parts (under the margin when two or
/// more volumes run, as the VM's cap is divided in `level`) and the whole parts they are
/// measured against.
pub(super) fn share_direction(
    cap: f64,
    (used, steady, previous): (&[f64], &[f64], &[f64]),
    bounds: &[f64],
    (first, idle_least): (bool, f64),
    mixed_margin: f64,
) -> (Vec<f64>, Vec<f64>) {
    let sharing = steady.iter().filter(|u| **u > cap * IDLE_DIRECTION).count();
    // A mixed stream's light direction is bounded (`bounds`) only where another volume could
    // use what it leaves: with another volume using the direction, and their use at least
    // half the cap. Alone, a reader's bound from the writes of the file it had laid out (still
    // in its mix) cut its idle writes' part, a rewrite for nothing; and two 70/30 streams'
    // writes (43 % of the write cap) were bounded to a part they used 85 % of, re-divided on
    // every tick's noise: 111-122 % of the read cap in a second on the kernel (x 0.1 scale).
    let binding = steady.iter().sum::<f64>() >= FAR_FROM_BINDING * cap;
    let ceilings: Vec<f64> = bounds
        .iter()
        .map(|b| match sharing >= 2 && binding {
            true => cap.min(b.max(cap * IDLE_DIRECTION)),
            false => cap,
        })
        .collect();
    let demands: Vec<f64> = if first {
        ceilings.clone()
    } else {
        used.iter()
            .zip(previous)
            .map(|(u, p)| demand_estimate(*u, *p, cap * IDLE_SHARE))
            .collect()
    };
    let active: Vec<bool> = steady.iter().map(|u| *u > cap * ACTIVE_SHARE).collect();
    let running = active.iter().filter(|a| **a).count();
    // The margin holds while two or more volumes use this direction at all, not only once
    // they count as active: the light direction of a 90/10 stream at the first tick's half
    // caps used 4 % of the cap, so its heavy neighbour was given the whole cap less a sliver,
    // then cut to the margin a few ticks later: each a rewrite. Over 40 seeds of
    // `closed_loop.rs`'s simulation (both kernels), 90/10 beside 10/90 passed 105 % in 6 of
    // 80 runs, by up to 111.8 %, mostly in the first second; 3 of 80 now, by up to 106.2 %.
    let margin = if sharing >= 2 && !first {
        mixed_margin
    } else {
        1.0
    };
    // While some volumes run this direction and others do not, the idle ones keep a sliver
    // (and twice what they used), as an idle direction of a volume does in `level`, and the
    // running ones divide the rest by demand. Spread by headroom, an idle volume took a tenth
    // of the cap whenever a reader's count dipped for a few ticks, and every such move is a
    // rewrite that lets a slice more through (109 % in a second in `closed_loop.rs`).
    let split = running > 0 && running < used.len() && !first;
    let divide_in = |total: f64| -> Vec<f64> {
        if !split {
            return divide(total, &demands, &ceilings);
        }
        let sliver = |u: f64| {
            (cap * IDLE_DIRECTION)
                .max(idle_least)
                .max(2.0 * u)
                .min(cap / 2.0)
        };
        let slivers: f64 = (0..used.len())
            .filter(|i| !active[*i])
            .map(|i| sliver(used[i]))
            .sum();
        let running: Vec<usize> = (0..used.len()).filter(|i| active[*i]).collect();
        let of = |v: &[f64]| -> Vec<f64> { running.iter().map(|i| v[*i]).collect() };
        let shares = divide((total - slivers).max(0.0), &of(&demands), &of(&ceilings));
        let mut parts: Vec<f64> = used.iter().map(|u| sliver(*u)).collect();
        for (share, i) in shares.into_iter().zip(&running) {
            parts[*i] = share;
        }
        parts
    };
    let mut parts = divide_in(cap * margin);
    // Parts close to the ones in force stay (as `sticky` keeps a volume's split): each
    // rewrite lets a slice more through (`HOLD_CAPS_TICKS`), and two readers' parts followed
    // each tick's noise, rewritten every other tick, to 110 % of the cap in a second.
    // A direction nobody presses on (each volume's steady use under `PRESSING` of its part)
    // keeps its parts too, unless an idle volume holds more than its sliver while others run
    // (a reader beside a writer, in the first tick): nobody is short of it, and a re-division
    // only follows noise. 4 KiB reads use a few % of the MB/s caps, whose parts followed each
    // tick's noise and rewrote the caps to 109 % of the IOPS cap; the light direction of two
    // 70/30 streams (45 % of its part) followed the slices their rewrites let through, each
    // rewrite of one volume's part another's, to 126-140 % of the read cap in a second.
    // Activity is judged on the steady use as well: a slice after a rewrite made 4 KiB
    // writes look active on the MB/s caps and split them.
    let close = |a: f64, b: f64| (a - b).abs() <= STICKY_PART * b;
    let calm = steady.iter().zip(previous).all(|(u, b)| *u < PRESSING * b);
    let sliver = |u: f64| {
        (cap * IDLE_DIRECTION)
            .max(idle_least)
            .max(2.0 * u)
            .min(cap / 2.0)
    };
    let idle_holding = split
        && (0..used.len())
            .any(|i| steady[i] <= cap * IDLE_DIRECTION && previous[i] > 2.0 * sliver(used[i]))
        && (0..used.len()).any(|i| active[i] && steady[i] >= FAR_FROM_BINDING * previous[i]);
    // (Only while a running volume uses half its part: on the kernel, a writer's five reads
    // at its start took the read cap from a volume still laying out its file, whose reads
    // then queued behind a sliver of 3 IOPS and came out at 140 % of the cap a second later.)
    let far = calm && !idle_holding;
    if !first
        && previous.iter().sum::<f64>() <= cap * margin
        && (far || parts.iter().zip(previous).all(|(p, b)| close(*p, *b)))
    {
        parts = previous.to_vec();
    }
    let whole = if margin < 1.0 {
        divide_in(cap)
    } else {
        parts.clone()
    };
    (parts, whole)
}

/// One limit (IOPS or MB/s) at both levels: VM among volumes, then volume between directions.
/// `(used, means)`: each volume's recent peak and mean use. `idle_least`: the least part an
/// idle direction keeps (one IO per tick for IOPS: the kernel counts whole IOs per 100 ms
/// slice, so a cap of a few IOPS rewritten every tick would never let one through).
pub(super) fn level(
    vm_cap: Option<f64>,
    volume_caps: &[f64],
    (used, means): (&[Split], &[Split]),
    (previous, mixed_ticks): (&[Split], &mut [u32]),
    (first, idle_least, mixed_margin): (bool, f64, f64),
) -> (Vec<Split>, Vec<f64>) {
    let (volume_share, whole_share): (Vec<f64>, Vec<f64>) = match vm_cap {
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
            // Two or more volumes running share the VM's cap as two directions share a
            // volume's: each device's batches fall into a second unevenly (see MIXED_MARGIN).
            let running = used
                .iter()
                .filter(|u| u.total() > vm_cap * ACTIVE_SHARE)
                .count();
            let margin = if running >= 2 && !first {
                mixed_margin
            } else {
                1.0
            };
            let shares = divide(vm_cap * margin, &demands, volume_caps);
            // What each volume is measured against: its part of the VM's whole cap.
            let whole = if margin < 1.0 {
                divide(vm_cap, &demands, volume_caps)
            } else {
                shares.clone()
            };
            (shares, whole)
        }
        None => (volume_caps.to_vec(), volume_caps.to_vec()),
    };
    let split = (0..used.len())
        .map(|i| {
            let share = volume_share[i];
            if first {
                return Split {
                    read: share / 2.0,
                    write: share / 2.0,
                };
            }
            // One direction alone gets the share but a sliver, which the idle one keeps so that
            // it can start; its use shows on the next tick and the split follows. The two parts
            // always add up to the share: the kernel never lets the volume pass its limit.
            // A direction held at its sliver is active too: a writeback of buffered writes at
            // 1 % of a small MB/s cap would otherwise never look busy enough to get more.
            let active =
                |u: f64, part: f64| u > share * ACTIVE_SHARE || (u > 0.0 && u >= 0.9 * part);
            // An idle direction keeps a sliver, and at least twice what it used: 4k writes at
            // 1,400 IOPS use 2.9 % of a 200 MB/s share, "idle" by `ACTIVE_SHARE`, and a
            // 1 % sliver of MB/s held them to 470 IOPS every other tick (then they looked busy,
            // got a part, looked idle again), stalling the whole 70/30 stream.
            let idle_of = |u: f64| {
                (share * IDLE_DIRECTION)
                    .max(idle_least)
                    .max(2.0 * u)
                    .min(share / 2.0)
            };
            let pressed = |u: f64, part: f64| u > 0.0 && u >= 0.9 * part;
            // A limit far from binding (under half its share used, neither direction pressing
            // on its part) is not split again: its parts stay (see the `(false, false)` arm).
            // Split by activity, a 4k 50/50 stream's MB/s (5 % a direction) went from one
            // shape to the other every few ticks, and every change is a rewrite that lets
            // a slice more through (`HOLD_CAPS_TICKS`).
            let far = used[i].total() < FAR_FROM_BINDING * share
                && !pressed(used[i].read, previous[i].read)
                && !pressed(used[i].write, previous[i].write);
            let both = if far {
                (false, false)
            } else {
                (
                    active(used[i].read, previous[i].read),
                    active(used[i].write, previous[i].write),
                )
            };
            mixed_ticks[i] = if both == (true, true) {
                mixed_ticks[i].saturating_add(1)
            } else {
                0
            };
            match both {
                (true, true) => {}
                (false, true) => {
                    let idle = idle_of(used[i].read);
                    return Split {
                        read: idle,
                        write: share - idle,
                    };
                }
                (true, false) => {
                    let idle = idle_of(used[i].write);
                    return Split {
                        read: share - idle,
                        write: idle,
                    };
                }
                // Nothing running (or a few stray requests, or a limit far from binding):
                // the parts stay as they were, scaled to the share (half each way before the
                // first IO), so that stray requests do not hand the share to one direction and
                // leave a mixed stream that starts next a sliver to stall on (every IO of a
                // closed loop waits for the slower direction), and a limit nobody nears is
                // not rewritten (see `HOLD_CAPS_TICKS`).
                (false, false) => {
                    let before = previous[i];
                    return if before.total() > 0.0 {
                        before.scaled(share / before.total())
                    } else {
                        Split {
                            read: share / 2.0,
                            write: share / 2.0,
                        }
                    };
                }
            }
            let mixed_share = share * mixed_margin;
            if mixed_ticks[i] == 1 {
                // Both directions just started running: what each used so far was held by the
                // other's sliver and says nothing of the mix, so half each, and the next ticks'
                // use (see `MIX_FRESH_TICKS`) sets the split.
                return Split {
                    read: mixed_share / 2.0,
                    write: mixed_share / 2.0,
                };
            }
            sticky(
                split_between_directions(mixed_share, means[i]),
                previous[i],
                mixed_share,
            )
        })
        .collect();
    (split, whole_share)
}
