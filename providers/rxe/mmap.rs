//! An owned shared mapping of the uverbs fd (or, in tests, of plain memory).
//!
//! The only `unsafe` of the rxe data path lives here. The mapped memory is
//! shared with the kernel, so this module hands out atomics for the words both
//! sides touch, and byte views only to its own crate: `queue` gives them out
//! for slots that the ring protocol says the kernel is not touching.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, BorrowedFd};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;

use crate::entry::{Errno, Result};
use crate::uverbs::rxe::MmapInfo;

/// `mmap(PROT_READ | PROT_WRITE, MAP_SHARED)` of `len` bytes, unmapped on drop.
#[derive(Debug)]
pub struct Mmap {
    ptr: NonNull<u8>,
    len: usize,
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
    pub fn map(fd: BorrowedFd<'_>, info: &MmapInfo) -> Result<Mmap> {
        let off = libc::off_t::try_from(info.offset).map_err(|_| Errno::EINVAL)?;
        Self::new(info.size as usize, libc::MAP_SHARED, fd.as_raw_fd(), off)
    }

    /// A zeroed shared anonymous mapping: a stand-in for the kernel's queue.
    pub fn anonymous(len: usize) -> Result<Mmap> {
        Self::new(len, libc::MAP_SHARED | libc::MAP_ANONYMOUS, -1, 0)
    }

    fn new(len: usize, flags: libc::c_int, fd: libc::c_int, off: libc::off_t) -> Result<Mmap> {
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        // SAFETY: a new mapping at an address the kernel chooses; it cannot
        // overlap or alias any memory Rust already owns.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, fd, off) };
        if p == libc::MAP_FAILED {
            return Err(Errno::last());
        }
        let ptr = NonNull::new(p.cast()).ok_or(Errno::EFAULT)?;
        Ok(Mmap { ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn in_bounds(&self, off: usize, len: usize) -> bool {
        off.checked_add(len).is_some_and(|end| end <= self.len)
    }

    /// The 32-bit word at `off` as an atomic; `None` if out of bounds or
    /// misaligned.
    pub fn atomic_u32(&self, off: usize) -> Option<&AtomicU32> {
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

impl Drop for Mmap {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the range we mapped; no view outlives `self`.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// Two mappings of the same memory (a memfd mapped twice): one for the code
/// under test, one for a test standing in for the kernel.
#[cfg(test)]
pub(crate) fn shared_pair(len: usize) -> Result<(Mmap, Mmap)> {
    use std::os::fd::{AsFd, FromRawFd, OwnedFd};
    // SAFETY: the name is a valid C string; the result is checked below.
    let fd = unsafe { libc::memfd_create(c"rxe-queue-test".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(Errno::last());
    }
    // SAFETY: `fd` is a new descriptor nobody else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let size = libc::off_t::try_from(len).map_err(|_| Errno::EINVAL)?;
    // SAFETY: plain syscall on a descriptor we own.
    if unsafe { libc::ftruncate(fd.as_raw_fd(), size) } != 0 {
        return Err(Errno::last());
    }
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
    fn pair_shares_memory() {
        let (a, mut b) = shared_pair(8192).unwrap();
        b.bytes_mut(4096, 4).unwrap().copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(a.bytes(4096, 4).unwrap(), &[1, 2, 3, 4]);
        a.atomic_u32(128).unwrap().store(99, Ordering::Release);
        assert_eq!(b.atomic_u32(128).unwrap().load(Ordering::Acquire), 99);
    }

    #[test]
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
