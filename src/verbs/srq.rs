//! Shared receive queues.

use crate::abi::*;
use crate::context::{Pd, Srq, events};
use crate::entry::{arg_mut, arg_ref};
use crate::object;
use crate::providers::plugin::dispatch as hosted;
use std::ffi::c_int;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_srq(
    pd: *mut ibv_pd,
    srq_init_attr: *mut ibv_srq_init_attr,
) -> *mut ibv_srq {
    entry!(ptr, ibv_create_srq(pd, srq_init_attr) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::create_srq(pd, srq_init_attr) {
            return r;
        }
        let pd = object::lookup::<Pd>(pd)?;
        // SAFETY: the caller's attributes; limits are written back.
        let attr = unsafe { arg_mut(srq_init_attr)? };
        Ok(object::publish(pd.ctx.ops.create_srq(&pd, attr)?))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_srq(
    srq: *mut ibv_srq,
    srq_attr: *mut ibv_srq_attr,
    srq_attr_mask: c_int,
) -> c_int {
    entry!(errno, ibv_modify_srq(srq, srq_attr, srq_attr_mask) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::modify_srq(srq, srq_attr, srq_attr_mask) {
            return r;
        }
        let srq = object::lookup::<Srq>(srq)?;
        // SAFETY: the caller's input.
        let attr = unsafe { arg_ref(srq_attr)? };
        srq.ctx.ops.modify_srq(&srq, attr, srq_attr_mask)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_srq(srq: *mut ibv_srq, srq_attr: *mut ibv_srq_attr) -> c_int {
    entry!(errno, ibv_query_srq(srq, srq_attr) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::query_srq(srq, srq_attr) {
            return r;
        }
        let srq = object::lookup::<Srq>(srq)?;
        // SAFETY: the caller's out-parameter.
        let attr = unsafe { arg_mut(srq_attr)? };
        srq.ctx.ops.query_srq(&srq, attr)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_srq(srq: *mut ibv_srq) -> c_int {
    entry!(errno, ibv_destroy_srq(srq) {
        // A hosted plugin's object goes to the plugin.
        if let Some(r) = hosted::destroy_srq(srq) {
            return r;
        }
        events::destroy::<Srq>(srq, |s| s.ctx.ops.destroy_srq(s)).map(drop)
    })
}
