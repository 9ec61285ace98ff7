//! XRC domains.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_xrcd_init_attr {
    pub comp_mask: u32,
    pub fd: c_int,
    pub oflags: c_int,
}
layout!(ibv_xrcd_init_attr, 12, 4; comp_mask: 0, fd: 4, oflags: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_xrcd {
    pub context: *mut ibv_context,
}
layout!(ibv_xrcd, 8, 8; context: 0);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_xrcd_init_attr_mask_enum {
    IBV_XRCD_INIT_ATTR_FD = 1,
    IBV_XRCD_INIT_ATTR_OFLAGS = 2,
    IBV_XRCD_INIT_ATTR_RESERVED = 4,
}
c_enum!(ibv_xrcd_init_attr_mask: u32 = ibv_xrcd_init_attr_mask_enum {
    IBV_XRCD_INIT_ATTR_FD, IBV_XRCD_INIT_ATTR_OFLAGS, IBV_XRCD_INIT_ATTR_RESERVED,
});
