//! Attacks on the never-destroy promise, run for real against files, links and (as root) a
//! ramfs mount, where user xattrs do not work and the sidecar marker is used.

use iofit_safefs::atomic::{write_atomic, AtomicFile};
use iofit_safefs::guard::check_output;
use iofit_safefs::input::{caps, read_capped, read_capped_string};
use iofit_safefs::marker::{self, MarkKind};
use iofit_safefs::target::{self, Use};
use std::io::Write;
use std::os::unix::fs::{symlink, FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::Command;

const WRITE: Use = Use {
    writes: true,
    needed_bytes: iofit_model::units::Bytes(4096),
    allow_overwrite: false,
};

/// A ramfs mounted for the test's life (no user xattrs there). `None` when mounting is not
/// permitted (not root): the caller prints why it skips.
struct Ramfs {
    dir: tempfile::TempDir,
}

impl Ramfs {
    fn mount() -> Option<Ramfs> {
        let dir = tempfile::tempdir().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "ramfs", "iofit-test"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        ok.then_some(Ramfs { dir })
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Ramfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

fn precious(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, b"the user's only copy").unwrap();
    path
}

#[test]
fn a_file_iofit_created_is_recognised_and_a_foreign_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine");
    let (created, writer) = target::create(&mine, 8192).unwrap();
    writer.write_all_at(&[1u8; 8192], 0).unwrap();
    drop((created, writer));
    let again = target::open_existing(&mine, WRITE).unwrap().unwrap();
    assert!(again.ownership().is_some());
    let theirs = precious(dir.path(), "theirs");
    let err = target::open_existing(&theirs, WRITE).unwrap_err();
    assert!(
        err.is_bad_input() && err.to_string().contains("did not create"),
        "{err}"
    );
}

#[test]
fn an_xattr_copied_onto_another_file_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine");
    let (created, _w) = target::create(&mine, 4096).unwrap();
    if created.ownership() != Some(MarkKind::Xattr) {
        eprintln!("skipping: no user xattrs on the temp directory's filesystem");
        return;
    }
    // cp --preserve=xattr gives a user's copy the same marker text on a different inode.
    let copy = dir.path().join("copy");
    let status = Command::new("cp")
        .args(["--preserve=xattr"])
        .arg(&mine)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let err = target::open_existing(&copy, WRITE).unwrap_err();
    assert!(err.to_string().contains("did not create"), "{err}");
}

#[test]
fn a_swapped_name_does_not_redirect_the_checked_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let f2 = dir.path().join("f2");
    let (created, _w) = target::create(&f2, 4096).unwrap();
    let user = precious(dir.path(), "user.db");
    // Between the check and a later job, the name becomes a link to the user's file.
    std::fs::remove_file(&f2).unwrap();
    symlink(&user, &f2).unwrap();
    let job_fd = created.reopen(true, false).unwrap();
    job_fd.write_all_at(b"iofit data", 0).unwrap();
    assert_eq!(std::fs::read(&user).unwrap(), b"the user's only copy");
    // And opening the name afresh for writing is refused: it is a link now.
    let err = target::open_existing(&f2, WRITE).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
}

