//! The generation of every verify unit: how many times the job has written it. A read that
//! finds an older generation found a lost write. Kept in memory (4 bytes per unit) and, with
//! fio's `verify_state_save`/`verify_state_load`, in a file so a later run checks what an
//! earlier one wrote.

use std::io::{Read, Write};
use std::path::Path;

/// A unit whose write is in flight: a read of it may see either version.
const PENDING: u32 = 1 << 31;

/// Errors of the state file.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("verify state {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    /// safefs's door refused the file or could not write it.
    #[error("verify state: {0}")]
    Output(#[from] iofit_safefs::SafeFsError),
    #[error("verify state {path} is not an iofit verify state file (it starts with {found:?}); give a file that verify_state_save wrote")]
    Format { path: String, found: String },
    #[error("verify state {path} was saved for {saved}, this job has {job}; load it with the job that saved it")]
    Mismatch {
        path: String,
        saved: String,
        job: String,
    },
}

/// One file's region and the generation of each of its units.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileGens {
    base: u64,
    len: u64,
    gens: Vec<u32>,
}

/// Generations of the units of a clone's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generations {
    unit_bytes: u64,
    files: Vec<FileGens>,
}

impl Generations {
    /// Every unit of each region `(start, length)` at generation 0 (never written).
    pub fn new(regions: &[(u64, u64)], unit_bytes: u64) -> Generations {
        let unit_bytes = unit_bytes.max(1);
        Generations {
            unit_bytes,
            files: regions
                .iter()
                .map(|&(base, len)| FileGens {
                    base,
                    len,
                    gens: vec![0; (len / unit_bytes) as usize],
                })
                .collect(),
        }
    }

    /// Bytes of memory `new` takes for these regions (for the run's resource check).
    pub fn memory_bytes(regions: &[(u64, u64)], unit_bytes: u64) -> u64 {
        regions.iter().map(|r| r.1 / unit_bytes.max(1) * 4).sum()
    }

    pub fn unit_bytes(&self) -> u64 {
        self.unit_bytes
    }

    #[inline]
    fn slot(&mut self, file: u32, offset: u64) -> Option<&mut u32> {
        let f = self.files.get_mut(file as usize)?;
        let index = offset.checked_sub(f.base)? / self.unit_bytes;
        f.gens.get_mut(index as usize)
    }

    /// Marks the unit at `offset` as being written; returns its new generation.
    #[inline]
    pub fn begin_write(&mut self, file: u32, offset: u64) -> u64 {
        match self.slot(file, offset) {
            Some(g) => {
                let next = (*g & !PENDING).wrapping_add(1) & !PENDING;
                *g = next | PENDING;
                next as u64
            }
            None => 0,
        }
    }

    /// The write of the unit at `offset` is on storage.
    #[inline]
    pub fn end_write(&mut self, file: u32, offset: u64) {
        if let Some(g) = self.slot(file, offset) {
            *g &= !PENDING;
        }
    }

    /// The raw entry (generation, with the pending bit) for a read's snapshot.
    #[inline]
    pub fn raw(&self, file: u32, offset: u64) -> u32 {
        let Some(f) = self.files.get(file as usize) else {
            return 0;
        };
        match offset.checked_sub(f.base) {
            Some(rel) => f
                .gens
                .get((rel / self.unit_bytes) as usize)
                .copied()
                .unwrap_or(0),
            None => 0,
        }
    }

    /// The generation a read of the unit must find; `None` when it was never written or a
    /// write of it is in flight.
    #[inline]
    pub fn expected(&self, file: u32, offset: u64) -> Option<u64> {
        let raw = self.raw(file, offset);
        (raw != 0 && raw & PENDING == 0).then_some(raw as u64)
    }

    /// Every written unit as (file, offset), in file then offset order.
    pub fn written(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.files.iter().enumerate().flat_map(move |(i, f)| {
            f.gens
                .iter()
                .enumerate()
                .filter(|(_, g)| **g != 0)
                .map(move |(u, _)| (i as u32, f.base + u as u64 * self.unit_bytes))
        })
    }

    /// The first written unit at or after `offset` of file `file` (then in later files), as
    /// (file, offset): walks the table without a list, so checking a large device needs no
    /// memory beyond the table.
    pub fn next_written(&self, file: u32, offset: u64) -> Option<(u32, u64)> {
        for (i, f) in self.files.iter().enumerate().skip(file as usize) {
            let from = if i == file as usize {
                (offset.saturating_sub(f.base)).div_ceil(self.unit_bytes) as usize
            } else {
                0
            };
            if let Some(u) = f.gens.iter().skip(from).position(|g| *g != 0) {
                return Some((i as u32, f.base + (from + u) as u64 * self.unit_bytes));
            }
        }
        None
    }

