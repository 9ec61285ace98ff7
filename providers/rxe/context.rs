//! An open rxe context: the verbs rxe implements, over the kernel's uverbs.

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use super::{cq, qp, srq};
use crate::abi::*;
use crate::context::generic::{self, device::fw_ver_triplet};
use crate::context::{Context, ContextOps, EventCounts, New, Obj, ObjRef};
use crate::device::copy_c_str;
use crate::entry::Result;

#[derive(Default)]
pub(super) struct RxeContext {}

impl RxeContext {
    /// Sets the op slots rxe implements itself (data path); the rest keep the
    /// library's dispatchers (to the ContextOps below) or dummies.
    pub(super) fn fill_ops(v: &mut verbs_context) {
        use super::{poll, post};
        // The data path: called by verbs.h inline code with C's pointers.
        // Tracing is set once at load: with it off, the slots get the
        // verbs without the per-call trace check.
        let ops = &mut v.context.ops;
        if crate::entry::trace_level() == 0 {
            ops.post_send = Some(post::post_send_untraced);
            ops.post_recv = Some(post::post_recv_untraced);
            ops.post_srq_recv = Some(post::post_srq_recv_untraced);
            ops.poll_cq = Some(poll::poll_cq_untraced);
        } else {
            ops.post_send = Some(post::post_send);
            ops.post_recv = Some(post::post_recv);
            ops.post_srq_recv = Some(post::post_srq_recv);
            ops.poll_cq = Some(poll::poll_cq);
        }
        ops.bind_mw = Some(post::bind_mw);
    }
}

/// rxe's query_device: the generic query, with the firmware version printed
/// as "major.minor.sub_minor".
fn rxe_query_device(ctx: &Context, attr: &mut ibv_device_attr_ex, attr_size: usize) -> Result<()> {
    let mut resp = Default::default();
    generic::device::query_device_any(ctx, attr, attr_size, &mut resp)?;
    copy_c_str(
        &mut attr.orig_attr.fw_ver,
        fw_ver_triplet(resp.base.fw_ver).as_str(),
    );
    Ok(())
}

