//! The null engine: no IO at all, every IO "completes" at once. Measures iofit's own overhead
//! (offset generation, accounting, histograms), as fio's `ioengine=null` measures fio's.
//!
//! [`NullEngine`] completes each IO inside `execute` (iodepth 1, the synchronous loop);
//! [`NullQueue`] keeps up to iodepth IOs queued and completes them all at the next reap, as
//! fio's null engine does at iodepth > 1, so the queued loop and its accounting can be tested
//! without a device (with an injected clock, exactly).

use crate::engine::{Completion, Engine, Op};
use std::io;

pub struct NullEngine;

impl NullEngine {
    pub fn new() -> NullEngine {
        NullEngine
    }
}

impl Default for NullEngine {
    fn default() -> Self {
        Self::new()
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

    fn queue(&mut self, _slot: u32, _op: Op, _file: u32, _offset: u64, _len: u32) {
        unreachable!("an inline engine runs every IO through execute")
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn reap(&mut self, _min: u32, _timeout_ns: u64, _out: &mut Vec<Completion>) -> io::Result<()> {
        Ok(())
    }

    fn sync_file(&mut self, _file: u32, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
}

/// Queued null IO: `submit` makes the queued IOs complete, `reap` hands them back.
pub struct NullQueue {
    queued: Vec<Completion>,
    done: Vec<Completion>,
}

impl NullQueue {
    pub fn new(depth: usize) -> NullQueue {
        NullQueue {
            queued: Vec::with_capacity(depth),
            done: Vec::with_capacity(depth),
        }
    }
}

impl Engine for NullQueue {
    const INLINE: bool = false;

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

    #[inline]
    fn queue(&mut self, slot: u32, _op: Op, _file: u32, _offset: u64, len: u32) {
        self.queued.push(Completion {
            slot,
            result: len as i64,
        });
    }

    #[inline]
    fn submit(&mut self) -> io::Result<()> {
        self.done.append(&mut self.queued);
        Ok(())
    }

    #[inline]
    fn reap(&mut self, _min: u32, _timeout_ns: u64, out: &mut Vec<Completion>) -> io::Result<()> {
        out.append(&mut self.done);
        Ok(())
    }

    fn sync_file(&mut self, _file: u32, _data_only: bool) -> io::Result<()> {
        Ok(())
    }
}
