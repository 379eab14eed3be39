//! iostat, sar, sadf and PerfMon captures (the profile crate's format detection picks one).
#![no_main]
use iofit_profile::{parse_bytes, ParseOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for keep_first_report in [false, true] {
        let _ = parse_bytes(data, "fuzz.txt", &ParseOptions { keep_first_report });
    }
});
