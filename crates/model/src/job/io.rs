//! What a job's IO is: its read/write pattern, block sizes, the engine that issues it, and the
//! target and size it covers.

use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Read/write direction pattern, as fio's `rw=` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mixed reads and writes (`rw=rw` / `rw=readwrite`).
    ReadWrite,
    /// Random mixed reads and writes (`rw=randrw`).
    RandRw,
    /// Sequential trims (`rw=trim`): on a regular file a hole is punched
    /// (`fallocate(PUNCH_HOLE | KEEP_SIZE)`, fio's falloc engine), on a block device the
    /// range is discarded (`BLKDISCARD`).
    Trim,
    /// Random trims (`rw=randtrim`).
    RandTrim,
    /// Each block trimmed, then written (`rw=trimwrite`), sequentially.
    TrimWrite,
    /// Random blocks, each trimmed then written (`rw=randtrimwrite`).
    RandTrimWrite,
}

impl RwMode {
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead
                | RwMode::RandWrite
                | RwMode::RandRw
                | RwMode::RandTrim
                | RwMode::RandTrimWrite
        )
    }
    /// True for the modes that issue trims. They change the target's content as writes do,
    /// so [`RwMode::has_writes`] is true for them too (the never-destroy rule, layout).
    pub fn has_trims(self) -> bool {
        matches!(
            self,
            RwMode::Trim | RwMode::RandTrim | RwMode::TrimWrite | RwMode::RandTrimWrite
        )
    }
    /// True for `trimwrite`/`randtrimwrite`: every trimmed block is then written.
    pub fn is_trimwrite(self) -> bool {
        matches!(self, RwMode::TrimWrite | RwMode::RandTrimWrite)
    }
    pub fn has_reads(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRw
        )
    }
    pub fn has_writes(self) -> bool {
        matches!(
            self,
            RwMode::Write
                | RwMode::RandWrite
                | RwMode::ReadWrite
                | RwMode::RandRw
                | RwMode::Trim
                | RwMode::RandTrim
                | RwMode::TrimWrite
                | RwMode::RandTrimWrite
        )
    }
    pub fn is_mixed(self) -> bool {
        self.has_reads() && self.has_writes()
    }
    /// The mode fio calls `name` (`rw` and `readwrite` are one mode); `None` for any other
    /// name. Exact spelling: callers that accept other cases lower-case first.
    pub fn from_fio_name(name: &str) -> Option<RwMode> {
        Some(match name {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "rw" | "readwrite" => RwMode::ReadWrite,
            "randrw" => RwMode::RandRw,
            "trim" => RwMode::Trim,
            "randtrim" => RwMode::RandTrim,
            "trimwrite" => RwMode::TrimWrite,
            "randtrimwrite" => RwMode::RandTrimWrite,
            _ => return None,
        })
    }
    /// The names [`RwMode::from_fio_name`] takes, as a message lists them.
    pub const FIO_NAMES: &'static str =
        "read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite or randtrimwrite";

    /// A mode as a user writes it: fio's name in any case; an error lists the names.
    pub fn parse(text: &str) -> Result<RwMode, UnknownName> {
        RwMode::from_fio_name(&text.trim().to_ascii_lowercase()).ok_or_else(|| UnknownName {
            name: text.to_string(),
            known: RwMode::FIO_NAMES,
        })
    }
    /// The mode of a workload given as a read share, percent, and whether its IO is random
    /// (vdbench's rdpct/seekpct, Iometer's read and random percentages): all reads and all
    /// writes are the pure modes, any share between is mixed.
    pub fn from_mix(read_pct: f64, random: bool) -> RwMode {
        match (read_pct, random) {
            (r, true) if r >= 100.0 => RwMode::RandRead,
            (r, false) if r >= 100.0 => RwMode::Read,
            (r, true) if r <= 0.0 => RwMode::RandWrite,
            (r, false) if r <= 0.0 => RwMode::Write,
            (_, true) => RwMode::RandRw,
            (_, false) => RwMode::ReadWrite,
        }
    }
    /// fio's name for the mode.
    pub fn fio_name(self) -> &'static str {
        match self {
            RwMode::Read => "read",
            RwMode::Write => "write",
            RwMode::RandRead => "randread",
            RwMode::RandWrite => "randwrite",
            RwMode::ReadWrite => "rw",
            RwMode::RandRw => "randrw",
            RwMode::Trim => "trim",
            RwMode::RandTrim => "randtrim",
            RwMode::TrimWrite => "trimwrite",
            RwMode::RandTrimWrite => "randtrimwrite",
        }
    }
}

/// The two directions that fio reports separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

/// A value per direction, as fio's `bs=4k,8k` or `rate_iops=100,200` give them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerDirection<T> {
    pub read: T,
    pub write: T,
}

impl<T: Copy> PerDirection<T> {
    pub fn both(value: T) -> Self {
        PerDirection {
            read: value,
            write: value,
        }
    }
    pub fn get(&self, direction: Direction) -> T {
        match direction {
            Direction::Read => self.read,
            Direction::Write => self.write,
        }
    }
}

