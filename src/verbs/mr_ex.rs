//! ibv_reg_mr_ex (rdma-core 64): one registration call for every way of
//! naming the memory; the provider's reg_mr_ex registers (by default its
//! reg_mr or reg_dmabuf_mr, `context::generic::mr_ex`). ibv_reg_buf_mr is
//! one such request, on a buffer of `super::buf`.

use crate::abi::*;
use crate::context::ObjRef;
use crate::context::generic::mr_ex;
use crate::entry::{Result, arg_ref};
use crate::flags::RegMrMask as M;
use crate::object;
use std::ffi::{c_int, c_void};

/// The request as rdma-core's ibv_reg_mr_ex copies it: only the fields its
/// mask names (the caller's struct is never written).
fn masked(a: &ibv_mr_init_attr) -> ibv_mr_init_attr {
    let m = M::from_bits_retain(a.comp_mask);
    let mut c = *a;
    if !m.contains(M::IOVA) {
        c.iova = 0;
    }
    if !m.contains(M::ADDR) {
        c.addr = std::ptr::null_mut();
    }
    if !m.contains(M::FD) {
        c.fd = 0;
    }
    if !m.contains(M::FD_OFFSET) {
        c.fd_offset = 0;
    }
    if !m.contains(M::DMAH) {
        c.dmah = std::ptr::null_mut();
    }
    if !m.contains(M::BUF) {
        c.buf = std::ptr::null_mut();
    }
    c
}

/// ibv_reg_mr_ex on a copy of the caller's request.
pub(crate) fn reg_ex(pd: *mut ibv_pd, attr: &ibv_mr_init_attr) -> Result<*mut ibv_mr> {
    let pd_obj: ObjRef = object::get(pd)?;
    let mut a = masked(attr);
    if M::from_bits_retain(a.comp_mask).contains(M::BUF) {
        super::buf::resolve(pd, &mut a)?;
    }
    let mr = mr_ex::reg(&pd_obj, a)?;
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
