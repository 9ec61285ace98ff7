//! The CQ commands: create (plain and extended), destroy, resize, modify,
//! notify; and ibv_cmd_create_cq_ex2 (rdma-core 55, IBVERBS_PRIVATE_34):
//! the extended create with the driver's own attributes (mlx5's UAR index),
//! sent as the CQ_CREATE method with the driver's chain behind our
//! attributes, as rdma-core builds it; the write() command when the kernel
//! has no such method and the chain asks for nothing it cannot carry.

use super::{Bufs, EX_HDR, HDR, Live, async_fd_of, on, wait_acked};
use crate::abi::*;
use crate::context::EventCounts;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::{with_uverbs, with_uverbs_in};
use crate::providers::plugin::frame::Frame;
use crate::providers::plugin::ioctl;
use crate::uverbs::cq::CqCreate;
use crate::uverbs::cq::{CQ_FLAGS_TIMESTAMP_COMPLETION, ExCreateCq, ExCreateCqResp};
use crate::uverbs::ids::*;
use std::ffi::c_int;

pub(crate) fn create_cq(
    ctx: *mut ibv_context,
    cqe: c_int,
    channel: Option<&ibv_comp_channel>,
    vector: c_int,
    cq: &mut ibv_cq,
    mut b: Bufs,
) -> Result<()> {
    let fr = crate::providers::plugin::call::current();
    let a = CqCreate {
        cqe: cqe as u32,
        user_handle: std::ptr::from_mut(cq) as u64,
        comp_channel: channel.map(|ch| ch.fd),
        comp_vector: vector as u32,
        async_fd: async_fd_of(fr, ctx),
        ..Default::default()
    };
    let core = size_of::<crate::uverbs::cq::CreateCqResp>();
    let (di, dout) = b.split(size_of::<crate::uverbs::cq::CreateCq>(), core);
    let r = with_uverbs_in(fr, ctx, |u| u.create_cq(&a, di, dout))?;
    cq.handle = r.cq_handle;
    cq.cqe = r.cqe as c_int;
    cq.context = ctx;
    b.put(&crate::uverbs::cq::CreateCqResp {
        cq_handle: r.cq_handle,
        cqe: r.cqe,
    });
    Ok(())
}

pub(crate) fn destroy_cq(cq: Live<ibv_cq>) -> Result<()> {
    let fr = crate::providers::plugin::call::current();
    let r = on(fr, cq, |u, h| u.destroy_cq(h))?;
    wait_acked(
        fr,
        cq.ptr(),
        EventCounts {
            comp: r.comp_events_reported,
            async_: r.async_events_reported,
        },
    );
    Ok(())
}

pub(crate) fn resize_cq(cq: Live<ibv_cq>, cqe: c_int, mut b: Bufs) -> Result<()> {
    let (ctx, h) = cq.parts();
    // After the header: ib_uverbs_resize_cq's 16 bytes; the response's 8.
    let (di, dout) = b.split(16, 8);
    let n = with_uverbs(ctx, |u| u.resize_cq(h, cqe as u32, di, dout))?;
    // SAFETY: a live CQ of the plugin, its size written as rdma-core does.
    unsafe { (*cq.ptr()).cqe = n as c_int };
    b.put(&[n, 0u32]);
    Ok(())
}

/// ibv_cmd_modify_cq: CQ moderation (the extended MODIFY_CQ write() command).
pub(crate) fn modify_cq(cq: Live<ibv_cq>, a: &mut ibv_modify_cq_attr, b: Bufs) -> Result<()> {
    let (ctx, h) = cq.parts();
    if a.attr_mask >= ibv_cq_attr_mask::IBV_CQ_ATTR_RESERVED.0 {
        return Err(Errno::EINVAL);
    }
    let req = crate::uverbs::cq::ExModifyCq {
        cq_handle: h,
        attr_mask: a.attr_mask,
        attr: crate::uverbs::cq::CqModeration {
            cq_count: a.moderate.cq_count,
            cq_period: a.moderate.cq_period,
        },
        reserved: 0,
    };
    // struct ibv_modify_cq: both headers, core, its data.
    let di = b.drv_in(EX_HDR - HDR + size_of_val(&req));
    with_uverbs(ctx, |u| u.modify_cq(&req, di))
}

