//! A process that must end at once (a stop past its bound) publishes the logs it is writing
//! up to that point, stamped as iofit's, instead of removing them with the other unfinished
//! outputs; a result file still being written is removed. (One test in its own binary: the
//! registry is process-wide and stays locked after `remove_unfinished`.)

use iofit_safefs::atomic::{remove_unfinished, AtomicFile};
use iofit_safefs::output::{is_earlier_output, OutputFile, OutputKind};
use std::io::Write;

#[test]
fn a_log_is_published_up_to_the_stop_and_a_result_removed() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("trace.log");
    let mut writer = OutputFile::create(&log, OutputKind::IoLog, false)
        .unwrap()
        .keep_on_drop();
    writer
        .write_all(b"fio version 3 iolog\n0 /f add\n")
        .unwrap();
    let result = dir.path().join("result.json");
    let mut half = AtomicFile::create(&result).unwrap();
    half.write_all(b"{\"half\": ").unwrap();

    assert_eq!(remove_unfinished(), 1, "only the result file is removed");
    assert_eq!(
        std::fs::read(&log).unwrap(),
        b"fio version 3 iolog\n0 /f add\n"
    );
    assert!(
        is_earlier_output(&log, OutputKind::IoLog),
        "stamped as iofit's log"
    );
    assert!(!result.exists());
    // The writers are abandoned, as the process ends without running destructors.
    std::mem::forget(writer);
    std::mem::forget(half);
}
