//! The device context: `ibv_context`, its legacy op table and the extended
//! `verbs_context` that C code reaches by stepping back from an `ibv_context`.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_context_ops {
    pub _compat_query_device: Option<
        unsafe extern "C" fn(context: *mut ibv_context, device_attr: *mut ibv_device_attr) -> c_int,
    >,
    pub _compat_query_port: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            port_num: u8,
            port_attr: *mut _compat_ibv_port_attr,
        ) -> c_int,
    >,
    pub _compat_alloc_pd: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_dealloc_pd: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_reg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_rereg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_dereg_mr: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub alloc_mw: Option<unsafe extern "C" fn(pd: *mut ibv_pd, r#type: ibv_mw_type) -> *mut ibv_mw>,
    pub bind_mw: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, mw: *mut ibv_mw, mw_bind: *mut ibv_mw_bind) -> c_int,
    >,
    pub dealloc_mw: Option<unsafe extern "C" fn(mw: *mut ibv_mw) -> c_int>,
    pub _compat_create_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub poll_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, num_entries: c_int, wc: *mut ibv_wc) -> c_int>,
    pub req_notify_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, solicited_only: c_int) -> c_int>,
    pub _compat_cq_event: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_resize_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_cq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_create_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_modify_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_query_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_srq: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub post_srq_recv: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            recv_wr: *mut ibv_recv_wr,
            bad_recv_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub _compat_create_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_query_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_modify_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_qp: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub post_send: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            wr: *mut ibv_send_wr,
            bad_wr: *mut *mut ibv_send_wr,
        ) -> c_int,
    >,
    pub post_recv: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp,
            wr: *mut ibv_recv_wr,
            bad_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub _compat_create_ah: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_destroy_ah: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_attach_mcast: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_detach_mcast: Option<unsafe extern "C" fn() -> *mut c_void>,
    pub _compat_async_event: Option<unsafe extern "C" fn() -> *mut c_void>,
}
layout!(ibv_context_ops, 256, 8;
    _compat_query_device: 0, _compat_query_port: 8, _compat_alloc_pd: 16, _compat_dealloc_pd: 24,
    _compat_reg_mr: 32, _compat_rereg_mr: 40, _compat_dereg_mr: 48, alloc_mw: 56, bind_mw: 64,
    dealloc_mw: 72, _compat_create_cq: 80, poll_cq: 88, req_notify_cq: 96, _compat_cq_event: 104,
    _compat_resize_cq: 112, _compat_destroy_cq: 120, _compat_create_srq: 128,
    _compat_modify_srq: 136, _compat_query_srq: 144, _compat_destroy_srq: 152, post_srq_recv: 160,
    _compat_create_qp: 168, _compat_query_qp: 176, _compat_modify_qp: 184, _compat_destroy_qp: 192,
    post_send: 200, post_recv: 208, _compat_create_ah: 216, _compat_destroy_ah: 224,
    _compat_attach_mcast: 232, _compat_detach_mcast: 240, _compat_async_event: 248,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_context {
    pub device: *mut ibv_device,
    pub ops: ibv_context_ops,
    pub cmd_fd: c_int,
    pub async_fd: c_int,
    pub num_comp_vectors: c_int,
    pub mutex: pthread_mutex_t,
    pub abi_compat: *mut c_void,
}
layout!(ibv_context, 328, 8;
    device: 0, ops: 8, cmd_fd: 264, async_fd: 268, num_comp_vectors: 272, mutex: 280,
    abi_compat: 320,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_values_ex {
    pub comp_mask: u32,
    pub raw_clock: timespec,
}
layout!(ibv_values_ex, 24, 8; comp_mask: 0, raw_clock: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct verbs_context {
    // rdma-core 64's ops, before 44's: the struct grows towards lower addresses
    // (programs reach it by container_of from `context`), so 44's members keep
    // their place relative to `context` and a 44 caller sees a 44 verbs_context.
    pub free_buf: Option<unsafe extern "C" fn(buf: *mut ibv_buf)>,
    pub alloc_buf: Option<
        unsafe extern "C" fn(pd: *mut ibv_pd, size: usize, buf: *mut *mut ibv_buf) -> *mut c_void,
    >,
    pub dm_export_dmabuf_fd: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub reg_mr_ex: Option<
        unsafe extern "C" fn(pd: *mut ibv_pd, mr_init_attr: *mut ibv_mr_init_attr) -> *mut ibv_mr,
    >,
    pub dealloc_dmah: Option<unsafe extern "C" fn(dmah: *mut ibv_dmah) -> c_int>,
    pub alloc_dmah: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_dmah_init_attr,
        ) -> *mut ibv_dmah,
    >,
    pub query_port: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            port_num: u8,
            port_attr: *mut ibv_port_attr,
            port_attr_len: usize,
        ) -> c_int,
    >,
    pub advise_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            advice: ib_uverbs_advise_mr_advice,
            flags: u32,
            sg_list: *mut ibv_sge,
            num_sges: u32,
        ) -> c_int,
    >,
    pub alloc_null_mr: Option<unsafe extern "C" fn(pd: *mut ibv_pd) -> *mut ibv_mr>,
    pub read_counters: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            counters_value: *mut u64,
            ncounters: u32,
            flags: u32,
        ) -> c_int,
    >,
    pub attach_counters_point_flow: Option<
        unsafe extern "C" fn(
            counters: *mut ibv_counters,
            attr: *mut ibv_counter_attach_attr,
            flow: *mut ibv_flow,
        ) -> c_int,
    >,
    pub create_counters: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_counters_init_attr,
        ) -> *mut ibv_counters,
    >,
    pub destroy_counters: Option<unsafe extern "C" fn(counters: *mut ibv_counters) -> c_int>,
    pub reg_dm_mr: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            dm: *mut ibv_dm,
            dm_offset: u64,
            length: usize,
            access: c_uint,
        ) -> *mut ibv_mr,
    >,
    pub alloc_dm: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_alloc_dm_attr,
        ) -> *mut ibv_dm,
    >,
    pub free_dm: Option<unsafe extern "C" fn(dm: *mut ibv_dm) -> c_int>,
    pub modify_flow_action_esp: Option<
        unsafe extern "C" fn(
            action: *mut ibv_flow_action,
            attr: *mut ibv_flow_action_esp_attr,
        ) -> c_int,
    >,
    pub destroy_flow_action: Option<unsafe extern "C" fn(action: *mut ibv_flow_action) -> c_int>,
    pub create_flow_action_esp: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_flow_action_esp_attr,
        ) -> *mut ibv_flow_action,
    >,
    pub modify_qp_rate_limit:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp, attr: *mut ibv_qp_rate_limit_attr) -> c_int>,
    pub alloc_parent_domain: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            attr: *mut ibv_parent_domain_init_attr,
        ) -> *mut ibv_pd,
    >,
    pub dealloc_td: Option<unsafe extern "C" fn(td: *mut ibv_td) -> c_int>,
    pub alloc_td: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_td_init_attr,
        ) -> *mut ibv_td,
    >,
    pub modify_cq:
        Option<unsafe extern "C" fn(cq: *mut ibv_cq, attr: *mut ibv_modify_cq_attr) -> c_int>,
    pub post_srq_ops: Option<
        unsafe extern "C" fn(
            srq: *mut ibv_srq,
            op: *mut ibv_ops_wr,
            bad_op: *mut *mut ibv_ops_wr,
        ) -> c_int,
    >,
    pub destroy_rwq_ind_table:
        Option<unsafe extern "C" fn(rwq_ind_table: *mut ibv_rwq_ind_table) -> c_int>,
    pub create_rwq_ind_table: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_rwq_ind_table_init_attr,
        ) -> *mut ibv_rwq_ind_table,
    >,
    pub destroy_wq: Option<unsafe extern "C" fn(wq: *mut ibv_wq) -> c_int>,
    pub modify_wq:
        Option<unsafe extern "C" fn(wq: *mut ibv_wq, wq_attr: *mut ibv_wq_attr) -> c_int>,
    pub create_wq: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            wq_init_attr: *mut ibv_wq_init_attr,
        ) -> *mut ibv_wq,
    >,
    pub query_rt_values: Option<
        unsafe extern "C" fn(context: *mut ibv_context, values: *mut ibv_values_ex) -> c_int,
    >,
    pub create_cq_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            init_attr: *mut ibv_cq_init_attr_ex,
        ) -> *mut ibv_cq_ex,
    >,
    pub r#priv: *mut verbs_ex_private,
    pub query_device_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            input: *const ibv_query_device_ex_input,
            attr: *mut ibv_device_attr_ex,
            attr_size: usize,
        ) -> c_int,
    >,
    pub ibv_destroy_flow: Option<unsafe extern "C" fn(flow: *mut ibv_flow) -> c_int>,
    pub ABI_placeholder2: Option<unsafe extern "C" fn()>,
    pub ibv_create_flow: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp, flow_attr: *mut ibv_flow_attr) -> *mut ibv_flow,
    >,
    pub ABI_placeholder1: Option<unsafe extern "C" fn()>,
    pub open_qp: Option<
        unsafe extern "C" fn(context: *mut ibv_context, attr: *mut ibv_qp_open_attr) -> *mut ibv_qp,
    >,
    pub create_qp_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            qp_init_attr_ex: *mut ibv_qp_init_attr_ex,
        ) -> *mut ibv_qp,
    >,
    pub get_srq_num: Option<unsafe extern "C" fn(srq: *mut ibv_srq, srq_num: *mut u32) -> c_int>,
    pub create_srq_ex: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            srq_init_attr_ex: *mut ibv_srq_init_attr_ex,
        ) -> *mut ibv_srq,
    >,
    pub open_xrcd: Option<
        unsafe extern "C" fn(
            context: *mut ibv_context,
            xrcd_init_attr: *mut ibv_xrcd_init_attr,
        ) -> *mut ibv_xrcd,
    >,
    pub close_xrcd: Option<unsafe extern "C" fn(xrcd: *mut ibv_xrcd) -> c_int>,
    pub _ABI_placeholder3: u64,
    pub sz: usize,
    pub context: ibv_context,
}
layout!(verbs_context, 696, 8;
    free_buf: 0, alloc_buf: 8, dm_export_dmabuf_fd: 16, reg_mr_ex: 24, dealloc_dmah: 32,
    alloc_dmah: 40,
    query_port: 48, advise_mr: 56, alloc_null_mr: 64, read_counters: 72,
    attach_counters_point_flow: 80, create_counters: 88, destroy_counters: 96, reg_dm_mr: 104,
    alloc_dm: 112, free_dm: 120, modify_flow_action_esp: 128, destroy_flow_action: 136,
    create_flow_action_esp: 144, modify_qp_rate_limit: 152, alloc_parent_domain: 160,
    dealloc_td: 168, alloc_td: 176, modify_cq: 184, post_srq_ops: 192, destroy_rwq_ind_table: 200,
    create_rwq_ind_table: 208, destroy_wq: 216, modify_wq: 224, create_wq: 232,
    query_rt_values: 240, create_cq_ex: 248, r#priv: 256, query_device_ex: 264,
    ibv_destroy_flow: 272, ABI_placeholder2: 280, ibv_create_flow: 288, ABI_placeholder1: 296,
    open_qp: 304, create_qp_ex: 312, get_srq_num: 320, create_srq_ex: 328, open_xrcd: 336,
    close_xrcd: 344, _ABI_placeholder3: 352, sz: 360, context: 368,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_fork_status_enum {
    IBV_FORK_DISABLED = 0,
    IBV_FORK_ENABLED = 1,
    IBV_FORK_UNNEEDED = 2,
}
c_enum!(ibv_fork_status: u32 = ibv_fork_status_enum {
    IBV_FORK_DISABLED, IBV_FORK_ENABLED, IBV_FORK_UNNEEDED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_values_mask_enum {
    IBV_VALUES_MASK_RAW_CLOCK = 1,
    IBV_VALUES_MASK_RESERVED = 2,
}
c_enum!(ibv_values_mask: u32 = ibv_values_mask_enum {
    IBV_VALUES_MASK_RAW_CLOCK, IBV_VALUES_MASK_RESERVED,
});

/// Library-private part of `verbs_context`; opaque to applications.
pub struct verbs_ex_private {
    _private: [u8; 0],
}
