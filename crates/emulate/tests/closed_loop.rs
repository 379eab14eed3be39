//! The controller against a simulated closed-loop device, as a rehearsal drives it: every tick
//! the caps the controller asks for pass the throttle's hysteresis (`throttle::settle`, what
//! `session` writes), and each volume's workload, a fixed queue whose every IO is a read with
//! probability `read_share`, completes as many IOs as the tighter direction lets it:
//! `min(read cap / read share, write cap / write share)`, split by the mix with binomial noise
//! (a fixed-seed generator, so the test is deterministic). The counters are read at ticks that
//! do not line up with the kernel's dispatch batches, so each direction's count in a tick is
//! lumpy: up to `LUMP` of what it completed is counted a tick late (a 70/30 stream read at
//! 100 ms showed parts from 2,572/1,792 to 3,347/1,017 here). Every rewrite of a volume's caps
//! restarts the kernel's throttle slices, and up to a slice's worth passes again (a 70/30
//! stream whose parts moved every 200 ms ran 6,327 IOPS in one second under caps adding up
//! to 4,920 here). The margins are the ones a real rehearsal uses (`KERNEL_MARGIN`,
//! `MIXED_MARGIN`).
//!
//! What must hold (issue 30): every 1-second window of every volume and of the VM within its
//! cap + 5 % from the first second, and from the fourth second on, the binding cap delivered on
//! average to what each case reaches now (91-96 %; predict's figure is the cap, fidelity asks
//! for 90 %) and 85 % in every second (a rewrite's extra slice and the correction after it
//! move single seconds).

use iofit_emulate::controller::{Controller, KERNEL_MARGIN, MIXED_MARGIN};
use iofit_emulate::throttle::{settle, DeviceCaps, DeviceCounters};
use iofit_emulate::{DesignLimits, VmLimits, VolumeLimits};
use iofit_model::units::{Iops, MBps};

const TICK_S: f64 = 0.1;
const TICKS_PER_S: usize = 10;
/// The most of one tick's completions per direction that are counted in the next tick.
const LUMP: f64 = 0.3;
/// The kernel's throttle slice (blk-throttle: 100 ms).
const SLICE_S: f64 = 0.1;

/// Volumes of `volume_iops` and 200 MB/s each (a P30's), so 4 KiB IO uses a few % of the
/// MB/s limit: far from binding, but a sliver of it binds.
fn design(vm_iops: Option<f64>, volume_iops: &[f64]) -> DesignLimits {
    DesignLimits {
        vm: VmLimits {
            name: "vm".into(),
            uncached_iops: vm_iops.map(Iops),
            uncached_throughput_mb_s: None,
            burst_uncached_iops: None,
            burst_uncached_throughput_mb_s: None,
        },
        volumes: volume_iops
            .iter()
            .enumerate()
            .map(|(i, iops)| VolumeLimits {
                label: format!("v{i}"),
                design: String::new(),
                iops: Iops(*iops),
                throughput_mb_s: MBps(200.0),
                burst_iops: None,
                burst_throughput_mb_s: None,
                host_cached: false,
            })
            .collect(),
        scale: 1.0,
        notes: vec![],
        groups: vec![],
        one_io_per_request: false,
    }
}

/// A small fixed-seed generator of standard normal numbers (Box-Muller on an LCG).
struct Noise(u64);

