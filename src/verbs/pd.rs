//! Protection domains and memory registration.

use crate::abi::*;
use crate::context::{Context, Mr, Pd};
use crate::entry::{Errno, Result};
use crate::object;
use std::ffi::{c_int, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    entry!(ptr, ibv_alloc_pd(context) {
        let ctx = object::lookup::<Context>(context)?;
        Ok(object::publish(ctx.ops.alloc_pd(&ctx)?))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    entry!(errno, ibv_dealloc_pd(pd) {
        object::retire_if::<Pd>(pd, |p| p.ctx.ops.dealloc_pd(p)).map(drop)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_pd(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd {
    entry!(ptr, ibv_import_pd(context, pd_handle) {
        let ctx = object::lookup::<Context>(context)?;
        Ok(object::publish(ctx.ops.import_pd(&ctx, pd_handle)?))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_pd(pd: *mut ibv_pd) {
    entry!(value(()), ibv_unimport_pd(pd) {
        let _ = object::retire::<Pd>(pd);
    })
}

fn reg(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> Result<*mut ibv_mr> {
    let pd = object::lookup::<Pd>(pd)?;
    let mr = pd
        .ctx
        .ops
        .reg_mr(&pd, addr as usize, length, iova, access)?;
    Ok(object::publish(mr))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr {
    entry!(ptr, ibv_reg_mr(pd, addr, length, access) {
        reg(pd, addr, length, addr as u64, access as c_uint)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_iova(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_int,
) -> *mut ibv_mr {
    entry!(ptr, ibv_reg_mr_iova(pd, addr, length, iova, access) {
        reg(pd, addr, length, iova, access as c_uint)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr_iova2(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> *mut ibv_mr {
    entry!(ptr, ibv_reg_mr_iova2(pd, addr, length, iova, access) {
        reg(pd, addr, length, iova, access)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
) -> *mut ibv_mr {
    entry!(ptr, ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access) {
        let pd = object::lookup::<Pd>(pd)?;
        let mr = pd.ctx.ops.reg_dmabuf_mr(&pd, offset, length, iova, fd, access as c_uint)?;
        Ok(object::publish(mr))
    })
}

/// Returns 0 or one of enum ibv_rereg_mr_err_code (negative), errno set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_rereg_mr(
    mr: *mut ibv_mr,
    flags: c_int,
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> c_int {
    entry!(value(IBV_REREG_MR_ERR_INPUT), ibv_rereg_mr(mr, flags, pd, addr, length, access) {
        let run = || -> Result<()> {
            let mr = object::lookup::<Mr>(mr)?;
            if flags <= 0 || flags as u32 >= IBV_REREG_MR_FLAGS_SUPPORTED {
                return Err(Errno::EINVAL);
            }
            let new_pd = if flags as u32 & IBV_REREG_MR_CHANGE_PD != 0 {
                Some(object::lookup::<Pd>(pd)?)
            } else {
                None
            };
            if flags as u32 & IBV_REREG_MR_CHANGE_TRANSLATION != 0 && (addr.is_null() || length == 0) {
                return Err(Errno::EINVAL);
            }
            mr.ctx.ops.rereg_mr(&mr, flags, new_pd.as_ref(), addr as usize, length, access)
        };
        match run() {
            Ok(()) => 0,
            Err(e) => {
                crate::entry::set_errno(e);
                IBV_REREG_MR_ERR_INPUT
            }
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int {
    entry!(errno, ibv_dereg_mr(mr) {
        object::retire_if::<Mr>(mr, |m| m.ctx.ops.dereg_mr(m)).map(drop)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_mr(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr {
    entry!(ptr, ibv_import_mr(pd, mr_handle) {
        let pd = object::lookup::<Pd>(pd)?;
        Ok(object::publish(pd.ctx.ops.import_mr(&pd, mr_handle)?))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_mr(mr: *mut ibv_mr) {
    entry!(value(()), ibv_unimport_mr(mr) {
        let _ = object::retire::<Mr>(mr);
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_import_dm(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm {
    entry!(ptr, ibv_import_dm(context, dm_handle) {
        let ctx = object::lookup::<Context>(context)?;
        Ok(object::publish(ctx.ops.import_dm(&ctx, dm_handle)?))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_unimport_dm(dm: *mut ibv_dm) {
    entry!(value(()), ibv_unimport_dm(dm) {
        let _ = object::retire::<crate::context::Dm>(dm);
    })
}
