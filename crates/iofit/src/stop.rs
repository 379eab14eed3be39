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
//!   Results that go to stdout are printed whole or cut with a note, never blocked past the
//!   bound ([`print_results`]: a pipe nobody reads would hold the exit forever); when the run
//!   had not printed them by then, the bound prints what the interrupted job had measured
//!   ([`set_last_word`]).
//! - A second signal ends the process at once, the same way.
//! - A command that has not armed the stop (plan, predict, profile...) ends at once with 130.
//! - A multi-host run arms it without the bound (its hosts stop through their own protocol);
//!   `emulate` without the bound and without the second-signal exit: it must remove what it
//!   made (mounts, cgroups).

use crate::exit::INTERRUPTED;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// The longest a stop may take: from the moment the kernel delivers the first signal to the end
/// of the process. Alone, a run ends well inside it: a clone drains, cancels and gives up in
/// 0.35 s at most (`iofit_engine::worker::STOP_DRAIN_NS` + `CANCEL_WAIT_NS` + `POLL_NS`), the
/// runner stops waiting for clones at 0.5 s (`iofit_engine::STOP_GRACE`), and the results are
/// summarised and printed after that; at 0.7 s the watchdog prints the results so far
/// ([`LAST_WORD_ROOM`]) if the run has not, and at 1 s it ends the process.
pub(crate) const STOP_BOUND: Duration = Duration::from_millis(1000);

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
/// a loaded CPU, making a thread then took 0.4 s); it gets the moment of the first signal, and
/// after it the results to print.
static WATCHDOG: Mutex<Option<Sender<Watch>>> = Mutex::new(None);

/// What the watchdog is told.
enum Watch {
    /// The first signal came at this moment.
    Signalled(Instant),
    /// Print these results (the command's own, after the signal) and say how it went. The
    /// thread that ends the process prints them, so that a print is never cut off by the end
    /// of the process while another thread has it half done.
    Print(String, mpsc::SyncSender<std::io::Result<()>>),
}

/// Before the bound ends the process, the room its last word (a snapshot of the results,
/// rendered, then printed) gets: the watchdog starts it this long before the bound.
const LAST_WORD_ROOM: Duration = Duration::from_millis(300);

/// What the bound prints when the run has not printed its results: the results so far,
/// rendered (None when there is nothing to print, or they cannot be had by the given moment).
pub(crate) type LastWord = Box<dyn FnOnce(Instant) -> Option<String> + Send>;

/// Of [`LAST_WORD_ROOM`], what is left for the print after the results are gathered.
const PRINT_ROOM: Duration = Duration::from_millis(100);
static LAST_WORD: Mutex<Option<(LastWord, LastWordTo)>> = Mutex::new(None);

/// Where the last word goes: where the command's results go.
pub(crate) enum LastWordTo {
    Stdout,
    /// The `--output` file, replaced whole.
    File(std::path::PathBuf),
}

/// How far the print of results to stdout got; the lock is held while one is under way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Printed {
    Nothing,
    Whole,
    /// A print gave up at the bound (stdout took no more): stdout holds part of a document.
    Cut,
}
static PRINTED: Mutex<Printed> = Mutex::new(Printed::Nothing);

/// No print to stdout blocks past this moment (ns since [`base`]): the first signal plus
/// [`STOP_BOUND`] for a bounded command; never before a signal.
static DEADLINE_NS: AtomicU64 = AtomicU64::new(u64::MAX);

fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

fn now_ns() -> u64 {
    base().elapsed().as_nanos() as u64
}

fn ns_at(at: Instant) -> u64 {
    at.saturating_duration_since(base()).as_nanos() as u64
}

/// Who ends the process: only one may, the other waits. Before, the main thread returning
/// from `main` while the bound wrote its last word cut that write off half way, and left its
/// temporary file (`.NAME.*.iofit-tmp`, often empty) beside the output.
static ENDING: AtomicU8 = AtomicU8::new(RUNNING);
const RUNNING: u8 = 0;
/// The main thread returns from `main` ([`before_exit`]).
const MAIN_EXITS: u8 = 1;
/// The bound or a second signal ends the process ([`end_now`]).
const BOUND_ENDS: u8 = 2;

/// The last thing `main` does before it returns: claims the end of the process. If the stop
/// bound (or a second signal) is ending it already, waits for that end (it writes its last
/// word, removes what is unfinished and exits 130). Otherwise no output is left half-written:
/// the temporary files of outputs other threads still write (a clone abandoned in the
/// kernel) are removed, or published for logs kept at exit, and none can be started after.
pub(crate) fn before_exit() {
    if ENDING
        .compare_exchange(RUNNING, MAIN_EXITS, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        loop {
            std::thread::park();
        }
    }
    iofit_safefs::atomic::remove_unfinished();
}

