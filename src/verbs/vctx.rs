//! The op slots of `struct verbs_context` that the library itself answers,
//! dispatching to the context's provider. verbs.h inline functions call these
//! with the caller's sizes, so older and newer callers' structs both work.

use crate::abi::*;
use crate::context::{Context, ObjRef};
use crate::entry::{Errno, arg_mut, arg_ref};
use crate::object;
use crate::verbs::query::{query_device_ex_into, query_port_into};
use std::ffi::c_int;

extern "C" fn register() {
    crate::context::register_lib_slots(fill);
}

// Runs when the library is loaded, before any context can be opened.
#[used]
#[unsafe(link_section = ".init_array")]
static REGISTER: extern "C" fn() = register;

/// Points the slots the library implements at their dispatchers.
fn fill(v: &mut verbs_context) {
    v.query_port = Some(query_port);
    v.query_device_ex = Some(query_device_ex);
    v.context.ops._compat_query_device = Some(super::query::ibv_query_device);
    v.context.ops._compat_query_port = Some(super::query::ibv_query_port);
    // Inline verbs.h code calls these slots; the dispatchers answer as
    // rdma-core's dummies do (EOPNOTSUPP) for a provider without the op.
    v.context.ops.req_notify_cq = Some(req_notify_cq);
    v.context.ops.alloc_mw = Some(super::mw::alloc_mw);
    v.context.ops.dealloc_mw = Some(super::mw::dealloc_mw);
    // ---- CQ, QP, SRQ (branch qp) ----
    v.create_cq_ex = Some(create_cq_ex);
    v.create_qp_ex = Some(create_qp_ex);
    v.create_srq_ex = Some(create_srq_ex);
    // ---- rdma-core 64's slots (branch abi64): set, as 64 sets them ----
    v.alloc_buf = Some(super::buf::ibv_alloc_buf);
    v.free_buf = Some(super::buf::ibv_free_buf);
    v.reg_mr_ex = Some(super::mr_ex::ibv_reg_mr_ex);
    v.alloc_dmah = Some(super::dmah::ibv_alloc_dmah);
    v.dealloc_dmah = Some(super::dmah::ibv_dealloc_dmah);
    v.dm_export_dmabuf_fd = Some(super::dm_export::ibv_dm_export_dmabuf_fd);
    // Inline ibv_alloc_dm / ibv_free_dm: DMs go through the registry.
    v.alloc_dm = Some(super::dm::alloc_dm);
    v.free_dm = Some(super::dm::free_dm);
}

#[entry(errno)]
unsafe extern "C" fn query_port(
    context: *mut ibv_context,
    port_num: u8,
    port_attr: *mut ibv_port_attr,
    port_attr_len: usize,
) -> c_int {
    let ctx = object::hold::<Context>(context)?;
    // SAFETY: the inline caller passes its struct and its size.
    unsafe { query_port_into(&ctx, port_num, port_attr, port_attr_len) }
}

#[entry(errno)]
unsafe extern "C" fn query_device_ex(
    context: *mut ibv_context,
    input: *const ibv_query_device_ex_input,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
) -> c_int {
    let ctx = object::hold::<Context>(context)?;
    // SAFETY: optional input from the caller.
    let input = unsafe { input.as_ref() };
    // SAFETY: the inline caller passes its struct and its size.
    unsafe { query_device_ex_into(&ctx, input, attr, attr_size) }
}

// ---- CQ, QP, SRQ (branch qp) ------------------------------------------------

/// The `create_cq_ex` slot, which `ibv_create_cq_ex` (inline) calls.
#[entry(ptr)]
unsafe extern "C" fn create_cq_ex(
    context: *mut ibv_context,
    cq_attr: *mut ibv_cq_init_attr_ex,
) -> *mut ibv_cq_ex {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's attributes.
    let attr = unsafe { arg_ref(cq_attr)? };
    if attr.wc_flags & !CREATE_CQ_SUP_WC_FLAGS != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let channel = match attr.channel.is_null() {
        true => None,
        false => Some(object::get(attr.channel)?),
    };
    let new = ctx.ops.create_cq_ex(&ctx, attr, channel)?;
    Ok(object::adopt(ctx, new))
}

/// The wc_flags libibverbs itself knows (`IBV_CREATE_CQ_SUP_WC_FLAGS`).
const CREATE_CQ_SUP_WC_FLAGS: u64 = IBV_WC_STANDARD_FLAGS as u64
    | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP as u64
    | IBV_WC_EX_WITH_CVLAN as u64
    | IBV_WC_EX_WITH_FLOW_TAG as u64
    | IBV_WC_EX_WITH_TM_INFO as u64
    | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK as u64;

/// The `create_qp_ex` slot: `ibv_create_qp_ex` (inline) calls it unless
/// comp_mask is exactly IBV_QP_INIT_ATTR_PD.
#[entry(ptr)]
unsafe extern "C" fn create_qp_ex(
    context: *mut ibv_context,
    qp_init_attr_ex: *mut ibv_qp_init_attr_ex,
) -> *mut ibv_qp {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's attributes; capacities are written back.
    let attr = unsafe { arg_mut(qp_init_attr_ex)? };
    let new = ctx.ops.create_qp_ex(&ctx, attr)?;
    Ok(object::adopt(ctx, new))
}

/// The `create_srq_ex` slot: `ibv_create_srq_ex` (inline) calls it for
/// anything but a basic SRQ with just a PD.
#[entry(ptr)]
unsafe extern "C" fn create_srq_ex(
    context: *mut ibv_context,
    srq_init_attr_ex: *mut ibv_srq_init_attr_ex,
) -> *mut ibv_srq {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's attributes; limits are written back.
    let attr = unsafe { arg_mut(srq_init_attr_ex)? };
    let new = ctx.ops.create_srq_ex(&ctx, attr)?;
    Ok(object::adopt(ctx, new))
}

/// `ibv_req_notify_cq` (inline) calls `cq->context->ops.req_notify_cq`; a
/// provider that implements it points the slot here.
#[entry(errno)]
pub unsafe extern "C" fn req_notify_cq(cq: *mut ibv_cq, solicited_only: c_int) -> c_int {
    let cq: ObjRef = object::get(cq)?;
    cq.ctx.ops.req_notify_cq(&cq, solicited_only != 0)
}