pub(crate) fn req_notify_cq(cq: Live<ibv_cq>, solicited: c_int) -> Result<()> {
    on(crate::providers::plugin::call::current(), cq, |u, h| {
        u.req_notify_cq(h, solicited != 0)
    })
}

/// As rdma-core: comp_mask bits beyond FLAGS and PD are refused; the
/// timestamp (device or wall clock) and ignore-overrun requests become
/// kernel CQ flags.
fn cq_ex_flags(a: &ibv_cq_init_attr_ex) -> Result<u32> {
    const MASK_FLAGS: u32 = 1 << 0;
    const MASK_PD: u32 = 1 << 1;
    if a.comp_mask & !(MASK_FLAGS | MASK_PD) != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let mut flags = 0;
    if a.wc_flags & ((1 << 7) | (1 << 11)) != 0 {
        flags |= crate::uverbs::cq::CQ_FLAGS_TIMESTAMP_COMPLETION;
    }
    if a.comp_mask & MASK_FLAGS != 0 && a.flags & (1 << 1) != 0 {
        flags |= 1 << 1;
    }
    Ok(flags)
}

pub(crate) fn create_cq_ex(
    ctx: *mut ibv_context,
    a: &ibv_cq_init_attr_ex,
    vcq: &mut verbs_cq,
    mut b: Bufs,
    _cmd_flags: u32,
) -> Result<()> {
    let fr = crate::providers::plugin::call::current();
    let flags = cq_ex_flags(a)?;
    // Fields added to CqCreate later default to zero.
    #[allow(clippy::needless_update)]
    let args = CqCreate {
        flags,
        flags_need_ex: flags != 0,
        cqe: a.cqe,
        user_handle: std::ptr::from_mut(vcq) as u64,
        // SAFETY: a channel the library checked (or NULL).
        comp_channel: unsafe { a.channel.as_ref() }.map(|ch| ch.fd),
        comp_vector: a.comp_vector,
        async_fd: async_fd_of(fr, ctx),
        ..Default::default()
    };
    let skip = EX_HDR + size_of::<crate::uverbs::cq::ExCreateCq>() - HDR;
    let (di, dout) = b.split(skip, size_of::<crate::uverbs::cq::ExCreateCqResp>());
    let r = with_uverbs_in(fr, ctx, |u| u.create_cq(&args, di, dout))?;
    set_cq(vcq, ctx, r.cq_handle, r.cqe);
    Ok(())
}

/// What a created CQ records of the kernel's answer.
fn set_cq(vcq: &mut verbs_cq, ctx: *mut ibv_context, handle: u32, cqe: u32) {
    let cq = &mut vcq.cq_ex;
    cq.handle = handle;
    cq.cqe = cqe as c_int;
    cq.context = ctx;
}

/// `CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX`: the driver takes a timestamp
/// request without the kernel's flag.
const TS_IGNORED_EX: u32 = 1 << 0;

/// `create_cq_cmd_flags` of rdma-core 65: the CQ's memory is the
/// provider's, at a virtual address or in a dma-buf.
const WITH_MEM_VA: u32 = 1 << 1;
const WITH_MEM_DMABUF: u32 = 1 << 2;

/// A CQ buffer the provider gives (rdma-core 65's `prov_attr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CqBuf {
    Va { addr: u64, length: u64 },
    Dmabuf { fd: c_int, offset: u64, length: u64 },
}

/// The buffer `cmd_flags` asks for, read from `prov`: EINVAL if it asks
/// and there is none; the address form wins if both are asked, as 65.
pub(crate) fn cq_buf(
    cmd_flags: u32,
    prov: Option<&crate::driver_abi::v65::verbs_create_cq_prov_attr>,
) -> Result<Option<CqBuf>> {
    if cmd_flags & (WITH_MEM_VA | WITH_MEM_DMABUF) == 0 {
        return Ok(None);
    }
    let [length, word, fd] = prov.ok_or(Errno::EINVAL)?.buffer;
    Ok(Some(if cmd_flags & WITH_MEM_VA != 0 {
        CqBuf::Va { addr: word, length }
    } else {
        CqBuf::Dmabuf {
            fd: fd as u32 as c_int,
            offset: word,
            length,
        }
    }))
}

