//! Device memory.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_alloc_dm_attr {
    pub length: usize,
    pub log_align_req: u32,
    pub comp_mask: u32,
}
layout!(ibv_alloc_dm_attr, 16, 8; length: 0, log_align_req: 8, comp_mask: 12);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_dm {
    pub context: *mut ibv_context,
    pub memcpy_to_dm: Option<
        unsafe extern "C" fn(
            dm: *mut ibv_dm,
            dm_offset: u64,
            host_addr: *const c_void,
            length: usize,
        ) -> c_int,
    >,
    pub memcpy_from_dm: Option<
        unsafe extern "C" fn(
            host_addr: *mut c_void,
            dm: *mut ibv_dm,
            dm_offset: u64,
            length: usize,
        ) -> c_int,
    >,
    pub comp_mask: u32,
    pub handle: u32,
}
layout!(ibv_dm, 32, 8; context: 0, memcpy_to_dm: 8, memcpy_from_dm: 16, comp_mask: 24, handle: 28);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_dm_mask_enum {
    IBV_DM_MASK_HANDLE = 1,
}
c_enum!(ibv_dm_mask: u32 = ibv_dm_mask_enum {
    IBV_DM_MASK_HANDLE,
});
