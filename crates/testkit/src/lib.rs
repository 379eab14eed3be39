//! iofit-testkit: the helpers iofit's test suites share, so each is written once: the
//! `iofit` binary as a command, paths into the repository's `tests/data`, the check that a
//! report opens offline, and real load for tests that must hold under it (threads writing
//! O_DIRECT to a file the run reads; busy threads on every core). Only tests depend on it
//! (`[dev-dependencies]`).
//!
//! ```
//! let html = "<!DOCTYPE html><svg xmlns=\"http://www.w3.org/2000/svg\"></svg>";
//! iofit_testkit::assert_self_contained(html);
//! assert!(iofit_testkit::test_data("azure").is_dir());
//! ```

pub mod load;
pub mod stuck;

use std::path::{Path, PathBuf};

/// The `iofit` binary of this build, as a command (cargo builds it for the `iofit` crate's
/// tests).
pub fn iofit() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("iofit").expect("the iofit binary is built")
}

/// A path in the repository (`examples/fio`, `tests/bad-input/jobfile`...).
pub fn repo_path(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}

/// The workspace's `crates/` directory, where the source scans (function length, file
/// length, unit fields...) start.
pub fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, at any depth, added to `out` (a missing `dir` adds none).
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A path under the repository's `tests/data`.
pub fn test_data(relative: &str) -> PathBuf {
    repo_path("tests/data").join(relative)
}

/// The command ended with exit `code`; otherwise the failure shows its stderr.
#[track_caller]
pub fn assert_exit(output: &std::process::Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Writes `text` as `job.fio` in `dir` and runs it there: `iofit run --quiet
/// --output-format json EXTRA job.fio`, with a 60 s limit.
pub fn run_job_text(dir: &Path, text: &str, extra: &[&str]) -> std::process::Output {
    let path = dir.join("job.fio");
    std::fs::write(&path, text).expect("writing the job file");
    iofit()
        .current_dir(dir)
        .args(["run", "--quiet", "--output-format", "json"])
        .args(extra)
        .arg(&path)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("running iofit")
}

/// A small tmpfs mounted at a directory for as long as the guard lives: a file system that
/// really fills up (ENOSPC). `mount` returns `None` where mounting is not allowed (not root);
/// the test then says so.
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    pub fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// A report must open offline: no scripts, stylesheets, frames, fonts or images fetched from
/// anywhere; the only URL it may name is the SVG namespace.
pub fn assert_self_contained(html: &str) {
    assert!(html.starts_with("<!DOCTYPE html>"), "not an HTML document");
    let lower = html.to_ascii_lowercase();
    // Inline scripts (sorting a table) are allowed; a script with attributes (src=) or any
    // way of reaching the network is not.
    for pattern in [
        "<script ",
        "fetch(",
        "xmlhttprequest",
        "websocket",
        "eventsource",
        "sendbeacon",
        "<link",
        "<iframe",
        "@import",
        "https://",
        "url(",
        "src=",
        "href=\"http",
        "href='http",
    ] {
        assert!(!lower.contains(pattern), "{pattern} in the report");
    }
    let http = lower.matches("http://").count();
    let svg_ns = lower.matches("http://www.w3.org/2000/svg").count();
    assert_eq!(http, svg_ns, "only the SVG namespace may name a URL");
}
