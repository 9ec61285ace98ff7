//! `IBVERBS_PRIVATE_65`: rdma-core 65's private provider ABI, byte for byte
//! (tests/abi/private65/facts.txt). What differs from v34 is data in the
//! [`super::Pabi`] row: the op table (by slot name), the `verbs_context`
//! (rdma-core 64's: op slots in front of 34's) and `verbs_qp` (its
//! `ibv_qp_ex` has `wr_flush`). Every other struct is v34's, and the
//! structs below only exist for the layout check and future use.

use super::v34::verbs_xrcd;
use crate::abi::*;
use std::ffi::{c_int, c_uint, c_void};

/// `struct ibv_buf` of driver.h (opaque in verbs.h).
#[repr(C)]
pub struct ibv_buf {
    pub addr: *mut c_void,
    pub size: usize,
    pub pd: *mut ibv_pd,
    pub dmabuf_fd: c_int,
}

context_ops! {
    advise_mr: fn(*mut ibv_pd, ib_uverbs_advise_mr_advice, u32, *mut ibv_sge, u32) -> c_int,
    alloc_buf: fn(*mut ibv_pd, usize, *mut *mut ibv_buf) -> *mut c_void,
    alloc_dm: fn(*mut ibv_context, *mut ibv_alloc_dm_attr) -> *mut ibv_dm,
    alloc_dmah: fn(*mut ibv_context, *mut ibv_dmah_init_attr) -> *mut ibv_dmah,
    alloc_mw: fn(*mut ibv_pd, ibv_mw_type) -> *mut ibv_mw,
    alloc_null_mr: fn(*mut ibv_pd) -> *mut ibv_mr,
    alloc_parent_domain: fn(*mut ibv_context, *mut ibv_parent_domain_init_attr) -> *mut ibv_pd,
    alloc_pd: fn(*mut ibv_context) -> *mut ibv_pd,
    alloc_td: fn(*mut ibv_context, *mut ibv_td_init_attr) -> *mut ibv_td,
    async_event: fn(*mut ibv_context, *mut ibv_async_event),
    attach_counters_point_flow: fn(*mut ibv_counters, *mut ibv_counter_attach_attr, *mut ibv_flow) -> c_int,
    attach_mcast: fn(*mut ibv_qp, *const ibv_gid, u16) -> c_int,
    bind_mw: fn(*mut ibv_qp, *mut ibv_mw, *mut ibv_mw_bind) -> c_int,
    close_xrcd: fn(*mut ibv_xrcd) -> c_int,
    cq_event: fn(*mut ibv_cq),
    create_ah: fn(*mut ibv_pd, *mut ibv_ah_attr) -> *mut ibv_ah,
    create_comp_cntr: fn(*mut ibv_context, *mut ibv_comp_cntr_init_attr) -> *mut ibv_comp_cntr,
    create_counters: fn(*mut ibv_context, *mut ibv_counters_init_attr) -> *mut ibv_counters,
    create_cq: fn(*mut ibv_context, c_int, *mut ibv_comp_channel, c_int) -> *mut ibv_cq,
    create_cq_ex: fn(*mut ibv_context, *mut ibv_cq_init_attr_ex) -> *mut ibv_cq_ex,
    create_flow: fn(*mut ibv_qp, *mut ibv_flow_attr) -> *mut ibv_flow,
    create_flow_action_esp: fn(*mut ibv_context, *mut ibv_flow_action_esp_attr) -> *mut ibv_flow_action,
    create_qp: fn(*mut ibv_pd, *mut ibv_qp_init_attr) -> *mut ibv_qp,
    create_qp_ex: fn(*mut ibv_context, *mut ibv_qp_init_attr_ex) -> *mut ibv_qp,
    create_rwq_ind_table: fn(*mut ibv_context, *mut ibv_rwq_ind_table_init_attr) -> *mut ibv_rwq_ind_table,
    create_srq: fn(*mut ibv_pd, *mut ibv_srq_init_attr) -> *mut ibv_srq,
    create_srq_ex: fn(*mut ibv_context, *mut ibv_srq_init_attr_ex) -> *mut ibv_srq,
    create_wq: fn(*mut ibv_context, *mut ibv_wq_init_attr) -> *mut ibv_wq,
    dealloc_dmah: fn(*mut ibv_dmah) -> c_int,
    dealloc_mw: fn(*mut ibv_mw) -> c_int,
    dealloc_pd: fn(*mut ibv_pd) -> c_int,
    dealloc_td: fn(*mut ibv_td) -> c_int,
    dereg_mr: fn(*mut super::v34::verbs_mr) -> c_int,
    destroy_ah: fn(*mut ibv_ah) -> c_int,
    destroy_comp_cntr: fn(*mut ibv_comp_cntr) -> c_int,
    destroy_counters: fn(*mut ibv_counters) -> c_int,
    destroy_cq: fn(*mut ibv_cq) -> c_int,
    destroy_flow: fn(*mut ibv_flow) -> c_int,
    destroy_flow_action: fn(*mut ibv_flow_action) -> c_int,
    destroy_qp: fn(*mut ibv_qp) -> c_int,
    destroy_rwq_ind_table: fn(*mut ibv_rwq_ind_table) -> c_int,
    destroy_srq: fn(*mut ibv_srq) -> c_int,
    destroy_wq: fn(*mut ibv_wq) -> c_int,
    detach_mcast: fn(*mut ibv_qp, *const ibv_gid, u16) -> c_int,
    dm_export_dmabuf_fd: fn(*mut ibv_dm) -> c_int,
    free_buf: fn(*mut ibv_buf),
    free_context: fn(*mut ibv_context),
    free_dm: fn(*mut ibv_dm) -> c_int,
    get_srq_num: fn(*mut ibv_srq, *mut u32) -> c_int,
    import_dm: fn(*mut ibv_context, u32) -> *mut ibv_dm,
    import_mr: fn(*mut ibv_pd, u32) -> *mut ibv_mr,
    import_pd: fn(*mut ibv_context, u32) -> *mut ibv_pd,
    inc_comp_cntr: fn(*mut ibv_comp_cntr, u64) -> c_int,
    inc_err_comp_cntr: fn(*mut ibv_comp_cntr, u64) -> c_int,
    modify_cq: fn(*mut ibv_cq, *mut ibv_modify_cq_attr) -> c_int,
    modify_flow_action_esp: fn(*mut ibv_flow_action, *mut ibv_flow_action_esp_attr) -> c_int,
    modify_qp: fn(*mut ibv_qp, *mut ibv_qp_attr, c_int) -> c_int,
    modify_qp_rate_limit: fn(*mut ibv_qp, *mut ibv_qp_rate_limit_attr) -> c_int,
    modify_srq: fn(*mut ibv_srq, *mut ibv_srq_attr, c_int) -> c_int,
    modify_wq: fn(*mut ibv_wq, *mut ibv_wq_attr) -> c_int,
    open_qp: fn(*mut ibv_context, *mut ibv_qp_open_attr) -> *mut ibv_qp,
    open_xrcd: fn(*mut ibv_context, *mut ibv_xrcd_init_attr) -> *mut ibv_xrcd,
    poll_cq: fn(*mut ibv_cq, c_int, *mut ibv_wc) -> c_int,
    post_recv: fn(*mut ibv_qp, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
    post_send: fn(*mut ibv_qp, *mut ibv_send_wr, *mut *mut ibv_send_wr) -> c_int,
    post_srq_ops: fn(*mut ibv_srq, *mut ibv_ops_wr, *mut *mut ibv_ops_wr) -> c_int,
    post_srq_recv: fn(*mut ibv_srq, *mut ibv_recv_wr, *mut *mut ibv_recv_wr) -> c_int,
    qp_attach_comp_cntr: fn(*mut ibv_qp, *mut ibv_comp_cntr, *mut ibv_qp_attach_comp_cntr_attr) -> c_int,
    query_comp_cntr_caps: fn(*mut ibv_context, *mut ibv_comp_cntr_caps, usize) -> c_int,
    query_device_ex: fn(*mut ibv_context, *const ibv_query_device_ex_input, *mut ibv_device_attr_ex, usize) -> c_int,
    query_ece: fn(*mut ibv_qp, *mut ibv_ece) -> c_int,
    query_port: fn(*mut ibv_context, u8, *mut ibv_port_attr) -> c_int,
    query_port_speed: fn(*mut ibv_context, u32, *mut u64) -> c_int,
    query_qp: fn(*mut ibv_qp, *mut ibv_qp_attr, c_int, *mut ibv_qp_init_attr) -> c_int,
    query_qp_data_in_order: fn(*mut ibv_qp, ibv_wr_opcode, u32) -> c_int,
    query_rt_values: fn(*mut ibv_context, *mut ibv_values_ex) -> c_int,
    query_srq: fn(*mut ibv_srq, *mut ibv_srq_attr) -> c_int,
    read_comp_cntr: fn(*mut ibv_comp_cntr, *mut u64) -> c_int,
    read_counters: fn(*mut ibv_counters, *mut u64, u32, u32) -> c_int,
    read_err_comp_cntr: fn(*mut ibv_comp_cntr, *mut u64) -> c_int,
    reg_dm_mr: fn(*mut ibv_pd, *mut ibv_dm, u64, usize, c_uint) -> *mut ibv_mr,
    reg_dmabuf_mr: fn(*mut ibv_pd, u64, usize, u64, c_int, c_int) -> *mut ibv_mr,
    reg_mr: fn(*mut ibv_pd, *mut c_void, usize, u64, c_int) -> *mut ibv_mr,
    reg_mr_ex: fn(*mut ibv_pd, *mut ibv_mr_init_attr) -> *mut ibv_mr,
    req_notify_cq: fn(*mut ibv_cq, c_int) -> c_int,
    rereg_mr: fn(*mut super::v34::verbs_mr, c_int, *mut ibv_pd, *mut c_void, usize, c_int) -> c_int,
    resize_cq: fn(*mut ibv_cq, c_int) -> c_int,
    set_comp_cntr: fn(*mut ibv_comp_cntr, u64) -> c_int,
    set_ece: fn(*mut ibv_qp, *mut ibv_ece) -> c_int,
    set_err_comp_cntr: fn(*mut ibv_comp_cntr, u64) -> c_int,
    unimport_dm: fn(*mut ibv_dm),
    unimport_mr: fn(*mut ibv_mr),
    unimport_pd: fn(*mut ibv_pd),
}

/// `struct verbs_qp`: `qp` and `qp_ex` share its start; rdma-core 64's
/// `ibv_qp_ex`, with `wr_flush`.
#[repr(C)]
pub struct verbs_qp {
    pub qp_ex: ibv_qp_ex,
    pub comp_mask: u32,
    pub xrcd: *mut verbs_xrcd,
}

/// `struct verbs_dmah`
#[repr(C)]
pub struct verbs_dmah {
    pub dmah: ibv_dmah,
    pub handle: u32,
}

/// `struct verbs_create_cq_prov_attr`: a CQ's buffer, given by the
/// provider: `length`, then `ptr` or the dma-buf's `offset` and `fd`.
#[repr(C)]
pub struct verbs_create_cq_prov_attr {
    pub buffer: [u64; 3],
}

#[cfg(test)]
mod tests;
