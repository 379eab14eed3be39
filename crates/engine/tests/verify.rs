//! Data verification through the raw engine: clean runs find nothing, and every fault the
//! harness (`iofit_blockdata::inject`) puts between the write and the verify is found at the
//! block it hit. Real files in a temporary directory, page-cached and O_DIRECT, psync and
//! io_uring.

use iofit_blockdata::inject::{self, FaultKind};
use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::data::VerifyMode;
use iofit_model::job::{BlockSizeSpec, EngineKind, JobSpec, RwMode, SizeSpec, Target};
use iofit_model::units::Bytes;
use iofit_stats::{JobResult, VerifyResult};
use std::path::Path;

const BLOCK: u64 = 4096;

fn job(dir: &Path, rw: RwMode, mode: VerifyMode, engine: EngineKind, mib: u64) -> JobSpec {
    let mut job = JobSpec::new(
        "v",
        Target::Directory {
            path: dir.to_path_buf(),
            nrfiles: 1,
        },
    )
    .with_rw(rw);
    job.engine = engine;
    job.iodepth = 8;
    job.size = Some(SizeSpec::Bytes(Bytes::mib(mib)));
    job.block_size = BlockSizeSpec::fixed(Bytes(BLOCK));
    job.data.verify.mode = mode;
    job
}

fn run(job: &JobSpec) -> JobResult {
    let report = run_jobs(
        std::slice::from_ref(job),
        &RunOptions::default(),
        &mut Silent,
    )
    .expect("run");
    report.result.jobs.into_iter().next().expect("one job")
}

fn verify_of(result: &JobResult) -> &VerifyResult {
    result.verify.as_ref().expect("the job verified")
}

#[test]
fn clean_runs_check_every_block_and_find_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for (rw, engine) in [
        (RwMode::Write, EngineKind::Psync),
        (RwMode::RandWrite, EngineKind::IoUring),
        (RwMode::RandRw, EngineKind::IoUring),
    ] {
        for mode in [
            VerifyMode::Crc32c,
            VerifyMode::Md5,
            VerifyMode::Sha256,
            VerifyMode::Xxhash,
            VerifyMode::Meta,
        ] {
            let mut job = job(dir.path(), rw, mode, engine, 2);
            job.data.verify.check_reads = rw.is_mixed();
            let result = run(&job);
            assert_eq!(result.error, None, "{rw:?} {mode:?}");
            let v = verify_of(&result);
            assert_eq!(v.bad_units, 0, "{rw:?} {mode:?}: {:?}", v.errors);
            // The verify phase reads every block written once, and those reads are counted.
            assert!(
                v.units_checked >= result.write.ios.min(512),
                "{rw:?} {mode:?}"
            );
            assert_eq!(result.read.completion_latency.count, result.read.ios);
            assert_eq!(
                result.read.io_bytes,
                iofit_model::Bytes(result.read.ios * BLOCK)
            );
            assert!(result.read.ios >= v.units_checked);
        }
    }
}

#[test]
fn every_injected_fault_is_found_at_its_block() {
    let dir = tempfile::tempdir().unwrap();
    let state_dir = tempfile::tempdir().unwrap();
    let mut total = 0;
    for (mode, engine, faults) in [
        (VerifyMode::Crc32c, EngineKind::IoUring, 800),
        (VerifyMode::Md5, EngineKind::Psync, 300),
    ] {
        // Each mode in its own directory: the harness wrote into the last mode's file, so that
        // file is no longer iofit's to write (safefs's content seal).
        let mode_dir = dir.path().join(format!("{mode:?}"));
        std::fs::create_dir(&mode_dir).unwrap();
        // Generation 1, then generation 2 over it, each saving the generations.
        let mut writer = job(&mode_dir, RwMode::Write, mode, engine, 8);
        writer.data.verify.do_verify = false;
        writer.data.verify.state_save = Some(state_dir.path().to_path_buf());
        assert_eq!(run(&writer).error, None);
        let target = mode_dir.join("v.0.0");
        let previous = inject::snapshot(&target).unwrap();
        writer.data.verify.state_load = Some(state_dir.path().to_path_buf());
        writer.rw = RwMode::RandWrite;
        writer.random_pct = 100.0;
        assert_eq!(run(&writer).error, None);
        // A clean check first: no false positives.
        let mut checker = job(&mode_dir, RwMode::Write, mode, engine, 8);
        checker.data.verify.only = true;
        checker.data.verify.state_load = Some(state_dir.path().to_path_buf());
        let clean = run(&checker);
        assert_eq!(
            verify_of(&clean).bad_units,
            0,
            "{:?}",
            verify_of(&clean).errors
        );
        assert_eq!(verify_of(&clean).units_checked, 8 * 256);
        // Corrupt in batches (a verify run lists its first 100 bad units), checking after
        // each and putting the good generation back before the next.
        let pristine = mode_dir.join("pristine");
        std::fs::copy(&target, &pristine).unwrap();
        let planned = inject::plan(0, 8 * 256, BLOCK, faults, mode as u64);
        for kind in FaultKind::ALL {
            assert!(planned.iter().any(|f| f.kind == kind));
        }
        for batch in planned.chunks(80) {
            inject::apply(&target, &previous, batch, 7).unwrap();
            let result = run(&checker);
            let v = verify_of(&result);
            assert_eq!(v.bad_units as usize, v.errors.len(), "all listed");
            let reported: Vec<(u64, u64)> = v.errors.iter().map(|e| (e.offset, e.length)).collect();
            let score = inject::score(batch, &reported);
            assert_eq!(score.missed, vec![], "{mode:?}");
            assert_eq!(score.false_positives, vec![], "{mode:?}");
            assert!(v
                .errors
                .iter()
                .all(|e| e.file.ends_with("v.0.0") && e.length == BLOCK && !e.expected.is_empty()));
            total += score.detected;
            std::fs::copy(&pristine, &target).unwrap();
        }
        std::fs::remove_file(previous).unwrap();
        std::fs::remove_file(pristine).unwrap();
    }
    assert!(total >= 1000, "{total} faults");
}