impl Noise {
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// IOs per second each volume completed, per 1-second window, over `seconds`. `kernel` is
/// what the throttle lets through per cap written (1.0: exactly the cap).
fn rehearse(
    limits: DesignLimits,
    read_shares: &[f64],
    seconds: usize,
    kernel: f64,
) -> Vec<Vec<f64>> {
    totals(rehearse_after_layout(
        limits,
        read_shares,
        seconds,
        kernel,
        0,
    ))
}

/// Each volume's reads and writes of a window added up.
fn totals(windows: Vec<Vec<(f64, f64)>>) -> Vec<Vec<f64>> {
    windows
        .into_iter()
        .map(|w| w.into_iter().map(|(r, w)| r + w).collect())
        .collect()
}

/// The size of the requests a file layout writes (`iofit run` and fio write 1 MiB at a time).
const LAYOUT_REQUEST_BYTES: f64 = 1_048_576.0;

/// In a new group's first tick the throttle let out this many times the bytes cap in force
/// (`iofit run`'s 64 MiB layout here: 26 MB in the first 0.12 s under a 97 MB/s cap, as the
/// device's own counters showed), so it ends a tick or so before a model of the throttle's
/// queue that drains at the cap.
const FIRST_SLICE: f64 = 2.0;

/// Azure's IO unit: a 1 MiB request counts as 4 IOs against an IOPS limit.
const AZURE_UNIT_BYTES: f64 = 262_144.0;

/// As `rehearse`, but each volume's command first lays out a file of `layout_mib` MiB in
/// 1 MiB writes, as `iofit run` does before its timed IO: cgroup v1 counts them all when they
/// are submitted (the first tick), the throttle lets them out at the write caps in force
/// (MB/s and requests), and the workload starts once the file is written. Each window counts
/// the layout in Azure's units (4 per 1 MiB request) beside the workload's 4 KiB IOs, with
/// the writes. Each window holds each volume's (reads, writes).
fn rehearse_after_layout(
    limits: DesignLimits,
    read_shares: &[f64],
    seconds: usize,
    kernel: f64,
    layout_mib: u32,
) -> Vec<Vec<(f64, f64)>> {
    rehearse_with_noise(
        NOISE_SEED,
        limits,
        read_shares,
        (seconds, kernel, layout_mib),
    )
}

/// The seed of every case's noise but `gcp_cases_hold_whatever_the_noise`'s.
const NOISE_SEED: u64 = 30;

/// `rehearse_after_layout` with the noise drawn from `seed`.
fn rehearse_with_noise(
    seed: u64,
    limits: DesignLimits,
    read_shares: &[f64],
    (seconds, kernel, layout_mib): (usize, f64, u32),
) -> Vec<Vec<(f64, f64)>> {
    let count = read_shares.len();
    let layout_bytes = f64::from(layout_mib) * LAYOUT_REQUEST_BYTES;
    // Per volume: bytes of the layout the throttle still holds.
    let mut layout_left = vec![layout_bytes; count];
    let mut controller = Controller::new(limits, 1.0, TICK_S)
        .with_kernel_margin(KERNEL_MARGIN)
        .with_mixed_margin(MIXED_MARGIN);
    let mut written: Vec<Option<DeviceCaps>> = vec![None; count];
    let mut done = vec![(0.0f64, 0.0f64); count];
    // Completed but not yet counted, per volume and direction.
    let mut late = vec![(0.0f64, 0.0f64); count];
    let mut counted = vec![(0.0f64, 0.0f64); count];
    let mut noise = Noise(seed);
    let mut windows = vec![vec![(0.0, 0.0); count]; seconds];
    for tick in 0..seconds * TICKS_PER_S {
        let asked = controller.caps();
        let mut rewritten = vec![false; count];
        let in_force: Vec<DeviceCaps> = asked
            .iter()
            .zip(&mut written)
            .zip(&mut rewritten)
            .map(|((caps, old), rewritten)| {
                let caps = old.as_ref().map_or(*caps, |o| settle(o, caps));
                *rewritten = old.is_some_and(|o| o != caps);
                *old = Some(caps);
                caps
            })
            .collect();
        controller.caps_in_force(in_force.clone());
        for (i, (caps, share)) in in_force.iter().zip(read_shares).enumerate() {
            // The share of this tick the workload runs: what the layout leaves of it.
            let mut rest = 1.0;
            if layout_left[i] > 0.0 {
                // The layout goes first: let out at the write caps, the workload waits. A new
                // group's first slice lets out more (`FIRST_SLICE`).
                let first = if tick == 0 { FIRST_SLICE } else { 1.0 };
                let by_bytes = caps.write_bytes_s.unwrap() as f64 * kernel * first * TICK_S;
                let by_requests = caps.write_iops.unwrap() as f64
                    * kernel
                    * first
                    * TICK_S
                    * LAYOUT_REQUEST_BYTES;
                let most = by_bytes.min(by_requests);
                let out = layout_left[i].min(most);
                layout_left[i] -= out;
                windows[tick / TICKS_PER_S][i].1 += out / AZURE_UNIT_BYTES;
                if layout_left[i] > 0.0 {
                    continue;
                }
                // The file is written: the workload starts in the same tick.
                rest = 1.0 - out / most;
            }
            // A rewrite restarts both directions' throttle slices: what the slice had already
            // let out is forgotten, so up to a slice's worth passes again.
            let again = |cap: f64, noise: &mut Noise| {
                if rewritten[i] {
                    cap * SLICE_S * noise.uniform()
                } else {
                    0.0
                }
            };
            let read_cap = caps.read_iops.unwrap() as f64;
            let read_cap = read_cap * kernel * TICK_S * rest + again(read_cap, &mut noise);
            let write_cap = caps.write_iops.unwrap() as f64;
            let write_cap = write_cap * kernel * TICK_S * rest + again(write_cap, &mut noise);
            let total = match *share {
                s if s >= 1.0 => read_cap,
                s if s <= 0.0 => write_cap,
                s => (read_cap / s).min(write_cap / (1.0 - s)),
            };
            let spread = (total * share * (1.0 - share)).sqrt() * noise.normal();
            let reads = (total * share + spread).clamp(0.0, read_cap);
            let writes = (total - reads).clamp(0.0, write_cap);
            done[i].0 += reads;
            done[i].1 += writes;
            windows[tick / TICKS_PER_S][i].0 += reads;
            windows[tick / TICKS_PER_S][i].1 += writes;
            let (read_late, write_late) = (
                reads * LUMP * noise.uniform(),
                writes * LUMP * noise.uniform(),
            );
            counted[i].0 += reads + late[i].0 - read_late;
            counted[i].1 += writes + late[i].1 - write_late;
            late[i] = (read_late, write_late);
        }
        // cgroup v1 counts the whole layout in the first tick, when it was submitted.
        let (layout_ios, layout_bytes) = (
            u64::from(layout_mib),
            u64::from(layout_mib) * LAYOUT_REQUEST_BYTES as u64,
        );
        let counters: Vec<DeviceCounters> = counted
            .iter()
            .map(|(r, w)| DeviceCounters {
                read_ios: *r as u64,
                write_ios: *w as u64 + layout_ios,
                read_bytes: iofit_model::Bytes(*r as u64 * 4096),
                write_bytes: iofit_model::Bytes(*w as u64 * 4096 + layout_bytes),
            })
            .collect();
        controller.tick(&counters, TICK_S);
    }
    windows
}

/// Every window within `cap` + 5 % (each volume against its own, their sum against the VM's),
/// and from the fourth second on the binding cap reached: `least` of it on average, 85 %
/// every second.
fn check(windows: &[Vec<f64>], caps: (&[f64], Option<f64>), least: f64, what: &str) {
    let (volume_caps, vm_cap) = caps;
    let binding = vm_cap.map_or(volume_caps.iter().sum(), |vm| {
        vm.min(volume_caps.iter().sum())
    });
    for (second, window) in windows.iter().enumerate() {
        for (used, cap) in window.iter().zip(volume_caps) {
            assert!(
                *used <= cap * 1.05,
                "{what}: second {second} ran {used:.0} IOPS against a cap of {cap}: {windows:.0?}"
            );
        }
        let total: f64 = window.iter().sum();
        if let Some(vm) = vm_cap {
            assert!(
                total <= vm * 1.05,
                "{what}: second {second}, VM {total:.0} against {vm}: {windows:.0?}"
            );
        }
        if second >= 3 {
            assert!(
                total >= 0.85 * binding,
                "{what}: second {second} delivered {total:.0} of {binding} ({:.1} %): {windows:.0?}",
                total / binding * 100.0
            );
        }
    }
    let settled = &windows[3..];
    let mean = settled.iter().map(|w| w.iter().sum::<f64>()).sum::<f64>() / settled.len() as f64;
    assert!(
        mean >= least * binding,
        "{what}: from the fourth second a mean of {mean:.0} of {binding} ({:.1} %): {windows:.0?}",
        mean / binding * 100.0
    );
}

#[test]
fn one_volume_reaches_its_cap_whatever_the_mix_and_never_passes_it() {
    // One direction reaches 96 % on average; the mixes 91-97 % (the caps written stop at
    // `MIXED_TARGET`, 93 %, of the cap: the rewrites' extra slices need the rest). Asserted as
    // they stand (less a point or two), so that a change that widens a gap fails. Before this
    // controller: 85 % for 70/30. 30/70 held 88 % until the throttle wrote a pair of caps
    // whole (`throttle::settle`): both parts rising, only the one past the hysteresis was
    // written, so its parts left its mix.
    for (share, least) in [
        (0.7, 0.89),
        (0.5, 0.89),
        (1.0, 0.95),
        (0.0, 0.95),
        (0.3, 0.89),
    ] {
        for kernel in [1.0, 1.04] {
            let windows = rehearse(design(None, &[5000.0]), &[share], 10, kernel);
            check(
                &windows,
                (&[5000.0], None),
                least,
                &format!(
                    "{:.0}/{:.0} mix, kernel x{kernel}",
                    share * 100.0,
                    (1.0 - share) * 100.0
                ),
            );
        }
    }
}

#[test]
fn two_volumes_sharing_the_vm_cap_reach_it_and_never_pass_it() {
    // A D2s_v5-like VM (3,750 uncached IOPS) over two P30s (5,000 each): the VM binds.
    for shares in [[1.0, 1.0], [1.0, 0.0], [0.7, 1.0]] {
        for kernel in [1.0, 1.04] {
            let windows = rehearse(design(Some(3750.0), &[5000.0, 5000.0]), &shares, 10, kernel);
            // 90-92 % (89.9 % with a kernel 4 % over, whose gain holds the caps lower);
            // 86 % before this controller.
            check(
                &windows,
                (&[5000.0, 5000.0], Some(3750.0)),
                0.89,
                &format!("two volumes {shares:?}, kernel x{kernel}"),
            );
        }
    }
}

#[test]
fn a_file_laid_out_first_does_not_hold_the_workload_under_its_cap() {
    // `iofit run` lays out its 64 MiB file in 1 MiB writes, then runs 4 KiB IO at QD 32 (the
    // fidelity pairs). The throttle lets the layout out over several ticks after cgroup v1
    // counted it at once; what it lets out is 1 MiB requests, 4 Azure units each, not 256
    // requests of 4 KiB each. Counted as the latter (the size submitted in the tick the
    // workload started), one tick looked 40,000 IOPS, and the gain cut every cap to 83-89 %:
    // randwrite and randrw ran 13-19 % under predict, or 4 % when the excursion was big
    // enough for the gain to leave it alone. After that a 50/50 stream stayed at 85 % with
    // caps lifted less than the throttle's hysteresis (`Controller::present`).
    for (share, least) in [
        (0.0, 0.95),
        (1.0, 0.95),
        (0.7, 0.89),
        (0.5, 0.89),
        (0.3, 0.89),
    ] {
        for kernel in [1.0, 1.04] {
            let windows = totals(rehearse_after_layout(
                design(None, &[5000.0]),
                &[share],
                10,
                kernel,
                64,
            ));
            check(
                &windows,
                (&[5000.0], None),
                least,
                &format!(
                    "64 MiB layout, then {:.0} % reads, kernel x{kernel}",
                    share * 100.0
                ),
            );
        }
    }
}

/// A Google Cloud design from the built-in catalog, as `emulate --cloud gcp` builds it.
fn gcp_design(machine: &str, specs: &[&str]) -> DesignLimits {
    use iofit_catalog::clouds::gcp::GcpCatalog;
    let catalog = GcpCatalog::embedded().unwrap();
    let machine = catalog.machine_type(machine).unwrap();
    let disks: Vec<_> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| iofit_predict::gcp::parse_disk_spec(s, i, &catalog).unwrap())
        .collect();
    iofit_emulate::gcp::gcp_design_limits(&catalog, machine, &disks, 1.0).unwrap()
}

