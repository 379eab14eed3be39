//! fio IO logs (versions 2 and 3, as `read_iolog=` replays them): any bytes as a log file,
//! read through as a replay does. Never a panic, and an error is one line.
#![no_main]
use iofit_engine::replay::scan;
use iofit_model::replay::ReplaySpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The replay reads a file; one per fuzzing process, rewritten for every input.
    let path = std::env::temp_dir().join(format!("iofit-fuzz-iolog-{}", std::process::id()));
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Err(error) = scan(&ReplaySpec::new(&path), 0) {
        assert!(!error.to_string().contains('\n'), "{error}");
    }
});
