//! `iostat -x` text straight into its parser (not through format detection), both ways of
//! treating the first report (the since-boot averages).
#![no_main]
use iofit_profile::iostat::{parse_iostat, IostatOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for keep_first_report in [false, true] {
        let options = IostatOptions { keep_first_report };
        if let Err(error) = parse_iostat(data, "fuzz.iostat", options) {
            assert!(!error.to_string().contains('\n'), "{error}");
        }
    }
});
