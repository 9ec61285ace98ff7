//! Completion counters (rdma-core 65's IBVERBS_1.18). rdma-core 65's rxe has
//! none of their ops, so its generic code answers EOPNOTSUPP; ours asks the
//! provider the same way. No provider of ours creates a counter, so no
//! counter pointer is a live one of ours: the verbs on one are EINVAL
//! (rdma-core would follow `comp_cntr->context` into its provider).

use crate::abi::*;
use crate::context::{Context, ObjRef};
use crate::entry::Errno;
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
    let got = ctx.ops.query_comp_cntr_caps(&ctx)?;
    let n = caps_size.min(size_of::<ibv_comp_cntr_caps>());
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
    ctx.ops.create_comp_cntr(&ctx, attr)
}

/// A counter argument: none of ours exists (see the module docs).
fn no_counter(cc: *mut ibv_comp_cntr) -> Result<(), Errno> {
    let _ = cc;
    Err(Errno::EINVAL)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_comp_cntr(comp_cntr: *mut ibv_comp_cntr) -> c_int {
    no_counter(comp_cntr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_set_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    let _ = value;
    no_counter(comp_cntr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_set_err_comp_cntr(comp_cntr: *mut ibv_comp_cntr, value: u64) -> c_int {
    let _ = value;
    no_counter(comp_cntr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_inc_comp_cntr(comp_cntr: *mut ibv_comp_cntr, amount: u64) -> c_int {
    let _ = amount;
    no_counter(comp_cntr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_inc_err_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    amount: u64,
) -> c_int {
    let _ = amount;
    no_counter(comp_cntr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_read_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    value: *mut u64,
) -> c_int {
    let _ = value;
    no_counter(comp_cntr)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_read_err_comp_cntr(
    comp_cntr: *mut ibv_comp_cntr,
    value: *mut u64,
) -> c_int {
    let _ = value;
    no_counter(comp_cntr)
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
    // SAFETY: the caller's attributes, if any; read only.
    let attr = unsafe { attr.as_ref() };
    qp.ctx.ops.qp_attach_comp_cntr(&qp, comp_cntr, attr)
}