impl ContextOps for RxeContext {
    // ---- context-level verbs: queries, GIDs, P_Keys, events, channels ----
    fn query_device(&self, ctx: &Context, attr: &mut ibv_device_attr) -> Result<()> {
        let mut full = generic::device::zeroed_attr_ex();
        rxe_query_device(ctx, &mut full, size_of::<ibv_device_attr>())?;
        *attr = full.orig_attr;
        Ok(())
    }
    fn query_device_ex(
        &self,
        ctx: &Context,
        attr: &mut ibv_device_attr_ex,
        attr_size: usize,
    ) -> Result<()> {
        rxe_query_device(ctx, attr, attr_size)
    }
    fn query_port(&self, ctx: &Context, port: u8, attr: &mut ibv_port_attr) -> Result<()> {
        generic::port::query_port(ctx, port, attr)
    }
    // ---- end of context-level verbs ----
    // ---- PD, MR, MW, AH, multicast (pdmr) ----
    fn alloc_pd(&self, ctx: &Arc<Context>) -> Result<New> {
        generic::pd::alloc(ctx, &[], &mut [])
    }
    fn dealloc_pd(&self, pd: &Obj) -> Result<()> {
        generic::pd::dealloc(pd)
    }
    fn reg_mr(&self, pd: &Obj, addr: usize, len: usize, iova: u64, access: u32) -> Result<New> {
        generic::mr::reg_kernel(pd, addr, len, iova, access, &[], &mut [])
    }
    fn dereg_mr(&self, mr: &Obj) -> Result<()> {
        generic::mr::dereg_kernel(mr)
    }
    fn alloc_mw(&self, pd: &Obj, ty: ibv_mw_type) -> Result<New> {
        generic::mw::alloc(pd, ty, &[], &mut [])
    }
    fn dealloc_mw(&self, mw: &Obj) -> Result<()> {
        generic::mw::dealloc(mw)
    }
    fn create_ah(&self, pd: &Obj, attr: &ibv_ah_attr) -> Result<New> {
        super::ah::create(pd, attr)
    }
    fn destroy_ah(&self, ah: &Obj) -> Result<()> {
        super::ah::destroy(ah)
    }
    fn attach_mcast(&self, qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
        generic::mcast::attach(qp, gid, lid)
    }
    fn detach_mcast(&self, qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
        generic::mcast::detach(qp, gid, lid)
    }
    // ---- end pdmr ----
    // ---- CQ, QP, SRQ (branch qp) ----
    fn create_cq(
        &self,
        ctx: &Arc<Context>,
        cqe: c_int,
        cq_context: *mut c_void,
        channel: Option<ObjRef>,
        comp_vector: c_int,
    ) -> Result<New> {
        let a = cq::CqArgs {
            cqe,
            cq_context,
            channel,
            comp_vector,
            flags: 0,
            ex: None,
        };
        cq::create(ctx, a)
    }
    fn create_cq_ex(
        &self,
        ctx: &Arc<Context>,
        attr: &ibv_cq_init_attr_ex,
        channel: Option<ObjRef>,
    ) -> Result<New> {
        let a = cq::CqArgs {
            flags: cq::ex_flags(attr)?,
            cqe: attr.cqe as c_int,
            cq_context: attr.cq_context,
            channel,
            comp_vector: attr.comp_vector as c_int,
            ex: Some(attr.wc_flags),
        };
        cq::create(ctx, a)
    }
    fn resize_cq(&self, c: &Obj, cqe: c_int) -> Result<()> {
        cq::resize(c, cqe)
    }
    fn destroy_cq(&self, c: &Obj) -> Result<EventCounts> {
        cq::destroy(c)
    }
    fn req_notify_cq(&self, c: &Obj, solicited_only: bool) -> Result<()> {
        cq::req_notify(c, solicited_only)
    }
    fn create_qp(&self, pd: &Obj, attr: &mut ibv_qp_init_attr) -> Result<New> {
        qp::create(pd, attr)
    }
    fn create_qp_ex(&self, ctx: &Arc<Context>, attr: &mut ibv_qp_init_attr_ex) -> Result<New> {
        qp::create_ex(ctx, attr)
    }
    fn modify_qp(&self, q: &Obj, attr: &mut ibv_qp_attr, mask: c_int) -> Result<()> {
        qp::modify(q, attr, mask)
    }
    fn query_qp(
        &self,
        q: &Obj,
        attr: &mut ibv_qp_attr,
        mask: c_int,
        init: &mut ibv_qp_init_attr,
    ) -> Result<()> {
        qp::query(q, attr, mask, init)
    }
    fn destroy_qp(&self, q: &Obj) -> Result<EventCounts> {
        qp::destroy(q)
    }
    fn qp_ex(&self, q: &Obj) -> Option<*mut ibv_qp_ex> {
        qp::qp_ex(q)
    }
    fn create_srq(&self, pd: &Obj, attr: &mut ibv_srq_init_attr) -> Result<New> {
        srq::create(pd, attr)
    }
    fn create_srq_ex(&self, ctx: &Arc<Context>, attr: &mut ibv_srq_init_attr_ex) -> Result<New> {
        srq::create_ex(ctx, attr)
    }
    fn modify_srq(&self, s: &Obj, attr: &ibv_srq_attr, mask: c_int) -> Result<()> {
        srq::modify(s, attr, mask)
    }
    fn query_srq(&self, s: &Obj, attr: &mut ibv_srq_attr) -> Result<()> {
        srq::query(s, attr)
    }
    fn destroy_srq(&self, s: &Obj) -> Result<EventCounts> {
        srq::destroy(s)
    }
    // ---- end CQ, QP, SRQ ----
}
