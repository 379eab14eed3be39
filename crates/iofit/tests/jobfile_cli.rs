//! The job-file bad-input corpus through the CLI: `iofit run --parse-only FILE` exits 2 with one
//! line on stderr that names the file and the line (tests/bad-input/jobfile/expected.tsv).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad-input/jobfile")
}

/// (file, line) from a corpus manifest.
fn manifest(dir: &Path) -> Vec<(String, usize)> {
    std::fs::read_to_string(dir.join("expected.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            (fields[0].to_string(), fields[2].parse().unwrap())
        })
        .collect()
}

fn check_corpus(dir: &Path) {
    let cases = manifest(dir);
    assert!(cases.len() >= 15);
    for (file, line) in cases {
        let path = dir.join(&file);
        // fio's --parse-only does not look at targets, nor does iofit's: a missing file is
        // found by a run, before any IO. Data keys iofit does not run (journal=...) parse; a
        // run refuses them. A block larger than the file, a file without jobs, time_based
        // without runtime and a directory without size are run-time questions too (fio's
        // --parse-only accepts them all); a run refuses each before any IO.
        let run_only = [
            "missing-file",
            "general-parameter",
            "time-based-without-runtime",
            "bs-larger-than-size",
            "empty",
            "directory-without-size",
            "zero-bytes",
        ];
        let args: &[&str] = if run_only.iter().any(|name| file.contains(name)) {
            &["run"]
        } else {
            &["run", "--parse-only"]
        };
        let output = Command::cargo_bin("iofit")
            .unwrap()
            .args(args)
            .arg(&path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{file}: stderr {stderr}");
        assert!(
            output.stdout.is_empty(),
            "{file}: stdout {:?}",
            String::from_utf8_lossy(&output.stdout)
        );
        assert_eq!(
            stderr.trim_end().lines().count(),
            1,
            "{file}: not one line: {stderr}"
        );
        assert!(
            stderr.contains(&file),
            "{file}: does not name the file: {stderr}"
        );
        if line > 0 {
            assert!(
                stderr.contains(&format!("{file}:{line}:")),
                "{file}: does not name line {line}: {stderr}"
            );
        }
        assert!(!stderr.contains("panicked"), "{file}: {stderr}");
    }
}

#[test]
fn fio_corpus_exits_2_with_one_line() {
    check_corpus(&corpus_dir());
}

#[test]
fn vdbench_corpus_exits_2_with_one_line() {
    check_corpus(&corpus_dir().join("vdbench"));
}

#[test]
fn seed_job_files_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fio");
    for file in ["fiowrite.ini", "fioread.ini", "fioreadwrite.ini"] {
        Command::cargo_bin("iofit")
            .unwrap()
            .args(["run", "--parse-only"])
            .arg(dir.join(file))
            .assert()
            .success();
    }
}
