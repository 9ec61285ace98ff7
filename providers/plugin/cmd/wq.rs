//! Work queues and RSS indirection tables, as rdma-core 44's cmd_wq.c and
//! cmd.c send them: ibv_cmd_create_wq (the WQ_CREATE method, the extended
//! write() on kernels without it), ibv_cmd_modify_wq, ibv_cmd_destroy_wq and
//! ibv_cmd_create_rwq_ind_table (extended write() commands).
//!
//! A WQ the kernel created is registered (verbs.h's inline ibv_create_wq
//! calls the plugin directly, so no verb of ours sees it), which is how
//! ibv_ack_async_event finds it to count an IBV_EVENT_WQ_FATAL, and
//! ibv_cmd_destroy_wq waits, as rdma-core 44 does, until the application
//! has acknowledged every event the kernel reported for it.

use super::{Bufs, EX_HDR, Live, destroy_result};
use crate::abi::*;
use crate::context::{Context, EventCounts, New};
use crate::entry::{Errno, Result};
use crate::object;
use crate::providers::plugin::context::{context_of, with_uverbs};
use crate::uverbs::wq::{CreateRwqIndTableResp, CreateWq, CreateWqResp, ModifyWq};
use std::ffi::c_int;

/// The largest table the kernel takes (IB_USER_VERBS_MAX_LOG_IND_TBL_SIZE);
/// rdma-core sends larger ones, which the kernel refuses with EINVAL.
const MAX_LOG_TBL: u32 = 0x0d;

/// The CREATE_WQ core request and the flags the ioctl method carries (only
/// with IBV_WQ_INIT_ATTR_FLAGS; the write() command takes `create_flags` as
/// given, as rdma-core 44 sends it).
fn create_wq_req(a: &ibv_wq_init_attr, user_handle: u64) -> Result<(CreateWq, u32)> {
    if a.comp_mask >= IBV_WQ_INIT_ATTR_RESERVED {
        return Err(Errno::EINVAL);
    }
    let mut flags = 0;
    if a.comp_mask & IBV_WQ_INIT_ATTR_FLAGS != 0 {
        if a.create_flags & !(IBV_WQ_FLAGS_RESERVED - 1) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        flags = a.create_flags;
    }
    // SAFETY: the caller's PD and CQ (rdma-core reads their handles unchecked).
    let (pd, cq) = unsafe { (a.pd.as_ref(), a.cq.as_ref()) };
    let (pd, cq) = pd.zip(cq).ok_or(Errno::EINVAL)?;
    let req = CreateWq {
        wq_type: a.wq_type.0,
        user_handle,
        pd_handle: pd.handle,
        cq_handle: cq.handle,
        max_wr: a.max_wr,
        max_sge: a.max_sge,
        create_flags: a.create_flags,
        ..Default::default()
    };
    Ok((req, flags))
}

pub(crate) fn create_wq(
    ctx: *mut ibv_context,
    a: &mut ibv_wq_init_attr,
    w: &mut ibv_wq,
    mut b: Bufs,
) -> Result<()> {
    let (req, ioctl_flags) = create_wq_req(a, std::ptr::from_mut(w) as u64)?;
    w.context = ctx;
    w.cq = a.cq;
    w.pd = a.pd;
    w.wq_type = a.wq_type;
    let c = context_of(ctx).ok();
    let fd = c
        .as_ref()
        .map(|c| std::os::fd::AsRawFd::as_raw_fd(&c.async_fd));
    let core = size_of::<CreateWqResp>();
    // struct ibv_create_wq: both headers, the core request, its driver data.
    let (di, dout) = b.split(EX_HDR - super::HDR + size_of::<CreateWq>(), core);
    let r = with_uverbs(ctx, |u| u.create_wq(&req, ioctl_flags, fd, di, dout))?;
    w.handle = r.wq_handle;
    w.wq_num = r.wqn;
    a.max_wr = r.max_wr;
    a.max_sge = r.max_sge;
    b.put(&r);
    let wq = std::ptr::from_mut(w);
    // SAFETY: the plugin's new WQ.
    unsafe { init_events(wq) };
    if let (Some(c), Some(p)) = (c, std::ptr::NonNull::new(wq.cast())) {
        register(c, p);
        // Never uncounted: a context that had a WQ looks for leftovers at close.
        crate::providers::plugin::context::count_object(ctx);
    }
    Ok(())
}

/// The core's event fields of a new WQ (verbs.h's ibv_create_wq sets them
/// again once the plugin returns; a plugin that fails after this call
/// destroys the WQ before then).
///
/// # Safety
/// `wq` points to the plugin's WQ.
unsafe fn init_events(wq: *mut ibv_wq) {
    // SAFETY: per the contract.
    unsafe {
        (*wq).events_completed = 0;
        libc::pthread_mutex_init(&raw mut (*wq).mutex, std::ptr::null());
        libc::pthread_cond_init(&raw mut (*wq).cond, std::ptr::null());
    }
}

