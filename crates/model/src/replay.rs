//! IO-log replay and recording (fio `read_iolog`, `write_iolog` and the `replay_*` options):
//! what a job asks for. The engine reads and writes the logs themselves.

use crate::units::Bytes;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// fio `read_iolog=FILE` and its modifiers: the job issues the IOs a log names, in its order,
/// instead of drawing offsets, sizes and directions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplaySpec {
    /// The log files; clone N replays the Nth (modulo their count), as fio's
    /// `get_name_by_idx` picks one per subjob from a `:`-separated list.
    pub logs: Vec<PathBuf>,
    /// fio `replay_no_stall`: issue each IO as soon as possible, ignoring the log's times.
    pub no_stall: bool,
    /// fio `replay_time_scale`: percent of real time the log's gaps are replayed at
    /// (200: twice as fast); 100 by default.
    pub time_scale_pct: u32,
    /// fio `replay_redirect`: every IO goes to this file, whatever file the log names.
    pub redirect: Option<PathBuf>,
    /// fio `replay_align`: offsets rounded down to a multiple of this (a power of two).
    pub align: Option<Bytes>,
    /// fio `replay_scale`: offsets divided by this (1: as logged).
    pub scale: u64,
    /// fio `read_iolog_chunked`: read the log in pieces as the replay goes (iofit always
    /// streams the log, so this changes nothing but is accepted).
    pub chunked: bool,
    /// fio `replay_skip`: entries of these kinds are left out.
    pub skip: ReplaySkip,
}

impl ReplaySpec {
    /// A replay of `log` with fio's defaults.
    pub fn new(log: impl Into<PathBuf>) -> ReplaySpec {
        ReplaySpec {
            logs: vec![log.into()],
            no_stall: false,
            time_scale_pct: 100,
            redirect: None,
            align: None,
            scale: 1,
            chunked: false,
            skip: ReplaySkip::default(),
        }
    }

    /// The log clone `clone` replays.
    pub fn log_for_clone(&self, clone: u32) -> &PathBuf {
        &self.logs[clone as usize % self.logs.len().max(1)]
    }
}

/// fio `replay_skip=read,write,sync,trim`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplaySkip {
    pub read: bool,
    pub write: bool,
    pub sync: bool,
    pub trim: bool,
}
