//! Verified units: each carries a header (magic, offset, length, generation, seed, file, a CRC
//! of the header itself and the checksum of the rest of the unit), so a check tells a flipped
//! bit (checksum), a misdirected write (another offset or file in the header), a lost write
//! (an older generation) and a torn write (a header of one generation over data of another)
//! apart, and names what it expected and what it found.

use crate::checksum::{sum, sum_len};
use crate::random::{fill_random, key};
use iofit_model::data::{PatternPart, VerifyMode};
use iofit_model::units::Bytes;
use std::fmt;

/// "iofit" in the first bytes of every verified unit.
pub const MAGIC: u32 = 0x1f0f_17a5;
/// Header bytes before the checksum.
pub const HEADER_FIXED: usize = 48;

/// Where a unit keeps its header and how big it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub mode: VerifyMode,
    pub unit_bytes: Bytes,
    pub header_at: usize,
}

/// Why a layout cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("a verify unit of {} bytes cannot hold a {}-byte header at offset {header_at}; use a larger verify_interval or bs, or a smaller verify_offset", unit_bytes.as_u64(), header_bytes.as_u64())]
pub struct LayoutError {
    pub unit_bytes: Bytes,
    pub header_bytes: Bytes,
    pub header_at: usize,
}

impl Layout {
    pub fn new(
        mode: VerifyMode,
        unit_bytes: Bytes,
        header_at: usize,
    ) -> Result<Layout, LayoutError> {
        let layout = Layout {
            mode,
            unit_bytes,
            header_at,
        };
        if mode.has_header() && (header_at + layout.header_bytes()) as u64 > unit_bytes.as_u64() {
            return Err(LayoutError {
                unit_bytes,
                header_bytes: Bytes(layout.header_bytes() as u64),
                header_at,
            });
        }
        Ok(layout)
    }
    /// The unit's length as a buffer length.
    pub fn unit_len(&self) -> usize {
        self.unit_bytes.as_u64() as usize
    }
    pub fn header_bytes(&self) -> usize {
        if self.mode.has_header() {
            HEADER_FIXED + sum_len(self.mode)
        } else {
            0
        }
    }
}

/// What a unit says about itself: which file and offset it was written for, the how-many-th
/// write of that unit it is, and the job's seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub file: u32,
    pub offset: u64,
    pub generation: u64,
    pub seed: u64,
}

/// How a unit differs from what was expected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MismatchKind {
    /// No header where one should be (zeroed, overwritten by something else).
    BadMagic,
    /// The header itself is damaged (its CRC does not match).
    BadHeader,
    WrongLength,
    /// The unit holds data written for another offset or file.
    Misdirected,
    WrongSeed,
    /// An older generation: the last write to this unit was lost.
    Stale,
    /// A newer generation than the last write iofit knows of.
    Unexpected,
    /// Header intact but the data's checksum differs (flipped bits, a torn write).
    BadChecksum,
    /// `verify=pattern`: a byte differs from the pattern.
    BadPattern,
}

impl MismatchKind {
    pub fn name(self) -> &'static str {
        match self {
            MismatchKind::BadMagic => "bad magic",
            MismatchKind::BadHeader => "bad header",
            MismatchKind::WrongLength => "wrong length",
            MismatchKind::Misdirected => "misdirected write",
            MismatchKind::WrongSeed => "wrong seed",
            MismatchKind::Stale => "stale data (lost write)",
            MismatchKind::Unexpected => "unexpected generation",
            MismatchKind::BadChecksum => "bad checksum",
            MismatchKind::BadPattern => "bad pattern",
        }
    }
}

/// One bad unit: what was expected and what was found, as the error report prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub kind: MismatchKind,
    pub expected: String,
    pub found: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: expected {}, found {}",
            self.kind.name(),
            self.expected,
            self.found
        )
    }
}

/// Fills `unit` (exactly `layout.unit_bytes` long) with what a write of `stamp` holds.
pub fn fill_unit(layout: &Layout, unit: &mut [u8], stamp: &Stamp, pattern: &[PatternPart]) {
    debug_assert_eq!(unit.len(), layout.unit_len());
    if !pattern.is_empty() {
        fill_pattern(unit, pattern, stamp.offset);
    } else {
        fill_random(
            unit,
            key(&[
                stamp.seed,
                stamp.file as u64,
                stamp.offset,
                stamp.generation,
            ]),
        );
    }
    if !layout.mode.has_header() {
        return;
    }
    let h = layout.header_at;
    let hl = layout.header_bytes();
    let checksum = sum(layout.mode, &[&unit[..h], &unit[h + hl..]]);
    let header = &mut unit[h..h + hl];
    header[0..4].copy_from_slice(&MAGIC.to_le_bytes());
    header[4] = 1;
    header[5] = mode_code(layout.mode);
    header[6..8].fill(0);
    header[8..12].copy_from_slice(&(layout.unit_bytes.as_u64() as u32).to_le_bytes());
    header[12..16].fill(0);
    header[16..24].copy_from_slice(&stamp.offset.to_le_bytes());
    header[24..32].copy_from_slice(&stamp.generation.to_le_bytes());
    header[32..40].copy_from_slice(&stamp.seed.to_le_bytes());
    header[40..44].copy_from_slice(&stamp.file.to_le_bytes());
    header[44..48].fill(0);
    header[HEADER_FIXED..].copy_from_slice(checksum.as_bytes());
    let crc = crc32c::crc32c(header);
    header[12..16].copy_from_slice(&crc.to_le_bytes());
}

