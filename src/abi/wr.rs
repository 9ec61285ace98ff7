//! Work requests: scatter/gather entries, send and receive requests.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_data_buf {
    pub addr: *mut c_void,
    pub length: usize,
}
layout!(ibv_data_buf, 16, 8; addr: 0, length: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_sge {
    pub addr: u64,
    pub length: u32,
    pub lkey: u32,
}
layout!(ibv_sge, 16, 8; addr: 0, length: 8, lkey: 12);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_wr_rdma {
    pub remote_addr: u64,
    pub rkey: u32,
}
layout!(ibv_send_wr_wr_rdma, 16, 8; remote_addr: 0, rkey: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_wr_atomic {
    pub remote_addr: u64,
    pub compare_add: u64,
    pub swap: u64,
    pub rkey: u32,
}
layout!(ibv_send_wr_wr_atomic, 32, 8; remote_addr: 0, compare_add: 8, swap: 16, rkey: 24);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_wr_ud {
    pub ah: *mut ibv_ah,
    pub remote_qpn: u32,
    pub remote_qkey: u32,
}
layout!(ibv_send_wr_wr_ud, 16, 8; ah: 0, remote_qpn: 8, remote_qkey: 12);

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_wr {
    pub rdma: ibv_send_wr_wr_rdma,
    pub atomic: ibv_send_wr_wr_atomic,
    pub ud: ibv_send_wr_wr_ud,
}
layout!(ibv_send_wr_wr, 32, 8; rdma: 0, atomic: 0, ud: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_qp_type_xrc {
    pub remote_srqn: u32,
}
layout!(ibv_send_wr_qp_type_xrc, 4, 4; remote_srqn: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_qp_type {
    pub xrc: ibv_send_wr_qp_type_xrc,
}
layout!(ibv_send_wr_qp_type, 4, 4; xrc: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_bind_mw {
    pub mw: *mut ibv_mw,
    pub rkey: u32,
    pub bind_info: ibv_mw_bind_info,
}
layout!(ibv_send_wr_bind_mw, 48, 8; mw: 0, rkey: 8, bind_info: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr_tso {
    pub hdr: *mut c_void,
    pub hdr_sz: u16,
    pub mss: u16,
}
layout!(ibv_send_wr_tso, 16, 8; hdr: 0, hdr_sz: 8, mss: 10);

#[repr(C)]
#[derive(Clone, Copy)]
pub union ibv_send_wr_anon {
    pub bind_mw: ibv_send_wr_bind_mw,
    pub tso: ibv_send_wr_tso,
}
layout!(ibv_send_wr_anon, 48, 8; bind_mw: 0, tso: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_send_wr {
    pub wr_id: u64,
    pub next: *mut ibv_send_wr,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
    pub opcode: ibv_wr_opcode,
    pub send_flags: c_uint,
    /// In C an anonymous union with `invalidate_rkey` (same type and place).
    pub imm_data: __be32,
    pub wr: ibv_send_wr_wr,
    pub qp_type: ibv_send_wr_qp_type,
    /// In C an anonymous union: its members are members of `ibv_send_wr`.
    pub anon: ibv_send_wr_anon,
}
layout!(ibv_send_wr, 128, 8;
    wr_id: 0, next: 8, sg_list: 16, num_sge: 24, opcode: 28, send_flags: 32, imm_data: 36, wr: 40,
    qp_type: 72, anon: 80,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_recv_wr {
    pub wr_id: u64,
    pub next: *mut ibv_recv_wr,
    pub sg_list: *mut ibv_sge,
    pub num_sge: c_int,
}
layout!(ibv_recv_wr, 32, 8; wr_id: 0, next: 8, sg_list: 16, num_sge: 24);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wr_opcode_enum {
    IBV_WR_RDMA_WRITE = 0,
    IBV_WR_RDMA_WRITE_WITH_IMM = 1,
    IBV_WR_SEND = 2,
    IBV_WR_SEND_WITH_IMM = 3,
    IBV_WR_RDMA_READ = 4,
    IBV_WR_ATOMIC_CMP_AND_SWP = 5,
    IBV_WR_ATOMIC_FETCH_AND_ADD = 6,
    IBV_WR_LOCAL_INV = 7,
    IBV_WR_BIND_MW = 8,
    IBV_WR_SEND_WITH_INV = 9,
    IBV_WR_TSO = 10,
    IBV_WR_DRIVER1 = 11,
    IBV_WR_FLUSH = 14,
    IBV_WR_ATOMIC_WRITE = 15,
}
c_enum!(ibv_wr_opcode: u32 = ibv_wr_opcode_enum {
    IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM,
    IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV,
    IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV, IBV_WR_TSO, IBV_WR_DRIVER1, IBV_WR_FLUSH,
    IBV_WR_ATOMIC_WRITE,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_send_flags_enum {
    IBV_SEND_FENCE = 0x1,
    IBV_SEND_SIGNALED = 0x2,
    IBV_SEND_SOLICITED = 0x4,
    IBV_SEND_INLINE = 0x8,
    IBV_SEND_IP_CSUM = 0x10,
}
c_enum!(ibv_send_flags: u32 = ibv_send_flags_enum {
    IBV_SEND_FENCE, IBV_SEND_SIGNALED, IBV_SEND_SOLICITED, IBV_SEND_INLINE, IBV_SEND_IP_CSUM,
});

/// Where an RDMA FLUSH makes data visible (`type` of `ibv_wr_flush`).
#[doc(hidden)]
#[repr(C)]
pub enum ibv_placement_type_enum {
    IBV_FLUSH_GLOBAL = 0x1,
    IBV_FLUSH_PERSISTENT = 0x2,
}
c_enum!(ibv_placement_type: u32 = ibv_placement_type_enum {
    IBV_FLUSH_GLOBAL, IBV_FLUSH_PERSISTENT,
});

/// What an RDMA FLUSH covers (`level` of `ibv_wr_flush`).
#[doc(hidden)]
#[repr(C)]
pub enum ibv_selectivity_level_enum {
    IBV_FLUSH_RANGE = 0,
    IBV_FLUSH_MR = 1,
}
c_enum!(ibv_selectivity_level: u32 = ibv_selectivity_level_enum {
    IBV_FLUSH_RANGE, IBV_FLUSH_MR,
});

/// An array of file descriptors (rdma-core 64).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_fd_arr {
    pub arr: *mut c_int,
    pub count: u32,
}
layout!(ibv_fd_arr, 16, 8; arr: 0, count: 8);
