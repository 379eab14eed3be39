//! fio's file_service_type and pre_read measured on a real run: which files (and how much of
//! them) a buffered read job brought into the kernel's page cache (mincore over a mapping of
//! each file) after the files' pages were dropped (fdatasync + POSIX_FADV_DONTNEED); and
//! create_only and filename_format by the files they leave. Files in the temp dir.

use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::job::{
    EngineKind, FileService, FileServiceKind, JobSpec, RandomDistribution, RwMode, SizeSpec, Target,
};
use iofit_model::units::Bytes;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

const FILES: u32 = 4;
const FILE_BYTES: u64 = 1 << 20;

fn job(dir: &Path, service: FileService, io_bytes: u64) -> JobSpec {
    let mut job = JobSpec::new(
        "fst",
        Target::Directory {
            path: dir.to_path_buf(),
            nrfiles: FILES,
        },
    )
    .with_rw(RwMode::RandRead);
    job.engine = EngineKind::Psync;
    // A directory job's size is per file in the JobSpec (the fio parser divides fio's total).
    job.size = Some(SizeSpec::Bytes(Bytes(FILE_BYTES)));
    job.io_limit = Some(Bytes(io_bytes));
    job.file_service = service;
    job
}

/// Drops the files' pages from the page cache.
fn drop_cache(paths: &[PathBuf]) {
    for path in paths {
        let file = File::open(path).unwrap();
        file.sync_all().unwrap();
        // SAFETY: a plain syscall on a descriptor that lives for the call.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(rc, 0);
    }
}

/// Pages of each file in the page cache (mincore of a read-only shared mapping).
fn resident_pages(paths: &[PathBuf]) -> Vec<usize> {
    paths
        .iter()
        .map(|path| {
            let file = File::open(path).unwrap();
            let len = file.metadata().unwrap().len() as usize;
            let pages = len.div_ceil(4096);
            let mut vec = vec![0u8; pages];
            // SAFETY: a fresh read-only mapping of `len` bytes of an open file, unmapped below;
            // mincore writes one byte per page into `vec`, which holds `pages` bytes.
            unsafe {
                let addr = libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ,
                    libc::MAP_SHARED,
                    file.as_raw_fd(),
                    0,
                );
                assert_ne!(addr, libc::MAP_FAILED);
                assert_eq!(libc::mincore(addr, len, vec.as_mut_ptr()), 0);
                libc::munmap(addr, len);
            }
            vec.iter().filter(|&&b| b & 1 == 1).count()
        })
        .collect()
}

/// Runs `service` over fresh-from-disk files; returns the resident pages per file.
fn touched(dir: &Path, service: FileService, io_bytes: u64) -> Vec<usize> {
    // A first run lays the files out; the measured run reuses them.
    let layout = job(dir, FileService::default(), 4096 * FILES as u64);
    let paths = layout.files_for_clone(0);
    run_jobs(&[layout], &RunOptions::default(), &mut Silent).unwrap();
    drop_cache(&paths);
    let before = resident_pages(&paths);
    let report = run_jobs(
        &[job(dir, service, io_bytes)],
        &RunOptions::default(),
        &mut Silent,
    )
    .unwrap();
    let r = &report.result.jobs[0];
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.read.io_bytes, iofit_model::Bytes(io_bytes));
    let after = resident_pages(&paths);
    eprintln!("resident pages before {before:?}, after {after:?}");
    after
}

#[test]
fn sequential_service_reads_only_the_first_file_until_it_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let service = FileService {
        kind: FileServiceKind::Sequential,
        ios_per_choice: 1,
    };
    // Half of the first file's size: fio stays on file 0 for all of it.
    let pages = touched(dir.path(), service, FILE_BYTES / 2);
    assert!(pages[0] >= 128, "{pages:?}");
    assert_eq!(
        &pages[1..],
        &[0, 0, 0],
        "no IO went to the other files: {pages:?}"
    );
}

#[test]
fn roundrobin_and_random_touch_every_file_zipf_favours_the_first() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [FileServiceKind::RoundRobin, FileServiceKind::Random] {
        let service = FileService {
            kind: kind.clone(),
            ios_per_choice: 1,
        };
        let pages = touched(dir.path(), service, 64 * 4096);
        assert!(pages.iter().all(|&p| p >= 8), "{kind:?}: {pages:?}");
    }
    let zipf = FileService {
        kind: FileServiceKind::Skewed(RandomDistribution::Zipf {
            theta: 1.2,
            center: Some(0.0),
        }),
        ios_per_choice: 1,
    };
    let pages = touched(dir.path(), zipf, 64 * 4096);
    assert!(pages[0] > pages[1..].iter().sum::<usize>(), "{pages:?}");
}

#[test]
fn pre_read_brings_the_whole_file_into_the_page_cache_before_the_job() {
    let dir = tempfile::tempdir().unwrap();
    let one_io = |pre_read: bool| {
        let layout = job(dir.path(), FileService::default(), 4096 * FILES as u64);
        let paths = layout.files_for_clone(0);
        run_jobs(&[layout], &RunOptions::default(), &mut Silent).unwrap();
        drop_cache(&paths);
        let mut j = job(dir.path(), FileService::default(), 4096);
        j.file_sync.pre_read = pre_read;
        let report = run_jobs(&[j], &RunOptions::default(), &mut Silent).unwrap();
        assert_eq!(report.result.jobs[0].read.ios, 1);
        resident_pages(&paths)
    };
    let without = one_io(false);
    let with = one_io(true);
    eprintln!("resident pages after one 4 KiB read: {without:?} without pre_read, {with:?} with");
    let file_pages = (FILE_BYTES / 4096) as usize;
    assert!(with.iter().all(|&p| p == file_pages), "{with:?}");
    assert!(without.iter().sum::<usize>() < file_pages, "{without:?}");
}

#[test]
fn create_only_lays_the_files_out_and_runs_no_io() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), FileService::default(), 64 * 4096);
    j.file_sync.create_only = true;
    let paths = j.files_for_clone(0);
    let report = run_jobs(&[j], &RunOptions::default(), &mut Silent).unwrap();
    let r = &report.result.jobs[0];
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(
        (r.read.ios, r.read.io_bytes, r.read.runtime_ns),
        (0, iofit_model::Bytes(0), iofit_model::units::Nanos(0))
    );
    for path in &paths {
        assert_eq!(
            std::fs::metadata(path).unwrap().len(),
            FILE_BYTES,
            "{}",
            path.display()
        );
    }
}

#[test]
fn filename_format_names_the_files_and_lets_clones_share_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), FileService::default(), 8 * 4096);
    j.filename_format = Some("shared.$FILENUM".to_string());
    j.numjobs = 2;
    let report = run_jobs(&[j], &RunOptions::default(), &mut Silent).unwrap();
    assert!(report
        .result
        .jobs
        .iter()
        .all(|r| r.error.is_none() && r.read.ios == 8));
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["shared.0", "shared.1", "shared.2", "shared.3"],
        "both clones share them"
    );
}