/// Installs the handler; the first thing `main` does.
pub(crate) fn install() {
    base();
    // Fails only without a pipe, a thread or sigaction: then signals keep their default action
    // (the process ends at once), which is still a stop.
    let _ = crate::signals::install(on_signal);
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
    let (tx, rx) = mpsc::channel::<Watch>();
    let started = std::thread::Builder::new()
        .name("stop-bound".into())
        .spawn(move || watch(&rx));
    if started.is_ok() {
        *watchdog = Some(tx);
    }
}

/// The watchdog: prints what it is handed, and ends the process [`LAST_WORD_ROOM`] before the
/// bound passes (printing the last word first, if the results are not out).
fn watch(rx: &mpsc::Receiver<Watch>) {
    let mut last_word_at: Option<Instant> = None;
    loop {
        let message = match last_word_at {
            None => rx.recv().ok(),
            Some(at) => match rx.recv_timeout(at.saturating_duration_since(Instant::now())) {
                Ok(message) => Some(message),
                Err(_) => end_now(Some(STOP_BOUND)),
            },
        };
        match message {
            Some(Watch::Signalled(signalled)) => {
                last_word_at = Some(signalled + STOP_BOUND - LAST_WORD_ROOM);
            }
            Some(Watch::Print(text, reply)) => {
                let _ = reply.send(print_here(&text));
            }
            // The sender lives as long as the process: not reached.
            None => return,
        }
    }
}

/// Runs on the signals' own thread (not in signal context), so it may spawn and print;
/// `signalled` is when the kernel delivered the signal.
fn on_signal(signalled: Instant) {
    let armed = ARMED.load(Ordering::SeqCst);
    let earlier = SIGNALS.fetch_add(1, Ordering::SeqCst);
    if armed == NOT_ARMED || (earlier >= 1 && armed != CLEANUP) {
        end_now(None);
    }
    // Outputs written from now on are not synced: an fsync on a busy disk would hold the end.
    iofit_safefs::atomic::stop_syncing();
    if let Some(stop) = FLAG.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        stop.store(true, Ordering::SeqCst);
    }
    if earlier >= 1 {
        return;
    }
    if armed == BOUNDED {
        DEADLINE_NS.store(ns_at(signalled + STOP_BOUND), Ordering::SeqCst);
        if let Some(watchdog) = WATCHDOG.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            let _ = watchdog.send(Watch::Signalled(signalled));
        }
    }
}

/// Ends the process with [`INTERRUPTED`] without unwinding, after removing the outputs still
/// being written. Past the bound (`after`), first prints the results so far when the run has
/// not printed its own (the watchdog starts this [`LAST_WORD_ROOM`] before the bound).
fn end_now(after: Option<Duration>) -> ! {
    if ENDING
        .compare_exchange(RUNNING, BOUND_ENDS, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        // The main thread is on its way out with its own results written: start no output
        // (one cut off by its exit would leave a temporary file), and end the process at the
        // bound only if that exit has not by then.
        let left = Duration::from_nanos(bound_ns().saturating_sub(now_ns())).min(STOP_BOUND);
        std::thread::sleep(left);
        // SAFETY: as below.
        unsafe { libc::_exit(i32::from(INTERRUPTED)) }
    }
    // Results printed to stdout are printed whole: wait (until the bound at most) for a print
    // under way to end, and keep the lock so that none starts.
    let printed = lock_until(
        &PRINTED,
        bound_ns().min(now_ns() + STOP_BOUND.as_nanos() as u64),
    );
    let mut notes: Vec<String> = Vec::new();
    if after.is_some() {
        notes.extend(say_last_word(printed.as_deref().copied()));
    } else if printed.as_deref().copied() == Some(Printed::Cut) {
        notes.push(CUT_NOTE.to_string());
    }
    let removed = iofit_safefs::atomic::remove_unfinished();
    if let Some(bound) = after {
        let note = format!(
            "iofit: interrupted; the run did not end within {} ms of the signal (a busy \
             machine), so it was ended: results written before are kept{}{}\n",
            bound.as_millis(),
            if removed > 0 {
                ", the ones still being written were removed"
            } else {
                ""
            },
            notes.concat()
        );
        // stderr too may be a pipe nobody reads: the note gets what room is left.
        let _ = write_until(libc::STDERR_FILENO, note.as_bytes(), || {
            DEADLINE_NS.load(Ordering::SeqCst)
        });
    }
    // SAFETY: _exit ends the process without running destructors or atexit handlers, which
    // is what a process ending from another thread needs (the main thread may hold locks).
    unsafe { libc::_exit(i32::from(INTERRUPTED)) }
}

