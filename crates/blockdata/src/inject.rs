//! Fault injection: corrupts a written file between its write and its verify, the way storage
//! loses data, and scores what a verify run reported against what was done. A library module
//! (not a test-support crate) so the engine's, the CLI's and the bench's tests use one
//! harness; it only touches the file it is given.
//!
//! Kinds: a flipped bit, a zeroed 512-byte sector, two blocks swapped (misdirected writes), a
//! block rolled back to the previous generation (lost write), a torn write (first half of the
//! block new, second half old). Rollbacks and tears take the old data from a copy of the file
//! made after the previous generation was written ([`snapshot`]).

use crate::random::WyRand;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind {
    BitFlip,
    ZeroSector,
    Misdirected,
    LostWrite,
    TornWrite,
}

impl FaultKind {
    pub const ALL: [FaultKind; 5] = [
        FaultKind::BitFlip,
        FaultKind::ZeroSector,
        FaultKind::Misdirected,
        FaultKind::LostWrite,
        FaultKind::TornWrite,
    ];
}

/// One injected fault: the block it hit (and, for a swap, the other block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub offset: u64,
    pub length: u64,
    pub partner: Option<u64>,
}

impl Fault {
    fn blocks(&self) -> impl Iterator<Item = u64> {
        std::iter::once(self.offset).chain(self.partner)
    }
}

/// Plans `count` faults, kinds in turn, over distinct blocks of `block_bytes` among the
/// `blocks` blocks from `region_start`. Needs at least 1.2 x `count` blocks (a swap takes two).
pub fn plan(
    region_start: u64,
    blocks: u64,
    block_bytes: u64,
    count: usize,
    seed: u64,
) -> Vec<Fault> {
    let mut rng = WyRand::new(seed);
    // A shuffled list of blocks; faults take them in order, so none is hit twice.
    let mut order: Vec<u64> = (0..blocks).collect();
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut next = order.into_iter().map(|b| region_start + b * block_bytes);
    let mut faults = Vec::with_capacity(count);
    for i in 0..count {
        let kind = FaultKind::ALL[i % FaultKind::ALL.len()];
        let Some(offset) = next.next() else { break };
        let partner = if kind == FaultKind::Misdirected {
            match next.next() {
                Some(p) => Some(p),
                None => break,
            }
        } else {
            None
        };
        faults.push(Fault {
            kind,
            offset,
            length: block_bytes,
            partner,
        });
    }
    faults
}

/// A copy of `target` beside it (`NAME.previous`): the previous generation for rollbacks.
pub fn snapshot(target: &Path) -> io::Result<PathBuf> {
    let mut name = target.as_os_str().to_owned();
    name.push(".previous");
    let copy = PathBuf::from(name);
    std::fs::copy(target, &copy)?;
    Ok(copy)
}

/// Applies `faults` to `target`, taking old data from `previous` (see [`snapshot`]).
pub fn apply(target: &Path, previous: &Path, faults: &[Fault], seed: u64) -> io::Result<()> {
    let file = File::options().read(true).write(true).open(target)?;
    let old = File::open(previous)?;
    let mut rng = WyRand::new(seed ^ 0xfa17);
    for fault in faults {
        let len = fault.length as usize;
        let mut block = vec![0u8; len];
        file.read_exact_at(&mut block, fault.offset)?;
        match fault.kind {
            FaultKind::BitFlip => {
                let bit = rng.next_u64() % (len as u64 * 8);
                block[(bit / 8) as usize] ^= 1 << (bit % 8);
            }
            FaultKind::ZeroSector => {
                let sectors = (len / 512).max(1);
                let s = (rng.next_u64() % sectors as u64) as usize * 512;
                block[s..(s + 512).min(len)].fill(0);
            }
            FaultKind::Misdirected => {
                let other_at = fault.partner.expect("a swap has a partner");
                let mut other = vec![0u8; len];
                file.read_exact_at(&mut other, other_at)?;
                file.write_all_at(&block, other_at)?;
                block = other;
            }
            FaultKind::LostWrite => old.read_exact_at(&mut block, fault.offset)?,
            FaultKind::TornWrite => {
                let half = len / 2 / 512 * 512;
                let half = if half == 0 { len / 2 } else { half };
                old.read_exact_at(&mut block[half..], fault.offset + half as u64)?;
            }
        }
        file.write_all_at(&block, fault.offset)?;
    }
    file.sync_all()
}

/// What a verify run found against what was injected.
#[derive(Clone, Debug, Default)]
pub struct Score {
    pub injected: usize,
    /// Faults with a reported bad unit in every block they hit.
    pub detected: usize,
    pub missed: Vec<Fault>,
    /// Reported (offset, length) ranges that touch no faulted block.
    pub false_positives: Vec<(u64, u64)>,
}

/// Scores `reported` bad ranges (offset, length) against `faults`.
pub fn score(faults: &[Fault], reported: &[(u64, u64)]) -> Score {
    let hits = |block: u64, len: u64| {
        reported
            .iter()
            .any(|&(o, l)| o < block + len && block < o + l)
    };
    let mut score = Score {
        injected: faults.len(),
        ..Score::default()
    };
    for fault in faults {
        if fault.blocks().all(|b| hits(b, fault.length)) {
            score.detected += 1;
        } else {
            score.missed.push(*fault);
        }
    }
    score.false_positives = reported
        .iter()
        .copied()
        .filter(|&(o, l)| {
            !faults
                .iter()
                .any(|f| f.blocks().any(|b| o < b + f.length && b < o + l))
        })
        .collect();
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_distinct_blocks_and_scores_exactly() {
        let faults = plan(4096, 100, 4096, 50, 3);
        assert_eq!(faults.len(), 50);
        let mut blocks: Vec<u64> = faults.iter().flat_map(|f| f.blocks()).collect();
        let n = blocks.len();
        assert_eq!(n, 60, "ten swaps take two blocks each");
        blocks.sort();
        blocks.dedup();
        assert_eq!(blocks.len(), n);
        assert!(blocks.iter().all(|b| b % 4096 == 0 && *b >= 4096));
        let reported: Vec<(u64, u64)> = faults[1..]
            .iter()
            .flat_map(|f| f.blocks())
            .map(|b| (b, 4096))
            .collect();
        let mut with_extra = reported.clone();
        with_extra.push((0, 512));
        let s = score(&faults, &with_extra);
        assert_eq!((s.injected, s.detected, s.missed.len()), (50, 49, 1));
        assert_eq!(s.false_positives, vec![(0, 512)]);
    }
}
