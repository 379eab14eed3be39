//! User-defined Iometer access specifications (TOML).
#![no_main]
use iofit_jobfile::iometer::{parse_specs, preset_to_jobs};
use libfuzzer_sys::fuzz_target;
use std::path::Path;
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_specs(text, "fuzz.toml") {
        Ok(specs) => {
            for spec in &specs {
                let jobs = preset_to_jobs(spec, Path::new("/tmp"), 3, 128, Duration::from_secs(1), spec.request_size);
                assert_eq!(jobs.len(), 1);
            }
        }
        Err(error) => assert!(!error.to_string().contains('\n')),
    }
});
