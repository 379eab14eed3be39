//! fio's continue_on_error/ignore_error rules in the clone loop. Mock device (a real one that
//! fails chosen IOs with chosen errnos needs root and device-mapper; the CLI test
//! `errors_cli.rs` runs into real ENOSPC on a tmpfs): an inline device that fails every 4th IO
//! with one errno.

use iofit_engine::clock::FakeClock;
use iofit_engine::engine::{Completion, Engine, Op};
use iofit_engine::worker::{run_clone, CloneOutput, ClonePlan, CloneShared, ProgressCell};
use iofit_model::job::ErrorPolicy;
use iofit_model::units::Bytes;
use iofit_stats::SeriesMerger;
use std::io;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

struct FailingDevice {
    errno: i32,
    ios: u64,
}

impl Engine for FailingDevice {
    const INLINE: bool = true;
    fn execute(&mut self, _: u32, _: Op, _: u32, _: u64, len: u32) -> io::Result<usize> {
        self.ios += 1;
        if self.ios.is_multiple_of(4) {
            Err(io::Error::from_raw_os_error(self.errno))
        } else {
            Ok(len as usize)
        }
    }
    fn queue(&mut self, _: u32, _: Op, _: u32, _: u64, _: u32) {
        unreachable!("inline engine")
    }
    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn reap(&mut self, _: u32, _: u64, _: &mut Vec<Completion>) -> io::Result<()> {
        Ok(())
    }
    fn sync_file(&mut self, _: u32, _: bool) -> io::Result<()> {
        Ok(())
    }
}

/// 400 IOs of 4 KiB (reads, or writes when `write`) on a device failing every 4th with `errno`.
fn run(write: bool, errno: i32, errors: ErrorPolicy) -> CloneOutput {
    let plan = ClonePlan {
        rwmix_read_pct: if write { 0.0 } else { 100.0 },
        budget_bytes: Some(Bytes(400 * 4096)),
        errors,
        ..ClonePlan::random_reads("errors", "x", 1 << 20)
    };
    let clock = FakeClock::new(1_000);
    let mut device = FailingDevice { errno, ios: 0 };
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
    run_clone(&mut device, &clock, &plan, &shared)
}

fn policy(continue_on: u8, write_list: Option<Vec<i32>>) -> ErrorPolicy {
    ErrorPolicy {
        continue_on,
        ignore: [None, write_list, None],
        quiet: false,
    }
}

#[test]
fn a_listed_error_of_a_continued_type_is_counted_and_the_job_goes_on() {
    let out = run(
        true,
        libc::ENOSPC,
        policy(ErrorPolicy::WRITE, Some(vec![libc::ENOSPC])),
    );
    assert!(out.error.is_none(), "{:?}", out.error);
    // Every IO was issued; the failed ones are counted as errors, not as IOs.
    assert_eq!(out.write.ios + out.total_err, 400);
    assert_eq!(out.total_err, 100);
    assert_eq!(out.first_error, libc::ENOSPC);
    assert_eq!(out.write.io_bytes, iofit_model::Bytes(300 * 4096));
    assert_eq!(out.error_lines.len(), 16, "capped");
    // fio's default list for a continued type is EIO and EILSEQ.
    let out = run(false, libc::EIO, policy(ErrorPolicy::READ, None));
    assert!(out.error.is_none());
    assert_eq!(
        (out.read.ios, out.total_err, out.first_error),
        (300, 100, libc::EIO)
    );
}

#[test]
fn other_errors_stop_the_job_at_the_first() {
    for (write, errno, errors) in [
        // ENOSPC is not in the default list.
        (true, libc::ENOSPC, policy(ErrorPolicy::WRITE, None)),
        // A write error when only reads continue.
        (true, libc::EIO, policy(ErrorPolicy::READ, None)),
        // Not in the write list given.
        (
            true,
            libc::EIO,
            policy(ErrorPolicy::WRITE, Some(vec![libc::ENOSPC])),
        ),
        // The default: stop at any error.
        (false, libc::EIO, ErrorPolicy::default()),
    ] {
        let out = run(write, errno, errors.clone());
        let error = out.error.as_deref().unwrap_or_default();
        assert!(!error.is_empty(), "{errors:?}");
        assert_eq!(out.total_err, 0, "{errors:?}");
        assert_eq!(
            out.read.ios + out.write.ios,
            3,
            "{errors:?}: stopped at the 4th IO"
        );
    }
}
