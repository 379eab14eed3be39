//! fio's `continue_on_error`, `ignore_error` and `error_dump` on real IO errors: a write job
//! on a small tmpfs runs into ENOSPC, and goes on or stops as fio's rules say; the JSON's
//! `total_err`/`first_error`, the text `errors` line and the terse fields count the errors.

use assert_cmd::Command;
use iofit_testkit::Tmpfs;
use serde_json::Value;
use std::time::Duration;

/// Runs `options` as a 2 MiB sequential 64 KiB write job on a fresh 1 MiB tmpfs: half of its
/// writes find the file system full. Exit code, stdout, and whether it could run at all.
fn run_full(options: &str, format: &str) -> Option<(Option<i32>, String)> {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_tmpfs) = Tmpfs::mount(&mnt, "1m") else {
        eprintln!("continue_on_error: cannot mount a tmpfs here (needs root); not run");
        return None;
    };
    let job = dir.path().join("job.fio");
    std::fs::write(
        &job,
        format!(
            "[w]\ndirectory={}\nfilename=f\nsize=2m\nbs=64k\nrw=write\n{options}",
            mnt.display()
        ),
    )
    .unwrap();
    let output = Command::cargo_bin("iofit")
        .unwrap()
        .args(["run", "--quiet", "--output-format", format])
        .arg(&job)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    Some((
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).to_string(),
    ))
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).expect("one JSON document")
}

#[test]
fn continue_on_error_write_goes_on_after_enospc_and_counts_it() {
    // fill_device lets the job reach a full file system; ignore_error makes ENOSPC not fatal,
    // which fio checks before fill_device's end.
    let options = "fill_device=1\ncontinue_on_error=write\nignore_error=,ENOSPC\n";
    let Some((code, out)) = run_full(options, "json") else {
        return;
    };
    assert_eq!(code, Some(0), "{out}");
    let job = &json(&out)["jobs"][0];
    let written = job["write"]["total_ios"].as_u64().unwrap();
    let errors = job["total_err"].as_u64().unwrap();
    // 32 writes of 64 KiB issued: the ones that fit in 1 MiB, and the rest failed.
    assert_eq!(written + errors, 32, "{job}");
    assert!(errors >= 16, "{errors}");
    assert_eq!(job["first_error"], 28, "ENOSPC");
    assert_eq!(job["error"], 0);
    assert_eq!(job["write"]["io_bytes"], written * 65536);
    let lines = job["iofit"]["error_lines"].as_array().unwrap();
    assert_eq!(lines.len(), 16, "capped at 16 lines, the count stays exact");
    assert!(lines[0]
        .as_str()
        .unwrap()
        .contains("No space left on device: write offset="));

    // error_dump=0: counted, no lines.
    let Some((_, out)) = run_full(&format!("{options}error_dump=0\n"), "json") else {
        return;
    };
    let job = &json(&out)["jobs"][0];
    assert!(job["total_err"].as_u64().unwrap() >= 16);
    assert!(job["iofit"].get("error_lines").is_none());

    // Text and terse say the same, where fio puts it.
    let (_, text) = run_full(options, "normal").unwrap();
    assert!(
        text.contains("errors    : total=")
            && text.contains("first_error=28/<No space left on device>"),
        "{text}"
    );
    let (_, terse) = run_full(options, "terse").unwrap();
    let fields: Vec<&str> = terse.trim().split(';').collect();
    assert_eq!(fields[fields.len() - 1], "28", "{terse}");
    assert!(fields[fields.len() - 2].parse::<u64>().unwrap() >= 16);
}

#[test]
fn errors_outside_the_lists_are_not_counted() {
    // continue_on_error=write alone continues on EIO and EILSEQ only (fio's default list):
    // ENOSPC then is fill_device's end, not a counted error.
    let Some((code, out)) = run_full("fill_device=1\ncontinue_on_error=write\n", "json") else {
        return;
    };
    assert_eq!(code, Some(0));
    let job = &json(&out)["jobs"][0];
    assert_eq!(job["total_err"], 0);
    assert_eq!(job["write"]["total_ios"], 16);
    // A list for reads does not cover writes: ENOSPC on a write is not counted either.
    let options = "fill_device=1\ncontinue_on_error=read\nignore_error=ENOSPC\n";
    let Some((code, out)) = run_full(options, "json") else {
        return;
    };
    assert_eq!(code, Some(0));
    let job = &json(&out)["jobs"][0];
    assert_eq!(job["total_err"], 0);
    assert_eq!(job["write"]["total_ios"], 16);
}
