//! One clone's verification: fills the units of each write, counts their generations, and
//! checks the units of each read, keeping the bad ones for the report.

use crate::state::Generations;
use crate::verify::{
    check_unit, expected_unit, fill_unit, stamped_generation, Layout, LayoutError, Mismatch, Stamp,
};
use iofit_model::data::{PatternPart, VerifySpec};
use std::path::PathBuf;

/// Bad units kept with their details; the rest are only counted.
pub const KEEP_BAD: usize = 100;

/// A unit that did not hold what was last written to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadUnit {
    pub file: u32,
    pub offset: u64,
    pub length: u64,
    pub mismatch: Mismatch,
}

pub struct Verifier {
    layout: Layout,
    pattern: Vec<PatternPart>,
    seed: u64,
    check_seed: bool,
    check_reads: bool,
    /// The job never writes: each unit read is checked against its own header, as fio checks
    /// every block a read job with `verify=` reads (its generation is whatever is stamped).
    on_disk: bool,
    gens: Generations,
    /// Per slot: the generations of a read's units when it was issued.
    snapshots: Vec<Vec<u32>>,
    max_errors: Option<u64>,
    /// `verify_dump`: the files' paths, to name the dumps after.
    dump_paths: Option<Vec<PathBuf>>,
    pub bad: Vec<BadUnit>,
    pub bad_count: u64,
    pub checked_units: u64,
}

impl Verifier {
    /// `regions`: (start, length) per file; `slots`: IOs in flight at most; `paths`: the
    /// files' names (for dumps).
    pub fn new(
        spec: &VerifySpec,
        unit_bytes: u64,
        regions: &[(u64, u64)],
        seed: u64,
        slots: usize,
        paths: &[PathBuf],
    ) -> Result<Verifier, LayoutError> {
        let layout = Layout::new(
            spec.mode,
            iofit_model::units::Bytes(unit_bytes),
            spec.header_offset_bytes.as_u64() as usize,
        )?;
        Ok(Verifier {
            layout,
            pattern: spec.pattern.clone(),
            seed,
            check_seed: spec.header_seed,
            check_reads: spec.check_reads,
            on_disk: false,
            gens: Generations::new(regions, unit_bytes),
            snapshots: vec![Vec::new(); slots.max(1)],
            max_errors: spec.max_errors,
            dump_paths: spec.dump.then(|| paths.to_vec()),
            bad: Vec::new(),
            bad_count: 0,
            checked_units: 0,
        })
    }

    /// A job that never writes: its reads check what is on storage (see `on_disk`).
    pub fn check_on_disk(&mut self) {
        self.on_disk = true;
    }

    pub fn unit_bytes(&self) -> u64 {
        self.layout.unit_bytes.as_u64()
    }
    pub fn generations(&self) -> &Generations {
        &self.gens
    }
    pub fn generations_mut(&mut self) -> &mut Generations {
        &mut self.gens
    }
    /// True once `max_errors` bad units were found: the job stops.
    pub fn limit_reached(&self) -> bool {
        self.max_errors.is_some_and(|m| self.bad_count >= m)
    }

    fn units(&self, offset: u64, len: usize) -> impl Iterator<Item = (usize, u64)> {
        let unit = self.layout.unit_len();
        (0..len / unit).map(move |i| (i * unit, offset + (i * unit) as u64))
    }

    /// Fills a write of `buf.len()` bytes at `offset`: each unit gets its next generation.
    pub fn fill_write(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        let unit = self.layout.unit_len();
        for (at, unit_offset) in self.units(offset, buf.len()) {
            let generation = self.gens.begin_write(file, unit_offset);
            let stamp = self.stamp(file, unit_offset, generation);
            fill_unit(&self.layout, &mut buf[at..at + unit], &stamp, &self.pattern);
        }
    }

    /// A write by an engine that moves no data (ioengine=null): its units count as written,
    /// with no buffer to fill, so that the verify phase reads them back as fio's does.
    pub fn note_write(&mut self, file: u32, offset: u64, len: usize) {
        for (_, unit_offset) in self.units(offset, len) {
            self.gens.begin_write(file, unit_offset);
        }
    }

    /// A write finished: its units are on storage.
    pub fn write_done(&mut self, file: u32, offset: u64, len: usize) {
        for (_, unit_offset) in self.units(offset, len) {
            self.gens.end_write(file, unit_offset);
        }
    }

    /// A read is issued in `slot`: remembers its units' generations (with `check_reads`).
    pub fn read_issued(&mut self, slot: u32, file: u32, offset: u64, len: usize) {
        if !self.check_reads && !self.on_disk {
            return;
        }
        let mut snapshot = std::mem::take(&mut self.snapshots[slot as usize]);
        snapshot.clear();
        for (_, unit_offset) in self.units(offset, len) {
            snapshot.push(self.gens.raw(file, unit_offset));
        }
        self.snapshots[slot as usize] = snapshot;
    }

