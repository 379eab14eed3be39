//! One guarded door for every byte iofit writes (issue 37): one test per attack of the issue's
//! first list, each made for real against the binary. Every attack plants something of the
//! user's (a file, a directory, a link, a device) where iofit would write, and checks that the
//! run is refused (exit 2, naming the way out) and that not one byte of it changed.

use iofit_testkit::{assert_exit, iofit, run_job_text};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const PRECIOUS: &[u8] = b"the user's only copy of something that matters\n";

fn precious(path: &Path) -> PathBuf {
    std::fs::write(path, PRECIOUS).unwrap();
    path.to_path_buf()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[track_caller]
fn assert_refused(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(needle), "expected '{needle}' in: {err}");
}

#[track_caller]
fn assert_untouched(path: &Path) {
    assert_eq!(std::fs::read(path).unwrap(), PRECIOUS, "{}", path.display());
}

fn read_job(data: &Path, extra: &str) -> String {
    format!(
        "[r]\nfilename={}\nrw=read\nbs=4k\nsize=64k\nioengine=psync\n{extra}",
        data.display()
    )
}

/// A data file iofit made (so a read job may use it).
fn laid_out(dir: &Path) -> PathBuf {
    let data = dir.join("data.bin");
    let out = run_job_text(
        dir,
        &format!(
            "[w]\nfilename={}\nrw=write\nbs=4k\nsize=64k\nioengine=psync\n",
            data.display()
        ),
        &[],
    );
    assert_exit(&out, 0);
    data
}

#[test]
fn write_iolog_onto_a_device_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    // A character device that is not a harmless stream (/dev/full): refused, not opened.
    let out = run_job_text(dir.path(), &read_job(&data, "write_iolog=/dev/full\n"), &[]);
    assert_refused(&out, "character device");
    // A real block device, as root: the device's bytes stay as they were.
    let image = dir.path().join("disk.img");
    std::fs::write(&image, vec![0x5au8; 1 << 20]).unwrap();
    let Some(device) = iofit_testkit::stuck::Loop::attach(&image) else {
        eprintln!("skipping the loop device half: losetup is not available (needs root)");
        return;
    };
    let before = std::fs::read(&device.device).unwrap();
    let job = read_job(&data, &format!("write_iolog={}\n", device.device.display()));
    let out = run_job_text(dir.path(), &job, &[]);
    assert_refused(&out, "block device");
    assert_eq!(std::fs::read(&device.device).unwrap(), before);
}

#[test]
fn write_iolog_onto_an_existing_user_file_is_refused_and_an_earlier_log_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let user = precious(&dir.path().join("notes.log"));
    let out = run_job_text(dir.path(), &read_job(&data, "write_iolog=notes.log\n"), &[]);
    assert_refused(&out, "--allow-overwrite");
    assert_untouched(&user);
    // A new log is written; the next run replaces iofit's own earlier log.
    let job = read_job(&data, "write_iolog=trace.log\n");
    assert_exit(&run_job_text(dir.path(), &job, &[]), 0);
    let first = std::fs::read_to_string(dir.path().join("trace.log")).unwrap();
    assert!(first.starts_with("fio version 3 iolog"), "{first}");
    assert_exit(&run_job_text(dir.path(), &job, &[]), 0);
    // A user's edit makes it the user's file: refused again.
    std::fs::write(dir.path().join("trace.log"), PRECIOUS).unwrap();
    assert_refused(&run_job_text(dir.path(), &job, &[]), "--allow-overwrite");
    assert_untouched(&dir.path().join("trace.log"));
}

#[test]
fn write_iolog_naming_the_job_file_itself_is_refused_even_with_allow_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let text = read_job(&data, "write_iolog=job.fio\n");
    let out = run_job_text(dir.path(), &text, &["--allow-overwrite"]);
    assert_refused(&out, "which this command reads");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("job.fio")).unwrap(),
        text
    );
}

#[test]
fn per_io_logs_and_verify_state_do_not_follow_planted_links() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let victim = precious(&dir.path().join("victim.txt"));
    symlink(&victim, dir.path().join("P_bw.1.log")).unwrap();
    let out = run_job_text(dir.path(), &read_job(&data, "write_bw_log=P\n"), &[]);
    assert_refused(&out, "symbolic link");
    assert_untouched(&victim);
    // The verify state a write job saves at its end: refused before any IO.
    symlink(&victim, dir.path().join("v-0-verify.state")).unwrap();
    let job = format!(
        "[v]\nfilename={}\nrw=write\nbs=4k\nsize=64k\nverify=crc32c\nverify_state_save=1\n",
        data.display()
    );
    let out = run_job_text(dir.path(), &job, &[]);
    assert_refused(&out, "symbolic link");
    assert_untouched(&victim);
}