/// How one group of a Google Cloud design did in a rehearsal: its worst second against its
/// caps (the larger of reads / read cap and writes / write cap), and from the fourth second
/// on, its mean and its least second against what a closed loop at exactly its caps would
/// deliver (`ideal`).
#[derive(Clone, Copy, Debug)]
struct GroupFigures {
    worst: f64,
    mean: f64,
    least: f64,
}

impl GroupFigures {
    /// Every second within each cap + 5 %, `least` of the ideal on average, 85 % every second.
    fn hold(&self, least: f64) -> bool {
        self.worst <= 1.05 && self.mean >= least && self.least >= 0.85
    }
}

/// Each group's figures (see `GroupFigures`), `ideal` IOPS per group.
fn group_figures(
    limits: &DesignLimits,
    windows: &[Vec<(f64, f64)>],
    ideal: &[f64],
) -> Vec<GroupFigures> {
    limits
        .groups
        .iter()
        .zip(ideal)
        .map(|(group, ideal)| {
            let sum = |w: &Vec<(f64, f64)>| {
                group
                    .volumes
                    .iter()
                    .fold((0.0, 0.0), |(r, wr), &i| (r + w[i].0, wr + w[i].1))
            };
            let worst = windows
                .iter()
                .map(|w| {
                    let (reads, writes) = sum(w);
                    (reads / group.read_iops.get()).max(writes / group.write_iops.get())
                })
                .fold(0.0, f64::max);
            let settled: Vec<f64> = windows[3..]
                .iter()
                .map(|w| {
                    let (reads, writes) = sum(w);
                    (reads + writes) / ideal
                })
                .collect();
            GroupFigures {
                worst,
                mean: settled.iter().sum::<f64>() / settled.len() as f64,
                least: settled.iter().copied().fold(f64::INFINITY, f64::min),
            }
        })
        .collect()
}

