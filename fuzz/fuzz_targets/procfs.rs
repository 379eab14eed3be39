//! /proc/diskstats, /proc/stat and /proc/meminfo parsers used by live profiling.
#![no_main]
use iofit_profile::procfs::{parse_diskstats, parse_meminfo, parse_stat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = parse_diskstats(text, "diskstats");
    let _ = parse_stat(text, "stat");
    let _ = parse_meminfo(text, "meminfo");
});
