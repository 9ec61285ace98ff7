//! Devices and their capabilities (`ibv_device_attr`, `ibv_device_attr_ex`).

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device_attr {
    pub fw_ver: [c_char; 64],
    pub node_guid: __be64,
    pub sys_image_guid: __be64,
    pub max_mr_size: u64,
    pub page_size_cap: u64,
    pub vendor_id: u32,
    pub vendor_part_id: u32,
    pub hw_ver: u32,
    pub max_qp: c_int,
    pub max_qp_wr: c_int,
    pub device_cap_flags: c_uint,
    pub max_sge: c_int,
    pub max_sge_rd: c_int,
    pub max_cq: c_int,
    pub max_cqe: c_int,
    pub max_mr: c_int,
    pub max_pd: c_int,
    pub max_qp_rd_atom: c_int,
    pub max_ee_rd_atom: c_int,
    pub max_res_rd_atom: c_int,
    pub max_qp_init_rd_atom: c_int,
    pub max_ee_init_rd_atom: c_int,
    pub atomic_cap: ibv_atomic_cap,
    pub max_ee: c_int,
    pub max_rdd: c_int,
    pub max_mw: c_int,
    pub max_raw_ipv6_qp: c_int,
    pub max_raw_ethy_qp: c_int,
    pub max_mcast_grp: c_int,
    pub max_mcast_qp_attach: c_int,
    pub max_total_mcast_qp_attach: c_int,
    pub max_ah: c_int,
    pub max_fmr: c_int,
    pub max_map_per_fmr: c_int,
    pub max_srq: c_int,
    pub max_srq_wr: c_int,
    pub max_srq_sge: c_int,
    pub max_pkeys: u16,
    pub local_ca_ack_delay: u8,
    pub phys_port_cnt: u8,
}
layout!(ibv_device_attr, 232, 8;
    fw_ver: 0, node_guid: 64, sys_image_guid: 72, max_mr_size: 80, page_size_cap: 88, vendor_id: 96,
    vendor_part_id: 100, hw_ver: 104, max_qp: 108, max_qp_wr: 112, device_cap_flags: 116,
    max_sge: 120, max_sge_rd: 124, max_cq: 128, max_cqe: 132, max_mr: 136, max_pd: 140,
    max_qp_rd_atom: 144, max_ee_rd_atom: 148, max_res_rd_atom: 152, max_qp_init_rd_atom: 156,
    max_ee_init_rd_atom: 160, atomic_cap: 164, max_ee: 168, max_rdd: 172, max_mw: 176,
    max_raw_ipv6_qp: 180, max_raw_ethy_qp: 184, max_mcast_grp: 188, max_mcast_qp_attach: 192,
    max_total_mcast_qp_attach: 196, max_ah: 200, max_fmr: 204, max_map_per_fmr: 208, max_srq: 212,
    max_srq_wr: 216, max_srq_sge: 220, max_pkeys: 224, local_ca_ack_delay: 226, phys_port_cnt: 227,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_query_device_ex_input {
    pub comp_mask: u32,
}
layout!(ibv_query_device_ex_input, 4, 4; comp_mask: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_odp_caps_per_transport_caps {
    pub rc_odp_caps: u32,
    pub uc_odp_caps: u32,
    pub ud_odp_caps: u32,
}
layout!(ibv_odp_caps_per_transport_caps, 12, 4; rc_odp_caps: 0, uc_odp_caps: 4, ud_odp_caps: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_odp_caps {
    pub general_caps: u64,
    pub per_transport_caps: ibv_odp_caps_per_transport_caps,
}
layout!(ibv_odp_caps, 24, 8; general_caps: 0, per_transport_caps: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tso_caps {
    pub max_tso: u32,
    pub supported_qpts: u32,
}
layout!(ibv_tso_caps, 8, 4; max_tso: 0, supported_qpts: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rss_caps {
    pub supported_qpts: u32,
    pub max_rwq_indirection_tables: u32,
    pub max_rwq_indirection_table_size: u32,
    pub rx_hash_fields_mask: u64,
    pub rx_hash_function: u8,
}
layout!(ibv_rss_caps, 32, 8;
    supported_qpts: 0, max_rwq_indirection_tables: 4, max_rwq_indirection_table_size: 8,
    rx_hash_fields_mask: 16, rx_hash_function: 24,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_packet_pacing_caps {
    pub qp_rate_limit_min: u32,
    pub qp_rate_limit_max: u32,
    pub supported_qpts: u32,
}
layout!(ibv_packet_pacing_caps, 12, 4;
    qp_rate_limit_min: 0, qp_rate_limit_max: 4, supported_qpts: 8,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq_moderation_caps {
    pub max_cq_count: u16,
    pub max_cq_period: u16,
}
layout!(ibv_cq_moderation_caps, 4, 2; max_cq_count: 0, max_cq_period: 2);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_pci_atomic_caps {
    pub fetch_add: u16,
    pub swap: u16,
    pub compare_swap: u16,
}
layout!(ibv_pci_atomic_caps, 6, 2; fetch_add: 0, swap: 2, compare_swap: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device_attr_ex {
    pub orig_attr: ibv_device_attr,
    pub comp_mask: u32,
    pub odp_caps: ibv_odp_caps,
    pub completion_timestamp_mask: u64,
    pub hca_core_clock: u64,
    pub device_cap_flags_ex: u64,
    pub tso_caps: ibv_tso_caps,
    pub rss_caps: ibv_rss_caps,
    pub max_wq_type_rq: u32,
    pub packet_pacing_caps: ibv_packet_pacing_caps,
    pub raw_packet_caps: u32,
    pub tm_caps: ibv_tm_caps,
    pub cq_mod_caps: ibv_cq_moderation_caps,
    pub max_dm_size: u64,
    pub pci_atomic_caps: ibv_pci_atomic_caps,
    pub xrc_odp_caps: u32,
    pub phys_port_cnt_ex: u32,
}
layout!(ibv_device_attr_ex, 400, 8;
    orig_attr: 0, comp_mask: 232, odp_caps: 240, completion_timestamp_mask: 264,
    hca_core_clock: 272, device_cap_flags_ex: 280, tso_caps: 288, rss_caps: 296,
    max_wq_type_rq: 328, packet_pacing_caps: 332, raw_packet_caps: 344, tm_caps: 348,
    cq_mod_caps: 368, max_dm_size: 376, pci_atomic_caps: 384, xrc_odp_caps: 392,
    phys_port_cnt_ex: 396,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct _ibv_device_ops {
    pub _dummy1:
        Option<unsafe extern "C" fn(device: *mut ibv_device, cmd_fd: c_int) -> *mut ibv_context>,
    pub _dummy2: Option<unsafe extern "C" fn(context: *mut ibv_context)>,
}
layout!(_ibv_device_ops, 16, 8; _dummy1: 0, _dummy2: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_device {
    pub _ops: _ibv_device_ops,
    pub node_type: ibv_node_type,
    pub transport_type: ibv_transport_type,
    pub name: [c_char; 64],
    pub dev_name: [c_char; 64],
    pub dev_path: [c_char; 256],
    pub ibdev_path: [c_char; 256],
}
layout!(ibv_device, 664, 8;
    _ops: 0, node_type: 16, transport_type: 20, name: 24, dev_name: 88, dev_path: 152,
    ibdev_path: 408,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_node_type_enum {
    IBV_NODE_UNKNOWN = -1,
    IBV_NODE_CA = 1,
    IBV_NODE_SWITCH = 2,
    IBV_NODE_ROUTER = 3,
    IBV_NODE_RNIC = 4,
    IBV_NODE_USNIC = 5,
    IBV_NODE_USNIC_UDP = 6,
    IBV_NODE_UNSPECIFIED = 7,
}
c_enum!(ibv_node_type: i32 = ibv_node_type_enum {
    IBV_NODE_UNKNOWN, IBV_NODE_CA, IBV_NODE_SWITCH, IBV_NODE_ROUTER, IBV_NODE_RNIC, IBV_NODE_USNIC,
    IBV_NODE_USNIC_UDP, IBV_NODE_UNSPECIFIED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_transport_type_enum {
    IBV_TRANSPORT_UNKNOWN = -1,
    IBV_TRANSPORT_IB = 0,
    IBV_TRANSPORT_IWARP = 1,
    IBV_TRANSPORT_USNIC = 2,
    IBV_TRANSPORT_USNIC_UDP = 3,
    IBV_TRANSPORT_UNSPECIFIED = 4,
}
c_enum!(ibv_transport_type: i32 = ibv_transport_type_enum {
    IBV_TRANSPORT_UNKNOWN, IBV_TRANSPORT_IB, IBV_TRANSPORT_IWARP, IBV_TRANSPORT_USNIC,
    IBV_TRANSPORT_USNIC_UDP, IBV_TRANSPORT_UNSPECIFIED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_device_cap_flags_enum {
    IBV_DEVICE_RESIZE_MAX_WR = 0x1,
    IBV_DEVICE_BAD_PKEY_CNTR = 0x2,
    IBV_DEVICE_BAD_QKEY_CNTR = 0x4,
    IBV_DEVICE_RAW_MULTI = 0x8,
    IBV_DEVICE_AUTO_PATH_MIG = 0x10,
    IBV_DEVICE_CHANGE_PHY_PORT = 0x20,
    IBV_DEVICE_UD_AV_PORT_ENFORCE = 0x40,
    IBV_DEVICE_CURR_QP_STATE_MOD = 0x80,
    IBV_DEVICE_SHUTDOWN_PORT = 0x100,
    IBV_DEVICE_INIT_TYPE = 0x200,
    IBV_DEVICE_PORT_ACTIVE_EVENT = 0x400,
    IBV_DEVICE_SYS_IMAGE_GUID = 0x800,
    IBV_DEVICE_RC_RNR_NAK_GEN = 0x1000,
    IBV_DEVICE_SRQ_RESIZE = 0x2000,
    IBV_DEVICE_N_NOTIFY_CQ = 0x4000,
    IBV_DEVICE_MEM_WINDOW = 0x20000,
    IBV_DEVICE_UD_IP_CSUM = 0x40000,
    IBV_DEVICE_XRC = 0x100000,
    IBV_DEVICE_MEM_MGT_EXTENSIONS = 0x200000,
    IBV_DEVICE_MEM_WINDOW_TYPE_2A = 0x800000,
    IBV_DEVICE_MEM_WINDOW_TYPE_2B = 0x1000000,
    IBV_DEVICE_RC_IP_CSUM = 0x2000000,
    IBV_DEVICE_RAW_IP_CSUM = 0x4000000,
    IBV_DEVICE_MANAGED_FLOW_STEERING = 0x20000000,
}
c_enum!(ibv_device_cap_flags: u32 = ibv_device_cap_flags_enum {
    IBV_DEVICE_RESIZE_MAX_WR, IBV_DEVICE_BAD_PKEY_CNTR, IBV_DEVICE_BAD_QKEY_CNTR,
    IBV_DEVICE_RAW_MULTI, IBV_DEVICE_AUTO_PATH_MIG, IBV_DEVICE_CHANGE_PHY_PORT,
    IBV_DEVICE_UD_AV_PORT_ENFORCE, IBV_DEVICE_CURR_QP_STATE_MOD, IBV_DEVICE_SHUTDOWN_PORT,
    IBV_DEVICE_INIT_TYPE, IBV_DEVICE_PORT_ACTIVE_EVENT, IBV_DEVICE_SYS_IMAGE_GUID,
    IBV_DEVICE_RC_RNR_NAK_GEN, IBV_DEVICE_SRQ_RESIZE, IBV_DEVICE_N_NOTIFY_CQ, IBV_DEVICE_MEM_WINDOW,
    IBV_DEVICE_UD_IP_CSUM, IBV_DEVICE_XRC, IBV_DEVICE_MEM_MGT_EXTENSIONS,
    IBV_DEVICE_MEM_WINDOW_TYPE_2A, IBV_DEVICE_MEM_WINDOW_TYPE_2B, IBV_DEVICE_RC_IP_CSUM,
    IBV_DEVICE_RAW_IP_CSUM, IBV_DEVICE_MANAGED_FLOW_STEERING,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_atomic_cap_enum {
    IBV_ATOMIC_NONE = 0,
    IBV_ATOMIC_HCA = 1,
    IBV_ATOMIC_GLOB = 2,
}
c_enum!(ibv_atomic_cap: u32 = ibv_atomic_cap_enum {
    IBV_ATOMIC_NONE, IBV_ATOMIC_HCA, IBV_ATOMIC_GLOB,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_odp_transport_cap_bits_enum {
    IBV_ODP_SUPPORT_SEND = 0x1,
    IBV_ODP_SUPPORT_RECV = 0x2,
    IBV_ODP_SUPPORT_WRITE = 0x4,
    IBV_ODP_SUPPORT_READ = 0x8,
    IBV_ODP_SUPPORT_ATOMIC = 0x10,
    IBV_ODP_SUPPORT_SRQ_RECV = 0x20,
    IBV_ODP_SUPPORT_FLUSH = 0x40,
    IBV_ODP_SUPPORT_ATOMIC_WRITE = 0x80,
}
c_enum!(ibv_odp_transport_cap_bits: u32 = ibv_odp_transport_cap_bits_enum {
    IBV_ODP_SUPPORT_SEND, IBV_ODP_SUPPORT_RECV, IBV_ODP_SUPPORT_WRITE, IBV_ODP_SUPPORT_READ,
    IBV_ODP_SUPPORT_ATOMIC, IBV_ODP_SUPPORT_SRQ_RECV, IBV_ODP_SUPPORT_FLUSH,
    IBV_ODP_SUPPORT_ATOMIC_WRITE,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_odp_general_caps_enum {
    IBV_ODP_SUPPORT = 1,
    IBV_ODP_SUPPORT_IMPLICIT = 2,
}
c_enum!(ibv_odp_general_caps: u32 = ibv_odp_general_caps_enum {
    IBV_ODP_SUPPORT, IBV_ODP_SUPPORT_IMPLICIT,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_raw_packet_caps_enum {
    IBV_RAW_PACKET_CAP_CVLAN_STRIPPING = 1,
    IBV_RAW_PACKET_CAP_SCATTER_FCS = 2,
    IBV_RAW_PACKET_CAP_IP_CSUM = 4,
    IBV_RAW_PACKET_CAP_DELAY_DROP = 8,
}
c_enum!(ibv_raw_packet_caps: u32 = ibv_raw_packet_caps_enum {
    IBV_RAW_PACKET_CAP_CVLAN_STRIPPING, IBV_RAW_PACKET_CAP_SCATTER_FCS, IBV_RAW_PACKET_CAP_IP_CSUM,
    IBV_RAW_PACKET_CAP_DELAY_DROP,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_pci_atomic_op_size_enum {
    IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP = 1,
    IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP = 2,
    IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP = 4,
}
c_enum!(ibv_pci_atomic_op_size: u32 = ibv_pci_atomic_op_size_enum {
    IBV_PCI_ATOMIC_OPERATION_4_BYTE_SIZE_SUP, IBV_PCI_ATOMIC_OPERATION_8_BYTE_SIZE_SUP,
    IBV_PCI_ATOMIC_OPERATION_16_BYTE_SIZE_SUP,
});

pub const IBV_SYSFS_NAME_MAX: usize = 0x40;
pub const IBV_SYSFS_PATH_MAX: usize = 0x100;

/// Capability bits beyond the 32 of `ibv_device_cap_flags`, for
/// `ibv_device_attr_ex::device_cap_flags_ex`; C has them as macros.
pub const IBV_DEVICE_RAW_SCATTER_FCS: u64 = 1u64 << 34;
pub const IBV_DEVICE_PCI_WRITE_END_PADDING: u64 = 1u64 << 36;
/// rdma-core 64.
pub const IBV_DEVICE_CC_DMA_BOUNCE: u64 = 1u64 << 41;
