//! Port attributes, states, MTUs and capability flags.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_port_attr {
    pub state: ibv_port_state,
    pub max_mtu: ibv_mtu,
    pub active_mtu: ibv_mtu,
    pub gid_tbl_len: c_int,
    pub port_cap_flags: u32,
    pub max_msg_sz: u32,
    pub bad_pkey_cntr: u32,
    pub qkey_viol_cntr: u32,
    pub pkey_tbl_len: u16,
    pub lid: u16,
    pub sm_lid: u16,
    pub lmc: u8,
    pub max_vl_num: u8,
    pub sm_sl: u8,
    pub subnet_timeout: u8,
    pub init_type_reply: u8,
    pub active_width: u8,
    pub active_speed: u8,
    pub phys_state: u8,
    pub link_layer: u8,
    pub flags: u8,
    pub port_cap_flags2: u16,
    /// rdma-core 64; callers built against 44 pass the 52 bytes before it.
    pub active_speed_ex: u32,
}
layout!(ibv_port_attr, 56, 4;
    state: 0, max_mtu: 4, active_mtu: 8, gid_tbl_len: 12, port_cap_flags: 16, max_msg_sz: 20,
    bad_pkey_cntr: 24, qkey_viol_cntr: 28, pkey_tbl_len: 32, lid: 34, sm_lid: 36, lmc: 38,
    max_vl_num: 39, sm_sl: 40, subnet_timeout: 41, init_type_reply: 42, active_width: 43,
    active_speed: 44, phys_state: 45, link_layer: 46, flags: 47, port_cap_flags2: 48,
    active_speed_ex: 52,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_mtu_enum {
    IBV_MTU_256 = 1,
    IBV_MTU_512 = 2,
    IBV_MTU_1024 = 3,
    IBV_MTU_2048 = 4,
    IBV_MTU_4096 = 5,
}
c_enum!(ibv_mtu: u32 = ibv_mtu_enum {
    IBV_MTU_256, IBV_MTU_512, IBV_MTU_1024, IBV_MTU_2048, IBV_MTU_4096,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_port_state_enum {
    IBV_PORT_NOP = 0,
    IBV_PORT_DOWN = 1,
    IBV_PORT_INIT = 2,
    IBV_PORT_ARMED = 3,
    IBV_PORT_ACTIVE = 4,
    IBV_PORT_ACTIVE_DEFER = 5,
}
c_enum!(ibv_port_state: u32 = ibv_port_state_enum {
    IBV_PORT_NOP, IBV_PORT_DOWN, IBV_PORT_INIT, IBV_PORT_ARMED, IBV_PORT_ACTIVE,
    IBV_PORT_ACTIVE_DEFER,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_port_cap_flags_enum {
    IBV_PORT_SM = 0x2,
    IBV_PORT_NOTICE_SUP = 0x4,
    IBV_PORT_TRAP_SUP = 0x8,
    IBV_PORT_OPT_IPD_SUP = 0x10,
    IBV_PORT_AUTO_MIGR_SUP = 0x20,
    IBV_PORT_SL_MAP_SUP = 0x40,
    IBV_PORT_MKEY_NVRAM = 0x80,
    IBV_PORT_PKEY_NVRAM = 0x100,
    IBV_PORT_LED_INFO_SUP = 0x200,
    IBV_PORT_SYS_IMAGE_GUID_SUP = 0x800,
    IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 0x1000,
    IBV_PORT_EXTENDED_SPEEDS_SUP = 0x4000,
    IBV_PORT_CAP_MASK2_SUP = 0x8000,
    IBV_PORT_CM_SUP = 0x10000,
    IBV_PORT_SNMP_TUNNEL_SUP = 0x20000,
    IBV_PORT_REINIT_SUP = 0x40000,
    IBV_PORT_DEVICE_MGMT_SUP = 0x80000,
    IBV_PORT_VENDOR_CLASS_SUP = 0x100000,
    IBV_PORT_DR_NOTICE_SUP = 0x200000,
    IBV_PORT_CAP_MASK_NOTICE_SUP = 0x400000,
    IBV_PORT_BOOT_MGMT_SUP = 0x800000,
    IBV_PORT_LINK_LATENCY_SUP = 0x1000000,
    IBV_PORT_CLIENT_REG_SUP = 0x2000000,
    IBV_PORT_IP_BASED_GIDS = 0x4000000,
}
c_enum!(ibv_port_cap_flags: u32 = ibv_port_cap_flags_enum {
    IBV_PORT_SM, IBV_PORT_NOTICE_SUP, IBV_PORT_TRAP_SUP, IBV_PORT_OPT_IPD_SUP,
    IBV_PORT_AUTO_MIGR_SUP, IBV_PORT_SL_MAP_SUP, IBV_PORT_MKEY_NVRAM, IBV_PORT_PKEY_NVRAM,
    IBV_PORT_LED_INFO_SUP, IBV_PORT_SYS_IMAGE_GUID_SUP, IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP,
    IBV_PORT_EXTENDED_SPEEDS_SUP, IBV_PORT_CAP_MASK2_SUP, IBV_PORT_CM_SUP, IBV_PORT_SNMP_TUNNEL_SUP,
    IBV_PORT_REINIT_SUP, IBV_PORT_DEVICE_MGMT_SUP, IBV_PORT_VENDOR_CLASS_SUP,
    IBV_PORT_DR_NOTICE_SUP, IBV_PORT_CAP_MASK_NOTICE_SUP, IBV_PORT_BOOT_MGMT_SUP,
    IBV_PORT_LINK_LATENCY_SUP, IBV_PORT_CLIENT_REG_SUP, IBV_PORT_IP_BASED_GIDS,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_port_cap_flags2_enum {
    IBV_PORT_SET_NODE_DESC_SUP = 0x1,
    IBV_PORT_INFO_EXT_SUP = 0x2,
    IBV_PORT_VIRT_SUP = 0x4,
    IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP = 0x8,
    IBV_PORT_LINK_WIDTH_2X_SUP = 0x10,
    IBV_PORT_LINK_SPEED_HDR_SUP = 0x20,
    IBV_PORT_LINK_SPEED_NDR_SUP = 0x400,
    IBV_PORT_LINK_SPEED_XDR_SUP = 0x1000,
}
c_enum!(ibv_port_cap_flags2: u32 = ibv_port_cap_flags2_enum {
    IBV_PORT_SET_NODE_DESC_SUP, IBV_PORT_INFO_EXT_SUP, IBV_PORT_VIRT_SUP,
    IBV_PORT_SWITCH_PORT_STATE_TABLE_SUP, IBV_PORT_LINK_WIDTH_2X_SUP, IBV_PORT_LINK_SPEED_HDR_SUP,
    IBV_PORT_LINK_SPEED_NDR_SUP, IBV_PORT_LINK_SPEED_XDR_SUP,
});

pub const IBV_LINK_LAYER_UNSPECIFIED: u32 = 0;
pub const IBV_LINK_LAYER_INFINIBAND: u32 = 1;
pub const IBV_LINK_LAYER_ETHERNET: u32 = 2;

/// The pre-1.1 `ibv_port_attr` of the compat `query_port` slot; never defined.
pub struct _compat_ibv_port_attr {
    _private: [u8; 0],
}
