//! The state of one running clone ([`Run`]): where its next IO goes and when, what it has
//! issued and completed, its rate, think-time and latency-target bookkeeping, and how it
//! accounts a completion. The worker's loops (`crate::worker`) and read-back passes
//! (`crate::read_back`) drive it.

use crate::clock::Clock;
use crate::clone_plan::{CloneOutput, ClonePlan, CloneShared, CloneSnapshot, POLL_NS};
use crate::engine::{Engine, Op, SlotMeta};
use crate::latency_target::LatencySearch;
use crate::random::SplitMix64;
use iofit_model::units::{Nanos, UnixMillis};
use iofit_stats::{Ddir, IntervalAccumulator, IntervalBucket};
use std::sync::atomic::Ordering;

mod complete;
mod issue;
mod offsets;

pub(crate) use offsets::OffsetGen;

/// The minimum-rate window of one clone: what completed since it opened.
#[derive(Default)]
struct MinRateWindow {
    start_ns: u64,
    ios: [u64; 2],
    bytes: [u64; 2],
}

impl SlotMeta {
    /// fio's direction of the IO.
    fn ddir(&self) -> Ddir {
        match (self.op_is_read, self.trim) {
            (true, _) => Ddir::Read,
            (false, true) => Ddir::Trim,
            (false, false) => Ddir::Write,
        }
    }
}

fn thread_cpu() -> (u64, u64, u64) {
    let usage = thread_usage();
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    (
        tv(usage.ru_utime),
        tv(usage.ru_stime),
        (usage.ru_nvcsw + usage.ru_nivcsw) as u64,
    )
}

/// (major, minor) page faults of this thread so far.
/// The wall-clock time (ms since the Unix epoch) of `at_ns` on `clock`, not of this call: a
/// clone the CPU scheduled late after its start gate still began its window when the gate
/// opened. The clock and the wall clock are read back to back; a pair the CPU split (the
/// thread preempted between them) is read again, a few times at most.
fn epoch_ms_at<C: Clock>(clock: &C, at_ns: u64) -> UnixMillis {
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
    const TIGHT_NS: u64 = 50_000;
    let mut wall = SystemTime::now();
    let mut late_ns = 0;
    for _ in 0..5 {
        let Some(before) = clock.ns_at(Instant::now()) else {
            break; // a clock of its own (tests): the wall clock now
        };
        wall = SystemTime::now();
        let after = clock.ns_at(Instant::now()).unwrap_or(before);
        late_ns = before.saturating_sub(at_ns);
        if after.saturating_sub(before) < TIGHT_NS {
            break;
        }
    }
    wall.checked_sub(Duration::from_nanos(late_ns))
        .unwrap_or(wall)
        .duration_since(UNIX_EPOCH)
        .map_or(UnixMillis(0), |d| UnixMillis(d.as_millis() as u64))
}

fn thread_faults() -> (u64, u64) {
    let usage = thread_usage();
    (usage.ru_majflt as u64, usage.ru_minflt as u64)
}

fn thread_usage() -> libc::rusage {
    // SAFETY: rusage is plain integers, for which all-zero bytes are a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage only writes the struct it is given, which lives for the call.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
    usage
}

