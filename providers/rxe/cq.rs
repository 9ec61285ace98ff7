//! rxe completion queues: the kernel's CQ ring mapped for polling.
//!
//! The poll path (`poll_cq`, `ibv_start_poll` and the `ibv_cq_ex` readers)
//! is in `poll.rs`.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::os::fd::AsRawFd;
use std::sync::Arc;

use super::mmap::Mmap;
use super::obj::cq::{CQS, CqState, RxeCq, handle, state};
use super::queue::ConsumerQueue;
use super::wqe::CQE_SIZE;
use crate::abi::*;
use crate::context::{Context, EventCounts, New, Obj, ObjRef};
use crate::entry::{Errno, Result};
use crate::object::CObject;
use crate::uverbs::Pod;
use crate::uverbs::cq::{CQ_FLAGS_TIMESTAMP_COMPLETION, CqCreate};
use crate::uverbs::rxe;

/// The wc_flags rxe's `ibv_cq_ex` can report (the standard ones).
const RXE_SUP_WC_FLAGS: u64 = IBV_WC_EX_WITH_BYTE_LEN as u64
    | IBV_WC_EX_WITH_IMM as u64
    | IBV_WC_EX_WITH_QP_NUM as u64
    | IBV_WC_EX_WITH_SRC_QP as u64
    | IBV_WC_EX_WITH_SLID as u64
    | IBV_WC_EX_WITH_SL as u64
    | IBV_WC_EX_WITH_DLID_PATH_BITS as u64;

/// `IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN`
const CQ_FLAGS_IGNORE_OVERRUN: u32 = 1 << 1;

pub(super) struct CqArgs {
    pub cqe: c_int,
    pub cq_context: *mut c_void,
    pub channel: Option<ObjRef>,
    pub comp_vector: c_int,
    /// IB_UVERBS_CQ_FLAGS_*
    pub flags: u32,
    /// `Some(wc_flags)` for ibv_create_cq_ex.
    pub ex: Option<u64>,
}

/// ibv_create_cq_ex's checks, in rdma-core's order; returns the kernel flags.
pub(super) fn ex_flags(attr: &ibv_cq_init_attr_ex) -> Result<u32> {
    if attr.wc_flags & !RXE_SUP_WC_FLAGS != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let known = IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD;
    if attr.comp_mask & !known != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let mut flags = 0;
    let ts = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP as u64
        | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK as u64;
    if attr.wc_flags & ts != 0 {
        flags |= CQ_FLAGS_TIMESTAMP_COMPLETION;
    }
    if attr.comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS != 0
        && attr.flags & IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN != 0
    {
        flags |= CQ_FLAGS_IGNORE_OVERRUN;
    }
    Ok(flags)
}

pub(super) fn create(ctx: &Arc<Context>, a: CqArgs) -> Result<New> {
    let slot = CQS.vacant();
    let comp_channel = a
        .channel
        .as_ref()
        .map(|ch| ch.read_c(|c: &ibv_comp_channel| c.fd));
    let req = CqCreate {
        cqe: a.cqe as u32,
        user_handle: slot.addr().as_ptr() as u64,
        comp_channel,
        comp_vector: a.comp_vector as u32,
        flags: a.flags,
        async_fd: Some(ctx.async_fd.as_raw_fd()),
        flags_need_ex: false,
    };
    let mut resp = rxe::CreateCqResp::default();
    let made = ctx.uverbs.create_cq(&req, &[], resp.as_bytes_mut())?;
    let queue = Mmap::map(ctx.uverbs.fd(), &resp.mi)
        .and_then(|m| ConsumerQueue::new(m, CQE_SIZE))
        .inspect_err(|_| {
            let _ = ctx.uverbs.destroy_cq(made.cq_handle);
        })?;
    // SAFETY: plain C data (nullable pointers, integers, glibc mutex/cond
    // whose all-zero state is their static initializer).
    let mut c: ibv_cq_ex = unsafe { std::mem::zeroed() };
    c.context = ctx.c_ptr();
    c.channel = a
        .channel
        .as_ref()
        .map_or(std::ptr::null_mut(), |ch| ch.c::<ibv_comp_channel>());
    c.cq_context = a.cq_context;
    c.handle = made.cq_handle;
    c.cqe = made.cqe as c_int;
    if let Some(wc_flags) = a.ex {
        set_poll_ops(&mut c, wc_flags);
    }
    if let Some(ch) = &a.channel {
        ch.add_cq_ref();
    }
    let st = CqState::new(queue);
    Ok(slot.fill(RxeCq {
        c: UnsafeCell::new(c),
        st,
    }))
}

