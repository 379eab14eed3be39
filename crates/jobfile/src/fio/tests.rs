use super::*;
use iofit_model::job::Direction;

/// The seed's `fiowrite.ini`, verbatim (seed 000, FIO section).
const FIOWRITE: &str = "[global]\nsize=30g\ndirect=1\niodepth=256\nioengine=libaio\nbs=8k\n\n[writer1]\nrw=randwrite\ndirectory=/mnt/nocache\n[writer2]\nrw=randwrite\ndirectory=/mnt/nocache\n[writer3]\nrw=randwrite\ndirectory=/mnt/nocache\n[writer4]\nrw=randwrite\ndirectory=/mnt/nocache\n";
const FIOREAD: &str = "[global]\nsize=30g\ndirect=1\niodepth=256\nioengine=libaio\nbs=8k\n\n[reader1]\nrw=randread\ndirectory=/mnt/readcache\n[reader2]\nrw=randread\ndirectory=/mnt/readcache\n[reader3]\nrw=randread\ndirectory=/mnt/readcache\n[reader4]\nrw=randread\ndirectory=/mnt/readcache\n";
const FIOREADWRITE: &str = "[global]\nsize=30g\ndirect=1\niodepth=128\nioengine=libaio\nbs=4k\n\n[reader1]\nrw=randread\ndirectory=/mnt/readcache\n[reader2]\nrw=randread\ndirectory=/mnt/readcache\n[reader3]\nrw=randread\ndirectory=/mnt/readcache\n[reader4]\nrw=randread\ndirectory=/mnt/readcache\n\n[writer1]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n[writer2]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n[writer3]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n[writer4]\nrw=randwrite\ndirectory=/mnt/nocache\nrate_iops=12500\n";

fn parse(text: &str) -> Result<Vec<JobSpec>, JobFileError> {
    parse_str(text, "test.fio", &ParseOptions::default())
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
    job
}

#[test]
fn seed_fiowrite_exact_jobs() {
    let jobs = parse(FIOWRITE).unwrap();
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
    let jobs = parse(FIOREAD).unwrap();
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
    let jobs = parse(FIOREADWRITE).unwrap();
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
    let error = parse("[a]\nsize=1m\ndirectory=/tmp\nverify=md5\n").unwrap_err();
    assert_eq!(*error.kind, ErrorKind::UnsupportedOption("verify".into()));
    assert!(error
        .to_string()
        .contains("fio option 'verify' is not supported by iofit yet"));

    let lenient = ParseOptions {
        overrides: vec![],
        ignore_unknown: true,
    };
    assert!(parse_str("[a]\nsize=1m\ndirectory=/tmp\niodpeth=4\n", "t", &lenient).is_ok());
    assert!(parse_str("[a]\nsize=1m\ndirectory=/tmp\nverify=md5\n", "t", &lenient).is_err());
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
    let error =
        parse("[a]\nsize=1m\ndirectory=/tmp\nbs=${IOFIT_TEST_UNSET_VARIABLE}\n").unwrap_err();
    assert_eq!((error.line, error.key.as_deref()), (4, Some("bs")));
    assert!(error.to_string().contains("IOFIT_TEST_UNSET_VARIABLE"));
}
