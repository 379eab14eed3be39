//! The reliability suite (issue 9): one regression test per way the never-destroy promise or a
//! clear bad-input error was broken, each attacking for real: names swapped for links between
//! stonewalled jobs (to a file and, as root, to a loop device), real ENOSPC and EROFS on small
//! tmpfs mounts (as root), /dev/zero and FIFOs as inputs, outputs naming inputs, planted links
//! at temporary names. A test that needs root or a mount prints why it skips.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn iofit() -> Command {
    Command::new(env!("CARGO_BIN_EXE_iofit"))
}

fn run(cmd: &mut Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("iofit did not end within 30 s: {cmd:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit code 2 with a single-line error naming `needle`.
fn assert_bad_input(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
    let error_lines = err
        .lines()
        .filter(|l| l.starts_with("iofit: error"))
        .count();
    assert_eq!(error_lines, 1, "{err}");
    assert!(err.len() < 1000, "the message is too long: {err}");
}

fn precious(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, vec![0x5au8; 256 * 1024]).unwrap();
    path
}

fn unchanged(path: &Path) {
    let same = std::fs::read(path).unwrap() == vec![0x5au8; 256 * 1024];
    assert!(same, "{} changed", path.display());
}

/// A filesystem mounted for one test (as root), unmounted on drop.
struct Mount {
    dir: tempfile::TempDir,
}

impl Mount {
    fn new(fstype: &str, options: &str) -> Option<Mount> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", fstype, "-o", options, "iofit-test"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            eprintln!("skipping: cannot mount a {fstype} here (needs root)");
        }
        ok.then_some(Mount { dir })
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// A loop device over a file of `bytes`, detached on drop.
struct Loop {
    device: PathBuf,
    backing: PathBuf,
}

impl Loop {
    fn new(backing: PathBuf) -> Option<Loop> {
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&backing)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "skipping: losetup failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            return None;
        }
        let device = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string());
        Some(Loop { device, backing })
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.device).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

/// Starts a two-job run (job 2 stonewalled after a 2 s job 1), waits until both files are
/// laid out and job 1 runs, then calls `swap` on f2; returns the finished run.
fn stonewall_run_with_swap(dir: &Path, swap: impl FnOnce(&Path)) -> Output {
    let job = dir.join("two.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nrw=randwrite\nbs=4k\nsize=256k\nioengine=psync\n\
             [one]\nfilename={d}/f1\nruntime=2\ntime_based\n\
             [two]\nstonewall\nfilename={d}/f2\n",
            d = dir.display()
        ),
    )
    .unwrap();
    let mut child = iofit()
        .arg("run")
        .arg(&job)
        .args(["--output-format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let f2 = dir.join("f2");
    let start = Instant::now();
    while std::fs::metadata(&f2).map(|m| m.len()).unwrap_or(0) < 256 * 1024 {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "layout never finished"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_millis(300));
    swap(&f2);
    wait_output(&mut child)
}

fn wait_output(child: &mut Child) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("did not end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status: child.wait().unwrap(),
        stdout,
        stderr,
    }
}

#[test]
fn item1_a_name_swapped_for_a_link_between_stonewalled_jobs_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let user = precious(dir.path(), "user.db");
    let out = stonewall_run_with_swap(dir.path(), |f2| {
        std::fs::rename(f2, f2.with_file_name("f2.moved")).unwrap();
        symlink(&user, f2).unwrap();
    });
    assert!(out.status.success(), "{}", stderr(&out));
    unchanged(&user);
    // Job 2 did its writes, to the file that was checked.
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let two = &json["jobs"][1];
    assert!(two["write"]["io_bytes"].as_u64().unwrap() > 0, "{two}");
}