/// Registers a hosted WQ, so that its async events can be acknowledged.
fn register(ctx: std::sync::Arc<Context>, wq: std::ptr::NonNull<std::ffi::c_void>) {
    object::adopt::<ibv_wq, Context>(ctx, New::of(wq, None));
}

/// Waits until `reported` async events of a registered WQ are acknowledged,
/// then takes it out of the registry (before the plugin frees it). A WQ not
/// registered (ibv_close_device took it already) has nothing to wait for.
fn wait_and_forget<O: object::RecordOwner>(wq: *const ibv_wq, reported: u32) {
    if let Ok(o) = object::get::<ibv_wq, O>(wq) {
        o.wait_acked(EventCounts {
            comp: 0,
            async_: reported,
        });
        let _ = object::take_if::<ibv_wq, O>(wq, |_| Ok(()));
    }
}

/// The MODIFY_WQ request for `a` on `wq_handle`.
fn modify_wq_req(a: &ibv_wq_attr, wq_handle: u32) -> Result<ModifyWq> {
    if a.attr_mask >= IBV_WQ_ATTR_RESERVED {
        return Err(Errno::EINVAL);
    }
    let mut req = ModifyWq {
        attr_mask: a.attr_mask,
        wq_handle,
        wq_state: a.wq_state.0,
        curr_wq_state: a.curr_wq_state.0,
        ..Default::default()
    };
    if a.attr_mask & IBV_WQ_ATTR_FLAGS != 0 {
        if a.flags_mask & !(IBV_WQ_FLAGS_RESERVED - 1) != 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        req.flags = a.flags;
        req.flags_mask = a.flags_mask;
    }
    Ok(req)
}

pub(crate) fn modify_wq(wq: Live<ibv_wq>, a: &ibv_wq_attr, b: Bufs) -> Result<()> {
    let w = wq.ptr();
    // SAFETY: a live WQ of the plugin, read through its pointer.
    let (ctx, h) = unsafe { ((*w).context, (*w).handle) };
    let req = modify_wq_req(a, h)?;
    // struct ibv_modify_wq: both headers, core, its data.
    let di = b.drv_in(EX_HDR - super::HDR + size_of::<ModifyWq>());
    with_uverbs(ctx, |u| u.modify_wq(&req, di))?;
    if a.attr_mask & IBV_WQ_ATTR_STATE != 0 {
        // SAFETY: as above; the state the kernel took, as rdma-core records it.
        unsafe { (*w).state = a.wq_state };
    }
    Ok(())
}

/// ibv_cmd_destroy_wq: the kernel's destroy, then the wait for the events it
/// reported to be acknowledged (ibv_ack_async_event counts them).
pub(crate) unsafe fn destroy_wq(wq: *mut ibv_wq) -> Result<()> {
    // SAFETY: the plugin's WQ.
    let w = unsafe { wq.as_ref() }.ok_or(Errno::EINVAL)?;
    let reported = destroy_result(with_uverbs(w.context, |u| u.destroy_wq(w.handle)))?;
    wait_and_forget::<Context>(wq, reported);
    Ok(())
}

/// The table's WQ handles, in a payload padded to 8 bytes as rdma-core sends it.
///
/// # Safety
/// `tbl` is NULL or holds `2^log` WQ pointers of the caller.
unsafe fn table_handles(log: u32, tbl: *mut *mut ibv_wq) -> Result<Vec<u8>> {
    if log > MAX_LOG_TBL || tbl.is_null() {
        return Err(Errno::EINVAL);
    }
    let n = 1usize << log;
    // SAFETY: per the contract.
    let wqs = unsafe { std::slice::from_raw_parts(tbl, n) };
    let mut b = Vec::with_capacity((n * 4).next_multiple_of(8));
    for &w in wqs {
        // SAFETY: the caller's WQs (rdma-core reads their handles unchecked).
        let w = unsafe { w.as_ref() }.ok_or(Errno::EINVAL)?;
        b.extend_from_slice(&w.handle.to_ne_bytes());
    }
    b.resize((n * 4).next_multiple_of(8), 0);
    Ok(b)
}

pub(crate) fn create_rwq_ind_table(
    ctx: *mut ibv_context,
    a: &ibv_rwq_ind_table_init_attr,
    t: &mut ibv_rwq_ind_table,
    mut b: Bufs,
) -> Result<()> {
    if a.comp_mask >= IBV_CREATE_IND_TABLE_RESERVED {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's table of 2^log WQs.
    let handles = unsafe { table_handles(a.log_ind_tbl_size, a.ind_tbl)? };
    let core = size_of::<CreateRwqIndTableResp>();
    let (_, dout) = b.split(0, core);
    let r = with_uverbs(ctx, |u| {
        u.create_rwq_ind_table(a.log_ind_tbl_size, &handles, dout)
    })?;
    b.put(&r);
    if (r.response_length as usize) < core {
        return Err(Errno::EINVAL);
    }
    t.ind_tbl_handle = r.ind_tbl_handle as c_int;
    t.ind_tbl_num = r.ind_tbl_num as c_int;
    t.context = ctx;
    Ok(())
}

#[cfg(test)]
mod tests;
