//! `sar -d` text and `sadf -d` output straight into their parsers.
#![no_main]
use iofit_profile::sar::{parse_sadf, parse_sar};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(error) = parse_sar(data, "fuzz.sar") {
        assert!(!error.to_string().contains('\n'), "{error}");
    }
    if let Err(error) = parse_sadf(data, "fuzz.sadf") {
        assert!(!error.to_string().contains('\n'), "{error}");
    }
});
