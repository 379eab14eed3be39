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
            assert_eq!(result.read.io_bytes, result.read.ios * BLOCK);
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
        // Generation 1, then generation 2 over it, each saving the generations.
        let mut writer = job(dir.path(), RwMode::Write, mode, engine, 8);
        writer.data.verify.do_verify = false;
        writer.data.verify.state_save = Some(state_dir.path().to_path_buf());
        assert_eq!(run(&writer).error, None);
        let target = dir.path().join("v.0.0");
        let previous = inject::snapshot(&target).unwrap();
        writer.data.verify.state_load = Some(state_dir.path().to_path_buf());
        writer.rw = RwMode::RandWrite;
        writer.random_pct = 100.0;
        assert_eq!(run(&writer).error, None);
        // A clean check first: no false positives.
        let mut checker = job(dir.path(), RwMode::Write, mode, engine, 8);
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
        let pristine = dir.path().join("pristine");
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