/// Google Cloud's caps are per disk type and per direction: every window of every group
/// within its read cap + 5 % and its write cap + 5 % (its volumes' reads, their writes), and
/// from the fourth second on, each group delivering on average at least `least` of what a
/// closed loop at exactly its caps would (`ideal`, IOPS per group), and 85 % in every second.
fn check_groups(
    limits: &DesignLimits,
    windows: &[Vec<(f64, f64)>],
    ideal: &[f64],
    least: f64,
    what: &str,
) {
    let figures = group_figures(limits, windows, ideal);
    for (group, f) in limits.groups.iter().zip(&figures) {
        assert!(
            f.hold(least),
            "{what}: {} (caps {} reads / {} writes) ran its worst second at {:.1} % of a cap, \
             from the fourth second a mean of {:.1} % of {:.0} (at least {:.0} % asked) and a \
             least second of {:.1} %: {windows:.0?}",
            group.name,
            group.read_iops,
            group.write_iops,
            f.worst * 100.0,
            f.mean * 100.0,
            ideal[limits
                .groups
                .iter()
                .position(|g| g.name == group.name)
                .unwrap()],
            least * 100.0,
            f.least * 100.0
        );
    }
}

/// What a closed loop of `share` reads gets at exactly the caps `(read, write)`.
fn at_caps(share: f64, (read, write): (f64, f64)) -> f64 {
    match share {
        s if s >= 1.0 => read,
        s if s <= 0.0 => write,
        s => (read / s).min(write / (1.0 - s)),
    }
}

