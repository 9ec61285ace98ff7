//! Buffers the library allocates for registration (rdma-core 64's
//! ibv_alloc_buf / ibv_free_buf / ibv_reg_buf_mr). rdma-core's default, which
//! its rxe provider keeps, is page-aligned heap memory; the `struct ibv_buf *`
//! handle is opaque to C and checked here before every use.

use crate::abi::*;
use crate::context::ObjRef;
use crate::entry::{Errno, Result, arg_mut, set_errno};
use crate::object;
use std::ffi::{c_int, c_void};

/// What a handle stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Buf {
    /// The PD it was allocated for (address of its C struct).
    pub pd: usize,
    pub addr: usize,
    pub size: usize,
}

/// Live handles: each `Buf` in a slot of the object layer's handle slab,
/// whose address is the handle.
static BUFS: object::Handles<Buf> = object::Handles::new();

/// The buffer behind a handle; EINVAL for anything ibv_alloc_buf did not return.
pub(crate) fn lookup(handle: *const ibv_buf) -> Result<Buf> {
    BUFS.get(handle.cast()).ok_or(Errno::EINVAL)
}

fn insert(buf: Buf) -> *mut ibv_buf {
    BUFS.insert(buf).as_ptr().cast()
}

fn remove(handle: *mut ibv_buf) -> Result<Buf> {
    BUFS.remove(handle.cast()).ok_or(Errno::EINVAL)
}

/// Replaces IBV_REG_MR_MASK_BUF in a registration request by the address range
/// it stands for, with rdma-core 64's checks: the buffer belongs to `pd`, `addr`
/// is given and the range lies inside the buffer, no fd fields.
pub(crate) fn resolve(pd: *mut ibv_pd, attr: &mut ibv_mr_init_attr) -> Result<()> {
    let buf = lookup(attr.buf)?;
    let m = attr.comp_mask;
    if buf.pd != pd as usize || m & u64::from(IBV_REG_MR_MASK_ADDR) == 0 {
        return Err(Errno::EINVAL);
    }
    let off = (attr.addr as usize)
        .checked_sub(buf.addr)
        .ok_or(Errno::EINVAL)?;
    if off > buf.size || attr.length > buf.size - off {
        return Err(Errno::EINVAL);
    }
    if m & u64::from(IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET) != 0 {
        return Err(Errno::EINVAL);
    }
    attr.comp_mask &= !u64::from(IBV_REG_MR_MASK_BUF);
    Ok(())
}

/// Page-aligned memory of `size` bytes; errno is posix_memalign's.
fn alloc_pages(size: usize) -> Result<usize> {
    let page = nix::unistd::sysconf(nix::unistd::SysconfVar::PAGE_SIZE);
    let page = page.ok().flatten().unwrap_or(4096).max(4096) as usize;
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: p is a valid out-pointer; page is a power of two.
    match unsafe { libc::posix_memalign(&mut p, page, size) } {
        0 => Ok(p as usize),
        e => Err(Errno(e)),
    }
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_alloc_buf(
    pd: *mut ibv_pd,
    size: usize,
    buf: *mut *mut ibv_buf,
) -> *mut c_void {
    let pd: ObjRef = object::get(pd)?;
    // SAFETY: the caller's out-parameter.
    let out = unsafe { arg_mut(buf)? };
    let addr = alloc_pages(size)?;
    *out = insert(Buf {
        pd: pd.c::<ibv_pd>() as usize,
        addr,
        size,
    });
    Ok(addr as *mut c_void)
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_free_buf(buf: *mut ibv_buf) {
    match remove(buf) {
        // SAFETY: addr came from posix_memalign and its handle is gone.
        Ok(b) => unsafe { libc::free(b.addr as *mut c_void) },
        Err(e) => set_errno(e),
    }
}

/// rdma-core 65: a new fd of the dma-buf behind a buffer, ENODATA when there
/// is none. Ours are heap memory (rdma-core's default, which rxe keeps), so
/// a live handle is ENODATA; anything else EINVAL.
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_export_buf_dmabuf_fd(buf: *mut ibv_buf) -> c_int {
    lookup(buf)?;
    Err::<c_int, _>(Errno(libc::ENODATA))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(buf: *mut ibv_buf, addr: usize, length: usize, mask: u32) -> ibv_mr_init_attr {
        ibv_mr_init_attr {
            length,
            access: 0,
            comp_mask: u64::from(mask),
            iova: 0,
            addr: addr as *mut c_void,
            fd: -1,
            fd_offset: 0,
            dmah: std::ptr::null_mut(),
            buf,
        }
    }

    #[test]
    fn resolve_checks_the_range_and_owner() {
        let pd = 0x1000 as *mut ibv_pd;
        let h = insert(Buf {
            pd: pd as usize,
            addr: 0x10000,
            size: 0x2000,
        });
        let both = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR;
        let mut a = attr(h, 0x10000, 0x2000, both);
        assert_eq!(resolve(pd, &mut a), Ok(()));
        assert_eq!(a.comp_mask, u64::from(IBV_REG_MR_MASK_ADDR));
        let mut a = attr(h, 0x11000, 0x1000, both);
        assert_eq!(resolve(pd, &mut a), Ok(()));
        for (p, addr, len, mask) in [
            (0x2000, 0x10000, 0x10, both),                      // another PD
            (0x1000, 0x10000, 0x10, IBV_REG_MR_MASK_BUF),       // no address
            (0x1000, 0xf000, 0x10, both),                       // before the buffer
            (0x1000, 0x11000, 0x1001, both),                    // past its end
            (0x1000, 0x13000, 0, both),                         // starts past its end
            (0x1000, 0x10000, 0x10, both | IBV_REG_MR_MASK_FD), // fd fields
        ] {
            let mut a = attr(h, addr, len, mask);
            assert_eq!(
                resolve(p as *mut ibv_pd, &mut a),
                Err(Errno::EINVAL),
                "{addr:#x}+{len:#x}"
            );
        }
        let mut a = attr(0x42 as *mut ibv_buf, 0x10000, 1, both);
        assert_eq!(resolve(pd, &mut a), Err(Errno::EINVAL));
        assert!(remove(h).is_ok());
        assert_eq!(lookup(h), Err(Errno::EINVAL));
        assert_eq!(remove(h), Err(Errno::EINVAL));
    }

    #[test]
    fn pages_are_aligned() {
        let p = alloc_pages(100).unwrap();
        assert_eq!(p % 4096, 0);
        // SAFETY: from posix_memalign.
        unsafe { libc::free(p as *mut c_void) };
        assert!(alloc_pages(usize::MAX).is_err());
    }
}
