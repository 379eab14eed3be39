//! The one way iofit writes a result file: whole or not at all.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a new temporary file in the same directory (same file
/// system, so the rename is atomic) that is synced and then renamed over `path`: a reader, a
/// crash or Ctrl-C never sees half a file. `create_new` never touches a file someone else made;
/// on failure only the temporary file this call created is removed.
///
/// Every command that writes results calls this function, so the crate that takes over file
/// safety replaces one body, not five.
pub fn write_atomically(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let bytes = bytes.as_ref();
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "is a directory; give a file name",
        ));
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "iofit-output".to_string());
    let temp = dir.join(format!(".{name}.iofit-{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        });
    let result = written.and_then(|_| std::fs::rename(&temp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomically(&path, b"first").unwrap();
        write_atomically(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the result, no temporary file");
    }

    #[test]
    fn a_directory_or_missing_parent_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write_atomically(dir.path(), b"x").is_err());
        assert!(write_atomically(&dir.path().join("no/such/x.json"), b"x").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
