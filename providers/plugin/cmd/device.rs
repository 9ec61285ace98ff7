//! ibv_cmd_query_context: the QUERY_CONTEXT ioctl method, with the plugin's
//! driver attributes linked in.

use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub(crate) unsafe fn query_context(
    ctx: *mut ibv_context,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    if ctx.is_null() {
        return Err(Errno::EINVAL);
    }
    let mut core_support = 0u64;
    // SAFETY: the plugin's link chain.
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, 2, link)? };
    // SAFETY: the context's field and our local, live until execute returns.
    unsafe {
        f.ptr_out(
            UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
            (&raw mut (*ctx).num_comp_vectors).cast(),
            4,
        );
        f.ptr_out(
            UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
            (&raw mut core_support).cast(),
            8,
        );
        f.execute(ctx)?;
        // The device's verbs_device records what the core supports.
        let vdev = (*ctx).device.cast::<verbs_device>();
        if !vdev.is_null() {
            (*vdev).core_support = core_support;
        }
    }
    Ok(())
}

/// ibv_cmd_query_port_speed (rdma-core 65): the QUERY_PORT_SPEED method.
pub(crate) unsafe fn query_port_speed(
    ctx: *mut ibv_context,
    port: u32,
    speed: *mut u64,
) -> Result<()> {
    if ctx.is_null() || speed.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_QUERY_PORT_SPEED,
            2,
            std::ptr::null_mut(),
        )?
    };
    f.const_in(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, port.into());
    // SAFETY: the caller's out-parameter, live until execute returns.
    unsafe {
        f.ptr_out(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, speed.cast(), 8);
        f.execute(ctx)
    }
}

/// ibv_cmd_query_comp_cntr_caps (rdma-core 65): the QUERY_COMP_CNTR_CAPS
/// method; a `caps_size` short of 65's struct is EINVAL.
pub(crate) unsafe fn query_comp_cntr_caps(
    ctx: *mut ibv_context,
    caps: *mut ibv_comp_cntr_caps,
    caps_size: usize,
) -> Result<()> {
    if caps_size < size_of::<ibv_comp_cntr_caps>() || ctx.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's struct of at least our size.
    let c = unsafe { caps.as_mut() }.ok_or(Errno::EINVAL)?;
    let mut ops = 0u32;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_QUERY_COMP_CNTR_CAPS,
            3,
            std::ptr::null_mut(),
        )?
    };
    // SAFETY: the caller's fields and our local, live until execute returns.
    unsafe {
        f.ptr_out(
            UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_COUNTERS,
            (&raw mut c.max_counters).cast(),
            4,
        );
        f.ptr_out(
            UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_MAX_VALUE,
            (&raw mut c.max_value).cast(),
            8,
        );
        f.ptr_out(
            UVERBS_ATTR_QUERY_COMP_CNTR_CAPS_SUPPORTED_QP_ATTACH_OPS,
            (&raw mut ops).cast(),
            4,
        );
        f.execute(ctx)?;
    }
    c.supported_qp_attach_ops = ops & super::comp_cntr::ATTACH_OPS;
    Ok(())
}
