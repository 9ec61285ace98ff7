//! GIDs and GID table entries.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_gid_global {
    pub subnet_prefix: __be64,
    pub interface_id: __be64,
}
layout!(ibv_gid_global, 16, 8; subnet_prefix: 0, interface_id: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_gid {
    pub raw: [u8; 16],
    pub global: ibv_gid_global,
}
layout!(ibv_gid, 16, 8; raw: 0, global: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_gid_entry {
    pub gid: ibv_gid,
    pub gid_index: u32,
    pub port_num: u32,
    pub gid_type: u32,
    pub ndev_ifindex: u32,
}
layout!(ibv_gid_entry, 32, 8; gid: 0, gid_index: 16, port_num: 20, gid_type: 24, ndev_ifindex: 28);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_gid_type_enum {
    IBV_GID_TYPE_IB = 0,
    IBV_GID_TYPE_ROCE_V1 = 1,
    IBV_GID_TYPE_ROCE_V2 = 2,
}
c_enum!(ibv_gid_type: u32 = ibv_gid_type_enum {
    IBV_GID_TYPE_IB, IBV_GID_TYPE_ROCE_V1, IBV_GID_TYPE_ROCE_V2,
});
