//! The null engine: no IO at all, every IO "completes" at once. Measures iofit's own overhead
//! (offset generation, accounting, histograms), as fio's `ioengine=null` measures fio's.

use crate::engine::{Completion, Engine, Op};
use std::io;

pub struct NullEngine {
    queued: Vec<Completion>,
}

impl NullEngine {
    pub fn new(slots: usize) -> NullEngine {
        NullEngine {
            queued: Vec::with_capacity(slots),
        }
    }
}

impl Engine for NullEngine {
    const INLINE: bool = true;

    #[inline]
    fn execute(
        &mut self,
        _slot: u32,
        _op: Op,
        _file: u32,
        _offset: u64,
        len: u32,
    ) -> io::Result<usize> {
        Ok(len as usize)
    }

    fn queue(&mut self, slot: u32, _op: Op, _file: u32, _offset: u64, len: u32) {
        self.queued.push(Completion {
            slot,
            result: len as i64,
        });
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn reap(&mut self, _min_complete: u32, out: &mut Vec<Completion>) -> io::Result<()> {
        out.append(&mut self.queued);
        Ok(())
    }

    fn sync_file(&mut self, _file: u32, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
}
