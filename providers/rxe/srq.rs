//! rxe shared receive queues: the kernel's SRQ ring mapped for posting
//! (`post_srq_recv` is in `post.rs`), remapped on resize.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use super::lock::SpinLock;
use super::mmap::Mmap;
use super::queue::ProducerQueue;
use super::wqe::RECV_WQE_SIZE;
use crate::abi::*;
use crate::context::{Context, EventCounts, New, Obj, ObjRef};
use crate::entry::{Errno, Result};
use crate::object::slab::{Pinned, Slab, Vacant};
use crate::object::{self, CObject};
use crate::uverbs::Pod;
use crate::uverbs::rxe::{self, MmapInfo};
use crate::uverbs::srq::{CreateSrq, CreateXsrq, ModifySrq};

/// An rxe SRQ: the C struct, then the provider's state, in one slab slot.
#[repr(C)]
pub(super) struct RxeSrq {
    /// Written by the core (event counter) while C reads it.
    pub c: UnsafeCell<ibv_srq>,
    pub st: SrqState,
}

// SAFETY: the C struct is plain data written under the rules above; the
// state is Sync on its own.
unsafe impl Sync for RxeSrq {}
// SAFETY: as above.
unsafe impl Send for RxeSrq {}

static SRQS: Slab<RxeSrq> = Slab::new();

/// The data path's check of C's SRQ pointer (see `crate::object::slab`).
#[inline]
pub(super) fn pin(p: *const ibv_srq) -> Option<Pinned<RxeSrq>> {
    SRQS.pin(p.cast())
}

pub(super) struct SrqState {
    pub handle: u32,
    /// The ring under the SRQ's lock (post, resize).
    pub queue: SpinLock<ProducerQueue>,
    pub max_sge: u32,
}

/// The rxe state of an SRQ of ours (control path: the record keeps it).
pub(super) fn state(srq: &Obj) -> Result<&SrqState> {
    // SAFETY: a registered record keeps its object unreleased while `srq`
    // is borrowed; only SRQS fills SRQS's slots.
    unsafe { SRQS.get(srq.addr().as_ptr()) }
        .map(|s| &s.st)
        .ok_or(Errno::EINVAL)
}

/// The C fields rdma-core's core sets on a new SRQ.
struct Head {
    pd: *mut ibv_pd,
    srq_context: *mut c_void,
}

fn finish(
    ctx: &Arc<Context>,
    slot: Vacant<RxeSrq>,
    head: Head,
    handle: u32,
    drv: &rxe::CreateSrqResp,
    max_sge: u32,
) -> Result<New> {
    let uv = &ctx.uverbs;
    let queue = Mmap::map(uv.fd(), &drv.mi)
        .and_then(|m| ProducerQueue::new(m, RECV_WQE_SIZE))
        .inspect_err(|_| {
            let _ = uv.destroy_srq(handle);
        })?;
    // SAFETY: plain C data; all-zero is valid (mutex/cond initializers).
    let mut c: ibv_srq = unsafe { std::mem::zeroed() };
    c.context = ctx.c_ptr();
    c.pd = head.pd;
    c.srq_context = head.srq_context;
    c.handle = handle;
    let st = SrqState {
        handle,
        queue: SpinLock::new(queue),
        max_sge,
    };
    Ok(slot.fill(RxeSrq {
        c: UnsafeCell::new(c),
        st,
    }))
}

/// `ibv_create_srq`: max_wr and max_sge are written back.
pub(super) fn create(pd: &Obj, attr: &mut ibv_srq_init_attr) -> Result<New> {
    let slot = SRQS.vacant();
    let req = CreateSrq {
        user_handle: slot.addr().as_ptr() as u64,
        pd_handle: pd.read_c(|c: &ibv_pd| c.handle),
        max_wr: attr.attr.max_wr,
        max_sge: attr.attr.max_sge,
        srq_limit: attr.attr.srq_limit,
        ..Default::default()
    };
    let mut drv = rxe::CreateSrqResp::default();
    let r = pd.ctx.uverbs.create_srq(&req, &[], drv.as_bytes_mut())?;
    attr.attr.max_wr = r.max_wr;
    attr.attr.max_sge = r.max_sge;
    let head = Head {
        pd: pd.c::<ibv_pd>(),
        srq_context: attr.srq_context,
    };
    finish(&pd.ctx, slot, head, r.srq_handle, &drv, attr.attr.max_sge)
}

