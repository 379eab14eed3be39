//! `iofit run`'s procedure without the CLI: argument splitting, preset lowering, output checks,
//! and whole runs on the null engine with an injected clock (deterministic, no IO).

use iofit_engine::{ClockChoice, RunOptions};
use iofit_procedure::fio_run::{run_fio_jobs, warnings, FioRunOutcome};
use iofit_procedure::observer::{Quiet, Warning};
use iofit_procedure::run_request::{
    overrides_from, preset_jobs, what_to_run, Inputs, OutputFormat, RunRequest, What,
};
use iofit_procedure::ProcedureError;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn fake_clock() -> RunOptions {
    RunOptions {
        clock: ClockChoice::Fake { step_ns: 1_000 },
        ..RunOptions::default()
    }
}

/// A command-line job on the null engine, `size` bytes of 4 KiB reads at `iodepth`.
fn null_jobs(dir: &std::path::Path, iodepth: u32) -> (RunRequest, Inputs) {
    let mut request = RunRequest::default();
    let file = dir.join("data");
    let inputs = request
        .take_rest(strings(&[
            "--name=a",
            "--rw=randread",
            "--bs=4k",
            "--size=4m",
            &format!("--iodepth={iodepth}"),
            "--ioengine=null",
            &format!("--filename={}", file.display()),
        ]))
        .unwrap();
    (request, inputs)
}

fn jobs_of(request: &RunRequest, inputs: &Inputs) -> Vec<iofit_model::job::JobSpec> {
    match what_to_run(request, inputs).unwrap() {
        What::Jobs(jobs) => jobs,
        other => panic!("expected jobs, got {other:?}"),
    }
}

#[test]
fn own_flags_after_a_job_file_set_the_request_and_fio_options_stay_in_order() {
    let mut request = RunRequest::default();
    let inputs = request
        .take_rest(strings(&[
            "job.fio",
            "--output",
            "o.json",
            "--bs",
            "8k",
            "--quiet",
            "--iodepth=4",
            "--output-format=json",
            "--direct",
        ]))
        .unwrap();
    assert_eq!(inputs.files, vec![PathBuf::from("job.fio")]);
    assert_eq!(
        inputs.fio_args,
        strings(&["--bs", "8k", "--iodepth=4", "--direct"])
    );
    assert_eq!(request.output, Some(PathBuf::from("o.json")));
    assert!(request.quiet);
    assert_eq!(request.output_format, OutputFormat::Json);
    assert_eq!(
        overrides_from(&inputs.fio_args),
        vec![
            ("bs".to_string(), "8k".to_string()),
            ("iodepth".to_string(), "4".to_string()),
            ("direct".to_string(), "1".to_string()),
        ]
    );
}

#[test]
fn a_valued_own_flag_without_its_value_is_bad_input() {
    let mut request = RunRequest::default();
    let error = request
        .take_rest(strings(&["job.fio", "--output"]))
        .unwrap_err();
    assert!(error.is_bad_input());
    assert!(
        error.to_string().contains("--output needs a value"),
        "{error}"
    );
    let error = request
        .take_rest(strings(&["--output-format=xml"]))
        .unwrap_err();
    assert!(
        error.to_string().contains("is not known; use normal"),
        "{error}"
    );
}

#[test]
fn a_preset_lowers_to_one_job_per_spec_line_with_the_seed_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let mut request = RunRequest {
        preset: Some("RandomReads_8K".into()),
        target: Some(dir.path().to_path_buf()),
        ..RunRequest::default()
    };
    let inputs = request.take_rest(strings(&["--iodepth=16"])).unwrap();
    let jobs = preset_jobs(&request, "RandomReads_8K", &inputs).unwrap();
    assert!(!jobs.is_empty());
    let clones: u32 = jobs.iter().map(|j| j.numjobs).sum();
    assert_eq!(clones, 3, "three workers by default");
    assert!(jobs.iter().all(|j| j.iodepth == 16));
    assert!(jobs
        .iter()
        .all(|j| j.runtime == Some(std::time::Duration::from_secs(30))));
}

#[test]
fn preset_numbers_out_of_range_are_bad_input_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, expect) in [
        ("--runtime=99999999999999999999", "--runtime"),
        ("--iodepth=0", "--iodepth"),
        ("--numjobs=x", "--numjobs"),
        ("--size=1k", "--size"),
        ("--bs=4k", "does not apply to --preset"),
    ] {
        let mut request = RunRequest {
            preset: Some("RandomReads_8K".into()),
            target: Some(dir.path().to_path_buf()),
            ..RunRequest::default()
        };
        let inputs = request.take_rest(strings(&[flag])).unwrap();
        let error = preset_jobs(&request, "RandomReads_8K", &inputs).unwrap_err();
        assert!(error.is_bad_input(), "{flag}: {error}");
        assert!(error.to_string().contains(expect), "{flag}: {error}");
    }
    let request = RunRequest {
        preset: Some("RandomReads_8K".into()),
        ..RunRequest::default()
    };
    let error = preset_jobs(&request, "RandomReads_8K", &Inputs::default()).unwrap_err();
    assert!(error.to_string().contains("needs --target DIR"), "{error}");
}

