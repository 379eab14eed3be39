use super::*;
use iofit_model::job::JobNote;
use iofit_model::job::{
    BlockSizeSpec, Direction, EngineKind, PerDirection, RwMode, SizeSpec, Target,
};
use iofit_model::units::Bytes;
use std::path::PathBuf;
use std::time::Duration;

/// The seed's `fiowrite.ini`, verbatim (seed 000, FIO section).
const FIOWRITE: &str = "[global]\nsize=30g\ndirect=1\niodepth=256\nioengine=libaio\nbs=8k\n\n[writer1]\nrw=randwrite\ndirectory=/mnt/nocache\n[writer2]\nrw=randwrite\ndirectory=/mnt/nocache\n[writer3]\nrw=randwrite\ndirectory=/mnt/nocache\n[writer4]\nrw=randwrite\ndirectory=/mnt/nocache\n";
const FIOREAD: &str = "[global]\nsize=30g\ndirect=1\niodepth=256\nioengine=libaio\nbs=8k\n\n[reader1]\nrw=randread\ndirectory=/mnt/readcache\n[reader2]\nrw=randread\ndirectory=/mnt/readcache\n[reader3]\nrw=randread\ndirectory=/mnt/readcache\n[reader4]\nrw=randread\ndirectory=/mnt/readcache\n";
const FIOREADWRITE: &str = "[global]\nsize=30g\ndirect=1\niodepth=128\nioengine=libaio\nbs=4k\n\n[reader1]\nrw=randread\ndirectory=/mnt/readcache\n[reader2]\nrw=randread\ndirectory=/mnt/readcache\n[reader3]\nrw=randread\ndirectory=/mnt/readcache\n[reader4]\nrw=randread\ndirectory=/mnt/readcache\n\n[writer1]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n[writer2]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n[writer3]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n[writer4]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n";

fn parse(text: &str) -> Result<Vec<JobSpec>, JobFileError> {
    parse_str(text, "test.fio", &ParseOptions::default())
}

/// The jobs with the options-as-written echo emptied: the exact-job tests compare what runs.
fn without_written(mut jobs: Vec<JobSpec>) -> Vec<JobSpec> {
    for job in &mut jobs {
        job.reporting.job_options.clear();
        job.reporting.global_options.clear();
    }
    jobs
}

fn seed_job(name: &str, rw: RwMode, dir: &str, bs: Bytes, iodepth: u32) -> JobSpec {
    let mut job = JobSpec::new(
        name,
        Target::Directory {
            path: PathBuf::from(dir),
            nrfiles: 1,
        },
    )
    .with_rw(rw);
    job.size = Some(SizeSpec::Bytes(Bytes::gib(30)));
    job.direct = true;
    job.iodepth = iodepth;
    job.engine = EngineKind::Libaio;
    job.block_size = BlockSizeSpec::fixed(bs);
    job.stated_block_sizes = Some([(bs, bs); 3]);
    job
}

#[test]
fn seed_fiowrite_exact_jobs() {
    let jobs = without_written(parse(FIOWRITE).unwrap());
    let expected: Vec<JobSpec> = (1..=4)
        .map(|i| {
            seed_job(
                &format!("writer{i}"),
                RwMode::RandWrite,
                "/mnt/nocache",
                Bytes::kib(8),
                256,
            )
        })
        .collect();
    assert_eq!(jobs, expected);
}

#[test]
fn seed_fioread_exact_jobs() {
    let jobs = without_written(parse(FIOREAD).unwrap());
    let expected: Vec<JobSpec> = (1..=4)
        .map(|i| {
            seed_job(
                &format!("reader{i}"),
                RwMode::RandRead,
                "/mnt/readcache",
                Bytes::kib(8),
                256,
            )
        })
        .collect();
    assert_eq!(jobs, expected);
}

#[test]
fn seed_fioreadwrite_exact_jobs() {
    let jobs = without_written(parse(FIOREADWRITE).unwrap());
    let mut expected: Vec<JobSpec> = (1..=4)
        .map(|i| {
            seed_job(
                &format!("reader{i}"),
                RwMode::RandRead,
                "/mnt/readcache",
                Bytes::kib(4),
                128,
            )
        })
        .collect();
    for i in 1..=4 {
        let mut job = seed_job(
            &format!("writer{i}"),
            RwMode::RandWrite,
            "/mnt/nocache",
            Bytes::kib(4),
            128,
        );
        job.rate_iops = PerDirection::both(Some(12500));
        expected.push(job);
    }
    assert_eq!(jobs, expected);
}

#[test]
fn example_copies_match_the_seed() {
    // The engine helper keeps copies under examples/fio/; when present they must be the seed's.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/fio");
    for (file, text) in [
        ("fiowrite.ini", FIOWRITE),
        ("fioread.ini", FIOREAD),
        ("fioreadwrite.ini", FIOREADWRITE),
    ] {
        let path = dir.join(file);
        if path.exists() {
            let from_file = parse_file(&path, &ParseOptions::default()).unwrap();
            assert_eq!(from_file, parse(text).unwrap(), "{file}");
        }
    }
}

