//! fio as the oracle for the engines that move no data (falloc, ftruncate) and for what the
//! layout leaves in the page cache: fio 3.x and `iofit run` run the same small job file, each
//! in its own empty directory on the same file system, and the meanings are compared: IO
//! counts and bytes per direction, the job's error, the files left afterwards with their
//! sizes and allocated bytes, and the pages of a fresh file in the page cache.
//!
//! Where fio is not installed each test prints why it is skipped (CI installs fio: .ci/run).

use iofit_testkit::iofit;
use serde_json::Value;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One tool's run: exit code, JSON (when one was written), stderr.
struct Run {
    exit: i32,
    json: Option<Value>,
    stderr: String,
}

fn parse(out: std::process::Output) -> Run {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    // fio prints its error lines before the JSON: the JSON starts at the first `{` line.
    let json = stdout
        .find("\n{")
        .map(|at| &stdout[at + 1..])
        .or_else(|| stdout.starts_with('{').then_some(stdout.as_str()))
        .and_then(|text| serde_json::from_str(text).ok());
    Run {
        exit: out.status.code().unwrap_or(-1),
        json,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A directory on the repository's file system (/tmp may be tmpfs, which keeps every page).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn fio_in(dir: &Path, job: &str, args: &[&str]) -> Option<Run> {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let out = std::process::Command::new("fio")
        .current_dir(dir)
        .args(["--output-format=json", "job.fio"])
        .args(args)
        .output();
    match out {
        Ok(out) => Some(parse(out)),
        Err(e) => {
            eprintln!("skipped: fio is not installed here ({e}); .ci/run installs it");
            None
        }
    }
}

fn iofit_in(dir: &Path, job: &str, args: &[&str]) -> Run {
    std::fs::write(dir.join("job.fio"), job).unwrap();
    let out = iofit()
        .current_dir(dir)
        .args(["run", "--quiet", "--output-format=json", "job.fio"])
        .args(args)
        .output()
        .unwrap();
    parse(out)
}

/// Per direction (total_ios, io_bytes) and the job's error, from a tool's first job.
fn counts(run: &Run, tool: &str) -> (Vec<(u64, u64)>, i64) {
    let json = run
        .json
        .as_ref()
        .unwrap_or_else(|| panic!("{tool} wrote no JSON (exit {}): {}", run.exit, run.stderr));
    let job = &json["jobs"][0];
    let dirs = ["read", "write", "trim"]
        .iter()
        .map(|d| {
            let ios = job[d]["total_ios"].as_u64().unwrap_or(0);
            (ios, job[d]["io_bytes"].as_u64().unwrap_or(0))
        })
        .collect();
    (dirs, job["error"].as_i64().unwrap_or(0))
}

/// Size and allocated bytes of the job's data file (fio's default name `j.0.0`).
fn file_state(dir: &Path) -> (u64, u64) {
    let meta = std::fs::metadata(dir.join("j.0.0")).unwrap();
    (meta.len(), meta.blocks() * 512)
}

/// Runs `job` in both tools and asserts the same counts, error, exit and file size, and
/// allocated bytes within one 4 KiB block (iofit's ownership marker is an xattr, which ext4
/// may keep in a block of its own). Returns fio's (size, allocated) for the case's own checks.
fn same_meaning(case: &str, job: &str) -> Option<(u64, u64)> {
    let (fio_dir, iofit_dir) = (scratch(), scratch());
    let fio = fio_in(fio_dir.path(), job, &[])?;
    let ours = iofit_in(iofit_dir.path(), job, &[]);
    assert_eq!(
        counts(&ours, "iofit"),
        counts(&fio, "fio"),
        "{case}: (ios, bytes) per read/write/trim and error; iofit stderr: {}",
        ours.stderr
    );
    assert_eq!(
        ours.exit == 0,
        fio.exit == 0,
        "{case}: exit codes {} / {}",
        ours.exit,
        fio.exit
    );
    let (fio_size, fio_alloc) = file_state(fio_dir.path());
    let (our_size, our_alloc) = file_state(iofit_dir.path());
    assert_eq!(our_size, fio_size, "{case}: file size afterwards");
    assert!(
        our_alloc.abs_diff(fio_alloc) <= 4096,
        "{case}: allocated bytes afterwards: iofit {our_alloc}, fio {fio_alloc}"
    );
    Some((fio_size, fio_alloc))
}

#[test]
fn falloc_writes_reads_and_trims_allocate_as_fio() {
    let base = "[j]\nioengine=falloc\nsize=1m\nbs=64k\n";
    let Some((size, alloc)) = same_meaning("falloc write", &format!("{base}rw=write\n")) else {
        return;
    };
    // A falloc write reserves the whole range: 1 MiB long, at least 1 MiB allocated.
    assert_eq!(size, 1 << 20);
    assert!(alloc >= 1 << 20, "{alloc}");
    same_meaning("falloc randread", &format!("{base}rw=randread\n"));
    // A trim punches every block out: the file keeps its size and holds (almost) nothing.
    let (size, alloc) = same_meaning("falloc trim", &format!("{base}rw=trim\n")).unwrap();
    assert_eq!(size, 1 << 20);
    assert!(alloc <= 4096, "{alloc}");
}

#[test]
fn ftruncate_sets_the_size_to_the_last_offset_and_fails_a_read_as_fio() {
    let base = "[j]\nioengine=ftruncate\nsize=1m\nbs=64k\n";
    let Some((size, _)) = same_meaning("ftruncate write", &format!("{base}rw=write\n")) else {
        return;
    };
    // 16 writes at 0, 64k, ..., 960k: the last truncates the file to 960 KiB.
    assert_eq!(size, 15 * 64 * 1024);
    // A read fails with EINVAL (22) in both, and the job fails.
    let (fio_dir, iofit_dir) = (scratch(), scratch());
    let job = format!("{base}rw=read\n");
    let fio = fio_in(fio_dir.path(), &job, &[]).unwrap();
    let ours = iofit_in(iofit_dir.path(), &job, &[]);
    let (fio_dirs, fio_error) = counts(&fio, "fio");
    let (our_dirs, our_error) = counts(&ours, "iofit");
    assert_eq!((fio_error, our_error), (22, 22), "{}", ours.stderr);
    // No byte moved in either. fio counts the failed read in total_ios (1), iofit counts only
    // IOs that completed (0): a gap of every fatal IO error, not of this engine.
    assert_eq!(fio_dirs[0], (1, 0));
    assert_eq!(our_dirs[0].1, 0);
    assert!(
        fio.exit != 0 && ours.exit != 0,
        "{} {}",
        fio.exit,
        ours.exit
    );
}

/// Pages of `path` in the page cache (mincore over a read-only shared mapping).
fn resident_pages(path: &Path) -> usize {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len() as usize;
    let mut vec = vec![0u8; len.div_ceil(4096)];
    // SAFETY: a read-only shared mapping of an open file, `len` bytes long; mincore writes one
    // byte per page into `vec`, which holds that many; the mapping is removed after.
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
    vec.iter().filter(|b| *b & 1 == 1).count()
}

fn on_tmpfs(dir: &Path) -> bool {
    let path = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: statfs writes into the zeroed struct it is given; the path is NUL-terminated.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statfs(path.as_ptr(), &mut fs) };
    rc == 0 && fs.f_type == libc::TMPFS_MAGIC
}

