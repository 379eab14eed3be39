use super::*;
use crate::vdbench::{Reports, RunJson, VdbenchJson};
use iofit_stats::{DataError, JobResult, RunResult, VerifyResult};

/// A one-machine file: two SDs in `dir`, one run of 4 threads per SD.
fn raw_file(dir: &Path) -> PathBuf {
    let path = dir.join("parm.vdb");
    std::fs::write(
        &path,
        format!(
            "sd=default,size=4m\nsd=sd1,lun={0}/f1\nsd=sd2,lun={0}/f2\n\
             wd=w,sd=sd*,rdpct=50,xfersize=8k\n\
             rd=r1,wd=w,iorate=max,elapsed=10,warmup=2,interval=1,threads=4\n",
            dir.display()
        ),
    )
    .unwrap();
    path
}

#[test]
fn parse_only_shows_each_run_and_the_file_system_runs() {
    let dir = tempfile::tempdir().unwrap();
    let lines = check_lines(&raw_file(dir.path()), &[]).unwrap();
    assert_eq!(
        lines,
        vec![
            "rd=r1 threads=4: 2 wd/sd pairs, 4 threads per SD (8 in flight), elapsed=10s warmup=2s"
                .to_string()
        ]
    );
    let fs = dir.path().join("fs.vdb");
    std::fs::write(
        &fs,
        format!(
            "fsd=fsd1,anchor={}/a,depth=1,width=2,files=3,size=4k\n\
             fwd=fwd1,fsd=fsd1,operation=read,xfersize=4k,threads=2\n\
             rd=rf,fwd=fwd1,fwdrate=max,format=yes,elapsed=5,interval=1\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let lines = check_lines(&fs, &[]).unwrap();
    assert!(
        lines[0].starts_with("rd=rf ")
            && lines[0].contains("fsd=fsd1 anchor=")
            && lines[0].contains(" 2 dirs x 3 files; fwd=fwd1 read threads=2;"),
        "{lines:?}"
    );
}

#[test]
fn parse_only_ends_with_the_files_notes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("short.vdb");
    let text = std::fs::read_to_string(raw_file(dir.path()))
        .unwrap()
        .replace("elapsed=10,warmup=2,interval=1", "elapsed=3,interval=2");
    std::fs::write(&path, text).unwrap();
    let checked = crate::vdbench::check_file(&path, &[]).unwrap();
    let short = iofit_jobfile::vdbench::VdbenchNote::ShortElapsed {
        at: iofit_jobfile::error::Location::new(path.display().to_string(), 5),
        run: "r1".into(),
        elapsed_s: iofit_model::units::Seconds(3.0),
        interval_s: iofit_model::units::Seconds(2.0),
    };
    assert_eq!(checked.notes, std::slice::from_ref(&short));
    let lines = check_lines(&path, &[]).unwrap();
    assert_eq!(lines.last(), Some(&format!("  note: {short}")));
    assert!(lines
        .last()
        .unwrap()
        .ends_with(":5: rd=r1 elapsed=3s is less than twice interval=2s (vdbench refuses it): iofit averages the run's only measured interval"));
}

#[test]
fn a_file_for_this_machine_is_not_multi_host_unless_under_slurm() {
    let dir = tempfile::tempdir().unwrap();
    let file = raw_file(dir.path());
    assert!(multi_host_runs(&file, &[], false).unwrap().is_none());
    let (_, runs) = multi_host_runs(&file, &[], true).unwrap().unwrap();
    assert_eq!(runs.len(), 1);
    let hosts = dir.path().join("hosts.vdb");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &hosts,
        format!("hd=default,shell=ssh\nhd=hd1,system=vm1\nhd=hd2,system=vm2\n{text}"),
    )
    .unwrap();
    assert!(multi_host_runs(&hosts, &[], false).unwrap().is_some());
}

fn outcome(failed: bool, interrupted: bool, data_errors: u64) -> VdbenchOutcome {
    let job = JobResult {
        name: "sd1".into(),
        verify: Some(VerifyResult {
            bad_units: data_errors,
            errors: (0..data_errors)
                .map(|i| DataError {
                    file: "/d/f1".into(),
                    offset: i * 4096,
                    length: 4096,
                    kind: "bad checksum".into(),
                    expected: "1".into(),
                    found: "2".into(),
                })
                .collect(),
            ..VerifyResult::default()
        }),
        ..JobResult::default()
    };
    let run = RunJson {
        rd: "r1".into(),
        for_label: String::new(),
        iorate: "max".into(),
        target_iops: None,
        threads_per_sd: 1,
        total_threads: 1,
        elapsed_s: iofit_model::units::Seconds(1.0),
        warmup_s: iofit_model::units::Seconds(0.0),
        avg_iops: iofit_model::units::Iops(0.0),
        avg_mib_per_s: 0.0,
        avg_read_pct: 0.0,
        avg_resp_ms: iofit_model::units::Millis(0.0),
        result: RunResult {
            jobs: vec![job],
            ..RunResult::default()
        },
        hosts: vec![],
    };
    VdbenchOutcome {
        doc: VdbenchJson {
            runs: vec![run],
            ..VdbenchJson::default()
        },
        flat_rows: vec![],
        failed,
        interrupted,
        data_errors,
        reports: Reports::default(),
    }
}