#[test]
fn item1_a_name_swapped_for_a_link_to_a_block_device_is_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let backing = dir.path().join("disk.img");
    std::fs::write(&backing, vec![0x5au8; 1 << 20]).unwrap();
    let Some(lo) = Loop::new(backing.clone()) else {
        return;
    };
    let device = lo.device.clone();
    let out = stonewall_run_with_swap(dir.path(), |f2| {
        std::fs::remove_file(f2).unwrap();
        symlink(&device, f2).unwrap();
    });
    assert!(out.status.success(), "{}", stderr(&out));
    let mut after = vec![0u8; 1 << 20];
    std::fs::File::open(&lo.device)
        .unwrap()
        .read_exact(&mut after)
        .unwrap();
    assert!(
        after.iter().all(|&b| b == 0x5a),
        "the loop device was written"
    );
    // And naming the device (through the link) afresh is refused.
    let out = run(iofit()
        .args(["run", "--name=x", "--rw=write", "--bs=4k", "--size=64k"])
        .arg(format!("--filename={}", dir.path().join("f2").display())));
    assert_bad_input(&out, "symbolic link");
}

#[test]
fn layout_enospc_exits_2_and_removes_the_partial_file() {
    let Some(fs) = Mount::new("tmpfs", "size=96m") else {
        return;
    };
    let target = fs.path().join("big");
    // Pause iofit as soon as it starts laying out, fill the filesystem, let it go on.
    let mut child = iofit()
        .args(["run", "--name=fill", "--rw=write", "--bs=64k", "--size=80m"])
        .arg(format!("--filename={}", target.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("laying out"), "{line}");
    let pid = child.id().to_string();
    Command::new("kill").args(["-STOP", &pid]).status().unwrap();
    let filler = fs.path().join("filler");
    let _ = Command::new("fallocate")
        .args(["-l", "90m"])
        .arg(&filler)
        .status();
    if std::fs::metadata(&filler).map(|m| m.len()).unwrap_or(0) == 0 {
        // The layout won the race; make room by taking what is free.
        let _ = Command::new("fallocate")
            .args(["-l", "16m"])
            .arg(&filler)
            .status();
    }
    Command::new("kill").args(["-CONT", &pid]).status().unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    if status.success() {
        eprintln!("skipping: the layout finished before the filesystem filled");
        return;
    }
    assert_eq!(status.code(), Some(2), "{rest}");
    assert!(rest.contains("No space left"), "{rest}");
    assert!(rest.contains("were removed"), "{rest}");
    assert_eq!(
        rest.lines()
            .filter(|l| l.starts_with("iofit: error"))
            .count(),
        1,
        "{rest}"
    );
    assert!(!target.exists(), "the partial file was left behind");
}

#[test]
fn enospc_when_creating_and_erofs_exit_2_with_one_line() {
    let Some(fs) = Mount::new("tmpfs", "size=4m,nr_inodes=2") else {
        return;
    };
    // The root directory holds one inode; the second goes to this file.
    std::fs::write(fs.path().join("a"), b"x").unwrap();
    let out = run(iofit()
        .args(["run", "--name=n", "--rw=write", "--bs=4k", "--size=64k"])
        .arg(format!("--filename={}", fs.path().join("b").display())));
    assert_bad_input(&out, "No space left");
    let Some(ro) = Mount::new("tmpfs", "size=4m,ro") else {
        return;
    };
    let out = run(iofit()
        .args(["run", "--name=r", "--rw=write", "--bs=4k", "--size=64k"])
        .arg(format!("--filename={}", ro.path().join("f").display())));
    assert_bad_input(&out, "Read-only file system");
}

#[test]
fn free_space_is_shown_in_units_that_show_it_and_ramfs_is_not_refused() {
    if let Some(fs) = Mount::new("tmpfs", "size=1m") {
        let out = run(iofit()
            .args(["run", "--name=s", "--rw=write", "--bs=4k", "--size=2m"])
            .arg(format!("--filename={}", fs.path().join("f").display())));
        assert_bad_input(&out, "MiB free");
        assert!(!stderr(&out).contains("0.0 GiB"));
    }
    if let Some(fs) = Mount::new("ramfs", "mode=755") {
        // Item 2: a sidecar name planted as a link to a user's file is replaced, not written.
        let user = precious(fs.path(), "user.db");
        symlink(&user, fs.path().join(".f.iofit")).unwrap();
        let out = run(iofit()
            .args([
                "run",
                "--name=r",
                "--rw=randrw",
                "--bs=4k",
                "--size=256k",
                "--ioengine=psync",
            ])
            .arg(format!("--filename={}", fs.path().join("f").display())));
        assert!(out.status.success(), "{}", stderr(&out));
        // No xattrs on ramfs: the sidecar marker makes the next run trust the file.
        let again = run(iofit()
            .args([
                "run",
                "--name=r",
                "--rw=randwrite",
                "--bs=4k",
                "--size=256k",
                "--ioengine=psync",
            ])
            .arg(format!("--filename={}", fs.path().join("f").display())));
        assert!(again.status.success(), "{}", stderr(&again));
        // Extending it moves the marker trailer to the new end; it stays ours, and its data
        // length (not counting the trailer) is what a job without size= uses.
        for size in ["--size=512k", "--size=512k"] {
            let out = run(iofit()
                .args([
                    "run",
                    "--name=r",
                    "--rw=randwrite",
                    "--bs=4k",
                    size,
                    "--ioengine=psync",
                ])
                .arg(format!("--filename={}", fs.path().join("f").display())));
            assert!(out.status.success(), "{}", stderr(&out));
        }
        let len = std::fs::metadata(fs.path().join("f")).unwrap().len();
        assert_eq!(len, 512 * 1024 + 4096, "data plus one trailer block");
        unchanged(&user);
    }
}

#[test]
fn an_offset_that_overflows_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(iofit()
        .args([
            "run",
            "--name=o",
            "--rw=read",
            "--bs=4k",
            "--size=1m",
            "--offset=18446744073709551615",
        ])
        .arg(format!("--filename={}", dir.path().join("f").display())));
    assert_bad_input(&out, "offset=");
    assert!(!dir.path().join("f").exists());
}

