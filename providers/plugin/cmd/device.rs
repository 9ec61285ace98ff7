//! The context and device commands: ibv_cmd_get_context,
//! ibv_cmd_query_device_any, ibv_cmd_query_port, and ibv_cmd_query_context
//! (the QUERY_CONTEXT ioctl method, with the plugin's driver attributes
//! linked in).

use super::Bufs;
use crate::abi::*;
use crate::context::{Context, generic};
use crate::driver_abi::v34::verbs_context as VerbsContext44;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::{set_async_fd, with_context, with_uverbs};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;
use std::ffi::c_void;
use std::mem::MaybeUninit;

/// `vctx` is a key into the hosted contexts (NULL or not ours is EINVAL).
pub(crate) fn get_context(vctx: *mut VerbsContext44, mut b: Bufs) -> Result<()> {
    // The ibv_context inside the plugin's verbs_context.
    let ctx = vctx.wrapping_byte_add(std::mem::offset_of!(VerbsContext44, context));
    let ctx = ctx.cast::<ibv_context>();
    let core = size_of::<crate::uverbs::device::GetContextResp>();
    let (di, dout) = b.split(8, core);
    let info = with_uverbs(ctx, |u| u.get_context(di, dout))?;
    let r = crate::uverbs::device::GetContextResp {
        async_fd: std::os::fd::AsRawFd::as_raw_fd(&info.async_fd) as u32,
        num_comp_vectors: info.num_comp_vectors,
    };
    b.put(&r);
    // SAFETY: the hosted context being set up (found by with_uverbs).
    unsafe { set_async_fd(ctx, info.async_fd, info.num_comp_vectors) }
}

pub(crate) unsafe fn query_device_any(
    ctx: *mut ibv_context,
    attr: *mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut c_void,
    resp_size: *mut usize,
) -> Result<()> {
    // SAFETY: the caller's struct of `attr_size` bytes; ours is at least that big.
    let a = unsafe { attr.as_mut() }.ok_or(Errno::EINVAL)?;
    // SAFETY: the plugin's response buffer and its size, as given.
    with_context(ctx, |c| unsafe {
        query_device_into(c, a, attr_size, resp, resp_size)
    })
}

/// [`query_device_any`] on our Context.
///
/// # Safety
/// As [`query_device_any`].
unsafe fn query_device_into(
    c: &Context,
    a: &mut ibv_device_attr_ex,
    attr_size: usize,
    resp: *mut c_void,
    resp_size: *mut usize,
) -> Result<()> {
    use crate::uverbs::device::ExQueryDeviceResp;
    let size = attr_size.min(size_of::<ibv_device_attr_ex>());
    let mut own;
    // The plugin's response buffer when it holds a whole aligned response
    // (its `struct ib_uverbs_ex_query_device_resp`, as rdma-core hands the
    // kernel): the kernel writes it directly, no copy afterwards.
    // SAFETY: the plugin's response buffer and its size, as given.
    let direct = unsafe {
        !resp.is_null()
            && !resp_size.is_null()
            && *resp_size >= size_of::<ExQueryDeviceResp>()
            && resp.cast::<ExQueryDeviceResp>().is_aligned()
    };
    let r = if direct {
        let p = resp.cast::<ExQueryDeviceResp>();
        // SAFETY: checked just above: a whole, aligned response of the
        // plugin's, which any bytes are a valid value of; zeroed first.
        unsafe {
            p.write(ExQueryDeviceResp::default());
            &mut *p
        }
    } else {
        own = ExQueryDeviceResp::default();
        &mut own
    };
    if size == size_of::<ibv_device_attr_ex>() {
        // The whole struct: filled in place, no copy.
        generic::device::query_device_any(c, a, size, r)?;
    } else {
        let mut full = generic::device::zeroed_attr_ex();
        generic::device::query_device_any(c, &mut full, size, r)?;
        // SAFETY: `size` bytes of the caller's struct.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (&raw const full).cast::<u8>(),
                (a as *mut ibv_device_attr_ex).cast::<u8>(),
                size,
            )
        };
    }
    if direct {
        // SAFETY: as above.
        unsafe { *resp_size = size_of::<ExQueryDeviceResp>() };
    } else if !resp.is_null() && !resp_size.is_null() {
        // SAFETY: the plugin's response buffer and its size.
        unsafe {
            let n = (*resp_size).min(size_of::<ExQueryDeviceResp>());
            let own: *const ExQueryDeviceResp = r;
            std::ptr::copy_nonoverlapping(own.cast::<u8>(), resp.cast::<u8>(), n);
            *resp_size = n;
        }
    }
    Ok(())
}

/// `out` is the caller's `ibv_port_attr` as its release has it: 44's ends
/// before `active_speed_ex` (rdma-core 50), so only that much is written.
pub(crate) fn query_port(
    ctx: *mut ibv_context,
    port: u8,
    out: &mut [MaybeUninit<u8>],
    _: Bufs,
) -> Result<()> {
    // SAFETY: plain C data; all-zero is valid.
    let mut full: ibv_port_attr = unsafe { std::mem::zeroed() };
    with_context(ctx, |c| generic::port::query_port(c, port, &mut full))?;
    // SAFETY: `full` is a plain struct of size_of bytes, all written (zeroed first).
    let bytes = unsafe {
        std::slice::from_raw_parts(
            (&raw const full).cast::<MaybeUninit<u8>>(),
            size_of::<ibv_port_attr>(),
        )
    };
    let n = out.len().min(bytes.len());
    out[..n].copy_from_slice(&bytes[..n]);
    Ok(())
}

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