/// The state of one running clone.
pub(crate) struct Run<'a, C: Clock> {
    pub(crate) plan: &'a ClonePlan,
    pub(crate) shared: &'a CloneShared<'a>,
    pub(crate) clock: &'a C,
    pub(crate) rng: SplitMix64,
    pub(crate) offsets: OffsetGen,
    pub(crate) out: CloneOutput,
    /// Fills writes and checks reads (verify, content); idle when the job asks for neither.
    pub(crate) data: crate::data::DataState,
    pub(crate) series: IntervalAccumulator,
    pub(crate) measuring: bool,
    pub(crate) measure_start: u64,
    pub(crate) ramp_end: u64,
    pub(crate) deadline: Option<u64>,
    cpu_start: (u64, u64, u64),
    faults_start: (u64, u64),
    issued_bytes: u64,
    issued: [u64; 2],
    issued_dir_bytes: [u64; 2],
    rate_start: u64,
    rate_interval_ns: [Option<f64>; 2],
    rate_ns_per_byte: [Option<f64>; 2],
    writes_since_sync: u32,
    completed: u64,
    completed_bytes: u64,
    /// The longest total latency seen (ramp included): sizes the drain at the end.
    pub(crate) longest_ns: u64,
    /// When the clone started issuing (after any start delay).
    pub(crate) start_ns: u64,
    /// No IO issues before this (a thinktime pause); 0: none.
    think_until: u64,
    /// Spin rather than sleep until this (thinktime_spin).
    spin_until: u64,
    completed_since_think: u32,
    /// With Poisson arrivals, when the next IO of each direction is due, from `rate_start`.
    arrival_ns: [f64; 2],
    arrivals: SplitMix64,
    min_rate: MinRateWindow,
    /// fio's latency_target depth search; `search_done`: its final window is over.
    search: Option<LatencySearch>,
    search_done: bool,
    /// When the search last let more IOs in flight: a slot it held back issues its next IO
    /// from then, not from when the slot was last free.
    pub(crate) depth_opened_ns: u64,
    /// This clone's place in its flow group (fio `flow`), left when the run is dropped.
    flow: Option<crate::flow::FlowMember>,
    /// Draws for per-IO priorities: their own stream, so offsets stay as without cmdprio.
    prio_rng: SplitMix64,
    /// fio fill_device: a write found the file system full; issuing ends.
    filled: bool,
    /// trimwrite: the (len, file, offset) just trimmed, which the next IO writes.
    trimmed: Option<(u32, u32, u64)>,
    /// fio read_iolog: the log being replayed, the IO read from it but not yet due, and
    /// whether its end was reached.
    pub(crate) replay: Option<crate::replay::ReplayReader>,
    replay_peek: Option<crate::replay::ReplayIo>,
    pub(crate) replay_done: bool,
    /// fio write_iolog: the time its lines count from.
    iolog_start_ns: u64,
}

/// What a replayed log asks for next.
pub(crate) enum Replayed {
    /// An IO to issue now; it was due at `due_ns`.
    Io {
        op: Op,
        len: u32,
        file: u32,
        offset: u64,
        due_ns: u64,
    },
    /// Nothing before this time.
    Wait(u64),
    /// The log is done (or could not be read: the error is recorded).
    End,
}

/// Why a clone stops issuing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// Ctrl-C or SIGTERM.
    Stop,
    /// Runtime over, size done, or an error.
    Done,
}

impl<'a, C: Clock> Run<'a, C> {
    pub(crate) fn new(plan: &'a ClonePlan, shared: &'a CloneShared<'a>, clock: &'a C) -> Self {
        let rate_interval_ns = [
            plan.rate_iops[0].filter(|&r| r > 0).map(|r| 1e9 / r as f64),
            plan.rate_iops[1].filter(|&r| r > 0).map(|r| 1e9 / r as f64),
        ];
        let rate_ns_per_byte = [
            plan.rate_bytes_per_second[0]
                .filter(|&r| r > 0)
                .map(|r| 1e9 / r as f64),
            plan.rate_bytes_per_second[1]
                .filter(|&r| r > 0)
                .map(|r| 1e9 / r as f64),
        ];
        Run {
            plan,
            shared,
            clock,
            rng: SplitMix64::new(plan.seed),
            offsets: OffsetGen::new(plan),
            out: CloneOutput::default(),
            data: crate::data::DataState::new(&plan.data, &plan.files, plan.depth, plan.seed),
            series: IntervalAccumulator::new(plan.interval_ns.get()),
            measuring: false,
            measure_start: 0,
            ramp_end: 0,
            deadline: None,
            cpu_start: (0, 0, 0),
            faults_start: (0, 0),
            issued_bytes: 0,
            issued: [0; 2],
            issued_dir_bytes: [0; 2],
            rate_start: 0,
            rate_interval_ns,
            rate_ns_per_byte,
            writes_since_sync: 0,
            completed: 0,
            completed_bytes: 0,
            longest_ns: 0,
            start_ns: 0,
            think_until: 0,
            spin_until: 0,
            completed_since_think: 0,
            arrival_ns: [0.0; 2],
            // Its own stream, so that Poisson gaps do not change the offsets drawn.
            arrivals: SplitMix64::new(plan.seed ^ 0x9e37_79b9_7f4a_7c15),
            min_rate: MinRateWindow::default(),
            search: None,
            search_done: false,
            depth_opened_ns: 0,
            flow: plan.pacing.flow.as_ref().map(crate::flow::FlowMember::join),
            prio_rng: SplitMix64::new(plan.seed ^ 0x5851_f42d_4c95_7f2d),
            filled: false,
            trimmed: None,
            replay: None,
            replay_peek: None,
            replay_done: false,
            iolog_start_ns: 0,
        }
    }