#[test]
fn too_few_open_files_names_the_limit_and_the_need() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "ulimit -n 64 && exec {} run --name=a --rw=randread --bs=4k --size=64k --numjobs=100 --directory={} --ioengine=io_uring --runtime=1",
        env!("CARGO_BIN_EXE_iofit"),
        dir.path().display()
    );
    let out = run(Command::new("sh").args(["-c", &script]));
    assert_bad_input(&out, "ulimit -n");
    assert!(stderr(&out).contains("is 64"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("use ioengine=psync"));
}

#[test]
fn ctrl_c_during_layout_exits_130_and_leaves_no_partial_file() {
    // On a tmpfs of its own (as root) so the 4 GiB layout does not depend on free disk space
    // (interrupted at once, it uses almost none of it).
    let mount = Mount::new("tmpfs", "size=5g");
    let dir = tempfile::tempdir().unwrap();
    let base = mount.as_ref().map(Mount::path).unwrap_or(dir.path());
    let target = base.join("slow");
    let mut child = iofit()
        .args(["run", "--name=l", "--rw=write", "--bs=1m", "--size=4g"])
        .arg(format!("--filename={}", target.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    if !line.contains("laying out") {
        let _ = child.kill();
        let _ = child.wait();
        // Without a tmpfs, a full disk refuses the layout before it starts: nothing to test.
        eprintln!("skipping: {line}");
        return;
    }
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(!target.exists(), "the partial file was left behind");
}

/// A small fio job file writing `data` in `dir`.
fn job_file(dir: &Path) -> (PathBuf, PathBuf) {
    let job = dir.join("job.fio");
    let data = dir.join("data.bin");
    std::fs::write(
        &job,
        format!(
            "[w]\nrw=randwrite\nbs=4k\nsize=256k\nfilename={}\n",
            data.display()
        ),
    )
    .unwrap();
    (job, data)
}

#[test]
fn item4_run_refuses_an_output_that_names_its_job_file_or_data_file_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let (job, data) = job_file(dir.path());
    let before = std::fs::read(&job).unwrap();
    let out = run(iofit().arg("run").arg(&job).arg("--output").arg(&job));
    assert_bad_input(&out, "reads or tests");
    assert_eq!(std::fs::read(&job).unwrap(), before);
    assert!(!data.exists(), "the job ran before the output was checked");
    // The job's own data file (created by an earlier run, so iofit owns it) as the output.
    let ok = run(iofit().arg("run").arg(&job).arg("--quiet"));
    assert!(ok.status.success(), "{}", stderr(&ok));
    let data_before = std::fs::read(&data).unwrap();
    let out = run(iofit().arg("run").arg(&job).arg("--output").arg(&data));
    assert_bad_input(&out, "reads or tests");
    assert_eq!(std::fs::read(&data).unwrap().len(), data_before.len());
    // A link to the job file as the output.
    symlink(&job, dir.path().join("link.json")).unwrap();
    let out = run(iofit()
        .arg("run")
        .arg(&job)
        .arg("--output")
        .arg(dir.path().join("link.json")));
    assert_bad_input(&out, "reads or tests");
    // An earlier result (one iofit wrote, issue 37) may be replaced; a user's file may not.
    let result = dir.path().join("result.json");
    let write_result = || {
        run(iofit()
            .arg("run")
            .arg(&job)
            .args(["--quiet", "--output-format", "json", "--output"])
            .arg(&result))
    };
    for _ in 0..2 {
        let out = write_result();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let _: serde_json::Value = serde_json::from_slice(&std::fs::read(&result).unwrap()).unwrap();
    std::fs::write(&result, "old").unwrap();
    assert_bad_input(&write_result(), "--allow-overwrite");
    assert_eq!(std::fs::read(&result).unwrap(), b"old");
}

#[test]
fn run_outputs_that_cannot_be_written_are_refused_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let (job, data) = job_file(dir.path());
    for (output, needle) in [
        (dir.path().to_path_buf(), "directory"),
        (PathBuf::from(""), "empty"),
        (dir.path().join("missing/out.json"), "does not exist"),
    ] {
        let out = run(iofit().arg("run").arg(&job).arg("--output").arg(&output));
        assert_bad_input(&out, needle);
        assert!(
            !data.exists(),
            "the job ran before --output {} was checked",
            output.display()
        );
    }
}

#[test]
fn item4_profile_refuses_to_replace_its_capture() {
    let dir = tempfile::tempdir().unwrap();
    let capture = dir.path().join("cap.txt");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/iostat/example-db-server_sysstat-12.6.1_xt_10s.txt"),
        &capture,
    )
    .unwrap();
    let before = std::fs::read(&capture).unwrap();
    let out = run(iofit().arg("profile").arg(&capture).arg("-o").arg(&capture));
    assert_bad_input(&out, "reads or tests");
    assert_eq!(std::fs::read(&capture).unwrap(), before);
}

