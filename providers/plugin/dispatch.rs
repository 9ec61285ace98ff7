//! Our exported verbs on a hosted plugin's context and objects: the checks
//! (a live object of the right kind, else EINVAL before the plugin sees it),
//! then the plugin's op and what rdma-core 44's verbs.c does around it.
//! Each returns None when the context or object is not a hosted one, so the
//! caller goes on with its built-in path; with no hosted context at all that
//! costs one read of a lock-free-in-practice flag.
#![allow(unsafe_code)]

use super::context::{any_hosted, priv_of};
use super::objects::{self, Kind};
use crate::abi::*;
use crate::context::CompChannel;
use crate::driver_abi::v34::{verbs_context_ops, verbs_mr};
use crate::entry::{Errno, Result};
use crate::object;
use std::ffi::{c_int, c_void};

fn ops_of(ctx: *mut ibv_context) -> Option<verbs_context_ops> {
    if !any_hosted() {
        return None;
    }
    let p = priv_of(ctx).ok()?;
    Some(*p.ops.read().unwrap_or_else(|p| p.into_inner()))
}

/// The owning context's ops of a hosted object of `kind`.
fn obj_ops(p: *mut c_void, kind: Kind) -> Option<(verbs_context_ops, *mut ibv_context)> {
    if !any_hosted() || !objects::is_tracked(p) {
        return None;
    }
    let ctx = objects::check(p, kind).ok()?;
    Some((ops_of(ctx)?, ctx))
}

fn nn<T>(p: *mut T) -> Result<*mut T> {
    if p.is_null() {
        Err(match Errno::last() {
            Errno(0) => Errno::ENOMEM,
            e => e,
        })
    } else {
        Ok(p)
    }
}

fn ret(r: c_int) -> Result<()> {
    if r == 0 { Ok(()) } else { Err(Errno(r)) }
}

const NO: Errno = Errno::EOPNOTSUPP;

pub fn alloc_pd(ctx: *mut ibv_context) -> Option<Result<*mut ibv_pd>> {
    let ops = ops_of(ctx)?;
    Some((|| {
        // SAFETY: the plugin's op on its own live context.
        let pd = nn(unsafe { ops.alloc_pd.ok_or(NO)?(ctx) })?;
        // SAFETY: the PD the plugin just made.
        unsafe { (*pd).context = ctx };
        objects::track(pd.cast(), Kind::Pd, ctx);
        Ok(pd)
    })())
}

pub fn dealloc_pd(pd: *mut ibv_pd) -> Option<Result<()>> {
    let (ops, _) = obj_ops(pd.cast(), Kind::Pd)?;
    let f = ops.dealloc_pd?;
    // SAFETY: a live PD of this plugin.
    Some(objects::destroy(pd.cast(), Kind::Pd, || unsafe { f(pd) }))
}

pub fn reg_mr(
    pd: *mut ibv_pd,
    addr: *mut c_void,
    len: usize,
    iova: u64,
    access: c_int,
) -> Option<Result<*mut ibv_mr>> {
    let (ops, ctx) = obj_ops(pd.cast(), Kind::Pd)?;
    Some((|| {
        let f = ops.reg_mr.ok_or(NO)?;
        crate::fork::range(addr as usize, len, crate::fork::Advice::DontFork)?;
        // SAFETY: the plugin's op on its own live PD.
        let mr = unsafe { f(pd, addr, len, iova, access) };
        if mr.is_null() {
            let e = Errno::last();
            let _ = crate::fork::range(addr as usize, len, crate::fork::Advice::DoFork);
            return Err(if e == Errno(0) { Errno::ENOMEM } else { e });
        }
        // SAFETY: the MR the plugin just made.
        unsafe {
            (*mr).context = ctx;
            (*mr).pd = pd;
            (*mr).addr = addr;
            (*mr).length = len;
        }
        objects::track(mr.cast(), Kind::Mr, ctx);
        Ok(mr)
    })())
}

pub fn dereg_mr(mr: *mut ibv_mr) -> Option<Result<()>> {
    let (ops, _) = obj_ops(mr.cast(), Kind::Mr)?;
    let f = ops.dereg_mr?;
    // SAFETY: a live MR of this plugin (a verbs_mr at its head).
    let (addr, len) = unsafe { ((*mr).addr as usize, (*mr).length) };
    let r = objects::destroy(mr.cast(), Kind::Mr, || unsafe { f(mr.cast::<verbs_mr>()) });
    if r.is_ok() {
        let _ = crate::fork::range(addr, len, crate::fork::Advice::DoFork);
    }
    Some(r)
}

