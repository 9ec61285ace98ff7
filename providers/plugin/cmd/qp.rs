//! The QP commands: ibv_cmd_create_qp, ibv_cmd_create_qp_ex2,
//! ibv_cmd_modify_qp, ibv_cmd_query_qp, ibv_cmd_destroy_qp, and the request
//! building the extended creates share.

use super::{Bufs, EX_HDR, HDR, Live, on, wait_acked};
use crate::abi::*;
use crate::context::{Context, EventCounts, generic};
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::object;
use crate::object::Kind;
use crate::providers::plugin::context::with_uverbs;
use crate::uverbs::qp::CreateQp;
use std::ffi::c_int;

/// The core fields rdma-core sets on a new QP.
pub(super) fn init_qp(
    q: &mut ibv_qp,
    ctx: *mut ibv_context,
    a: &ibv_qp_init_attr,
    pd: *mut ibv_pd,
    handle: u32,
    qpn: u32,
) {
    q.handle = handle;
    q.qp_num = qpn;
    q.context = ctx;
    q.qp_context = a.qp_context;
    q.pd = pd;
    q.send_cq = a.send_cq;
    q.recv_cq = a.recv_cq;
    q.srq = a.srq;
    q.qp_type = a.qp_type;
    q.state = ibv_qp_state::IBV_QPS_RESET;
    q.events_completed = 0;
    // SAFETY: the new QP's own mutex and condition.
    unsafe {
        libc::pthread_mutex_init(&mut q.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut q.cond, std::ptr::null());
    }
}

/// The kernel handle of a CQ or SRQ argument (0 for NULL); EINVAL unless it
/// is a live object in the registry.
fn handle_of<T>(p: *mut T, kind: Kind) -> Result<u32> {
    if p.is_null() {
        return Ok(0);
    }
    match kind {
        // The hosted context's objects are all in the registry's map.
        Kind::Cq => object::read_mapped::<ibv_cq, Context, _>(p.cast(), |c| c.handle),
        Kind::Srq => object::read_mapped::<ibv_srq, Context, _>(p.cast(), |c| c.handle),
        _ => Err(Errno::EINVAL),
    }
}

/// The CREATE_QP request for `a` (the caller's CQs and SRQ checked).
#[inline(always)]
pub(super) fn qp_req(a: &ibv_qp_init_attr, user_handle: u64, pd_handle: u32) -> Result<CreateQp> {
    let send = handle_of(a.send_cq, Kind::Cq)?;
    Ok(CreateQp {
        user_handle,
        pd_handle,
        send_cq_handle: send,
        // Most QPs share one CQ: one lookup.
        recv_cq_handle: if a.recv_cq == a.send_cq {
            send
        } else {
            handle_of(a.recv_cq, Kind::Cq)?
        },
        srq_handle: handle_of(a.srq, Kind::Srq)?,
        max_send_wr: a.cap.max_send_wr,
        max_recv_wr: a.cap.max_recv_wr,
        max_send_sge: a.cap.max_send_sge,
        max_recv_sge: a.cap.max_recv_sge,
        max_inline_data: a.cap.max_inline_data,
        sq_sig_all: a.sq_sig_all as u8,
        qp_type: a.qp_type.0 as u8,
        is_srq: (!a.srq.is_null()) as u8,
        ..Default::default()
    })
}

/// The capacities the kernel granted, back into the caller's attributes.
pub(super) fn set_caps(cap: &mut ibv_qp_cap, r: &crate::uverbs::qp::CreateQpResp) {
    cap.max_send_wr = r.max_send_wr;
    cap.max_recv_wr = r.max_recv_wr;
    cap.max_send_sge = r.max_send_sge;
    cap.max_recv_sge = r.max_recv_sge;
    cap.max_inline_data = r.max_inline_data;
}

/// The basic attributes of an extended set.
pub(super) fn init_of(a: &ibv_qp_init_attr_ex) -> ibv_qp_init_attr {
    ibv_qp_init_attr {
        qp_context: a.qp_context,
        send_cq: a.send_cq,
        recv_cq: a.recv_cq,
        srq: a.srq,
        cap: a.cap,
        qp_type: a.qp_type,
        sq_sig_all: a.sq_sig_all,
    }
}

#[inline]
pub(crate) fn create_qp(
    pd: Live<ibv_pd>,
    qp: &mut ibv_qp,
    a: &mut ibv_qp_init_attr,
    mut b: Bufs,
) -> Result<()> {
    let (ctx, pdh) = pd.parts();
    let req = qp_req(a, std::ptr::from_mut(qp) as u64, pdh)?;
    let core = size_of::<crate::uverbs::qp::CreateQpResp>();
    let (di, dout) = b.split(size_of::<CreateQp>(), core);
    let r = with_uverbs(ctx, |u| u.create_qp(&req, di, dout))?;
    set_caps(&mut a.cap, &r);
    init_qp(qp, ctx, a, pd.ptr(), r.qp_handle, r.qpn);
    b.put(&r);
    Ok(())
}

