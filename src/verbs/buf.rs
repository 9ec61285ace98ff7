//! Buffers for registration (rdma-core 64's ibv_alloc_buf / ibv_free_buf /
//! ibv_export_buf_dmabuf_fd; ibv_reg_buf_mr is in `super::mr_ex`). The
//! context's provider makes and frees them (rdma-core's default, which rxe
//! keeps: page-aligned heap memory); the `struct ibv_buf *` C holds is a
//! handle of ours, checked here before every use, whatever made the buffer.

use crate::abi::*;
use crate::context::generic::buf::{self as generic, Buf};
use crate::context::{Context, ObjRef};
use crate::entry::{Errno, Result, arg_mut, set_errno};
use crate::flags::RegMrMask as M;
use crate::object;
use std::ffi::{c_int, c_void};

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

/// Replaces IBV_REG_MR_MASK_BUF in a registration request by what the buffer
/// stands for, with rdma-core 65's checks (the buffer belongs to `pd`, `addr`
/// is given and the range lies inside the buffer, no fd fields): its address
/// range, or for a dma-buf backed one its fd, offset and the address as IOVA
/// (then no IOVA of the caller's).
pub(crate) fn resolve(pd: *mut ibv_pd, attr: &mut ibv_mr_init_attr) -> Result<()> {
    let buf = lookup(attr.buf)?;
    let mut m = M::from_bits_retain(attr.comp_mask);
    if buf.pd != pd as usize || !m.contains(M::ADDR) {
        return Err(Errno::EINVAL);
    }
    let off = (attr.addr as usize)
        .checked_sub(buf.addr)
        .ok_or(Errno::EINVAL)?;
    if off > buf.size || attr.length > buf.size - off {
        return Err(Errno::EINVAL);
    }
    if m.intersects(M::FD | M::FD_OFFSET) {
        return Err(Errno::EINVAL);
    }
    m.remove(M::BUF);
    if buf.dmabuf_fd != -1 {
        if m.contains(M::IOVA) {
            return Err(Errno::EINVAL);
        }
        m.remove(M::ADDR);
        m |= M::FD | M::FD_OFFSET | M::IOVA;
        attr.fd = buf.dmabuf_fd;
        attr.fd_offset = off as u64;
        attr.iova = attr.addr as u64;
    }
    attr.comp_mask = m.bits();
    Ok(())
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
    let (addr, b) = pd.ctx.ops.alloc_buf(&pd, size)?;
    *out = insert(b);
    Ok(addr as *mut c_void)
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_free_buf(buf: *mut ibv_buf) {
    let ctx = lookup(buf).and_then(|b| object::lookup::<Context>(b.ctx as *const ibv_context));
    match (remove(buf), ctx) {
        (Ok(b), Ok(ctx)) => ctx.ops.free_buf(&ctx, &b),
        // Our own memory needs no context; a provider's buffer went with
        // its context's close (rdma-core would use the freed context).
        (Ok(b), Err(_)) if b.prov == 0 => generic::free(&b),
        (Ok(_), Err(e)) | (Err(e), _) => set_errno(e),
    }
}

/// rdma-core 65: a new fd (close-on-exec) of the dma-buf behind a buffer,
/// ENODATA when there is none (heap memory: rdma-core's default, which rxe
/// keeps); anything but a live handle EINVAL.
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_export_buf_dmabuf_fd(buf: *mut ibv_buf) -> c_int {
    let b = lookup(buf)?;
    // A provider's buffer went with its context's close (its fd too).
    if b.prov != 0 {
        object::lookup::<Context>(b.ctx as *const ibv_context)?;
    }
    if b.dmabuf_fd < 0 {
        return Err(Errno(libc::ENODATA));
    }
    // SAFETY: duplicates the fd the buffer's maker holds; no memory passed.
    #[allow(unsafe_code)]
    let fd = unsafe { libc::fcntl(b.dmabuf_fd, libc::F_DUPFD_CLOEXEC, 0) };
    if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
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

    fn buf(pd: usize, dmabuf_fd: c_int) -> Buf {
        Buf {
            ctx: 0,
            pd,
            addr: 0x10000,
            size: 0x2000,
            dmabuf_fd,
            prov: 0,
        }
    }

    #[test]
    fn resolve_checks_the_range_and_owner() {
        let pd = 0x1000 as *mut ibv_pd;
        let h = insert(buf(pd as usize, -1));
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
    fn a_dmabuf_buffer_registers_by_its_fd() {
        let pd = 0x1000 as *mut ibv_pd;
        let h = insert(buf(pd as usize, 7));
        let both = IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR;
        let mut a = attr(h, 0x11000, 0x1000, both);
        assert_eq!(resolve(pd, &mut a), Ok(()));
        let fd = IBV_REG_MR_MASK_FD | IBV_REG_MR_MASK_FD_OFFSET | IBV_REG_MR_MASK_IOVA;
        assert_eq!(a.comp_mask, u64::from(fd));
        assert_eq!((a.fd, a.fd_offset, a.iova), (7, 0x1000, 0x11000));
        // The IOVA is the address then: one of the caller's is refused.
        let mut a = attr(h, 0x11000, 0x1000, both | IBV_REG_MR_MASK_IOVA);
        assert_eq!(resolve(pd, &mut a), Err(Errno::EINVAL));
        assert!(remove(h).is_ok());
    }
}
