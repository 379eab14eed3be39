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

/// The kernel's own overshoot allowed for when draining the modelled queue.
const SLACK: f64 = 0.05;

/// Bytes queued per direction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Queued {
    pub read_bytes: f64,
    pub write_bytes: f64,
}

impl Queued {
    /// The queue after `submitted` bytes (read, write) were counted in `elapsed_s` seconds
    /// under caps of `cap_bytes_s` (read, write; `None`: unlimited, nothing waits).
    pub fn after(
        self,
        submitted: (f64, f64),
        cap_bytes_s: (Option<f64>, Option<f64>),
        elapsed_s: f64,
    ) -> Queued {
        let next = |queued: f64, submitted: f64, cap: Option<f64>| match cap {
            Some(cap) => (queued + submitted - cap * (1.0 + SLACK) * elapsed_s).max(0.0),
            None => 0.0,
        };
        Queued {
            read_bytes: next(self.read_bytes, submitted.0, cap_bytes_s.0),
            write_bytes: next(self.write_bytes, submitted.1, cap_bytes_s.1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_at_once_waits_until_the_cap_has_let_it_out() {
        // 64 MiB of writes counted in one tick under a 10 MB/s write cap.
        let mut q = Queued::default().after((0.0, 67_108_864.0), (Some(1e7), Some(1e7)), 0.1);
        assert!((q.write_bytes - (67_108_864.0 - 1.05e6)).abs() < 1.0);
        assert_eq!(q.read_bytes, 0.0);
        let mut seconds = 0.1;
        while q.write_bytes > 0.0 {
            q = q.after((0.0, 0.0), (Some(1e7), Some(1e7)), 0.1);
            seconds += 0.1;
        }
        // 67 MB at 10.5 MB/s: 6.4 s.
        assert!((6.3..6.5).contains(&seconds), "{seconds}");
    }

    #[test]
    fn a_stream_at_the_cap_builds_no_queue() {
        let mut q = Queued::default();
        for _ in 0..1000 {
            // 4 % over the cap, as the kernel lets through.
            q = q.after((104_000.0, 0.0), (Some(1e6), Some(1e6)), 0.1);
        }
        assert_eq!(q, Queued::default());
    }

    #[test]
    fn nothing_waits_behind_no_cap() {
        let q = Queued::default().after((1e9, 1e9), (None, None), 0.1);
        assert_eq!(q, Queued::default());
    }
}