/// One entry of a block-size distribution (fio `bssplit=4k/10:64k/90`, vdbench
/// `xfersize=(4k,10,64k,90)`). Percentages of one direction add up to 100.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockSizeShare {
    pub size: Bytes,
    pub pct: f64,
}

/// Block sizes of a job: one size per direction, or a distribution per direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockSizeSpec {
    Fixed(PerDirection<Bytes>),
    Split {
        read: Vec<BlockSizeShare>,
        write: Vec<BlockSizeShare>,
    },
}

impl BlockSizeSpec {
    pub fn fixed(size: Bytes) -> Self {
        BlockSizeSpec::Fixed(PerDirection::both(size))
    }
    /// The largest size any IO of the job can have; buffers are sized by it.
    pub fn max_size(&self) -> Bytes {
        match self {
            BlockSizeSpec::Fixed(sizes) => sizes.read.max(sizes.write),
            BlockSizeSpec::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|share| share.size)
                .max()
                .unwrap_or(Bytes::ZERO),
        }
    }
    /// The smallest size any IO of the job can have (fio's `td_min_bs`).
    pub fn min_size(&self) -> Bytes {
        match self {
            BlockSizeSpec::Fixed(sizes) => sizes.read.min(sizes.write),
            BlockSizeSpec::Split { read, write } => read
                .iter()
                .chain(write.iter())
                .map(|share| share.size)
                .min()
                .unwrap_or(Bytes::ZERO),
        }
    }
    /// The mean size in one direction, weighted by the distribution.
    pub fn mean_size(&self, direction: Direction) -> Bytes {
        match self {
            BlockSizeSpec::Fixed(sizes) => sizes.get(direction),
            BlockSizeSpec::Split { read, write } => {
                let shares = match direction {
                    Direction::Read => read,
                    Direction::Write => write,
                };
                let total_pct: f64 = shares.iter().map(|s| s.pct).sum();
                if total_pct <= 0.0 {
                    return Bytes::ZERO;
                }
                let mean: f64 =
                    shares.iter().map(|s| s.size.as_f64() * s.pct).sum::<f64>() / total_pct;
                Bytes(mean.round() as u64)
            }
        }
    }
}

/// Which IO engine a job asks for. `Libaio` is accepted because the seed's job files name it;
/// iofit runs it on io_uring with the same queue-depth semantics and reports that it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// No IO at all: measures iofit's own overhead, like fio's null engine.
    Null,
    /// pread/pwrite, one IO at a time per job.
    Psync,
    /// read/write after lseek.
    Sync,
    /// preadv/pwritev.
    Pvsync,
    IoUring,
    Libaio,
    /// fio's `falloc`: every IO is a fallocate of its range (read: KEEP_SIZE, write: mode 0,
    /// trim: PUNCH_HOLE), one at a time; no data moves.
    Falloc,
    /// fio's `ftruncate`: every write truncates the file to the IO's offset; reads fail
    /// (EINVAL), as fio's do.
    Ftruncate,
}

/// A name that is not one of a fixed set (an IO pattern, an IO engine); says which are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{name}' is not known; use {known}")]
pub struct UnknownName {
    pub name: String,
    pub known: &'static str,
}

/// Every engine name iofit knows: fio's own names first, then the spellings fio's JSON output
/// and other tools use for the same engine (`false`: read from results, not taken in job files).
const ENGINE_NAMES: [(&str, EngineKind, bool); 12] = [
    ("null", EngineKind::Null, true),
    ("psync", EngineKind::Psync, true),
    ("sync", EngineKind::Sync, true),
    ("pvsync", EngineKind::Pvsync, true),
    ("io_uring", EngineKind::IoUring, true),
    ("libaio", EngineKind::Libaio, true),
    ("falloc", EngineKind::Falloc, true),
    ("ftruncate", EngineKind::Ftruncate, true),
    ("pvsync2", EngineKind::Pvsync, false),
    ("vsync", EngineKind::Pvsync, false),
    ("iouring", EngineKind::IoUring, false),
    ("io-uring", EngineKind::IoUring, false),
];

impl EngineKind {
    /// The names a job file's `ioengine=` takes, as a message lists them.
    pub const FIO_NAMES: &'static str =
        "null, psync, sync, pvsync, io_uring, libaio, falloc or ftruncate";

    /// The engine fio calls `name` (exact spelling), as a job file names it.
    pub fn from_fio_name(name: &str) -> Option<EngineKind> {
        ENGINE_NAMES
            .iter()
            .find(|(known, _, in_job_files)| *in_job_files && *known == name)
            .map(|(_, kind, _)| *kind)
    }

