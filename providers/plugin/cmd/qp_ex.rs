//! ibv_cmd_create_qp_ex (the legacy CREATE_QP command from an extended
//! attribute set, XRC included) and ibv_cmd_modify_qp_ex (the extended
//! MODIFY_QP command, which carries the rate limit).

use super::qp::{init_of, init_qp, qp_req, set_caps};
use super::{Bufs, EX_HDR, HDR, Live};
use crate::abi::*;
use crate::context::generic;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::uverbs::qp::{CreateQp, CreateQpResp, ExModifyQp, ExModifyQpResp};
use std::ffi::c_int;

const VERBS_QP_XRCD: u32 = 1 << 0;

pub(crate) fn create_qp_ex(
    ctx: *mut ibv_context,
    vqp: &mut verbs_qp,
    a: &mut ibv_qp_init_attr_ex,
    mut b: Bufs,
) -> Result<()> {
    use ibv_qp_init_attr_mask as m;
    let has = |b: ibv_qp_init_attr_mask| a.comp_mask & b.0 != 0;
    // The legacy command has no room for creation flags or anything later.
    if a.comp_mask & !(m::IBV_QP_INIT_ATTR_PD.0 | m::IBV_QP_INIT_ATTR_XRCD.0) != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    let xrcd = if has(m::IBV_QP_INIT_ATTR_XRCD) {
        a.xrcd.cast::<verbs_xrcd>()
    } else {
        std::ptr::null_mut()
    };
    // An XRC target QP lives in its XRCD (sent as the PD handle); others need a PD.
    let pd_handle = if !xrcd.is_null() {
        // SAFETY: the caller's XRCD.
        unsafe { (*xrcd).handle }
    } else if has(m::IBV_QP_INIT_ATTR_PD) && !a.pd.is_null() {
        // SAFETY: the caller's PD.
        unsafe { (*a.pd).handle }
    } else {
        return Err(Errno::EINVAL);
    };
    let req = qp_req(&init_of(a), std::ptr::from_mut(vqp) as u64, pd_handle)?;
    let (di, dout) = b.split(size_of::<CreateQp>(), size_of::<CreateQpResp>());
    let r = with_uverbs(ctx, |u| u.create_qp(&req, di, dout))?;
    set_caps(&mut a.cap, &r);
    let init = init_of(a);
    let pd = if xrcd.is_null() {
        a.pd
    } else {
        std::ptr::null_mut()
    };
    init_qp(&mut vqp.qp_ex.qp_base, ctx, &init, pd, r.qp_handle, r.qpn);
    vqp.comp_mask = if xrcd.is_null() { 0 } else { VERBS_QP_XRCD };
    vqp.xrcd = xrcd;
    b.put(&r);
    Ok(())
}

pub(crate) fn modify_qp_ex(
    qp: Live<ibv_qp>,
    a: &mut ibv_qp_attr,
    mask: c_int,
    mut b: Bufs,
) -> Result<()> {
    let (ctx, h) = qp.parts();
    let rate = mask as u32 & IBV_QP_RATE_LIMIT != 0;
    let mut base = generic::qp_attr::modify_req(h, a, (mask as u32 & !IBV_QP_RATE_LIMIT) as c_int)?;
    base.attr_mask = mask as u32;
    // The plugin's struct must reach the rate limit to carry it (rdma-core's check).
    let rate_end = EX_HDR + std::mem::offset_of!(ExModifyQp, rate_limit) + 4;
    if rate && b.cmd_len() < rate_end {
        return Err(Errno::EINVAL);
    }
    let req = ExModifyQp {
        base,
        rate_limit: if rate { a.rate_limit } else { 0 },
        ..Default::default()
    };
    let (di, dout) = b.split(
        EX_HDR - HDR + size_of::<ExModifyQp>(),
        size_of::<ExModifyQpResp>(),
    );
    let r = with_uverbs(ctx, |u| u.modify_qp_ex(&req, di, dout))?;
    // The QP's state is not written here: ibv_modify_qp sets it after the
    // plugin's op, as with rdma-core 44, whose command leaves it alone.
    b.put(&r);
    Ok(())
}
