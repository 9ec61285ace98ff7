//! Type-stable memory for the `verbs_context` C holds. verbs.h's inline
//! functions read it through the context pointer and through every object
//! (`qp->context->ops`), also after ibv_close_device. A closed context's block
//! goes back to a free list, never to the allocator, so such a late read finds
//! our op slots (whose checks refuse the stale object) or a newer context's,
//! never freed memory: all that C's raw pointers can promise.
#![allow(unsafe_code)]

use crate::abi::verbs_context;
use std::cell::UnsafeCell;
use std::ptr::NonNull;
use std::sync::Mutex;

/// One `verbs_context`, owned by one open context at a time.
pub(crate) struct CBlock(NonNull<UnsafeCell<verbs_context>>);

// SAFETY: the block is plain C data that the owning Context guards as before
// (see its Sync impl); moving the owner between threads moves nothing else.
unsafe impl Send for CBlock {}
// SAFETY: as above.
unsafe impl Sync for CBlock {}

/// Blocks of closed contexts, kept for the next open.
static FREE: Mutex<Vec<usize>> = Mutex::new(Vec::new());

impl CBlock {
    /// A block holding `c`: a closed context's, or a new one that is never freed.
    pub(crate) fn new(c: verbs_context) -> CBlock {
        let reuse = FREE.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match reuse.and_then(|a| NonNull::new(a as *mut UnsafeCell<verbs_context>)) {
            Some(p) => {
                // SAFETY: a block from the free list: ours, and no context owns it.
                unsafe { p.as_ref().get().write(c) };
                CBlock(p)
            }
            None => CBlock(NonNull::from(Box::leak(Box::new(UnsafeCell::new(c))))),
        }
    }

    pub(crate) fn get(&self) -> *mut verbs_context {
        // SAFETY: the block lives as long as the process.
        unsafe { self.0.as_ref() }.get()
    }
}

impl Drop for CBlock {
    fn drop(&mut self) {
        FREE.lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(self.0.as_ptr() as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed context's block stays readable and is handed to the next open.
    #[test]
    fn blocks_are_reused_not_freed() {
        // SAFETY: plain C data; all-zero is valid.
        let mut c: verbs_context = unsafe { std::mem::zeroed() };
        c.sz = 4242;
        let a = CBlock::new(c);
        let pa = a.get();
        drop(a);
        // SAFETY: the block is never freed: reading it after the drop is sound.
        assert_eq!(unsafe { (*pa).sz }, 4242);
        c.sz = 7;
        let b = CBlock::new(c);
        // Another test may have freed a block meanwhile; ours is in the list.
        let mut held = vec![];
        let mut found = b.get() == pa;
        while !found {
            let n = CBlock::new(c);
            found = n.get() == pa;
            held.push(n);
            assert!(held.len() < 1000, "the closed block was not reused");
        }
        // SAFETY: as above.
        assert_eq!(unsafe { (*pa).sz }, 7);
    }
}
