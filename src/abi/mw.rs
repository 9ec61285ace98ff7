//! Memory windows and their binding.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mw_bind_info {
    pub mr: *mut ibv_mr,
    pub addr: u64,
    pub length: u64,
    pub mw_access_flags: c_uint,
}
layout!(ibv_mw_bind_info, 32, 8; mr: 0, addr: 8, length: 16, mw_access_flags: 24);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mw {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub rkey: u32,
    pub handle: u32,
    pub r#type: ibv_mw_type,
}
layout!(ibv_mw, 32, 8; context: 0, pd: 8, rkey: 16, handle: 20, r#type: 24);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mw_bind {
    pub wr_id: u64,
    pub send_flags: c_uint,
    pub bind_info: ibv_mw_bind_info,
}
layout!(ibv_mw_bind, 48, 8; wr_id: 0, send_flags: 8, bind_info: 16);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_mw_type_enum {
    IBV_MW_TYPE_1 = 1,
    IBV_MW_TYPE_2 = 2,
}
c_enum!(ibv_mw_type: u32 = ibv_mw_type_enum {
    IBV_MW_TYPE_1, IBV_MW_TYPE_2,
});
