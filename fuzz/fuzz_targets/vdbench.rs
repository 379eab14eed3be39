//! vdbench parameter files: parse, check hosts, expand runs and lower every run to jobs.
#![no_main]
use iofit_jobfile::vdbench::parse_str;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let file = match parse_str(text, "fuzz.vdb") {
        Ok(file) => file,
        Err(error) => {
            assert!(!error.to_string().contains('\n'));
            return;
        }
    };
    // Every host counts as local here: name resolution is not what is being fuzzed.
    let _ = file.check_hosts(|_| true);
    if let Ok(runs) = file.runs() {
        for run in runs.iter().take(64) {
            let _ = run.to_jobs(None);
            let _ = run.to_jobs(Some(1000.0));
        }
    }
});
