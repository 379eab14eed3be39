//! SIGINT, SIGTERM and SIGHUP, handled in one place from the first line of `main`, so that no
//! signal finds iofit between its start and a handler (before, the default action could end a
//! run that had already begun to create files).
//!
//! - A command that runs IO *arms* the stop ([`arm`]) and gets the flag its jobs watch: the
//!   first signal sets it (jobs end cleanly, results cover what ran). If the process has not
//!   ended [`STOP_BOUND`] after that signal (a CPU so loaded that summarising and writing the
//!   results does not get its turn, a disk that does not answer), it ends anyway with exit 130:
//!   the outputs still being written are removed (`safefs::atomic::remove_unfinished`), so an
//!   output is the whole of what was written before, or absent; never half a file.
//! - A second signal ends the process at once, the same way.
//! - A command that has not armed the stop (plan, predict, profile...) ends at once with 130.
//! - A multi-host run arms it without the bound (its hosts stop through their own protocol);
//!   `emulate` without the bound and without the second-signal exit: it must remove what it
//!   made (mounts, cgroups).

use crate::cmd::run::INTERRUPTED;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest a stop may take: from the first signal to the end of the process. Alone, a run
/// ends in 0.04-0.83 s after a stop (the engine's drain, cancel and give-up bounds, then the
/// results); the rest is room for a loaded machine.
pub(crate) const STOP_BOUND: Duration = Duration::from_millis(1500);

/// What the process does on a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Armed {
    /// Stop the command through its flag; end the process if it is still there after
    /// [`STOP_BOUND`].
    Bounded,
    /// Stop the command through its flag and let it end in its own time; a second signal
    /// ends the process at once.
    Unbounded,
    /// Every signal only asks the command to stop: it must clean up whatever it made.
    Cleanup,
}

const NOT_ARMED: u8 = 0;
const BOUNDED: u8 = 1;
const UNBOUNDED: u8 = 2;
const CLEANUP: u8 = 3;

static ARMED: AtomicU8 = AtomicU8::new(NOT_ARMED);
static SIGNALS: AtomicUsize = AtomicUsize::new(0);
static FLAG: Mutex<Option<Arc<AtomicBool>>> = Mutex::new(None);
/// The bound's watchdog, started when a bounded command arms the stop (not at the signal: on
/// a loaded CPU, making a thread then took 0.4 s); it gets the moment of the first signal.
static WATCHDOG: Mutex<Option<Sender<Instant>>> = Mutex::new(None);

/// Installs the handler; the first thing `main` does.
pub(crate) fn install() {
    // Fails only if a handler exists already, which nothing else in this process installs.
    let _ = ctrlc::set_handler(on_signal);
}

/// From now on a signal sets `stop` (the flag the command's jobs watch), and the process
/// answers it as `how` says.
pub(crate) fn arm(stop: Arc<AtomicBool>, how: Armed) {
    *FLAG.lock().unwrap_or_else(|e| e.into_inner()) = Some(stop);
    let state = match how {
        Armed::Bounded => BOUNDED,
        Armed::Unbounded => UNBOUNDED,
        Armed::Cleanup => CLEANUP,
    };
    if how == Armed::Bounded {
        start_watchdog();
    }
    ARMED.store(state, Ordering::SeqCst);
}

fn start_watchdog() {
    let mut watchdog = WATCHDOG.lock().unwrap_or_else(|e| e.into_inner());
    if watchdog.is_some() {
        return;
    }
    let (tx, rx) = mpsc::channel::<Instant>();
    let started = std::thread::Builder::new()
        .name("stop-bound".into())
        .spawn(move || {
            if let Ok(signalled) = rx.recv() {
                std::thread::sleep(
                    (signalled + STOP_BOUND).saturating_duration_since(Instant::now()),
                );
                end_now(Some(STOP_BOUND));
            }
        });
    if started.is_ok() {
        *watchdog = Some(tx);
    }
}

/// Runs on ctrlc's own thread (not in signal context), so it may spawn and print.
fn on_signal() {
    let signalled = Instant::now();
    let armed = ARMED.load(Ordering::SeqCst);
    let earlier = SIGNALS.fetch_add(1, Ordering::SeqCst);
    if armed == NOT_ARMED || (earlier >= 1 && armed != CLEANUP) {
        end_now(None);
    }
    if let Some(stop) = FLAG.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        stop.store(true, Ordering::SeqCst);
    }
    if earlier >= 1 {
        return;
    }
    if armed == BOUNDED {
        if let Some(watchdog) = WATCHDOG.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            let _ = watchdog.send(signalled);
        }
    }
}

/// Ends the process with [`INTERRUPTED`] without unwinding, after removing the outputs still
/// being written.
fn end_now(after: Option<Duration>) -> ! {
    // Results printed to stdout are printed whole: wait for a print under way to end, and
    // keep the lock so that none starts (results go out with one `write_all` under it).
    let _stdout = after.map(|_| std::io::stdout().lock());
    let removed = iofit_safefs::atomic::remove_unfinished();
    if let Some(bound) = after {
        eprintln!(
            "iofit: interrupted; the run did not end within {} ms of the signal (a busy \
             machine), so it was ended: results written before are kept{}",
            bound.as_millis(),
            if removed > 0 {
                ", the ones still being written were removed"
            } else {
                ""
            }
        );
    }
    // SAFETY: _exit ends the process without running destructors or atexit handlers, which
    // is what a process ending from another thread needs (the main thread may hold locks).
    unsafe { libc::_exit(i32::from(INTERRUPTED)) }
}