#[test]
fn target_flags_without_a_preset_are_refused() {
    let request = RunRequest {
        workers: Some(3),
        ..RunRequest::default()
    };
    let inputs = Inputs {
        files: vec![],
        fio_args: strings(&["--name=a", "--rw=read", "--size=1m", "--filename=/tmp/x"]),
        ..Inputs::default()
    };
    let error = what_to_run(&request, &inputs).unwrap_err();
    assert!(error.to_string().contains("apply to --preset"), "{error}");
    let error = what_to_run(&RunRequest::default(), &Inputs::default()).unwrap_err();
    assert!(error.to_string().contains("no job given"), "{error}");
}

#[test]
fn a_null_engine_run_writes_whole_json_and_keeps_littles_law() {
    let dir = tempfile::tempdir().unwrap();
    let (mut request, inputs) = null_jobs(dir.path(), 8);
    let output = dir.path().join("out.json");
    request.output = Some(output.clone());
    request.output_format = OutputFormat::Json;
    let jobs = jobs_of(&request, &inputs);
    let outcome = run_fio_jobs(&request, &inputs.files, &jobs, &fake_clock(), &mut Quiet).unwrap();
    let FioRunOutcome::Ran(results) = outcome else {
        panic!("the run did not run")
    };
    assert!(!results.interrupted);
    assert!(results.failed_jobs.is_empty());
    let written = std::fs::read_to_string(&output).unwrap();
    assert_eq!(written, results.text, "the file holds the final results");
    let json: serde_json::Value = serde_json::from_str(&written).unwrap();
    let read = &json["jobs"][0]["read"];
    // 4 MiB in 4 KiB reads: 1024 IOs, bytes = IOs x block size.
    assert_eq!(read["total_ios"].as_u64(), Some(1024), "{read}");
    assert_eq!(read["io_bytes"].as_u64(), Some(4 * 1024 * 1024));
    let result = &results.report.result.jobs[0].read;
    assert_eq!(result.total_latency.count, result.ios);
    let outstanding = result.iops.get() * result.total_latency.mean_ns.get() / 1e9;
    assert!(
        (outstanding / 8.0 - 1.0).abs() < 0.03,
        "IOPS x mean latency = {outstanding}, iodepth 8"
    );
}

#[test]
fn an_output_naming_the_jobs_target_is_refused_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let (mut request, inputs) = null_jobs(dir.path(), 1);
    request.output = Some(dir.path().join("data"));
    let jobs = jobs_of(&request, &inputs);
    let error =
        run_fio_jobs(&request, &inputs.files, &jobs, &fake_clock(), &mut Quiet).unwrap_err();
    assert!(matches!(error, ProcedureError::Output(_)), "{error:?}");
    assert!(error.is_bad_input());
    assert!(!dir.path().join("data").exists(), "nothing was laid out");
}

#[test]
fn a_stop_before_the_run_reports_an_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let (request, inputs) = null_jobs(dir.path(), 4);
    let jobs = jobs_of(&request, &inputs);
    let options = RunOptions {
        stop: Arc::new(AtomicBool::new(true)),
        ..fake_clock()
    };
    match run_fio_jobs(&request, &inputs.files, &jobs, &options, &mut Quiet).unwrap() {
        FioRunOutcome::Ran(results) => assert!(results.interrupted),
        FioRunOutcome::InterruptedInLayout => {}
    }
}

#[test]
fn libaio_jobs_and_notes_are_typed_warnings_said_once() {
    let mut request = RunRequest {
        parse_only: true,
        ..RunRequest::default()
    };
    let inputs = request
        .take_rest(strings(&[
            "--name=a",
            "--rw=read",
            "--size=1m",
            "--filename=/tmp/iofit-never-made",
            "--ioengine=libaio",
            "--name=b",
            "--rw=read",
            "--size=1m",
            "--filename=/tmp/iofit-never-made",
            "--ioengine=libaio",
        ]))
        .unwrap();
    let jobs = jobs_of(&request, &inputs);
    let said = warnings(&jobs);
    assert_eq!(
        said.first(),
        Some(&Warning::LibaioOnIoUring {
            jobs: vec!["a".into(), "b".into()]
        })
    );
    let notes: Vec<&Warning> = said
        .iter()
        .filter(|w| matches!(w, Warning::JobNote(_)))
        .collect();
    let mut unique = notes.clone();
    unique.dedup();
    assert_eq!(notes.len(), unique.len());
}
