//! Completion counters (rdma-core 65, IBVERBS_1.18): a device counts the
//! completions (and the errors) of the QPs attached to it.

use super::*;

/// Which operations of a QP an attached counter counts.
#[doc(hidden)]
#[repr(C)]
pub enum ibv_qp_attach_comp_cntr_op_enum {
    IBV_QP_ATTACH_COMP_CNTR_OP_SEND = 0x1,
    IBV_QP_ATTACH_COMP_CNTR_OP_RECV = 0x2,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ = 0x4,
    IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ = 0x8,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE = 0x10,
    IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE = 0x20,
}
c_enum!(ibv_qp_attach_comp_cntr_op: u32 = ibv_qp_attach_comp_cntr_op_enum {
    IBV_QP_ATTACH_COMP_CNTR_OP_SEND, IBV_QP_ATTACH_COMP_CNTR_OP_RECV,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_READ, IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_READ,
    IBV_QP_ATTACH_COMP_CNTR_OP_RDMA_WRITE, IBV_QP_ATTACH_COMP_CNTR_OP_REMOTE_RDMA_WRITE,
});

/// What `ibv_query_comp_cntr_caps` reports.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct ibv_comp_cntr_caps {
    pub max_value: u64,
    pub max_counters: u32,
    /// A mask of `ibv_qp_attach_comp_cntr_op`.
    pub supported_qp_attach_ops: u32,
}
layout!(ibv_comp_cntr_caps, 16, 8; max_value: 0, max_counters: 8, supported_qp_attach_ops: 12);

/// A completion counter.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_cntr {
    pub context: *mut ibv_context,
    pub handle: u32,
}
layout!(ibv_comp_cntr, 16, 8; context: 0, handle: 8);

/// What a completion counter counts.
#[doc(hidden)]
#[repr(C)]
pub enum ibv_comp_cntr_type_enum {
    IBV_COMP_CNTR_TYPE_WRS = 0,
    IBV_COMP_CNTR_TYPE_BYTES = 1,
}
c_enum!(ibv_comp_cntr_type: u32 = ibv_comp_cntr_type_enum {
    IBV_COMP_CNTR_TYPE_WRS, IBV_COMP_CNTR_TYPE_BYTES,
});

/// The request of `ibv_create_comp_cntr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_cntr_init_attr {
    pub comp_mask: u32,
    pub r#type: ibv_comp_cntr_type,
    pub flags: u32,
}
layout!(ibv_comp_cntr_init_attr, 12, 4; comp_mask: 0, r#type: 4, flags: 8);

/// The request of `ibv_qp_attach_comp_cntr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_qp_attach_comp_cntr_attr {
    pub comp_mask: u32,
    /// A mask of `ibv_qp_attach_comp_cntr_op`.
    pub op_mask: u32,
}
layout!(ibv_qp_attach_comp_cntr_attr, 8, 4; comp_mask: 0, op_mask: 4);
