//! SIGINT, SIGTERM and SIGHUP delivered to a thread, each with the moment the kernel delivered
//! it. The stop bound ([`crate::stop`]) counts from that moment, not from when a thread got
//! round to it: on a loaded CPU the thread that answers a signal can wait its turn for hundreds
//! of milliseconds, and a bound counted from then would let a run end that much later than
//! promised.
//!
//! The handler itself only reads CLOCK_MONOTONIC (the clock `std::time::Instant` reads on
//! Linux) and writes the reading to a pipe; both are async-signal-safe. A thread reads the pipe
//! and calls the answer with the moment as an `Instant`.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// The pipe's write end, for the handler (-1 before [`install`]).
static PIPE_WRITE: AtomicI32 = AtomicI32::new(-1);

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

fn monotonic_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own; it is async-signal-safe.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(now.tv_nsec as u64)
}

extern "C" fn on_raw_signal(_signal: libc::c_int) {
    // SAFETY: errno is thread-local; the handler keeps the interrupted code's value.
    let saved_errno = unsafe { *libc::__errno_location() };
    let at_ns = monotonic_ns().to_ne_bytes();
    let fd = PIPE_WRITE.load(Ordering::Relaxed);
    // SAFETY: write(2) of 8 bytes we own to our pipe; async-signal-safe. A pipe takes writes
    // of up to PIPE_BUF bytes whole. It is non-blocking: were it full (8,192 signals unread),
    // this signal is dropped, which changes nothing (the stop is under way already).
    let _ = unsafe { libc::write(fd, at_ns.as_ptr().cast(), at_ns.len()) };
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = saved_errno };
}

/// The `Instant` of a CLOCK_MONOTONIC reading taken earlier.
fn instant_of(at_ns: u64) -> Instant {
    let ago = Duration::from_nanos(monotonic_ns().saturating_sub(at_ns));
    let now = Instant::now();
    now.checked_sub(ago).unwrap_or(now)
}

/// Installs the handlers; `answer` is called on a thread of its own with the moment of each
/// signal. Fails only if the system gives no pipe, thread or handler.
pub(crate) fn install(answer: fn(Instant)) -> std::io::Result<()> {
    let mut fds: [RawFd; 2] = [-1, -1];
    // SAFETY: pipe2 fills the two descriptors of an array we own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    let [read_fd, write_fd] = fds;
    // SAFETY: fcntl on the descriptor just made.
    unsafe { libc::fcntl(write_fd, libc::F_SETFL, libc::O_NONBLOCK) };
    PIPE_WRITE.store(write_fd, Ordering::SeqCst);
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || read_signals(read_fd, answer))?;
    for signal in SIGNALS {
        // SAFETY: a zeroed sigaction is valid; the handler is an extern "C" fn(c_int) that
        // only does async-signal-safe work. SA_RESTART: system calls the signal interrupts
        // resume (the stop flag, not EINTR, is how a run learns of it).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_raw_signal as extern "C" fn(libc::c_int) as usize;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            if libc::sigaction(signal, &action, std::ptr::null_mut()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

fn read_signals(read_fd: RawFd, answer: fn(Instant)) {
    loop {
        let mut at_ns = [0u8; 8];
        // SAFETY: reads into 8 bytes we own from our pipe.
        let got = unsafe { libc::read(read_fd, at_ns.as_mut_ptr().cast(), at_ns.len()) };
        match got {
            8 => answer(instant_of(u64::from_ne_bytes(at_ns))),
            n if n < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            // The write end lives as long as the process: not reached.
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_becomes_the_instant_it_was_taken() {
        let taken = Instant::now();
        let at_ns = monotonic_ns();
        std::thread::sleep(Duration::from_millis(30));
        let back = instant_of(at_ns);
        // Instant reads the same clock: the two moments are microseconds apart.
        let apart = if back > taken {
            back - taken
        } else {
            taken - back
        };
        assert!(apart < Duration::from_millis(5), "{apart:?}");
        assert!(back.elapsed() >= Duration::from_millis(30));
    }
}