/// verbs_init_cq: the core's fields of a new CQ.
///
/// # Safety
/// `cq` is a CQ struct being set up by its provider.
pub unsafe fn init_cq(
    cq: *mut ibv_cq,
    ctx: *mut ibv_context,
    channel: *mut ibv_comp_channel,
    cq_context: *mut c_void,
) {
    // SAFETY: per the contract.
    let c = unsafe { &mut *cq };
    c.context = ctx;
    c.channel = channel;
    if let Ok(ch) = object::lookup::<CompChannel>(channel) {
        ch.add_cq_ref();
        // SAFETY: the channel's C struct, ours.
        unsafe { (*channel).refcnt += 1 };
    }
    c.cq_context = cq_context;
    c.comp_events_completed = 0;
    c.async_events_completed = 0;
    // SAFETY: initialising the CQ's own mutex and condition variable.
    unsafe {
        libc::pthread_mutex_init(&mut c.mutex, std::ptr::null());
        libc::pthread_cond_init(&mut c.cond, std::ptr::null());
    }
}

pub fn create_cq(
    ctx: *mut ibv_context,
    cqe: c_int,
    cq_context: *mut c_void,
    channel: *mut ibv_comp_channel,
    vector: c_int,
) -> Option<Result<*mut ibv_cq>> {
    let ops = ops_of(ctx)?;
    Some((|| {
        if !channel.is_null() {
            object::lookup::<CompChannel>(channel)?;
        }
        // SAFETY: the plugin's op on its own live context.
        let cq = nn(unsafe { ops.create_cq.ok_or(NO)?(ctx, cqe, channel, vector) })?;
        // SAFETY: the CQ the plugin just made.
        unsafe { init_cq(cq, ctx, channel, cq_context) };
        objects::track(cq.cast(), Kind::Cq, ctx);
        Ok(cq)
    })())
}

/// The `create_cq_ex` slot of a hosted context (rdma-core's __lib_ibv_create_cq_ex).
pub unsafe extern "C" fn create_cq_ex(
    ctx: *mut ibv_context,
    attr: *mut ibv_cq_init_attr_ex,
) -> *mut ibv_cq_ex {
    entry!(ptr, create_cq_ex(ctx, attr) {
        let ops = ops_of(ctx).ok_or(Errno::EINVAL)?;
        // SAFETY: the caller's attributes.
        let a = unsafe { attr.as_ref() }.ok_or(Errno::EINVAL)?;
        if !a.channel.is_null() {
            object::lookup::<CompChannel>(a.channel)?;
        }
        // SAFETY: the plugin's op on its own live context.
        let cq = nn(unsafe { ops.create_cq_ex.ok_or(NO)?(ctx, attr) })?;
        // SAFETY: ibv_cq_ex starts with the ibv_cq fields.
        unsafe { init_cq(cq.cast(), ctx, a.channel, a.cq_context) };
        objects::track(cq.cast(), Kind::Cq, ctx);
        Ok(cq)
    })
}

/// The `create_qp_ex` slot: the plugin's, tracked.
pub unsafe extern "C" fn create_qp_ex(
    ctx: *mut ibv_context,
    attr: *mut ibv_qp_init_attr_ex,
) -> *mut ibv_qp {
    entry!(ptr, create_qp_ex(ctx, attr) {
        let ops = ops_of(ctx).ok_or(Errno::EINVAL)?;
        // SAFETY: the plugin's op on its own live context.
        let qp = nn(unsafe { ops.create_qp_ex.ok_or(NO)?(ctx, attr) })?;
        objects::track(qp.cast(), Kind::Qp, ctx);
        Ok(qp)
    })
}

/// The `create_srq_ex` slot: the plugin's, tracked.
pub unsafe extern "C" fn create_srq_ex(
    ctx: *mut ibv_context,
    attr: *mut ibv_srq_init_attr_ex,
) -> *mut ibv_srq {
    entry!(ptr, create_srq_ex(ctx, attr) {
        let ops = ops_of(ctx).ok_or(Errno::EINVAL)?;
        // SAFETY: the plugin's op on its own live context.
        let srq = nn(unsafe { ops.create_srq_ex.ok_or(NO)?(ctx, attr) })?;
        objects::track(srq.cast(), Kind::Srq, ctx);
        Ok(srq)
    })
}