pub(super) fn resize(cq: &Obj, cqe: c_int) -> Result<()> {
    let st = state(cq)?;
    if st.lock.held_by_me() {
        // Inside this thread's own poll batch (rdma-core would deadlock).
        return Err(Errno::EINVAL);
    }
    let mut g = st.lock.lock();
    // From now on polls take the lock (the first ring goes stale).
    st.resizing();
    let mut resp = rxe::ResizeCqResp::default();
    let uv = &cq.ctx.uverbs;
    let n = uv.resize_cq(handle(cq)?, cqe as u32, &[], resp.as_bytes_mut())?;
    cq.update_c(|c: &mut ibv_cq| c.cqe = n as c_int);
    // The kernel has moved the pending completions into the new ring.
    let map = Mmap::map(uv.fd(), &resp.mi)?;
    let old = g.queue.remap(map, CQE_SIZE)?;
    // Keep the first ring mapped (lock-free readers may still look at it);
    // later ones go now.
    st.replaced(old);
    Ok(())
}

pub(super) fn destroy(cq: &Obj) -> Result<EventCounts> {
    let r = cq.ctx.uverbs.destroy_cq(handle(cq)?)?;
    // The channel the CQ was created with counted it (rdma-core reads
    // `cq->channel` too); a channel in use cannot go (EBUSY).
    let ch = cq.read_c(|c: &ibv_cq| c.channel);
    if !ch.is_null()
        && let Ok(ch) = crate::object::get::<ibv_comp_channel, Context>(ch)
    {
        ch.drop_cq_ref();
    }
    Ok(EventCounts {
        comp: r.comp_events_reported,
        async_: r.async_events_reported,
    })
}

pub(super) fn req_notify(cq: &Obj, solicited_only: bool) -> Result<()> {
    cq.ctx.uverbs.req_notify_cq(handle(cq)?, solicited_only)
}

fn set_poll_ops(c: &mut ibv_cq_ex, wc_flags: u64) {
    use super::poll::*;
    c.start_poll = Some(start_poll);
    c.next_poll = Some(next_poll);
    c.end_poll = Some(end_poll);
    c.read_opcode = Some(read_opcode);
    c.read_vendor_err = Some(read_vendor_err);
    c.read_wc_flags = Some(read_wc_flags);
    let has = |f: u32| wc_flags & f as u64 != 0;
    if has(IBV_WC_EX_WITH_BYTE_LEN) {
        c.read_byte_len = Some(read_byte_len);
    }
    if has(IBV_WC_EX_WITH_IMM) {
        c.read_imm_data = Some(read_imm_data);
    }
    if has(IBV_WC_EX_WITH_QP_NUM) {
        c.read_qp_num = Some(read_qp_num);
    }
    if has(IBV_WC_EX_WITH_SRC_QP) {
        c.read_src_qp = Some(read_src_qp);
    }
    if has(IBV_WC_EX_WITH_SLID) {
        c.read_slid = Some(read_slid);
    }
    if has(IBV_WC_EX_WITH_SL) {
        c.read_sl = Some(read_sl);
    }
    if has(IBV_WC_EX_WITH_DLID_PATH_BITS) {
        c.read_dlid_path_bits = Some(read_dlid_path_bits);
    }
}
