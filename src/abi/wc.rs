//! Work completions (`ibv_wc`) and their status, opcode and flag values.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wc {
    pub wr_id: u64,
    pub status: ibv_wc_status,
    pub opcode: ibv_wc_opcode,
    pub vendor_err: u32,
    pub byte_len: u32,
    /// In C an anonymous union with `invalidated_rkey` (same type and place).
    pub imm_data: __be32,
    pub qp_num: u32,
    pub src_qp: u32,
    pub wc_flags: c_uint,
    pub pkey_index: u16,
    pub slid: u16,
    pub sl: u8,
    pub dlid_path_bits: u8,
}
layout!(ibv_wc, 48, 8;
    wr_id: 0, status: 8, opcode: 12, vendor_err: 16, byte_len: 20, imm_data: 24, qp_num: 28,
    src_qp: 32, wc_flags: 36, pkey_index: 40, slid: 42, sl: 44, dlid_path_bits: 45,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wc_status_enum {
    IBV_WC_SUCCESS = 0,
    IBV_WC_LOC_LEN_ERR = 1,
    IBV_WC_LOC_QP_OP_ERR = 2,
    IBV_WC_LOC_EEC_OP_ERR = 3,
    IBV_WC_LOC_PROT_ERR = 4,
    IBV_WC_WR_FLUSH_ERR = 5,
    IBV_WC_MW_BIND_ERR = 6,
    IBV_WC_BAD_RESP_ERR = 7,
    IBV_WC_LOC_ACCESS_ERR = 8,
    IBV_WC_REM_INV_REQ_ERR = 9,
    IBV_WC_REM_ACCESS_ERR = 10,
    IBV_WC_REM_OP_ERR = 11,
    IBV_WC_RETRY_EXC_ERR = 12,
    IBV_WC_RNR_RETRY_EXC_ERR = 13,
    IBV_WC_LOC_RDD_VIOL_ERR = 14,
    IBV_WC_REM_INV_RD_REQ_ERR = 15,
    IBV_WC_REM_ABORT_ERR = 16,
    IBV_WC_INV_EECN_ERR = 17,
    IBV_WC_INV_EEC_STATE_ERR = 18,
    IBV_WC_FATAL_ERR = 19,
    IBV_WC_RESP_TIMEOUT_ERR = 20,
    IBV_WC_GENERAL_ERR = 21,
    IBV_WC_TM_ERR = 22,
    IBV_WC_TM_RNDV_INCOMPLETE = 23,
}
c_enum!(ibv_wc_status: u32 = ibv_wc_status_enum {
    IBV_WC_SUCCESS, IBV_WC_LOC_LEN_ERR, IBV_WC_LOC_QP_OP_ERR, IBV_WC_LOC_EEC_OP_ERR,
    IBV_WC_LOC_PROT_ERR, IBV_WC_WR_FLUSH_ERR, IBV_WC_MW_BIND_ERR, IBV_WC_BAD_RESP_ERR,
    IBV_WC_LOC_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_OP_ERR,
    IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_LOC_RDD_VIOL_ERR,
    IBV_WC_REM_INV_RD_REQ_ERR, IBV_WC_REM_ABORT_ERR, IBV_WC_INV_EECN_ERR, IBV_WC_INV_EEC_STATE_ERR,
    IBV_WC_FATAL_ERR, IBV_WC_RESP_TIMEOUT_ERR, IBV_WC_GENERAL_ERR, IBV_WC_TM_ERR,
    IBV_WC_TM_RNDV_INCOMPLETE,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wc_opcode_enum {
    IBV_WC_SEND = 0,
    IBV_WC_RDMA_WRITE = 1,
    IBV_WC_RDMA_READ = 2,
    IBV_WC_COMP_SWAP = 3,
    IBV_WC_FETCH_ADD = 4,
    IBV_WC_BIND_MW = 5,
    IBV_WC_LOCAL_INV = 6,
    IBV_WC_TSO = 7,
    IBV_WC_FLUSH = 8,
    IBV_WC_ATOMIC_WRITE = 9,
    IBV_WC_RECV = 128,
    IBV_WC_RECV_RDMA_WITH_IMM = 129,
    IBV_WC_TM_ADD = 130,
    IBV_WC_TM_DEL = 131,
    IBV_WC_TM_SYNC = 132,
    IBV_WC_TM_RECV = 133,
    IBV_WC_TM_NO_TAG = 134,
    IBV_WC_DRIVER1 = 135,
    IBV_WC_DRIVER2 = 136,
    IBV_WC_DRIVER3 = 137,
}
c_enum!(ibv_wc_opcode: u32 = ibv_wc_opcode_enum {
    IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD,
    IBV_WC_BIND_MW, IBV_WC_LOCAL_INV, IBV_WC_TSO, IBV_WC_FLUSH, IBV_WC_ATOMIC_WRITE, IBV_WC_RECV,
    IBV_WC_RECV_RDMA_WITH_IMM, IBV_WC_TM_ADD, IBV_WC_TM_DEL, IBV_WC_TM_SYNC, IBV_WC_TM_RECV,
    IBV_WC_TM_NO_TAG, IBV_WC_DRIVER1, IBV_WC_DRIVER2, IBV_WC_DRIVER3,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_create_cq_wc_flags_enum {
    IBV_WC_EX_WITH_BYTE_LEN = 0x1,
    IBV_WC_EX_WITH_IMM = 0x2,
    IBV_WC_EX_WITH_QP_NUM = 0x4,
    IBV_WC_EX_WITH_SRC_QP = 0x8,
    IBV_WC_EX_WITH_SLID = 0x10,
    IBV_WC_EX_WITH_SL = 0x20,
    IBV_WC_EX_WITH_DLID_PATH_BITS = 0x40,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 0x80,
    IBV_WC_EX_WITH_CVLAN = 0x100,
    IBV_WC_EX_WITH_FLOW_TAG = 0x200,
    IBV_WC_EX_WITH_TM_INFO = 0x400,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK = 0x800,
}
c_enum!(ibv_create_cq_wc_flags: u32 = ibv_create_cq_wc_flags_enum {
    IBV_WC_EX_WITH_BYTE_LEN, IBV_WC_EX_WITH_IMM, IBV_WC_EX_WITH_QP_NUM, IBV_WC_EX_WITH_SRC_QP,
    IBV_WC_EX_WITH_SLID, IBV_WC_EX_WITH_SL, IBV_WC_EX_WITH_DLID_PATH_BITS,
    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, IBV_WC_EX_WITH_CVLAN, IBV_WC_EX_WITH_FLOW_TAG,
    IBV_WC_EX_WITH_TM_INFO, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wc_flags_enum {
    IBV_WC_GRH = 0x1,
    IBV_WC_WITH_IMM = 0x2,
    IBV_WC_IP_CSUM_OK = 0x4,
    IBV_WC_WITH_INV = 0x8,
    IBV_WC_TM_SYNC_REQ = 0x10,
    IBV_WC_TM_MATCH = 0x20,
    IBV_WC_TM_DATA_VALID = 0x40,
}
c_enum!(ibv_wc_flags: u32 = ibv_wc_flags_enum {
    IBV_WC_GRH, IBV_WC_WITH_IMM, IBV_WC_IP_CSUM_OK, IBV_WC_WITH_INV, IBV_WC_TM_SYNC_REQ,
    IBV_WC_TM_MATCH, IBV_WC_TM_DATA_VALID,
});

pub const IBV_WC_IP_CSUM_OK_SHIFT: u32 = 2;

pub const IBV_WC_STANDARD_FLAGS: u32 = 127;

pub const IBV_CREATE_CQ_SUP_WC_FLAGS: u32 = 4095;
