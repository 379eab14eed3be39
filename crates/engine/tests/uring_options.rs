//! fio's io_uring engine options, each checked by its effect on the real kernel: what the ring's
//! `/proc/self/fdinfo` entry says was registered or set up (fixedbufs, registerfiles,
//! sqthread_poll, sqthread_poll_cpu), which threads the kernel started (force_async punts IOs
//! to io-wq workers named `iou-wrk-TID`), what the IOs read (nonvectored=0) and how the kernel
//! answers polled IO on a file without poll queues (hipri). Real files in the temp dir.
//! A test is skipped, saying so and with the errno, only where this kernel refuses the setup.

use iofit_engine::buffer::BufferPool;
use iofit_engine::engine::{Completion, Engine, Op};
use iofit_engine::uring::UringEngine;
use iofit_engine::{run_jobs, RunOptions, Silent};
use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target, UringOptions};
use iofit_model::units::Bytes;
use std::fs::File;
use std::io::Write;
use std::path::Path;

const BLOCK: u32 = 4096;

/// A 64 KiB file of known bytes (byte i is i % 251), opened for reading.
fn sample_file(dir: &Path) -> File {
    let path = dir.join("data");
    let bytes: Vec<u8> = (0..64 * 1024u32).map(|i| (i % 251) as u8).collect();
    File::create(&path).unwrap().write_all(&bytes).unwrap();
    File::open(&path).unwrap()
}

/// The engine, or None (with the reason printed) when this kernel refuses the options.
fn engine(dir: &Path, depth: u32, options: &UringOptions) -> Option<UringEngine> {
    let buffers = BufferPool::new(depth as usize, BLOCK as usize, 1).unwrap();
    match UringEngine::with_options(vec![sample_file(dir)], buffers, depth, options) {
        Ok(engine) => Some(engine),
        Err(e) => {
            eprintln!(
                "SKIPPED: this kernel refuses io_uring with {options:?}: {e} (errno {:?})",
                e.raw_os_error()
            );
            None
        }
    }
}

/// One field of the ring's fdinfo (`UserFiles`, `UserBufs`, `SqThread`, `SqThreadCpu`).
fn fdinfo_field(engine: &UringEngine, key: &str) -> Option<i64> {
    let text = std::fs::read_to_string(format!("/proc/self/fdinfo/{}", engine.ring_fd())).unwrap();
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().parse().ok())?
    })
}

/// Reads `count` blocks through the engine; returns every completion.
fn read_blocks(engine: &mut UringEngine, count: u32) -> Vec<Completion> {
    for slot in 0..count {
        engine.queue(slot, Op::Read, 0, (slot * BLOCK) as u64, BLOCK);
    }
    engine.submit().unwrap();
    let mut out = Vec::new();
    while out.len() < count as usize {
        engine.reap(1, 1_000_000_000, &mut out).unwrap();
    }
    out
}

#[test]
fn fixedbufs_and_registerfiles_register_with_the_kernel_and_zero_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let on = UringOptions {
        fixed_buffers: Some(true),
        register_files: Some(true),
        ..UringOptions::default()
    };
    let Some(engine_on) = engine(dir.path(), 4, &on) else {
        return;
    };
    assert_eq!(
        fdinfo_field(&engine_on, "UserFiles"),
        Some(1),
        "one file registered"
    );
    assert_eq!(
        fdinfo_field(&engine_on, "UserBufs"),
        Some(4),
        "one buffer per slot"
    );
    let off = UringOptions {
        fixed_buffers: Some(false),
        register_files: Some(false),
        ..UringOptions::default()
    };
    let mut engine_off = engine(dir.path(), 4, &off).unwrap();
    assert_eq!(fdinfo_field(&engine_off, "UserFiles"), Some(0));
    assert_eq!(fdinfo_field(&engine_off, "UserBufs"), Some(0));
    // Unregistered IO still reads the file's bytes.
    let done = read_blocks(&mut engine_off, 4);
    assert!(done.iter().all(|c| c.result == BLOCK as i64), "{done:?}");
}

