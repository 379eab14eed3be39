//! Every file of the bad-input corpus gives the typed error, line and key its manifest names.

use iofit_jobfile::{fio, vdbench, JobFileError, ParseOptions};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/bad-input/jobfile")
}

struct Case {
    file: String,
    kind: String,
    line: usize,
    key: Option<String>,
}

fn manifest(dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join("expected.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<&str> = l.split('\t').collect();
            assert_eq!(fields.len(), 4, "bad manifest line {l:?}");
            Case {
                file: fields[0].to_string(),
                kind: fields[1].to_string(),
                line: fields[2].parse().unwrap(),
                key: (fields[3] != "-").then(|| fields[3].to_string()),
            }
        })
        .collect()
}

fn check(dir: &Path, parse: impl Fn(&Path) -> Result<usize, JobFileError>) -> usize {
    let cases = manifest(dir);
    for case in &cases {
        let path = dir.join(&case.file);
        let error = match parse(&path) {
            Ok(count) => panic!(
                "{}: parsed into {count} jobs/runs, expected an error",
                case.file
            ),
            Err(error) => error,
        };
        let message = error.to_string();
        assert_eq!(error.kind.name(), case.kind, "{}: {message}", case.file);
        assert_eq!(error.line, case.line, "{}: {message}", case.file);
        assert_eq!(error.key, case.key, "{}: {message}", case.file);
        assert!(
            !message.contains('\n'),
            "{}: not one line: {message}",
            case.file
        );
        assert!(
            message.starts_with(&path.display().to_string()) || message.starts_with("command line"),
            "{}: does not name the file: {message}",
            case.file
        );
    }
    // Every corpus file is in the manifest.
    let files = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .filter(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name != "expected.tsv" && name != "README.md"
        })
        .count();
    assert_eq!(
        files,
        cases.len(),
        "a corpus file is missing from expected.tsv"
    );
    cases.len()
}

#[test]
fn fio_corpus_gives_typed_errors() {
    let count = check(&corpus_dir(), |path| {
        fio::parse_file(path, &ParseOptions::default()).map(|jobs| jobs.len())
    });
    assert!(count >= 15);
}

#[test]
fn vdbench_corpus_gives_typed_errors() {
    let count = check(&corpus_dir().join("vdbench"), |path| {
        let file = vdbench::parse_file(path)?;
        file.check_hosts(vdbench::is_local_host)?;
        // What a run checks after parsing: data keys iofit does not run (journal=...) are refused.
        file.check_runnable()?;
        let runs = file.runs()?;
        let fs_runs = file.fs_runs()?;
        Ok(runs.len() + fs_runs.len())
    });
    assert!(count >= 15);
}