/// The bytes a unit of `stamp` should hold (for `verify_dump`).
pub fn expected_unit(layout: &Layout, stamp: &Stamp, pattern: &[PatternPart]) -> Vec<u8> {
    let mut unit = vec![0u8; layout.unit_len()];
    fill_unit(layout, &mut unit, stamp, pattern);
    unit
}

fn mode_code(mode: VerifyMode) -> u8 {
    match mode {
        VerifyMode::Crc32c => 1,
        VerifyMode::Md5 => 2,
        VerifyMode::Sha1 => 3,
        VerifyMode::Sha256 => 4,
        VerifyMode::Sha512 => 5,
        VerifyMode::Xxhash => 6,
        VerifyMode::Meta => 7,
        _ => 0,
    }
}

/// Fills `buf` with the pattern repeated, `%o` parts as the little-endian `offset`.
pub fn fill_pattern(buf: &mut [u8], pattern: &[PatternPart], offset: u64) {
    let offset_bytes = offset.to_le_bytes();
    let mut at = 0;
    while at < buf.len() {
        let before = at;
        for part in pattern {
            let bytes: &[u8] = match part {
                PatternPart::Bytes(b) => b,
                PatternPart::Offset => &offset_bytes,
            };
            let n = bytes.len().min(buf.len() - at);
            buf[at..at + n].copy_from_slice(&bytes[..n]);
            at += n;
            if at == buf.len() {
                return;
            }
        }
        if at == before {
            return; // an empty pattern fills nothing
        }
    }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// The generation a unit's header says it holds (`None` when there is no readable header: a
/// unit never written, or a pattern mode, which has no header). A read-only job checks what
/// is on storage against this, as fio checks each block against its own header.
pub fn stamped_generation(layout: &Layout, unit: &[u8]) -> Option<u64> {
    match layout.mode {
        VerifyMode::None | VerifyMode::Null | VerifyMode::Pattern => return None,
        _ => {}
    }
    let header = unit.get(layout.header_at..layout.header_at + layout.header_bytes())?;
    (u32_at(header, 0) == MAGIC).then(|| u64_at(header, 24))
}

/// Checks one unit against what the last write of it (`expect`) put there. `check_seed`: fio's
/// `verify_header_seed`.
pub fn check_unit(
    layout: &Layout,
    unit: &[u8],
    expect: &Stamp,
    pattern: &[PatternPart],
    check_seed: bool,
) -> Result<(), Mismatch> {
    match layout.mode {
        VerifyMode::None | VerifyMode::Null => return Ok(()),
        VerifyMode::Pattern => return check_pattern(unit, pattern, expect.offset),
        _ => {}
    }
    let h = layout.header_at;
    let hl = layout.header_bytes();
    let header = &unit[h..h + hl];
    let bad = |kind, expected: String, found: String| {
        Err(Mismatch {
            kind,
            expected,
            found,
        })
    };
    let magic = u32_at(header, 0);
    if magic != MAGIC {
        return bad(
            MismatchKind::BadMagic,
            format!("magic {MAGIC:#010x}"),
            format!("{magic:#010x}"),
        );
    }
    let mut copy = [0u8; HEADER_FIXED + 64];
    copy[..hl].copy_from_slice(header);
    copy[12..16].fill(0);
    let crc = crc32c::crc32c(&copy[..hl]);
    let stored_crc = u32_at(header, 12);
    if crc != stored_crc {
        return bad(
            MismatchKind::BadHeader,
            format!("header crc32c {crc:#010x}"),
            format!("{stored_crc:#010x}"),
        );
    }
    let length = u32_at(header, 8) as u64;
    if length != layout.unit_bytes.as_u64() {
        return bad(
            MismatchKind::WrongLength,
            format!("length {}", layout.unit_bytes.as_u64()),
            format!("length {length}"),
        );
    }
    let (offset, file) = (u64_at(header, 16), u32_at(header, 40));
    if offset != expect.offset || file != expect.file {
        return bad(
            MismatchKind::Misdirected,
            format!("data for file #{} offset {}", expect.file, expect.offset),
            format!("data for file #{file} offset {offset}"),
        );
    }
    let seed = u64_at(header, 32);
    if check_seed && seed != expect.seed {
        return bad(
            MismatchKind::WrongSeed,
            format!("seed {:#x}", expect.seed),
            format!("seed {seed:#x}"),
        );
    }
    let generation = u64_at(header, 24);
    if generation != expect.generation {
        let kind = if generation < expect.generation {
            MismatchKind::Stale
        } else {
            MismatchKind::Unexpected
        };
        return bad(
            kind,
            format!("generation {}", expect.generation),
            format!("generation {generation}"),
        );
    }
    let stored = &header[HEADER_FIXED..];
    if !stored.is_empty() {
        let actual = sum(layout.mode, &[&unit[..h], &unit[h + hl..]]);
        if actual.as_bytes() != stored {
            let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
            return bad(
                MismatchKind::BadChecksum,
                format!("{:?} {}", layout.mode, hex(stored)).to_lowercase(),
                actual.hex(),
            );
        }
    }
    if !pattern.is_empty() {
        let mut rest = unit.to_vec();
        rest[h..h + hl].fill(0);
        let mut want = vec![0u8; unit.len()];
        fill_pattern(&mut want, pattern, expect.offset);
        want[h..h + hl].fill(0);
        if rest != want {
            return check_pattern(&rest, &[PatternPart::Bytes(want)], expect.offset);
        }
    }
    Ok(())
}

fn check_pattern(unit: &[u8], pattern: &[PatternPart], offset: u64) -> Result<(), Mismatch> {
    let mut want = vec![0u8; unit.len()];
    fill_pattern(&mut want, pattern, offset);
    match unit.iter().zip(&want).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(at) => Err(Mismatch {
            kind: MismatchKind::BadPattern,
            expected: format!("byte {:#04x} at +{at}", want[at]),
            found: format!("{:#04x}", unit[at]),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODES: [VerifyMode; 7] = [
        VerifyMode::Crc32c,
        VerifyMode::Md5,
        VerifyMode::Sha1,
        VerifyMode::Sha256,
        VerifyMode::Sha512,
        VerifyMode::Xxhash,
        VerifyMode::Meta,
    ];

    fn stamp(offset: u64, generation: u64) -> Stamp {
        Stamp {
            file: 0,
            offset,
            generation,
            seed: 42,
        }
    }

    #[test]
    fn every_fault_kind_is_told_apart() {
        for mode in MODES {
            for header_at in [0, 1000] {
                let layout = Layout::new(mode, Bytes(4096), header_at).unwrap();
                let good = expected_unit(&layout, &stamp(8192, 2), &[]);
                let check = |unit: &[u8]| check_unit(&layout, unit, &stamp(8192, 2), &[], true);
                assert_eq!(check(&good), Ok(()));
                let kind = |unit: &[u8]| check(unit).unwrap_err().kind;
                let other = expected_unit(&layout, &stamp(4096, 2), &[]);
                assert_eq!(kind(&other), MismatchKind::Misdirected, "{mode:?}");
                let old = expected_unit(&layout, &stamp(8192, 1), &[]);
                assert_eq!(kind(&old), MismatchKind::Stale);
                let mut zeroed = good.clone();
                zeroed[header_at..header_at + 8].fill(0);
                assert_eq!(kind(&zeroed), MismatchKind::BadMagic);
                let mut flipped = good.clone();
                flipped[header_at + 20] ^= 4;
                assert_eq!(kind(&flipped), MismatchKind::BadHeader);
                if mode != VerifyMode::Meta {
                    let mut flipped = good.clone();
                    flipped[3000] ^= 1;
                    assert_eq!(kind(&flipped), MismatchKind::BadChecksum);
                    let mut torn = good.clone();
                    torn[2048..].copy_from_slice(&old[2048..]);
                    assert_eq!(kind(&torn), MismatchKind::BadChecksum);
                }
            }
        }
    }

    #[test]
    fn a_header_that_does_not_fit_is_refused() {
        let error = Layout::new(VerifyMode::Sha512, Bytes(512), 401).unwrap_err();
        assert!(error.to_string().contains("verify_offset"), "{error}");
        assert!(
            error.to_string().starts_with(
                "a verify unit of 512 bytes cannot hold a 112-byte header at offset 401;"
            ),
            "{error}"
        );
        assert!(Layout::new(VerifyMode::Pattern, Bytes(512), 400).is_ok());
    }

    #[test]
    fn patterns_with_offsets() {
        let pattern = [PatternPart::Bytes(vec![0xab, 0xcd]), PatternPart::Offset];
        let mut buf = [0u8; 13];
        fill_pattern(&mut buf, &pattern, 0x0102);
        assert_eq!(buf, [0xab, 0xcd, 2, 1, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 2]);
        let layout = Layout::new(VerifyMode::Pattern, Bytes(13), 0).unwrap();
        assert_eq!(
            check_unit(&layout, &buf, &stamp(0x0102, 1), &pattern, true),
            Ok(())
        );
        let e = check_unit(&layout, &buf, &stamp(0x0103, 1), &pattern, true).unwrap_err();
        assert_eq!(e.kind, MismatchKind::BadPattern);
        assert_eq!(
            e.to_string(),
            "bad pattern: expected byte 0x03 at +2, found 0x02"
        );
        // A checksum mode with a pattern checks both.
        let layout = Layout::new(VerifyMode::Crc32c, Bytes(512), 0).unwrap();
        let unit = expected_unit(&layout, &stamp(512, 1), &pattern);
        assert_eq!(
            check_unit(&layout, &unit, &stamp(512, 1), &pattern, true),
            Ok(())
        );
        assert_eq!(&unit[100..102], &[0xab, 0xcd]);
    }
}
