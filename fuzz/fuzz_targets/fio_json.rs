//! fio JSON results (fio's own or iofit's) as `compare` reads them back.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match iofit_verdict::read_results(text, "fuzz.json") {
        Ok(result) => {
            for job in &result.jobs {
                assert!(job.read.iops.is_finite() || job.read.iops.is_nan());
            }
        }
        Err(error) => assert!(!error.to_string().contains('\n'), "{error}"),
    }
});
