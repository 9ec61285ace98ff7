//! An owned shared mapping of the uverbs fd (or, in tests, of plain memory).
//!
//! Tests, fuzz targets and the UB checks (Miri, ASan, memcheck) use a
//! heap-backed stand-in ([`Mmap::heap`]): the checkers see heap blocks and
//! their bounds, where an mmap is opaque to them.
//!
//! The only `unsafe` of the rxe data path lives here. The mapped memory is
//! shared with the kernel, so this module hands out atomics for the words both
//! sides touch, and byte views only to its own crate: `queue` gives them out
//! for slots that the ring protocol says the kernel is not touching.
#![allow(unsafe_code)]

use std::num::NonZeroUsize;
use std::os::fd::BorrowedFd;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;

use nix::sys::mman::{self, MapFlags, ProtFlags};

use crate::entry::{Errno, Result};
use crate::uverbs::rxe::MmapInfo;

fn prot() -> ProtFlags {
    ProtFlags::PROT_READ | ProtFlags::PROT_WRITE
}

/// `mmap(PROT_READ | PROT_WRITE, MAP_SHARED)` of `len` bytes, unmapped on drop.
#[derive(Debug)]
pub(crate) struct Mmap {
    ptr: NonNull<u8>,
    len: usize,
    /// `Some` for a heap-backed stand-in: the block, shared by its aliases.
    heap: Option<std::sync::Arc<HeapBlock>>,
}

/// A zeroed, page-aligned heap block, freed when its last alias goes.
#[derive(Debug)]
struct HeapBlock {
    ptr: NonNull<u8>,
    layout: std::alloc::Layout,
}

// SAFETY: plain memory owned by the block; see `Mmap`'s impls.
unsafe impl Send for HeapBlock {}
// SAFETY: as above.
unsafe impl Sync for HeapBlock {}

