//! The basic SRQ commands: ibv_cmd_create_srq, ibv_cmd_modify_srq,
//! ibv_cmd_query_srq, ibv_cmd_destroy_srq (extended SRQs are in `xrc`).

use super::{Bufs, Live, on, wait_acked};
use crate::abi::*;
use crate::context::EventCounts;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;
use crate::uverbs::srq::{CreateSrq, ModifySrq};
use std::ffi::c_int;

pub(crate) fn create_srq(
    pd: Live<ibv_pd>,
    s: &mut ibv_srq,
    a: &mut ibv_srq_init_attr,
    mut b: Bufs,
) -> Result<()> {
    let (ctx, pdh) = pd.parts();
    let req = CreateSrq {
        user_handle: std::ptr::from_mut(s) as u64,
        pd_handle: pdh,
        max_wr: a.attr.max_wr,
        max_sge: a.attr.max_sge,
        srq_limit: a.attr.srq_limit,
        ..Default::default()
    };
    let core = size_of::<crate::uverbs::srq::CreateSrqResp>();
    let (di, dout) = b.split(size_of::<CreateSrq>(), core);
    let r = with_uverbs(ctx, |u| u.create_srq(&req, di, dout))?;
    a.attr.max_wr = r.max_wr;
    a.attr.max_sge = r.max_sge;
    s.handle = r.srq_handle;
    s.context = ctx;
    s.srq_context = a.srq_context;
    s.pd = pd.ptr();
    s.events_completed = 0;
    // SAFETY: the new SRQ's own mutex and condition.
    unsafe {
        libc::pthread_mutex_init(&mut s.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut s.cond, std::ptr::null());
    }
    b.put(&r);
    Ok(())
}

pub(crate) fn modify_srq(
    srq: Live<ibv_srq>,
    a: &mut ibv_srq_attr,
    mask: c_int,
    b: Bufs,
) -> Result<()> {
    let (ctx, h) = srq.parts();
    let req = ModifySrq {
        srq_handle: h,
        attr_mask: mask as u32,
        max_wr: a.max_wr,
        srq_limit: a.srq_limit,
    };
    let di = b.drv_in(size_of::<ModifySrq>());
    with_uverbs(ctx, |u| u.modify_srq(&req, di))
}

pub(crate) fn query_srq(srq: Live<ibv_srq>, a: &mut ibv_srq_attr, _: Bufs) -> Result<()> {
    let (ctx, h) = srq.parts();
    let r = with_uverbs(ctx, |u| u.query_srq(h, &[], &mut []))?;
    a.max_wr = r.max_wr;
    a.max_sge = r.max_sge;
    a.srq_limit = r.srq_limit;
    Ok(())
}

pub(crate) fn destroy_srq(srq: Live<ibv_srq>) -> Result<()> {
    let fr = crate::providers::plugin::call::current();
    let n = on(fr, srq, |u, h| u.destroy_srq(h))?;
    wait_acked(fr, srq.ptr(), EventCounts { comp: 0, async_: n });
    Ok(())
}
