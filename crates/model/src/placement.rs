//! Where a job's clones start in their files and how jobs pace each other: fio's
//! `offset=N%`, `offset_increment`, `offset_align` (its `get_start_offset`, filesetup.c) and
//! its flow control between jobs (`flow`, `flow_id`, `flow_sleep`).

use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// An amount of a file: bytes, or a percentage of the file's size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileAmount {
    Bytes(u64),
    Percent(f64),
}

impl FileAmount {
    /// The amount in a file of `file_size_bytes`.
    pub fn in_file(self, file_size_bytes: u64) -> u64 {
        match self {
            FileAmount::Bytes(bytes) => bytes,
            FileAmount::Percent(pct) => (file_size_bytes as f64 * pct / 100.0) as u64,
        }
    }

    pub fn is_percent(self) -> bool {
        matches!(self, FileAmount::Percent(_))
    }
}

/// Where clone `n` of a job starts: `offset` (bytes, or percent of the file's size) plus `n`
/// times `increment`. Defaults: the job's byte `offset` for every clone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StartOffset {
    /// fio `offset=N%` (the job's `offset` field holds a byte offset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    /// fio `offset_increment`: added once per clone number (fio's subjob number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment: Option<FileAmount>,
    /// fio `offset_align`: a percentage-derived start is rounded up to this (default: the
    /// smallest block size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align_bytes: Option<Bytes>,
}

impl StartOffset {
    pub fn is_default(&self) -> bool {
        *self == StartOffset::default()
    }

    /// Whether the start depends on the file's size (so the caller must know it).
    pub fn needs_file_size(&self) -> bool {
        self.percent.is_some() || self.increment.is_some_and(FileAmount::is_percent)
    }

    /// Where clone `clone` starts, as fio's `get_start_offset`: a start that came from a
    /// percentage is rounded up to `align_bytes` or the smallest block size.
    pub fn for_clone(
        &self,
        offset_bytes: u64,
        clone: u32,
        file_size_bytes: u64,
        min_block_bytes: u64,
    ) -> u64 {
        let increment = self.increment.map_or(0, |i| i.in_file(file_size_bytes));
        let base = match self.percent {
            Some(pct) => (file_size_bytes as f64 * pct / 100.0) as u64,
            None => offset_bytes,
        };
        let start = base.saturating_add(u64::from(clone).saturating_mul(increment));
        if self.needs_file_size() {
            let align = self
                .align_bytes
                .map_or(min_block_bytes, Bytes::as_u64)
                .max(1);
            start.div_ceil(align).saturating_mul(align)
        } else {
            start
        }
    }
}

/// fio's flow control: jobs with the same `id` keep their completed IOs in the ratio of their
/// `weight`s; a job ahead of its share sleeps `sleep` before its next IO.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowSpec {
    pub id: u32,
    /// fio `flow=N`: this job's weight; jobs do IOs in proportion to their weights.
    pub weight: u32,
    pub sleep: Duration,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_offsets_follow_fios_get_start_offset() {
        let start = StartOffset {
            increment: Some(FileAmount::Bytes(124 << 30)),
            ..StartOffset::default()
        };
        assert_eq!(start.for_clone(120 << 10, 0, 0, 16384), 120 << 10);
        assert_eq!(
            start.for_clone(120 << 10, 3, 0, 16384),
            (120 << 10) + 3 * (124 << 30)
        );
        // 13% of 1000 blocks of 4 KiB is 532,480 bytes, rounded up to a 4 KiB block.
        let pct = StartOffset {
            percent: Some(13.0),
            ..StartOffset::default()
        };
        assert_eq!(pct.for_clone(0, 0, 4_096_000, 4096), 532_480);
        let aligned = StartOffset {
            align_bytes: Some(Bytes(1 << 20)),
            ..pct
        };
        assert_eq!(aligned.for_clone(0, 0, 4_096_000, 4096), 1 << 20);
    }
}

/// fio's per-IO priorities (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`,
/// `cmdprio_bssplit`; fio's cmdprio.c), per direction (0 read, 1 write).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CmdPrio {
    pub per_direction: [CmdPrioDirection; 2],
}

/// One direction's per-IO priority rule. An IO gets `class`/`level` with `percentage` percent
/// chance, or, with `bssplit`, by the entries for its block size; other IOs keep the job's
/// priority.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CmdPrioDirection {
    pub percentage: f64,
    /// fio `cmdprio_class` (default 1, realtime) and `cmdprio` (default 0, the highest level).
    pub class: u8,
    pub level: u8,
    pub bssplit: Vec<CmdPrioSplit>,
}

impl Default for CmdPrioDirection {
    fn default() -> Self {
        CmdPrioDirection {
            percentage: 0.0,
            class: 1,
            level: 0,
            bssplit: Vec::new(),
        }
    }
}

/// One `cmdprio_bssplit` entry: `pct` percent of the IOs of `bs_bytes` get the priority
/// (`class`/`level`, or the direction's when not given).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CmdPrioSplit {
    pub bs_bytes: Bytes,
    pub pct: f64,
    pub class_level: Option<(u8, u8)>,
}

impl CmdPrio {
    /// The ioprio value (class << 13 | level) of an IO of `len` bytes in direction `dir`
    /// (0 read, 1 write), with `draw` uniform in [0, 100); `None`: the job's own priority.
    pub fn pick(&self, dir: usize, len: u64, draw: f64) -> Option<u16> {
        let rule = &self.per_direction[dir];
        let value = |(class, level): (u8, u8)| (u16::from(class) << 13) | u16::from(level);
        if rule.bssplit.is_empty() {
            return (draw < rule.percentage).then(|| value((rule.class, rule.level)));
        }
        let mut cumulative = 0.0;
        for entry in rule.bssplit.iter().filter(|e| e.bs_bytes == Bytes(len)) {
            cumulative += entry.pct;
            if draw < cumulative {
                return (entry.pct > 0.0)
                    .then(|| value(entry.class_level.unwrap_or((rule.class, rule.level))));
            }
        }
        None
    }
}
