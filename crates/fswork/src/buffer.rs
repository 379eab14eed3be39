//! A 4 KiB-aligned IO buffer (O_DIRECT needs aligned memory), filled with non-repeating bytes
//! so file systems that compress or deduplicate see ordinary data.

use std::alloc::{alloc_zeroed, dealloc, Layout};

const ALIGN: usize = 4096;

pub struct AlignedBuffer {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer is plain memory owned by one AlignedBuffer; moving it to another thread
// moves the ownership with it.
unsafe impl Send for AlignedBuffer {}

impl AlignedBuffer {
    pub fn new(len: usize, seed: u64) -> AlignedBuffer {
        let len = len.max(1).div_ceil(ALIGN) * ALIGN;
        let layout = Layout::from_size_align(len, ALIGN).expect("a valid layout");
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut buffer = AlignedBuffer { ptr, layout };
        let mut state = seed | 1;
        for chunk in buffer.as_mut_slice().chunks_mut(8) {
            state = crate::tree::splitmix(state);
            let bytes = state.to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
        buffer
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` points at `layout.size()` bytes we own, zero-initialised at creation.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this exact layout, freed once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}
