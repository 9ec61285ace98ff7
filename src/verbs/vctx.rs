//! The op slots of `struct verbs_context` that the library itself answers,
//! dispatching to the context's provider. verbs.h inline functions call these
//! with the caller's sizes, so older and newer callers' structs both work.

use crate::abi::*;
use crate::context::Context;
use crate::object;
use crate::verbs::query::{query_device_ex_into, query_port_into};
use std::ffi::c_int;

/// Points the slots the library implements at their dispatchers.
pub fn fill(v: &mut verbs_context) {
    v.query_port = Some(query_port);
    v.query_device_ex = Some(query_device_ex);
    v.context.ops._compat_query_device = Some(super::query::ibv_query_device);
    v.context.ops._compat_query_port = Some(super::query::ibv_query_port);
}

unsafe extern "C" fn query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    port_attr_len: usize,
) -> c_int {
    entry!(errno, query_port(context, port_num, port_attr, port_attr_len) {
        let ctx = object::lookup::<Context>(context)?;
        query_port_into(&ctx, port_num, port_attr, port_attr_len)
    })
}

unsafe extern "C" fn query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
) -> c_int {
    entry!(errno, query_device_ex(context, input, attr, attr_size) {
        let ctx = object::lookup::<Context>(context)?;
        // SAFETY: optional input from the caller.
        let input = unsafe { input.as_ref() };
        query_device_ex_into(&ctx, input, attr, attr_size)
    })
}
