//! Work queues and RSS indirection tables.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wq_init_attr {
    pub wq_context: *mut c_void,
    pub wq_type: ibv_wq_type,
    pub max_wr: u32,
    pub max_sge: u32,
    pub pd: *mut ibv_pd,
    pub cq: *mut ibv_cq,
    pub comp_mask: u32,
    pub create_flags: u32,
}
layout!(ibv_wq_init_attr, 48, 8;
    wq_context: 0, wq_type: 8, max_wr: 12, max_sge: 16, pd: 24, cq: 32, comp_mask: 40,
    create_flags: 44,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wq_attr {
    pub attr_mask: u32,
    pub wq_state: ibv_wq_state,
    pub curr_wq_state: ibv_wq_state,
    pub flags: u32,
    pub flags_mask: u32,
}
layout!(ibv_wq_attr, 20, 4; attr_mask: 0, wq_state: 4, curr_wq_state: 8, flags: 12, flags_mask: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rwq_ind_table {
    pub context: *mut ibv_context,
    pub ind_tbl_handle: c_int,
    pub ind_tbl_num: c_int,
    pub comp_mask: u32,
}
layout!(ibv_rwq_ind_table, 24, 8; context: 0, ind_tbl_handle: 8, ind_tbl_num: 12, comp_mask: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_rwq_ind_table_init_attr {
    pub log_ind_tbl_size: u32,
    pub ind_tbl: *mut *mut ibv_wq,
    pub comp_mask: u32,
}
layout!(ibv_rwq_ind_table_init_attr, 24, 8; log_ind_tbl_size: 0, ind_tbl: 8, comp_mask: 16);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wq {
    pub context: *mut ibv_context,
    pub wq_context: *mut c_void,
    pub pd: *mut ibv_pd,
    pub cq: *mut ibv_cq,
    pub wq_num: u32,
    pub handle: u32,
    pub state: ibv_wq_state,
    pub wq_type: ibv_wq_type,
    pub post_recv: Option<
        unsafe extern "C" fn(
            current: *mut ibv_wq,
            recv_wr: *mut ibv_recv_wr,
            bad_recv_wr: *mut *mut ibv_recv_wr,
        ) -> c_int,
    >,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub events_completed: u32,
    pub comp_mask: u32,
}
layout!(ibv_wq, 152, 8;
    context: 0, wq_context: 8, pd: 16, cq: 24, wq_num: 32, handle: 36, state: 40, wq_type: 44,
    post_recv: 48, mutex: 56, cond: 96, events_completed: 144, comp_mask: 148,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wq_type_enum {
    IBV_WQT_RQ = 0,
}
c_enum!(ibv_wq_type: u32 = ibv_wq_type_enum {
    IBV_WQT_RQ,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wq_init_attr_mask_enum {
    IBV_WQ_INIT_ATTR_FLAGS = 1,
    IBV_WQ_INIT_ATTR_RESERVED = 2,
}
c_enum!(ibv_wq_init_attr_mask: u32 = ibv_wq_init_attr_mask_enum {
    IBV_WQ_INIT_ATTR_FLAGS, IBV_WQ_INIT_ATTR_RESERVED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wq_flags_enum {
    IBV_WQ_FLAGS_CVLAN_STRIPPING = 0x1,
    IBV_WQ_FLAGS_SCATTER_FCS = 0x2,
    IBV_WQ_FLAGS_DELAY_DROP = 0x4,
    IBV_WQ_FLAGS_PCI_WRITE_END_PADDING = 0x8,
    IBV_WQ_FLAGS_RESERVED = 0x10,
}
c_enum!(ibv_wq_flags: u32 = ibv_wq_flags_enum {
    IBV_WQ_FLAGS_CVLAN_STRIPPING, IBV_WQ_FLAGS_SCATTER_FCS, IBV_WQ_FLAGS_DELAY_DROP,
    IBV_WQ_FLAGS_PCI_WRITE_END_PADDING, IBV_WQ_FLAGS_RESERVED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wq_state_enum {
    IBV_WQS_RESET = 0,
    IBV_WQS_RDY = 1,
    IBV_WQS_ERR = 2,
    IBV_WQS_UNKNOWN = 3,
}
c_enum!(ibv_wq_state: u32 = ibv_wq_state_enum {
    IBV_WQS_RESET, IBV_WQS_RDY, IBV_WQS_ERR, IBV_WQS_UNKNOWN,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_wq_attr_mask_enum {
    IBV_WQ_ATTR_STATE = 1,
    IBV_WQ_ATTR_CURR_STATE = 2,
    IBV_WQ_ATTR_FLAGS = 4,
    IBV_WQ_ATTR_RESERVED = 8,
}
c_enum!(ibv_wq_attr_mask: u32 = ibv_wq_attr_mask_enum {
    IBV_WQ_ATTR_STATE, IBV_WQ_ATTR_CURR_STATE, IBV_WQ_ATTR_FLAGS, IBV_WQ_ATTR_RESERVED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_ind_table_init_attr_mask_enum {
    IBV_CREATE_IND_TABLE_RESERVED = 1,
}
c_enum!(ibv_ind_table_init_attr_mask: u32 = ibv_ind_table_init_attr_mask_enum {
    IBV_CREATE_IND_TABLE_RESERVED,
});