#[test]
fn user_files_named_like_logs_or_verify_state_are_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    // An averaged log (written at the run's end): refused before the run.
    let bw = precious(&dir.path().join("P_bw.1.log"));
    let job = read_job(&data, "write_bw_log=P\nlog_avg_msec=100\n");
    assert_refused(&run_job_text(dir.path(), &job, &[]), "--allow-overwrite");
    assert_untouched(&bw);
    // A per-IO log.
    let lat = precious(&dir.path().join("Q_lat.1.log"));
    let job = read_job(&data, "write_lat_log=Q\n");
    assert_refused(&run_job_text(dir.path(), &job, &[]), "--allow-overwrite");
    assert_untouched(&lat);
    // The verify state.
    let state = precious(&dir.path().join("v-0-verify.state"));
    let job = format!(
        "[v]\nfilename={}\nrw=write\nbs=4k\nsize=64k\nverify=crc32c\nverify_state_save=1\n",
        data.display()
    );
    assert_refused(&run_job_text(dir.path(), &job, &[]), "--allow-overwrite");
    assert_untouched(&state);
    // With the user's permission the state is written, and the next run replaces its own.
    std::fs::remove_file(&state).unwrap();
    assert_exit(&run_job_text(dir.path(), &job, &[]), 0);
    assert_exit(&run_job_text(dir.path(), &job, &[]), 0);
    assert!(std::fs::read(&state)
        .unwrap()
        .starts_with(b"iofit-verify-state"));
}

#[test]
fn output_naming_an_include_or_the_read_iolog_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let common = dir.path().join("common.fio");
    std::fs::write(&common, "[global]\nbs=4k\n").unwrap();
    let before = std::fs::read(&common).unwrap();
    let job = format!("include common.fio\n{}", read_job(&data, ""));
    for flag in ["--output", "--allow-overwrite"] {
        let mut extra = vec!["--output", "common.fio"];
        if flag == "--allow-overwrite" {
            extra.push(flag);
        }
        let out = run_job_text(dir.path(), &job, &extra);
        assert_refused(&out, "common.fio");
        assert_eq!(std::fs::read(&common).unwrap(), before);
    }
    // The IO log a job replays.
    let log = dir.path().join("replay.log");
    let log_text = format!(
        "fio version 2 iolog\n{0} add\n{0} open\n{0} read 0 4096\n{0} close\n",
        data.display()
    );
    std::fs::write(&log, &log_text).unwrap();
    let job = "[p]\nread_iolog=replay.log\nioengine=psync\n";
    let out = run_job_text(dir.path(), job, &["--output", "replay.log"]);
    assert_refused(&out, "replay.log");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), log_text);
    // Another job's write_iolog naming the log being replayed (a job's own is dropped, as
    // fio drops it).
    let job = format!(
        "[p]\nread_iolog=replay.log\nioengine=psync\n\n{}",
        read_job(&data, "write_iolog=replay.log\n").replace("[r]", "[q]")
    );
    let out = run_job_text(dir.path(), &job, &["--allow-overwrite"]);
    assert_refused(&out, "which read_iolog= of job 'p' reads");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), log_text);
}

#[test]
fn vdbench_flatfile_naming_an_include_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let luns = dir.path().join("luns.txt");
    std::fs::write(&luns, format!("sd=sd1,lun={},size=64k\n", data.display())).unwrap();
    let before = std::fs::read(&luns).unwrap();
    let parm = dir.path().join("parm.vdb");
    std::fs::write(
        &parm,
        "include=luns.txt\nwd=wd1,sd=sd1,xfersize=4k,rdpct=100\nrd=rd1,wd=wd1,iorate=max,elapsed=1,interval=1\n",
    )
    .unwrap();
    for extra in [&[][..], &["--allow-overwrite"][..]] {
        let out = iofit()
            .current_dir(dir.path())
            .args(["run", "--quiet", "--flatfile"])
            .arg(&luns)
            .args(extra)
            .arg(&parm)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert_refused(&out, "luns.txt");
        assert_eq!(std::fs::read(&luns).unwrap(), before);
    }
}

