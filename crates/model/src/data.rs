//! What a job writes into its blocks and how it checks them: data verification (fio `verify=`,
//! vdbench `validate=yes`) and data content (compressibility, dedupe, patterns). Plain data:
//! `iofit-blockdata` fills and checks buffers from it, the engine decides when.

use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How each verified block is checked (fio's `verify=` names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerifyMode {
    /// No verification (fio `verify=0`/`none`).
    #[default]
    None,
    Crc32c,
    Md5,
    Sha1,
    Sha256,
    Sha512,
    Xxhash,
    /// The header alone (magic, offset, length, generation, seed), no checksum of the data.
    Meta,
    /// The data is `verify_pattern` repeated, compared byte for byte; no header (as fio).
    Pattern,
    /// fio's `verify=null`: the verify phase reads but checks nothing.
    Null,
}

impl VerifyMode {
    /// The mode fio calls `name` (`crc32c-intel` is `crc32c`: iofit's is always the hardware
    /// instruction where the CPU has one). `None` for names iofit does not know.
    pub fn from_fio_name(name: &str) -> Option<VerifyMode> {
        Some(match name {
            "0" | "none" => VerifyMode::None,
            "crc32c" | "crc32c-intel" => VerifyMode::Crc32c,
            "md5" => VerifyMode::Md5,
            "sha1" => VerifyMode::Sha1,
            "sha256" => VerifyMode::Sha256,
            "sha512" => VerifyMode::Sha512,
            "xxhash" => VerifyMode::Xxhash,
            "meta" => VerifyMode::Meta,
            "pattern" => VerifyMode::Pattern,
            "null" => VerifyMode::Null,
            _ => return None,
        })
    }
    /// The names [`VerifyMode::from_fio_name`] takes.
    pub const FIO_NAMES: &'static str =
        "0, crc32c, crc32c-intel, md5, sha1, sha256, sha512, xxhash, meta, pattern or null";

    pub fn is_on(self) -> bool {
        self != VerifyMode::None
    }
    /// Whether blocks carry iofit's header (every mode that checks something but `pattern`).
    pub fn has_header(self) -> bool {
        !matches!(
            self,
            VerifyMode::None | VerifyMode::Pattern | VerifyMode::Null
        )
    }
}

/// Data verification of a job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifySpec {
    pub mode: VerifyMode,
    /// fio `verify_pattern`: the bytes blocks are filled with; `%o` places the block's offset.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pattern: Vec<PatternPart>,
    /// Bytes per verified unit, each with its own header (fio `verify_interval`); `None`: the
    /// write block size.
    pub interval_bytes: Option<Bytes>,
    /// Where in the unit the header sits (fio `verify_offset`).
    pub header_offset_bytes: Bytes,
    /// Read back and check what was written once the writes are done (fio `do_verify`).
    pub do_verify: bool,
    /// Skip the writes; only read and check (fio `verify_only`).
    pub only: bool,
    /// Stop the job after this many bad units (fio `verify_fatal` = 1, vdbench `data_errors`);
    /// `None`: check every unit and report them all.
    pub max_errors: Option<u64>,
    /// Write each bad unit as read and as expected next to the file (fio `verify_dump`).
    pub dump: bool,
    /// Check the last written units after every this many writes (fio `verify_backlog`).
    pub backlog: Option<u64>,
    /// How many of them (fio `verify_backlog_batch`; default: `backlog`).
    pub backlog_batch: Option<u64>,
    /// Compare the header's seed with the job's (fio `verify_header_seed`).
    pub header_seed: bool,
    /// Keep the generation of every unit in this file after the run (fio
    /// `verify_state_save`), so a later run can check what this one wrote.
    pub state_save: Option<PathBuf>,
    /// Start from the generations a previous run saved (fio `verify_state_load`). With
    /// `state_save` too, a missing file starts from nothing (the first of several runs).
    pub state_load: Option<PathBuf>,
    /// The state file's stem (`STEM-CLONE-verify.state`); `None`: the job's name. vdbench
    /// names it after the SD so every run of a file shares the SD's keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_name: Option<String>,
    /// Reads check units written earlier in the same run (vdbench `validate=yes`), not only
    /// the verify phase.
    pub check_reads: bool,
}

impl Default for VerifySpec {
    fn default() -> Self {
        VerifySpec {
            mode: VerifyMode::None,
            pattern: Vec::new(),
            interval_bytes: None,
            header_offset_bytes: Bytes(0),
            do_verify: true,
            only: false,
            max_errors: None,
            dump: false,
            backlog: None,
            backlog_batch: None,
            header_seed: true,
            state_save: None,
            state_load: None,
            state_name: None,
            check_reads: false,
        }
    }
}

/// A piece of a fill pattern: literal bytes, or the unit's offset (8 bytes, little-endian).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternPart {
    Bytes(Vec<u8>),
    Offset,
}

/// How duplicate blocks are chosen.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupeSpec {
    /// fio `dedupe_percentage`: this share of writes repeat an earlier buffer; `repeat` mode
    /// repeats any earlier one, `working_set` only those of the first
    /// `working_set_pct` of the file's blocks.
    Fio {
        pct: f64,
        working_set_pct: Option<f64>,
        /// fio `dedupe_global=1`: the repeated contents (and the working set) are shared by
        /// every job that sets it, so duplicates span jobs.
        #[serde(default)]
        global: bool,
    },
    /// vdbench `dedupratio`/`dedupunit`/`dedupsets`: each `unit_bytes` of the file is one of
    /// `sets` duplicate contents or unique, by its position, so the file holds `ratio` times
    /// more units than distinct contents whatever the write order.
    Vdbench {
        ratio: f64,
        unit_bytes: u64,
        sets: DedupSets,
    },
}

/// vdbench `dedupsets`: a count, or a percentage of the units.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DedupSets {
    Count(u64),
    Pct(f64),
}

/// What write buffers hold (when not verifying).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContentSpec {
    /// Share of each chunk that compresses away (zeros), percent (fio
    /// `buffer_compress_percentage`; vdbench `compratio` R is 100 x (1 - 1/R)).
    pub compress_pct: f64,
    /// Bytes per compressible chunk (fio `buffer_compress_chunk`; 512 like fio's default).
    pub compress_chunk_bytes: Bytes,
    /// New content for every write (fio `refill_buffers`).
    pub refill: bool,
    /// Stamp the offset in every 512-byte sector so no two writes are alike (fio
    /// `scramble_buffers`, on by default).
    pub scramble: bool,
    /// All zeros (fio `zero_buffers`).
    pub zero: bool,
    /// fio `buffer_pattern`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pattern: Vec<u8>,
    pub dedupe: Option<DedupeSpec>,
}

impl Default for ContentSpec {
    fn default() -> Self {
        ContentSpec {
            compress_pct: 0.0,
            compress_chunk_bytes: Bytes(512),
            refill: false,
            scramble: true,
            zero: false,
            pattern: Vec::new(),
            dedupe: None,
        }
    }
}

impl ContentSpec {
    /// Whether every write needs its buffer filled (anything but fio's default: one random
    /// buffer, scrambled per write).
    pub fn fills_per_write(&self) -> bool {
        self.compress_pct > 0.0 || self.refill || self.dedupe.is_some()
    }
}

/// Verification and content of a job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DataSpec {
    pub verify: VerifySpec,
    pub content: ContentSpec,
}

impl DataSpec {
    pub fn is_default(&self) -> bool {
        *self == DataSpec::default()
    }
}
