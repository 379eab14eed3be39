//! Azure Monitor metrics: the `az monitor metrics list` / REST JSON reader and the metrics
//! explorer CSV reader, called directly (format detection would route most inputs elsewhere).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = iofit_profile::azure::parse_azure_json(data, "fuzz.json");
    let text = String::from_utf8_lossy(data);
    let _ = iofit_profile::azure::parse_azure_csv(&text, "fuzz.csv");
});