/// Both kernels: exact, and 4 % over the caps written (this machine's, see `KERNEL_MARGIN`).
const KERNELS: [f64; 2] = [1.0, 1.04];

#[test]
fn a_gcp_disk_reaches_its_type_caps_reads_writes_or_mixed_and_never_passes_them() {
    // n2-standard-8 with 500 GiB of pd-ssd: 15,000 read and 15,000 write IOPS (the VM's
    // limits for 8 vCPU, under 21,000 by size), each direction capped on its own. 95-96 % of
    // the caps' closed loop with an exact kernel, 99-100 % with the kernel 4 % over.
    let limits = gcp_design("n2-standard-8", &["data=pd-ssd,size_gib=500"]);
    let caps = limits.groups[0].caps(true);
    for share in [1.0, 0.0, 0.7, 0.5, 0.3, 0.9, 0.1] {
        for kernel in KERNELS {
            let windows = rehearse_after_layout(limits.clone(), &[share], 10, kernel, 0);
            check_groups(
                &limits,
                &windows,
                &[at_caps(share, caps)],
                0.94,
                &format!("pd-ssd, {:.0} % reads, kernel x{kernel}", share * 100.0),
            );
        }
    }
}

/// The cases of two pd-balanced disks (one type, one set of caps): the volumes' read shares,
/// what a closed loop at exactly the caps delivers, and the least of it asserted on average.
fn two_pd_balanced_cases(limits: &DesignLimits) -> Vec<([f64; 2], f64, f64)> {
    let (read, write) = limits.groups[0].caps(true);
    vec![
        // Reads only on both: they share the read cap (93 % of it, 97 % with the kernel
        // 4 % over; 90.0 % before their parts stopped following each tick's noise).
        ([1.0, 1.0], read, 0.92),
        ([0.0, 0.0], write, 0.92),
        // 70/30 beside reads only: both press on the read cap, half each, and the 70/30 one
        // adds its writes.
        ([0.7, 1.0], read + (read * 0.5 / 0.7 * 0.3).min(write), 0.93),
        // A reader beside a writer: each has its direction's cap but the other's sliver.
        ([1.0, 0.0], read + write, 0.94),
        // Two 70/30 streams: the reads bind, the writes run at 45 % of their parts.
        ([0.7, 0.7], read.min(write) / 0.7, 0.92),
        // Two 50/50 streams: both directions bind, each stream at the lower of its two
        // parts every tick (91 %, as Azure's lone 50/50 stream).
        ([0.5, 0.5], read.min(write) * 2.0, 0.90),
        // A 90/10 and a 10/90 stream: both at the caps, 0.9 t + 0.1 t = the read cap, and the
        // same for writes. Each stream's light direction is bounded by what its heavy one
        // lets it use at its mix (`light_bounds`).
        ([0.9, 0.1], read.min(write) * 2.0, 0.92),
    ]
}

