//! Asynchronous events of a context.

use crate::abi::*;
use crate::context::Context;
use crate::context::generic::async_event;
use crate::entry::arg_mut;
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_get_async_event(
    context: *mut ibv_context,
    event: *mut ibv_async_event,
) -> c_int {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's out-parameter.
    let ev = unsafe { arg_mut(event)? };
    async_event::get_async_event(&ctx, ev)?;
    ctx.ops.async_event(&ctx, ev);
    Ok(0)
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_ack_async_event(event: *mut ibv_async_event) {
    // NULL is ignored where rdma-core would crash; events of objects we
    // do not know need no acknowledgement.
    // SAFETY: the caller's event, if any.
    if let Some(ev) = unsafe { event.as_ref() } {
        async_event::ack_async_event(ev);
    }
}