    /// The first unit at or after `offset` of file `file` (then in later files), written or
    /// not: a read-only verify walks every unit of the job's regions this way.
    pub fn next_unit(&self, file: u32, offset: u64) -> Option<(u32, u64)> {
        for (i, f) in self.files.iter().enumerate().skip(file as usize) {
            let from = if i == file as usize {
                (offset.saturating_sub(f.base)).div_ceil(self.unit_bytes) as usize
            } else {
                0
            };
            if from < f.gens.len() {
                return Some((i as u32, f.base + from as u64 * self.unit_bytes));
            }
        }
        None
    }

    /// Units written at least once.
    pub fn written_count(&self) -> u64 {
        self.files
            .iter()
            .map(|f| f.gens.iter().filter(|g| **g != 0).count() as u64)
            .sum()
    }

    fn describe(&self, seed: u64) -> String {
        let mut s = format!(
            "iofit-verify-state 1 unit={} seed={seed:#x} files={}",
            self.unit_bytes,
            self.files.len()
        );
        for f in &self.files {
            s.push_str(&format!(" {}+{}", f.base, f.len));
        }
        s
    }

    /// Writes the table (a text line naming the layout, then 4 bytes per unit) through
    /// safefs's door: a new file or an earlier iofit verify state, never a device, a link or
    /// a user's file (unless `allow_overwrite`).
    pub fn save(&self, path: &Path, seed: u64, allow_overwrite: bool) -> Result<(), StateError> {
        use iofit_safefs::output::{OutputFile, OutputKind};
        let io = |source| StateError::Io {
            path: path.display().to_string(),
            source,
        };
        let file = OutputFile::create(path, OutputKind::VerifyState, allow_overwrite)?;
        let mut out = std::io::BufWriter::new(file);
        writeln!(out, "{}", self.describe(seed)).map_err(io)?;
        for f in &self.files {
            for g in &f.gens {
                out.write_all(&(g & !PENDING).to_le_bytes()).map_err(io)?;
            }
        }
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        Ok(file.commit()?)
    }

    /// Loads a table `save` wrote for the same layout (`self` gives it; its generations are
    /// replaced).
    pub fn load(&mut self, path: &Path, seed: u64) -> Result<(), StateError> {
        let name = path.display().to_string();
        let io = |source| StateError::Io {
            path: name.clone(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut reader = std::io::BufReader::new(file);
        let want = self.describe(seed);
        let mut line = Vec::new();
        // Bounded: a line longer than the one expected is not ours.
        let mut byte = [0u8; 1];
        while line.len() <= want.len() {
            if reader.read(&mut byte).map_err(io)? == 0 || byte[0] == b'\n' {
                break;
            }
            line.push(byte[0]);
        }
        let line = String::from_utf8_lossy(&line).to_string();
        if !line.starts_with("iofit-verify-state 1 ") {
            return Err(StateError::Format {
                path: name,
                found: line.chars().take(40).collect(),
            });
        }
        if line != want {
            return Err(StateError::Mismatch {
                path: name,
                saved: line,
                job: want,
            });
        }
        let mut word = [0u8; 4];
        for f in &mut self.files {
            for g in &mut f.gens {
                reader.read_exact(&mut word).map_err(io)?;
                *g = u32::from_le_bytes(word) & !PENDING;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_count_writes_and_round_trip_through_a_file() {
        let mut gens = Generations::new(&[(0, 16384), (4096, 8192)], 4096);
        assert_eq!(gens.expected(0, 4096), None);
        assert_eq!(gens.begin_write(0, 4096), 1);
        assert_eq!(gens.expected(0, 4096), None, "pending");
        gens.end_write(0, 4096);
        assert_eq!(gens.begin_write(0, 4096), 2);
        gens.end_write(0, 4096);
        gens.begin_write(1, 8192);
        gens.end_write(1, 8192);
        assert_eq!(gens.expected(0, 4096), Some(2));
        assert_eq!(gens.expected(1, 8192), Some(1));
        assert_eq!(
            gens.written().collect::<Vec<_>>(),
            vec![(0, 4096), (1, 8192)]
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state");
        gens.save(&path, 9, false).unwrap();
        let mut loaded = Generations::new(&[(0, 16384), (4096, 8192)], 4096);
        loaded.load(&path, 9).unwrap();
        assert_eq!(loaded, gens);
        let mut other = Generations::new(&[(0, 8192)], 4096);
        let e = other.load(&path, 9).unwrap_err().to_string();
        assert!(e.contains("was saved for"), "{e}");
        std::fs::write(&path, b"hello\n").unwrap();
        assert!(matches!(
            loaded.load(&path, 9),
            Err(StateError::Format { .. })
        ));
    }
}
