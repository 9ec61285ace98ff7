//! Shared receive queues.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq_attr {
    pub max_wr: u32,
    pub max_sge: u32,
    pub srq_limit: u32,
}
layout!(ibv_srq_attr, 12, 4; max_wr: 0, max_sge: 4, srq_limit: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq_init_attr {
    pub srq_context: *mut c_void,
    pub attr: ibv_srq_attr,
}
layout!(ibv_srq_init_attr, 24, 8; srq_context: 0, attr: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq_init_attr_ex {
    pub srq_context: *mut c_void,
    pub attr: ibv_srq_attr,
    pub comp_mask: u32,
    pub srq_type: ibv_srq_type,
    pub pd: *mut ibv_pd,
    pub xrcd: *mut ibv_xrcd,
    pub cq: *mut ibv_cq,
    pub tm_cap: ibv_tm_cap,
}
layout!(ibv_srq_init_attr_ex, 64, 8;
    srq_context: 0, attr: 8, comp_mask: 20, srq_type: 24, pd: 32, xrcd: 40, cq: 48, tm_cap: 56,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_srq {
    pub context: *mut ibv_context,
    pub srq_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub handle: u32,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub events_completed: u32,
}
layout!(ibv_srq, 128, 8;
    context: 0, srq_context: 8, pd: 16, handle: 24, mutex: 32, cond: 72, events_completed: 120,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_srq_attr_mask_enum {
    IBV_SRQ_MAX_WR = 1,
    IBV_SRQ_LIMIT = 2,
}
c_enum!(ibv_srq_attr_mask: u32 = ibv_srq_attr_mask_enum {
    IBV_SRQ_MAX_WR, IBV_SRQ_LIMIT,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_srq_type_enum {
    IBV_SRQT_BASIC = 0,
    IBV_SRQT_XRC = 1,
    IBV_SRQT_TM = 2,
}
c_enum!(ibv_srq_type: u32 = ibv_srq_type_enum {
    IBV_SRQT_BASIC, IBV_SRQT_XRC, IBV_SRQT_TM,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_srq_init_attr_mask_enum {
    IBV_SRQ_INIT_ATTR_TYPE = 0x1,
    IBV_SRQ_INIT_ATTR_PD = 0x2,
    IBV_SRQ_INIT_ATTR_XRCD = 0x4,
    IBV_SRQ_INIT_ATTR_CQ = 0x8,
    IBV_SRQ_INIT_ATTR_TM = 0x10,
    IBV_SRQ_INIT_ATTR_RESERVED = 0x20,
}
c_enum!(ibv_srq_init_attr_mask: u32 = ibv_srq_init_attr_mask_enum {
    IBV_SRQ_INIT_ATTR_TYPE, IBV_SRQ_INIT_ATTR_PD, IBV_SRQ_INIT_ATTR_XRCD, IBV_SRQ_INIT_ATTR_CQ,
    IBV_SRQ_INIT_ATTR_TM, IBV_SRQ_INIT_ATTR_RESERVED,
});
