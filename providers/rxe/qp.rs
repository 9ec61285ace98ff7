//! rxe queue pairs: created, modified and queried through the kernel, with
//! the send and receive rings mapped for the data path.
//!
//! The post path is in `post.rs` (`post_send`, `post_recv`) and `wr.rs`
//! (the `ibv_wr_*` ops of an `ibv_qp_ex`).
#![allow(unsafe_code)]

use std::ffi::c_int;
use std::sync::Arc;

use super::lock::SpinLock;
use super::mmap::Mmap;
use super::obj::qp::{Present, QPS, QpState, Rq, Sq, SqInner, state};
use super::queue::ProducerQueue;
use super::wqe::{RECV_WQE_SIZE, SEND_WQE_SIZE};
use crate::abi::*;
use crate::context::generic::qp_attr;
use crate::context::{Context, EventCounts, New, Obj, ObjRef};
use crate::entry::{Errno, Result};
use crate::object::{self, CObject};
use crate::uverbs::Pod;
use crate::uverbs::qp::{CreateQp, ModifyQp, QueryQpResp};
use crate::uverbs::rxe;

const RXE_QP_COMP_MASK_SUP: u32 =
    IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;

const RC_OPS: u64 = (IBV_QP_EX_WITH_RDMA_WRITE
    | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
    | IBV_QP_EX_WITH_SEND
    | IBV_QP_EX_WITH_SEND_WITH_IMM
    | IBV_QP_EX_WITH_RDMA_READ
    | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP
    | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD
    | IBV_QP_EX_WITH_LOCAL_INV
    | IBV_QP_EX_WITH_BIND_MW
    | IBV_QP_EX_WITH_SEND_WITH_INV
    | IBV_QP_EX_WITH_ATOMIC_WRITE
    | IBV_QP_EX_WITH_FLUSH) as u64;
const UC_OPS: u64 = (IBV_QP_EX_WITH_RDMA_WRITE
    | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
    | IBV_QP_EX_WITH_SEND
    | IBV_QP_EX_WITH_SEND_WITH_IMM
    | IBV_QP_EX_WITH_BIND_MW
    | IBV_QP_EX_WITH_SEND_WITH_INV) as u64;
const UD_OPS: u64 = (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM) as u64;

/// rxe's own checks of an `ibv_create_qp_ex` request: EOPNOTSUPP for what it
/// does not do.
pub(super) fn check_ex(a: &ibv_qp_init_attr_ex) -> Result<()> {
    let bad = a.comp_mask & !RXE_QP_COMP_MASK_SUP != 0
        || (a.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS != 0 && a.create_flags != 0)
        || (a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0
            && match a.qp_type {
                ibv_qp_type::IBV_QPT_RC => a.send_ops_flags & !RC_OPS != 0,
                ibv_qp_type::IBV_QPT_UC => a.send_ops_flags & !UC_OPS != 0,
                ibv_qp_type::IBV_QPT_UD => a.send_ops_flags & !UD_OPS != 0,
                _ => true,
            });
    if bad {
        return Err(Errno::EOPNOTSUPP);
    }
    Ok(())
}

/// `ibv_create_qp`: the same path as `ibv_create_qp_ex` with just a PD, the
/// PD already looked up by the caller; capacities are written back.
pub(super) fn create(pd: &Obj, attr: &mut ibv_qp_init_attr) -> Result<New> {
    // SAFETY: plain C data; all-zero is valid.
    let mut ex: ibv_qp_init_attr_ex = unsafe { std::mem::zeroed() };
    ex.qp_context = attr.qp_context;
    ex.send_cq = attr.send_cq;
    ex.recv_cq = attr.recv_cq;
    ex.srq = attr.srq;
    ex.cap = attr.cap;
    ex.qp_type = attr.qp_type;
    ex.sq_sig_all = attr.sq_sig_all;
    ex.comp_mask = IBV_QP_INIT_ATTR_PD;
    ex.pd = pd.c::<ibv_pd>();
    let qp = create_common(&pd.ctx, pd, &mut ex, false)?;
    attr.cap = ex.cap;
    Ok(qp)
}

