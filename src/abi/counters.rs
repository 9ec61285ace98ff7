//! Flow/QP counters objects.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_counters_init_attr {
    pub comp_mask: u32,
}
layout!(ibv_counters_init_attr, 4, 4; comp_mask: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_counters {
    pub context: *mut ibv_context,
}
layout!(ibv_counters, 8, 8; context: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_counter_attach_attr {
    pub counter_desc: ibv_counter_description,
    pub index: u32,
    pub comp_mask: u32,
}
layout!(ibv_counter_attach_attr, 12, 4; counter_desc: 0, index: 4, comp_mask: 8);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_counter_description_enum {
    IBV_COUNTER_PACKETS = 0,
    IBV_COUNTER_BYTES = 1,
}
c_enum!(ibv_counter_description: u32 = ibv_counter_description_enum {
    IBV_COUNTER_PACKETS, IBV_COUNTER_BYTES,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_read_counters_flags_enum {
    IBV_READ_COUNTERS_ATTR_PREFER_CACHED = 1,
}
c_enum!(ibv_read_counters_flags: u32 = ibv_read_counters_flags_enum {
    IBV_READ_COUNTERS_ATTR_PREFER_CACHED,
});
