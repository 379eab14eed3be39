//! Where a clone's next IO goes: the file it picks and the offset in it, sequential (with
//! strides and wrap-around) or random (by the job's distribution).

use crate::clone_plan::ClonePlan;
use crate::distribution::BlockPicker;
use crate::random::{mix64, Permutation, SplitMix64};
use crate::sequence::{SeqState, Sequence};

struct FileCursor {
    base: u64,
    len: u64,
    blocks: u64,
    seq: SeqState,
    perm: Permutation,
    perm_pos: u64,
    pass: u64,
    picker: Option<BlockPicker>,
}

/// Offsets: round-robin over files; random (aligned to `blockalign`, by default the smallest
/// block size; each block
/// once per pass unless norandommap) or sequential (wrapping at the region end).
pub(crate) struct OffsetGen {
    files: Vec<FileCursor>,
    chooser: crate::file_service::FileChooser,
    align: u64,
    random_pct: f64,
    norandommap: bool,
    seed: u64,
    sequence: Sequence,
}

impl OffsetGen {
    pub(super) fn new(plan: &ClonePlan) -> OffsetGen {
        let align = plan.align.max(1);
        let files = plan
            .files
            .iter()
            .enumerate()
            .map(|(i, (_, base, len))| {
                let blocks = (len / align).max(1);
                FileCursor {
                    base: *base,
                    len: *len,
                    blocks,
                    seq: SeqState::default(),
                    perm: Permutation::new(blocks, plan.seed ^ mix64(i as u64 + 1)),
                    perm_pos: 0,
                    pass: 0,
                    picker: plan.pickers.get(i).cloned().flatten(),
                }
            })
            .collect();
        let lengths: Vec<u64> = plan.files.iter().map(|(_, _, len)| *len).collect();
        // The runner checked the service's numbers when it made the plan (`clone_plan`).
        let chooser =
            crate::file_service::FileChooser::new(&plan.file_service, &lengths, plan.seed)
                .or_else(|_| {
                    let default = iofit_model::job::FileService::default();
                    crate::file_service::FileChooser::new(&default, &lengths, plan.seed)
                })
                .expect("round robin has no numbers to refuse");
        OffsetGen {
            files,
            chooser,
            align,
            random_pct: plan.random_pct,
            norandommap: plan.norandommap,
            seed: plan.seed,
            sequence: plan.sequence,
        }
    }

    #[inline]
    pub(crate) fn next(&mut self, len: u32, rng: &mut SplitMix64) -> (u32, u64) {
        let len = len as u64;
        let index = self.chooser.next(len);
        let random =
            self.random_pct >= 100.0 || (self.random_pct > 0.0 && rng.percent() < self.random_pct);
        let cursor = &mut self.files[index];
        if let Some(offset) = self.sequence.continue_run(&mut cursor.seq, len, cursor.len) {
            return (index as u32, cursor.base + offset);
        }
        let offset = if random {
            let block = if let Some(picker) = cursor.picker.as_mut() {
                picker.next_block()
            } else if self.norandommap {
                rng.below(cursor.blocks)
            } else {
                if cursor.perm_pos == cursor.blocks {
                    cursor.pass += 1;
                    cursor.perm = Permutation::new(
                        cursor.blocks,
                        self.seed ^ mix64((index as u64 + 1) ^ (cursor.pass << 32)),
                    );
                    cursor.perm_pos = 0;
                }
                let b = cursor.perm.get(cursor.perm_pos);
                cursor.perm_pos += 1;
                b
            };
            let offset = block * self.align;
            let offset = if offset + len > cursor.len {
                (cursor.len - len) / self.align * self.align
            } else {
                offset
            };
            self.sequence.start_run(&mut cursor.seq, offset, len);
            offset
        } else {
            let jitter = self.sequence.jitter_blocks(len);
            let extra = if jitter > 0 {
                rng.below(jitter) * len
            } else {
                0
            };
            self.sequence
                .next_sequential_plus(&mut cursor.seq, len, cursor.len, extra)
        };
        (index as u32, cursor.base + offset)
    }
}

#[cfg(test)]
mod stride_tests {
    use super::*;
    use iofit_model::job::{EngineKind, JobSpec, RwMode, SizeSpec, Target};
    use iofit_model::units::Bytes;

    /// The offsets a clone of a strided job would issue (the null engine needs no file).
    fn offsets(min: u64, max: u64, count: usize) -> Vec<u64> {
        let mut job = JobSpec::new("stride", Target::Files(vec!["/nonexistent/x".into()]))
            .with_rw(RwMode::Read);
        job.engine = EngineKind::Null;
        job.size = Some(SizeSpec::Bytes(Bytes::mib(1)));
        job.seq_add_bytes = min as i64;
        job.seq_add_jitter_bytes = iofit_model::Bytes(max - min);
        let plan = crate::runner::clone_plan(&job, 0, 7).unwrap();
        let mut gen = OffsetGen::new(&plan);
        let mut rng = SplitMix64::new(11);
        (0..count).map(|_| gen.next(4096, &mut rng).1).collect()
    }

    #[test]
    fn a_fixed_stride_skips_the_same_bytes_and_wraps_at_the_end() {
        // stride=(12k,12k) with 4k IOs: 0, 16k, 32k ... up to the 1 MiB end, then 0 again.
        let got = offsets(12288, 12288, 70);
        for (i, offset) in got.iter().take(64).enumerate() {
            assert_eq!(*offset, i as u64 * 16384);
        }
        assert_eq!(got[64], 0);
    }

    #[test]
    fn a_stride_range_spreads_the_gaps_over_whole_transfers() {
        // stride=(8k,24k), 4k IOs: gaps of 8k + 0..3 transfers (vdbench: (max-min)/xfersize
        // choices), each about a quarter of the time.
        let got = offsets(8192, 24576, 4000);
        let mut histogram = [0u32; 4];
        for pair in got.windows(2) {
            if pair[1] < pair[0] {
                continue; // wrapped to the start
            }
            let gap = pair[1] - pair[0] - 4096;
            assert!(gap >= 8192 && (gap - 8192) % 4096 == 0, "gap {gap}");
            histogram[((gap - 8192) / 4096) as usize] += 1;
        }
        let total: u32 = histogram.iter().sum();
        for count in histogram {
            let share = f64::from(count) / f64::from(total);
            assert!((0.20..0.30).contains(&share), "{histogram:?}");
        }
    }
}
