//! `iofit run` refuses, before it allocates or writes anything, a run that does not fit the
//! machine: exit 2 and one line naming what the run needs and the limit it hits. The real
//! binary, with real limits set on the child process (setrlimit).

use std::os::unix::process::CommandExt;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs `iofit run ARGS` with `limit` set to `value` (soft and hard) in the child.
fn run_limited(
    args: &[String],
    limit: Option<(libc::__rlimit_resource_t, u64)>,
) -> (Output, Duration) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_iofit"));
    command.arg("run").args(args);
    if let Some((resource, value)) = limit {
        // SAFETY: setrlimit is async-signal-safe and touches only the child about to exec.
        unsafe {
            command.pre_exec(move || {
                let rl = libc::rlimit {
                    rlim_cur: value,
                    rlim_max: value,
                };
                if libc::setrlimit(resource, &rl) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    let started = Instant::now();
    let output = command.output().unwrap();
    (output, started.elapsed())
}

/// Exit 2, one line on stderr holding every `expected` piece, no file created, quickly.
fn assert_refused(output: &Output, took: Duration, file: &std::path::Path, expected: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    for piece in expected {
        assert!(stderr.contains(piece), "{piece:?} missing from: {stderr}");
    }
    assert!(!file.exists(), "nothing laid out before the refusal");
    assert!(
        took < Duration::from_secs(3),
        "refused at once, took {took:?}"
    );
    assert!(output.stdout.is_empty());
}

fn job(file: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["--quiet", "--name=a", "--rw=randread", "--size=1m"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(format!("--filename={}", file.display()));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn twenty_thousand_clones_are_refused_with_the_number_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let (output, took) = run_limited(&job(&file, &["--bs=4k", "--numjobs=20000"]), None);
    assert_refused(&output, took, &file, &["20000 clones", "4096"]);
}

#[test]
fn thirty_two_gib_of_buffers_are_refused_not_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    let args = job(
        &file,
        &[
            "--bs=1m",
            "--iodepth=32768",
            "--ioengine=io_uring",
            "--direct=1",
        ],
    );
    // A data limit of 8 GiB makes the refusal the same on any machine; the run needs 32 GiB.
    let (output, took) = run_limited(&args, Some((libc::RLIMIT_DATA, 8 << 30)));
    assert_refused(
        &output,
        took,
        &file,
        &["32 GiB of IO buffers", "RLIMIT_DATA"],
    );
}

#[test]
fn three_hundred_clones_under_ulimit_n_128_are_refused_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    for engine in ["io_uring", "psync"] {
        let args = job(
            &file,
            &["--bs=4k", "--numjobs=300", &format!("--ioengine={engine}")],
        );
        let (output, took) = run_limited(&args, Some((libc::RLIMIT_NOFILE, 128)));
        assert_refused(
            &output,
            took,
            &file,
            &["open-file limit is 128", "ulimit -n"],
        );
    }
}
