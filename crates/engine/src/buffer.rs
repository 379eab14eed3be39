//! IO buffers: allocated once per slot, page-aligned (O_DIRECT needs alignment to the logical
//! block size; 4 KiB covers every device), filled with pseudo-random bytes so that writes are
//! not zeros that a device could compress or deduplicate.

use crate::random::SplitMix64;
use std::alloc::{alloc_zeroed, dealloc, Layout};

pub const BUFFER_ALIGN: usize = 4096;

/// One contiguous, aligned allocation split into `slots` buffers of `slot_size` bytes.
pub struct BufferPool {
    ptr: *mut u8,
    layout: Layout,
    slot_size: usize,
    slots: usize,
}

// SAFETY: the pool owns its allocation outright (no aliasing handle exists outside it) and is
// used by one worker thread at a time; moving it to another thread moves that sole ownership,
// which is what `Send` requires. It is not `Sync`: slots are handed out through `&self`.
unsafe impl Send for BufferPool {}

impl BufferPool {
    pub fn new(slots: usize, slot_size: usize, seed: u64) -> BufferPool {
        let slot_size = slot_size.max(1).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN;
        let total = slot_size * slots.max(1);
        let layout = Layout::from_size_align(total, BUFFER_ALIGN).expect("buffer layout");
        // SAFETY: layout has non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut pool = BufferPool {
            ptr,
            layout,
            slot_size,
            slots: slots.max(1),
        };
        pool.fill_random(seed);
        pool
    }

    fn fill_random(&mut self, seed: u64) {
        let mut rng = SplitMix64::new(seed ^ 0xB0FF_E125);
        // SAFETY: ptr is valid for layout.size() bytes, which is a multiple of 8 and 8-aligned.
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

    /// Start of slot `slot`'s buffer. The caller guarantees that only one IO uses a slot at a
    /// time (the worker's free list does).
    #[inline]
    pub fn slot_ptr(&self, slot: usize) -> *mut u8 {
        // Checked in release builds too: this safe function must never point outside the pool.
        assert!(
            slot < self.slots,
            "slot {slot} of a pool of {} slots",
            self.slots
        );
        // SAFETY: slot < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.add(slot * self.slot_size) }
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
        // SAFETY: allocated with this layout in `new`.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "slot 4 of a pool of 4 slots")]
    fn a_slot_outside_the_pool_is_refused_in_every_build() {
        let pool = BufferPool::new(4, 4096, 1);
        let _ = pool.slot_ptr(3);
        let _ = pool.slot_ptr(4);
    }

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let pool = BufferPool::new(4, 5000, 1);
        assert_eq!(pool.slot_size(), 8192);
        for slot in 0..4 {
            assert_eq!(pool.slot_ptr(slot) as usize % BUFFER_ALIGN, 0);
        }
        assert_eq!(pool.slot_ptr(1) as usize - pool.slot_ptr(0) as usize, 8192);
        let iovecs = pool.as_iovecs();
        assert_eq!(iovecs.len(), 4);
    }
}