#[test]
fn item10_devices_and_fifos_as_inputs_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let req = dir.path().join("req.toml");
    std::fs::write(&req, "x = 1\n").unwrap();
    for input in [Path::new("/dev/zero"), fifo.as_path()] {
        let out = run(iofit().arg("run").arg(input));
        assert_eq!(
            out.status.code(),
            Some(2),
            "run {}: {}",
            input.display(),
            stderr(&out)
        );
        let out = run(iofit()
            .arg("compare")
            .arg(input)
            .arg("--requirements")
            .arg(&req));
        assert_bad_input(&out, "not a results JSON");
        let out = run(iofit().args(["plan", "--requirements"]).arg(input));
        assert_bad_input(&out, "not a requirements TOML");
        let out = run(iofit().arg("profile").arg(input));
        assert_bad_input(&out, "not a capture");
    }
}

#[test]
fn item3_planted_links_at_the_old_temporary_names_are_not_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let user = precious(dir.path(), "user.db");
    // profile -o req.toml: the old fixed temporary name.
    symlink(&user, dir.path().join(".req.toml.iofit-tmp")).unwrap();
    let capture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/iostat/example-db-server_sysstat-12.6.1_xt_10s.txt");
    let out = run(iofit()
        .arg("profile")
        .arg(&capture)
        .arg("-o")
        .arg(dir.path().join("req.toml")));
    assert!(out.status.success(), "{}", stderr(&out));
    unchanged(&user);
    // vdbench --output out.json: the old fixed partial name.
    symlink(&user, dir.path().join("out.json.partial")).unwrap();
    let param = dir.path().join("tiny.vdb");
    std::fs::write(
        &param,
        format!(
            "sd=sd1,lun={}/f1,size=1m\nwd=w,sd=sd1,rdpct=100,xfersize=4k\nrd=r,wd=w,iorate=max,elapsed=1,interval=1,threads=1\n",
            dir.path().display()
        ),
    )
    .unwrap();
    let out = run(iofit()
        .arg("run")
        .arg(&param)
        .arg("--output")
        .arg(dir.path().join("out.json")));
    assert!(out.status.success(), "{}", stderr(&out));
    unchanged(&user);
    let _: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out.json")).unwrap()).unwrap();
}