/// The `create_qp_ex` slot.
pub(super) fn create_ex(ctx: &Arc<Context>, attr: &mut ibv_qp_init_attr_ex) -> Result<New> {
    check_ex(attr)?;
    if attr.comp_mask & IBV_QP_INIT_ATTR_PD == 0 {
        return Err(Errno::EINVAL);
    }
    let pd: ObjRef = object::get(attr.pd)?;
    create_common(ctx, &pd, attr, true)
}

/// A CQ or SRQ named in the attributes: live, of kind `C`, in `ctx`.
fn same_ctx<C: object::KindOf>(ctx: &Arc<Context>, p: *const C) -> Result<ObjRef> {
    let o: ObjRef = object::get(p)?;
    if Arc::ptr_eq(ctx, &o.ctx) {
        Ok(o)
    } else {
        Err(Errno::EINVAL)
    }
}

fn create_common(
    ctx: &Arc<Context>,
    pd: &Obj,
    a: &mut ibv_qp_init_attr_ex,
    ex: bool,
) -> Result<New> {
    match a.qp_type {
        ibv_qp_type::IBV_QPT_RC
        | ibv_qp_type::IBV_QPT_UC
        | ibv_qp_type::IBV_QPT_UD
        | ibv_qp_type::IBV_QPT_RAW_PACKET
        | ibv_qp_type::IBV_QPT_XRC_SEND
        | ibv_qp_type::IBV_QPT_DRIVER => {}
        // XRC_RECV needs an XRC domain, which rxe never accepts (check_ex).
        _ => return Err(Errno::EINVAL),
    }
    if !Arc::ptr_eq(ctx, &pd.ctx) {
        return Err(Errno::EINVAL);
    }
    // rdma-core reads both CQs (it crashes on NULL); we check them.
    let send_cq = same_ctx(ctx, a.send_cq)?;
    let xrc_send = a.qp_type == ibv_qp_type::IBV_QPT_XRC_SEND;
    // One CQ for both queues (the common case): one registry lookup.
    let recv_cq = if (xrc_send && a.recv_cq.is_null()) || a.recv_cq == a.send_cq {
        send_cq.clone()
    } else {
        same_ctx(ctx, a.recv_cq)?
    };
    let srq = match a.srq.is_null() {
        true => None,
        false => Some(same_ctx(ctx, a.srq)?),
    };
    if xrc_send {
        a.cap.max_recv_wr = 0;
        a.cap.max_recv_sge = 0;
    }

    let slot = QPS.vacant();
    let cq_handle = super::obj::cq::handle;
    let srq_handle = match &srq {
        Some(s) => super::srq::state(s)?.handle,
        None => 0,
    };
    let req = CreateQp {
        user_handle: slot.addr().as_ptr() as u64,
        pd_handle: pd.read_c(|c: &ibv_pd| c.handle),
        send_cq_handle: cq_handle(&send_cq)?,
        recv_cq_handle: if xrc_send { 0 } else { cq_handle(&recv_cq)? },
        srq_handle,
        max_send_wr: a.cap.max_send_wr,
        max_recv_wr: a.cap.max_recv_wr,
        max_send_sge: a.cap.max_send_sge,
        max_recv_sge: a.cap.max_recv_sge,
        max_inline_data: a.cap.max_inline_data,
        sq_sig_all: a.sq_sig_all as u8,
        qp_type: a.qp_type.0 as u8,
        is_srq: srq.is_some() as u8,
        ..Default::default()
    };
    let mut drv = rxe::CreateQpResp::default();
    let uv = &ctx.uverbs;
    let r = uv.create_qp(&req, &[], drv.as_bytes_mut())?;
    let undo = |e: Errno| {
        let _ = uv.destroy_qp(r.qp_handle);
        e
    };
    a.cap = ibv_qp_cap {
        max_send_wr: r.max_send_wr,
        max_recv_wr: r.max_recv_wr,
        max_send_sge: r.max_send_sge,
        max_recv_sge: r.max_recv_sge,
        max_inline_data: r.max_inline_data,
    };
    let rq = match &srq {
        Some(_) => None,
        None => Some(Rq {
            queue: SpinLock::new(map(ctx, &drv.rq_mi, RECV_WQE_SIZE).map_err(undo)?),
            // rxe allows 32; a count beyond a u16 could not fit a slot.
            max_sge: u16::try_from(a.cap.max_recv_sge).unwrap_or(u16::MAX),
            present: Present::Yes,
        }),
    };
    let sq = Sq {
        lock: SpinLock::new(SqInner {
            queue: map(ctx, &drv.sq_mi, SEND_WQE_SIZE).map_err(undo)?,
            ssn: 0,
            cur: 0,
            err: 0,
        }),
        max_sge: a.cap.max_send_sge,
        max_inline: a.cap.max_inline_data,
    };
    let st = QpState {
        ctx: ctx.clone(),
        handle: r.qp_handle,
        // The accepted types (checked above) fit a byte.
        qp_type: u8::try_from(a.qp_type.0).map_err(|_| Errno::EINVAL)?,
        sq,
        rq,
        ex,
    };
    // The C struct is set in the slot, not built here and copied.
    // SAFETY: `st` is written whole, the C struct is zeroed (plain C data:
    // pointers, integers, glibc mutex/cond whose all-zero state is their
    // static initializer; all-zero is valid) then set field by field;
    // nothing here unwinds (`set_send_ops` only stores).
    Ok(unsafe {
        slot.fill_in_place(|p| {
            std::ptr::addr_of_mut!((*p).st).write(st);
            let c = std::ptr::addr_of_mut!((*p).c).cast::<ibv_qp_ex>();
            c.write_bytes(0, 1);
            let c = &mut *c;
            if ex && a.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS != 0 {
                super::wr::set_send_ops(c, a.send_ops_flags);
            }
            let b = &mut c.qp_base;
            b.context = ctx.c_ptr();
            b.qp_context = a.qp_context;
            b.pd = a.pd;
            b.send_cq = a.send_cq;
            b.recv_cq = a.recv_cq;
            b.srq = a.srq;
            b.handle = r.qp_handle;
            b.qp_num = r.qpn;
            b.state = ibv_qp_state::IBV_QPS_RESET;
            b.qp_type = a.qp_type;
            b.events_completed = 0;
        })
    })
}

