//! ibv_cmd_create_qp_ex (the legacy CREATE_QP command from an extended
//! attribute set, XRC included) and ibv_cmd_modify_qp_ex (the extended
//! MODIFY_QP command, which carries the rate limit).

use super::{EX_HDR, HDR, drv_in, drv_out, handle_of, init_qp, put_resp};
use crate::abi::*;
use crate::context::generic;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::providers::plugin::objects::Kind;
use crate::uverbs::qp::{CreateQp, CreateQpResp, ExModifyQp, ExModifyQpResp};
use std::ffi::{c_int, c_void};

const VERBS_QP_XRCD: u32 = 1 << 0;

pub unsafe fn create_qp_ex(
    ctx: *mut ibv_context,
    vqp: *mut verbs_qp,
    attr: *mut ibv_qp_init_attr_ex,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    use ibv_qp_init_attr_mask as m;
    // SAFETY: the caller's attributes.
    let a = unsafe { attr.as_mut() }.ok_or(Errno::EINVAL)?;
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
    let req = CreateQp {
        user_handle: vqp as u64,
        pd_handle,
        send_cq_handle: handle_of(a.send_cq, Kind::Cq)?,
        recv_cq_handle: handle_of(a.recv_cq, Kind::Cq)?,
        srq_handle: handle_of(a.srq, Kind::Srq)?,
        max_send_wr: a.cap.max_send_wr,
        max_recv_wr: a.cap.max_recv_wr,
        max_send_sge: a.cap.max_send_sge,
        max_recv_sge: a.cap.max_recv_sge,
        max_inline_data: a.cap.max_inline_data,
        sq_sig_all: a.sq_sig_all as u8,
        qp_type: a.qp_type.0 as u8,
        is_srq: (!a.srq.is_null()) as u8,
        ..Default::default()
    };
    // SAFETY: the plugin's buffers (struct ibv_create_qp, then its own data).
    let (di, dout) = unsafe {
        (
            drv_in(cmd, cmd_size, size_of::<CreateQp>()),
            drv_out(resp, resp_size, size_of::<CreateQpResp>()),
        )
    };
    let r = with_uverbs(ctx, |u| u.create_qp(&req, di, dout))?;
    a.cap.max_send_wr = r.max_send_wr;
    a.cap.max_recv_wr = r.max_recv_wr;
    a.cap.max_send_sge = r.max_send_sge;
    a.cap.max_recv_sge = r.max_recv_sge;
    a.cap.max_inline_data = r.max_inline_data;
    let init = ibv_qp_init_attr {
        qp_context: a.qp_context,
        send_cq: a.send_cq,
        recv_cq: a.recv_cq,
        srq: a.srq,
        cap: a.cap,
        qp_type: a.qp_type,
        sq_sig_all: a.sq_sig_all,
    };
    let pd = if xrcd.is_null() {
        a.pd
    } else {
        std::ptr::null_mut()
    };
    // SAFETY: the plugin's new QP (a verbs_qp, ibv_qp at its head).
    unsafe {
        init_qp(vqp.cast(), ctx, &init, pd, r.qp_handle, r.qpn);
        (*vqp).comp_mask = if xrcd.is_null() { 0 } else { VERBS_QP_XRCD };
        (*vqp).xrcd = xrcd;
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub unsafe fn modify_qp_ex(
    qp: *mut ibv_qp,
    attr: *mut ibv_qp_attr,
    mask: c_int,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a QP of the plugin; the caller's attributes.
    let (ctx, h, a) = unsafe {
        (
            (*qp).context,
            (*qp).handle,
            attr.as_ref().ok_or(Errno::EINVAL)?,
        )
    };
    let rate = mask as u32 & IBV_QP_RATE_LIMIT != 0;
    let mut base = generic::qp_attr::modify_req(h, a, (mask as u32 & !IBV_QP_RATE_LIMIT) as c_int)?;
    base.attr_mask = mask as u32;
    // The plugin's struct must reach the rate limit to carry it (rdma-core's check).
    let rate_end = EX_HDR + std::mem::offset_of!(ExModifyQp, rate_limit) + 4;
    if rate && cmd_size < rate_end {
        return Err(Errno::EINVAL);
    }
    let req = ExModifyQp {
        base,
        rate_limit: if rate { a.rate_limit } else { 0 },
        ..Default::default()
    };
    // SAFETY: the plugin's buffers.
    let (di, dout) = unsafe {
        (
            drv_in(cmd, cmd_size, EX_HDR - HDR + size_of::<ExModifyQp>()),
            drv_out(resp, resp_size, size_of::<ExModifyQpResp>()),
        )
    };
    let r = with_uverbs(ctx, |u| u.modify_qp_ex(&req, di, dout))?;
    // SAFETY: as above.
    unsafe {
        if mask as u32 & IBV_QP_STATE != 0 {
            (*qp).state = a.qp_state;
        }
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}
