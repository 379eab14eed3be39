use super::*;
use iofit_engine::RunReport;
use iofit_stats::{JobResult, VerifyResult};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

fn progress(elapsed_ms: u64, planned_ms: Option<u64>, bytes: u64, budget: Option<u64>) -> Progress {
    Progress {
        set_index: 0,
        sets: 1,
        elapsed: Duration::from_millis(elapsed_ms),
        planned: planned_ms.map(Duration::from_millis),
        ios: bytes / 4096,
        bytes: iofit_model::units::Bytes(bytes),
        budget_bytes: budget.map(iofit_model::units::Bytes),
    }
}

#[test]
fn eta_is_the_planned_time_left_never_more() {
    // An 8 s run: 8 s left at its start, 4 s halfway, 0 at the end and after.
    assert_eq!(eta_text(&progress(0, Some(8000), 0, None)), "ETA 8s");
    assert_eq!(
        eta_text(&progress(4000, Some(8000), 1 << 30, None)),
        "ETA 4s"
    );
    assert_eq!(
        eta_text(&progress(9000, Some(8000), 1 << 30, None)),
        "ETA 0s"
    );
    assert_eq!(eta_text(&progress(0, Some(150_000), 0, None)), "ETA 2m30s");
    // Size-bounded: a quarter moved in 1 s leaves 3 s at that rate.
    assert_eq!(eta_text(&progress(1000, None, 256, Some(1024))), "ETA 3s");
    assert_eq!(eta_text(&progress(0, None, 0, Some(1024))), "ETA -");
    let mut second_of_two = progress(1000, Some(3000), 0, None);
    second_of_two.sets = 2;
    assert_eq!(eta_text(&second_of_two), "ETA 2s (this set)");
}

#[test]
fn layout_says_bytes_and_rate() {
    assert_eq!(
        layout_done_text(1 << 30, Duration::from_secs(5)),
        "laid out 1.0 GiB in 5.0 s (214.7 MB/s)"
    );
    assert_eq!(mib_text(3 << 19), "1.5 MiB");
    assert_eq!(
        layout_progress_text(512 << 20, 1 << 30, Duration::from_secs(5)),
        "laying out 512.0 MiB of 1.0 GiB (107.4 MB/s)"
    );
    assert_eq!(
        layout_progress_text(0, 1 << 30, Duration::ZERO),
        "laying out 0.0 MiB of 1.0 GiB"
    );
    assert_eq!(
        layout_start_text(2, 1 << 30),
        "laying out 2 file(s), 1.0 GiB, before timing starts"
    );
}

#[test]
fn the_meter_shows_rates_since_the_event_before() {
    let mut meter = ProgressMeter::default();
    let start = Instant::now();
    // First event: no rate yet; a timed set's bar is in milliseconds of its planned time.
    let first = meter.view(&progress(1000, Some(4000), 4096 * 1000, None), start);
    assert_eq!((first.position, first.length), (1000, 4000));
    assert_eq!(first.message, "ETA 3s  set 1/1  IOPS=0  0.0 MB/s");
    // Half a second later, 500 more 4 KiB IOs: 1,000 IOPS, 4.1 MB/s.
    let second = meter.view(
        &progress(1500, Some(4000), 4096 * 1500, None),
        start + Duration::from_millis(500),
    );
    assert_eq!(second.message, "ETA 3s  set 1/1  IOPS=1000  4.1 MB/s");
    // A size-bounded set's bar is in bytes, never past its end.
    let sized = meter.view(
        &progress(2000, None, 8192, Some(4096)),
        start + Duration::from_millis(1000),
    );
    assert_eq!((sized.position, sized.length), (4096, 4096));
}

#[test]
fn a_stalled_printer_skips_reports_and_is_given_up_on() {
    // The printer takes the first report and then blocks until it is given up on.
    let (release, released) = mpsc::channel::<()>();
    let released = Mutex::new(released);
    let printed = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&printed);
    let mut pump = StatusPump::start(move |text| {
        seen.lock().unwrap().push(text.to_string());
        let _ = released.lock().unwrap().recv();
        Err(std::io::Error::other("given up"))
    })
    .unwrap();
    assert_eq!(pump.offer("one".into()), Offered::Handed);
    // Wait until the thread holds the first (blocked in print): the second then waits.
    while printed.lock().unwrap().is_empty() {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(pump.offer("two".into()), Offered::Handed);
    assert_eq!(pump.offer("three".into()), Offered::Skipped { first: true });
    assert_eq!(pump.offer("four".into()), Offered::Skipped { first: false });
    let mut gave_up = false;
    let outcome = pump.finish(Duration::from_millis(20), || {
        gave_up = true;
        release.send(()).unwrap();
    });
    assert!(gave_up);
    assert_eq!(
        outcome,
        StatusOutcome {
            offered: 4,
            skipped: 2,
            stalled: true
        }
    );
    // The printer stopped at its error: "two" was never printed.
    assert_eq!(*printed.lock().unwrap(), vec!["one".to_string()]);
}