#[test]
fn item3_a_planted_cache_marker_link_is_neither_read_nor_written_through() {
    let nocache = tempfile::tempdir().unwrap();
    let readcache = tempfile::tempdir().unwrap();
    let user = precious(nocache.path(), "user.db");
    let marker = readcache.path().join(".iofit-cache-warmed");
    let bench = |extra: &[&str]| {
        run(iofit()
            .args([
                "bench",
                "azure-premium",
                "--scale",
                "0.0001",
                "--runtime",
                "0.3",
            ])
            .args(["--size", "4m", "--iodepth", "4", "--quiet"])
            .args(extra)
            .arg("--nocache")
            .arg(nocache.path())
            .arg("--readcache")
            .arg(readcache.path()))
    };
    // Read: a marker that is a link to /dev/zero would be read forever.
    symlink("/dev/zero", &marker).unwrap();
    let out = bench(&["--skip-warmup"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("was not warmed"), "{}", stderr(&out));
    // Written: the warm-up records itself by replacing the link, not writing through it.
    std::fs::remove_file(&marker).unwrap();
    symlink(&user, &marker).unwrap();
    let out = bench(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    unchanged(&user);
    assert!(!std::fs::symlink_metadata(&marker)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn item4_plan_predict_and_compare_refuse_a_report_that_names_their_input() {
    let dir = tempfile::tempdir().unwrap();
    let req = dir.path().join("req.toml");
    let example = run(iofit().args(["plan", "--example-requirements"]));
    assert!(example.status.success());
    std::fs::write(&req, &example.stdout).unwrap();
    let out = run(iofit()
        .args(["plan", "--requirements"])
        .arg(&req)
        .arg("--report")
        .arg(&req));
    assert_bad_input(&out, "reads or tests");
    let out = run(iofit()
        .args([
            "predict",
            "--vm",
            "Standard_D8s_v5",
            "--disk",
            "2xP30",
            "--requirements",
        ])
        .arg(&req)
        .arg("--report")
        .arg(&req));
    assert_bad_input(&out, "reads or tests");
    assert_eq!(std::fs::read(&req).unwrap(), example.stdout);
    // A results file that is also the report.
    let results = dir.path().join("r.json");
    std::fs::write(&results, "{}").unwrap();
    let out = run(iofit()
        .arg("compare")
        .arg(&results)
        .arg("--requirements")
        .arg(&req)
        .arg("--report")
        .arg(&results));
    assert_bad_input(&out, "reads or tests");
    assert_eq!(std::fs::read(&results).unwrap(), b"{}");
}