    /// The engine a result names, in any case and under the other spellings tools use
    /// (`pvsync2`, `iouring`, `io-uring`).
    pub fn from_reported_name(name: &str) -> Option<EngineKind> {
        let name = name.trim().to_ascii_lowercase();
        ENGINE_NAMES
            .iter()
            .find(|(known, _, _)| *known == name)
            .map(|(_, kind, _)| *kind)
    }

    /// [`EngineKind::from_reported_name`], or an error that lists fio's names.
    pub fn parse(text: &str) -> Result<EngineKind, UnknownName> {
        EngineKind::from_reported_name(text).ok_or_else(|| UnknownName {
            name: text.to_string(),
            known: EngineKind::FIO_NAMES,
        })
    }

    pub fn fio_name(self) -> &'static str {
        match self {
            EngineKind::Null => "null",
            EngineKind::Psync => "psync",
            EngineKind::Sync => "sync",
            EngineKind::Pvsync => "pvsync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
        }
    }
    /// Synchronous engines have one IO in flight per job whatever `iodepth` says (fio agrees).
    pub fn is_synchronous(self) -> bool {
        matches!(
            self,
            EngineKind::Psync
                | EngineKind::Sync
                | EngineKind::Pvsync
                | EngineKind::Falloc
                | EngineKind::Ftruncate
        )
    }
}

/// Where a job does its IO.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// fio `filename=a:b`: every clone of the job shares these files.
    Files(Vec<PathBuf>),
    /// fio `directory=D` without `filename`: clone `c` uses `D/<name>.<c>.<f>` for file `f`,
    /// exactly as fio names them, so an existing fio layout is reused.
    Directory { path: PathBuf, nrfiles: u32 },
}

/// How much of each file a job uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SizeSpec {
    Bytes(Bytes),
    /// fio `size=50%`: a share of the existing file or device.
    PercentOfTarget(f64),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_names_round_trip_and_aliases_are_only_read() {
        for (name, kind, in_job_files) in ENGINE_NAMES {
            assert_eq!(EngineKind::from_reported_name(name), Some(kind));
            assert_eq!(
                EngineKind::from_fio_name(name).is_some(),
                in_job_files,
                "{name}"
            );
            if in_job_files {
                assert_eq!(kind.fio_name(), name);
            }
        }
        assert_eq!(EngineKind::parse("IO_URING"), Ok(EngineKind::IoUring));
        let error = EngineKind::parse("posixaio").unwrap_err();
        assert!(
            error.to_string().contains("libaio, falloc or ftruncate"),
            "{error}"
        );
        assert_eq!(RwMode::parse(" RandRead "), Ok(RwMode::RandRead));
        assert_eq!(RwMode::parse("RandTrim"), Ok(RwMode::RandTrim));
        assert!(RwMode::parse("randtrm")
            .unwrap_err()
            .to_string()
            .contains("randtrimwrite"));
    }

    #[test]
    fn rw_modes_from_fio_names_and_mixes() {
        for mode in [
            RwMode::Read,
            RwMode::Write,
            RwMode::RandRead,
            RwMode::RandWrite,
            RwMode::ReadWrite,
            RwMode::RandRw,
            RwMode::Trim,
            RwMode::RandTrim,
            RwMode::TrimWrite,
            RwMode::RandTrimWrite,
        ] {
            assert_eq!(RwMode::from_fio_name(mode.fio_name()), Some(mode));
            // A trim changes the target as a write does (the never-destroy rule sees it).
            assert!(!mode.has_trims() || mode.has_writes() && !mode.has_reads());
        }
        assert_eq!(RwMode::from_fio_name("readwrite"), Some(RwMode::ReadWrite));
        assert!(RwMode::RandTrimWrite.is_random() && RwMode::RandTrimWrite.is_trimwrite());
        assert!(!RwMode::Trim.is_random() && !RwMode::Trim.is_trimwrite());
        assert_eq!(RwMode::from_fio_name("RandRead"), None);
        assert_eq!(RwMode::from_mix(100.0, true), RwMode::RandRead);
        assert_eq!(RwMode::from_mix(100.0, false), RwMode::Read);
        assert_eq!(RwMode::from_mix(0.0, true), RwMode::RandWrite);
        assert_eq!(RwMode::from_mix(0.0, false), RwMode::Write);
        assert_eq!(RwMode::from_mix(70.0, true), RwMode::RandRw);
        assert_eq!(RwMode::from_mix(70.0, false), RwMode::ReadWrite);
    }

    #[test]
    fn split_mean_size() {
        let spec = BlockSizeSpec::Split {
            read: vec![
                BlockSizeShare {
                    size: Bytes::kib(4),
                    pct: 50.0,
                },
                BlockSizeShare {
                    size: Bytes::kib(12),
                    pct: 50.0,
                },
            ],
            write: vec![BlockSizeShare {
                size: Bytes::kib(64),
                pct: 100.0,
            }],
        };
        assert_eq!(spec.mean_size(Direction::Read), Bytes::kib(8));
        assert_eq!(spec.max_size(), Bytes::kib(64));
    }
}