#[test]
fn overrides_win_over_the_file() {
    // The seed's `fio --runtime 30 fiowrite.ini`, made small and local.
    let opts = ParseOptions {
        overrides: vec![
            ("runtime".into(), "30".into()),
            ("size".into(), "64m".into()),
            ("directory".into(), "/tmp/x".into()),
        ],
        ignore_unknown: false,
        ..Default::default()
    };
    let jobs = parse_str(FIOWRITE, "fiowrite.ini", &opts).unwrap();
    assert_eq!(jobs.len(), 4);
    for job in &jobs {
        assert_eq!(job.runtime, Some(Duration::from_secs(30)));
        assert_eq!(job.size, Some(SizeSpec::Bytes(Bytes::mib(64))));
        assert_eq!(
            job.target,
            Target::Directory {
                path: "/tmp/x".into(),
                nrfiles: 1
            }
        );
        assert!(!job.time_based);
    }
}

#[test]
fn bad_override_is_reported_as_command_line() {
    let opts = ParseOptions {
        overrides: vec![("size".into(), "lots".into())],
        ignore_unknown: false,
        ..Default::default()
    };
    let error = parse_str(FIOWRITE, "fiowrite.ini", &opts).unwrap_err();
    assert_eq!(error.file, COMMAND_LINE);
    assert_eq!(error.key.as_deref(), Some("size"));
}

#[test]
fn every_supported_option() {
    let text = "\
; a comment
# another
[global]
kb_base=1000
ioengine=io_uring
group_reporting
thread
description=all options

[mixed]
filename=/tmp/a:/tmp/b\\:c
size=2MB
offset=1KiB
rw=randrw
rwmixwrite=30
bs=4k,8KiB
iodepth=16
buffered=1
numjobs=3
runtime=2m
time_based
ramp_time=500ms
startdelay=1
rate=1m,
rate_iops=,200
norandommap
randrepeat=0
randseed=42
loops=2
fsync=8
fdatasync=4
end_fsync=1
io_size=10m
percentage_random=60
";
    let jobs = parse(text).unwrap();
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    assert_eq!(job.name, "mixed");
    assert_eq!(job.engine, EngineKind::IoUring);
    assert!(job.group_reporting);
    assert_eq!(
        job.target,
        Target::Files(vec!["/tmp/a".into(), "/tmp/b:c".into()])
    );
    // kb_base=1000: 2MB = 2,000,000 bytes over two files; KiB stays binary.
    assert_eq!(job.size, Some(SizeSpec::Bytes(Bytes(1_000_000))));
    assert_eq!(job.offset, Bytes(1024));
    assert_eq!(job.rw, RwMode::RandRw);
    assert_eq!(job.rwmix_read_pct, 70.0);
    assert_eq!(job.random_pct, 60.0);
    assert_eq!(job.block_size.mean_size(Direction::Read), Bytes(4000));
    assert_eq!(job.block_size.mean_size(Direction::Write), Bytes(8192));
    assert_eq!(job.iodepth, 16);
    assert!(!job.direct);
    assert_eq!(job.numjobs, 3);
    assert_eq!(job.runtime, Some(Duration::from_secs(120)));
    assert!(job.time_based);
    assert_eq!(job.ramp_time, Duration::from_millis(500));
    assert_eq!(job.start_delay, Duration::from_secs(1));
    assert_eq!(
        job.rate_bytes_per_second,
        PerDirection {
            read: Some(1_000_000),
            write: None
        }
    );
    assert_eq!(
        job.rate_iops,
        PerDirection {
            read: None,
            write: Some(200)
        }
    );
    assert!(job.norandommap);
    assert!(!job.randrepeat);
    assert_eq!(job.random_seed, 42);
    assert_eq!(job.loops, 2);
    assert_eq!(job.fsync_every, 8);
    assert_eq!(job.fdatasync_every, 4);
    assert!(job.end_fsync);
    assert_eq!(job.io_limit, Some(Bytes(10_000_000)));
}

#[test]
fn bssplit_fills_blank_shares() {
    let jobs = parse("[a]\nsize=1m\nfilename=/tmp/x\nbssplit=4k/50:1k/:32k/\n").unwrap();
    match &jobs[0].block_size {
        BlockSizeSpec::Split { read, write } => {
            assert_eq!(read.len(), 3);
            assert_eq!(read[1].pct, 25.0);
            assert_eq!(read, write);
        }
        other => panic!("expected a split, got {other:?}"),
    }
    let jobs = parse("[a]\nsize=1m\nfilename=/tmp/x\nbssplit=2k/50:4k/50,4k/90:8k/10\n").unwrap();
    assert_eq!(jobs[0].block_size.mean_size(Direction::Write), Bytes(4506));
    let error = parse("[a]\nsize=1m\nfilename=/tmp/x\nbssplit=4k/70:8k/70\n").unwrap_err();
    assert_eq!(error.line, 4);
}

