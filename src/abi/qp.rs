//! Queue pairs: attributes, init attributes, the extended `ibv_qp_ex` post interface.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_cap {
    pub max_send_wr: u32,
    pub max_recv_wr: u32,
    pub max_send_sge: u32,
    pub max_recv_sge: u32,
    pub max_inline_data: u32,
}
layout!(ibv_qp_cap, 20, 4;
    max_send_wr: 0, max_recv_wr: 4, max_send_sge: 8, max_recv_sge: 12, max_inline_data: 16,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_init_attr {
    pub qp_context: *mut c_void,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub cap: ibv_qp_cap,
    pub qp_type: ibv_qp_type,
    pub sq_sig_all: c_int,
}
layout!(ibv_qp_init_attr, 64, 8;
    qp_context: 0, send_cq: 8, recv_cq: 16, srq: 24, cap: 32, qp_type: 52, sq_sig_all: 56,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rx_hash_conf {
    pub rx_hash_function: u8,
    pub rx_hash_key_len: u8,
    pub rx_hash_key: *mut u8,
    pub rx_hash_fields_mask: u64,
}
layout!(ibv_rx_hash_conf, 24, 8;
    rx_hash_function: 0, rx_hash_key_len: 1, rx_hash_key: 8, rx_hash_fields_mask: 16,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_init_attr_ex {
    pub qp_context: *mut c_void,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub cap: ibv_qp_cap,
    pub qp_type: ibv_qp_type,
    pub sq_sig_all: c_int,
    pub comp_mask: u32,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    pub create_flags: u32,
    pub max_tso_header: u16,
    pub rwq_ind_tbl: *mut ibv_rwq_ind_table,
    pub rx_hash_conf: ibv_rx_hash_conf,
    pub source_qpn: u32,
    pub send_ops_flags: u64,
}
layout!(ibv_qp_init_attr_ex, 136, 8;
    qp_context: 0, send_cq: 8, recv_cq: 16, srq: 24, cap: 32, qp_type: 52, sq_sig_all: 56,
    comp_mask: 60, pd: 64, xrcd: 72, create_flags: 80, max_tso_header: 84, rwq_ind_tbl: 88,
    rx_hash_conf: 96, source_qpn: 120, send_ops_flags: 128,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_open_attr {
    pub comp_mask: u32,
    pub qp_num: u32,
    pub xrcd: *mut ibv_xrcd,
    pub qp_context: *mut c_void,
    pub qp_type: ibv_qp_type,
}
layout!(ibv_qp_open_attr, 32, 8; comp_mask: 0, qp_num: 4, xrcd: 8, qp_context: 16, qp_type: 24);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_attr {
    pub qp_state: ibv_qp_state,
    pub cur_qp_state: ibv_qp_state,
    pub path_mtu: ibv_mtu,
    pub path_mig_state: ibv_mig_state,
    pub qkey: u32,
    pub rq_psn: u32,
    pub sq_psn: u32,
    pub dest_qp_num: u32,
    pub qp_access_flags: c_uint,
    pub cap: ibv_qp_cap,
    pub ah_attr: ibv_ah_attr,
    pub alt_ah_attr: ibv_ah_attr,
    pub pkey_index: u16,
    pub alt_pkey_index: u16,
    pub en_sqd_async_notify: u8,
    pub sq_draining: u8,
    pub max_rd_atomic: u8,
    pub max_dest_rd_atomic: u8,
    pub min_rnr_timer: u8,
    pub port_num: u8,
    pub timeout: u8,
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub alt_port_num: u8,
    pub alt_timeout: u8,
    pub rate_limit: u32,
}
layout!(ibv_qp_attr, 144, 8;
    qp_state: 0, cur_qp_state: 4, path_mtu: 8, path_mig_state: 12, qkey: 16, rq_psn: 20, sq_psn: 24,
    dest_qp_num: 28, qp_access_flags: 32, cap: 36, ah_attr: 56, alt_ah_attr: 88, pkey_index: 120,
    alt_pkey_index: 122, en_sqd_async_notify: 124, sq_draining: 125, max_rd_atomic: 126,
    max_dest_rd_atomic: 127, min_rnr_timer: 128, port_num: 129, timeout: 130, retry_cnt: 131,
    rnr_retry: 132, alt_port_num: 133, alt_timeout: 134, rate_limit: 136,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_rate_limit_attr {
    pub rate_limit: u32,
    pub max_burst_sz: u32,
    pub typical_pkt_sz: u16,
    pub comp_mask: u32,
}
layout!(ibv_qp_rate_limit_attr, 16, 4;
    rate_limit: 0, max_burst_sz: 4, typical_pkt_sz: 8, comp_mask: 12,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp {
    pub context: *mut ibv_context,
    pub qp_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub send_cq: *mut ibv_cq,
    pub recv_cq: *mut ibv_cq,
    pub srq: *mut ibv_srq,
    pub handle: u32,
    pub qp_num: u32,
    pub state: ibv_qp_state,
    pub qp_type: ibv_qp_type,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub events_completed: u32,
}
layout!(ibv_qp, 160, 8;
    context: 0, qp_context: 8, pd: 16, send_cq: 24, recv_cq: 32, srq: 40, handle: 48, qp_num: 52,
    state: 56, qp_type: 60, mutex: 64, cond: 104, events_completed: 152,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_ex {
    pub qp_base: ibv_qp,
    pub comp_mask: u64,
    pub wr_id: u64,
    pub wr_flags: c_uint,
    pub wr_atomic_cmp_swp: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            rkey: u32,
            remote_addr: u64,
            compare: u64,
            swap: u64,
        ),
    >,
    pub wr_atomic_fetch_add:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, add: u64)>,
    pub wr_bind_mw: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            mw: *mut ibv_mw,
            rkey: u32,
            bind_info: *const ibv_mw_bind_info,
        ),
    >,
    pub wr_local_inv: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, invalidate_rkey: u32)>,
    pub wr_rdma_read: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64)>,
    pub wr_rdma_write:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64)>,
    pub wr_rdma_write_imm: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp_ex, rkey: u32, remote_addr: u64, imm_data: __be32),
    >,
    pub wr_send: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_send_imm: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, imm_data: __be32)>,
    pub wr_send_inv: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, invalidate_rkey: u32)>,
    pub wr_send_tso:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, hdr: *mut c_void, hdr_sz: u16, mss: u16)>,
    pub wr_set_ud_addr: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            ah: *mut ibv_ah,
            remote_qpn: u32,
            remote_qkey: u32,
        ),
    >,
    pub wr_set_xrc_srqn: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, remote_srqn: u32)>,
    pub wr_set_inline_data:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, addr: *mut c_void, length: usize)>,
    pub wr_set_inline_data_list: Option<
        unsafe extern "C" fn(qp: *mut ibv_qp_ex, num_buf: usize, buf_list: *const ibv_data_buf),
    >,
    pub wr_set_sge:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, lkey: u32, addr: u64, length: u32)>,
    pub wr_set_sge_list:
        Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex, num_sge: usize, sg_list: *const ibv_sge)>,
    pub wr_start: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_complete: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex) -> c_int>,
    pub wr_abort: Option<unsafe extern "C" fn(qp: *mut ibv_qp_ex)>,
    pub wr_atomic_write: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            rkey: u32,
            remote_addr: u64,
            atomic_wr: *const c_void,
        ),
    >,
    /// rdma-core 64: after every member of 44's `ibv_qp_ex`.
    pub wr_flush: Option<
        unsafe extern "C" fn(
            qp: *mut ibv_qp_ex,
            rkey: u32,
            remote_addr: u64,
            len: usize,
            type_: u8,
            level: u8,
        ),
    >,
}
layout!(ibv_qp_ex, 360, 8;
    qp_base: 0, comp_mask: 160, wr_id: 168, wr_flags: 176, wr_atomic_cmp_swp: 184,
    wr_atomic_fetch_add: 192, wr_bind_mw: 200, wr_local_inv: 208, wr_rdma_read: 216,
    wr_rdma_write: 224, wr_rdma_write_imm: 232, wr_send: 240, wr_send_imm: 248, wr_send_inv: 256,
    wr_send_tso: 264, wr_set_ud_addr: 272, wr_set_xrc_srqn: 280, wr_set_inline_data: 288,
    wr_set_inline_data_list: 296, wr_set_sge: 304, wr_set_sge_list: 312, wr_start: 320,
    wr_complete: 328, wr_abort: 336, wr_atomic_write: 344, wr_flush: 352,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ece {
    pub vendor_id: u32,
    pub options: u32,
    pub comp_mask: u32,
}
layout!(ibv_ece, 12, 4; vendor_id: 0, options: 4, comp_mask: 8);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_rx_hash_function_flags_enum {
    IBV_RX_HASH_FUNC_TOEPLITZ = 1,
}
c_enum!(ibv_rx_hash_function_flags: u32 = ibv_rx_hash_function_flags_enum {
    IBV_RX_HASH_FUNC_TOEPLITZ,
});

#[doc(hidden)]
#[allow(clippy::enum_clike_unportable_variant)] // C has it too
#[repr(C)]
pub enum ibv_rx_hash_fields_enum {
    IBV_RX_HASH_SRC_IPV4 = 0x1,
    IBV_RX_HASH_DST_IPV4 = 0x2,
    IBV_RX_HASH_SRC_IPV6 = 0x4,
    IBV_RX_HASH_DST_IPV6 = 0x8,
    IBV_RX_HASH_SRC_PORT_TCP = 0x10,
    IBV_RX_HASH_DST_PORT_TCP = 0x20,
    IBV_RX_HASH_SRC_PORT_UDP = 0x40,
    IBV_RX_HASH_DST_PORT_UDP = 0x80,
    IBV_RX_HASH_IPSEC_SPI = 0x100,
    IBV_RX_HASH_INNER = 0x80000000,
}
c_enum!(ibv_rx_hash_fields: u32 = ibv_rx_hash_fields_enum {
    IBV_RX_HASH_SRC_IPV4, IBV_RX_HASH_DST_IPV4, IBV_RX_HASH_SRC_IPV6, IBV_RX_HASH_DST_IPV6,
    IBV_RX_HASH_SRC_PORT_TCP, IBV_RX_HASH_DST_PORT_TCP, IBV_RX_HASH_SRC_PORT_UDP,
    IBV_RX_HASH_DST_PORT_UDP, IBV_RX_HASH_IPSEC_SPI, IBV_RX_HASH_INNER,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_type_enum {
    IBV_QPT_RC = 2,
    IBV_QPT_UC = 3,
    IBV_QPT_UD = 4,
    IBV_QPT_RAW_PACKET = 8,
    IBV_QPT_XRC_SEND = 9,
    IBV_QPT_XRC_RECV = 10,
    IBV_QPT_DRIVER = 255,
}
c_enum!(ibv_qp_type: u32 = ibv_qp_type_enum {
    IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_RAW_PACKET, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV,
    IBV_QPT_DRIVER,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_init_attr_mask_enum {
    IBV_QP_INIT_ATTR_PD = 0x1,
    IBV_QP_INIT_ATTR_XRCD = 0x2,
    IBV_QP_INIT_ATTR_CREATE_FLAGS = 0x4,
    IBV_QP_INIT_ATTR_MAX_TSO_HEADER = 0x8,
    IBV_QP_INIT_ATTR_IND_TABLE = 0x10,
    IBV_QP_INIT_ATTR_RX_HASH = 0x20,
    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 0x40,
}
c_enum!(ibv_qp_init_attr_mask: u32 = ibv_qp_init_attr_mask_enum {
    IBV_QP_INIT_ATTR_PD, IBV_QP_INIT_ATTR_XRCD, IBV_QP_INIT_ATTR_CREATE_FLAGS,
    IBV_QP_INIT_ATTR_MAX_TSO_HEADER, IBV_QP_INIT_ATTR_IND_TABLE, IBV_QP_INIT_ATTR_RX_HASH,
    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_create_flags_enum {
    IBV_QP_CREATE_BLOCK_SELF_MCAST_LB = 0x2,
    IBV_QP_CREATE_SCATTER_FCS = 0x100,
    IBV_QP_CREATE_CVLAN_STRIPPING = 0x200,
    IBV_QP_CREATE_SOURCE_QPN = 0x400,
    IBV_QP_CREATE_PCI_WRITE_END_PADDING = 0x800,
}
c_enum!(ibv_qp_create_flags: u32 = ibv_qp_create_flags_enum {
    IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, IBV_QP_CREATE_SCATTER_FCS, IBV_QP_CREATE_CVLAN_STRIPPING,
    IBV_QP_CREATE_SOURCE_QPN, IBV_QP_CREATE_PCI_WRITE_END_PADDING,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_create_send_ops_flags_enum {
    IBV_QP_EX_WITH_RDMA_WRITE = 0x1,
    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 0x2,
    IBV_QP_EX_WITH_SEND = 0x4,
    IBV_QP_EX_WITH_SEND_WITH_IMM = 0x8,
    IBV_QP_EX_WITH_RDMA_READ = 0x10,
    IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 0x20,
    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 0x40,
    IBV_QP_EX_WITH_LOCAL_INV = 0x80,
    IBV_QP_EX_WITH_BIND_MW = 0x100,
    IBV_QP_EX_WITH_SEND_WITH_INV = 0x200,
    IBV_QP_EX_WITH_TSO = 0x400,
    IBV_QP_EX_WITH_FLUSH = 0x800,
    IBV_QP_EX_WITH_ATOMIC_WRITE = 0x1000,
}
c_enum!(ibv_qp_create_send_ops_flags: u32 = ibv_qp_create_send_ops_flags_enum {
    IBV_QP_EX_WITH_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, IBV_QP_EX_WITH_SEND,
    IBV_QP_EX_WITH_SEND_WITH_IMM, IBV_QP_EX_WITH_RDMA_READ, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_QP_EX_WITH_LOCAL_INV, IBV_QP_EX_WITH_BIND_MW,
    IBV_QP_EX_WITH_SEND_WITH_INV, IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_FLUSH,
    IBV_QP_EX_WITH_ATOMIC_WRITE,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_open_attr_mask_enum {
    IBV_QP_OPEN_ATTR_NUM = 0x1,
    IBV_QP_OPEN_ATTR_XRCD = 0x2,
    IBV_QP_OPEN_ATTR_CONTEXT = 0x4,
    IBV_QP_OPEN_ATTR_TYPE = 0x8,
    IBV_QP_OPEN_ATTR_RESERVED = 0x10,
}
c_enum!(ibv_qp_open_attr_mask: u32 = ibv_qp_open_attr_mask_enum {
    IBV_QP_OPEN_ATTR_NUM, IBV_QP_OPEN_ATTR_XRCD, IBV_QP_OPEN_ATTR_CONTEXT, IBV_QP_OPEN_ATTR_TYPE,
    IBV_QP_OPEN_ATTR_RESERVED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_attr_mask_enum {
    IBV_QP_STATE = 0x1,
    IBV_QP_CUR_STATE = 0x2,
    IBV_QP_EN_SQD_ASYNC_NOTIFY = 0x4,
    IBV_QP_ACCESS_FLAGS = 0x8,
    IBV_QP_PKEY_INDEX = 0x10,
    IBV_QP_PORT = 0x20,
    IBV_QP_QKEY = 0x40,
    IBV_QP_AV = 0x80,
    IBV_QP_PATH_MTU = 0x100,
    IBV_QP_TIMEOUT = 0x200,
    IBV_QP_RETRY_CNT = 0x400,
    IBV_QP_RNR_RETRY = 0x800,
    IBV_QP_RQ_PSN = 0x1000,
    IBV_QP_MAX_QP_RD_ATOMIC = 0x2000,
    IBV_QP_ALT_PATH = 0x4000,
    IBV_QP_MIN_RNR_TIMER = 0x8000,
    IBV_QP_SQ_PSN = 0x10000,
    IBV_QP_MAX_DEST_RD_ATOMIC = 0x20000,
    IBV_QP_PATH_MIG_STATE = 0x40000,
    IBV_QP_CAP = 0x80000,
    IBV_QP_DEST_QPN = 0x100000,
    IBV_QP_RATE_LIMIT = 0x2000000,
}
c_enum!(ibv_qp_attr_mask: u32 = ibv_qp_attr_mask_enum {
    IBV_QP_STATE, IBV_QP_CUR_STATE, IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_ACCESS_FLAGS,
    IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_QKEY, IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_TIMEOUT,
    IBV_QP_RETRY_CNT, IBV_QP_RNR_RETRY, IBV_QP_RQ_PSN, IBV_QP_MAX_QP_RD_ATOMIC, IBV_QP_ALT_PATH,
    IBV_QP_MIN_RNR_TIMER, IBV_QP_SQ_PSN, IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_PATH_MIG_STATE,
    IBV_QP_CAP, IBV_QP_DEST_QPN, IBV_QP_RATE_LIMIT,
});

/// `flags` of `ibv_query_qp_data_in_order` (rdma-core 64).
#[doc(hidden)]
#[repr(C)]
pub enum ibv_query_qp_data_in_order_flags_enum {
    IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS = 0x1,
    IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY = 0x2,
}
c_enum!(ibv_query_qp_data_in_order_flags: u32 = ibv_query_qp_data_in_order_flags_enum {
    IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS, IBV_QUERY_QP_DATA_IN_ORDER_DEVICE_ONLY,
});

/// The capability vector `ibv_query_qp_data_in_order` returns with
/// `IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS` (rdma-core 64).
#[doc(hidden)]
#[repr(C)]
pub enum ibv_query_qp_data_in_order_caps_enum {
    IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG = 0x1,
    IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES = 0x2,
}
c_enum!(ibv_query_qp_data_in_order_caps: u32 = ibv_query_qp_data_in_order_caps_enum {
    IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG, IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_state_enum {
    IBV_QPS_RESET = 0,
    IBV_QPS_INIT = 1,
    IBV_QPS_RTR = 2,
    IBV_QPS_RTS = 3,
    IBV_QPS_SQD = 4,
    IBV_QPS_SQE = 5,
    IBV_QPS_ERR = 6,
    IBV_QPS_UNKNOWN = 7,
}
c_enum!(ibv_qp_state: u32 = ibv_qp_state_enum {
    IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD, IBV_QPS_SQE, IBV_QPS_ERR,
    IBV_QPS_UNKNOWN,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_mig_state_enum {
    IBV_MIG_MIGRATED = 0,
    IBV_MIG_REARM = 1,
    IBV_MIG_ARMED = 2,
}
c_enum!(ibv_mig_state: u32 = ibv_mig_state_enum {
    IBV_MIG_MIGRATED, IBV_MIG_REARM, IBV_MIG_ARMED,
});
