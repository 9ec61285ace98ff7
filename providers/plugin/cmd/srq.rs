//! The basic SRQ commands: ibv_cmd_create_srq, ibv_cmd_modify_srq,
//! ibv_cmd_query_srq, ibv_cmd_destroy_srq (extended SRQs are in `xrc`).

use super::{drv, drv_in, on, parts, put_resp, wait_acked};
use crate::abi::*;
use crate::context::EventCounts;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;
use crate::uverbs::srq::{CreateSrq, ModifySrq};
use std::ffi::{c_int, c_void};

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn create_srq(
    pd: *mut ibv_pd,
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_init_attr,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, pdh, a) = unsafe { parts(pd, attr)? };
    let req = CreateSrq {
        user_handle: srq as u64,
        pd_handle: pdh,
        max_wr: a.attr.max_wr,
        max_sge: a.attr.max_sge,
        srq_limit: a.attr.srq_limit,
        ..Default::default()
    };
    let core = size_of::<crate::uverbs::srq::CreateSrqResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, size_of::<CreateSrq>(), resp, resp_size, core) };
    let r = with_uverbs(ctx, |u| u.create_srq(&req, di, dout))?;
    a.attr.max_wr = r.max_wr;
    a.attr.max_sge = r.max_sge;
    // SAFETY: the plugin's new SRQ and response buffer.
    unsafe {
        let s = &mut *srq;
        s.handle = r.srq_handle;
        s.context = ctx;
        s.srq_context = a.srq_context;
        s.pd = pd;
        s.events_completed = 0;
        libc::pthread_mutex_init(&mut s.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut s.cond, std::ptr::null());
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

pub(crate) unsafe fn modify_srq(
    srq: *mut ibv_srq,
    attr: *mut ibv_srq_attr,
    mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, h, a) = unsafe { parts(srq, attr)? };
    let req = ModifySrq {
        srq_handle: h,
        attr_mask: mask as u32,
        max_wr: a.max_wr,
        srq_limit: a.srq_limit,
    };
    // SAFETY: the plugin's buffer.
    let di = unsafe { drv_in(cmd, cmd_size, size_of::<ModifySrq>()) };
    with_uverbs(ctx, |u| u.modify_srq(&req, di))
}

pub(crate) unsafe fn query_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, h, a) = unsafe { parts(srq, attr)? };
    let r = with_uverbs(ctx, |u| u.query_srq(h, &[], &mut []))?;
    a.max_wr = r.max_wr;
    a.max_sge = r.max_sge;
    a.srq_limit = r.srq_limit;
    Ok(())
}

pub(crate) unsafe fn destroy_srq(srq: *mut ibv_srq) -> Result<()> {
    let fr = crate::providers::plugin::call::current();
    // SAFETY: an object of the plugin.
    let n = unsafe { on(fr, srq, |u, h| u.destroy_srq(h)) }?;
    wait_acked(fr, srq, EventCounts { comp: 0, async_: n });
    Ok(())
}
