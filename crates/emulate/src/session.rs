//! One rehearsal: make the volumes and the cgroup, run the command inside it, steer the caps
//! every tick, record each second, and undo everything made, whatever happens.

use crate::controller::{Controller, VmCaps, VolumeUsage};
use crate::journal::{Journal, Made};
use crate::limits::{DesignLimits, EmulationNote};
use crate::throttle::{detect, CgroupVersion, DeviceCounters, ThrottleGroup};
use crate::volume::{prepare, PreparedVolume, ScratchOptions, VolumeSource};
use crate::EmulateError;
use iofit_model::units::{Iops, MBps, Seconds};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Everything one rehearsal needs; built by the CLI or a test.
#[derive(Clone, Debug)]
pub struct EmulateOptions {
    pub limits: DesignLimits,
    /// One source per volume of `limits.volumes`, in the same order.
    pub sources: Vec<VolumeSource>,
    pub scratch: ScratchOptions,
    /// The command and its arguments; `{LABEL}` in an argument becomes that volume's path.
    pub command: Vec<String>,
    /// How often the caps are steered (Azure Monitor's view is per minute; 100 ms keeps the
    /// division of shared limits close to demand).
    pub tick: Duration,
    /// Shrinks the 30-minute burst buckets (1 = real time).
    pub time_scale: f64,
    /// The share (0..=1) of its credits every burst bucket (disks' and the VM's) starts with:
    /// Azure starts resources full (1); 0 rehearses the sustained state `predict` gives.
    pub start_credits: f64,
    pub state_dir: PathBuf,
}

pub use iofit_model::emulation::{LimitSummary, Outcome, Second};

/// Receives progress while the command runs.
pub trait Observer {
    fn ready(&mut self, _volumes: &[PreparedVolume]) {}
    fn second(&mut self, _second: &Second) {}
}

/// A consumed share at or above this counts as "at the limit" for a second.
pub const AT_LIMIT_PCT: f64 = 95.0;

