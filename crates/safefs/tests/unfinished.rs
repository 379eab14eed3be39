//! A process that must end at once removes the outputs it is still writing: their temporary
//! files go, the final names are never created, and outputs already committed stay whole.
//! (One test in its own binary: the registry is process-wide.)

use iofit_safefs::atomic::{remove_unfinished, write_atomic, AtomicFile};
use std::io::Write;

#[test]
fn unfinished_outputs_are_removed_and_committed_ones_kept() {
    let dir = tempfile::tempdir().unwrap();
    let done = dir.path().join("done.json");
    write_atomic(&done, b"{\"whole\": true}").unwrap();
    let pending = dir.path().join("pending.json");
    let mut file = AtomicFile::create(&pending).unwrap();
    file.write_all(b"{\"half\": ").unwrap();
    let temp = file.temp_path();
    assert!(temp.exists());

    assert_eq!(remove_unfinished(), 1);
    assert!(!temp.exists(), "the temporary file is removed");
    // Whatever the writer does next (the process is on its way out: it may block), the
    // half-written output never appears under its name.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(file.commit().is_ok()));
    let committed = rx.recv_timeout(std::time::Duration::from_millis(300));
    assert_ne!(committed, Ok(true));
    assert!(!pending.exists());
    assert_eq!(std::fs::read(&done).unwrap(), b"{\"whole\": true}");
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "only the committed output is left");
    // The process is on its way out: no new output starts (the registry stays locked).
    let (tx, rx) = std::sync::mpsc::channel();
    let late = dir.path().join("late.json");
    std::thread::spawn(move || tx.send(AtomicFile::create(&late).is_ok()));
    assert!(rx
        .recv_timeout(std::time::Duration::from_millis(200))
        .is_err());
    assert!(!dir.path().join("late.json").exists());
}
