//! What the kernel's throttle is holding back in one direction of one device.
//!
//! cgroup v1 on current kernels counts a request when it is submitted, before the throttle
//! delays it: a 64 MiB file written at once shows up in one tick and then never again while the
//! throttle lets it out at the cap. Seen from the counters alone that direction looks idle, so
//! it would keep only the sliver an idle direction gets and the writes would drain at it for
//! minutes (seen here: fio's layout of a 64 MiB file stalled for 40 s). So the throttle's queue
//! is modelled: what was submitted, less what the cap in force lets out, never below zero. The
//! kernel lets a few % more through than the cap (about 4 % measured here), so the queue is
//! drained at the cap plus `SLACK`: a saturated stream does not build a queue in the model that
//! it does not have. (The device's own completions cannot tell instead: the file system's
//! journal and writeback nobody charged to the cgroup land there too.)

use iofit_model::units::BytesPerSecond;

/// The kernel's own overshoot allowed for when draining the modelled queue.
const SLACK: f64 = 0.05;

/// Bytes and requests queued per direction. The kernel holds a request back until both its
/// direction's caps (requests and bytes per second) allow it, so each is modelled.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Queued {
    // Bare f64: a modelled queue drains by fractions of a byte per tick; `Bytes` is whole.
    pub read_bytes: f64,
    pub write_bytes: f64,
    pub read_ios: f64,
    pub write_ios: f64,
}

/// What one direction submitted in a tick, and its caps in force (`None`: unlimited).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Submitted {
    // Bare f64, as `Queued`'s bytes: the modelled queue it feeds holds fractions of a byte.
    pub bytes: f64,
    pub ios: f64,
    pub cap_bytes_s: Option<BytesPerSecond>,
    /// Requests per second.
    pub cap_ios_per_s: Option<f64>,
}

impl Queued {
    /// The queue after a tick of `elapsed_s` seconds in which `read` and `write` were counted.
    pub fn after(self, read: Submitted, write: Submitted, elapsed_s: f64) -> Queued {
        let next = |queued: f64, submitted: f64, cap: Option<f64>| match cap {
            Some(cap) => (queued + submitted - cap * (1.0 + SLACK) * elapsed_s).max(0.0),
            None => 0.0,
        };
        Queued {
            read_bytes: next(self.read_bytes, read.bytes, read.cap_bytes_s.map(|c| c.0)),
            write_bytes: next(
                self.write_bytes,
                write.bytes,
                write.cap_bytes_s.map(|c| c.0),
            ),
            read_ios: next(self.read_ios, read.ios, read.cap_ios_per_s),
            write_ios: next(self.write_ios, write.ios, write.cap_ios_per_s),
        }
    }

    /// Whether requests of each direction (read, write) wait behind a cap.
    pub fn waiting(&self) -> (bool, bool) {
        (
            self.read_bytes > 0.0 || self.read_ios > 0.0,
            self.write_bytes > 0.0 || self.write_ios > 0.0,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writes(bytes: f64, ios: f64, cap_bytes_s: f64, cap_ios_per_s: f64) -> Submitted {
        Submitted {
            bytes,
            ios,
            cap_bytes_s: Some(BytesPerSecond(cap_bytes_s)),
            cap_ios_per_s: Some(cap_ios_per_s),
        }
    }

    #[test]
    fn a_file_written_at_once_waits_until_the_cap_has_let_it_out() {
        // 64 MiB of 1 MiB writes counted in one tick under a 10 MB/s, 1,000 IOPS write cap.
        let none = Submitted::default();
        let mut q = Queued::default().after(none, writes(67_108_864.0, 64.0, 1e7, 1e3), 0.1);
        assert!((q.write_bytes - (67_108_864.0 - 1.05e6)).abs() < 1.0);
        assert_eq!(q.read_bytes, 0.0);
        assert_eq!(q.waiting(), (false, true));
        let mut seconds = 0.1;
        while q.waiting().1 {
            q = q.after(none, writes(0.0, 0.0, 1e7, 1e3), 0.1);
            seconds += 0.1;
        }
        // 67 MB at 10.5 MB/s: 6.4 s.
        assert!((6.3..6.5).contains(&seconds), "{seconds}");
    }

    #[test]
    fn requests_wait_behind_a_small_iops_cap_whatever_their_bytes() {
        // 16 writes of 256 KiB under 10 IOPS and an ample 100 MB/s: 1.5 s of waiting.
        let none = Submitted::default();
        let mut q = Queued::default().after(none, writes(4_194_304.0, 16.0, 1e8, 10.0), 0.1);
        assert_eq!(q.write_bytes, 0.0);
        assert!(q.waiting().1);
        for _ in 0..13 {
            q = q.after(none, writes(0.0, 0.0, 1e8, 10.0), 0.1);
        }
        assert!(q.waiting().1, "1.4 s: {q:?}");
        q = q.after(none, writes(0.0, 0.0, 1e8, 10.0), 0.1);
        q = q.after(none, writes(0.0, 0.0, 1e8, 10.0), 0.1);
        assert!(!q.waiting().1, "1.6 s: {q:?}");
    }

    #[test]
    fn a_stream_at_the_cap_builds_no_queue() {
        let mut q = Queued::default();
        for _ in 0..1000 {
            // 4 % over the cap, as the kernel lets through.
            let read = writes(104_000.0, 104.0, 1e6, 1e3);
            q = q.after(read, Submitted::default(), 0.1);
        }
        assert_eq!(q, Queued::default());
    }

    #[test]
    fn nothing_waits_behind_no_cap() {
        let free = Submitted {
            bytes: 1e9,
            ios: 1e6,
            ..Default::default()
        };
        let q = Queued::default().after(free, free, 0.1);
        assert_eq!(q, Queued::default());
    }
}
