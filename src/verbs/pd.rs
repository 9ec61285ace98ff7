//! Protection domains and memory registration.

use crate::abi::*;
use crate::context::generic::mr;
use crate::context::{Context, Dm, Mr, Pd};
use crate::entry::{Result, set_errno};
use crate::object;
use crate::providers::plugin::dispatch as hosted;
use std::ffi::{c_int, c_uint, c_void};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_alloc_pd(context: *mut ibv_context) -> *mut ibv_pd {
    entry!(ptr, ibv_alloc_pd(context) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::alloc_pd(context) {
            return r;
        }
        let ctx = object::lookup::<Context>(context)?;
        Ok(object::publish(ctx.ops.alloc_pd(&ctx)?))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dealloc_pd(pd: *mut ibv_pd) -> c_int {
    entry!(errno, ibv_dealloc_pd(pd) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::dealloc_pd(pd) {
            return r;
        }
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
        let _ = object::retire_if::<Pd>(pd, |p| p.ctx.ops.unimport_pd(p));
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
    Ok(object::publish(mr::reg(
        &pd,
        addr as usize,
        length,
        iova,
        access,
    )?))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    length: usize,
    access: c_int,
) -> *mut ibv_mr {
    entry!(ptr, ibv_reg_mr(pd, addr, length, access) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::reg_mr(pd, addr, length, addr as u64, access) {
            return r;
        }
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
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::reg_mr(pd, addr, length, iova, access) {
            return r;
        }
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
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::reg_mr(pd, addr, length, iova, access as c_int) {
            return r;
        }
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
        Ok(object::publish(mr::reg_dmabuf(&pd, offset, length, iova, fd, access as c_uint)?))
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
        match object::lookup::<Mr>(mr) {
            Ok(mr) => mr::rereg(&mr, flags, pd, addr as usize, length, access),
            Err(e) => {
                set_errno(e);
                IBV_REREG_MR_ERR_INPUT
            }
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_dereg_mr(mr: *mut ibv_mr) -> c_int {
    entry!(errno, ibv_dereg_mr(mr) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::dereg_mr(mr) {
            return r;
        }
        object::retire_if::<Mr>(mr, mr::dereg).map(drop)
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
        let _ = object::retire_if::<Mr>(mr, |m| m.ctx.ops.unimport_mr(m));
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
        let _ = object::retire_if::<Dm>(dm, |d| d.ctx.ops.unimport_dm(d));
    })
}