    /// Starts the clone's clock: at `gate_ns` (when its set's start gate opened, on this
    /// clock) when given, else now. A clone the CPU scheduled late after the gate still counts
    /// from the gate, as every other clone of the set does: the group's IOs are then summed over
    /// one window, the set's wall time.
    pub(crate) fn start(&mut self, gate_ns: Option<u64>) {
        let t = gate_ns.unwrap_or_else(|| self.clock.now_ns());
        self.iolog_start_ns = t;
        self.open_replay();
        if self.plan.write_iolog.is_some() {
            for file in 0..self.plan.files.len() as u32 {
                self.log_action(t, file, "open", None);
            }
        }
        let delay_ns = self.plan.start_delay_ns.get();
        let start = match gate_ns {
            // From the gate, the delay ends when it is due (a stop may end it sooner).
            Some(gate) if delay_ns > 0 => self.pause_until(gate + delay_ns).min(gate + delay_ns),
            Some(gate) => gate,
            None => {
                if delay_ns > 0 {
                    self.pause_until(t + delay_ns);
                }
                self.clock.now_ns()
            }
        };
        self.start_ns = start;
        self.rate_start = start;
        self.ramp_end = start + self.plan.ramp_ns.get();
        self.deadline = self.plan.runtime_ns.map(|r| self.ramp_end + r.get());
        self.search = self.plan.pacing.latency_target.as_ref().map(|t| {
            LatencySearch::new(
                t.target_ns.get(),
                t.window_ns.get(),
                t.percentile,
                self.plan.depth,
                start,
            )
            .with_latency_run(t.keep_running)
        });
        if self.plan.ramp_ns.get() == 0 {
            self.begin_measuring(start);
        }
    }

    /// Sleeps until `until_ns`, waking every [`POLL_NS`] to look at the stop flag. Returns the
    /// time it woke.
    pub(crate) fn pause_until(&self, until_ns: u64) -> u64 {
        loop {
            let now = self.clock.now_ns();
            if now >= until_ns || self.shared.stop.load(Ordering::Relaxed) {
                return now;
            }
            if now < self.spin_until {
                // thinktime_spin: burn the CPU as the application being modelled would.
                std::hint::spin_loop();
                continue;
            }
            self.clock.sleep_until(until_ns.min(now + POLL_NS));
        }
    }

    /// Whether issuing must end at `now`, and why. A stop is recorded as an interruption.
    #[inline]
    pub(crate) fn end_reason(&mut self, now: u64) -> Option<End> {
        if self.shared.stop.load(Ordering::Relaxed) {
            if !self.out.interrupted {
                self.out.interrupted = true;
                // What was measured up to the stop, for a stop bound that cannot wait for
                // this clone's output (`live::LiveResults`).
                self.publish_snapshot();
            }
            Some(End::Stop)
        } else if self.deadline.is_some_and(|d| now >= d)
            || !self.budget_left()
            || self.out.error.is_some()
            || self.data.limit_reached()
            || self.search_done
            || self.filled
            || self.replay_done
            || self
                .shared
                .end_set
                .is_some_and(|e| e.load(Ordering::Relaxed))
        {
            Some(End::Done)
        } else {
            None
        }
    }

    pub(crate) fn begin_measuring(&mut self, now: u64) {
        self.measuring = true;
        self.measure_start = now;
        self.min_rate = MinRateWindow {
            start_ns: now,
            ..MinRateWindow::default()
        };
        self.out.read.reset();
        self.out.write.reset();
        self.out.trim.reset();
        self.series.restart();
        self.cpu_start = thread_cpu();
        self.faults_start = thread_faults();
        // SAFETY: gettid has no preconditions and cannot fail.
        self.out.tid = unsafe { libc::gettid() } as u32;
        self.out.start_epoch_ms = epoch_ms_at(self.clock, now);
        if let Some(log) = &self.plan.interval_log {
            log.begin(self.out.start_epoch_ms.get());
        }
        self.out.io_depths = Default::default();
    }

    #[inline]
    pub(crate) fn publish_progress(&self) {
        let cell = self.shared.progress;
        let earlier = &self.plan.earlier_loops;
        cell.ios
            .store(earlier.ios + self.completed, Ordering::Relaxed);
        cell.bytes.store(
            earlier.bytes.as_u64() + self.completed_bytes,
            Ordering::Relaxed,
        );
        // One relaxed load per publication; the copy happens once per status interval.
        if cell.snapshot_wanted.load(Ordering::Relaxed) {
            cell.snapshot_wanted.store(false, Ordering::Relaxed);
            self.publish_snapshot();
        }
    }

