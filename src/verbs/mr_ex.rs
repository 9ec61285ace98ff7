//! ibv_reg_mr_ex (rdma-core 64): one registration call for every way of
//! naming the memory. With no provider op of its own (rxe in rdma-core 64) the
//! request becomes an ibv_reg_mr_iova2 or ibv_reg_dmabuf_mr registration;
//! ibv_reg_buf_mr is one such request, on a buffer of `super::buf`.

use crate::abi::*;
use crate::context::ObjRef;
use crate::context::generic::mr;
use crate::entry::{Errno, Result, arg_ref};
use crate::flags::RegMrMask as M;
use crate::object;
use std::ffi::{c_int, c_uint, c_void};

/// Which legacy registration a request stands for, or its errno.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// ibv_reg_mr_iova2(addr, length, iova, access)
    Va { addr: usize, iova: u64 },
    /// ibv_reg_dmabuf_mr(fd_offset, length, iova, fd, access)
    Dmabuf { offset: u64, iova: u64, fd: i32 },
}

/// rdma-core 64's translation for a provider without reg_mr_ex: only the
/// address, IOVA and fd fields (EOPNOTSUPP for a DMA handle or unknown bits);
/// an fd needs its offset and IOVA and no address; otherwise the address is
/// required and the IOVA defaults to it.
pub(crate) fn plan(a: &ibv_mr_init_attr) -> Result<Plan> {
    let m = M::from_bits_retain(a.comp_mask);
    if !(M::IOVA | M::ADDR | M::FD | M::FD_OFFSET).contains(m) {
        return Err(Errno::EOPNOTSUPP);
    }
    if m.contains(M::FD) {
        if m.contains(M::ADDR) || !m.contains(M::FD_OFFSET | M::IOVA) {
            return Err(Errno::EINVAL);
        }
        return Ok(Plan::Dmabuf {
            offset: a.fd_offset,
            iova: a.iova,
            fd: a.fd,
        });
    }
    if !m.contains(M::ADDR) || m.contains(M::FD_OFFSET) {
        return Err(Errno::EINVAL);
    }
    let addr = a.addr as usize;
    Ok(Plan::Va {
        addr,
        iova: if m.contains(M::IOVA) {
            a.iova
        } else {
            addr as u64
        },
    })
}

/// ibv_reg_mr_ex on a copy of the caller's request (which is never written).
pub(crate) fn reg_ex(pd: *mut ibv_pd, attr: &ibv_mr_init_attr) -> Result<*mut ibv_mr> {
    let pd_obj: ObjRef = object::get(pd)?;
    let mut a = *attr;
    if M::from_bits_retain(a.comp_mask).contains(M::BUF) {
        super::buf::resolve(pd, &mut a)?;
    }
    let access = a.access as c_uint;
    let mr = match plan(&a)? {
        Plan::Va { addr, iova } => mr::reg(&pd_obj, addr, a.length, iova, access)?,
        Plan::Dmabuf { offset, iova, fd } => {
            mr::reg_dmabuf(&pd_obj, offset, a.length, iova, fd, access)?
        }
    };
    Ok(object::adopt(pd_obj.ctx.clone(), mr))
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_reg_mr_ex(
    pd: *mut ibv_pd,
    mr_init_attr: *mut ibv_mr_init_attr,
) -> *mut ibv_mr {
    // SAFETY: the caller's request, read only.
    let attr = unsafe { arg_ref(mr_init_attr)? };
    reg_ex(pd, attr)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_reg_buf_mr(
    pd: *mut ibv_pd,
    buf: *mut ibv_buf,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr {
    let attr = ibv_mr_init_attr {
        length,
        access,
        comp_mask: u64::from(IBV_REG_MR_MASK_BUF | IBV_REG_MR_MASK_ADDR),
        iova: 0,
        addr,
        fd: 0,
        fd_offset: 0,
        dmah: std::ptr::null_mut(),
        buf,
    };
    reg_ex(pd, &attr)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The C values, not the flag type under test.
    const IOVA: u64 = IBV_REG_MR_MASK_IOVA as u64;
    const ADDR: u64 = IBV_REG_MR_MASK_ADDR as u64;
    const FD: u64 = IBV_REG_MR_MASK_FD as u64;
    const FD_OFFSET: u64 = IBV_REG_MR_MASK_FD_OFFSET as u64;

    fn attr(mask: u64) -> ibv_mr_init_attr {
        ibv_mr_init_attr {
            length: 4096,
            access: 0,
            comp_mask: mask,
            iova: 0x7000,
            addr: 0x5000 as *mut _,
            fd: 9,
            fd_offset: 0x100,
            dmah: std::ptr::null_mut(),
            buf: std::ptr::null_mut(),
        }
    }

    #[test]
    fn plans_follow_rdma_core_64() {
        assert_eq!(
            plan(&attr(ADDR)),
            Ok(Plan::Va {
                addr: 0x5000,
                iova: 0x5000
            })
        );
        assert_eq!(
            plan(&attr(ADDR | IOVA)),
            Ok(Plan::Va {
                addr: 0x5000,
                iova: 0x7000
            })
        );
        assert_eq!(
            plan(&attr(FD | FD_OFFSET | IOVA)),
            Ok(Plan::Dmabuf {
                offset: 0x100,
                iova: 0x7000,
                fd: 9
            })
        );
        let dmah = u64::from(IBV_REG_MR_MASK_DMAH);
        for (mask, e) in [
            (ADDR | dmah, Errno::EOPNOTSUPP),
            (ADDR | 1 << 40, Errno::EOPNOTSUPP),
            (0, Errno::EINVAL),
            (IOVA, Errno::EINVAL),
            (ADDR | FD_OFFSET, Errno::EINVAL),
            (FD | FD_OFFSET, Errno::EINVAL),
            (FD | IOVA, Errno::EINVAL),
            (FD | FD_OFFSET | IOVA | ADDR, Errno::EINVAL),
        ] {
            assert_eq!(plan(&attr(mask)), Err(e), "mask {mask:#x}");
        }
    }
}