/// Runs one rehearsal. `stop` (set from a signal handler) ends the command early; everything
/// iofit made is removed before this returns, on success and on error alike.
pub fn run(
    options: &EmulateOptions,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<Outcome, EmulateError> {
    check(options)?;
    let (version, root) = detect()?;
    let mut journal = Journal::create(&options.state_dir)?;
    let group_name = format!("iofit-emulate-{}", std::process::id());
    journal.record(Made::Cgroup {
        dir: root.join(&group_name),
    })?;
    let result = rehearse(options, observer, stop, &mut journal, &group_name);
    let failures = journal.undo();
    let mut outcome = result?;
    outcome.cleaned_up = failures.is_empty();
    outcome
        .notes
        .extend(failures.into_iter().map(EmulationNote::Cleanup));
    if version == CgroupVersion::V1 {
        outcome.notes.push(EmulationNote::CgroupV1BufferedWrites);
    }
    Ok(outcome)
}

fn check(options: &EmulateOptions) -> Result<(), EmulateError> {
    if options.sources.len() != options.limits.volumes.len() {
        return Err(EmulateError::Input(format!(
            "{} volume source(s) for {} volume(s)",
            options.sources.len(),
            options.limits.volumes.len()
        )));
    }
    if options.command.is_empty() {
        return Err(EmulateError::Input(
            "no command to run: put it after `--`, e.g. `iofit emulate ... -- iofit run job.fio`"
                .into(),
        ));
    }
    Ok(())
}

fn rehearse(
    options: &EmulateOptions,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
    journal: &mut Journal,
    group_name: &str,
) -> Result<Outcome, EmulateError> {
    let mut group = ThrottleGroup::create(group_name)?;
    let mut volumes = Vec::new();
    for (limits, source) in options.limits.volumes.iter().zip(&options.sources) {
        volumes.push(prepare(&limits.label, source, &options.scratch, journal)?);
    }
    let mut controller = Controller::new(
        options.limits.clone(),
        options.time_scale,
        options.tick.as_secs_f64(),
    )
    .with_start_credits(options.start_credits)
    .with_kernel_margin(crate::controller::KERNEL_MARGIN)
    .with_mixed_margin(crate::controller::MIXED_MARGIN);
    // The design's static split of every limit is in force before the command's first IO.
    apply(&mut group, &volumes, &controller)?;
    let device_base: Vec<Option<DeviceCounters>> = volumes
        .iter()
        .map(|v| crate::throttle::device_view(v.device).map(|(done, _)| done))
        .collect();
    observer.ready(&volumes);
    let mut child = spawn(options, &volumes, &group)?;
    let seconds = steer(
        &mut child,
        &mut group,
        (&volumes, &device_base),
        &mut controller,
        options,
        observer,
        stop,
    )?;
    let status = child.wait().map_err(|e| EmulateError::Io {
        what: "waiting for the command".into(),
        source: e,
    })?;
    group.remove()?;
    let limits = summarize(controller.limits(), &seconds);
    let burst_seconds = seconds_in_burst(controller.limits(), &seconds);
    let binding = limits
        .iter()
        .filter(|l| l.median_consumed_pct >= 50.0)
        .max_by(|a, b| a.median_consumed_pct.total_cmp(&b.median_consumed_pct))
        .map(|l| l.limit.clone());
    Ok(Outcome {
        cgroup: group.version,
        volumes,
        seconds,
        limits,
        binding,
        exit_code: status.code(),
        signal: status.signal(),
        interrupted: stop.load(Ordering::SeqCst),
        burst_seconds: burst_seconds.map(|n| Seconds(n as u64)),
        notes: options.limits.notes.clone(),
        cleaned_up: true,
    })
}

fn apply(
    group: &mut ThrottleGroup,
    volumes: &[PreparedVolume],
    controller: &Controller,
) -> Result<(), EmulateError> {
    for (volume, caps) in volumes.iter().zip(controller.caps()) {
        group.set(volume.device, &caps)?;
    }
    Ok(())
}

/// Starts the command in its own process group, inside the cgroup before it can do any IO.
fn spawn(
    options: &EmulateOptions,
    volumes: &[PreparedVolume],
    group: &ThrottleGroup,
) -> Result<Child, EmulateError> {
    let args: Vec<String> = options
        .command
        .iter()
        .map(|arg| substitute(arg, volumes))
        .collect();
    let mut command = Command::new(&args[0]);
    command.args(&args[1..]);
    for volume in volumes {
        let name = format!(
            "IOFIT_VOLUME_{}",
            volume
                .label
                .to_ascii_uppercase()
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        command.env(name, &volume.path);
    }
    // Opened before the fork, through safefs (only a cgroup file, never followed); the child
    // writes to its copy of the descriptor, which closes at exec.
    let procs_path = group.procs_file();
    let procs = iofit_safefs::control::open_control(&procs_path).map_err(|e| EmulateError::Io {
        what: format!("opening {}", procs_path.display()),
        source: e.into_io(),
    })?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&procs);
    // SAFETY: the closure runs in the child between fork and exec and uses only
    // async-signal-safe calls (setpgid, write) on a descriptor opened before the fork.
    unsafe {
        command.pre_exec(move || {
            if libc::setpgid(0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // Writing "0" moves the writing process itself into the cgroup.
            let written = libc::write(fd, b"0".as_ptr().cast(), 1);
            if written != 1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.spawn().map_err(|e| EmulateError::Io {
        what: format!("starting '{}'", args[0]),
        source: e,
    })
}

/// `{LABEL}` in an argument becomes the volume's path (mount point or device).
fn substitute(arg: &str, volumes: &[PreparedVolume]) -> String {
    let mut text = arg.to_string();
    for volume in volumes {
        text = text.replace(
            &format!("{{{}}}", volume.label),
            &volume.path.to_string_lossy(),
        );
    }
    text
}

/// The control loop: every tick read the counters, steer the caps; every second report.
fn steer(
    child: &mut Child,
    group: &mut ThrottleGroup,
    (volumes, device_base): (&[PreparedVolume], &[Option<DeviceCounters>]),
    controller: &mut Controller,
    options: &EmulateOptions,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<Vec<Second>, EmulateError> {
    let start = Instant::now();
    let mut last_tick = start;
    let mut second = SecondBuilder::new(volumes.len());
    let mut seconds = Vec::new();
    let mut stopping: Option<Instant> = None;
    loop {
        std::thread::sleep(options.tick);
        let exited = child.try_wait().ok().flatten().is_some();
        if stop.load(Ordering::SeqCst) {
            stop_group(child, &mut stopping);
            // A process waiting on IO the throttle holds cannot die until the IO is let out.
            for volume in volumes {
                group.set(volume.device, &crate::throttle::DeviceCaps::default())?;
            }
        }
        let now = Instant::now();
        let counters: Vec<DeviceCounters> = volumes
            .iter()
            .map(|v| group.counters(v.device))
            .collect::<Result<_, _>>()?;
        let elapsed_s = now.duration_since(last_tick).as_secs_f64();
        last_tick = now;
        controller.caps_in_force(
            volumes
                .iter()
                .map(|v| group.written(v.device).unwrap_or_default())
                .collect(),
        );
        controller.waiting_on_devices(waiting_on_devices(volumes, device_base, &counters));
        let usage = controller.tick(&counters, elapsed_s);
        if !exited && stopping.is_none() {
            apply(group, volumes, controller)?;
        }
        second.add(&usage, controller.vm_caps_in_force(), elapsed_s);
        if second.elapsed_s >= 1.0 || exited {
            let done = second.finish(now.duration_since(start).as_secs_f64(), controller);
            if done.t_s.get() > 0.0 && second_worth_keeping(&done, exited) {
                observer.second(&done);
                seconds.push(done);
            }
            second = SecondBuilder::new(volumes.len());
        }
        if exited {
            return Ok(seconds);
        }
    }
}

/// Per volume, whether reads and writes wait in the throttle as the device sees it (see
/// `Controller::waiting_on_devices`).
fn waiting_on_devices(
    volumes: &[PreparedVolume],
    base: &[Option<DeviceCounters>],
    counters: &[DeviceCounters],
) -> Vec<(bool, bool)> {
    volumes
        .iter()
        .zip(base)
        .zip(counters)
        .map(|((volume, base), group)| {
            let (Some(base), Some((done, in_flight))) =
                (base, crate::throttle::device_view(volume.device))
            else {
                return (false, false);
            };
            let waits = |submitted: u64, now: u64, start: u64, in_flight: u64| {
                in_flight == 0 && submitted > now.saturating_sub(start)
            };
            (
                waits(
                    group.read_bytes.as_u64(),
                    done.read_bytes.as_u64(),
                    base.read_bytes.as_u64(),
                    in_flight.0,
                ),
                waits(
                    group.write_bytes.as_u64(),
                    done.write_bytes.as_u64(),
                    base.write_bytes.as_u64(),
                    in_flight.1,
                ),
            )
        })
        .collect()
}

/// A final fragment shorter than a tenth of a second says nothing reliable.
fn second_worth_keeping(second: &Second, exited: bool) -> bool {
    !exited || second.volumes.iter().any(|v| v.iops() > 0.0)
}

/// SIGTERM to the command's process group, SIGKILL three seconds later.
fn stop_group(child: &Child, stopping: &mut Option<Instant>) {
    let pgid = child.id() as i32;
    let signal = match stopping {
        None => {
            *stopping = Some(Instant::now());
            libc::SIGTERM
        }
        Some(at) if at.elapsed() > Duration::from_secs(3) => libc::SIGKILL,
        Some(_) => return,
    };
    // SAFETY: kill(2) on the process group the child leads (setpgid in pre_exec).
    unsafe {
        libc::kill(-pgid, signal);
    }
}

/// Sums ticks into one second, weighting each tick by its length.
struct SecondBuilder {
    elapsed_s: f64,
    sums: Vec<VolumeUsage>,
    vm_cap_iops: Option<f64>,
    vm_cap_mb_s: Option<f64>,
    vm_burst_seconds_left: Option<f64>,
}

impl SecondBuilder {
    fn new(volumes: usize) -> SecondBuilder {
        SecondBuilder {
            elapsed_s: 0.0,
            sums: vec![VolumeUsage::default(); volumes],
            vm_cap_iops: None,
            vm_cap_mb_s: None,
            vm_burst_seconds_left: None,
        }
    }

    fn add(&mut self, usage: &[VolumeUsage], vm: VmCaps, elapsed_s: f64) {
        self.elapsed_s += elapsed_s;
        let weigh =
            |sum: Option<f64>, cap: Option<f64>| cap.map(|c| sum.unwrap_or(0.0) + c * elapsed_s);
        self.vm_cap_iops = weigh(self.vm_cap_iops, vm.iops.map(Iops::get));
        self.vm_cap_mb_s = weigh(self.vm_cap_mb_s, vm.mb_s.map(MBps::get));
        self.vm_burst_seconds_left = vm.burst_seconds_left;
        for (sum, tick) in self.sums.iter_mut().zip(usage) {
            sum.read_iops = sum.read_iops + tick.read_iops * elapsed_s;
            sum.write_iops = sum.write_iops + tick.write_iops * elapsed_s;
            sum.read_mb_s = sum.read_mb_s + tick.read_mb_s * elapsed_s;
            sum.write_mb_s = sum.write_mb_s + tick.write_mb_s * elapsed_s;
            sum.cap_iops = sum.cap_iops + tick.cap_iops * elapsed_s;
            sum.cap_mb_s = sum.cap_mb_s + tick.cap_mb_s * elapsed_s;
            sum.burst_seconds_left = tick.burst_seconds_left;
        }
    }

    fn finish(self, t_s: f64, controller: &Controller) -> Second {
        let span = self.elapsed_s.max(1e-9);
        let volumes: Vec<VolumeUsage> = self
            .sums
            .into_iter()
            .map(|s| VolumeUsage {
                read_iops: Iops(s.read_iops.get() / span),
                write_iops: Iops(s.write_iops.get() / span),
                read_mb_s: MBps(s.read_mb_s.get() / span),
                write_mb_s: MBps(s.write_mb_s.get() / span),
                cap_iops: Iops(s.cap_iops.get() / span),
                cap_mb_s: MBps(s.cap_mb_s.get() / span),
                burst_seconds_left: s.burst_seconds_left,
            })
            .collect();
        let vm_iops: f64 = volumes.iter().map(VolumeUsage::iops).sum();
        let vm_mb_s: f64 = volumes.iter().map(VolumeUsage::mb_s).sum();
        let vm = VmCaps {
            iops: self.vm_cap_iops.map(|c| Iops(c / span)),
            mb_s: self.vm_cap_mb_s.map(|c| MBps(c / span)),
            burst_seconds_left: self.vm_burst_seconds_left,
        };
        let (binding, binding_consumed_pct) =
            consumed(controller.limits(), &volumes, vm, vm_iops, vm_mb_s)
                .into_iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or_default();
        Second {
            t_s: Seconds(t_s),
            volumes,
            vm_iops: Iops(vm_iops),
            vm_mb_s: MBps(vm_mb_s),
            vm_cap_iops: vm.iops,
            vm_cap_mb_s: vm.mb_s,
            vm_burst_seconds_left: vm.burst_seconds_left,
            binding,
            binding_consumed_pct,
        }
    }
}

/// How many seconds ran with a cap above its baseline; `None` where nothing can burst.
fn seconds_in_burst(limits: &DesignLimits, seconds: &[Second]) -> Option<usize> {
    let vm = &limits.vm;
    let can_burst = vm.burst_uncached_iops.is_some()
        || vm.burst_uncached_throughput_mb_s.is_some()
        || limits
            .volumes
            .iter()
            .any(|v| v.burst_iops.is_some() || v.burst_throughput_mb_s.is_some());
    if !can_burst {
        return None;
    }
    let above = |cap: Option<f64>, base: Option<f64>| match (cap, base) {
        (Some(cap), Some(base)) => cap > base * 1.001,
        _ => false,
    };
    let in_burst = |second: &Second| {
        above(
            second.vm_cap_iops.map(Iops::get),
            vm.uncached_iops.map(Iops::get),
        ) || above(
            second.vm_cap_mb_s.map(MBps::get),
            vm.uncached_throughput_mb_s.map(MBps::get),
        ) || limits
            .volumes
            .iter()
            .zip(&second.volumes)
            .any(|(limit, used)| {
                above(Some(used.cap_iops.get()), Some(limit.iops.get()))
                    || above(Some(used.cap_mb_s.get()), Some(limit.throughput_mb_s.get()))
            })
    };
    Some(seconds.iter().filter(|s| in_burst(s)).count())
}

/// Every limit's consumed share in one second: (name, percent).
fn consumed(
    limits: &DesignLimits,
    volumes: &[VolumeUsage],
    vm: VmCaps,
    vm_iops: f64,
    vm_mb_s: f64,
) -> Vec<(String, f64)> {
    let mut shares = Vec::new();
    for (limit, usage) in limits.volumes.iter().zip(volumes) {
        shares.push((
            format!("{} IOPS", limit.label),
            pct(usage.iops(), usage.cap_iops.get()),
        ));
        shares.push((
            format!("{} MB/s", limit.label),
            pct(usage.mb_s(), usage.cap_mb_s.get()),
        ));
    }
    shares.extend(
        group_rows(limits, volumes)
            .into_iter()
            .map(|(name, used, cap)| (name, pct(used, cap))),
    );
    // Against the cap in force, as for the volumes: a bursting VM at its burst rate is at
    // its limit.
    if let Some(cap) = vm.iops.or(limits.vm.uncached_iops).map(Iops::get) {
        shares.push(("VM uncached IOPS".into(), pct(vm_iops, cap)));
    }
    if let Some(cap) = vm
        .mb_s
        .or(limits.vm.uncached_throughput_mb_s)
        .map(MBps::get)
    {
        shares.push(("VM uncached MB/s".into(), pct(vm_mb_s, cap)));
    }
    shares
}

/// Each shared group's four limits in one second: (name, used, cap). Its volumes' reads
/// against its read caps, their writes against its write caps.
fn group_rows(limits: &DesignLimits, volumes: &[VolumeUsage]) -> Vec<(String, f64, f64)> {
    let mut rows = Vec::new();
    for group in &limits.groups {
        let sum = |f: fn(&VolumeUsage) -> f64| -> f64 {
            group
                .volumes
                .iter()
                .filter_map(|i| volumes.get(*i))
                .map(f)
                .sum()
        };
        rows.push((
            format!("{} read IOPS", group.name),
            sum(|u| u.read_iops.get()),
            group.read_iops.get(),
        ));
        rows.push((
            format!("{} write IOPS", group.name),
            sum(|u| u.write_iops.get()),
            group.write_iops.get(),
        ));
        rows.push((
            format!("{} read MB/s", group.name),
            sum(|u| u.read_mb_s.get()),
            group.read_mb_s.get(),
        ));
        rows.push((
            format!("{} write MB/s", group.name),
            sum(|u| u.write_mb_s.get()),
            group.write_mb_s.get(),
        ));
    }
    rows
}

fn pct(used: f64, cap: f64) -> f64 {
    if cap > 0.0 {
        100.0 * used / cap
    } else {
        0.0
    }
}

/// Each limit over the whole rehearsal. A second's consumed share is taken against the cap in
/// force in that second (a bursting disk or VM moves its cap), so "at the limit" and the median
/// share mean the same for a swinging cap as for a fixed one; `cap` is the mean cap in force.
fn summarize(limits: &DesignLimits, seconds: &[Second]) -> Vec<LimitSummary> {
    let mut rows: Vec<LimitSummary> = Vec::new();
    let mut add = |name: String, fixed_cap: f64, used_and_cap: Vec<(f64, f64)>| {
        let count = used_and_cap.len().max(1) as f64;
        let mean = used_and_cap.iter().map(|u| u.0).sum::<f64>() / count;
        let cap = if used_and_cap.is_empty() {
            fixed_cap
        } else {
            used_and_cap.iter().map(|u| u.1).sum::<f64>() / count
        };
        let peak = used_and_cap.iter().map(|u| u.0).fold(0.0, f64::max);
        let mut shares: Vec<f64> = used_and_cap.iter().map(|(u, c)| pct(*u, *c)).collect();
        let at = shares.iter().filter(|p| **p >= AT_LIMIT_PCT).count() as f64;
        shares.sort_by(f64::total_cmp);
        let median = shares.get(shares.len() / 2).copied().unwrap_or(0.0);
        rows.push(LimitSummary {
            limit: name,
            cap,
            // + 0.0 turns a -0.0 from an empty run into 0.0 for printing.
            mean_used: mean + 0.0,
            peak_used: peak,
            mean_consumed_pct: pct(mean, cap) + 0.0,
            median_consumed_pct: median + 0.0,
            at_limit_pct_of_time: 100.0 * at / count,
        });
    };
    for (i, limit) in limits.volumes.iter().enumerate() {
        add(
            format!("{} IOPS", limit.label),
            limit.iops.get(),
            seconds
                .iter()
                .map(|s| (s.volumes[i].iops(), s.volumes[i].cap_iops.get()))
                .collect(),
        );
        add(
            format!("{} MB/s", limit.label),
            limit.throughput_mb_s.get(),
            seconds
                .iter()
                .map(|s| (s.volumes[i].mb_s(), s.volumes[i].cap_mb_s.get()))
                .collect(),
        );
    }
    let per_second: Vec<Vec<(String, f64, f64)>> = seconds
        .iter()
        .map(|s| group_rows(limits, &s.volumes))
        .collect();
    for (row, (name, _, cap)) in group_rows(limits, &[]).into_iter().enumerate() {
        add(
            name,
            cap,
            per_second.iter().map(|r| (r[row].1, r[row].2)).collect(),
        );
    }
    if let Some(base) = limits.vm.uncached_iops {
        add(
            "VM uncached IOPS".into(),
            base.get(),
            seconds
                .iter()
                .map(|s| (s.vm_iops.get(), s.vm_cap_iops.unwrap_or(base).get()))
                .collect(),
        );
    }
    if let Some(base) = limits.vm.uncached_throughput_mb_s {
        add(
            "VM uncached MB/s".into(),
            base.get(),
            seconds
                .iter()
                .map(|s| (s.vm_mb_s.get(), s.vm_cap_mb_s.unwrap_or(base).get()))
                .collect(),
        );
    }
    rows
}
