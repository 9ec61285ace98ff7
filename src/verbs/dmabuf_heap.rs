//! rdma-core 65's dma-buf heap helpers (IBVERBS_PRIVATE_65, for providers
//! that place queues in confidential-computing shared memory): a heap is
//! an open `/dev/dma_heap/system_cc_shared`; an allocation is a dma-buf of
//! it, mapped. The heap pointer is one of our handles and each allocation
//! is recorded, so a foreign heap is EINVAL and a foreign buffer is left
//! alone (rdma-core would close or unmap whatever it is given).

use crate::entry::{Errno, Result, set_errno};
use crate::object;
use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

/// Live heaps: the heap device's fd, behind a handle of the object layer.
static HEAPS: object::Handles<c_int> = object::Handles::new();

/// Live allocations: address → (size, dma-buf fd).
static ALLOCS: Mutex<Option<HashMap<usize, (usize, c_int)>>> = Mutex::new(None);

/// `struct dma_heap_allocation_data` of linux/dma-heap.h.
#[repr(C)]
#[derive(Default)]
struct AllocationData {
    len: u64,
    fd: u32,
    fd_flags: u32,
    heap_flags: u64,
}

/// DMA_HEAP_IOCTL_ALLOC: _IOWR('H', 0, struct dma_heap_allocation_data).
const DMA_HEAP_IOCTL_ALLOC: u64 =
    (3 << 30) | ((size_of::<AllocationData>() as u64) << 16) | (0x48 << 8);

const HEAP_PATH: &std::ffi::CStr = c"/dev/dma_heap/system_cc_shared";

fn open_heap() -> Result<c_int> {
    // SAFETY: a constant C string.
    let fd = unsafe { libc::open(HEAP_PATH.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(Errno::last());
    }
    Ok(fd)
}

fn alloc(heap_fd: c_int, size: usize) -> Result<(*mut c_void, c_int)> {
    let mut d = AllocationData {
        len: size as u64,
        fd_flags: (libc::O_RDWR | libc::O_CLOEXEC) as u32,
        ..Default::default()
    };
    // SAFETY: the heap's fd and our struct of the ioctl's size.
    if unsafe { libc::ioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC as _, &raw mut d) } < 0 {
        return Err(Errno::last());
    }
    let fd = d.fd as c_int;
    // SAFETY: a new shared mapping of the new dma-buf.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        let e = Errno::last();
        // SAFETY: the dma-buf fd is ours.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    ALLOCS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_default()
        .insert(p as usize, (size, fd));
    Ok((p, fd))
}

/// NULL with errno from open(2) if the kernel has no such heap.
#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_dmabuf_heap_cc_shared_init() -> *mut c_void {
    let fd = open_heap()?;
    Ok(HEAPS.insert(fd).as_ptr())
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_dmabuf_heap_destroy(heap: *mut c_void) {
    match HEAPS.remove(heap) {
        // SAFETY: the heap's fd, ours alone.
        Some(fd) => unsafe {
            libc::close(fd);
        },
        None => set_errno(Errno::EINVAL),
    }
}

/// The mapped buffer (its dma-buf fd in `*dmabuf_fd`), or NULL with errno.
#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_dmabuf_heap_alloc(
    heap: *mut c_void,
    size: usize,
    dmabuf_fd: *mut c_int,
) -> *mut c_void {
    let heap_fd = HEAPS.get(heap).ok_or(Errno::EINVAL)?;
    if dmabuf_fd.is_null() {
        return Err(Errno::EINVAL);
    }
    let (p, fd) = alloc(heap_fd, size)?;
    // SAFETY: the caller's out-parameter (checked non-NULL).
    unsafe { *dmabuf_fd = fd };
    Ok(p)
}

/// Unmaps and closes an allocation of ours; anything else is left alone
/// (errno EINVAL).
#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_dmabuf_heap_free(buf: *mut c_void, size: usize, dmabuf_fd: c_int) {
    let mut g = ALLOCS.lock().unwrap_or_else(|e| e.into_inner());
    let m = g.get_or_insert_default();
    if m.get(&(buf as usize)) != Some(&(size, dmabuf_fd)) {
        set_errno(Errno::EINVAL);
        return;
    }
    m.remove(&(buf as usize));
    // SAFETY: our mapping and fd, recorded by alloc.
    unsafe {
        libc::munmap(buf, size);
        libc::close(dmabuf_fd);
    }
}
