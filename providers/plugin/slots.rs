//! The op slots of a hosted context that verbs.h's inline functions call
//! and that hand C an object: `reg_dm_mr` (ibv_reg_dm_mr), `alloc_null_mr`
//! (ibv_alloc_null_mr), `open_qp` (ibv_open_qp) and `alloc_parent_domain`
//! (ibv_alloc_parent_domain). C gives those objects back to verbs that only
//! take registered ones, so these slots are ours: they check the objects
//! and attributes named (a NULL, foreign or freed one is EINVAL before the
//! plugin sees it), call the plugin's op and register what it makes.
#![allow(unsafe_code)]

use super::call;
use super::context::priv_of;
use crate::abi::*;
use crate::context::{Context, New, ObjRef};
use crate::entry::{Errno, Result};
use crate::object::{self, CObject};
use std::ffi::{c_uint, c_void};
use std::ptr::NonNull;
use std::sync::Arc;

extern "C" fn register() {
    super::hosted_slots::register(fill);
}

// Runs when the library is loaded, before any context can be opened.
#[used]
#[unsafe(link_section = ".init_array")]
static REGISTER: extern "C" fn() = register;

/// A hosted context's slots that are ours (not the plugin's).
fn fill(v: &mut verbs_context) {
    v.reg_dm_mr = Some(reg_dm_mr);
    v.alloc_null_mr = Some(alloc_null_mr);
    v.open_qp = Some(open_qp);
    v.alloc_parent_domain = Some(alloc_parent_domain);
}

/// Registers the plugin's new object `p` of `ctx` (counted for close), or
/// answers its errno.
fn adopt<C: object::KindOf>(ctx: &Arc<Context>, p: *mut C) -> Result<*mut C> {
    let c = NonNull::new(p.cast::<c_void>()).ok_or_else(|| match Errno::last() {
        Errno(0) => Errno::ENOMEM,
        e => e,
    })?;
    super::context::count_object(ctx.c_ptr());
    Ok(object::adopt(ctx.clone(), New::of(c, None)))
}

#[entry(ptr)]
pub(crate) unsafe extern "C" fn reg_dm_mr(
    pd: *mut ibv_pd,
    dm: *mut ibv_dm,
    dm_offset: u64,
    length: usize,
    access: c_uint,
) -> *mut ibv_mr {
    let pd: ObjRef = object::get(pd)?;
    let dm: ObjRef = object::get(dm)?;
    if !Arc::ptr_eq(&pd.ctx, &dm.ctx) {
        return Err(Errno::EINVAL);
    }
    let p = priv_of(pd.ctx.c_ptr())?;
    let f = p.ops().reg_dm_mr.ok_or(Errno::EOPNOTSUPP)?;
    let (pc, dc) = (pd.c::<ibv_pd>(), dm.c::<ibv_dm>());
    // SAFETY: the plugin's op on its live PD and DM, held over the call.
    let mr = call::on(&pd.ctx, || unsafe { f(pc, dc, dm_offset, length, access) });
    adopt(&pd.ctx, mr)
}

#[entry(ptr)]
pub(crate) unsafe extern "C" fn alloc_null_mr(pd: *mut ibv_pd) -> *mut ibv_mr {
    let pd: ObjRef = object::get(pd)?;
    let p = priv_of(pd.ctx.c_ptr())?;
    let f = p.ops().alloc_null_mr.ok_or(Errno::EOPNOTSUPP)?;
    let pc = pd.c::<ibv_pd>();
    // SAFETY: the plugin's op on its live PD, held over the call.
    let mr = call::on(&pd.ctx, || unsafe { f(pc) });
    adopt(&pd.ctx, mr)
}

#[entry(ptr)]
pub(crate) unsafe extern "C" fn open_qp(
    context: *mut ibv_context,
    attr: *mut ibv_qp_open_attr,
) -> *mut ibv_qp {
    let ctx = super::context::context_of(context)?;
    if attr.is_null() {
        return Err(Errno::EINVAL);
    }
    let f = priv_of(context)?.ops().open_qp.ok_or(Errno::EOPNOTSUPP)?;
    // SAFETY: the plugin's op on its open context; the caller's attributes,
    // handed on as rdma-core does.
    let qp = call::on(&ctx, || unsafe { f(context, attr) });
    adopt(&ctx, qp)
}

#[entry(ptr)]
pub(crate) unsafe extern "C" fn alloc_parent_domain(
    context: *mut ibv_context,
    attr: *mut ibv_parent_domain_init_attr,
) -> *mut ibv_pd {
    let ctx = super::context::context_of(context)?;
    // SAFETY: NULL or the caller's attributes.
    let a = unsafe { attr.as_ref() }.ok_or(Errno::EINVAL)?;
    // The PD under it: a live one of this context (the plugin keeps it).
    let pd: ObjRef = object::get(a.pd)?;
    if !Arc::ptr_eq(&pd.ctx, &ctx) {
        return Err(Errno::EINVAL);
    }
    let p = priv_of(context)?;
    let f = p.ops().alloc_parent_domain.ok_or(Errno::EOPNOTSUPP)?;
    // SAFETY: the plugin's op on its open context and live PD, held over
    // the call.
    let ppd = call::on(&ctx, || unsafe { f(context, attr) });
    let ppd = adopt(&ctx, ppd)?;
    // Close frees it before the PDs (it uses one).
    p.parents.add(ppd as usize);
    Ok(ppd)
}
