//! The start barrier of a set of jobs: every clone makes its engine, buffers and histograms and
//! opens its files, then waits here; the runner opens the gate once every clone is ready, and
//! that moment is time zero of every clone's runtime.
//!
//! Without it, clones started one after another while the earlier ones already ran: on a busy
//! CPU the runner thread that spawns them competed with every running clone, so starting 256
//! clones of a one-second job took 4 s, 4096 took minutes, and the group's IOs were summed over
//! windows that did not overlap (group IOPS 2.8x the IOs over the wall time).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The gate of one set of clones.
#[derive(Debug, Default)]
pub struct StartGate {
    state: Mutex<GateState>,
    /// The runner waits on this for clones to get ready; each arrival wakes only it (waking
    /// every waiting clone at each arrival made the start quadratic: 1024 clones, half a
    /// million wake-ups).
    arrived: Condvar,
    /// The clones wait on this for the gate to open.
    opened: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    /// Clones that are ready (or gave up before being ready: they will not start IO).
    ready: usize,
    /// When the runner opened the gate.
    opened_at: Option<Instant>,
}

/// How often the runner looks at the stop flag while clones get ready.
const READY_POLL: Duration = Duration::from_millis(20);

impl StartGate {
    pub fn new() -> StartGate {
        StartGate::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, GateState> {
        // Only counters and a time behind the lock: a panicked holder left them consistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn arrive(&self) {
        self.lock().ready += 1;
        self.arrived.notify_one();
    }

    /// Waits (in the runner) until `clones` clones are ready, or `stop` is set; then opens the
    /// gate and returns the moment it opened.
    pub fn open_when_ready(&self, clones: usize, stop: &AtomicBool) -> Instant {
        let mut state = self.lock();
        while state.ready < clones && !stop.load(Ordering::Relaxed) {
            state = self
                .arrived
                .wait_timeout(state, READY_POLL)
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .0;
        }
        self.open_locked(state)
    }

    /// Opens the gate at once (a clone could not be started: the others must not wait).
    pub fn open_now(&self) -> Instant {
        let state = self.lock();
        self.open_locked(state)
    }

    fn open_locked(&self, mut state: std::sync::MutexGuard<'_, GateState>) -> Instant {
        let at = *state.opened_at.get_or_insert_with(Instant::now);
        drop(state);
        self.opened.notify_all();
        at
    }

    /// Waits (in a clone) for the gate to open; when it opened.
    fn wait_open(&self) -> Instant {
        let mut state = self.lock();
        loop {
            if let Some(at) = state.opened_at {
                return at;
            }
            state = self
                .opened
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// One clone's place at the gate. The clone counts as ready when it first waits, or when the
/// ticket is dropped without waiting (its setup failed: it will issue nothing), so the runner
/// never waits for a clone that will not come.
#[derive(Debug)]
pub struct StartTicket<'a> {
    gate: &'a StartGate,
    used: AtomicBool,
}

impl<'a> StartTicket<'a> {
    pub fn new(gate: &'a StartGate) -> StartTicket<'a> {
        StartTicket {
            gate,
            used: AtomicBool::new(false),
        }
    }

    /// The first call: counts the clone ready, waits for the gate and returns when it opened
    /// (the clone's time zero). Later calls (the next loop of a job with loops) return None at
    /// once: those passes start when they start.
    pub fn wait(&self) -> Option<Instant> {
        if self.used.swap(true, Ordering::AcqRel) {
            return None;
        }
        self.gate.arrive();
        Some(self.gate.wait_open())
    }
}

impl Drop for StartTicket<'_> {
    fn drop(&mut self) {
        if !self.used.swap(true, Ordering::AcqRel) {
            self.gate.arrive();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn no_clone_passes_before_all_are_ready_and_all_see_one_opening() {
        let gate = Arc::new(StartGate::new());
        let passed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut handles = Vec::new();
        for _ in 0..8 {
            let (gate, passed) = (Arc::clone(&gate), Arc::clone(&passed));
            handles.push(std::thread::spawn(move || {
                let ticket = StartTicket::new(&gate);
                let at = ticket.wait().expect("first wait");
                passed.fetch_add(1, Ordering::SeqCst);
                assert!(ticket.wait().is_none(), "a second pass is not gated");
                at
            }));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(passed.load(Ordering::SeqCst), 0, "the gate is shut");
        let opened = gate.open_when_ready(8, &AtomicBool::new(false));
        let seen: Vec<Instant> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(seen.iter().all(|&at| at == opened));
    }

    #[test]
    fn a_clone_that_fails_before_the_gate_counts_as_ready() {
        let gate = StartGate::new();
        drop(StartTicket::new(&gate));
        let ticket = StartTicket::new(&gate);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| ticket.wait());
            gate.open_when_ready(2, &AtomicBool::new(false));
            assert!(waiter.join().unwrap().is_some());
        });
    }

    #[test]
    fn a_stop_opens_the_gate_without_waiting_for_the_rest() {
        let gate = StartGate::new();
        let stop = AtomicBool::new(true);
        let started = Instant::now();
        gate.open_when_ready(100, &stop);
        assert!(started.elapsed() < Duration::from_secs(1));
        assert!(StartTicket::new(&gate).wait().is_some());
    }
}
