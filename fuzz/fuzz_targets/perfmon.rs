//! PerfMon / typeperf CSV (any bytes: UTF-8, UTF-16 with or without BOM, cp1251) straight into
//! its parser.
#![no_main]
use iofit_profile::perfmon::parse_perfmon;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(error) = parse_perfmon(data, "fuzz.csv") {
        assert!(!error.to_string().contains('\n'), "{error}");
    }
});
