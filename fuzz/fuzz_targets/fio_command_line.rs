//! fio-style command-line jobs (`--name=a --rw=randread ...`), split on whitespace.
#![no_main]
use iofit_jobfile::fio::{parse_command_line, ParseOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let args: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    if let Err(error) = parse_command_line(&args, &ParseOptions::default()) {
        assert!(!error.to_string().contains('\n'));
    }
});
