//! The atomic file itself: a temporary file with a random name renamed over the output, and
//! the process-wide lists of files being written. [`crate::atomic`] is the public face (it
//! adds the stamped writes, which need [`crate::output`]'s stamps; this module needs none).

use crate::error::SafeFsError;
use crate::sys;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files being written now, process-wide, so that a process that must end at
/// once (a stop past its bound) can remove them: [`remove_unfinished`].
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// How an output kept at exit is stamped as iofit's before it is published: given by the
/// output layer (which knows the stamps), so this layer knows only that there is one.
pub(crate) type StampAtExit = Box<dyn Fn(&File) + Send>;

/// Outputs to publish, not remove, when the process ends at once: logs written up to the stop
/// (temporary path, final path, how to stamp it).
static KEEP_AT_EXIT: Mutex<Vec<(PathBuf, PathBuf, StampAtExit)>> = Mutex::new(Vec::new());

fn keep_at_exit() -> std::sync::MutexGuard<'static, Vec<(PathBuf, PathBuf, StampAtExit)>> {
    KEEP_AT_EXIT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Marks an output being written as one [`remove_unfinished`] publishes (what was written so
/// far, stamped by `stamp`) rather than removes.
pub(crate) fn publish_at_exit(temp: PathBuf, final_path: PathBuf, stamp: StampAtExit) {
    keep_at_exit().push((temp, final_path, stamp));
}

/// Set once the process is stopping (a signal): outputs are no longer synced.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The process is stopping and must end within a bound: from now on [`AtomicFile::commit`]
/// renames without syncing. An fsync on a busy disk can take seconds (on ext4 it may wait for
/// the journal to write out other files' data), and a thread inside it holds the process's end
/// until it returns, whatever ends the process. A reader still sees the old file or the whole
/// new one; only a power cut right after could lose it.
pub fn stop_syncing() {
    STOPPING.store(true, std::sync::atomic::Ordering::SeqCst);
}

fn unfinished() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temporary file an [`AtomicFile`] is writing now, for a process about to end
/// without unwinding (`_exit`): no output is left half-written under its final name (none
/// ever is) and no temporary file is left behind. Returns how many were removed.
///
/// The registry stays locked afterwards, so no thread creates another output before the
/// process ends: call this only on the way out.
pub fn remove_unfinished() -> usize {
    let mut guard = unfinished();
    let keep = std::mem::take(&mut *keep_at_exit());
    let removed = guard
        .drain(..)
        .filter(|path| {
            if let Some((_, final_path, stamp)) = keep.iter().find(|(t, _, _)| t == path) {
                // A log: what was written up to the stop is published, stamped as iofit's.
                if publish_by_path(path, final_path, stamp).is_ok() {
                    return false;
                }
            }
            std::fs::remove_file(path).is_ok()
        })
        .count();
    std::mem::forget(guard);
    removed
}

fn publish_by_path(temp: &Path, final_path: &Path, stamp: &StampAtExit) -> std::io::Result<()> {
    let file = sys::open(temp, libc::O_RDONLY | libc::O_NOFOLLOW, 0)?;
    stamp(&file);
    drop(file);
    std::fs::rename(temp, final_path)
}

fn forget(path: &Path) {
    unfinished().retain(|p| p != path);
    keep_at_exit().retain(|(t, _, _)| t != path);
}

/// An output being written. Call [`AtomicFile::commit`] to publish it; dropping it without
/// committing removes the temporary file.
#[derive(Debug)]
pub struct AtomicFile {
    dir: File,
    temp_name: OsString,
    final_name: OsString,
    path: PathBuf,
    file: Option<File>,
}

impl AtomicFile {
    /// Starts writing `path`. Fails at once when the directory is missing or not writable.
    pub fn create(path: &Path) -> Result<AtomicFile, SafeFsError> {
        if let Some(stream) = open_stream(path)? {
            return Ok(AtomicFile {
                dir: stream
                    .try_clone()
                    .map_err(|e| SafeFsError::io("cannot write", path, e))?,
                temp_name: OsString::new(),
                final_name: OsString::new(),
                path: path.to_path_buf(),
                file: Some(stream),
            });
        }
        let (dir_path, name) = sys::split(path).map_err(|_| {
            SafeFsError::bad(
                path,
                "is not a file name; give the output a file name such as result.json",
            )
        })?;
        let dir = sys::open_dir(&dir_path)
            .map_err(|e| SafeFsError::io("cannot open the output directory", &dir_path, e))?;
        // Read-write: the output's stamp sums its bytes before it is published.
        let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
        let mut last_error = None;
        for _ in 0..8 {
            let id =
                sys::random_u128().map_err(|e| SafeFsError::io("no random name for", path, e))?;
            let mut temp_name = OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{:016x}.iofit-tmp", id as u64));
            // Registered under the lock it is created under: a process ending at once
            // (`remove_unfinished`) finds every temporary file that exists.
            let mut registry = unfinished();
            match sys::openat(&dir, &temp_name, flags, 0o666) {
                Ok(file) => {
                    let file = AtomicFile {
                        dir,
                        temp_name,
                        final_name: name.to_os_string(),
                        path: path.to_path_buf(),
                        file: Some(file),
                    };
                    registry.push(file.temp_path());
                    return Ok(file);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last_error = Some(e),
                Err(e) => {
                    return Err(SafeFsError::io(
                        "cannot create a temporary file for",
                        path,
                        e,
                    ))
                }
            }
        }
        Err(SafeFsError::io(
            "cannot create a temporary file for",
            path,
            last_error.unwrap_or_else(|| io::Error::other("no free name")),
        ))
    }

    /// The file being written: the temporary file, or the stream.
    pub fn file(&self) -> &File {
        self.file.as_ref().expect("not committed")
    }

    /// The output's final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True when the output is a stream (a character device or FIFO), written in place.
    pub fn is_stream(&self) -> bool {
        self.final_name.is_empty()
    }

    /// Publishes an output the door checked: `replace` false renames only if the name is
    /// still free (`RENAME_NOREPLACE`), so a file that appeared meanwhile is never replaced.
    pub(crate) fn publish_as_output(self, synced: bool, replace: bool) -> Result<(), SafeFsError> {
        self.rename_into_place(synced, replace)
    }

    /// The temporary file's path (for tests and messages).
    pub fn temp_path(&self) -> PathBuf {
        self.path.with_file_name(&self.temp_name)
    }

    /// Syncs the data and renames it over the output (replacing a symbolic link there, never
    /// what it points to), then syncs the directory; once the process is stopping
    /// ([`stop_syncing`]) only renames.
    pub fn commit(self) -> Result<(), SafeFsError> {
        let synced = !STOPPING.load(std::sync::atomic::Ordering::SeqCst);
        self.publish(synced)
    }

    /// Renames the data over the output without syncing it: for a process that must end within
    /// a bound (an fsync on a busy disk can take seconds). Readers still see the old file or
    /// the whole new one; only a power cut right after could lose it.
    pub fn commit_unsynced(self) -> Result<(), SafeFsError> {
        self.publish(false)
    }

    pub(crate) fn publish(self, synced: bool) -> Result<(), SafeFsError> {
        self.rename_into_place(synced, true)
    }

    /// Syncs (when `synced`) and renames the temporary file to the output's name: over what is
    /// there when `replace`, otherwise only while the name is still free (`RENAME_NOREPLACE`).
    /// A stream (device or FIFO) is only flushed.
    fn rename_into_place(mut self, synced: bool, replace: bool) -> Result<(), SafeFsError> {
        let mut file = self.file.take().expect("committed once");
        if self.final_name.is_empty() {
            // A stream (device or FIFO): nothing to sync or rename.
            return file
                .flush()
                .map_err(|e| SafeFsError::io("cannot write", &self.path, e));
        }
        if synced {
            file.sync_all()
                .map_err(|e| SafeFsError::io("cannot write", &self.path, e))?;
        }
        drop(file);
        let renamed = if replace {
            sys::renameat(&self.dir, &self.temp_name, &self.final_name)
        } else {
            sys::renameat_noreplace(&self.dir, &self.temp_name, &self.final_name)
        };
        renamed.map_err(|e| SafeFsError::io("cannot write", &self.path, e))?;
        forget(&self.temp_path());
        self.temp_name.clear();
        if synced {
            // The rename is durable once the directory is synced; failing that is not worth an
            // error.
            let _ = self.dir.sync_all();
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("not committed").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.temp_name.is_empty() {
            let _ = sys::unlinkat(&self.dir, &self.temp_name);
            forget(&self.temp_path());
        }
    }
}

/// An existing output that is a stream (character device, FIFO) opened for writing; a block
/// device or directory refused; `None` for a regular file, a link to one, or nothing yet.
fn open_stream(path: &Path) -> Result<Option<File>, SafeFsError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    let kind = meta.file_type();
    if kind.is_block_device() {
        return Err(SafeFsError::refused(
            path,
            "it is a block device; an output goes to a file. Give a file name",
        ));
    }
    if kind.is_dir() {
        return Err(SafeFsError::bad(
            path,
            "is a directory; give the output a file name such as result.json",
        ));
    }
    if kind.is_char_device() || kind.is_fifo() {
        return sys::open(path, libc::O_WRONLY, 0)
            .map(Some)
            .map_err(|e| SafeFsError::io("cannot write", path, e));
    }
    Ok(None)
}

/// Writes `bytes` to `path` atomically with no stamp (iofit's own sidecars).
pub(crate) fn write_plain(path: &Path, bytes: &[u8]) -> Result<(), SafeFsError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes)
        .map_err(|e| SafeFsError::io("cannot write", path, e))?;
    file.commit_unsynced()
}

/// Makes `dir` (and any missing parents) a directory to write reports into, as vdbench's
/// `-o` does; creates nothing over an existing file and removes nothing.
pub fn output_dir(dir: &Path) -> Result<(), SafeFsError> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(SafeFsError::bad(
            dir,
            "exists and is not a directory; give another output directory",
        )),
        Err(_) => std::fs::create_dir_all(dir)
            .map_err(|e| SafeFsError::io("cannot create directory", dir, e)),
    }
}

#[cfg(test)]
mod output_dir_tests {
    use super::*;

    #[test]
    fn output_dir_creates_parents_and_refuses_a_file() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b/output");
        output_dir(&dir).unwrap();
        assert!(dir.is_dir());
        output_dir(&dir).unwrap();
        let file = root.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(output_dir(&file).unwrap_err().is_bad_input());
    }
}
