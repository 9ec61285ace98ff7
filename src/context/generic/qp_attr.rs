//! QP attributes between verbs.h and the kernel's MODIFY_QP / QUERY_QP
//! structs, for any provider that drives QPs through the legacy commands
//! (rxe, and the plugin host's ibv_cmd_modify_qp / ibv_cmd_query_qp).

use crate::abi::*;
use crate::entry::{Errno, Result};
use crate::uverbs::qp::{ModifyQp, QpDest, QueryQpResp};
use std::ffi::c_int;

pub(crate) fn dest(ah: &ibv_ah_attr) -> QpDest {
    QpDest {
        // SAFETY: every bit pattern of the union is a valid byte array.
        dgid: unsafe { ah.grh.dgid.raw },
        flow_label: ah.grh.flow_label,
        dlid: ah.dlid,
        reserved: 0,
        sgid_index: ah.grh.sgid_index,
        hop_limit: ah.grh.hop_limit,
        traffic_class: ah.grh.traffic_class,
        sl: ah.sl,
        src_path_bits: ah.src_path_bits,
        static_rate: ah.static_rate,
        is_global: ah.is_global,
        port_num: ah.port_num,
    }
}

pub(crate) fn ah_from(d: &QpDest) -> ibv_ah_attr {
    ibv_ah_attr {
        grh: ibv_global_route {
            dgid: ibv_gid { raw: d.dgid },
            flow_label: d.flow_label,
            sgid_index: d.sgid_index,
            hop_limit: d.hop_limit,
            traffic_class: d.traffic_class,
        },
        dlid: d.dlid,
        sl: d.sl,
        src_path_bits: d.src_path_bits,
        static_rate: d.static_rate,
        is_global: d.is_global,
        port_num: d.port_num,
    }
}

/// Masks from IBV_QP_RATE_LIMIT on need the extended command, which rxe's
/// modify and query do not use.
pub(crate) fn legacy_mask(mask: c_int) -> Result<u32> {
    let mask = mask as u32;
    if mask & !(IBV_QP_RATE_LIMIT - 1) != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    Ok(mask)
}

/// The MODIFY_QP request for `attr`/`mask` on QP `qp_handle`.
pub(crate) fn modify_req(qp_handle: u32, attr: &ibv_qp_attr, mask: c_int) -> Result<ModifyQp> {
    let m = legacy_mask(mask)?;
    let has = |bit: u32| m & bit != 0;
    let mut k = ModifyQp {
        qp_handle,
        attr_mask: m,
        ..Default::default()
    };
    if has(IBV_QP_STATE) {
        k.qp_state = attr.qp_state.0 as u8;
    }
    if has(IBV_QP_CUR_STATE) {
        k.cur_qp_state = attr.cur_qp_state.0 as u8;
    }
    if has(IBV_QP_EN_SQD_ASYNC_NOTIFY) {
        k.en_sqd_async_notify = attr.en_sqd_async_notify;
    }
    if has(IBV_QP_ACCESS_FLAGS) {
        k.qp_access_flags = attr.qp_access_flags;
    }
    if has(IBV_QP_PKEY_INDEX) {
        k.pkey_index = attr.pkey_index;
    }
    if has(IBV_QP_PORT) {
        k.port_num = attr.port_num;
    }
    if has(IBV_QP_QKEY) {
        k.qkey = attr.qkey;
    }
    if has(IBV_QP_AV) {
        k.dest = dest(&attr.ah_attr);
    }
    if has(IBV_QP_PATH_MTU) {
        k.path_mtu = attr.path_mtu.0 as u8;
    }
    if has(IBV_QP_TIMEOUT) {
        k.timeout = attr.timeout;
    }
    if has(IBV_QP_RETRY_CNT) {
        k.retry_cnt = attr.retry_cnt;
    }
    if has(IBV_QP_RNR_RETRY) {
        k.rnr_retry = attr.rnr_retry;
    }
    if has(IBV_QP_RQ_PSN) {
        k.rq_psn = attr.rq_psn;
    }
    if has(IBV_QP_MAX_QP_RD_ATOMIC) {
        k.max_rd_atomic = attr.max_rd_atomic;
    }
    if has(IBV_QP_ALT_PATH) {
        k.alt_pkey_index = attr.alt_pkey_index;
        k.alt_port_num = attr.alt_port_num;
        k.alt_timeout = attr.alt_timeout;
        k.alt_dest = dest(&attr.alt_ah_attr);
    }
    if has(IBV_QP_MIN_RNR_TIMER) {
        k.min_rnr_timer = attr.min_rnr_timer;
    }
    if has(IBV_QP_SQ_PSN) {
        k.sq_psn = attr.sq_psn;
    }
    if has(IBV_QP_MAX_DEST_RD_ATOMIC) {
        k.max_dest_rd_atomic = attr.max_dest_rd_atomic;
    }
    if has(IBV_QP_PATH_MIG_STATE) {
        k.path_mig_state = attr.path_mig_state.0 as u8;
    }
    if has(IBV_QP_DEST_QPN) {
        k.dest_qp_num = attr.dest_qp_num;
    }
    Ok(k)
}

/// Fills `attr` from a QUERY_QP response: exactly the fields rdma-core's
/// query fills; the rest stays as the caller had it. Returns the caps and
/// sq_sig_all for the init attributes.
pub(crate) fn query_into(r: &QueryQpResp, attr: &mut ibv_qp_attr) -> (ibv_qp_cap, c_int) {
    attr.qkey = r.qkey;
    attr.rq_psn = r.rq_psn;
    attr.sq_psn = r.sq_psn;
    attr.dest_qp_num = r.dest_qp_num;
    attr.qp_access_flags = r.qp_access_flags;
    attr.pkey_index = r.pkey_index;
    attr.alt_pkey_index = r.alt_pkey_index;
    attr.qp_state = ibv_qp_state(r.qp_state.into());
    attr.cur_qp_state = ibv_qp_state(r.cur_qp_state.into());
    attr.path_mtu = ibv_mtu(r.path_mtu.into());
    attr.path_mig_state = ibv_mig_state(r.path_mig_state.into());
    attr.sq_draining = r.sq_draining;
    attr.max_rd_atomic = r.max_rd_atomic;
    attr.max_dest_rd_atomic = r.max_dest_rd_atomic;
    attr.min_rnr_timer = r.min_rnr_timer;
    attr.port_num = r.port_num;
    attr.timeout = r.timeout;
    attr.retry_cnt = r.retry_cnt;
    attr.rnr_retry = r.rnr_retry;
    attr.alt_port_num = r.alt_port_num;
    attr.alt_timeout = r.alt_timeout;
    let cap = ibv_qp_cap {
        max_send_wr: r.max_send_wr,
        max_recv_wr: r.max_recv_wr,
        max_send_sge: r.max_send_sge,
        max_recv_sge: r.max_recv_sge,
        max_inline_data: r.max_inline_data,
    };
    attr.cap = cap;
    attr.ah_attr = ah_from(&r.dest);
    attr.alt_ah_attr = ah_from(&r.alt_dest);
    (cap, r.sq_sig_all.into())
}
