//! Memory windows. ibv_alloc_mw and ibv_dealloc_mw are inline in verbs.h and
//! call the context's `alloc_mw` / `dealloc_mw` op slots directly; a provider
//! that has memory windows points those slots here.

use crate::abi::*;
use crate::context::{Obj, ObjRef};
use crate::object;
use std::ffi::c_int;

/// The `alloc_mw` op slot: NULL with errno on failure.
#[entry(ptr, name = ibv_alloc_mw)]
pub unsafe extern "C" fn alloc_mw(pd: *mut ibv_pd, mw_type: ibv_mw_type) -> *mut ibv_mw {
    let pd: ObjRef = object::get(pd)?;
    let new = pd.ctx.ops.alloc_mw(&pd, mw_type)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

/// The `dealloc_mw` op slot: 0 or an errno.
#[entry(errno, name = ibv_dealloc_mw)]
pub unsafe extern "C" fn dealloc_mw(mw: *mut ibv_mw) -> c_int {
    object::take_if(mw, |m: &Obj| m.ctx.ops.dealloc_mw(m)).map(drop)
}