#[test]
fn two_gcp_disks_of_one_type_share_its_caps_by_direction() {
    // Two pd-balanced disks on an n2-standard-4. Before their parts were re-divided only for a
    // volume pressing on its part (judged without the slice a rewrite lets through again)
    // and rewritten together, a reader beside a writer ran 107.8 % of the write cap in a
    // second with the kernel 4 % over, two 70/30 streams 129-131 % of the read cap, and a
    // 90/10 beside a 10/90 stream 108.7-109.5 % of the write cap.
    let limits = two_pd_balanced();
    for (shares, ideal, least) in two_pd_balanced_cases(&limits) {
        for kernel in KERNELS {
            let windows = rehearse_after_layout(limits.clone(), &shares, 10, kernel, 0);
            check_groups(
                &limits,
                &windows,
                &[ideal],
                least,
                &format!("two pd-balanced {shares:?}, kernel x{kernel}"),
            );
        }
    }
}

fn two_pd_balanced() -> DesignLimits {
    gcp_design(
        "n2-standard-4",
        &["a=pd-balanced,size_gib=400", "b=pd-balanced,size_gib=600"],
    )
}

fn pd_ssd_and_pd_balanced() -> DesignLimits {
    gcp_design(
        "n2-standard-8",
        &["data=pd-ssd,size_gib=200", "logs=pd-balanced,size_gib=300"],
    )
}

/// Each group's `at_caps` for the volumes' read shares (one volume per group).
fn ideal_per_group(limits: &DesignLimits, shares: &[f64]) -> Vec<f64> {
    limits
        .groups
        .iter()
        .map(|g| at_caps(shares[g.volumes[0]], g.caps(true)))
        .collect()
}

/// Read shares of a pd-ssd disk and a pd-balanced one beside it.
const TWO_TYPES: [[f64; 2]; 7] = [
    [1.0, 1.0],
    [0.5, 0.3],
    [1.0, 0.0],
    [0.7, 0.5],
    [0.0, 0.0],
    [0.3, 0.7],
    [0.0, 1.0],
];

