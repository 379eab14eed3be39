//! Output checks made before any work: the output must be a file name in an existing, writable
//! directory, and must not name one of the command's own inputs or targets (the same path, the
//! same inode through a hard link, or a symbolic link to it). Replacing an earlier result file
//! stays allowed.

use crate::error::SafeFsError;
use crate::sys;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Refuses `output` unless it can be written as a new or replaced result file without touching
/// any of `protected` (the command's inputs and targets). `flag` names the option in messages.
/// An existing file is replaced only when it is an earlier iofit result file
/// ([`crate::output`]); a command with `--allow-overwrite` uses [`check_output_allowing`].
pub fn check_output(output: &Path, protected: &[PathBuf], flag: &str) -> Result<(), SafeFsError> {
    check_output_allowing(output, protected, flag, false)
}

/// [`check_output`], where `allow_overwrite` lets an unrelated existing regular file (never an
/// input) be replaced.
pub fn check_output_allowing(
    output: &Path,
    protected: &[PathBuf],
    flag: &str,
    allow_overwrite: bool,
) -> Result<(), SafeFsError> {
    check_output_as(
        output,
        protected,
        flag,
        crate::output::OutputKind::Report,
        allow_overwrite,
    )
}

/// [`check_output_allowing`] for an output of `kind` (a log or IO log a job option names):
/// an existing file is replaced only when it is an earlier iofit output of that kind.
pub fn check_output_as(
    output: &Path,
    protected: &[PathBuf],
    flag: &str,
    kind: crate::output::OutputKind,
    allow_overwrite: bool,
) -> Result<(), SafeFsError> {
    if output.as_os_str().is_empty() {
        return Err(SafeFsError::bad(
            output,
            format!("{flag} is empty; give a file name such as {flag} result.json"),
        ));
    }
    let text = output.as_os_str().as_encoded_bytes();
    if text.ends_with(b"/") || output.is_dir() {
        return Err(SafeFsError::bad(
            output,
            format!(
                "{flag} is a directory; give a file name such as {flag} {}",
                output.join("result.json").display()
            ),
        ));
    }
    let (dir, _) = sys::split(output)
        .map_err(|_| SafeFsError::bad(output, format!("{flag} needs a file name")))?;
    if !dir.is_dir() {
        return Err(SafeFsError::bad(
            output,
            format!(
                "the directory {} does not exist; create it first or write {flag} elsewhere",
                dir.display()
            ),
        ));
    }
    let stream = std::fs::metadata(output).is_ok_and(|m| {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_char_device() || m.file_type().is_fifo()
    });
    if !stream && !sys::can_write_in(&dir) {
        return Err(SafeFsError::bad(
            output,
            format!(
                "cannot create files in {}; write {flag} to a directory you can write",
                dir.display()
            ),
        ));
    }
    if let Ok(meta) = std::fs::metadata(output) {
        use std::os::unix::fs::FileTypeExt;
        let ft = meta.file_type();
        // A character device or FIFO (/dev/null, /dev/stdout, a pipe) is written as a stream.
        if ft.is_block_device() || ft.is_socket() {
            return Err(SafeFsError::refused(
                output,
                format!("{flag} names a block device or socket, not a file; give a file name"),
            ));
        }
    }
    for input in protected {
        if same_file(output, input) {
            return Err(SafeFsError::refused(output, format!(
                "{flag} names {}, which this command reads or tests; the result would replace it. Write the output to another file name",
                input.display()
            )));
        }
    }
    crate::output::check(output, kind, allow_overwrite).map_err(|e| match e {
        SafeFsError::Refused { path, reason } => SafeFsError::Refused {
            path,
            reason: format!("{flag}: {reason}"),
        },
        other => other,
    })?;
    Ok(())
}

/// The path with its directory resolved (the file itself need not exist).
fn canonical(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    let (dir, name) = sys::split(path).ok()?;
    Some(dir.canonicalize().ok()?.join(name))
}

/// Whether `output` names the file `input` names: the same path, the same inode through a
/// hard link or a symbolic link, or the same file once directories are resolved.
pub fn same_file(output: &Path, input: &Path) -> bool {
    if output == input {
        return true;
    }
    // Through links: the inode the output name reaches, and the one the input reaches.
    if let (Ok(a), Ok(b)) = (std::fs::metadata(output), std::fs::metadata(input)) {
        if a.dev() == b.dev() && a.ino() == b.ino() {
            return true;
        }
    }
    // The output name itself being a link that the input path goes through is also the input.
    if let (Ok(a), Ok(b)) = (
        std::fs::symlink_metadata(output),
        std::fs::symlink_metadata(input),
    ) {
        if a.dev() == b.dev() && a.ino() == b.ino() {
            return true;
        }
    }
    matches!((canonical(output), canonical(input)), (Some(a), Some(b)) if a == b)
}