const CUT_NOTE: &str = "; stdout did not take the results within the bound, so they are cut";

/// Past the bound: the run's last word (the results so far), printed to stdout or written to
/// its output file; what the note on stderr says of it. `printed`: how far the run's own
/// print to stdout got (None: a print is still under way).
fn say_last_word(printed: Option<Printed>) -> Option<String> {
    const MEASURED: &str = "what the jobs had measured when they saw the stop (the running job is \
                            marked interrupted)";
    let gather_by = base()
        .checked_add(Duration::from_nanos(bound_ns()).saturating_sub(PRINT_ROOM))
        .unwrap_or_else(Instant::now);
    match (take_last_word(), printed) {
        (Some((word, LastWordTo::File(path))), _) => {
            let Some(text) = word(gather_by) else {
                return Some(format!(
                    "; {} was not written: no results so far could be had (the run had not \
                     begun, or a thread the CPU had left held them past the bound)",
                    path.display()
                ));
            };
            // Not synced: an fsync on a busy disk can take seconds, and a reader sees the old
            // file or the whole new one all the same (only a power cut could lose it).
            Some(
                match iofit_safefs::atomic::write_atomic_unsynced(&path, text.as_bytes()) {
                    Ok(()) => format!("; the results in {} are {MEASURED}", path.display()),
                    Err(e) => format!("; the results so far could not be written: {e}"),
                },
            )
        }
        (_, Some(Printed::Cut) | None) => Some(CUT_NOTE.to_string()),
        (Some((word, LastWordTo::Stdout)), _) => {
            let text = word(gather_by)?;
            Some(
                match write_until(libc::STDOUT_FILENO, text.as_bytes(), bound_ns) {
                    Ok(()) => format!("; the results printed are {MEASURED}"),
                    Err(_) => CUT_NOTE.to_string(),
                },
            )
        }
        (None, _) => None,
    }
}

/// Room the bound keeps for its note on stderr after the results' print has given up.
const NOTE_ROOM: Duration = Duration::from_millis(50);

/// The moment no print of results may pass: the bound less the room for the note, or the
/// moment a run gave up on a stdout that stopped taking its reports ([`give_up_stdout_at`]).
fn bound_ns() -> u64 {
    let bound = match DEADLINE_NS.load(Ordering::SeqCst) {
        u64::MAX => u64::MAX,
        at => at.saturating_sub(NOTE_ROOM.as_nanos() as u64),
    };
    bound.min(STDOUT_GIVEN_UP_NS.load(Ordering::SeqCst))
}

/// No print to stdout waits past this moment (ns since [`base`]): set when a run has ended and
/// stdout has not taken its `--status-interval` reports (a pipe whose reader stopped reading).
static STDOUT_GIVEN_UP_NS: AtomicU64 = AtomicU64::new(u64::MAX);

/// From `at` on, no print to stdout waits for room: a report under way gives up (cut), and
/// the results' print fails at once instead of holding the process for ever.
pub(crate) fn give_up_stdout_at(at: Instant) {
    STDOUT_GIVEN_UP_NS.fetch_min(ns_at(at), Ordering::SeqCst);
}

/// Prints an interim report (`--status-interval`) to stdout whole, never interleaved with
/// another print, waiting for room until a stop's bound or [`give_up_stdout_at`]. Unlike
/// [`print_results`] it leaves the command's last word in place: these are not the results.
pub(crate) fn print_status(text: &str) -> std::io::Result<()> {
    let mut printed = PRINTED.lock().unwrap_or_else(|e| e.into_inner());
    let result = write_until(libc::STDOUT_FILENO, text.as_bytes(), bound_ns);
    if result.is_err() {
        *printed = Printed::Cut;
    }
    result
}

fn take_last_word() -> Option<(LastWord, LastWordTo)> {
    let deadline = bound_ns();
    lock_until(&LAST_WORD, deadline).and_then(|mut word| word.take())
}