impl Drop for HeapBlock {
    fn drop(&mut self) {
        // SAFETY: allocated in `Mmap::heap` with this layout; every alias
        // holding a pointer into it holds this Arc too.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

// SAFETY: the mapping is plain memory owned by this value, not tied to a
// thread; shared access goes through atomics or `&self` views whose use the
// queue protocol serialises (see the module doc).
unsafe impl Send for Mmap {}
// SAFETY: as above; `&Mmap` allows no writes except through atomics.
unsafe impl Sync for Mmap {}

impl Mmap {
    /// Maps the queue the kernel described in `info` (from a create/resize
    /// response) from the uverbs fd `fd`.
    pub(crate) fn map(fd: BorrowedFd<'_>, info: &MmapInfo) -> Result<Mmap> {
        let off = libc::off_t::try_from(info.offset).map_err(|_| Errno::EINVAL)?;
        let len = NonZeroUsize::new(info.size as usize).ok_or(Errno::EINVAL)?;
        // SAFETY: a new mapping at an address the kernel chooses; it cannot
        // overlap or alias any memory Rust already owns.
        let p = unsafe { mman::mmap(None, len, prot(), MapFlags::MAP_SHARED, fd, off) }?;
        Ok(Self::mapped(p, len))
    }

    /// A zeroed shared anonymous mapping: a stand-in for the kernel's queue.
    #[cfg(test)]
    pub(crate) fn anonymous(len: usize) -> Result<Mmap> {
        let len = NonZeroUsize::new(len).ok_or(Errno::EINVAL)?;
        // SAFETY: as in `map`.
        let p = unsafe { mman::mmap_anonymous(None, len, prot(), MapFlags::MAP_SHARED) }?;
        Ok(Self::mapped(p, len))
    }

    fn mapped(p: NonNull<std::ffi::c_void>, len: NonZeroUsize) -> Mmap {
        Mmap {
            ptr: p.cast(),
            len: len.get(),
            heap: None,
        }
    }

    /// A zeroed, page-aligned heap block standing in for a kernel queue
    /// (tests, fuzzing, UB checks); see the module doc.
    pub(crate) fn heap(len: usize) -> Result<Mmap> {
        let layout = std::alloc::Layout::from_size_align(len, 4096).map_err(|_| Errno::EINVAL)?;
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the layout has a non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(p).ok_or(Errno::ENOMEM)?;
        Ok(Mmap {
            ptr,
            len,
            heap: Some(std::sync::Arc::new(HeapBlock { ptr, layout })),
        })
    }

    /// A second view of a heap-backed block (the stand-in kernel's), `None`
    /// for a real mapping.
    pub(crate) fn alias(&self) -> Option<Mmap> {
        let heap = self.heap.clone()?;
        Some(Mmap {
            ptr: heap.ptr,
            len: self.len,
            heap: Some(heap),
        })
    }

    /// Whether this is a heap-backed stand-in.
    pub(crate) fn is_heap(&self) -> bool {
        self.heap.is_some()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn in_bounds(&self, off: usize, len: usize) -> bool {
        off.checked_add(len).is_some_and(|end| end <= self.len)
    }

    /// The 32-bit word at `off` as an atomic; `None` if out of bounds or
    /// misaligned.
    pub(crate) fn atomic_u32(&self, off: usize) -> Option<&AtomicU32> {
        if !self.in_bounds(off, 4) || !off.is_multiple_of(4) {
            return None;
        }
        // SAFETY: in bounds and 4-aligned (the base is page-aligned); the
        // mapping lives as long as `&self`; AtomicU32 has u32's layout and
        // every bit pattern is valid; all our accesses to it are atomic.
        Some(unsafe { AtomicU32::from_ptr(self.ptr.as_ptr().add(off).cast()) })
    }

    /// Bytes `off..off + len`. The caller must know the kernel is not writing
    /// them for the lifetime of the view (ring protocol), hence crate-only.
    #[cfg(test)]
    pub(crate) fn bytes(&self, off: usize, len: usize) -> Option<&[u8]> {
        if !self.in_bounds(off, len) {
            return None;
        }
        // SAFETY: in bounds of a live mapping; u8 has no invalid values;
        // concurrency per the doc comment above.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(off), len) })
    }

    /// A raw pointer to bytes `off..off + len`, made without a reference, so
    /// that it stays valid beside other views of the same memory (the
    /// kernel's, or a test's stand-in for it): a ring keeps it for its slots.
    pub(crate) fn raw(&self, off: usize, len: usize) -> Option<NonNull<u8>> {
        if !self.in_bounds(off, len) {
            return None;
        }
        // SAFETY: in bounds of the live mapping: `add` stays inside it.
        Some(unsafe { self.ptr.add(off) })
    }

    /// Mutable bytes `off..off + len`; same protocol requirement as `bytes`.
    pub(crate) fn bytes_mut(&mut self, off: usize, len: usize) -> Option<&mut [u8]> {
        if !self.in_bounds(off, len) {
            return None;
        }
        // SAFETY: as in `bytes`; `&mut self` excludes every other view made
        // through this value.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(off), len) })
    }
}

/// Heap-backed stand-ins handed out by [`Mmap::into_raw`], until
/// [`release_raw`]: rings keep only their start (heap per QP and CQ), the
/// stand-in's block stays here meanwhile.
static HEAP_RAW: std::sync::Mutex<Vec<(usize, std::sync::Arc<HeapBlock>)>> =
    std::sync::Mutex::new(Vec::new());

#[cold]
fn keep_heap(ptr: NonNull<u8>, h: std::sync::Arc<HeapBlock>) {
    let mut g = HEAP_RAW.lock().unwrap_or_else(|p| p.into_inner());
    g.push((ptr.as_ptr() as usize, h));
}

#[cold]
fn unkeep_heap(ptr: NonNull<u8>) {
    let mut g = HEAP_RAW.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(i) = g.iter().position(|(p, _)| *p == ptr.as_ptr() as usize) {
        let block = g.swap_remove(i);
        drop(g);
        drop(block);
    }
}

impl Mmap {
    /// Gives up the mapping's ownership: its start, length and whether it
    /// is a heap-backed stand-in, for [`release_raw`] later.
    #[inline]
    pub(crate) fn into_raw(mut self) -> (NonNull<u8>, usize, bool) {
        let (ptr, len) = (self.ptr, self.len);
        let heap = self.heap.take();
        std::mem::forget(self);
        let is_heap = heap.is_some();
        if let Some(h) = heap {
            keep_heap(ptr, h);
        }
        (ptr, len, is_heap)
    }
}

/// Unmaps what [`Mmap::into_raw`] gave: `len` bytes at `ptr` (every page
/// they touch), or drops a stand-in's hold on its block.
///
/// # Safety
/// `ptr`, `len` and `heap` came from one `into_raw`, released once; no view
/// into the mapping outlives this call.
#[inline]
pub(crate) unsafe fn release_raw(ptr: NonNull<u8>, len: usize, heap: bool) {
    if heap {
        return unkeep_heap(ptr);
    }
    // SAFETY: per the contract, our mapping, not used again.
    unsafe { libc::munmap(ptr.as_ptr().cast(), len) };
}

impl Drop for Mmap {
    fn drop(&mut self) {
        if self.heap.is_some() {
            return; // the block goes with its last alias
        }
        // Raw libc: nix's munmap is as unsafe, and an out-of-line call into nix
        // (5 instructions more per destroyed queue; docs/crates.md).
        // SAFETY: unmaps exactly the range we mapped; no view outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// Two views of the same heap block: one for the code under test, one for a
/// test standing in for the kernel (checkers see its bounds; see module doc).
#[cfg(test)]
pub(crate) fn shared_pair(len: usize) -> Result<(Mmap, Mmap)> {
    let a = Mmap::heap(len)?;
    let b = a.alias().ok_or(Errno::EINVAL)?;
    Ok((a, b))
}

/// Two mappings of the same memory (a memfd mapped twice), as the kernel's
/// queue is mapped; `shared_pair` for tests that need no real mapping.
#[cfg(test)]
pub(crate) fn memfd_pair(len: usize) -> Result<(Mmap, Mmap)> {
    use nix::sys::memfd::{MFdFlags, memfd_create};
    use std::os::fd::AsFd;
    let fd = memfd_create(c"rxe-queue-test", MFdFlags::MFD_CLOEXEC)?;
    let size = libc::off_t::try_from(len).map_err(|_| Errno::EINVAL)?;
    nix::unistd::ftruncate(&fd, size)?;
    let info = MmapInfo {
        offset: 0,
        size: u32::try_from(len).map_err(|_| Errno::EINVAL)?,
        pad: 0,
    };
    Ok((Mmap::map(fd.as_fd(), &info)?, Mmap::map(fd.as_fd(), &info)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use std::sync::atomic::Ordering;

    #[test]
    fn heap_pair_shares_memory() {
        let (a, mut b) = shared_pair(8192).unwrap();
        b.bytes_mut(4096, 4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(a.bytes(4096, 4).unwrap(), &[1, 2, 3, 4]);
        drop(a);
        assert_eq!(b.bytes(4096, 4).unwrap(), &[1, 2, 3, 4]);
        assert!(Mmap::heap(0).is_err());
        assert_eq!(b.alias().map(|m| m.len()), Some(8192));
    }

    #[test]
    #[cfg_attr(miri, ignore)] // mmap: a foreign call
    fn bounds_and_alignment() {
        let mut m = Mmap::anonymous(4096).unwrap();
        assert_eq!(m.len(), 4096);
        assert!(m.atomic_u32(4092).is_some());
        assert!(m.atomic_u32(4093).is_none());
        assert!(m.atomic_u32(4096).is_none());
        assert!(m.atomic_u32(usize::MAX - 1).is_none());
        assert!(m.bytes(4000, 96).is_some());
        assert!(m.bytes(4000, 97).is_none());
        assert!(m.bytes(usize::MAX, 2).is_none());
        assert!(m.bytes(0, 4096).unwrap().iter().all(|&b| b == 0));
        m.bytes_mut(8, 4)
            .unwrap()
            .copy_from_slice(&7u32.to_ne_bytes());
        assert_eq!(m.atomic_u32(8).unwrap().load(Ordering::Relaxed), 7);
        assert_eq!(Mmap::anonymous(0).unwrap_err(), Errno::EINVAL);
    }

    #[test]
    #[cfg_attr(miri, ignore)] // memfd_create, mmap: foreign calls
    fn pair_shares_memory() {
        let (a, mut b) = memfd_pair(8192).unwrap();
        b.bytes_mut(4096, 4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(a.bytes(4096, 4).unwrap(), &[1, 2, 3, 4]);
        a.atomic_u32(128).unwrap().store(99, Ordering::Release);
        assert_eq!(b.atomic_u32(128).unwrap().load(Ordering::Acquire), 99);
    }

    #[test]
    #[cfg_attr(miri, ignore)] // open: a foreign call
    fn map_rejects_offset_overflow() {
        let f = std::fs::File::open("/dev/zero").unwrap();
        let info = MmapInfo {
            offset: u64::MAX,
            size: 4096,
            pad: 0,
        };
        assert_eq!(Mmap::map(f.as_fd(), &info).unwrap_err(), Errno::EINVAL);
    }
}