#[test]
fn the_third_block_size_is_for_trims_and_the_order_of_bs_and_rw_does_not_matter() {
    let fixed = |text: &str| match &parse(text).unwrap()[0].block_size {
        BlockSizeSpec::Fixed(sizes) => (sizes.read.as_u64(), sizes.write.as_u64()),
        other => panic!("expected fixed sizes, got {other:?}"),
    };
    let base = "[a]\nsize=1m\nfilename=/tmp/x\n";
    assert_eq!(
        fixed(&format!("{base}bs=4k,8k,16k\nrw=randtrim\n")),
        (16384, 16384)
    );
    assert_eq!(
        fixed(&format!("{base}rw=trimwrite\nbs=4k,8k,16k\n")),
        (16384, 16384)
    );
    assert_eq!(
        fixed(&format!("{base}bs=4k,8k,16k\nrw=randrw\n")),
        (4096, 8192)
    );
    // No third value: trims take the last one given, as in fio.
    assert_eq!(
        fixed(&format!("{base}blocksize=4k,8k\nrw=trim\n")),
        (8192, 8192)
    );
    let jobs = parse(&format!(
        "{base}rw=randtrim\nbssplit=4k/100,4k/100,8k/50:64k/50\n"
    ))
    .unwrap();
    assert_eq!(jobs[0].block_size.mean_size(Direction::Write), Bytes(36864));
    assert_eq!(jobs[0].block_size.min_size(), Bytes(8192));
    let error = parse(&format!("{base}rw=trim\nbs=4k,4k,4k,4k\n")).unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (5, Some("bs")));
}

#[test]
fn a_trim_job_is_paced_by_the_third_rate_values() {
    let base = "[a]\nsize=1m\nfilename=/tmp/x\n";
    let rates = "rate=1m,2m,3m\nrate_iops=10,20,30\nrate_min=,,1k\nrate_iops_min=,,5\n";
    let job = &parse(&format!("{base}{rates}rw=randtrim\n")).unwrap()[0];
    assert_eq!(job.rate_bytes_per_second.write, Some(3 << 20));
    assert_eq!(job.rate_iops.write, Some(30));
    assert_eq!(job.pacing.min_bytes_per_second.write, Some(1024));
    assert_eq!(job.pacing.min_iops.write, Some(5));
    // Other jobs keep their write values; trimwrite's writes pace its pairs.
    for rw in ["randwrite", "trimwrite"] {
        let job = &parse(&format!("{base}rw={rw}\n{rates}")).unwrap()[0];
        assert_eq!(job.rate_iops.write, Some(20), "{rw}");
        assert_eq!(job.pacing.min_iops.write, None, "{rw}");
    }
    // Two values: the trims take the second, as in fio.
    let job = &parse(&format!("{base}rw=trim\nrate_iops=10,20\n")).unwrap()[0];
    assert_eq!(job.rate_iops.write, Some(20));
}

#[test]
fn stonewall_and_new_group_number_groups() {
    let text = "[global]\nsize=1m\ndirectory=/tmp\n[a]\n[b]\nstonewall\n[c]\n[d]\nnew_group\n";
    let jobs = parse(text).unwrap();
    let groups: Vec<u32> = jobs.iter().map(|j| j.group_id).collect();
    assert_eq!(groups, vec![0, 1, 1, 2]);
    assert!(jobs[1].stonewall);
}

#[test]
fn global_after_jobs_applies_to_later_jobs_only() {
    let text = "[global]\nsize=1m\ndirectory=/tmp\n[a]\n[global]\nbs=64k\n[b]\n";
    let jobs = parse(text).unwrap();
    assert_eq!(jobs[0].block_size.max_size(), Bytes::kib(4));
    assert_eq!(jobs[1].block_size.max_size(), Bytes::kib(64));
}

#[test]
fn name_option_renames_job() {
    let jobs = parse("[a]\nname=real\nsize=1m\ndirectory=/tmp\n").unwrap();
    assert_eq!(jobs[0].name, "real");
}

