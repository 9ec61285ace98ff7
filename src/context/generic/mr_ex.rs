//! ibv_reg_mr_ex (rdma-core 64): what libibverbs does around the provider's
//! reg_mr_ex (fork protection, optional access bits, the C fields), and
//! rdma-core's default for a provider without one: the request as one of its
//! reg_mr or reg_dmabuf_mr registrations.

use super::mr::core_support;
use crate::abi::*;
use crate::context::{New, Obj};
use crate::entry::{Errno, Result};
use crate::flags::{Access, RegMrMask as M};
use crate::fork::{self, Advice};
use crate::object::CObject;
use crate::uverbs::ids::IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
use std::ffi::c_void;

/// Which legacy registration a request stands for, or its errno.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// reg_mr(addr, length, iova, access)
    Va { addr: usize, iova: u64 },
    /// reg_dmabuf_mr(fd_offset, length, iova, fd, access)
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

/// rdma-core's default reg_mr_ex op: the provider's own reg_mr or
/// reg_dmabuf_mr (the core's work around it is done by [`reg`]).
pub(crate) fn legacy(pd: &Obj, a: &ibv_mr_init_attr) -> Result<New> {
    let access = a.access as u32;
    match plan(a)? {
        Plan::Va { addr, iova } => pd.ctx.ops.reg_mr(pd, addr, a.length, iova, access),
        Plan::Dmabuf { offset, iova, fd } => pd
            .ctx
            .ops
            .reg_dmabuf_mr(pd, offset, a.length, iova, fd, access),
    }
}

/// ibv_reg_mr_ex on the library's copy of the request (its BUF bit already
/// resolved): keeps an address range out of fork() children (not for an fd
/// or on-demand paging), drops the optional access bits the kernel does not
/// know, then the provider's reg_mr_ex and the C fields.
pub(crate) fn reg(pd: &Obj, mut a: ibv_mr_init_attr) -> Result<New> {
    let ctx = &pd.ctx;
    let m = M::from_bits_retain(a.comp_mask);
    let mut access = Access::from_bits_retain(a.access as u32);
    let need_fork = !(access.contains(Access::ON_DEMAND) || m.contains(M::FD));
    let addr = a.addr as usize;
    if need_fork {
        fork::range(addr, a.length, Advice::DontFork)?;
    }
    if core_support(ctx) & u64::from(IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS) == 0 {
        access.remove(Access::OPTIONAL_RANGE);
    }
    a.access = access.bits() as i32;
    match ctx.ops.reg_mr_ex(pd, &mut a) {
        Ok(mr) => {
            // SAFETY: the new MR's C struct, not yet published.
            #[allow(unsafe_code)]
            let c = unsafe { &mut *mr.c().as_ptr().cast::<ibv_mr>() };
            c.context = ctx.c_ptr();
            c.length = a.length;
            c.pd = pd.c::<ibv_pd>();
            // Without an address, rdma-core follows ibv_reg_dmabuf_mr.
            c.addr = if M::from_bits_retain(a.comp_mask).contains(M::ADDR) {
                a.addr
            } else {
                a.fd_offset as usize as *mut c_void
            };
            Ok(mr)
        }
        Err(e) => {
            if need_fork {
                let _ = fork::range(addr, a.length, Advice::DoFork);
            }
            Err(e)
        }
    }
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