pub fn destroy_cq(cq: *mut ibv_cq) -> Option<Result<()>> {
    let (ops, _) = obj_ops(cq.cast(), Kind::Cq)?;
    let f = ops.destroy_cq?;
    // SAFETY: a live CQ of this plugin.
    let channel = unsafe { (*cq).channel };
    let r = objects::destroy(cq.cast(), Kind::Cq, || unsafe { f(cq) });
    if r.is_ok() {
        if let Ok(ch) = object::lookup::<CompChannel>(channel) {
            ch.drop_cq_ref();
            // SAFETY: the channel's C struct, ours.
            unsafe { (*channel).refcnt -= 1 };
        }
    }
    Some(r)
}

pub fn resize_cq(cq: *mut ibv_cq, cqe: c_int) -> Option<Result<()>> {
    let (ops, _) = obj_ops(cq.cast(), Kind::Cq)?;
    // SAFETY: a live CQ of this plugin.
    Some(
        ops.resize_cq
            .ok_or(NO)
            .and_then(|f| ret(unsafe { f(cq, cqe) })),
    )
}

/// Counts acknowledged events on a hosted object and wakes its destroyer.
///
/// # Safety
/// `mutex`/`cond` belong to a live object.
unsafe fn bump(
    mutex: *mut libc::pthread_mutex_t,
    cond: *mut libc::pthread_cond_t,
    counter: *mut u32,
    n: u32,
) {
    // SAFETY: per the contract.
    unsafe {
        libc::pthread_mutex_lock(mutex);
        *counter = (*counter).wrapping_add(n);
        libc::pthread_cond_signal(cond);
        libc::pthread_mutex_unlock(mutex);
    }
}

pub fn ack_cq_events(cq: *mut ibv_cq, n: u32) -> Option<()> {
    obj_ops(cq.cast(), Kind::Cq)?;
    // SAFETY: a live CQ of this plugin.
    unsafe {
        bump(
            &mut (*cq).mutex,
            &mut (*cq).cond,
            &mut (*cq).comp_events_completed,
            n,
        )
    };
    Some(())
}

/// ibv_ack_async_event on an event of a hosted object.
pub fn ack_async_event(ev: &ibv_async_event) -> Option<()> {
    use crate::context::generic::async_event::{Element, element_of};
    if !any_hosted() {
        return None;
    }
    // SAFETY: the pointer members of the union share offset 0.
    let p = unsafe { ev.element.cq } as *mut c_void;
    // SAFETY: each branch checks the object is live and of its kind first.
    unsafe {
        match element_of(ev.event_type) {
            Element::Cq if objects::check(p, Kind::Cq).is_ok() => {
                let c = p.cast::<ibv_cq>();
                bump(
                    &mut (*c).mutex,
                    &mut (*c).cond,
                    &mut (*c).async_events_completed,
                    1,
                )
            }
            Element::Qp if objects::check(p, Kind::Qp).is_ok() => {
                let q = p.cast::<ibv_qp>();
                bump(
                    &mut (*q).mutex,
                    &mut (*q).cond,
                    &mut (*q).events_completed,
                    1,
                )
            }
            Element::Srq if objects::check(p, Kind::Srq).is_ok() => {
                let s = p.cast::<ibv_srq>();
                bump(
                    &mut (*s).mutex,
                    &mut (*s).cond,
                    &mut (*s).events_completed,
                    1,
                )
            }
            _ => return None,
        }
    }
    Some(())
}

pub fn create_qp(pd: *mut ibv_pd, attr: *mut ibv_qp_init_attr) -> Option<Result<*mut ibv_qp>> {
    let (ops, ctx) = obj_ops(pd.cast(), Kind::Pd)?;
    Some((|| {
        // SAFETY: the plugin's op on its own live PD.
        let qp = nn(unsafe { ops.create_qp.ok_or(NO)?(pd, attr) })?;
        objects::track(qp.cast(), Kind::Qp, ctx);
        Ok(qp)
    })())
}

pub fn query_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    mask: c_int,
    init: *mut ibv_qp_init_attr,
) -> Option<Result<()>> {
    let (ops, _) = obj_ops(qp.cast(), Kind::Qp)?;
    Some((|| {
        if attr.is_null() || init.is_null() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: a live QP of this plugin; the caller's out structs.
        ret(unsafe { ops.query_qp.ok_or(NO)?(qp, attr, mask, init) })?;
        if mask & ibv_qp_attr_mask::IBV_QP_STATE.0 as c_int != 0 {
            // SAFETY: as above.
            unsafe { (*qp).state = (*attr).qp_state };
        }
        Ok(())
    })())
}