#[test]
fn sqthread_poll_starts_a_kernel_thread_on_the_named_cpu_and_ios_complete() {
    let dir = tempfile::tempdir().unwrap();
    let options = UringOptions {
        sq_thread_poll: true,
        sq_thread_cpu: Some(0),
        ..UringOptions::default()
    };
    let Some(mut engine) = engine(dir.path(), 8, &options) else {
        return;
    };
    assert!(engine.features().sq_thread_poll);
    let thread = fdinfo_field(&engine, "SqThread").expect("SqThread in fdinfo");
    assert!(thread > 0, "a kernel SQ thread runs (pid {thread})");
    assert_eq!(fdinfo_field(&engine, "SqThreadCpu"), Some(0));
    // fio forces registerfiles with sqthread_poll; so does iofit.
    assert_eq!(fdinfo_field(&engine, "UserFiles"), Some(1));
    let done = read_blocks(&mut engine, 8);
    assert!(done.iter().all(|c| c.result == BLOCK as i64), "{done:?}");
    // Without the option there is no SQ thread.
    let plain = engine_or_panic(dir.path(), &UringOptions::default());
    assert_eq!(fdinfo_field(&plain, "SqThread"), Some(-1));
}

fn engine_or_panic(dir: &Path, options: &UringOptions) -> UringEngine {
    engine(dir, 8, options).expect("a plain ring")
}

/// io-wq workers of the calling thread: the kernel names them `iou-wrk-TID`.
fn my_io_workers() -> usize {
    // SAFETY: gettid has no arguments and cannot fail.
    let tid = unsafe { libc::gettid() };
    let name = format!("iou-wrk-{tid}");
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|comm| comm.trim() == name)
        .count()
}

#[test]
fn force_async_punts_ios_to_io_wq_workers() {
    // Each half runs on a thread of its own, so the workers counted are that thread's only.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let workers = |every: u32| {
        let path = path.clone();
        std::thread::spawn(move || {
            let options = UringOptions {
                force_async_every: every,
                ..UringOptions::default()
            };
            let mut engine = engine(&path, 8, &options)?;
            let done = read_blocks(&mut engine, 8);
            assert!(done.iter().all(|c| c.result == BLOCK as i64), "{done:?}");
            Some(my_io_workers())
        })
        .join()
        .unwrap()
    };
    // The file was just written, so its pages are cached and plain reads finish inline.
    let Some(plain) = workers(0) else { return };
    let forced = workers(1).unwrap();
    eprintln!("io-wq workers: {plain} without force_async, {forced} with force_async=1");
    assert_eq!(plain, 0, "cached buffered reads need no io-wq worker");
    assert!(forced >= 1, "IOSQE_ASYNC sends IOs to io-wq workers");
}

#[test]
fn nonvectored_zero_reads_through_one_iovec_the_file_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let options = UringOptions {
        nonvectored: Some(false),
        fixed_buffers: Some(false),
        ..UringOptions::default()
    };
    let Some(mut engine) = engine(dir.path(), 4, &options) else {
        return;
    };
    let done = read_blocks(&mut engine, 4);
    assert!(done.iter().all(|c| c.result == BLOCK as i64), "{done:?}");
    for c in done {
        // SAFETY: the slot's IO completed and was reaped; nothing is in flight on it.
        let buf = unsafe { engine.slot_buffer(c.slot, BLOCK) }.unwrap();
        let start = c.slot * BLOCK;
        let expected: Vec<u8> = (start..start + BLOCK).map(|i| (i % 251) as u8).collect();
        assert_eq!(buf, &expected[..], "slot {}", c.slot);
    }
}

/// fio's `hipri` asks for polled completions (IORING_SETUP_IOPOLL). On a buffered file the
/// kernel sets the ring up but fails every IO with EOPNOTSUPP; the job stops with that error,
/// as fio's does (fio reports "Operation not supported").
#[test]
fn hipri_on_a_buffered_file_fails_the_job_with_eopnotsupp_as_fio() {
    let dir = tempfile::tempdir().unwrap();
    let mut job = JobSpec::new(
        "hipri",
        Target::Directory {
            path: dir.path().to_path_buf(),
            nrfiles: 1,
        },
    )
    .with_rw(RwMode::RandRead);
    job.engine = EngineKind::IoUring;
    job.size = Some(SizeSpec::Bytes(Bytes::kib(256)));
    job.uring.hipri = true;
    let report = run_jobs(&[job], &RunOptions::default(), &mut Silent).unwrap();
    let r = &report.result.jobs[0];
    let error = r.error.as_deref().unwrap_or("");
    if error.contains("refused the io_uring setup") {
        eprintln!("SKIPPED: {error}");
        return;
    }
    assert!(error.contains("Operation not supported"), "{error:?}");
    assert_eq!(r.read.ios, 0, "no IO is counted as done");
}
