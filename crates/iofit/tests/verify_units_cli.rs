//! The verify unit fio 3.33 settles on (`fixup_options`, init.c) when a job does not give a
//! usable `verify_interval`: several write sizes without one (fio's t/jobs t0002), one larger
//! than the block (t0004). Checked by effect: how many units a clean run checks, and where a
//! flipped byte is reported.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn run(dir: &Path, body: &str) -> (i32, Value) {
    let file = dir.join("job.fio");
    std::fs::write(&file, format!("[v]\nfilename=data\nverify=crc32c\n{body}")).unwrap();
    let out = dir.join("out.json");
    let status = Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .current_dir(dir)
        .args(["run", "--quiet", "--output-format=json", "--output"])
        .arg(&out)
        .arg(&file)
        .status()
        .unwrap();
    let json = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    (status.code().unwrap_or(-1), json)
}

fn verify(json: &Value) -> &Value {
    &json["jobs"][0]["iofit"]["verify"]
}

#[test]
fn several_block_sizes_without_verify_interval_verify_in_the_smallest() {
    let dir = tempfile::tempdir().unwrap();
    // 1 MiB written in 4k and 64k blocks: units of 4k, up to 256 of them (in 64k units there
    // would be 16). A 64k block that does not fit before the end wraps to the start, so the
    // last few units may stay unwritten.
    let (code, json) = run(dir.path(), "size=1m\nrw=write\nbssplit=4k/50:64k/50\n");
    assert_eq!(code, 0, "{json}");
    let units = verify(&json)["units_checked"].as_u64().unwrap();
    assert!((240..=256).contains(&units), "{units}");
    assert_eq!(verify(&json)["bad_units"], 0);
}

#[test]
fn a_verify_interval_above_the_block_size_becomes_the_block_size() {
    let dir = tempfile::tempdir().unwrap();
    // bs=512 with verify_interval=1m: fio verifies each 512-byte block.
    let (code, json) = run(
        dir.path(),
        "size=64k\nrw=write\nbs=512\nverify_interval=1m\n",
    );
    assert_eq!(code, 0, "{json}");
    assert_eq!(verify(&json)["units_checked"], 128);
}

#[test]
fn a_smaller_verify_interval_puts_a_header_in_every_interval() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let body =
        "size=64k\nrw=write\nbs=16k\nverify_interval=512\ndo_verify=0\nverify_state_save=1\n";
    let (code, _) = run(d, body);
    assert_eq!(code, 0);
    // Flip a byte 700 bytes into the file: in the second 512-byte unit of the first 16k block.
    let path = d.join("data");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[700] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let check =
        "size=64k\nrw=write\nbs=16k\nverify_interval=512\nverify_only=1\nverify_state_load=1\n";
    let (code, json) = run(d, check);
    assert_eq!(code, 4, "{json}");
    assert_eq!(verify(&json)["units_checked"], 128);
    assert_eq!(verify(&json)["bad_units"], 1);
    let error = &verify(&json)["errors"][0];
    assert_eq!(
        (&error["offset"], &error["length"]),
        (&512.into(), &512.into())
    );
}