#[test]
fn backlog_interval_offset_pattern_and_dump() {
    use iofit_model::data::PatternPart;
    let dir = tempfile::tempdir().unwrap();
    // verify_backlog: every 16 writes, the last 16 blocks are read back; no verify phase.
    let mut j = job(
        dir.path(),
        RwMode::RandWrite,
        VerifyMode::Crc32c,
        EngineKind::IoUring,
        1,
    );
    j.data.verify.do_verify = false;
    j.data.verify.backlog = Some(16);
    let r = run(&j);
    assert_eq!(r.error, None);
    assert_eq!(verify_of(&r).units_checked, 256);
    assert_eq!(r.read.ios, 256);
    // verify_interval splits a 16k block into four units, each with a header at verify_offset.
    let mut j = job(
        dir.path(),
        RwMode::Write,
        VerifyMode::Sha1,
        EngineKind::Psync,
        1,
    );
    j.block_size = BlockSizeSpec::fixed(Bytes::kib(16));
    j.data.verify.interval_bytes = Some(iofit_model::Bytes(4096));
    j.data.verify.header_offset_bytes = iofit_model::Bytes(1024);
    let r = run(&j);
    assert_eq!(
        (verify_of(&r).units_checked, verify_of(&r).bad_units),
        (256, 0)
    );
    let data = std::fs::read(dir.path().join("v.0.0")).unwrap();
    for unit in data[..1 << 20].chunks(4096) {
        assert_eq!(
            &unit[1024..1028],
            &iofit_blockdata::verify::MAGIC.to_le_bytes()
        );
    }
    // verify=pattern with %o: each block holds the pattern and its own offset.
    let mut j = job(
        dir.path(),
        RwMode::Write,
        VerifyMode::Pattern,
        EngineKind::Psync,
        1,
    );
    j.data.verify.pattern = vec![PatternPart::Bytes(vec![0xde, 0xad]), PatternPart::Offset];
    j.data.verify.state_save = Some(dir.path().to_path_buf());
    let r = run(&j);
    assert_eq!(
        (verify_of(&r).units_checked, verify_of(&r).bad_units),
        (256, 0)
    );
    let data = std::fs::read(dir.path().join("v.0.0")).unwrap();
    assert_eq!(&data[8192..8202], &[0xde, 0xad, 0, 0x20, 0, 0, 0, 0, 0, 0]);
    // A flipped byte: found, and verify_dump writes what was read and what was expected.
    let path = dir.path().join("v.0.0");
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&file, &[0x55], 8192 + 100).unwrap();
    j.data.verify.only = true;
    j.data.verify.dump = true;
    j.data.verify.state_load = Some(dir.path().to_path_buf());
    j.data.verify.state_save = None;
    let r = run(&j);
    let v = verify_of(&r);
    assert_eq!(v.bad_units, 1);
    assert_eq!(
        (v.errors[0].offset, v.errors[0].kind.as_str()),
        (8192, "bad pattern")
    );
    let received = std::fs::read(dir.path().join("v.0.0.8192.received")).unwrap();
    let expected = std::fs::read(dir.path().join("v.0.0.8192.expected")).unwrap();
    assert_eq!((received[100], expected.len()), (0x55, 4096));
    assert_ne!(received, expected);
    // A job refused before it runs: a header that does not fit its unit.
    let mut j = job(
        dir.path(),
        RwMode::Write,
        VerifyMode::Sha512,
        EngineKind::Psync,
        1,
    );
    j.data.verify.header_offset_bytes = iofit_model::Bytes(4050);
    let e = run_jobs(&[j], &RunOptions::default(), &mut Silent).unwrap_err();
    assert!(e.to_string().contains("verify_offset"), "{e}");
    // The generation table (4 bytes a unit) counts in the run's memory check: 1 PiB of
    // 4 KiB units is refused before anything is written, not an allocation failure.
    let mut j = job(
        dir.path(),
        RwMode::Write,
        VerifyMode::Crc32c,
        EngineKind::Psync,
        1,
    );
    j.size = Some(SizeSpec::Bytes(Bytes(1 << 50)));
    let e = run_jobs(&[j], &RunOptions::default(), &mut Silent).unwrap_err();
    assert!(e.to_string().contains("memory"), "{e}");
    // Clones sharing one named file would take each other's writes for corruption.
    let mut j = job(
        dir.path(),
        RwMode::Write,
        VerifyMode::Crc32c,
        EngineKind::Psync,
        1,
    );
    j.target = Target::Files(vec![dir.path().join("shared")]);
    j.numjobs = 2;
    let e = run_jobs(&[j], &RunOptions::default(), &mut Silent).unwrap_err();
    assert!(e.to_string().contains("numjobs"), "{e}");
}
