//! fio as the oracle for the engines that move no data (falloc, ftruncate), for what the
//! layout leaves in the page cache, and for averaged logs (log_max_value, one log per clone
//! under group_reporting): fio 3.x and `iofit run` run the same small job file, each in its
//! own empty directory on the same file system, and the meanings are compared: IO counts and
//! bytes per direction, the job's error, the files left afterwards with their sizes and
//! allocated bytes, the pages of a fresh file in the page cache, which log files are written
//! and what their columns add up to.
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

/// An averaged log's lines: (time ms, value, direction).
fn log_lines(path: &Path) -> Vec<(u64, u64, u64)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|line| {
            let cols: Vec<u64> = line.split(',').map(|c| c.trim().parse().unwrap()).collect();
            assert_eq!(cols.len(), 5, "{}: {line}", path.display());
            (cols[0], cols[1], cols[2])
        })
        .collect()
}

/// The log files a run wrote in `dir` (names starting with `x_`), sorted.
fn log_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("x_"))
        .collect();
    names.sort();
    names
}

/// log_max_value=1 with log_avg_msec: each latency line is its window's longest latency, so
/// the largest value of a direction's lines is that direction's max in the JSON (lat_ns and
/// clat_ns), exactly, in fio as in iofit; with the mean (log_max_value=0) the lines stay below
/// it.
/// The slat log of a synchronous engine is empty in both.
#[test]
fn log_max_value_logs_each_windows_longest_latency_as_fio() {
    let base = "[j]\nioengine=psync\nrw=randrw\nbs=4k\nsize=4m\nruntime=1\ntime_based\n\
                write_lat_log=x\nlog_avg_msec=200\n";
    for max in [true, false] {
        let job = format!("{base}log_max_value={}\n", u8::from(max));
        let (fio_dir, iofit_dir) = (scratch(), scratch());
        let Some(fio) = fio_in(fio_dir.path(), &job, &[]) else {
            return;
        };
        let ours = iofit_in(iofit_dir.path(), &job, &[]);
        assert_eq!(ours.exit, 0, "{}", ours.stderr);
        for (tool, dir, run) in [("fio", &fio_dir, &fio), ("iofit", &iofit_dir, &ours)] {
            assert_eq!(
                log_names(dir.path()),
                ["x_clat.1.log", "x_lat.1.log", "x_slat.1.log"],
                "{tool}"
            );
            assert!(
                log_lines(&dir.path().join("x_slat.1.log")).is_empty(),
                "{tool}"
            );
            let json = &run.json.as_ref().unwrap()["jobs"][0];
            for (log, key) in [("x_lat.1.log", "lat_ns"), ("x_clat.1.log", "clat_ns")] {
                let lines = log_lines(&dir.path().join(log));
                for (ddir, name) in [(0, "read"), (1, "write")] {
                    let json_max = json[name][key]["max"].as_u64().unwrap();
                    let values: Vec<u64> =
                        lines.iter().filter(|l| l.2 == ddir).map(|l| l.1).collect();
                    let log_max = values.iter().max();
                    let log_max = *log_max.unwrap_or_else(|| panic!("{tool} {log}: no {name}"));
                    if max {
                        assert_eq!(log_max, json_max, "{tool} {log} {name}: max of the lines");
                    } else {
                        // Means: below the max, but for a window of one IO (a short last one).
                        let at_max = values.iter().filter(|&&v| v >= json_max).count();
                        assert!(
                            at_max <= 1,
                            "{tool} {log} {name}: {values:?}, max {json_max}"
                        );
                    }
                }
            }
        }
    }
}

/// numjobs=3 with group_reporting: fio reports one group but writes one log per clone
/// (`x_bw.1.log` .. `x_bw.3.log`, and lat, clat, slat, iops and histogram logs alike), each
/// the clone's own series. In both tools: the same file names, the clones' iops logs adding up
/// (rate x window) to the group's total_ios once (within 15% of what the lines cover), and a
/// line per 250 ms window.
#[test]
fn group_reporting_clones_write_one_log_each_as_fio() {
    let job = "[j]\nioengine=psync\nrw=randread\nbs=4k\nsize=4m\nruntime=1\ntime_based\n\
               write_lat_log=x\nwrite_bw_log=x\nwrite_iops_log=x\nwrite_hist_log=x\n\
               log_avg_msec=250\nlog_hist_msec=250\nnumjobs=3\ngroup_reporting\n";
    let (fio_dir, iofit_dir) = (scratch(), scratch());
    let Some(fio) = fio_in(fio_dir.path(), job, &[]) else {
        return;
    };
    let ours = iofit_in(iofit_dir.path(), job, &[]);
    assert_eq!(ours.exit, 0, "{}", ours.stderr);
    let names = log_names(fio_dir.path());
    assert_eq!(names.len(), 18, "{names:?}");
    assert_eq!(log_names(iofit_dir.path()), names);
    let mut windows = Vec::new();
    for (tool, dir, run) in [("fio", &fio_dir, &fio), ("iofit", &iofit_dir, &ours)] {
        let json = &run.json.as_ref().unwrap()["jobs"];
        assert_eq!(json.as_array().unwrap().len(), 1, "{tool}: one group");
        let total_ios = json[0]["read"]["total_ios"].as_f64().unwrap();
        let runtime_ms = json[0]["read"]["runtime"].as_f64().unwrap().max(1.0);
        let mut sum = 0.0;
        let mut covered = 0.0;
        let mut counts = Vec::new();
        for clone in 1..=3 {
            let lines = log_lines(&dir.path().join(format!("x_iops.{clone}.log")));
            let mut prev_ms = 0;
            let mut ios = 0.0;
            for &(ms, iops, _) in &lines {
                ios += iops as f64 * (ms - prev_ms) as f64 / 1000.0;
                prev_ms = ms;
            }
            assert!(ios > 0.0, "{tool} clone {clone}: no IO in its log");
            sum += ios;
            covered += (prev_ms as f64 / runtime_ms).min(1.0) / 3.0;
            counts.push(lines.len());
        }
        // Each clone's log is its own share: together they make the group's IOs once (a log
        // of the group's series in every file would be 3x). fio's last window may be missing
        // (a loaded machine takes its sample late or not at all): the logs then cover only up
        // to their last line.
        assert!(
            sum <= 1.05 * total_ios && sum >= 0.85 * covered * total_ios,
            "{tool}: the clones' iops logs add up to {sum:.0} IOs over {:.0}% of the runtime, the group did {total_ios}",
            covered * 100.0
        );
        windows.push(counts);
    }
    // 1 s in 250 ms windows: fio 3.33 writes 3 or 4 lines (its last window is taken when a
    // sample falls due, and a late one is folded or lost; one fewer on a loaded machine);
    // iofit writes the 4 whole windows and the short one after them that still completed IOs.
    for clone in 0..3 {
        let (theirs, ours) = (windows[0][clone], windows[1][clone]);
        assert!(
            (2..=5).contains(&theirs) && (4..=5).contains(&ours),
            "lines per clone, fio and iofit: {windows:?}"
        );
    }
}