#[test]
fn bad_blocks_come_first_and_at_most_ten_are_named() {
    let ending = run_ending(&outcome(true, true, 12), false);
    assert_eq!(ending.exit, Exit::DataErrors);
    assert_eq!(ending.notes.len(), 11);
    assert!(ending.notes[..10]
        .iter()
        .all(|note| matches!(note, Note::DataError { rd, .. } if rd == "r1")));
    assert_eq!(
        ending.notes[1].to_string(),
        "data error: rd=r1 lun=/d/f1 offset 4096 length 4096: bad checksum: expected 1, found 2"
    );
    assert_eq!(ending.notes[10], Note::BadBlocks { count: 12 });
    assert_eq!(
        ending.notes[10].to_string(),
        "error: validate=yes found 12 bad block(s) (see the results)"
    );
    assert_eq!(
        run_ending(&outcome(true, true, 0), false).exit,
        Exit::Failed
    );
    let interrupted = run_ending(&outcome(false, true, 0), false);
    assert_eq!(interrupted.exit, Exit::Interrupted);
    assert_eq!(interrupted.notes, vec![Note::VdbenchInterrupted]);
    assert_eq!(
        interrupted.notes[0].to_string(),
        "interrupted; the results cover the runs before the signal"
    );
    assert!(run_ending(&outcome(false, true, 0), true).notes.is_empty());
    assert_eq!(
        run_ending(&outcome(false, false, 0), false),
        Ending::quiet(Exit::Success)
    );
}

#[test]
fn vdbench_flags_become_the_options() {
    let request = VdbenchCliRequest {
        parmfile: PathBuf::from("parm.vdb"),
        output: PathBuf::from("out"),
        elapsed: Some("2m".into()),
        warmup: Some("5".into()),
        validate: true,
        substitutions: vec!["lun=/tmp/x".into()],
        ..VdbenchCliRequest::default()
    };
    let options = cli_options(&request).unwrap();
    assert_eq!(options.elapsed, Some(std::time::Duration::from_secs(120)));
    assert_eq!(options.warmup, Some(std::time::Duration::from_secs(5)));
    assert_eq!(options.interval, None);
    assert!(options.validate);
    assert_eq!(options.output_dir, Some(PathBuf::from("out")));
    let hosts = VdbenchCliRequest {
        remote_iofit: Some("/opt/iofit".into()),
        ssh_config: Some(PathBuf::from("ssh.conf")),
        allow_overwrite: true,
        ..request.clone()
    };
    let reach = hosts.reach(&options);
    assert!(std::sync::Arc::ptr_eq(&reach.stop, &options.stop));
    assert_eq!(reach.remote_iofit.as_deref(), Some("/opt/iofit"));
    assert_eq!(reach.ssh_config, Some(PathBuf::from("ssh.conf")));
    assert!(reach.allow_overwrite && reach.slurm_tasks_per_node.is_none());
    let word = VdbenchCliRequest {
        substitutions: vec!["threads".into()],
        ..request
    };
    let error = cli_options(&word).unwrap_err();
    assert!(error.is_bad_input());
    assert_eq!(
        error.to_string(),
        "'threads': after the options vdbench takes name=value substitutions; write threads=VALUE"
    );
}

#[test]
fn simulate_shows_each_run_with_the_overrides_and_makes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let request = VdbenchCliRequest {
        parmfile: raw_file(dir.path()),
        output: dir.path().join("out"),
        elapsed: Some("30".into()),
        ..VdbenchCliRequest::default()
    };
    let options = cli_options(&request).unwrap();
    let lines = simulate_lines(&request, &options).unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("Simulating RD=r1; I/O rate: Uncontrolled MAX; elapsed=30 warmup=2;"),
        "{lines:?}"
    );
    assert!(!dir.path().join("f1").exists() && !dir.path().join("out").exists());
}

#[test]
fn the_output_directory_never_replaces_the_parameter_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let request = VdbenchCliRequest {
        parmfile: out.join("summary.html"),
        output: out.clone(),
        ..VdbenchCliRequest::default()
    };
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("summary.html"), "sd=sd1,lun=/x\n").unwrap();
    let error = prepare_output_dir(&request).unwrap_err();
    assert!(error.is_bad_input(), "{error}");
    let fresh = VdbenchCliRequest {
        parmfile: raw_file(dir.path()),
        output: dir.path().join("fresh"),
        ..VdbenchCliRequest::default()
    };
    prepare_output_dir(&fresh).unwrap();
    assert!(dir.path().join("fresh").is_dir());
}
