//! fio's serialize_overlap: never two IOs in flight on overlapping bytes. Mock device (the
//! kernel does not say which IOs are in flight together, so a real one cannot be asked): it
//! records every queued IO and counts those that overlap one not yet completed, and completes
//! the oldest half of what is in flight at each reap, so the queue stays deep.

use iofit_engine::clock::FakeClock;
use iofit_engine::engine::{Completion, Engine, Op};
use iofit_engine::worker::{run_clone, ClonePlan, CloneShared, PacingPlan, ProgressCell};
use iofit_model::units::Bytes;
use iofit_stats::SeriesMerger;
use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

#[derive(Default)]
struct RecordingDevice {
    /// (slot, offset, len) queued or in flight, oldest first.
    flying: Vec<(u32, u64, u32)>,
    overlaps: u64,
    deepest: usize,
}

impl Engine for RecordingDevice {
    const INLINE: bool = false;
    fn execute(&mut self, _: u32, _: Op, _: u32, _: u64, _: u32) -> io::Result<usize> {
        unreachable!("queued engine")
    }
    fn queue(&mut self, slot: u32, _op: Op, _file: u32, offset: u64, len: u32) {
        let end = offset + len as u64;
        if self
            .flying
            .iter()
            .any(|&(_, o, l)| o < end && offset < o + l as u64)
        {
            self.overlaps += 1;
        }
        self.flying.push((slot, offset, len));
        self.deepest = self.deepest.max(self.flying.len());
    }
    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn reap(&mut self, _min: u32, _timeout_ns: u64, out: &mut Vec<Completion>) -> io::Result<()> {
        let done = self.flying.len().div_ceil(2);
        for (slot, _, len) in self.flying.drain(..done) {
            out.push(Completion {
                slot,
                result: len as i64,
            });
        }
        Ok(())
    }
    fn sync_file(&mut self, _: u32, _: bool) -> io::Result<()> {
        Ok(())
    }
}

fn plan(serialize_overlap: bool) -> ClonePlan {
    ClonePlan {
        // A 16 KiB file of 4 KiB blocks, 32 IOs wanted in flight.
        rwmix_read_pct: 0.0,
        norandommap: true,
        depth: 32,
        budget_bytes: Some(Bytes(2000 * 4096)),
        pacing: PacingPlan {
            serialize_overlap,
            ..PacingPlan::default()
        },
        ..ClonePlan::random_reads("overlap", "x", 16 << 10)
    }
}

fn run(serialize_overlap: bool) -> (u64, RecordingDevice) {
    let clock = FakeClock::new(1_000);
    let mut device = RecordingDevice::default();
    let stop = AtomicBool::new(false);
    let progress = ProgressCell::default();
    let series = Mutex::new(SeriesMerger::new(1_000_000_000, 1));
    let shared = CloneShared {
        stop: &stop,
        end_set: None,
        progress: &progress,
        series: &series,
        start: None,
    };
    let out = run_clone(&mut device, &clock, &plan(serialize_overlap), &shared);
    assert!(out.error.is_none(), "{:?}", out.error);
    (out.write.ios, device)
}

#[test]
fn no_two_ios_in_flight_overlap() {
    let (ios, device) = run(true);
    assert_eq!(ios, 2000, "every IO ran");
    assert_eq!(device.overlaps, 0);
    assert!(
        device.deepest <= 4,
        "at most one IO per block: {}",
        device.deepest
    );
    assert!(device.deepest >= 2, "still a queue: {}", device.deepest);
    // Without it, the same job overlaps at once.
    let (ios, device) = run(false);
    assert_eq!(ios, 2000);
    assert!(device.overlaps > 1000, "{}", device.overlaps);
}