#[test]
fn sidecar_markers_cannot_be_fooled_on_a_filesystem_without_xattrs() {
    let Some(fs) = Ramfs::mount() else {
        eprintln!("skipping: cannot mount a ramfs here (needs root)");
        return;
    };
    let dir = fs.path();
    let user = precious(dir, "user.db");
    // 1. A planted sidecar symlink to the user's file is replaced, not written through.
    let data = dir.join("data");
    symlink(&user, marker::sidecar_path(&data)).unwrap();
    let (created, writer) = target::create(&data, 4096).unwrap();
    assert_eq!(created.ownership(), Some(MarkKind::Sidecar));
    assert_eq!(std::fs::read(&user).unwrap(), b"the user's only copy");
    assert!(!std::fs::symlink_metadata(marker::sidecar_path(&data))
        .unwrap()
        .file_type()
        .is_symlink());
    writer.write_all_at(&[9u8; 4096], 0).unwrap();
    drop((created, writer));
    let reopened = target::open_existing(&data, WRITE).unwrap().unwrap();
    assert_eq!(reopened.ownership(), Some(MarkKind::Sidecar));
    assert_eq!(reopened.data_len_bytes(), 4096);
    drop(reopened);

    // 2. A sidecar that is a symlink to a good sidecar is not read.
    let other = dir.join("other");
    std::fs::copy(&data, &other).unwrap();
    symlink(marker::sidecar_path(&data), marker::sidecar_path(&other)).unwrap();
    assert!(target::open_existing(&other, WRITE).is_err());

    // 3. Inode reuse: a user's file whose device and inode match a sidecar (as when iofit's
    //    file was deleted and the number reused) has no trailer with the id: not trusted.
    let victim = precious(dir, "victim");
    let meta = std::fs::metadata(&victim).unwrap();
    let sidecar = std::fs::read_to_string(marker::sidecar_path(&data)).unwrap();
    let forged = sidecar
        .split_whitespace()
        .map(|f| match f.split_once('=') {
            Some(("dev", _)) => format!("dev={}", meta.dev()),
            Some(("ino", _)) => format!("ino={}", meta.ino()),
            _ => f.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    std::fs::write(marker::sidecar_path(&victim), forged).unwrap();
    let err = target::open_existing(&victim, WRITE).unwrap_err();
    assert!(err.to_string().contains("did not create"), "{err}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"the user's only copy");
}

#[test]
fn a_temporary_name_is_random_and_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let user = precious(dir.path(), "user.db");
    let out = dir.path().join("out.json");
    // The old fixed names, planted as links to the user's file, are never opened.
    for fixed in [".out.json.iofit-tmp", "out.json.partial"] {
        symlink(&user, dir.path().join(fixed)).unwrap();
    }
    let mut file = AtomicFile::create(&out).unwrap();
    let temp = file.temp_path();
    assert!(temp.file_name().unwrap().len() > ".out.json.iofit-tmp".len());
    file.write_all(b"{\"ok\":1}").unwrap();
    file.commit().unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"{\"ok\":1}");
    assert!(!temp.exists());
    assert_eq!(std::fs::read(&user).unwrap(), b"the user's only copy");
    // An output that is a symlink to the user's file: the link is replaced, not the file.
    let link = dir.path().join("link.json");
    symlink(&user, &link).unwrap();
    write_atomic(&link, b"{}").unwrap();
    assert_eq!(std::fs::read(&user).unwrap(), b"the user's only copy");
    // /dev/null is a stream: written, never replaced by a regular file.
    write_atomic(Path::new("/dev/null"), b"discarded").unwrap();
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    check_output(Path::new("/dev/null"), &[], "--output").unwrap();
    // Dropped without commit: nothing is left behind.
    let abandoned = AtomicFile::create(&dir.path().join("never.json")).unwrap();
    let temp = abandoned.temp_path();
    drop(abandoned);
    assert!(!temp.exists() && !dir.path().join("never.json").exists());
}

#[test]
fn an_output_naming_an_input_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let job = precious(dir.path(), "job.fio");
    let data = precious(dir.path(), "data.bin");
    let inputs = [job.clone(), data.clone()];
    let refused = |out: &Path| check_output(out, &inputs, "--output").unwrap_err();
    assert!(refused(&job).to_string().contains("reads or tests"));
    // The same file through another spelling, a hard link and a symbolic link.
    assert!(refused(&dir.path().join(".").join("data.bin")).is_bad_input());
    std::fs::hard_link(&job, dir.path().join("hard")).unwrap();
    refused(&dir.path().join("hard"));
    symlink(&data, dir.path().join("soft")).unwrap();
    refused(&dir.path().join("soft"));
    // Not a file name: empty, a directory, a missing directory.
    assert!(refused(Path::new("")).to_string().contains("empty"));
    assert!(refused(dir.path()).to_string().contains("directory"));
    assert!(refused(&dir.path().join("nope/out.json"))
        .to_string()
        .contains("does not exist"));
    // An unrelated existing file is refused, naming the way out; an earlier result (one iofit
    // wrote and stamped) may be replaced.
    let unrelated = precious(dir.path(), "result.json");
    let err = refused(&unrelated);
    assert!(err.to_string().contains("--allow-overwrite"), "{err}");
    let earlier = dir.path().join("earlier.json");
    iofit_safefs::atomic::write_atomic(&earlier, b"{}").unwrap();
    check_output(&earlier, &inputs, "--output").unwrap();
    assert_eq!(std::fs::read(&unrelated).unwrap(), b"the user's only copy");
    // Nothing above changed an input.
    assert_eq!(std::fs::read(&job).unwrap(), b"the user's only copy");
}

