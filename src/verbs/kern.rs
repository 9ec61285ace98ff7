//! Converters between the kernel's and libibverbs' attribute layouts, which
//! librdmacm calls (declared in rdma-core's private headers, not verbs.h).

use crate::abi::*;
use crate::uverbs::qp::{AhAttr, QpAttr};

/// struct ibv_sa_path_rec of infiniband/sa.h.
#[repr(C)]
pub(crate) struct SaPathRec {
    dgid: ibv_gid,
    sgid: ibv_gid,
    dlid: u16,
    slid: u16,
    raw_traffic: i32,
    flow_label: u32,
    hop_limit: u8,
    traffic_class: u8,
    reversible: i32,
    numb_path: u8,
    pkey: u16,
    sl: u8,
    mtu_selector: u8,
    mtu: u8,
    rate_selector: u8,
    rate: u8,
    packet_life_time_selector: u8,
    packet_life_time: u8,
    preference: u8,
}
const _: () = assert!(size_of::<SaPathRec>() == 64);

/// struct ib_user_path_rec of rdma/ib_user_sa.h.
#[repr(C)]
pub(crate) struct UserPathRec {
    dgid: [u8; 16],
    sgid: [u8; 16],
    dlid: u16,
    slid: u16,
    raw_traffic: u32,
    flow_label: u32,
    reversible: u32,
    mtu: u32,
    pkey: u16,
    hop_limit: u8,
    traffic_class: u8,
    numb_path: u8,
    sl: u8,
    mtu_selector: u8,
    rate_selector: u8,
    rate: u8,
    packet_life_time_selector: u8,
    packet_life_time: u8,
    preference: u8,
}
const _: () = assert!(size_of::<UserPathRec>() == 64);

fn ah_from_kern(dst: &mut ibv_ah_attr, src: &AhAttr) {
    dst.grh.dgid = ibv_gid { raw: src.grh.dgid };
    dst.grh.flow_label = src.grh.flow_label;
    dst.grh.sgid_index = src.grh.sgid_index;
    dst.grh.hop_limit = src.grh.hop_limit;
    dst.grh.traffic_class = src.grh.traffic_class;
    dst.dlid = src.dlid;
    dst.sl = src.sl;
    dst.src_path_bits = src.src_path_bits;
    dst.static_rate = src.static_rate;
    dst.is_global = src.is_global;
    dst.port_num = src.port_num;
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_copy_ah_attr_from_kern(dst: *mut ibv_ah_attr, src: *mut AhAttr) {
    // SAFETY: the caller's structs; NULL is ignored instead of crashing.
    if let (Some(d), Some(s)) = unsafe { (dst.as_mut(), src.as_ref()) } {
        ah_from_kern(d, s);
    }
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_copy_qp_attr_from_kern(dst: *mut ibv_qp_attr, src: *mut QpAttr) {
    // SAFETY: the caller's structs; NULL is ignored instead of crashing.
    let (Some(d), Some(s)) = (unsafe { (dst.as_mut(), src.as_ref()) }) else {
        return;
    };
    // qp_state is left alone, as rdma-core leaves it.
    d.cur_qp_state = ibv_qp_state(s.cur_qp_state);
    d.path_mtu = ibv_mtu(s.path_mtu);
    d.path_mig_state = ibv_mig_state(s.path_mig_state);
    d.qkey = s.qkey;
    d.rq_psn = s.rq_psn;
    d.sq_psn = s.sq_psn;
    d.dest_qp_num = s.dest_qp_num;
    d.qp_access_flags = s.qp_access_flags;
    d.cap.max_send_wr = s.max_send_wr;
    d.cap.max_recv_wr = s.max_recv_wr;
    d.cap.max_send_sge = s.max_send_sge;
    d.cap.max_recv_sge = s.max_recv_sge;
    d.cap.max_inline_data = s.max_inline_data;
    ah_from_kern(&mut d.ah_attr, &s.ah_attr);
    ah_from_kern(&mut d.alt_ah_attr, &s.alt_ah_attr);
    d.pkey_index = s.pkey_index;
    d.alt_pkey_index = s.alt_pkey_index;
    d.en_sqd_async_notify = s.en_sqd_async_notify;
    d.sq_draining = s.sq_draining;
    d.max_rd_atomic = s.max_rd_atomic;
    d.max_dest_rd_atomic = s.max_dest_rd_atomic;
    d.min_rnr_timer = s.min_rnr_timer;
    d.port_num = s.port_num;
    d.timeout = s.timeout;
    d.retry_cnt = s.retry_cnt;
    d.rnr_retry = s.rnr_retry;
    d.alt_port_num = s.alt_port_num;
    d.alt_timeout = s.alt_timeout;
}

/// Copies the fields the two path record layouts share, in either direction.
macro_rules! copy_path_fields {
    ($d:ident, $s:ident, $conv:ty, $back:ty) => {
        $d.dlid = $s.dlid;
        $d.slid = $s.slid;
        $d.raw_traffic = $s.raw_traffic as $conv;
        $d.flow_label = $s.flow_label;
        $d.hop_limit = $s.hop_limit;
        $d.traffic_class = $s.traffic_class;
        $d.reversible = $s.reversible as $conv;
        $d.numb_path = $s.numb_path;
        $d.pkey = $s.pkey;
        $d.sl = $s.sl;
        $d.mtu_selector = $s.mtu_selector;
        $d.mtu = $s.mtu as $back;
        $d.rate_selector = $s.rate_selector;
        $d.rate = $s.rate;
        $d.packet_life_time = $s.packet_life_time;
        $d.preference = $s.preference;
        $d.packet_life_time_selector = $s.packet_life_time_selector;
    };
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_copy_path_rec_from_kern(dst: *mut SaPathRec, src: *mut UserPathRec) {
    // SAFETY: the caller's structs; NULL is ignored instead of crashing.
    let (Some(d), Some(s)) = (unsafe { (dst.as_mut(), src.as_ref()) }) else {
        return;
    };
    d.dgid = ibv_gid { raw: s.dgid };
    d.sgid = ibv_gid { raw: s.sgid };
    copy_path_fields!(d, s, i32, u8);
}

#[unsafe(no_mangle)]
#[entry(value(()))]
pub unsafe extern "C" fn ibv_copy_path_rec_to_kern(dst: *mut UserPathRec, src: *mut SaPathRec) {
    // SAFETY: the caller's structs; NULL is ignored instead of crashing.
    let (Some(d), Some(s)) = (unsafe { (dst.as_mut(), src.as_ref()) }) else {
        return;
    };
    // SAFETY: every bit pattern of the GID union is a valid byte array.
    (d.dgid, d.sgid) = unsafe { (s.dgid.raw, s.sgid.raw) };
    copy_path_fields!(d, s, u32, u32);
}
