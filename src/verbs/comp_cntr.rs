//! Completion counters (rdma-core 65's IBVERBS_1.18): each verb calls the
//! op of the counter's (or context's) provider, as rdma-core 65 does; a
//! provider without the op answers EOPNOTSUPP (rdma-core's dummy; rxe has
//! none). A counter is a registry object of the context that made it: a
//! NULL, foreign or destroyed one is EINVAL before any provider sees it
//! (rdma-core would follow `comp_cntr->context`).

use crate::abi::*;
use crate::context::{Context, Obj, ObjRef};
use crate::entry::{Errno, arg_mut};
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn _ibv_query_comp_cntr_caps(
    context: *mut ibv_context,
    caps: *mut ibv_comp_cntr_caps,
    caps_size: usize,
) -> c_int {
    let ctx = object::lookup::<Context>(context)?;
    if caps.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the caller's struct of the size it states, zeroed as rdma-core
    // 65 zeroes it before asking the provider.
    unsafe { std::ptr::write_bytes(caps.cast::<u8>(), 0, caps_size) };
    let n = caps_size.min(size_of::<ibv_comp_cntr_caps>());
    let got = ctx.ops.query_comp_cntr_caps(&ctx, n)?;
    // SAFETY: `n` bytes fit both the caller's struct and ours.
    unsafe { std::ptr::copy_nonoverlapping((&raw const got).cast::<u8>(), caps.cast(), n) };
    Ok(())
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_comp_cntr(
    context: *mut ibv_context,
    cc_attr: *mut ibv_comp_cntr_init_attr,
) -> *mut ibv_comp_cntr {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's attributes, if any; read only.
    let attr = unsafe { cc_attr.as_ref() };
    let new = ctx.ops.create_comp_cntr(&ctx, attr)?;
    Ok(object::adopt(ctx, new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int {
    object::take_if(comp_cntr, |c: &Obj| c.ctx.ops.destroy_comp_cntr(c)).map(drop)
}

/// The live counter behind `cc`.
fn counter(cc: *mut ibv_comp_cntr) -> Result<ObjRef, Errno> {
    object::get(cc)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    let c = counter(comp_cntr)?;
    c.ctx.ops.set_comp_cntr(&c, false, value)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    let c = counter(comp_cntr)?;
    c.ctx.ops.set_comp_cntr(&c, true, value)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int {
    let c = counter(comp_cntr)?;
    c.ctx.ops.inc_comp_cntr(&c, false, amount)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_inc_err_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    amount: u64,
) -> c_int {
    let c = counter(comp_cntr)?;
    c.ctx.ops.inc_comp_cntr(&c, true, amount)
}

/// A read into the caller's `value` (left alone on failure).
fn read(cc: *mut ibv_comp_cntr, value: *mut u64, err: bool) -> Result<(), Errno> {
    let c = counter(cc)?;
    // SAFETY: the caller's out-parameter.
    let out = unsafe { arg_mut(value)? };
    *out = c.ctx.ops.read_comp_cntr(&c, err)?;
    Ok(())
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_read_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    value: *mut u64,
) -> c_int {
    read(comp_cntr, value, false)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_read_err_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    value: *mut u64,
) -> c_int {
    read(comp_cntr, value, true)
}

/// The QP's provider decides (rxe: EOPNOTSUPP, whatever the counter).
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_qp_attach_comp_cntr(
    qp: *mut ibv_qp,
    comp_cntr: *mut ibv_comp_cntr,
    attr: *mut ibv_qp_attach_comp_cntr_attr,
) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    let cc = counter(comp_cntr).ok();
    // SAFETY: the caller's attributes, if any; read only.
    let attr = unsafe { attr.as_ref() };
    qp.ctx.ops.qp_attach_comp_cntr(&qp, cc.as_deref(), attr)
}
