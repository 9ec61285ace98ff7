//! Protection domains and memory registration.

use crate::abi::*;
use crate::context::generic::mr;
use crate::context::{Context, Obj, ObjRef};
use crate::entry::{Result, set_errno};
use crate::object;
use std::ffi::{c_int, c_uint, c_void};

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    let ctx = object::lookup::<Context>(context)?;
    let new = ctx.ops.alloc_pd(&ctx)?;
    Ok(object::adopt(ctx, new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    object::take_if(pd, |p: &Obj| p.ctx.ops.dealloc_pd(p)).map(drop)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_import_pd(context: *mut ibv_context, pd_handle: u32) -> *mut ibv_pd {
    let ctx = object::lookup::<Context>(context)?;
    let new = ctx.ops.import_pd(&ctx, pd_handle)?;
    Ok(object::adopt(ctx, new))
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_unimport_pd(pd: *mut ibv_pd) {
    let _ = object::take_if(pd, |p: &Obj| p.ctx.ops.unimport_pd(p));
}

fn reg(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> Result<*mut ibv_mr> {
    let pd: ObjRef = object::get(pd)?;
    let new = mr::reg(&pd, addr as usize, length, iova, access)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr {
    reg(pd, addr, length, addr as u64, access as c_uint)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_reg_mr_iova(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_int,
) -> *mut ibv_mr {
    reg(pd, addr, length, iova, access as c_uint)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_reg_mr_iova2(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    iova: u64,
    access: c_uint,
) -> *mut ibv_mr {
    reg(pd, addr, length, iova, access)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_reg_dmabuf_mr(
    pd: *mut ibv_pd,
    offset: u64,
    length: usize,
    iova: u64,
    fd: c_int,
    access: c_int,
) -> *mut ibv_mr {
    let pd: ObjRef = object::get(pd)?;
    let new = mr::reg_dmabuf(&pd, offset, length, iova, fd, access as c_uint)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

/// Returns 0 or one of enum ibv_rereg_mr_err_code (negative), errno set.
#[unsafe(no_mangle)]
#[entry(value(IBV_REREG_MR_ERR_INPUT))]
pub unsafe extern "C" fn ibv_rereg_mr(
    mr: *mut ibv_mr,
    flags: c_int,
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> c_int {
    match object::get::<_, Context>(mr) {
        Ok(mr) => mr::rereg(&mr, flags, pd, addr as usize, length, access),
        Err(e) => {
            set_errno(e);
            IBV_REREG_MR_ERR_INPUT
        }
    }
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int {
    object::take_if(mr, mr::dereg).map(drop)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_import_mr(pd: *mut ibv_pd, mr_handle: u32) -> *mut ibv_mr {
    let pd: ObjRef = object::get(pd)?;
    let new = pd.ctx.ops.import_mr(&pd, mr_handle)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_unimport_mr(mr: *mut ibv_mr) {
    let _ = object::take_if(mr, |m: &Obj| m.ctx.ops.unimport_mr(m));
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_import_dm(context: *mut ibv_context, dm_handle: u32) -> *mut ibv_dm {
    let ctx = object::lookup::<Context>(context)?;
    let new = ctx.ops.import_dm(&ctx, dm_handle)?;
    Ok(object::adopt(ctx, new))
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_unimport_dm(dm: *mut ibv_dm) {
    let _ = object::take_if(dm, |d: &Obj| d.ctx.ops.unimport_dm(d));
}
