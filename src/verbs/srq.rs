//! Shared receive queues.

use crate::abi::*;
use crate::context::{Obj, ObjRef, events};
use crate::entry::{arg_mut, arg_ref};
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_srq(
    pd: *mut ibv_pd,
    srq_init_attr: *mut ibv_srq_init_attr,
) -> *mut ibv_srq {
    let pd: ObjRef = object::get(pd)?;
    // SAFETY: the caller's attributes; limits are written back.
    let attr = unsafe { arg_mut(srq_init_attr)? };
    let new = pd.ctx.ops.create_srq(&pd, attr)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_modify_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
) -> c_int {
    let srq: ObjRef = object::get(srq)?;
    // SAFETY: the caller's input.
    let attr = unsafe { arg_ref(srq_attr)? };
    srq.ctx.ops.modify_srq(&srq, attr, srq_attr_mask)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int {
    let srq: ObjRef = object::get(srq)?;
    // SAFETY: the caller's out-parameter.
    let attr = unsafe { arg_mut(srq_attr)? };
    srq.ctx.ops.query_srq(&srq, attr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_srq(srq: *mut ibv_srq) -> c_int {
    events::destroy(srq, |s: &Obj| s.ctx.ops.destroy_srq(s)).map(drop)
}
