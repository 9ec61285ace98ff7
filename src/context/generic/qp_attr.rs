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
#[inline(always)]
pub(crate) fn modify_req(qp_handle: u32, attr: &ibv_qp_attr, mask: c_int) -> Result<ModifyQp> {
    let mut k = ModifyQp::default();
    modify_fill(&mut k, qp_handle, attr, mask)?;
    Ok(k)
}

/// As [`modify_req`], into a zeroed request the caller keeps (built in
/// place: a returned 112-byte request was copied once or twice more, about
/// 50 instructions of a modify's 170 here). rdma-core's
/// copy_modify_qp_fields: only the fields the mask names are read, the
/// others stay zero (the same bytes as rdma-core's zeroed command).
#[inline(always)]
pub(crate) fn modify_fill(
    k: &mut ModifyQp,
    qp_handle: u32,
    attr: &ibv_qp_attr,
    mask: c_int,
) -> Result<()> {
    let m = legacy_mask(mask)?;
    let has = |bit: u32| m & bit != 0;
    k.qp_handle = qp_handle;
    k.attr_mask = m;
    // The bits in three groups, each tested once before its bits: a
    // modify names 4 to 7 of the 21, and INIT's are all in the first.
    const LOW: u32 = IBV_QP_AV * 2 - 1;
    const MID: u32 = (IBV_QP_MIN_RNR_TIMER * 2 - 1) & !LOW;
    if m & LOW != 0 {
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
    }
    if m & MID != 0 {
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
    }
    if m & !(LOW | MID) != 0 {
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
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uverbs::pod::Pod;

    fn ah(b: u8) -> ibv_ah_attr {
        ibv_ah_attr {
            grh: ibv_global_route {
                dgid: ibv_gid { raw: [b; 16] },
                flow_label: u32::from(b) + 1,
                sgid_index: b + 2,
                hop_limit: b + 3,
                traffic_class: b + 4,
            },
            dlid: u16::from(b) + 5,
            sl: b + 6,
            src_path_bits: b + 7,
            static_rate: b + 8,
            is_global: b + 9,
            port_num: b + 10,
        }
    }

    /// Every field set, each to its own value.
    fn attr() -> ibv_qp_attr {
        ibv_qp_attr {
            qp_state: ibv_qp_state(3),
            cur_qp_state: ibv_qp_state(2),
            path_mtu: ibv_mtu(4),
            path_mig_state: ibv_mig_state(1),
            qkey: 0x1111,
            rq_psn: 0x2222,
            sq_psn: 0x3333,
            dest_qp_num: 0x4444,
            qp_access_flags: 0x5,
            cap: ibv_qp_cap {
                max_send_wr: 6,
                max_recv_wr: 7,
                max_send_sge: 8,
                max_recv_sge: 9,
                max_inline_data: 10,
            },
            ah_attr: ah(20),
            alt_ah_attr: ah(40),
            pkey_index: 11,
            alt_pkey_index: 12,
            en_sqd_async_notify: 13,
            sq_draining: 14,
            max_rd_atomic: 15,
            max_dest_rd_atomic: 16,
            min_rnr_timer: 17,
            port_num: 18,
            timeout: 19,
            retry_cnt: 21,
            rnr_retry: 22,
            alt_port_num: 23,
            alt_timeout: 24,
            rate_limit: 25,
        }
    }

    /// The request as a copy of every field with the unnamed ones zeroed
    /// afterwards (what the masked copy must equal byte for byte).
    fn full_then_masked(h: u32, a: &ibv_qp_attr, m: u32) -> ModifyQp {
        let mut k = ModifyQp {
            qp_handle: h,
            attr_mask: m,
            dest: dest(&a.ah_attr),
            alt_dest: dest(&a.alt_ah_attr),
            qkey: a.qkey,
            rq_psn: a.rq_psn,
            sq_psn: a.sq_psn,
            dest_qp_num: a.dest_qp_num,
            qp_access_flags: a.qp_access_flags,
            pkey_index: a.pkey_index,
            alt_pkey_index: a.alt_pkey_index,
            qp_state: a.qp_state.0 as u8,
            cur_qp_state: a.cur_qp_state.0 as u8,
            path_mtu: a.path_mtu.0 as u8,
            path_mig_state: a.path_mig_state.0 as u8,
            en_sqd_async_notify: a.en_sqd_async_notify,
            max_rd_atomic: a.max_rd_atomic,
            max_dest_rd_atomic: a.max_dest_rd_atomic,
            min_rnr_timer: a.min_rnr_timer,
            port_num: a.port_num,
            timeout: a.timeout,
            retry_cnt: a.retry_cnt,
            rnr_retry: a.rnr_retry,
            alt_port_num: a.alt_port_num,
            alt_timeout: a.alt_timeout,
            reserved: [0; 2],
        };
        let z = ModifyQp::default();
        let off = |bit: u32| m & bit == 0;
        macro_rules! zero {
            ($($bit:ident: $($f:ident),+;)*) => {$(
                if off($bit) { $(k.$f = z.$f;)+ }
            )*};
        }
        zero! {
            IBV_QP_STATE: qp_state;
            IBV_QP_CUR_STATE: cur_qp_state;
            IBV_QP_EN_SQD_ASYNC_NOTIFY: en_sqd_async_notify;
            IBV_QP_ACCESS_FLAGS: qp_access_flags;
            IBV_QP_PKEY_INDEX: pkey_index;
            IBV_QP_PORT: port_num;
            IBV_QP_QKEY: qkey;
            IBV_QP_AV: dest;
            IBV_QP_PATH_MTU: path_mtu;
            IBV_QP_TIMEOUT: timeout;
            IBV_QP_RETRY_CNT: retry_cnt;
            IBV_QP_RNR_RETRY: rnr_retry;
            IBV_QP_RQ_PSN: rq_psn;
            IBV_QP_MAX_QP_RD_ATOMIC: max_rd_atomic;
            IBV_QP_ALT_PATH: alt_pkey_index, alt_port_num, alt_timeout, alt_dest;
            IBV_QP_MIN_RNR_TIMER: min_rnr_timer;
            IBV_QP_SQ_PSN: sq_psn;
            IBV_QP_MAX_DEST_RD_ATOMIC: max_dest_rd_atomic;
            IBV_QP_PATH_MIG_STATE: path_mig_state;
            IBV_QP_DEST_QPN: dest_qp_num;
        }
        k
    }

    #[test]
    fn modify_copies_only_masked_fields() {
        let a = attr();
        let init = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
        let rtr = IBV_QP_STATE
            | IBV_QP_AV
            | IBV_QP_PATH_MTU
            | IBV_QP_DEST_QPN
            | IBV_QP_RQ_PSN
            | IBV_QP_MAX_DEST_RD_ATOMIC
            | IBV_QP_MIN_RNR_TIMER;
        let rts = IBV_QP_STATE
            | IBV_QP_TIMEOUT
            | IBV_QP_RETRY_CNT
            | IBV_QP_RNR_RETRY
            | IBV_QP_SQ_PSN
            | IBV_QP_MAX_QP_RD_ATOMIC;
        let mut masks = vec![0, init, rtr, rts, IBV_QP_RATE_LIMIT - 1, IBV_QP_CAP];
        masks.extend((0..20).map(|b| 1u32 << b));
        masks.extend((0..64).map(|i: u32| i.wrapping_mul(0x9e37_79b9) & (IBV_QP_RATE_LIMIT - 1)));
        for m in masks {
            let k = modify_req(7, &a, m as c_int).expect("legacy mask");
            let want = full_then_masked(7, &a, m);
            assert_eq!(k.as_bytes(), want.as_bytes(), "mask {m:#x}");
            let mut k = ModifyQp::default();
            modify_fill(&mut k, 7, &a, m as c_int).expect("legacy mask");
            assert_eq!(k.as_bytes(), want.as_bytes(), "mask {m:#x}");
        }
        assert_eq!(
            modify_req(7, &a, IBV_QP_RATE_LIMIT as c_int).err(),
            Some(Errno::EOPNOTSUPP)
        );
    }
}