fn vdbench_fs(dir: &Path, anchor: &Path, format: &str, operation: &str) -> Output {
    let parm = dir.join(format!("fs-{format}-{operation}.vdb"));
    std::fs::write(
        &parm,
        format!(
            "fsd=fsd1,anchor={},depth=1,width=2,files=3,size=4k\n\
             fwd=fwd1,fsd=fsd1,operation={operation},fileselect=sequential,xfersize=4k,threads=1\n\
             rd=rd1,fwd=fwd1,fwdrate=max,format={format},elapsed=1,interval=1\n",
            anchor.display()
        ),
    )
    .unwrap();
    iofit()
        .current_dir(dir)
        .args(["run", "--quiet"])
        .arg(&parm)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

/// A user's file as large as the fsd's files (so a scan through a link would count it).
fn big_precious() -> Vec<u8> {
    PRECIOUS.repeat(8192 / PRECIOUS.len() + 1)
}

/// A user's directory holding files with the names and sizes the fsd tree uses.
fn users_tree(dir: &Path) -> PathBuf {
    let users = dir.join("users");
    std::fs::create_dir(&users).unwrap();
    for n in 1..=3 {
        std::fs::write(users.join(format!("vdb_f{n:04}.file")), big_precious()).unwrap();
    }
    users
}

#[test]
fn format_restart_does_not_delete_through_a_linked_anchor_subdirectory() {
    let dir = tempfile::tempdir().unwrap();
    let anchor = dir.path().join("anchor");
    assert_exit(&vdbench_fs(dir.path(), &anchor, "yes", "read"), 0);
    let sub = anchor.join("vdb.1_1.dir");
    assert!(sub.is_dir(), "the tree's first directory");
    std::fs::remove_dir_all(&sub).unwrap();
    let users = users_tree(dir.path());
    symlink(&users, &sub).unwrap();
    let _ = vdbench_fs(dir.path(), &anchor, "restart", "delete");
    for n in 1..=3 {
        let file = users.join(format!("vdb_f{n:04}.file"));
        let kept = std::fs::read(&file).ok() == Some(big_precious());
        assert!(
            kept,
            "{} was deleted or changed through the link",
            file.display()
        );
    }
}

#[test]
fn a_hard_link_copy_of_an_anchor_is_foreign() {
    let dir = tempfile::tempdir().unwrap();
    let anchor = dir.path().join("anchor");
    assert_exit(&vdbench_fs(dir.path(), &anchor, "yes", "read"), 0);
    let copy = dir.path().join("copy");
    let cp = Command::new("cp")
        .arg("-al")
        .arg(&anchor)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(cp.success());
    let user = precious(&copy.join("thesis.tex"));
    let out = vdbench_fs(dir.path(), &copy, "yes", "read");
    assert_refused(&out, "--allow-overwrite");
    assert_untouched(&user);
    // The original is still iofit's.
    assert_exit(&vdbench_fs(dir.path(), &anchor, "yes", "read"), 0);
}

#[test]
fn output_o_and_report_follow_one_policy() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let job = read_job(&data, "");
    // run --output: an unrelated file is refused; an earlier result is replaced.
    let user = precious(&dir.path().join("result.json"));
    assert_refused(
        &run_job_text(dir.path(), &job, &["--output", "result.json"]),
        "--allow-overwrite",
    );
    assert_untouched(&user);
    assert_exit(
        &run_job_text(dir.path(), &job, &["--output", "mine.json"]),
        0,
    );
    assert_exit(
        &run_job_text(dir.path(), &job, &["--output", "mine.json"]),
        0,
    );
    // run --report.
    let html = precious(&dir.path().join("page.html"));
    let out = run_job_text(dir.path(), &job, &["--report", "page.html"]);
    assert_refused(&out, "--allow-overwrite");
    assert_untouched(&html);
    // profile -o.
    let capture = iofit_testkit::test_data("iostat/example-db-server_sysstat-12.6.1_xt_10s.txt");
    let toml = precious(&dir.path().join("req.toml"));
    let out = iofit()
        .arg("profile")
        .arg(&capture)
        .arg("-o")
        .arg(&toml)
        .output()
        .unwrap();
    assert_refused(&out, "--allow-overwrite");
    assert_untouched(&toml);
    let fresh = dir.path().join("fresh.toml");
    for _ in 0..2 {
        let out = iofit()
            .arg("profile")
            .arg(&capture)
            .arg("-o")
            .arg(&fresh)
            .output()
            .unwrap();
        assert_exit(&out, 0);
    }
}

#[test]
fn demo_does_not_follow_a_link_planted_at_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let victim = dir.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    let report = precious(&victim.join("report.html"));
    symlink(&victim, tmp.join("iofit-demo")).unwrap();
    let out = iofit()
        .env("TMPDIR", &tmp)
        .args(["demo", "--no-run"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_refused(&out, "symbolic link");
    assert_untouched(&report);
}

#[test]
fn a_user_file_copied_over_an_iofit_data_file_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let ino = std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&data).unwrap());
    // `cp` into the existing file: same inode, iofit's marker xattr kept, the user's bytes.
    let user = precious(&dir.path().join("user.txt"));
    let cp = Command::new("cp").arg(&user).arg(&data).status().unwrap();
    assert!(cp.success());
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(&data).unwrap()),
        ino
    );
    let job = format!(
        "[w]\nfilename={}\nrw=write\nbs=4k\nsize=64k\nioengine=psync\n",
        data.display()
    );
    assert_refused(&run_job_text(dir.path(), &job, &[]), "--allow-overwrite");
    assert_untouched(&data);
}

#[test]
fn iofit_data_files_stay_iofit_s_across_runs() {
    let dir = tempfile::tempdir().unwrap();
    let data = laid_out(dir.path());
    let job = format!(
        "[w]\nfilename={}\nrw=randwrite\nbs=4k\nsize=64k\nioengine=psync\n",
        data.display()
    );
    // Runs that write the file leave it sealed as theirs: the next run may write it again.
    for _ in 0..3 {
        assert_exit(&run_job_text(dir.path(), &job, &[]), 0);
    }
}