/// `mutex`'s guard, or None if it is still held at `deadline_ns` (a poisoned lock is taken:
/// what it guards stays consistent, it is only read or replaced whole).
fn lock_until<T>(mutex: &Mutex<T>, deadline_ns: u64) -> Option<MutexGuard<'_, T>> {
    loop {
        match mutex.try_lock() {
            Ok(guard) => return Some(guard),
            Err(std::sync::TryLockError::Poisoned(e)) => return Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => {
                if now_ns() >= deadline_ns {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// What the stop bound prints if the process must end before the command has printed its
/// results: `word` renders the results so far. Replaces an earlier one.
/// `output`: the command's `--output` file; without one the last word goes to stdout.
pub(crate) fn set_last_word(word: LastWord, output: Option<&std::path::Path>) {
    let to = match output {
        Some(path) => LastWordTo::File(path.to_path_buf()),
        None => LastWordTo::Stdout,
    };
    *LAST_WORD.lock().unwrap_or_else(|e| e.into_inner()) = Some((word, to));
}

/// [`set_last_word`] for a procedure of several runs (bench, a vdbench file): the results so
/// far, with the running run's from the returned live results (the executor's to fill), go to
/// `output` (or stdout).
pub(crate) fn set_last_word_so_far(
    so_far: std::sync::Arc<iofit_procedure::so_far::SoFar>,
    output: Option<&std::path::Path>,
) -> std::sync::Arc<iofit_engine::LiveResults> {
    let live = std::sync::Arc::new(iofit_engine::LiveResults::default());
    let running_live = std::sync::Arc::clone(&live);
    set_last_word(
        Box::new(move |by| {
            let running = running_live
                .interrupted_report(by)
                .map(|report| report.result);
            so_far.render(running.as_ref(), by)
        }),
        output,
    );
    live
}

/// The command has written its own results (to its output file): the bound has nothing to add.
pub(crate) fn clear_last_word() {
    LAST_WORD.lock().unwrap_or_else(|e| e.into_inner()).take();
}

/// Prints `text` (a command's results) to stdout whole, unless stdout does not take it before
/// the stop bound (a pipe nobody reads): then it gives up, and the error says so. The command's
/// last word is dropped once its results are out.
pub(crate) fn print_results(text: &str) -> std::io::Result<()> {
    if bound_ns() != u64::MAX {
        // A bounded stop is under way: the watchdog prints (see `Watch::Print`).
        let watchdog = WATCHDOG.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if let Some(watchdog) = watchdog {
            let (reply, answer) = mpsc::sync_channel(1);
            if watchdog.send(Watch::Print(text.to_string(), reply)).is_ok() {
                return answer.recv().unwrap_or_else(|_| {
                    Err(std::io::Error::other("the stop's watchdog did not print"))
                });
            }
        }
    }
    print_here(text)
}

/// [`print_results`] on the calling thread.
fn print_here(text: &str) -> std::io::Result<()> {
    let mut printed = PRINTED.lock().unwrap_or_else(|e| e.into_inner());
    let result = write_until(libc::STDOUT_FILENO, text.as_bytes(), bound_ns);
    *printed = if result.is_ok() {
        Printed::Whole
    } else {
        Printed::Cut
    };
    if result.is_ok() {
        let mut word = LAST_WORD.lock().unwrap_or_else(|e| e.into_inner());
        if matches!(word.as_ref(), Some((_, LastWordTo::Stdout))) {
            word.take();
        }
    }
    result
}

/// Writes `bytes` to `fd`, waiting for room with poll(2) so that no write blocks past
/// `deadline_ns()` (read again at every wait: a signal may set it while the write waits).
/// Writes at most one page at a time, which a pipe with any free room takes without blocking.
fn write_until(fd: RawFd, mut bytes: &[u8], deadline_ns: fn() -> u64) -> std::io::Result<()> {
    const PAGE: usize = 4096;
    // Without a deadline, look again this often whether one has been set.
    const RECHECK_MS: u64 = 100;
    while !bytes.is_empty() {
        let deadline = deadline_ns();
        let now = now_ns();
        if now >= deadline {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the output did not take the results before the stop bound",
            ));
        }
        let wait_ms = ((deadline - now) / 1_000_000).clamp(1, RECHECK_MS) as libc::c_int;
        let mut poll = libc::pollfd {
            fd,
            events: libc::POLLOUT,
            revents: 0,
        };
        // SAFETY: one valid pollfd, and its count; poll only writes its revents.
        let ready = unsafe { libc::poll(&mut poll, 1, wait_ms) };
        if ready < 0 {
            let error = std::io::Error::last_os_error();
            if error.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        if ready == 0 {
            continue;
        }
        let chunk = &bytes[..bytes.len().min(PAGE)];
        // SAFETY: writes from a live slice of chunk.len() bytes.
        let wrote = unsafe { libc::write(fd, chunk.as_ptr().cast(), chunk.len()) };
        if wrote < 0 {
            let error = std::io::Error::last_os_error();
            match error.kind() {
                std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock => continue,
                _ => return Err(error),
            }
        }
        bytes = &bytes[wrote as usize..];
    }
    Ok(())
}