    /// A read in `slot` finished: checks each unit whose generation did not change while the
    /// read was in flight (a write of it in between could be seen or not).
    pub fn read_done(&mut self, slot: u32, buf: &[u8], file: u32, offset: u64) {
        if !self.check_reads && !self.on_disk {
            return;
        }
        let snapshot = std::mem::take(&mut self.snapshots[slot as usize]);
        let unit = self.layout.unit_len();
        for (i, (at, unit_offset)) in self.units(offset, buf.len()).enumerate() {
            let before = snapshot.get(i).copied().unwrap_or(0);
            if before != self.gens.raw(file, unit_offset) {
                continue;
            }
            if let Some(generation) = self.gens.expected(file, unit_offset) {
                self.check(&buf[at..at + unit], file, unit_offset, generation);
            } else if self.on_disk {
                self.check_stamped(&buf[at..at + unit], file, unit_offset);
            }
        }
        self.snapshots[slot as usize] = snapshot;
    }

    /// The verify phase: checks a unit read back (a unit never written is not checked, unless
    /// the job never writes: then each is checked against its own header).
    pub fn check_written(&mut self, buf: &[u8], file: u32, offset: u64) {
        let unit = self.layout.unit_len();
        for (at, unit_offset) in self.units(offset, buf.len()) {
            if let Some(generation) = self.gens.expected(file, unit_offset) {
                self.check(&buf[at..at + unit], file, unit_offset, generation);
            } else if self.on_disk {
                self.check_stamped(&buf[at..at + unit], file, unit_offset);
            }
        }
    }

    /// Checks a unit whose last write iofit does not know of: against the generation its
    /// header holds (a missing header is reported as such), without the seed (another run
    /// may have written it with another one).
    fn check_stamped(&mut self, unit: &[u8], file: u32, offset: u64) {
        let generation = stamped_generation(&self.layout, unit).unwrap_or(1);
        let check_seed = std::mem::replace(&mut self.check_seed, false);
        self.check(unit, file, offset, generation);
        self.check_seed = check_seed;
    }

    fn stamp(&self, file: u32, offset: u64, generation: u64) -> Stamp {
        Stamp {
            file,
            offset,
            generation,
            seed: self.seed,
        }
    }

    fn check(&mut self, unit: &[u8], file: u32, offset: u64, generation: u64) {
        self.checked_units += 1;
        let stamp = self.stamp(file, offset, generation);
        if let Err(mismatch) =
            check_unit(&self.layout, unit, &stamp, &self.pattern, self.check_seed)
        {
            self.bad_count += 1;
            if let Some(paths) = &self.dump_paths {
                if let Some(path) = paths.get(file as usize) {
                    let expected = expected_unit(&self.layout, &stamp, &self.pattern);
                    dump(path, offset, "received", unit);
                    dump(path, offset, "expected", &expected);
                }
            }
            if self.bad.len() < KEEP_BAD {
                self.bad.push(BadUnit {
                    file,
                    offset,
                    length: unit.len() as u64,
                    mismatch,
                });
            }
        }
    }
}

/// fio's `verify_dump`: `FILE.OFFSET.received` / `.expected` beside the file, through
/// safefs's door: never over a user's file, a link or a device (an earlier dump is replaced).
fn dump(path: &std::path::Path, offset: u64, what: &str, bytes: &[u8]) {
    use iofit_safefs::output::{write, OutputKind};
    let name = format!("{}.{offset}.{what}", path.display());
    // A dump is a diagnostic extra: one that may not be written is skipped.
    let _ = write(
        std::path::Path::new(&name),
        OutputKind::VerifyDump,
        false,
        bytes,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use iofit_model::data::VerifyMode;

    #[test]
    fn reads_check_what_was_written_and_skip_what_changed_in_flight() {
        let spec = VerifySpec {
            mode: VerifyMode::Crc32c,
            check_reads: true,
            ..VerifySpec::default()
        };
        let mut v = Verifier::new(&spec, 4096, &[(0, 1 << 20)], 5, 2, &[]).unwrap();
        let mut buf = vec![0u8; 8192];
        v.fill_write(&mut buf, 0, 8192);
        v.write_done(0, 8192, 8192);
        let written = buf.clone();
        // A read of the same place sees what was written.
        v.read_issued(0, 0, 8192, 8192);
        v.read_done(0, &written, 0, 8192);
        assert_eq!((v.checked_units, v.bad_count), (2, 0));
        // A read that overlaps a later write is not judged.
        v.read_issued(1, 0, 8192, 4096);
        v.fill_write(&mut buf, 0, 8192);
        v.write_done(0, 8192, 8192);
        v.read_done(1, &written[..4096], 0, 8192);
        assert_eq!(v.bad_count, 0);
        // The verify phase catches the old data now.
        v.check_written(&written, 0, 8192);
        assert_eq!(v.bad_count, 2);
        assert_eq!(v.bad[0].offset, 8192);
        assert_eq!(v.bad[1].offset, 12288);
        assert!(v.bad[0].mismatch.to_string().starts_with("stale"));
    }
}
