//! Completion queues and channels, including the extended `ibv_cq_ex` poll interface.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_comp_channel {
    pub context: *mut ibv_context,
    pub fd: c_int,
    pub refcnt: c_int,
}
layout!(ibv_comp_channel, 16, 8; context: 0, fd: 8, refcnt: 12);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq {
    pub context: *mut ibv_context,
    pub channel: *mut ibv_comp_channel,
    pub cq_context: *mut c_void,
    pub handle: u32,
    pub cqe: c_int,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
}
layout!(ibv_cq, 128, 8;
    context: 0, channel: 8, cq_context: 16, handle: 24, cqe: 28, mutex: 32, cond: 72,
    comp_events_completed: 120, async_events_completed: 124,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_poll_cq_attr {
    pub comp_mask: u32,
}
layout!(ibv_poll_cq_attr, 4, 4; comp_mask: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_wc_tm_info {
    pub tag: u64,
    pub r#priv: u32,
}
layout!(ibv_wc_tm_info, 16, 8; tag: 0, r#priv: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq_ex {
    pub context: *mut ibv_context,
    pub channel: *mut ibv_comp_channel,
    pub cq_context: *mut c_void,
    pub handle: u32,
    pub cqe: c_int,
    pub mutex: pthread_mutex_t,
    pub cond: pthread_cond_t,
    pub comp_events_completed: u32,
    pub async_events_completed: u32,
    pub comp_mask: u32,
    pub status: ibv_wc_status,
    pub wr_id: u64,
    pub start_poll:
        Option<unsafe extern "C" fn(current: *mut ibv_cq_ex, attr: *mut ibv_poll_cq_attr) -> c_int>,
    pub next_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> c_int>,
    pub end_poll: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex)>,
    pub read_opcode: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> ibv_wc_opcode>,
    pub read_vendor_err: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_byte_len: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_imm_data: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> __be32>,
    pub read_qp_num: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_src_qp: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_wc_flags: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> c_uint>,
    pub read_slid: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_sl: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u8>,
    pub read_dlid_path_bits: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u8>,
    pub read_completion_ts: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u64>,
    pub read_cvlan: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u16>,
    pub read_flow_tag: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u32>,
    pub read_tm_info:
        Option<unsafe extern "C" fn(current: *mut ibv_cq_ex, tm_info: *mut ibv_wc_tm_info)>,
    pub read_completion_wallclock_ns: Option<unsafe extern "C" fn(current: *mut ibv_cq_ex) -> u64>,
}
layout!(ibv_cq_ex, 288, 8;
    context: 0, channel: 8, cq_context: 16, handle: 24, cqe: 28, mutex: 32, cond: 72,
    comp_events_completed: 120, async_events_completed: 124, comp_mask: 128, status: 132,
    wr_id: 136, start_poll: 144, next_poll: 152, end_poll: 160, read_opcode: 168,
    read_vendor_err: 176, read_byte_len: 184, read_imm_data: 192, read_qp_num: 200,
    read_src_qp: 208, read_wc_flags: 216, read_slid: 224, read_sl: 232, read_dlid_path_bits: 240,
    read_completion_ts: 248, read_cvlan: 256, read_flow_tag: 264, read_tm_info: 272,
    read_completion_wallclock_ns: 280,
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_moderate_cq {
    pub cq_count: u16,
    pub cq_period: u16,
}
layout!(ibv_moderate_cq, 4, 2; cq_count: 0, cq_period: 2);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_modify_cq_attr {
    pub attr_mask: u32,
    pub moderate: ibv_moderate_cq,
}
layout!(ibv_modify_cq_attr, 8, 4; attr_mask: 0, moderate: 4);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_cq_init_attr_ex {
    pub cqe: u32,
    pub cq_context: *mut c_void,
    pub channel: *mut ibv_comp_channel,
    pub comp_vector: u32,
    pub wc_flags: u64,
    pub comp_mask: u32,
    pub flags: u32,
    pub parent_domain: *mut ibv_pd,
}
layout!(ibv_cq_init_attr_ex, 56, 8;
    cqe: 0, cq_context: 8, channel: 16, comp_vector: 24, wc_flags: 32, comp_mask: 40, flags: 44,
    parent_domain: 48,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_cq_attr_mask_enum {
    IBV_CQ_ATTR_MODERATE = 1,
    IBV_CQ_ATTR_RESERVED = 2,
}
c_enum!(ibv_cq_attr_mask: u32 = ibv_cq_attr_mask_enum {
    IBV_CQ_ATTR_MODERATE, IBV_CQ_ATTR_RESERVED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_cq_init_attr_mask_enum {
    IBV_CQ_INIT_ATTR_MASK_FLAGS = 1,
    IBV_CQ_INIT_ATTR_MASK_PD = 2,
}
c_enum!(ibv_cq_init_attr_mask: u32 = ibv_cq_init_attr_mask_enum {
    IBV_CQ_INIT_ATTR_MASK_FLAGS, IBV_CQ_INIT_ATTR_MASK_PD,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_create_cq_attr_flags_enum {
    IBV_CREATE_CQ_ATTR_SINGLE_THREADED = 1,
    IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN = 2,
}
c_enum!(ibv_create_cq_attr_flags: u32 = ibv_create_cq_attr_flags_enum {
    IBV_CREATE_CQ_ATTR_SINGLE_THREADED, IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN,
});
