//! Queue pairs: create, modify, query, destroy, multicast and ECE.

use crate::abi::*;
use crate::context::{Context, Obj, ObjRef, events};
use crate::entry::{Errno, arg_mut, arg_ref};
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_qp(
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> *mut ibv_qp {
    let pd: ObjRef = object::get(pd)?;
    // SAFETY: the caller's attributes; capacities are written back.
    let attr = unsafe { arg_mut(qp_init_attr)? };
    let new = pd.ctx.ops.create_qp(&pd, attr)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    // SAFETY: the caller's attributes.
    let attr = unsafe { arg_mut(attr)? };
    qp.ctx.ops.modify_qp(&qp, attr, attr_mask)?;
    if attr_mask & IBV_QP_STATE as c_int != 0 {
        qp.update_c(|c: &mut ibv_qp| c.state = attr.qp_state);
    }
    Ok(())
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    // SAFETY: the caller's out-parameters.
    let (attr, init) = unsafe { (arg_mut(attr)?, arg_mut(init_attr)?) };
    qp.ctx.ops.query_qp(&qp, attr, attr_mask, init)?;
    if attr_mask & IBV_QP_STATE as c_int != 0 {
        qp.update_c(|c: &mut ibv_qp| c.state = attr.qp_state);
    }
    Ok(())
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int {
    events::destroy(qp, |q: &Obj| q.ctx.ops.destroy_qp(q)).map(drop)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex {
    let qp: ObjRef = object::get(qp)?;
    // Not an extended QP: NULL, errno untouched, as rdma-core.
    Ok(qp.ctx.ops.qp_ex(&qp).unwrap_or(std::ptr::null_mut()))
}

/// Which in-order guarantees hold for `op` on this QP, as rdma-core 64 and the
/// man page define them: unknown flag bits give 0; WHOLE_MSG implies
/// ALIGNED_128_BYTES; with RETURN_CAPS the capability vector, else 1 if the
/// whole message is in order. 0 when the provider cannot tell (rxe).
#[unsafe(no_mangle)]
#[entry(value(0))]
pub unsafe extern "C" fn ibv_query_qp_data_in_order(
    qp: *mut ibv_qp,
    op: ibv_wr_opcode,
    flags: u32,
) -> c_int {
    match object::get::<_, Context>(qp) {
        Ok(qp) => data_in_order(flags, |f| qp.ctx.ops.query_qp_data_in_order(&qp, op, f)),
        Err(_) => 0,
    }
}

/// The library's part of ibv_query_qp_data_in_order around the provider's answer.
pub(crate) fn data_in_order(flags: u32, provider: impl FnOnce(u32) -> c_int) -> c_int {
    let known = IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS | IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY;
    if flags & !known != 0 {
        return 0;
    }
    let mut caps = provider(flags) as u32;
    if caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG != 0 {
        caps |= IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
    }
    if flags & IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS != 0 {
        caps as c_int
    } else {
        c_int::from(caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG != 0)
    }
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    // SAFETY: the caller's out-parameter.
    let ece = unsafe { arg_mut(ece)? };
    qp.ctx.ops.query_ece(&qp, ece)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    // SAFETY: the caller's input.
    let ece = unsafe { arg_ref(ece)? };
    if ece.vendor_id == 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    qp.ctx.ops.set_ece(&qp, ece)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    // SAFETY: the caller's input.
    let gid = unsafe { arg_ref(gid)? };
    qp.ctx.ops.attach_mcast(&qp, gid, lid)
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    let qp: ObjRef = object::get(qp)?;
    // SAFETY: the caller's input.
    let gid = unsafe { arg_ref(gid)? };
    qp.ctx.ops.detach_mcast(&qp, gid, lid)
}

#[cfg(test)]
mod data_in_order_tests {
    use super::*;

    #[test]
    fn flags_follow_the_man_page() {
        const CAPS: u32 = IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS;
        const DEV: u32 = IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY;
        const WHOLE: c_int = IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG as c_int;
        const A128: c_int = IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES as c_int;
        // (flags, provider's answer, result)
        for (flags, p, r) in [
            (0, 0, 0),
            (0, WHOLE, 1),
            (0, A128, 0),
            (CAPS, 0, 0),
            (CAPS, WHOLE, WHOLE | A128),
            (CAPS, A128, A128),
            (CAPS | DEV, WHOLE, WHOLE | A128),
            (DEV, WHOLE, 1),
            (4, WHOLE, 0),
            (CAPS | 0x8000_0000, WHOLE, 0),
        ] {
            assert_eq!(
                data_in_order(flags, |_| p),
                r,
                "flags {flags:#x} provider {p:#x}"
            );
        }
    }
}