    /// Copies the measurements so far into the progress cell (`--status-interval`).
    #[cold]
    fn publish_snapshot(&self) {
        let (mut read, mut write) = (self.out.read.clone(), self.out.write.clone());
        let mut trim = self.out.trim.clone();
        for d in [&mut read, &mut write, &mut trim] {
            // A synchronous engine records total latency into completion until `finish`.
            if d.total.count() == 0 && self.plan.measure.lat && self.plan.measure.clat {
                d.total = d.completion.clone();
            }
        }
        let mut runtime_ns = if self.measuring {
            self.clock.now_ns().saturating_sub(self.measure_start)
        } else {
            0
        };
        if let Some(earlier) = &self.plan.earlier_measured {
            read.merge(&earlier.read);
            write.merge(&earlier.write);
            trim.merge(&earlier.trim);
            runtime_ns += earlier.runtime_ns.get();
        }
        let mut slot = self.shared.progress.snapshot.lock().expect("snapshot lock");
        let generation = slot.as_ref().map_or(0, |s| s.generation) + 1;
        *slot = Some(CloneSnapshot {
            read,
            write,
            trim,
            runtime_ns: Nanos(runtime_ns),
            generation,
        });
    }

    pub(crate) fn finish<E: Engine>(&mut self, engine: &mut E, end_ns: u64) -> CloneOutput {
        self.publish_progress();
        if self.out.interrupted {
            // The drain's completions too, should the runner not take this output in time.
            self.publish_snapshot();
        }
        if E::INLINE && self.plan.measure.lat && self.plan.measure.clat {
            self.out.read.total = self.out.read.completion.clone();
            self.out.write.total = self.out.write.completion.clone();
        }
        if self.measuring {
            self.out.runtime_ns = Nanos(end_ns.saturating_sub(self.measure_start));
            let cpu = thread_cpu();
            self.out.usr_ns = Nanos(cpu.0.saturating_sub(self.cpu_start.0));
            self.out.sys_ns = Nanos(cpu.1.saturating_sub(self.cpu_start.1));
            self.out.context_switches = cpu.2.saturating_sub(self.cpu_start.2);
            let faults = thread_faults();
            self.out.major_faults = faults.0.saturating_sub(self.faults_start.0);
            self.out.minor_faults = faults.1.saturating_sub(self.faults_start.1);
            let series = self.shared.series;
            let shift = self.plan.earlier_loops.intervals;
            let log = self.plan.interval_log.as_ref();
            let mut sink = |b: &IntervalBucket| {
                series.lock().expect("series lock").add_shifted(b, shift);
                if let Some(log) = log {
                    log.add(b, shift);
                }
            };
            self.series.finish(self.out.runtime_ns.get(), &mut sink);
        }
        // The logs hold every window up to here, also after a stop.
        if let Some(Err(e)) = self.plan.interval_log.as_ref().map(|log| log.finish()) {
            self.out.error.get_or_insert(e.to_string());
        }
        // An interrupted run ends now: a final fsync on a busy disk could take seconds.
        let ending_well = self.out.error.is_none() && !self.out.interrupted;
        if (self.plan.end_fsync || self.plan.fsync_on_close) && ending_well {
            if let Err(e) = self.sync_all(engine, false) {
                self.out.error = Some(e.to_string());
            }
        }
        if self.plan.end_syncfs && ending_well && self.out.error.is_none() {
            // One syncfs per file: files of a job on the same file system cost one extra
            // (cheap) syncfs each, and no file system is missed.
            for file in 0..self.plan.files.len() as u32 {
                if let Err(e) = engine.sync_fs(file) {
                    let path = self.plan.files[file as usize].0.display();
                    self.out.error = Some(format!("syncfs of {path} failed: {e}"));
                    break;
                }
                self.out.syncs += 1;
            }
        }
        if let Err(e) = self.data.save_state() {
            self.out.error.get_or_insert(e.to_string());
        }
        if let Some(Err(e)) = self.plan.io_log.as_ref().map(|log| log.flush()) {
            self.out.error.get_or_insert(e.to_string());
        }
        if let Some(log) = self.plan.write_iolog.clone() {
            let now = self.clock.now_ns();
            for file in 0..self.plan.files.len() as u32 {
                self.log_action(now, file, "close", None);
            }
            if let Err(e) = log.flush() {
                self.out.error.get_or_insert(e.to_string());
            }
        }
        self.out.verify = self.data.result(&self.plan.data, &self.plan.files);
        std::mem::take(&mut self.out)
    }
}