#[test]
fn a_read_input_stays_protected_by_any_name_and_a_reused_inode_number_is_not_it() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let allowed =
        |out: &Path| iofit_safefs::guard::check_output_allowing(out, &[], "--output", true);
    // An input this process read is refused as an output by another name (a hard link), even
    // with --allow-overwrite and without being listed by the command.
    let input = precious(dir.path(), "catalog.toml");
    read_capped(&input, caps::CATALOG_BYTES, "catalog file").unwrap();
    std::fs::hard_link(&input, dir.path().join("link.toml")).unwrap();
    let err = allowed(&dir.path().join("link.toml")).unwrap_err();
    assert!(err.to_string().contains("which this run reads"), "{err}");
    // Inputs read and then deleted free their inode numbers, which new files may get. A new
    // file is never taken for the deleted input (it was, by device and inode alone: a demo
    // report refused as "the catalog this run reads" in a process that had read and deleted a
    // catalog in another test). The loop tries until a number comes back; every new file is
    // checked whether or not it got one.
    let mut reused = 0;
    for round in 0..300 {
        let old = precious(dir.path(), &format!("in{round}.toml"));
        read_capped(&old, caps::CATALOG_BYTES, "catalog file").unwrap();
        let ino = std::fs::metadata(&old).unwrap().ino();
        std::fs::remove_file(&old).unwrap();
        let new = precious(dir.path(), &format!("out{round}.html"));
        reused += usize::from(std::fs::metadata(&new).unwrap().ino() == ino);
        allowed(&new).unwrap_or_else(|e| panic!("round {round}: {e}"));
        if reused >= 3 {
            break;
        }
    }
    eprintln!("inode numbers reused: {reused}");
}

#[test]
fn inputs_must_be_regular_files_of_bounded_size() {
    let err = read_capped(Path::new("/dev/zero"), caps::JOB_FILE_BYTES, "job file").unwrap_err();
    assert!(err.to_string().contains("character device"), "{err}");
    assert!(err.is_bad_input());
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // Would hang forever if opened blocking.
    let err = read_capped(&fifo, 1024, "results JSON").unwrap_err();
    assert!(err.to_string().contains("FIFO"), "{err}");
    let big = dir.path().join("big.fio");
    std::fs::write(&big, vec![b'x'; 2048]).unwrap();
    let err = read_capped(&big, 1024, "job file").unwrap_err();
    assert!(err.to_string().contains("1.00 KiB"), "{err}");
    assert!(read_capped(dir.path(), 1024, "job file").is_err());
    std::fs::write(&big, [0xffu8, 0xfe]).unwrap();
    assert!(read_capped_string(&big, 1024, "job file")
        .unwrap_err()
        .to_string()
        .contains("UTF-8"));
}

#[test]
fn creating_over_a_name_that_appeared_is_eexist_and_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let user = precious(dir.path(), "raced");
    let err = target::create(&user, 4096).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EEXIST));
    assert!(err.is_bad_input(), "{err}");
    assert_eq!(std::fs::read(&user).unwrap(), b"the user's only copy");
}

