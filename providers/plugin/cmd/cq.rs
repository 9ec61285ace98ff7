//! ibv_cmd_create_cq_ex2 (rdma-core 55, IBVERBS_PRIVATE_34): the extended CQ
//! create with the driver's own attributes (mlx5's UAR index), sent as the
//! CQ_CREATE method with the driver's chain behind our attributes, as
//! rdma-core builds it; the write() command when the kernel has no such
//! method and the chain asks for nothing it cannot carry.

use super::{Bufs, EX_HDR, HDR, async_fd_of, cq_ex_flags, create_cq_ex};
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::providers::plugin::ioctl;
use crate::uverbs::cq::{CQ_FLAGS_TIMESTAMP_COMPLETION, ExCreateCq, ExCreateCqResp};
use crate::uverbs::ids::*;
use std::ffi::{c_int, c_void};

/// `CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX`: the driver takes a timestamp
/// request without the kernel's flag.
const TS_IGNORED_EX: u32 = 1 << 0;

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn create_cq_ex2(
    ctx: *mut ibv_context,
    attr: *const ibv_cq_init_attr_ex,
    vcq: *mut verbs_cq,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
    cmd_flags: u32,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the plugin's link chain.
    if unsafe { ioctl::chained_attrs(link)? } == 0 {
        // Nothing beyond what ibv_cmd_create_cq_ex sends.
        // SAFETY: the plugin's objects and buffers.
        return unsafe { create_cq_ex(ctx, attr, vcq, cmd, cmd_size, resp, resp_size, cmd_flags) };
    }
    let fr = crate::providers::plugin::call::current();
    // SAFETY: the caller's attributes.
    let a = unsafe { attr.as_ref() }.ok_or(Errno::EINVAL)?;
    let flags = cq_ex_flags(a)?;
    let cq = vcq.cast::<ibv_cq>();
    let mut resp_cqe = 0u32;
    // SAFETY: the plugin's link chain.
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 10, link)? };
    let h = f.obj_out(UVERBS_ATTR_CREATE_CQ_HANDLE);
    // SAFETY: our local, live until execute returns.
    unsafe {
        f.ptr_out(
            UVERBS_ATTR_CREATE_CQ_RESP_CQE,
            (&raw mut resp_cqe).cast(),
            4,
        )
    };
    f.u32_in(UVERBS_ATTR_CREATE_CQ_CQE, a.cqe);
    f.u64_in(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, cq as u64);
    // SAFETY: a channel the library checked (or NULL).
    if let Some(ch) = unsafe { a.channel.as_ref() } {
        f.fd_in(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, ch.fd);
    }
    f.u32_in(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, a.comp_vector);
    // Optional: a kernel without per-object async fds ignores it.
    if let Some(s) = async_fd_of(fr, ctx).and_then(|fd| f.fd_in(UVERBS_ATTR_CREATE_CQ_EVENT_FD, fd))
    {
        f.optional(s);
    }
    // A timestamp request alone, from a driver that does without the
    // kernel's flag, is not sent (the write() fallback needs the _ex one).
    if flags != 0 && (flags & !CQ_FLAGS_TIMESTAMP_COMPLETION != 0 || cmd_flags & TS_IGNORED_EX == 0)
    {
        f.u32_in(UVERBS_ATTR_CREATE_CQ_FLAGS, flags);
    }
    let skip = EX_HDR + size_of::<ExCreateCq>() - HDR;
    let b = Bufs::new(cmd, cmd_size, resp, resp_size);
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { b.split(skip, size_of::<ExCreateCqResp>()) };
    // SAFETY: the plugin's driver data, live until execute returns.
    unsafe {
        if !di.is_empty() {
            f.ptr_in(UVERBS_ATTR_UHW_IN, di.as_ptr(), di.len());
        }
        if !dout.is_empty() {
            f.ptr_out(UVERBS_ATTR_UHW_OUT, dout.as_mut_ptr(), dout.len());
        }
    }
    // SAFETY: a hosted context; every pointer pushed is live.
    match unsafe { f.execute(ctx) } {
        Ok(()) => {
            // SAFETY: the plugin's new CQ.
            unsafe {
                (*cq).handle = f.read_obj(h);
                (*cq).cqe = resp_cqe as c_int;
                (*cq).context = ctx;
            }
            Ok(())
        }
        Err(e) if e == Errno::ENOTTY || e == Errno::EPROTONOSUPPORT => {
            // No CQ_CREATE method: the write() command, if the chain
            // asks for nothing only the method carries.
            // SAFETY: the plugin's link chain.
            unsafe { ioctl::legacy_fallback(link)? };
            // SAFETY: the plugin's objects and buffers.
            unsafe { create_cq_ex(ctx, attr, vcq, cmd, cmd_size, resp, resp_size, cmd_flags) }
        }
        Err(e) => Err(e),
    }
}