#[test]
fn command_line_jobs() {
    let args: Vec<String> = [
        "--ioengine=io_uring",
        "--direct=1",
        "--name=a",
        "--rw=randread",
        "--bs=4k",
        "--iodepth",
        "32",
        "--filename=/tmp/f",
        "--size=1g",
        "--time_based",
        "--runtime=10",
        "--name=b",
        "--rw=write",
        "--directory=/tmp",
        "--size",
        "1m",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let jobs = parse_command_line(&args, &ParseOptions::default()).unwrap();
    assert_eq!(jobs.len(), 2);
    assert_eq!(jobs[0].name, "a");
    assert_eq!(jobs[0].iodepth, 32);
    assert_eq!(jobs[0].engine, EngineKind::IoUring);
    assert!(jobs[0].direct && jobs[0].time_based);
    assert_eq!(jobs[0].target, Target::Files(vec!["/tmp/f".into()]));
    assert_eq!(jobs[1].rw, RwMode::Write);
    assert_eq!(
        jobs[1].engine,
        EngineKind::IoUring,
        "global options apply to every job"
    );
    assert_eq!(jobs[1].size, Some(SizeSpec::Bytes(Bytes::mib(1))));

    let error =
        parse_command_line(&["--rw=read".to_string()], &ParseOptions::default()).unwrap_err();
    assert!(error.to_string().contains("--name"));
    let error = parse_command_line(
        &["--name=a".to_string(), "--sise=1m".to_string()],
        &ParseOptions::default(),
    )
    .unwrap_err();
    assert_eq!(error.line, 2);
    assert!(error.to_string().contains("did you mean 'size'"), "{error}");
}

#[test]
fn unknown_and_unsupported_are_different_errors() {
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\niodpeth=4\n").unwrap_err();
    assert_eq!(error.line, 4);
    assert_eq!(error.key.as_deref(), Some("iodpeth"));
    assert!(
        matches!(&*error.kind, ErrorKind::UnknownOption { suggestion: Some(s), .. } if s == "iodepth")
    );
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nverify_policy=2\n").unwrap_err();
    assert!(
        matches!(&*error.kind, ErrorKind::UnsupportedOption { key, .. } if key == "verify_policy")
    );
    assert!(
        error.to_string().contains(
            "fio option 'verify_policy' is not supported by iofit: iofit verifies in the job's own thread"
        ),
        "{error}"
    );

    let lenient = ParseOptions {
        overrides: vec![],
        ignore_unknown: true,
        ..Default::default()
    };
    assert!(parse_str("[a]\nsize=1m\ndirectory=/tmp\niodpeth=4\n", "t", &lenient).is_ok());
    assert!(parse_str("[a]\nsize=1m\ndirectory=/tmp\nverify=md6\n", "t", &lenient).is_err());
    assert!(parse("[a]\nsize=1m\ndirectory=/tmp\nverify=0\ndo_verify=0\n").is_ok());
}

#[test]
fn errors_are_one_line_with_file_and_line() {
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nbs=1g\n").unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with("test.fio:4: "), "{text}");
    assert!(!text.contains('\n'));
    assert_eq!(error.key.as_deref(), Some("bs"));
}

#[test]
fn existing_file_needs_no_size() {
    let dir = std::env::temp_dir();
    let path = dir.join(format!("iofit-jobfile-test-{}", std::process::id()));
    std::fs::write(&path, b"x").unwrap();
    let text = format!("[a]\nfilename={}\n", path.display());
    let jobs = parse(&text).unwrap();
    assert_eq!(jobs[0].size, None);
    std::fs::remove_file(&path).unwrap();
    let error = parse(&text).unwrap_err();
    assert_eq!(error.key.as_deref(), Some("filename"));
}

#[test]
fn include_reads_relative_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("common.fio"), "[global]\nsize=1m\nbs=16k\n").unwrap();
    std::fs::write(
        dir.path().join("main.fio"),
        "include common.fio\n[a]\ndirectory=/tmp\n",
    )
    .unwrap();
    let jobs = parse_file(&dir.path().join("main.fio"), &ParseOptions::default()).unwrap();
    assert_eq!(jobs[0].block_size.max_size(), Bytes::kib(16));
}

#[test]
fn environment_variables_expand_in_values() {
    std::env::set_var("IOFIT_TEST_BS", "16k");
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbs=${IOFIT_TEST_BS}\n").unwrap();
    assert_eq!(jobs[0].block_size.max_size(), Bytes::kib(16));
    // Unset: empty, as fio reads it (public job files log under ${TESTNAME}), with a note.
    let jobs = parse(
        "[a]\nsize=1m\ndirectory=/tmp\nwrite_bw_log=${IOFIT_TEST_UNSET_VARIABLE}\nlog_avg_msec=100\n",
    )
    .unwrap();
    assert_eq!(
        jobs[0].logs.bw_prefix.as_deref(),
        Some("a"),
        "fio's default prefix"
    );
    assert!(
        jobs[0].notes.iter().any(|n| matches!(
            n,
            JobNote::UnsetEnv { line: 4, variable, .. } if variable == "IOFIT_TEST_UNSET_VARIABLE"
        )),
        "{:?}",
        jobs[0].notes
    );
    // Where an empty value is no value, the option says so.
    let error =
        parse("[a]\nsize=1m\ndirectory=/tmp\nbs=${IOFIT_TEST_UNSET_VARIABLE}\n").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (4, Some("bs")));
}

#[test]
fn inline_comments_end_a_line_as_in_fio() {
    let jobs = parse(
        "[a] ; the job\nsize=1m # one MiB\ndirectory=/tmp\ngroup_reporting  # comment\nbs=8k;x\n",
    )
    .unwrap();
    assert!(jobs[0].group_reporting);
    assert_eq!(jobs[0].block_size.max_size(), Bytes::kib(8));
    assert_eq!(jobs[0].name, "a");
}

#[test]
fn system_variables_and_arithmetic_in_values() {
    let vars = crate::values::SystemVars::of_this_machine();
    let jobs = parse("[a]\nsize=(1024*8)k\ndirectory=/tmp\nnumjobs=$ncpus\nbs=$pagesize\nruntime=(2*1000*1000)\n").unwrap();
    assert_eq!(jobs[0].size, Some(SizeSpec::Bytes(Bytes::mib(8))));
    assert_eq!(u64::from(jobs[0].numjobs), vars.ncpus);
    assert_eq!(jobs[0].block_size.max_size(), Bytes(vars.pagesize));
    // fio reads a time expression without a unit in microseconds.
    assert_eq!(jobs[0].runtime, Some(Duration::from_secs(2)));
    let error = parse("[a]\nsize=(1024*)k\ndirectory=/tmp\n").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (2, Some("size")));
}