/// The `create_srq_ex` slot. As in rdma-core, an SRQ made here has no
/// `pd` or `srq_context` in its C struct.
pub(super) fn create_ex(ctx: &Arc<Context>, attr: &mut ibv_srq_init_attr_ex) -> Result<New> {
    if attr.comp_mask >= IBV_SRQ_INIT_ATTR_RESERVED {
        return Err(Errno::EOPNOTSUPP);
    }
    if attr.comp_mask & IBV_SRQ_INIT_ATTR_PD == 0 {
        return Err(Errno::EINVAL);
    }
    let has = |m: u32| attr.comp_mask & m != 0;
    let srq_type = match has(IBV_SRQ_INIT_ATTR_TYPE) {
        true => attr.srq_type,
        false => ibv_srq_type::IBV_SRQT_BASIC,
    };
    let pd: ObjRef = object::get(attr.pd)?;
    if !Arc::ptr_eq(ctx, &pd.ctx) {
        return Err(Errno::EINVAL);
    }
    let slot = SRQS.vacant();
    let user_handle = slot.addr().as_ptr() as u64;
    let pd_handle = pd.read_c(|c: &ibv_pd| c.handle);
    let mut drv = rxe::CreateSrqResp::default();
    let uv = &ctx.uverbs;
    let r = match srq_type {
        ibv_srq_type::IBV_SRQT_BASIC => {
            let req = CreateSrq {
                user_handle,
                pd_handle,
                max_wr: attr.attr.max_wr,
                max_sge: attr.attr.max_sge,
                srq_limit: attr.attr.srq_limit,
                ..Default::default()
            };
            uv.create_srq(&req, &[], drv.as_bytes_mut())?
        }
        ibv_srq_type::IBV_SRQT_TM => {
            if !has(IBV_SRQ_INIT_ATTR_CQ)
                || !has(IBV_SRQ_INIT_ATTR_TM)
                || attr.tm_cap.max_num_tags == 0
            {
                return Err(Errno::EINVAL);
            }
            let cq: ObjRef = object::get(attr.cq)?;
            let req = CreateXsrq {
                user_handle,
                srq_type: srq_type.0,
                pd_handle,
                max_wr: attr.attr.max_wr,
                max_sge: attr.attr.max_sge,
                srq_limit: attr.attr.srq_limit,
                max_num_tags: attr.tm_cap.max_num_tags,
                cq_handle: super::obj::cq::handle(&cq)?,
                ..Default::default()
            };
            uv.create_xsrq(&req, &[], drv.as_bytes_mut())?
        }
        // XRC needs an XRC domain, which rxe cannot open; others are unknown.
        _ => return Err(Errno::EINVAL),
    };
    attr.attr.max_wr = r.max_wr;
    attr.attr.max_sge = r.max_sge;
    let head = Head {
        pd: std::ptr::null_mut(),
        srq_context: std::ptr::null_mut(),
    };
    finish(ctx, slot, head, r.srq_handle, &drv, attr.attr.max_sge)
}

pub(super) fn modify(srq: &Obj, attr: &ibv_srq_attr, mask: c_int) -> Result<()> {
    let st = state(srq)?;
    let resize = mask as u32 & IBV_SRQ_MAX_WR != 0;
    // Posting waits while the ring may move.
    let mut q = resize.then(|| st.queue.lock());
    let mut mi = MmapInfo::default();
    let drv = rxe::ModifySrqCmd {
        mmap_info_addr: (&raw mut mi) as u64,
    };
    let req = ModifySrq {
        srq_handle: st.handle,
        attr_mask: mask as u32,
        max_wr: attr.max_wr,
        srq_limit: attr.srq_limit,
    };
    srq.ctx.uverbs.modify_srq(&req, drv.as_bytes())?;
    if let Some(q) = q.as_mut() {
        // SAFETY: `mi` is our local, which the kernel has just written
        // through the address we gave it; read it back as memory the
        // compiler cannot have cached.
        let mi = unsafe { std::ptr::read_volatile(&raw const mi) };
        q.remap(Mmap::map(srq.ctx.uverbs.fd(), &mi)?, RECV_WQE_SIZE)?;
    }
    Ok(())
}

pub(super) fn query(srq: &Obj, attr: &mut ibv_srq_attr) -> Result<()> {
    let r = srq.ctx.uverbs.query_srq(state(srq)?.handle, &[], &mut [])?;
    attr.max_wr = r.max_wr;
    attr.max_sge = r.max_sge;
    attr.srq_limit = r.srq_limit;
    Ok(())
}

pub(super) fn destroy(srq: &Obj) -> Result<EventCounts> {
    let n = srq.ctx.uverbs.destroy_srq(state(srq)?.handle)?;
    Ok(EventCounts { comp: 0, async_: n })
}