#[test]
fn a_printer_that_keeps_up_is_not_stalled() {
    let printed = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&printed);
    let mut pump = StatusPump::start(move |text| {
        seen.lock().unwrap().push(text.to_string());
        Ok(())
    })
    .unwrap();
    pump.offer("one".into());
    let outcome = pump.finish(Duration::from_secs(5), || panic!("not given up"));
    assert!(!outcome.stalled);
    assert_eq!(outcome.offered, 1);
    assert_eq!(*printed.lock().unwrap(), vec!["one".to_string()]);
}

#[test]
fn a_stalled_stdout_keeps_the_results_from_it() {
    let stalled = StatusOutcome {
        offered: 5,
        skipped: 3,
        stalled: true,
    };
    let (notes, ending) = status_ending(&stalled, true, false, Duration::from_millis(1000));
    assert_eq!(
        notes,
        vec![Note::StatusReportsSkipped {
            skipped: 3,
            offered: 5
        }]
    );
    assert_eq!(
        notes[0].to_string(),
        "skipped 3 of 5 --status-interval reports: stdout did not take them"
    );
    let ending = ending.unwrap();
    assert_eq!(ending.exit, Exit::Failed);
    assert_eq!(ending.notes, vec![Note::StdoutStalled { bound_ms: 1000 }]);
    assert_eq!(
        ending.notes[0].to_string(),
        "error: stdout took nothing within 1000 ms of the run's end (its reader is not \
         reading), so the results are not printed; give --output FILE to keep them"
    );
    let (_, interrupted) = status_ending(&stalled, true, true, Duration::from_millis(1000));
    assert_eq!(interrupted.unwrap().exit, Exit::Interrupted);
    // With --output the results are in the file: the run ends as its jobs did.
    let (_, to_file) = status_ending(&stalled, false, false, Duration::from_millis(1000));
    assert!(to_file.is_none());
    let (quiet_notes, none) = status_ending(&StatusOutcome::default(), true, false, Duration::ZERO);
    assert!(quiet_notes.is_empty() && none.is_none());
}

fn results(jobs: Vec<JobResult>, failed: &[&str], interrupted: bool) -> FioRunResults {
    let mut report = RunReport::default();
    report.result.jobs = jobs;
    FioRunResults {
        report,
        text: String::new(),
        interrupted,
        failed_jobs: failed.iter().map(|s| s.to_string()).collect(),
        report_written: None,
    }
}

#[test]
fn the_ending_puts_interruption_then_bad_data_then_failures() {
    let bad = JobResult {
        name: "v".into(),
        verify: Some(VerifyResult {
            bad_units: 2,
            ..VerifyResult::default()
        }),
        ..JobResult::default()
    };
    let good = JobResult {
        name: "g".into(),
        ..JobResult::default()
    };
    let interrupted = fio_ending(&results(vec![bad.clone()], &["g"], true), false);
    assert_eq!(interrupted.exit, Exit::Interrupted);
    assert_eq!(interrupted.notes, vec![Note::Interrupted]);
    assert_eq!(
        interrupted.notes[0].to_string(),
        "interrupted; the results cover what ran before Ctrl-C"
    );
    assert!(fio_ending(&results(vec![], &[], true), true)
        .notes
        .is_empty());
    let data = fio_ending(&results(vec![bad, good.clone()], &["g"], false), false);
    assert_eq!(data.exit, Exit::DataErrors);
    assert_eq!(
        data.notes,
        vec![Note::BadData {
            jobs: vec!["v (2 bad units)".into()]
        }]
    );
    assert_eq!(
        data.notes[0].to_string(),
        "error: data verification found bad data in job(s) v (2 bad units) (see the results)"
    );
    let failed = fio_ending(&results(vec![good.clone()], &["g"], false), false);
    assert_eq!(failed.exit, Exit::Failed);
    assert_eq!(
        failed.notes,
        vec![Note::JobsFailed {
            jobs: vec!["g".into()]
        }]
    );
    assert_eq!(
        failed.notes[0].to_string(),
        "error: job(s) g stopped on an IO error (see the results)"
    );
    assert_eq!(
        fio_ending(&results(vec![good], &[], false), false),
        Ending::quiet(Exit::Success)
    );
}