#[test]
fn section_picks_jobs_and_keeps_globals() {
    let text =
        "[global]\nsize=1m\ndirectory=/tmp\n[a]\nrw=read\n[b]\nrw=randwrite\n[c]\nrw=write\n";
    let opts = ParseOptions {
        sections: vec!["b".into(), "c".into()],
        ..Default::default()
    };
    let jobs = parse_str(text, "t.fio", &opts).unwrap();
    let names: Vec<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["b", "c"]);
    assert_eq!(jobs[0].size, Some(SizeSpec::Bytes(Bytes::mib(1))));
    let opts = ParseOptions {
        sections: vec!["nope".into()],
        ..Default::default()
    };
    let error = parse_str(text, "t.fio", &opts).unwrap_err();
    assert!(error.to_string().contains("--section nope"), "{error}");
}

#[test]
fn parse_only_does_not_look_at_targets() {
    let text = "[a]\nfilename=/dev/iofit-does-not-exist\nrw=randread\n";
    assert!(parse(text).is_err());
    let opts = ParseOptions {
        skip_target_checks: true,
        ..Default::default()
    };
    let jobs = parse_str(text, "t.fio", &opts).unwrap();
    assert_eq!(jobs[0].size, None);
}

#[test]
fn include_fan_out_is_capped_by_total_size() {
    // f0 includes f1 ten times, f1 includes f2 ten times...: 10^7 copies of f7 unless capped.
    let dir = tempfile::tempdir().unwrap();
    let padding = format!("; {}\n", "x".repeat(4000));
    for level in 0..8 {
        let text = if level == 7 {
            format!("[global]\nbs=4k\n{padding}")
        } else {
            format!(
                "{padding}{}",
                format!("include f{}.fio\n", level + 1).repeat(10)
            )
        };
        std::fs::write(dir.path().join(format!("f{level}.fio")), text).unwrap();
    }
    std::fs::write(
        dir.path().join("main.fio"),
        "include f0.fio\n[a]\nsize=1m\n",
    )
    .unwrap();
    let start = std::time::Instant::now();
    let error = parse_file(&dir.path().join("main.fio"), &ParseOptions::default()).unwrap_err();
    assert!(error.to_string().contains("MiB of job text"), "{error}");
    assert_eq!(error.key.as_deref(), Some("include"));
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn include_refuses_what_is_not_a_regular_file() {
    let error = parse("include /dev/zero\n[a]\nsize=1m\n").unwrap_err();
    assert!(error.to_string().contains("not a regular file"), "{error}");
}

#[test]
fn parsing_is_linear_in_jobs() {
    // 100k jobs: a quadratic name check took minutes; a linear one is well under a second in
    // release and a few seconds in a debug build. Each job its own set (stonewall): 100k
    // clones at once are more than any machine starts (`iofit_model::limits`).
    let mut text = String::from("[global]\nsize=1m\ndirectory=/tmp\nrw=randread\nstonewall\n");
    for index in 0..100_000 {
        text.push_str(&format!("[job{index}]\n"));
    }
    let start = std::time::Instant::now();
    let jobs = parse(&text).unwrap();
    assert_eq!(jobs.len(), 100_000);
    assert_eq!(jobs[99_999].name, "job99999");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn bsrange_is_the_sizes_fio_draws() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbsrange=1k-4k\nrw=randread\n").unwrap();
    match &jobs[0].block_size {
        BlockSizeSpec::Split { read, .. } => {
            let sizes: Vec<u64> = read.iter().map(|s| s.size.as_u64()).collect();
            // fio draws 1k + 4k x u and rounds down to a multiple of 1k: 1k..4k, 25% each.
            assert_eq!(sizes, [1024, 2048, 3072, 4096]);
            assert!(read.iter().all(|s| (s.pct - 25.0).abs() < 1e-9));
        }
        other => panic!("{other:?}"),
    }
    assert!(jobs[0]
        .notes
        .iter()
        .any(|n| n.accepted_option() == Some("bsrange")));
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbsrange=8k-8k\n").unwrap();
    assert_eq!(jobs[0].block_size.mean_size(Direction::Read), Bytes::kib(8));
    // 4k-10k: r = 2.5, so 4k and 8k take 40% each and the rest (20%) goes to 10k.
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbsrange=4k-10k\n").unwrap();
    match &jobs[0].block_size {
        BlockSizeSpec::Split { read, .. } => {
            let got: Vec<(u64, f64)> = read.iter().map(|s| (s.size.as_u64(), s.pct)).collect();
            assert_eq!(got.len(), 3);
            assert_eq!((got[0].0, got[1].0, got[2].0), (4096, 8192, 10240));
            assert!((got[0].1 - 40.0).abs() < 1e-9 && (got[2].1 - 20.0).abs() < 1e-9);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn blockalign_sets_the_offset_alignment() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbs=512\nblockalign=4k\nrw=randread\n").unwrap();
    assert_eq!(jobs[0].block_align, Some(Bytes::kib(4)));
    assert!(job_options(&jobs[0]).contains(&("blockalign".into(), "4096".into())));
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\ndirect=1\nba=1000\n").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (5, Some("blockalign")));
    let jobs =
        parse("[a]\nsize=1m\ndirectory=/tmp\nrandom_distribution=zoned:50/5:30/15:20/\n").unwrap();
    match &jobs[0].random_distribution {
        iofit_model::job::RandomDistribution::Zoned(zones) => {
            assert_eq!(zones[2].size, iofit_model::job::ZoneSize::Percent(80.0))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn number_ios_is_an_io_size() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbs=8k\nnumber_ios=10\nrw=randread\n").unwrap();
    assert_eq!(jobs[0].io_limit, Some(Bytes::kib(80)));
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbs=8k\nio_size=16k\nnumber_ios=10\n").unwrap();
    assert_eq!(jobs[0].io_limit, Some(Bytes::kib(16)));
    assert!(parse("[a]\nsize=1m\ndirectory=/tmp\nbs=4k,8k\nrw=randrw\nnumber_ios=10\n").is_err());
}

#[test]
fn filesize_is_per_file() {
    let jobs = parse("[a]\ndirectory=/tmp\nnrfiles=4\nfilesize=2m\n").unwrap();
    assert_eq!(jobs[0].size, Some(SizeSpec::Bytes(Bytes::mib(2))));
    // A range draws one size for the job's files (control_tests has the details).
    assert!(parse("[a]\ndirectory=/tmp\nfilesize=1m-2m\n").is_ok());
}

#[test]
fn engines_run_mapped_or_refused_with_reason() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nioengine=posixaio\niodepth=8\n").unwrap();
    assert_eq!(jobs[0].engine, EngineKind::IoUring);
    assert!(jobs[0]
        .notes
        .iter()
        .any(|n| n.accepted_option() == Some("ioengine") && n.to_string().contains("posixaio")));
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nioengine=pvsync2\n").unwrap();
    assert_eq!(jobs[0].engine, EngineKind::Pvsync);
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nioengine=rdma\n").unwrap_err();
    assert!(error.to_string().contains("RDMA network"), "{error}");
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nioengine=spdk\n").unwrap_err();
    assert!(error.to_string().contains("raw device"), "{error}");
}

#[test]
fn noted_options_are_accepted_and_said() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nrandom_generator=lfsr\nio_submit_mode=offload\ngtod_reduce=1\nthreads=1\n").unwrap();
    let options: Vec<&str> = jobs[0]
        .notes
        .iter()
        .filter_map(JobNote::accepted_option)
        .collect();
    assert_eq!(
        options,
        [
            "random_generator",
            "io_submit_mode",
            "gtod_reduce",
            "threads"
        ]
    );
    assert!(parse("[a]\nsize=1m\ndirectory=/tmp\nrandom_generator=mt\n").is_err());
    // A refused option names its reason.
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nzonemode=zbd\n").unwrap_err();
    assert!(error.to_string().contains("zoned block devices"), "{error}");
}

#[test]
fn every_table_name_is_unique_and_flags_are_booleans() {
    let table = crate::fio_options::table();
    let names: Vec<&str> = table.names().collect();
    let unique: std::collections::HashSet<&str> = names.iter().copied().collect();
    assert_eq!(names.len(), unique.len());
    assert!(crate::fio_options::is_flag("time_based"));
    assert!(!crate::fio_options::is_flag("bs"));
}

#[test]
fn bs_ranges_fallocate_invalidate_and_engine_first() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nbs=4k-16k\nfallocate=none\n").unwrap();
    assert_eq!(jobs[0].block_size.max_size(), Bytes::kib(16));
    assert!(matches!(jobs[0].block_size, BlockSizeSpec::Split { .. }));
    // fio's invalidate (default 1) drops a buffered job's cached pages; a direct job has none.
    let direct = parse("[a]\nsize=1m\ndirectory=/tmp\ndirect=1\ninvalidate=1\n").unwrap();
    assert!(!direct[0].file_sync.invalidate && direct[0].file_sync.fadvise.is_none());
    let kept = parse("[a]\nsize=1m\ndirectory=/tmp\ninvalidate=0\n").unwrap();
    assert!(!kept[0].file_sync.invalidate);
    for text in ["invalidate=1\n", ""] {
        let jobs = parse(&format!("[a]\nsize=1m\ndirectory=/tmp\n{text}")).unwrap();
        assert!(jobs[0].file_sync.invalidate, "{text:?}");
    }
    // An engine iofit lacks is the reason given, even after one of that engine's options.
    let error =
        parse("[a]\nsize=1m\ndirectory=/tmp\nbuffer_pattern=0xff\nioengine=sg\n").unwrap_err();
    assert_eq!(error.kind.name(), "UnsupportedEngine");
    // fio reads 10*1000 as 10 bytes (compat_tests.rs), smaller than the 4k block.
    let error = parse("[a]\ndirectory=/tmp\nfilesize=10*1000\n").unwrap_err();
    assert!(
        error
            .to_string()
            .contains("larger than the size per file 10B"),
        "{error}"
    );
}

#[test]
fn random_distributions_parse_as_fio_writes_them() {
    use iofit_model::job::{AccessZone, RandomDistribution as D, ZoneSize};
    let dist = |v: &str| {
        parse(&format!(
            "[a]\nsize=1g\ndirectory=/tmp\nrw=randread\nrandom_distribution={v}\n"
        ))
        .map(|jobs| jobs[0].random_distribution.clone())
    };
    assert_eq!(
        dist("zipf:1.2").unwrap(),
        D::Zipf {
            theta: 1.2,
            center: None
        }
    );
    assert_eq!(
        dist("pareto:0.2:0.5").unwrap(),
        D::Pareto {
            h: 0.2,
            center: Some(0.5)
        }
    );
    assert_eq!(
        dist("normal:10").unwrap(),
        D::Normal {
            deviation_pct: 10.0,
            center: None
        }
    );
    assert_eq!(dist("random").unwrap(), D::Uniform);
    assert_eq!(
        dist("zoned:60/10:40/90").unwrap(),
        D::Zoned(vec![
            AccessZone {
                access_pct: 60.0,
                size: ZoneSize::Percent(10.0)
            },
            AccessZone {
                access_pct: 40.0,
                size: ZoneSize::Percent(90.0)
            },
        ])
    );
    assert_eq!(
        dist("zoned_abs:90/1m:10/10m").unwrap(),
        D::Zoned(vec![
            AccessZone {
                access_pct: 90.0,
                size: ZoneSize::Bytes(Bytes::mib(1))
            },
            AccessZone {
                access_pct: 10.0,
                size: ZoneSize::Bytes(Bytes::mib(10))
            },
        ])
    );
    for bad in [
        "zipf:1",
        "zipf:x",
        "pareto:1.5",
        "zoned:60/10:30/90",
        "lognormal:2",
        "zipf:1.2:2",
    ] {
        let error = dist(bad).unwrap_err();
        assert_eq!(
            (error.line, error.key.as_deref()),
            (5, Some("random_distribution")),
            "{bad}"
        );
    }
    // The option names written back are fio's.
    let jobs =
        parse("[a]\nsize=1g\ndirectory=/tmp\nrw=randread\nrandom_distribution=zipf:1.2\n").unwrap();
    assert!(job_options(&jobs[0]).contains(&("random_distribution".into(), "zipf:1.2".into())));
}

#[test]
fn rw_offset_modifiers() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nrw=read:-8k\n").unwrap();
    assert_eq!((jobs[0].rw, jobs[0].seq_add_bytes), (RwMode::Read, -8192));
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nrw=write:112k\n").unwrap();
    assert_eq!(jobs[0].seq_add_bytes, 112 * 1024);
    assert!(job_options(&jobs[0]).contains(&("rw".into(), "write:114688".into())));
    let jobs =
        parse("[a]\nsize=1m\ndirectory=/tmp\nrw=randread:8\nrw_sequencer=identical\n").unwrap();
    assert_eq!(
        (jobs[0].random_run, jobs[0].repeat_offset_in_run),
        (8, true)
    );
    let jobs =
        parse("[a]\nsize=1m\ndirectory=/tmp\nrw=randread\npercentage_sequential=30\n").unwrap();
    assert_eq!(jobs[0].random_pct, 70.0);
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nrw=randread:x\n").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (4, Some("rw")));
}

#[test]
fn logs_need_averaging_and_one_series_per_clone() {
    let jobs =
        parse("[a]\nsize=1m\ndirectory=/tmp\nwrite_bw_log\nlog_avg_msec=500\nper_job_logs=1\n")
            .unwrap();
    assert_eq!(jobs[0].logs.bw_prefix.as_deref(), Some("a"));
    assert_eq!(jobs[0].log_interval, Duration::from_millis(500));
    // No log_avg_msec: fio's per-IO logs, per clone, also with group_reporting and mixed jobs
    // (fio_compat_cli.rs runs them).
    for per_io in [
        "write_bw_log=x\n",
        "write_lat_log=x\nrw=randrw\ngroup_reporting\n",
    ] {
        let jobs = parse(&format!("[a]\nsize=1m\ndirectory=/tmp\n{per_io}")).unwrap();
        assert!(jobs[0].logs.per_io, "{per_io}");
    }
    // Averaged latency and histogram logs of mixed jobs: a line per direction
    // (fio_logs_mixed_cli.rs checks them against the JSON).
    for mixed in [
        "write_lat_log=x\nlog_avg_msec=100\nrw=randrw\n",
        "write_hist_log=x\nlog_hist_msec=100\nrw=randrw\n",
    ] {
        assert!(
            parse(&format!("[a]\nsize=1m\ndirectory=/tmp\n{mixed}")).is_ok(),
            "{mixed}"
        );
    }
    // group_reporting: every clone writes its own logs as fio does (PREFIX_KIND.N.log, N
    // counted over the clones of every job), whether it is alone in its group or not.
    let grouped = "write_bw_log=x\nlog_avg_msec=100\ngroup_reporting\n";
    assert!(parse(&format!("[a]\nsize=1m\ndirectory=/tmp\n{grouped}")).is_ok());
    let two = format!("[global]\nsize=1m\ndirectory=/tmp\n{grouped}[a]\n[b]\n");
    assert_eq!(parse(&two).unwrap().len(), 2);
    let clones = format!("[a]\nsize=1m\ndirectory=/tmp\n{grouped}numjobs=2\n");
    assert_eq!(parse(&clones).unwrap()[0].numjobs, 2);
    for bad in [
        "write_hist_log=x\n",
        "write_hist_log=x\nlog_hist_msec=100\nlog_avg_msec=200\n",
    ] {
        assert!(
            parse(&format!("[a]\nsize=1m\ndirectory=/tmp\n{bad}")).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn log_styles_and_histogram_logs() {
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nwrite_iops_log=x\nlog_avg_msec=100\nlog_offset=1\nlog_unix_epoch=1\nper_job_logs=0\nwrite_hist_log=h\nlog_hist_msec=100\n").unwrap();
    let logs = &jobs[0].logs;
    assert!(logs.with_offset && logs.unix_epoch && logs.shared_file);
    assert_eq!(logs.hist_prefix.as_deref(), Some("h"));
    assert_eq!(jobs[0].log_interval, Duration::from_millis(100));
    let jobs = parse("[a]\nsize=1m\ndirectory=/tmp\nwrite_hist_log\nlog_hist_msec=250\n").unwrap();
    assert_eq!(jobs[0].logs.hist_prefix.as_deref(), Some("a"));
    assert_eq!(jobs[0].log_interval, Duration::from_millis(250));
}

#[test]
fn reporting_options_and_options_as_written() {
    use iofit_model::job::UnifiedRw;
    let text = "[global]\nioengine=libaio\nsize=1m  \ntime_based\nruntime=1\n\n[a]\ndirectory=/tmp\nbs=4k\npercentile_list=99.9:50:99\nlat_percentiles=1\nclat_percentiles=0\nslat_percentiles\nunified_rw_reporting=both\nsignificant_figures=6\n";
    let job = &parse(text).unwrap()[0];
    let r = &job.reporting;
    assert_eq!(r.percentile_list, vec![50.0, 99.0, 99.9]);
    assert!(r.lat_percentiles && r.slat_percentiles && !r.clat_percentiles);
    assert_eq!(r.unified_rw_reporting, UnifiedRw::Both);
    assert_eq!(r.significant_figures, 6);
    // As written, trimmed; bare flags left out as fio leaves them out.
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(
        r.global_options,
        vec![
            pair("ioengine", "libaio"),
            pair("size", "1m"),
            pair("runtime", "1")
        ]
    );
    assert_eq!(r.job_options[0], pair("directory", "/tmp"));
    assert_eq!(r.job_options[2], pair("percentile_list", "99.9:50:99"));
    // A command-line job lists its --name, as fio's JSON does.
    let args: Vec<String> = ["--name=x", "--size=1m", "--filename=/tmp/f"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let jobs = parse_command_line(&args, &ParseOptions::default()).unwrap();
    assert_eq!(jobs[0].reporting.job_options[0], pair("name", "x"));
    for (bad, key) in [
        ("percentile_list=0:50", "percentile_list"),
        ("percentile_list=50:x", "percentile_list"),
        ("percentile_list=101", "percentile_list"),
        ("unified_rw_reporting=some", "unified_rw_reporting"),
        ("significant_figures=11", "significant_figures"),
    ] {
        let error = parse(&format!("[a]\ndirectory=/tmp\nsize=1m\n{bad}\n")).unwrap_err();
        assert_eq!(
            (error.line, error.key.as_deref()),
            (4, Some(key)),
            "{error}"
        );
    }
    let many: Vec<String> = (1..=21).map(|p| p.to_string()).collect();
    let error = parse(&format!(
        "[a]\ndirectory=/tmp\nsize=1m\npercentile_list={}\n",
        many.join(":")
    ))
    .unwrap_err();
    assert!(error.to_string().contains("at most 20"), "{error}");
}

#[test]
fn parse_only_lists_every_refusal_and_a_run_stops_at_the_first() {
    let text = "[global]\nzonemode=zbd\n[a]\nsize=1m\nexec_prerun=ls\nbogus=1\n[b]\nioengine=rbd\n";
    let listing = ParseOptions {
        skip_target_checks: true,
        ..ParseOptions::default()
    };
    let error = parse_str(text, "t.fio", &listing).unwrap_err();
    let ErrorKind::Refusals(all) = error.kind.as_ref() else {
        panic!("{error}");
    };
    let places: Vec<(usize, Option<&str>)> =
        all.iter().map(|e| (e.line, e.key.as_deref())).collect();
    assert_eq!(
        places,
        [
            (2, Some("zonemode")),
            (5, Some("exec_prerun")),
            (6, Some("bogus")),
            (8, Some("ioengine"))
        ]
    );
    assert_eq!(error.to_string().lines().count(), 5, "{error}");
    // A run: the first refusal only.
    let first = parse_str(text, "t.fio", &ParseOptions::default()).unwrap_err();
    assert_eq!((first.line, first.key.as_deref()), (2, Some("zonemode")));
}

#[test]
fn a_runtime_override_bounds_startdelay() {
    let opts = ParseOptions {
        overrides: vec![("runtime".into(), "2".into())],
        ..ParseOptions::default()
    };
    let jobs = parse_str(
        "[a]\nsize=1m\ndirectory=/tmp\nstartdelay=1470\n",
        "t.fio",
        &opts,
    )
    .unwrap();
    assert_eq!(jobs[0].start_delay, std::time::Duration::from_secs(2));
    assert_eq!(
        jobs[0].notes,
        [JobNote::StartDelayBounded {
            delay_s: iofit_model::units::Seconds(1470.0),
            runtime_s: iofit_model::units::Seconds(2.0)
        }]
    );
    assert!(jobs[0].notes[0]
        .to_string()
        .starts_with("startdelay=1470s "));
}
