//! Tag matching: capabilities and SRQ operations.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tm_caps {
    pub max_rndv_hdr_size: u32,
    pub max_num_tags: u32,
    pub flags: u32,
    pub max_ops: u32,
    pub max_sge: u32,
}
layout!(ibv_tm_caps, 20, 4;
    max_rndv_hdr_size: 0, max_num_tags: 4, flags: 8, max_ops: 12, max_sge: 16,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_tm_cap {
    pub max_num_tags: u32,
    pub max_ops: u32,
}
layout!(ibv_tm_cap, 8, 4; max_num_tags: 0, max_ops: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ops_wr_tm_add {
    pub recv_wr_id: u64,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub tag: u64,
    pub mask: u64,
}
layout!(ibv_ops_wr_tm_add, 40, 8; recv_wr_id: 0, sg_list: 8, num_sge: 16, tag: 24, mask: 32);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ops_wr_tm {
    pub unexpected_cnt: u32,
    pub handle: u32,
    pub add: ibv_ops_wr_tm_add,
}
layout!(ibv_ops_wr_tm, 48, 8; unexpected_cnt: 0, handle: 4, add: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_ops_wr {
    pub wr_id: u64,
    pub next: *mut ibv_ops_wr,
    pub opcode: ibv_ops_wr_opcode,
    pub flags: c_int,
    pub tm: ibv_ops_wr_tm,
}
layout!(ibv_ops_wr, 72, 8; wr_id: 0, next: 8, opcode: 16, flags: 20, tm: 24);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_tm_cap_flags_enum {
    IBV_TM_CAP_RC = 1,
}
c_enum!(ibv_tm_cap_flags: u32 = ibv_tm_cap_flags_enum {
    IBV_TM_CAP_RC,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_ops_wr_opcode_enum {
    IBV_WR_TAG_ADD = 0,
    IBV_WR_TAG_DEL = 1,
    IBV_WR_TAG_SYNC = 2,
}
c_enum!(ibv_ops_wr_opcode: u32 = ibv_ops_wr_opcode_enum {
    IBV_WR_TAG_ADD, IBV_WR_TAG_DEL, IBV_WR_TAG_SYNC,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_ops_flags_enum {
    IBV_OPS_SIGNALED = 1,
    IBV_OPS_TM_SYNC = 2,
}
c_enum!(ibv_ops_flags: u32 = ibv_ops_flags_enum {
    IBV_OPS_SIGNALED, IBV_OPS_TM_SYNC,
});
