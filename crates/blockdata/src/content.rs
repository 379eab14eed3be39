//! What write buffers hold when the job does not verify: fio's random buffer scrambled per
//! write (the default), refilled, zeros, a pattern, compressible chunks, and deduplicable
//! blocks (fio's share of repeated writes, vdbench's ratio over dedup units).

use crate::random::{fill_random, key, mix64, WyRand};
use iofit_model::data::{ContentSpec, DedupSets, DedupeSpec, PatternPart};

/// fio `dedupe_global`: the contents every clone of every job with it draws from. Unique
/// contents are numbered once across them all, and a repeat picks any content made so far
/// (or within the shared working set), so duplicates span jobs.
#[derive(Debug)]
pub struct SharedDedupe {
    seed: u64,
    uniques: std::sync::atomic::AtomicU64,
    /// The shared working set in contents (`None`: repeat mode).
    working_set: Option<u64>,
}

impl SharedDedupe {
    /// `blocks`: the write blocks of every clone that shares it; `working_set_pct` as the
    /// jobs' `dedupe_working_set_percentage` (in working-set mode).
    pub fn new(seed: u64, blocks: u64, working_set_pct: Option<f64>) -> Self {
        SharedDedupe {
            seed,
            uniques: std::sync::atomic::AtomicU64::new(0),
            working_set: working_set_pct.map(|pct| ((blocks as f64 * pct / 100.0) as u64).max(1)),
        }
    }
}

/// Fills write buffers for one clone.
#[derive(Clone, Debug)]
pub struct ContentFiller {
    /// fio `dedupe_global`: the contents shared with other jobs.
    shared: Option<std::sync::Arc<SharedDedupe>>,
    spec: ContentSpec,
    seed: u64,
    rng: WyRand,
    writes: u64,
    /// Distinct contents made so far (fio dedupe).
    uniques: u64,
    /// Repeats owed so far (fio dedupe): the share asked times the writes, less those made.
    dup_credit: f64,
    /// fio dedupe `working_set`: duplicates come from the first this many contents.
    working_set: Option<u64>,
    /// vdbench dedupe per file: (region start, unit bytes, share of units that duplicate, sets).
    vdbench: Vec<(u64, u64, f64, u64)>,
}

impl ContentFiller {
    /// `regions`: (start, length) of each file the clone writes, `block_bytes` its write size.
    pub fn new(spec: &ContentSpec, seed: u64, regions: &[(u64, u64)], block_bytes: u64) -> Self {
        let mut working_set = None;
        let mut vdbench = Vec::new();
        match &spec.dedupe {
            Some(DedupeSpec::Fio {
                working_set_pct: Some(pct),
                ..
            }) => {
                let blocks: u64 = regions.iter().map(|r| r.1 / block_bytes.max(1)).sum();
                working_set = Some(((blocks as f64 * pct / 100.0) as u64).max(1));
            }
            Some(DedupeSpec::Vdbench {
                ratio,
                unit_bytes,
                sets,
            }) => {
                for &(base, len) in regions {
                    let units = (len / unit_bytes.max(&1)).max(1);
                    let sets = dedup_set_count(*sets, units);
                    // distinct = units x (1 - p) + sets = units / ratio
                    let p =
                        (1.0 - 1.0 / ratio.max(1.0) + sets as f64 / units as f64).clamp(0.0, 1.0);
                    vdbench.push((
                        base,
                        *unit_bytes.max(&1),
                        if *ratio > 1.0 { p } else { 0.0 },
                        sets,
                    ));
                }
            }
            _ => {}
        }
        ContentFiller {
            shared: None,
            spec: spec.clone(),
            seed,
            rng: WyRand::new(seed ^ 0xc0_47e4_7000),
            writes: 0,
            uniques: 0,
            dup_credit: 0.0,
            working_set,
            vdbench,
        }
    }

    /// Draws duplicates from (and numbers unique contents in) `shared`, for fio's
    /// `dedupe_global`.
    pub fn with_shared(mut self, shared: std::sync::Arc<SharedDedupe>) -> Self {
        self.shared = Some(shared);
        self
    }

    /// Whether [`ContentFiller::fill`] must run before every write (else the buffer's first
    /// random fill stands and nothing per write is needed).
    pub fn active(&self) -> bool {
        self.spec.fills_per_write()
            || self.spec.scramble
            || self.spec.zero
            || !self.spec.pattern.is_empty()
    }

