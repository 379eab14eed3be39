//! fio job files: any text either parses into jobs or gives a one-line error; never a panic.
#![no_main]
use iofit_jobfile::fio::{parse_str, ParseOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for ignore_unknown in [false, true] {
        let opts = ParseOptions {
            ignore_unknown,
            // No target is opened: only the parser is under test.
            skip_target_checks: true,
            ..ParseOptions::default()
        };
        match parse_str(text, "fuzz.fio", &opts) {
            // With the target checks skipped (fio's --parse-only), a file of only [global]
            // sections, or of nothing, is accepted with no jobs, as fio accepts it; every job
            // that is returned has a name and a block size.
            Ok(jobs) => assert!(jobs
                .iter()
                .all(|job| !job.name.is_empty() && job.block_size.max_size().as_u64() > 0)),
            Err(error) => assert!(!error.to_string().contains('\n')),
        }
    }
});