#[test]
fn gcp_disks_of_two_types_each_reach_their_own_caps() {
    // pd-ssd and pd-balanced on one n2-standard-8: two budgets, neither taking from the
    // other, each disk alone on its type (95-96 % of the caps' closed loop, 99-100 % with the
    // kernel 4 % over). With the kernel 4 % over, a lone direction at 99.9 % of its cap read
    // 2-3 % over it in a 1 s window of lumpy counts, its gain fell and rose back, and each
    // rewrite let a slice more through: 105.3-105.8 % in a second; a direction's gain now
    // reads 2 s windows.
    let limits = pd_ssd_and_pd_balanced();
    assert_eq!(limits.groups.len(), 2);
    for shares in TWO_TYPES {
        let ideal = ideal_per_group(&limits, &shares);
        for kernel in KERNELS {
            let windows = rehearse_after_layout(limits.clone(), &shares, 10, kernel, 0);
            check_groups(
                &limits,
                &windows,
                &ideal,
                0.94,
                &format!("pd-ssd + pd-balanced {shares:?}, kernel x{kernel}"),
            );
        }
    }
}

/// Every Google Cloud case above under other noise draws (seeds 1 to 40; the other tests
/// draw seed 30), as it stands: the cases above hold under one draw, and this shows how much
/// that draw decides. Of the 2,240 group runs, 5 do not hold (`GroupFigures::hold`, at least
/// 90 % on average), all with two volumes on one type and all by one second over 105 %:
/// 90/10 beside 10/90 at 105.2-107.0 % of a cap (4 runs, one of them in the first second) and
/// 70/30 beside reads only at 106.1 % (one, in the third second). Before the shared groups'
/// parts were re-divided only for a volume pressing on its part, rewritten together and the
/// light direction of a mix bounded, 227 did not, by up to 142 % of a cap in a second (two
/// 70/30 streams), and 90/10 beside 10/90 in every run.
#[test]
fn gcp_cases_hold_whatever_the_noise() {
    let mut runs: Vec<(String, f64, GroupFigures)> = Vec::new();
    let mut rehearse = |limits: &DesignLimits, shares: &[f64], ideal: &[f64], least: f64| {
        for seed in 1..=40 {
            for kernel in KERNELS {
                let windows = rehearse_with_noise(seed, limits.clone(), shares, (10, kernel, 0));
                for f in group_figures(limits, &windows, ideal) {
                    let what = format!("{shares:?}, kernel x{kernel}, seed {seed}");
                    runs.push((what, least, f));
                }
            }
        }
    };
    let pd_ssd = gcp_design("n2-standard-8", &["data=pd-ssd,size_gib=500"]);
    for share in [1.0, 0.0, 0.7, 0.5, 0.3, 0.9, 0.1] {
        let ideal = at_caps(share, pd_ssd.groups[0].caps(true));
        rehearse(&pd_ssd, &[share], &[ideal], 0.90);
    }
    let limits = two_pd_balanced();
    for (shares, ideal, _) in two_pd_balanced_cases(&limits) {
        rehearse(&limits, &shares, &[ideal], 0.90);
    }
    let limits = pd_ssd_and_pd_balanced();
    for shares in TWO_TYPES {
        rehearse(&limits, &shares, &ideal_per_group(&limits, &shares), 0.90);
    }
    let failed: Vec<&(String, f64, GroupFigures)> = runs
        .iter()
        .filter(|(_, least, f)| !f.hold(*least))
        .collect();
    // 21 designs and mixes, 2 kernels, 40 seeds; the two-type design has two groups.
    assert_eq!(runs.len(), 2_240);
    assert!(
        failed.len() <= 5,
        "{} runs do not hold: {failed:#?}",
        failed.len()
    );
    // However a draw falls, no second passes a cap by 8 % and no group runs under 90 % of
    // its caps' closed loop on average or 87 % in a second.
    for (what, _, f) in &runs {
        assert!(
            f.worst <= 1.08 && f.mean >= 0.90 && f.least >= 0.87,
            "{what}: {f:?}"
        );
    }
}
