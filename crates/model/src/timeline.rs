//! A volume's workload over a capture, report by report, as a result: `profile` reads it from
//! a capture (`iofit_profile::volume_timeline`), the reports draw it. It lives here, with no IO
//! behind it, so that a renderer needs no capture reader to take one.

use crate::units::{Iops, MBps, Millis, Seconds};

/// One report of one volume: its devices added up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimelinePoint {
    /// Seconds since the capture's start (the report's index x interval when the source has
    /// no times).
    pub time_s: Seconds,
    pub read_iops: Iops,
    pub write_iops: Iops,
    /// MB/s with 1 MB = 10^6 bytes (Azure's unit); NaN when the source has no byte counters.
    pub throughput_mb_s: MBps,
    /// Mean time per IO over the volume's devices, ms, each device weighted by its IOPS (the
    /// reads' and writes' own awaits when the source has them, its one await otherwise); NaN
    /// when the source has no latency or the volume was idle.
    pub latency_ms: Millis,
    /// IOs outstanding on the volume: the devices' average queue lengths (aqu-sz) added up,
    /// since a striped volume's queue is its members' queues together; NaN when not captured.
    pub queue_depth: f64,
}

impl TimelinePoint {
    /// Reads and writes per second together.
    pub fn iops(&self) -> f64 {
        (self.read_iops + self.write_iops).get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iops_adds_reads_and_writes() {
        let point = TimelinePoint {
            time_s: Seconds(5.0),
            read_iops: Iops(1200.0),
            write_iops: Iops(300.0),
            throughput_mb_s: MBps(f64::NAN),
            latency_ms: Millis(0.8),
            queue_depth: 2.0,
        };
        assert_eq!(point.iops(), 1500.0);
    }
}