    /// Fills `buf` for a write at `offset` of file `file`.
    pub fn fill(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        self.writes += 1;
        if self.spec.zero {
            buf.fill(0);
            return;
        }
        if !self.spec.pattern.is_empty() {
            let pattern = [PatternPart::Bytes(self.spec.pattern.clone())];
            crate::verify::fill_pattern(buf, &pattern, offset);
            return;
        }
        if !self.spec.fills_per_write() {
            if self.spec.scramble {
                scramble(buf, offset, self.writes);
            }
            return;
        }
        match self.spec.dedupe.clone() {
            Some(DedupeSpec::Vdbench { .. }) => self.fill_vdbench_units(buf, file, offset),
            Some(DedupeSpec::Fio { pct, .. }) => {
                // Exactly `pct` of writes repeat (a running share, not a coin per write, so a
                // small file has the asked ratio too); which earlier content is random.
                let shared = self.shared.clone();
                let made = shared.as_ref().map_or(self.uniques, |s| {
                    s.uniques.load(std::sync::atomic::Ordering::Relaxed)
                });
                self.dup_credit += pct / 100.0;
                let repeat = self.dup_credit >= 1.0 && made > 0;
                if repeat {
                    self.dup_credit -= 1.0;
                }
                let working_set = shared.as_ref().map_or(self.working_set, |s| s.working_set);
                let content = if repeat {
                    self.rng.next_u64() % working_set.map_or(made, |w| w.min(made))
                } else if let Some(shared) = &shared {
                    shared
                        .uniques
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                } else {
                    self.uniques += 1;
                    self.uniques - 1
                };
                let seed = shared.as_ref().map_or(self.seed, |s| s.seed);
                self.fill_content(buf, key(&[seed, 0xf10, content]));
            }
            None => {
                let seed = key(&[self.seed, file as u64, offset, self.writes]);
                self.fill_content(buf, seed);
            }
        }
    }

    fn fill_vdbench_units(&mut self, buf: &mut [u8], file: u32, offset: u64) {
        let Some(&(base, unit, p_dup, sets)) = self.vdbench.get(file as usize) else {
            return;
        };
        let mut at = 0usize;
        while at < buf.len() {
            let unit_offset = offset + at as u64;
            let index = unit_offset.saturating_sub(base) / unit;
            let end = (at + unit as usize).min(buf.len());
            let h = mix64(key(&[self.seed, file as u64, index]));
            // A Weyl sequence over the unit index rather than a hash: the units that repeat
            // are spread evenly, so any stretch of the file has the asked share of them.
            let share = ((index as f64 + 0.5) * 0.618_033_988_749_895).fract();
            let seed = if share < p_dup {
                key(&[self.seed, 0xd0d0, mix64(h) % sets.max(1)])
            } else {
                key(&[self.seed, file as u64, index, self.writes])
            };
            self.fill_content(&mut buf[at..end], seed);
            at = end;
        }
    }

    /// Random bytes, or with compression chunks of random bytes followed by zeros.
    fn fill_content(&self, buf: &mut [u8], seed: u64) {
        fill_compressible(
            buf,
            seed,
            self.spec.compress_pct,
            self.spec.compress_chunk_bytes.as_u64() as usize,
        );
    }
}

/// vdbench `dedupsets` as a count of sets for `units` dedup units.
pub fn dedup_set_count(sets: DedupSets, units: u64) -> u64 {
    match sets {
        DedupSets::Count(n) => n.max(1),
        DedupSets::Pct(pct) => ((units as f64 * pct / 100.0).round() as u64).max(1),
    }
}

/// Fills `buf` so that `compress_pct` percent of every `chunk` bytes compresses away: the
/// chunk's first part is random, the rest zeros (as fio does).
pub fn fill_compressible(buf: &mut [u8], seed: u64, compress_pct: f64, chunk: usize) {
    if compress_pct <= 0.0 {
        fill_random(buf, seed);
        return;
    }
    let chunk = chunk.max(1);
    let random_share = (100.0 - compress_pct.min(100.0)) / 100.0;
    for (i, piece) in buf.chunks_mut(chunk).enumerate() {
        let random = (piece.len() as f64 * random_share).round() as usize;
        fill_random(&mut piece[..random], mix64(seed ^ i as u64));
        piece[random..].fill(0);
    }
}

/// fio's `scramble_buffers`: the offset and the write's number at the start of every
/// 512-byte sector, so that no two writes are alike for a deduplicating device.
pub fn scramble(buf: &mut [u8], offset: u64, write_number: u64) {
    for (i, sector) in buf.chunks_mut(512).enumerate() {
        if sector.len() >= 16 {
            sector[..8].copy_from_slice(&(offset + i as u64 * 512).to_le_bytes());
            sector[8..16].copy_from_slice(&write_number.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressible_chunks_are_random_then_zero() {
        let mut buf = vec![0xffu8; 2048];
        fill_compressible(&mut buf, 1, 75.0, 512);
        for chunk in buf.chunks(512) {
            assert!(chunk[384..].iter().all(|&b| b == 0));
            assert!(chunk[..128].iter().filter(|&&b| b == 0).count() < 5);
        }
    }

    #[test]
    fn scramble_makes_writes_differ() {
        let spec = ContentSpec::default();
        let mut filler = ContentFiller::new(&spec, 1, &[(0, 1 << 20)], 4096);
        let (mut a, mut b) = (vec![7u8; 4096], vec![7u8; 4096]);
        filler.fill(&mut a, 0, 0);
        filler.fill(&mut b, 0, 0);
        assert_ne!(a, b);
        assert_eq!(a[16..512], b[16..512]);
    }
}
