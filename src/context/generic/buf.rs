//! Buffers for registration (rdma-core 64's ibv_alloc_buf): what a buffer
//! handle stands for, and rdma-core's default allocator (page-aligned heap
//! memory without a dma-buf), which a provider without its own keeps.

use crate::abi::ibv_pd;
use crate::context::Obj;
use crate::entry::{Errno, Result};
use crate::object::CObject;
use std::ffi::{c_int, c_void};

/// What rdma-core's `struct ibv_buf` holds, and whose it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Buf {
    /// The context whose provider made it (address of its C struct).
    pub ctx: usize,
    /// The PD it is for, as its maker recorded it (address of the C struct).
    pub pd: usize,
    pub addr: usize,
    pub size: usize,
    /// The dma-buf behind it, or -1.
    pub dmabuf_fd: c_int,
    /// The provider's own handle (a hosted plugin's token for its `struct
    /// ibv_buf`); 0 for a buffer of [`alloc`].
    pub prov: usize,
}

/// rdma-core's default alloc_buf: the caller's address and the buffer.
pub(crate) fn alloc(pd: &Obj, size: usize) -> Result<(usize, Buf)> {
    let addr = alloc_pages(size)?;
    let buf = Buf {
        ctx: pd.ctx.c_ptr() as usize,
        pd: pd.c::<ibv_pd>() as usize,
        addr,
        size,
        dmabuf_fd: -1,
        prov: 0,
    };
    Ok((addr, buf))
}

/// rdma-core's default free_buf, for a buffer of [`alloc`].
pub(crate) fn free(buf: &Buf) {
    // SAFETY: from posix_memalign; the caller ended its handle first.
    #[allow(unsafe_code)]
    unsafe {
        libc::free(buf.addr as *mut c_void)
    };
}

/// Page-aligned memory of `size` bytes; errno is posix_memalign's.
fn alloc_pages(size: usize) -> Result<usize> {
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE);
    let page = page.ok().flatten().unwrap_or(4096).max(4096) as usize;
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: p is a valid out-pointer; page is a power of two.
    #[allow(unsafe_code)]
    let r = unsafe { libc::posix_memalign(&mut p, page, size) };
    match r {
        0 => Ok(p as usize),
        e => Err(Errno(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_aligned() {
        let p = alloc_pages(100).unwrap();
        assert_eq!(p % 4096, 0);
        free(&Buf {
            ctx: 0,
            pd: 0,
            addr: p,
            size: 100,
            dmabuf_fd: -1,
            prov: 0,
        });
        assert!(alloc_pages(usize::MAX).is_err());
    }
}
