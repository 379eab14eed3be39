//! sysstat is the oracle for captures: the real `sar` records an sa file while this test writes
//! to the disk, the real `sadf` exports it in every form it has (`-d`, `-p`, each also with
//! `-U` epoch stamps, `-j`, `-x`, all of them with every activity, `-- -A`) and `sar -dp -f`
//! prints its text form. They hold the same counters, so `iofit profile` must size every volume
//! the same from each. Skipped, saying so, where sysstat is not installed (`.ci/run` installs it).

use iofit_testkit::iofit;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn installed(tool: &str) -> bool {
    Command::new(tool)
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Writes with O_DIRECT and fsync in `dir` until `until`, so the disk under it has IO to count.
fn write_until(dir: &Path, until: Instant) {
    let path = dir.join("load");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path)
        .or_else(|_| {
            // A file system without O_DIRECT (tmpfs): buffered writes and fsync instead.
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .open(&path)
        })
        .unwrap();
    // O_DIRECT wants a buffer aligned to the logical block: 256 KiB from a 4 KiB boundary.
    let backing = vec![0x5a_u8; (256 << 10) + 4096];
    let skip = backing.as_ptr().align_offset(4096);
    let buffer = &backing[skip..skip + (256 << 10)];
    let mut written = 0u64;
    while Instant::now() < until {
        if written > 256 << 20 {
            file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            written = 0;
        }
        file.write_all(buffer).unwrap();
        file.sync_data().unwrap();
        written += buffer.len() as u64;
    }
}

/// The `volumes` of `iofit profile FILE --json`: labels, sizing, observed percentiles and how
/// each number was derived.
fn volumes(file: &Path) -> serde_json::Value {
    let output = iofit()
        .args(["profile", "--json"])
        .arg(file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    json["volumes"].clone()
}

fn run_to_file(command: &mut Command, out: &Path) {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::write(out, &output.stdout).unwrap();
}

#[test]
fn every_form_sysstat_exports_of_one_sa_file_sizes_the_same() {
    if !installed("sar") || !installed("sadf") {
        eprintln!("skipping: sysstat (sar, sadf) is not installed");
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let sa = dir.path().join("sa.bin");
    let until = Instant::now() + Duration::from_secs(5);
    let load_dir = dir.path().to_path_buf();
    let load = std::thread::spawn(move || write_until(&load_dir, until));
    let recorded = Command::new("sar")
        .args(["-d", "-u", "-r", "-b", "-o"])
        .arg(&sa)
        .args(["1", "4"])
        .env("LC_ALL", "C")
        .output()
        .unwrap();
    load.join().unwrap();
    assert!(
        recorded.status.success(),
        "sar -o: {}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let forms: [(&str, &[&str]); 6] = [
        ("sadf-d.txt", &["-d"]),
        ("sadf-d-epoch.txt", &["-d", "-U"]),
        ("sadf-p.txt", &["-p"]),
        ("sadf-p-epoch.txt", &["-p", "-U"]),
        ("sadf-j.json", &["-j"]),
        ("sadf-x.xml", &["-x"]),
    ];
    let mut files = Vec::new();
    for (name, flags) in forms {
        let out = dir.path().join(name);
        run_to_file(
            Command::new("sadf")
                .args(flags)
                .arg(&sa)
                .args(["--", "-A"])
                .env("LC_ALL", "C"),
            &out,
        );
        files.push(out);
    }
    let text = dir.path().join("sar-dp.txt");
    run_to_file(
        Command::new("sar")
            .args(["-d", "-p", "-f"])
            .arg(&sa)
            .env("LC_ALL", "C"),
        &text,
    );
    files.push(text);
    let reference = volumes(&files[0]);
    let sized = reference.as_array().map_or(0, Vec::len);
    assert!(sized > 0, "no volume sized from {}", files[0].display());
    for file in &files[1..] {
        assert_eq!(
            volumes(file),
            reference,
            "{} sizes differently from {}",
            file.display(),
            files[0].display()
        );
    }
}