/// A directory opened below an anchor (kept open for a run's deletes) keeps acting on
/// itself: when its name is then replaced by a link to a user's directory holding files of
/// the same names, or by the user's directory moved there, a delete or stat through it never
/// reaches the user's files; a name that is a path is refused.
#[test]
fn an_open_anchor_directory_never_acts_on_what_replaced_its_name() {
    use iofit_safefs::beneath::Beneath;
    use std::ffi::OsStr;
    let dir = tempfile::tempdir().unwrap();
    let anchor = dir.path().join("anchor");
    std::fs::create_dir_all(anchor.join("sub")).unwrap();
    std::fs::write(anchor.join("sub/vdb_f0001.file"), b"iofit's").unwrap();
    std::fs::write(anchor.join("sub/vdb_f0002.file"), b"iofit's").unwrap();
    let users = dir.path().join("users");
    std::fs::create_dir(&users).unwrap();
    let first = precious(&users, "vdb_f0001.file");
    precious(&users, "vdb_f0002.file");
    let root = Beneath::open(&anchor).unwrap();
    let sub = root.open_dir(&anchor.join("sub")).unwrap();
    // The name now leads to the user's directory, by a link.
    std::fs::rename(anchor.join("sub"), anchor.join("moved")).unwrap();
    symlink(&users, anchor.join("sub")).unwrap();
    sub.remove_file(OsStr::new("vdb_f0001.file")).unwrap();
    assert!(first.exists() && !anchor.join("moved/vdb_f0001.file").exists());
    // ... and then as the user's directory itself, moved in under that name.
    std::fs::remove_file(anchor.join("sub")).unwrap();
    std::fs::rename(&users, anchor.join("sub")).unwrap();
    assert!(sub.stat(OsStr::new("vdb_f0001.file")).is_err());
    sub.remove_file(OsStr::new("vdb_f0002.file")).unwrap();
    let moved_back = anchor.join("sub");
    assert_eq!(
        std::fs::read(moved_back.join("vdb_f0001.file")).unwrap(),
        b"the user's only copy"
    );
    assert_eq!(
        std::fs::read(moved_back.join("vdb_f0002.file")).unwrap(),
        b"the user's only copy"
    );
    // A name with a path in it is not a name in the directory.
    for bad in ["../users/vdb_f0001.file", "a/b", "..", ".", ""] {
        assert!(sub.remove_file(OsStr::new(bad)).is_err(), "{bad}");
    }
    // A directory reached through a link is not opened at all.
    let linked = dir.path().join("anchor/link");
    symlink(anchor.join("moved"), &linked).unwrap();
    assert!(root.open_dir(&linked).is_err());
}

/// `write_atomic` (catalog files, reports, CSV) never replaces a file this run reads, by its
/// name or a hard link, although it replaces what callers allowed (--allow-overwrite); iofit's
/// own state read with `read_own_state` stays replaceable.
#[test]
fn write_atomic_refuses_an_input_by_any_name_and_keeps_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let input = precious(dir.path(), "index.json");
    let before = std::fs::read(&input).unwrap();
    read_capped(&input, caps::CATALOG_BYTES, "AWS offer file").unwrap();
    std::fs::hard_link(&input, dir.path().join("alias.toml")).unwrap();
    for target in [input.clone(), dir.path().join("alias.toml")] {
        let err = iofit_safefs::atomic::write_atomic(&target, b"prices").unwrap_err();
        assert!(err.to_string().contains("which this run reads"), "{err}");
    }
    assert_eq!(std::fs::read(&input).unwrap(), before);
    // A file that is not an input is replaced as the caller asked.
    let other = precious(dir.path(), "other.toml");
    iofit_safefs::atomic::write_atomic(&other, b"prices").unwrap();
    assert_eq!(std::fs::read(&other).unwrap(), b"prices");
    // iofit's own marker, read as state, is rewritten.
    let marker = precious(dir.path(), ".marker");
    iofit_safefs::input::read_own_state(&marker, 4096, "marker").unwrap();
    iofit_safefs::atomic::write_atomic(&marker, b"new").unwrap();
    assert_eq!(std::fs::read(&marker).unwrap(), b"new");
}
