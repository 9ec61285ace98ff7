//! Queue pairs: create, modify, query, destroy, multicast and ECE.

use crate::abi::*;
use crate::context::{Context, Obj, events};
use crate::entry::{Errno, arg_mut, arg_ref};
use crate::object;
use std::ffi::c_int;
use std::sync::Arc;

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_create_qp(
    pd: *mut ibv_pd,
    qp_init_attr: *mut ibv_qp_init_attr,
) -> *mut ibv_qp {
    entry!(ptr, ibv_create_qp(pd, qp_init_attr) {
        let pd: Arc<Obj> = object::get(pd)?;
        // SAFETY: the caller's attributes; capacities are written back.
        let attr = unsafe { arg_mut(qp_init_attr)? };
        let new = pd.ctx.ops.create_qp(&pd, attr)?;
        Ok(object::adopt(pd.ctx.clone(), new))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_modify_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
) -> c_int {
    entry!(errno, ibv_modify_qp(qp, attr, attr_mask) {
        let qp: Arc<Obj> = object::get(qp)?;
        // SAFETY: the caller's attributes.
        let attr = unsafe { arg_ref(attr)? };
        qp.ctx.ops.modify_qp(&qp, attr, attr_mask)?;
        if attr_mask & IBV_QP_STATE as c_int != 0 {
            qp.update_c(|c: &mut ibv_qp| c.state = attr.qp_state);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_qp(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    attr_mask: c_int,
    init_attr: *mut ibv_qp_init_attr,
) -> c_int {
    entry!(errno, ibv_query_qp(qp, attr, attr_mask, init_attr) {
        let qp: Arc<Obj> = object::get(qp)?;
        // SAFETY: the caller's out-parameters.
        let (attr, init) = unsafe { (arg_mut(attr)?, arg_mut(init_attr)?) };
        qp.ctx.ops.query_qp(&qp, attr, attr_mask, init)?;
        if attr_mask & IBV_QP_STATE as c_int != 0 {
            qp.update_c(|c: &mut ibv_qp| c.state = attr.qp_state);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_destroy_qp(qp: *mut ibv_qp) -> c_int {
    entry!(errno, ibv_destroy_qp(qp) {
        events::destroy(qp, |q: &Obj| q.ctx.ops.destroy_qp(q)).map(drop)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_qp_to_qp_ex(qp: *mut ibv_qp) -> *mut ibv_qp_ex {
    entry!(ptr, ibv_qp_to_qp_ex(qp) {
        let qp: Arc<Obj> = object::get(qp)?;
        // Not an extended QP: NULL, errno untouched, as rdma-core.
        Ok(qp.ctx.ops.qp_ex(&qp).unwrap_or(std::ptr::null_mut()))
    })
}

/// Which of `flags`' in-order guarantees hold for `op` on this QP; 0 when the
/// provider cannot tell.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_qp_data_in_order(
    qp: *mut ibv_qp,
    op: ibv_wr_opcode,
    flags: u32,
) -> c_int {
    entry!(value(0), ibv_query_qp_data_in_order(qp, op, flags) {
        match object::get::<_, Context>(qp) {
            Ok(qp) => qp.ctx.ops.query_qp_data_in_order(&qp, op, flags),
            Err(_) => 0,
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_query_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    entry!(errno, ibv_query_ece(qp, ece) {
        let qp: Arc<Obj> = object::get(qp)?;
        // SAFETY: the caller's out-parameter.
        let ece = unsafe { arg_mut(ece)? };
        qp.ctx.ops.query_ece(&qp, ece)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_set_ece(qp: *mut ibv_qp, ece: *mut ibv_ece) -> c_int {
    entry!(errno, ibv_set_ece(qp, ece) {
        let qp: Arc<Obj> = object::get(qp)?;
        // SAFETY: the caller's input.
        let ece = unsafe { arg_ref(ece)? };
        if ece.vendor_id == 0 {
            return Err(Errno::EOPNOTSUPP);
        }
        qp.ctx.ops.set_ece(&qp, ece)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_attach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    entry!(errno, ibv_attach_mcast(qp, gid, lid) {
        let qp: Arc<Obj> = object::get(qp)?;
        // SAFETY: the caller's input.
        let gid = unsafe { arg_ref(gid)? };
        qp.ctx.ops.attach_mcast(&qp, gid, lid)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn ibv_detach_mcast(qp: *mut ibv_qp, gid: *const ibv_gid, lid: u16) -> c_int {
    entry!(errno, ibv_detach_mcast(qp, gid, lid) {
        let qp: Arc<Obj> = object::get(qp)?;
        // SAFETY: the caller's input.
        let gid = unsafe { arg_ref(gid)? };
        qp.ctx.ops.detach_mcast(&qp, gid, lid)
    })
}