pub fn modify_qp(qp: *mut ibv_qp, attr: *mut ibv_qp_attr, mask: c_int) -> Option<Result<()>> {
    let (ops, _) = obj_ops(qp.cast(), Kind::Qp)?;
    Some((|| {
        if attr.is_null() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: a live QP of this plugin; the caller's attributes.
        ret(unsafe { ops.modify_qp.ok_or(NO)?(qp, attr, mask) })?;
        if mask & ibv_qp_attr_mask::IBV_QP_STATE.0 as c_int != 0 {
            // SAFETY: as above.
            unsafe { (*qp).state = (*attr).qp_state };
        }
        Ok(())
    })())
}

pub fn destroy_qp(qp: *mut ibv_qp) -> Option<Result<()>> {
    let (ops, _) = obj_ops(qp.cast(), Kind::Qp)?;
    let f = ops.destroy_qp?;
    // SAFETY: a live QP of this plugin.
    Some(objects::destroy(qp.cast(), Kind::Qp, || unsafe { f(qp) }))
}

pub fn attach_mcast(
    qp: *mut ibv_qp,
    gid: *const ibv_gid,
    lid: u16,
    attach: bool,
) -> Option<Result<()>> {
    let (ops, _) = obj_ops(qp.cast(), Kind::Qp)?;
    let f = if attach {
        ops.attach_mcast
    } else {
        ops.detach_mcast
    };
    Some((|| {
        if gid.is_null() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: a live QP of this plugin; the caller's GID.
        ret(unsafe { f.ok_or(NO)?(qp, gid, lid) })
    })())
}

pub fn create_srq(pd: *mut ibv_pd, attr: *mut ibv_srq_init_attr) -> Option<Result<*mut ibv_srq>> {
    let (ops, ctx) = obj_ops(pd.cast(), Kind::Pd)?;
    Some((|| {
        // SAFETY: the caller's attributes.
        let a = unsafe { attr.as_ref() }.ok_or(Errno::EINVAL)?;
        // SAFETY: the plugin's op on its own live PD.
        let srq = nn(unsafe { ops.create_srq.ok_or(NO)?(pd, attr) })?;
        // SAFETY: the SRQ the plugin just made.
        unsafe {
            let s = &mut *srq;
            s.context = ctx;
            s.srq_context = a.srq_context;
            s.pd = pd;
            s.events_completed = 0;
            libc::pthread_mutex_init(&mut s.mutex, std::ptr::null());
            libc::pthread_cond_init(&mut s.cond, std::ptr::null());
        }
        objects::track(srq.cast(), Kind::Srq, ctx);
        Ok(srq)
    })())
}

pub fn modify_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr, mask: c_int) -> Option<Result<()>> {
    let (ops, _) = obj_ops(srq.cast(), Kind::Srq)?;
    // SAFETY: a live SRQ of this plugin.
    Some(
        ops.modify_srq
            .ok_or(NO)
            .and_then(|f| ret(unsafe { f(srq, attr, mask) })),
    )
}

pub fn query_srq(srq: *mut ibv_srq, attr: *mut ibv_srq_attr) -> Option<Result<()>> {
    let (ops, _) = obj_ops(srq.cast(), Kind::Srq)?;
    // SAFETY: a live SRQ of this plugin.
    Some(
        ops.query_srq
            .ok_or(NO)
            .and_then(|f| ret(unsafe { f(srq, attr) })),
    )
}

pub fn destroy_srq(srq: *mut ibv_srq) -> Option<Result<()>> {
    let (ops, _) = obj_ops(srq.cast(), Kind::Srq)?;
    let f = ops.destroy_srq?;
    // SAFETY: a live SRQ of this plugin.
    Some(objects::destroy(srq.cast(), Kind::Srq, || unsafe {
        f(srq)
    }))
}

pub fn create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> Option<Result<*mut ibv_ah>> {
    let (ops, ctx) = obj_ops(pd.cast(), Kind::Pd)?;
    Some((|| {
        if attr.is_null() {
            return Err(Errno::EINVAL);
        }
        // SAFETY: the plugin's op on its own live PD.
        let ah = nn(unsafe { ops.create_ah.ok_or(NO)?(pd, attr) })?;
        // SAFETY: the AH the plugin just made.
        unsafe {
            (*ah).context = ctx;
            (*ah).pd = pd;
        }
        objects::track(ah.cast(), Kind::Ah, ctx);
        Ok(ah)
    })())
}

pub fn destroy_ah(ah: *mut ibv_ah) -> Option<Result<()>> {
    let (ops, _) = obj_ops(ah.cast(), Kind::Ah)?;
    let f = ops.destroy_ah?;
    // SAFETY: a live AH of this plugin.
    Some(objects::destroy(ah.cast(), Kind::Ah, || unsafe { f(ah) }))
}
