//! fio's offset modifiers on `rw=` (io_u.c `get_next_seq_offset`, `ddir_seq_nr`): sequential IO
//! with holes or backwards (`rw=write:4k`, `rw=read:-8k`: the next IO starts that many bytes
//! after the end of the last one), and random IO that takes a new random offset only every N
//! IOs (`rw=randread:8`), the IOs between following on sequentially (`rw_sequencer=sequential`)
//! or repeating the same offset (`rw_sequencer=identical`). For example `rw=read:-8k` with
//! 4 KiB IOs over a 64 KiB region reads backwards from 57344, block by block (the test
//! `backwards_reads_go_down_block_by_block`).

use iofit_model::units::Bytes;

/// The modifiers of one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sequence {
    /// Bytes added after the end of each sequential IO (negative: backwards).
    // Stays a bare i64: the step is signed (backwards IO) and units::Bytes is unsigned.
    pub seq_add_bytes: i64,
    /// vdbench `stride=(min,max)`: a further random skip of 0..this many bytes (whole IO
    /// lengths) after each sequential IO; the worker draws it ([`Sequence::jitter_blocks`]).
    pub seq_add_jitter_bytes: Bytes,
    /// A new random offset every this many IOs (1: every IO).
    pub random_run: u32,
    /// Between random offsets, repeat the same offset instead of following on.
    pub identical: bool,
}

impl Default for Sequence {
    fn default() -> Sequence {
        Sequence {
            seq_add_bytes: 0,
            seq_add_jitter_bytes: Bytes::ZERO,
            random_run: 1,
            identical: false,
        }
    }
}

/// Per file: where the last IO ended and how many IOs the current random run has left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqState {
    /// End of the last IO, relative to the region.
    pub next: u64,
    started: bool,
    last_offset: u64,
    run_left: u32,
}

impl Sequence {
    /// The next sequential offset in a region of `region_len` bytes, for an IO of `len`.
    #[inline]
    pub fn next_sequential(&self, state: &mut SeqState, len: u64, region_len: u64) -> u64 {
        self.next_sequential_plus(state, len, region_len, 0)
    }

    /// How many IO lengths a stride's random skip may add (vdbench: (max - min) / xfersize;
    /// the skip is a uniform draw of 0..this, times the IO length); 0 without a stride.
    #[inline]
    pub fn jitter_blocks(&self, len: u64) -> u64 {
        self.seq_add_jitter_bytes.as_u64() / len.max(1)
    }

    /// [`Sequence::next_sequential`] with `extra` bytes skipped on top of `seq_add_bytes`
    /// (a stride's random part; forward only, wrapping to the region's start as vdbench does).
    #[inline]
    pub fn next_sequential_plus(
        &self,
        state: &mut SeqState,
        len: u64,
        region_len: u64,
        extra: u64,
    ) -> u64 {
        let add = self
            .seq_add_bytes
            .saturating_add(extra.min(i64::MAX as u64) as i64);
        let last = region_len.saturating_sub(len);
        let offset = if add == 0 {
            if state.next + len > region_len {
                0
            } else {
                state.next
            }
        } else if !state.started {
            // fio starts forward IO at the region's start and backwards IO one step before
            // the end.
            if add > 0 {
                0
            } else {
                region_len.saturating_add_signed(add).min(last)
            }
        } else {
            let wanted = i128::from(state.next) + i128::from(add);
            if wanted < 0 || wanted as u128 + u128::from(len) > u128::from(region_len) {
                // Wrap: forward to the start, backwards to one step before the end.
                if add > 0 {
                    0
                } else {
                    region_len.saturating_add_signed(add).min(last)
                }
            } else {
                wanted as u64
            }
        };
        state.started = true;
        state.next = offset + len;
        offset
    }

    /// Inside a random run: the offset of the next IO without drawing a new one, or `None`
    /// when a new random offset is due.
    #[inline]
    pub fn continue_run(&self, state: &mut SeqState, len: u64, region_len: u64) -> Option<u64> {
        if state.run_left == 0 {
            return None;
        }
        state.run_left -= 1;
        let offset = if self.identical || state.next + len > region_len {
            state.last_offset
        } else {
            state.next
        };
        state.last_offset = offset;
        state.next = offset + len;
        Some(offset)
    }

    /// Records a freshly drawn random offset, starting a run of `random_run` IOs.
    #[inline]
    pub fn start_run(&self, state: &mut SeqState, offset: u64, len: u64) {
        state.run_left = self.random_run.saturating_sub(1);
        state.last_offset = offset;
        state.next = offset + len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backwards_reads_go_down_block_by_block() {
        let sequence = Sequence {
            seq_add_bytes: -8192,
            ..Sequence::default()
        };
        let mut state = SeqState::default();
        let offsets: Vec<u64> = (0..3)
            .map(|_| sequence.next_sequential(&mut state, 4096, 65536))
            .collect();
        assert_eq!(offsets, [57344, 53248, 49152]);
    }

    fn seq(add: i64) -> Sequence {
        Sequence {
            seq_add_bytes: add,
            ..Sequence::default()
        }
    }

    #[test]
    fn holes_skip_bytes_after_each_io() {
        let s = seq(4096);
        let mut state = SeqState::default();
        let offsets: Vec<u64> = (0..4)
            .map(|_| s.next_sequential(&mut state, 4096, 32768))
            .collect();
        assert_eq!(offsets, [0, 8192, 16384, 24576]);
        // The fifth would end past the region: wrap to the start.
        assert_eq!(s.next_sequential(&mut state, 4096, 32768), 0);
    }

    #[test]
    fn backwards_reads_walk_down_and_wrap_to_the_end() {
        let s = seq(-8192);
        let mut state = SeqState::default();
        let offsets: Vec<u64> = (0..7)
            .map(|_| s.next_sequential(&mut state, 4096, 32768))
            .collect();
        assert_eq!(offsets, [24576, 20480, 16384, 12288, 8192, 4096, 0]);
        assert_eq!(s.next_sequential(&mut state, 4096, 32768), 24576);
    }

    #[test]
    fn plain_sequential_is_unchanged() {
        let s = Sequence::default();
        let mut state = SeqState::default();
        let offsets: Vec<u64> = (0..5)
            .map(|_| s.next_sequential(&mut state, 4096, 16384))
            .collect();
        assert_eq!(offsets, [0, 4096, 8192, 12288, 0]);
    }

    #[test]
    fn random_runs_follow_on_or_repeat() {
        let s = Sequence {
            random_run: 3,
            ..Sequence::default()
        };
        let mut state = SeqState::default();
        assert_eq!(s.continue_run(&mut state, 4096, 1 << 20), None);
        s.start_run(&mut state, 40960, 4096);
        assert_eq!(s.continue_run(&mut state, 4096, 1 << 20), Some(45056));
        assert_eq!(s.continue_run(&mut state, 4096, 1 << 20), Some(49152));
        assert_eq!(s.continue_run(&mut state, 4096, 1 << 20), None);

        let identical = Sequence {
            identical: true,
            ..s
        };
        identical.start_run(&mut state, 8192, 4096);
        assert_eq!(
            identical.continue_run(&mut state, 4096, 1 << 20),
            Some(8192)
        );
        assert_eq!(
            identical.continue_run(&mut state, 4096, 1 << 20),
            Some(8192)
        );
        assert_eq!(identical.continue_run(&mut state, 4096, 1 << 20), None);
    }
}