fn map(ctx: &Context, mi: &rxe::MmapInfo, elem: usize) -> Result<ProducerQueue> {
    ProducerQueue::new(Mmap::map(ctx.uverbs.fd(), mi)?, elem)
}

pub(super) fn modify(qp: &Obj, attr: &ibv_qp_attr, mask: c_int) -> Result<()> {
    let mut k = ModifyQp::default();
    qp_attr::modify_fill(&mut k, state(qp)?.handle, attr, mask)?;
    qp.ctx.uverbs.modify_qp(&k, &[])
}

/// Fills exactly the fields rdma-core's query fills; the rest of `attr` is
/// left as the caller had it.
pub(super) fn query(
    qp: &Obj,
    attr: &mut ibv_qp_attr,
    mask: c_int,
    init: &mut ibv_qp_init_attr,
) -> Result<()> {
    let m = qp_attr::legacy_mask(mask)?;
    let st = state(qp)?;
    let r: QueryQpResp = qp.ctx.uverbs.query_qp(st.handle, m, &[], &mut [])?;
    let (cap, sq_sig_all) = qp_attr::query_into(&r, attr);
    let c = qp.read_c(|c: &ibv_qp| *c);
    init.qp_context = c.qp_context;
    init.send_cq = c.send_cq;
    init.recv_cq = c.recv_cq;
    init.srq = c.srq;
    init.qp_type = c.qp_type;
    init.cap = cap;
    init.sq_sig_all = sq_sig_all;
    Ok(())
}

pub(super) fn destroy(qp: &Obj) -> Result<EventCounts> {
    let n = qp.ctx.uverbs.destroy_qp(state(qp)?.handle)?;
    Ok(EventCounts { comp: 0, async_: n })
}

pub(super) fn qp_ex(qp: &Obj) -> Option<*mut ibv_qp_ex> {
    state(qp).ok().filter(|s| s.ex).map(|_| qp.c::<ibv_qp_ex>())
}