#[inline]
pub(crate) fn modify_qp(qp: Live<ibv_qp>, a: &mut ibv_qp_attr, mask: c_int, b: Bufs) -> Result<()> {
    let (ctx, h) = qp.parts();
    // Built in place (see modify_fill).
    let mut req = crate::uverbs::qp::ModifyQp::default();
    generic::qp_attr::modify_fill(&mut req, h, a, mask)?;
    let di = b.drv_in(size_of_val(&req));
    // The QP's state is the verb's to set (ibv_modify_qp, after the
    // plugin's op), as with rdma-core's ibv_cmd_modify_qp.
    with_uverbs(ctx, |u| u.modify_qp(&req, di))
}

pub(crate) fn query_qp(
    qp: Live<ibv_qp>,
    a: &mut ibv_qp_attr,
    mask: c_int,
    i: &mut ibv_qp_init_attr,
    _: Bufs,
) -> Result<()> {
    let (ctx, h) = qp.parts();
    let m = generic::qp_attr::legacy_mask(mask)?;
    let r = with_uverbs(ctx, |u| u.query_qp(h, m, &[], &mut []))?;
    let (cap, sig) = generic::qp_attr::query_into(&r, a);
    let q = qp.ptr();
    // SAFETY: a live QP of the plugin; fields it set at creation, read
    // through its pointer.
    unsafe {
        i.qp_context = (*q).qp_context;
        i.send_cq = (*q).send_cq;
        i.recv_cq = (*q).recv_cq;
        i.srq = (*q).srq;
        i.qp_type = (*q).qp_type;
    }
    i.cap = cap;
    i.sq_sig_all = sig;
    Ok(())
}

#[inline]
pub(crate) fn destroy_qp(qp: Live<ibv_qp>) -> Result<()> {
    let fr = crate::providers::plugin::call::current();
    let n = on(fr, qp, |u, h| u.destroy_qp(h))?;
    wait_acked(fr, qp.ptr(), EventCounts { comp: 0, async_: n });
    Ok(())
}

pub(crate) fn create_qp_ex2(
    ctx: *mut ibv_context,
    vqp: &mut verbs_qp,
    a: &mut ibv_qp_init_attr_ex,
    mut b: Bufs,
) -> Result<()> {
    let mask = |bit: ibv_qp_init_attr_mask| a.comp_mask & bit.0 != 0;
    if mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_XRCD) {
        // XRC QPs are not hosted yet.
        return Err(Errno::EOPNOTSUPP);
    }
    if !mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_PD) {
        // A QP other than an XRC target needs its PD, as rdma-core checks.
        return Err(Errno::EINVAL);
    }
    object::get::<ibv_pd, Context>(a.pd)?;
    // SAFETY: a live PD of the plugin (checked just above).
    let pdh = unsafe { (*a.pd).handle };
    let c = qp_req(&init_of(a), std::ptr::from_mut(vqp) as u64, pdh)?;
    let req = crate::uverbs::qp::ExCreateQp {
        user_handle: c.user_handle,
        pd_handle: c.pd_handle,
        send_cq_handle: c.send_cq_handle,
        recv_cq_handle: c.recv_cq_handle,
        srq_handle: c.srq_handle,
        max_send_wr: c.max_send_wr,
        max_recv_wr: c.max_recv_wr,
        max_send_sge: c.max_send_sge,
        max_recv_sge: c.max_recv_sge,
        max_inline_data: c.max_inline_data,
        sq_sig_all: c.sq_sig_all,
        qp_type: c.qp_type,
        is_srq: c.is_srq,
        create_flags: if mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_CREATE_FLAGS) {
            a.create_flags
        } else {
            0
        },
        ..Default::default()
    };
    let skip = EX_HDR + size_of::<crate::uverbs::qp::ExCreateQp>() - HDR;
    let (di, dout) = b.split(skip, size_of::<crate::uverbs::qp::ExCreateQpResp>());
    let r = with_uverbs(ctx, |u| u.create_qp_ex(&req, di, dout))?.base;
    set_caps(&mut a.cap, &r);
    let init = init_of(a);
    init_qp(&mut vqp.qp_ex.qp_base, ctx, &init, a.pd, r.qp_handle, r.qpn);
    vqp.comp_mask = if mask(ibv_qp_init_attr_mask::IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
        1 << 1
    } else {
        0
    };
    vqp.xrcd = std::ptr::null_mut();
    Ok(())
}
