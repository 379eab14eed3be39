//! Typed errors. `Refused` and `BadInput` are the user's to fix (the CLI exits 2), and so is an
//! `Io` error whose cause is the user's setup (no space, read-only mount, name taken, no
//! permission): see [`SafeFsError::is_bad_input`].

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SafeFsError {
    /// iofit will not write here: it could destroy data it does not own.
    #[error("refusing to write to {path}: {reason}")]
    Refused { path: PathBuf, reason: String },
    /// A path the user gave cannot be used as it is (empty, a directory, too large, a FIFO).
    #[error("{path}: {message}")]
    BadInput { path: PathBuf, message: String },
    /// An operating-system error. The cause is printed once, in this message, and not kept as
    /// a `source` (the CLI prints the whole chain, which would repeat it).
    #[error("{context} {path}: {}", describe(.error))]
    Io {
        context: &'static str,
        path: PathBuf,
        error: io::Error,
    },
}

impl SafeFsError {
    pub(crate) fn io(context: &'static str, path: impl Into<PathBuf>, error: io::Error) -> Self {
        SafeFsError::Io {
            context,
            path: path.into(),
            error,
        }
    }

    pub(crate) fn bad(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        SafeFsError::BadInput {
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn refused(path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        SafeFsError::Refused {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// As an `io::Error` (the OS error itself when there is one), for callers whose error
    /// types carry `io::Error`.
    pub fn into_io(self) -> io::Error {
        match self {
            SafeFsError::Io { error, .. } => error,
            other => io::Error::new(io::ErrorKind::PermissionDenied, other.detail()),
        }
    }

    /// The OS error code, when this is an IO error.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            SafeFsError::Io { error, .. } => error.raw_os_error(),
            _ => None,
        }
    }

    /// The message without the path, for callers that print the path themselves.
    pub fn detail(&self) -> String {
        match self {
            SafeFsError::Refused { reason, .. } => format!("refusing to write to it: {reason}"),
            SafeFsError::BadInput { message, .. } => message.clone(),
            SafeFsError::Io { context, error, .. } => format!("{context} it: {}", describe(error)),
        }
    }

    /// True when the user must fix something (exit code 2).
    pub fn is_bad_input(&self) -> bool {
        match self {
            SafeFsError::Refused { .. } | SafeFsError::BadInput { .. } => true,
            SafeFsError::Io { error, .. } => is_user_setup_error(error),
        }
    }
}

/// Errors whose fix is the user's (space, a read-only mount, a name in the way, permissions,
/// the open-file limit), as opposed to a device failing.
pub fn is_user_setup_error(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(
            libc::ENOSPC
                | libc::EDQUOT
                | libc::EROFS
                | libc::EEXIST
                | libc::EACCES
                | libc::EPERM
                | libc::ENOENT
                | libc::ENOTDIR
                | libc::EISDIR
                | libc::ELOOP
                | libc::EMFILE
                | libc::ENFILE
                | libc::EFBIG
        )
    )
}

/// An OS error with the fix it usually needs.
pub fn describe(error: &io::Error) -> String {
    let hint = match error.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => "; free space on that filesystem or write less",
        Some(libc::EROFS) => {
            "; the filesystem is mounted read-only: point the job at a writable one"
        }
        Some(libc::EEXIST) => {
            "; a file of that name appeared meanwhile: remove it or pick another name"
        }
        Some(libc::EMFILE) | Some(libc::ENFILE) => {
            "; raise the open-file limit (ulimit -n) or use fewer files and jobs"
        }
        _ => "",
    };
    format!("{error}{hint}")
}