/// A fresh file starts cold in both tools, whatever `invalidate` says: fio drops what its
/// layout wrote (setup_files, after extend_file), so a buffered job reads storage. A file
/// already in the cache stays there with invalidate=0 and leaves it with invalidate=1 (the
/// default), in both. Pages counted after a job of 10 random 4 KiB reads of an 8 MiB file
/// (2,048 pages): about 10 when cold, all 2,048 when kept.
#[test]
fn the_page_cache_at_the_start_of_a_job_is_as_fio_leaves_it() {
    let job = "[j]\nioengine=psync\nrw=randread\nbs=4k\nsize=8m\nio_size=40k\ndirect=0\n";
    let (fio_dir, iofit_dir) = (scratch(), scratch());
    if on_tmpfs(fio_dir.path()) {
        eprintln!("skipped: the target dir is on tmpfs, whose pages never leave the cache");
        return;
    }
    for invalidate in ["0", "1"] {
        let args = [format!("--invalidate={invalidate}")];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // Fresh files: laid out by each tool during this run.
        for dir in [fio_dir.path(), iofit_dir.path()] {
            let _ = std::fs::remove_file(dir.join("j.0.0"));
        }
        let Some(fio) = fio_in(fio_dir.path(), job, &args) else {
            return;
        };
        let ours = iofit_in(iofit_dir.path(), job, &args);
        assert_eq!(
            counts(&ours, "iofit"),
            counts(&fio, "fio"),
            "{}",
            ours.stderr
        );
        let fio_pages = resident_pages(&fio_dir.path().join("j.0.0"));
        let our_pages = resident_pages(&iofit_dir.path().join("j.0.0"));
        assert!(
            fio_pages <= 64 && our_pages <= 64,
            "fresh file, invalidate={invalidate}: fio {fio_pages}, iofit {our_pages} of 2048 pages cached"
        );
        // Now both files are read whole into the cache, and the job runs again on them.
        for dir in [fio_dir.path(), iofit_dir.path()] {
            assert_eq!(std::fs::read(dir.join("j.0.0")).unwrap().len(), 8 << 20);
        }
        fio_in(fio_dir.path(), job, &args).unwrap();
        let again = iofit_in(iofit_dir.path(), job, &args);
        assert_eq!(again.exit, 0, "{}", again.stderr);
        let fio_pages = resident_pages(&fio_dir.path().join("j.0.0"));
        let our_pages = resident_pages(&iofit_dir.path().join("j.0.0"));
        if invalidate == "0" {
            assert!(
                fio_pages >= 2000 && our_pages >= 2000,
                "cached file, invalidate=0 keeps it: fio {fio_pages}, iofit {our_pages} of 2048"
            );
        } else {
            assert!(
                fio_pages <= 64 && our_pages <= 64,
                "cached file, invalidate=1 drops it: fio {fio_pages}, iofit {our_pages} of 2048"
            );
        }
    }
}
