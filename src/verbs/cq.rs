//! Completion queues and completion channels.

use crate::abi::*;
use crate::context::generic::channel;
use crate::context::{Context, Obj, ObjRef, events};
use crate::entry::arg_mut;
use crate::object;
use std::ffi::{c_int, c_uint, c_void};

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_comp_channel(
    context: *mut ibv_context,
) -> *mut ibv_comp_channel {
    let ctx = object::lookup::<Context>(context)?;
    let new = channel::create_comp_channel(&ctx)?;
    Ok(object::adopt(ctx, new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_comp_channel(channel: *mut ibv_comp_channel) -> c_int {
    object::take_if(channel, channel::destroy_comp_channel).map(drop)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_cq(
    context: *mut ibv_context,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    comp_vector: c_int,
) -> *mut ibv_cq {
    let ctx = object::lookup::<Context>(context)?;
    let channel = if channel.is_null() {
        None
    } else {
        Some(object::get(channel)?)
    };
    let new = ctx
        .ops
        .create_cq(&ctx, cqe, cq_context, channel, comp_vector)?;
    Ok(object::adopt(ctx, new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_resize_cq(cq: *mut ibv_cq, cqe: c_int) -> c_int {
    let cq: ObjRef = object::get(cq)?;
    cq.ctx.ops.resize_cq(&cq, cqe)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_cq(cq: *mut ibv_cq) -> c_int {
    events::destroy(cq, |c: &Obj| c.ctx.ops.destroy_cq(c)).map(drop)
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_get_cq_event(
    channel: *mut ibv_comp_channel,
    cq: *mut *mut ibv_cq,
    cq_context: *mut *mut c_void,
) -> c_int {
    let ch: ObjRef = object::get(channel)?;
    // SAFETY: the caller's out-parameters.
    let (out_cq, out_ctx) = unsafe { (arg_mut(cq)?, arg_mut(cq_context)?) };
    let (c, x) = channel::get_cq_event(&ch)?;
    ch.ctx.ops.cq_event(c);
    *out_cq = c;
    *out_ctx = x;
    Ok(0)
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_ack_cq_events(cq: *mut ibv_cq, nevents: c_uint) {
    match object::get::<_, Context>(cq) {
        Ok(cq) => cq.ack_comp_events(nevents),
        Err(e) => crate::entry::set_errno(e),
    }
}
