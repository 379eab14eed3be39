//! What real job files need that fio accepts: fio's reading of odd values, and what its
//! `--parse-only` leaves to the run.

use iofit_model::units::Bytes;

use super::*;
use iofit_model::job::JobNote;
use iofit_model::job::SizeSpec;

fn parse_only(text: &str) -> Result<Vec<JobSpec>, JobFileError> {
    let opts = ParseOptions {
        skip_target_checks: true,
        ..ParseOptions::default()
    };
    parse_str(text, "compat.fio", &opts)
}

fn run_parse(text: &str) -> Result<Vec<JobSpec>, JobFileError> {
    parse_str(text, "compat.fio", &ParseOptions::default())
}

#[test]
fn arithmetic_without_parentheses_is_the_leading_number_as_fio_reads_it() {
    // PerfKitBenchmarker's fio.job: fio 3.33 sizes this file 10 bytes, not 2.4 TB.
    let text = "[j]\nfilename=/tmp/x\nbs=1\nfilesize=10*10*1000*24105\n";
    let job = &run_parse(text).unwrap()[0];
    assert_eq!(job.size, Some(SizeSpec::Bytes(Bytes(10))));
    assert_eq!(
        job.notes,
        [JobNote::UnparenthesizedSize {
            option: "filesize".into(),
            value: "10*10*1000*24105".into(),
            bytes: Bytes(10)
        }]
    );
    assert!(job.notes[0]
        .to_string()
        .starts_with("filesize=10*10*1000*24105: fio 3.33 reads this as 10 bytes"));
    let job = &run_parse("[j]\nfilename=/tmp/x\nbs=1\nsize=4*1000\n").unwrap()[0];
    assert_eq!(job.size, Some(SizeSpec::Bytes(Bytes(4))));
    // In parentheses it is arithmetic.
    let job = &run_parse("[j]\nfilename=/tmp/x\nbs=1\nsize=(4*1000)\n").unwrap()[0];
    assert_eq!(job.size, Some(SizeSpec::Bytes(Bytes(4000))));
}

#[test]
fn parse_only_leaves_run_time_questions_to_the_run() {
    // Only [global]: fio --parse-only accepts it, a run does not.
    let globals = "[global]\nrw=randwrite\ntime_based=1\n";
    assert!(parse_only(globals).unwrap().is_empty());
    assert_eq!(*run_parse(globals).unwrap_err().kind, ErrorKind::Empty);

    // time_based without runtime, and no size for a directory target.
    let text = "[j]\nrw=read\ntime_based=1\n";
    let job = &parse_only(text).unwrap()[0];
    assert!(job
        .notes
        .iter()
        .any(|n| n.accepted_option() == Some("time_based")
            && n.to_string()
                .starts_with("time_based is set but no runtime")));
    assert!(job.notes.iter().any(|n| n.accepted_option() == Some("size")
        && n.to_string().starts_with("no size= and no existing file")));
    let err = run_parse(text).unwrap_err().to_string();
    assert!(err.contains("time_based is set but no runtime"), "{err}");
    let err = run_parse("[j]\nrw=read\n").unwrap_err().to_string();
    assert!(err.contains("no size= and no existing file"), "{err}");

    // A block larger than the file: fio refuses it when it lays the file out.
    let small = "[j]\nfilename=/tmp/x\nsize=10\nbs=4k\n";
    assert_eq!(
        parse_only(small).unwrap()[0].notes,
        [JobNote::SizeTooSmall {
            block: Bytes(4096),
            per_file: Bytes(10)
        }]
    );
    assert!(run_parse(small).is_err());
}