pub(crate) fn create_cq_ex2(
    ctx: *mut ibv_context,
    a: &ibv_cq_init_attr_ex,
    vcq: &mut verbs_cq,
    b: Bufs,
    cmd_flags: u32,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    create_cq_ex_buf(ctx, a, None, vcq, b, cmd_flags, link)
}

/// rdma-core 65's ibv_cmd_create_cq_ex: [`create_cq_ex2_65`] without a chain.
pub(crate) fn create_cq_ex_65(
    ctx: *mut ibv_context,
    a: &ibv_cq_init_attr_ex,
    prov: Option<&crate::driver_abi::v65::verbs_create_cq_prov_attr>,
    vcq: &mut verbs_cq,
    b: Bufs,
    cmd_flags: u32,
) -> Result<()> {
    create_cq_ex2_65(ctx, a, prov, vcq, b, cmd_flags, std::ptr::null_mut())
}

/// rdma-core 65's ibv_cmd_create_cq_ex2: with the provider's CQ buffer if
/// `cmd_flags` asks for one (then only the CQ_CREATE method carries it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn create_cq_ex2_65(
    ctx: *mut ibv_context,
    a: &ibv_cq_init_attr_ex,
    prov: Option<&crate::driver_abi::v65::verbs_create_cq_prov_attr>,
    vcq: &mut verbs_cq,
    b: Bufs,
    cmd_flags: u32,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    let buf = cq_buf(cmd_flags, prov)?;
    create_cq_ex_buf(ctx, a, buf, vcq, b, cmd_flags, link)
}

/// ibv_cmd_create_cq_ex2, with the provider's CQ buffer (rdma-core 65),
/// which only the CQ_CREATE method carries (EOPNOTSUPP from a kernel
/// without it or its buffer attributes, as rdma-core's fallback answers).
/// `link` is the plugin's chain (NULL for none), walked by
/// [`ioctl`](crate::providers::plugin::ioctl).
fn create_cq_ex_buf(
    ctx: *mut ibv_context,
    a: &ibv_cq_init_attr_ex,
    buf: Option<CqBuf>,
    vcq: &mut verbs_cq,
    mut b: Bufs,
    cmd_flags: u32,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the plugin's link chain.
    if buf.is_none() && unsafe { ioctl::chained_attrs(link)? } == 0 {
        // Nothing beyond what ibv_cmd_create_cq_ex sends.
        return create_cq_ex(ctx, a, vcq, b, cmd_flags);
    }
    let fr = crate::providers::plugin::call::current();
    let flags = cq_ex_flags(a)?;
    let mut resp_cqe = 0u32;
    // SAFETY: the plugin's link chain.
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, 13, link)? };
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
    f.u64_in(
        UVERBS_ATTR_CREATE_CQ_USER_HANDLE,
        std::ptr::from_mut(vcq) as u64,
    );
    // SAFETY: a channel the library checked (or NULL).
    if let Some(ch) = unsafe { a.channel.as_ref() } {
        f.fd_in(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, ch.fd);
    }
    f.u32_in(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, a.comp_vector);
    match buf {
        Some(CqBuf::Va { addr, length }) => {
            f.u64_in(UVERBS_ATTR_CREATE_CQ_BUFFER_VA, addr);
            f.u64_in(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, length);
        }
        Some(CqBuf::Dmabuf { fd, offset, length }) => {
            f.fd_in(UVERBS_ATTR_CREATE_CQ_BUFFER_FD, fd);
            f.u64_in(UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, offset);
            f.u64_in(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, length);
        }
        None => {}
    }
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
    let (di, dout) = b.split(skip, size_of::<ExCreateCqResp>());
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
            set_cq(vcq, ctx, f.read_obj(h), resp_cqe);
            Ok(())
        }
        Err(e) if e == Errno::ENOTTY || e == Errno::EPROTONOSUPPORT => {
            // No CQ_CREATE method: the write() command, if the chain
            // asks for nothing only the method carries.
            if buf.is_some() {
                return Err(Errno::EOPNOTSUPP);
            }
            // SAFETY: the plugin's link chain.
            unsafe { ioctl::legacy_fallback(link)? };
            create_cq_ex(ctx, a, vcq, b, cmd_flags)
        }
        Err(e) => Err(e),
    }
}
