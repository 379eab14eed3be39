//! IO buffers: allocated once per slot, page-aligned (O_DIRECT needs alignment to the logical
//! block size; 4 KiB covers every device), filled with pseudo-random bytes so that writes are
//! not zeros that a device could compress or deduplicate.

use crate::random::SplitMix64;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::io;

pub const BUFFER_ALIGN: usize = 4096;

/// One contiguous, aligned allocation split into `slots` buffers of `slot_size` bytes.
pub struct BufferPool {
    ptr: *mut u8,
    layout: Layout,
    slot_size: usize,
    slots: usize,
}

// SAFETY: the pool owns its allocation outright (no aliasing handle exists outside it), so
// moving it to another thread moves sole ownership; it is not `Sync`, and while IOs are in
// flight the engine that owns it keeps it on one thread.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// `slots` buffers of `slot_size` bytes (rounded up to [`BUFFER_ALIGN`]). An allocation
    /// the machine cannot give is an error, never an abort (the runner checks the total
    /// against available memory first; this is the last line).
    pub fn new(slots: usize, slot_size: usize, seed: u64) -> io::Result<BufferPool> {
        let slots = slots.max(1);
        let slot_size = slot_size.max(1).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN;
        let too_big = || {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("cannot allocate {slots} IO buffers of {slot_size} bytes"),
            )
        };
        let total = slot_size.checked_mul(slots).ok_or_else(too_big)?;
        let layout = Layout::from_size_align(total, BUFFER_ALIGN).map_err(|_| too_big())?;
        // SAFETY: layout has non-zero size (slots >= 1, slot_size >= BUFFER_ALIGN).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(too_big());
        }
        let mut pool = BufferPool {
            ptr,
            layout,
            slot_size,
            slots,
        };
        pool.fill_random(seed);
        Ok(pool)
    }

    fn fill_random(&mut self, seed: u64) {
        let mut rng = SplitMix64::new(seed ^ 0xB0FF_E125);
        // SAFETY: ptr is valid for layout.size() bytes, a multiple of 8, and 4096-aligned; the
        // pool is borrowed mutably, so no other reference into it exists.
        let words =
            unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut u64, self.layout.size() / 8) };
        for word in words {
            *word = rng.next_u64();
        }
    }

    pub fn slot_size(&self) -> usize {
        self.slot_size
    }

    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Start of slot `slot`'s buffer, `slot_size` bytes long. Panics when `slot` is not a slot
    /// of the pool (checked in release builds too: the pointer must never leave the
    /// allocation). Writing through the pointer is the caller's unsafe act, and the caller
    /// makes sure only one IO uses a slot at a time (the worker's free list does).
    #[inline]
    pub fn slot_ptr(&self, slot: usize) -> *mut u8 {
        assert!(
            slot < self.slots,
            "slot {slot} outside a pool of {} slots",
            self.slots
        );
        // SAFETY: slot < slots, so slot * slot_size < layout.size(): the offset stays inside
        // the allocation (and cannot overflow, the product being below the allocation size).
        unsafe { self.ptr.add(slot * self.slot_size) }
    }

    /// Slot `slot`'s first `len` bytes as a slice, for filling a write or checking a read.
    ///
    /// # Safety
    /// No IO may be in flight on `slot` while the slice lives (the kernel would write into
    /// it under a Rust reference): the worker asks only for a slot it has not queued yet or
    /// whose completion it has reaped.
    #[inline]
    pub unsafe fn slot_slice(&mut self, slot: usize, len: usize) -> &mut [u8] {
        let len = len.min(self.slot_size);
        let ptr = self.slot_ptr(slot);
        // SAFETY: ptr..ptr+len lies inside the slot (len <= slot_size); `&mut self` keeps any
        // other Rust reference away, and the caller keeps the kernel away (see above).
        unsafe { std::slice::from_raw_parts_mut(ptr, len) }
    }

    /// The whole pool as one slice (for registering with io_uring).
    pub fn as_iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots)
            .map(|slot| libc::iovec {
                iov_base: self.slot_ptr(slot) as *mut libc::c_void,
                iov_len: self.slot_size,
            })
            .collect()
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new` and freed only here, once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "slot 4 outside a pool of 4 slots")]
    fn a_slot_outside_the_pool_panics_in_every_build() {
        let pool = BufferPool::new(4, 4096, 1).unwrap();
        let _ = pool.slot_ptr(4);
    }

    #[test]
    fn an_impossible_pool_is_an_error_not_an_abort() {
        let e = BufferPool::new(usize::MAX / 2, 1 << 20, 1)
            .err()
            .expect("refused");
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
    }

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let pool = BufferPool::new(4, 5000, 1).unwrap();
        assert_eq!(pool.slot_size(), 8192);
        for slot in 0..4 {
            assert_eq!(pool.slot_ptr(slot) as usize % BUFFER_ALIGN, 0);
        }
        assert_eq!(pool.slot_ptr(1) as usize - pool.slot_ptr(0) as usize, 8192);
        let iovecs = pool.as_iovecs();
        assert_eq!(iovecs.len(), 4);
    }
}
