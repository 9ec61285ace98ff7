//! Protection, thread and parent domains.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_pd {
    pub context: *mut ibv_context,
    pub handle: u32,
}
layout!(ibv_pd, 16, 8; context: 0, handle: 8);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_td_init_attr {
    pub comp_mask: u32,
}
layout!(ibv_td_init_attr, 4, 4; comp_mask: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_td {
    pub context: *mut ibv_context,
}
layout!(ibv_td, 8, 8; context: 0);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_parent_domain_init_attr {
    pub pd: *mut ibv_pd,
    pub td: *mut ibv_td,
    pub comp_mask: u32,
    pub alloc: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            pd_context: *mut c_void,
            size: usize,
            alignment: usize,
            resource_type: u64,
        ) -> *mut c_void,
    >,
    pub free: Option<
        unsafe extern "C" fn(
            pd: *mut ibv_pd,
            pd_context: *mut c_void,
            ptr: *mut c_void,
            resource_type: u64,
        ),
    >,
    pub pd_context: *mut c_void,
}
layout!(ibv_parent_domain_init_attr, 48, 8;
    pd: 0, td: 8, comp_mask: 16, alloc: 24, free: 32, pd_context: 40,
);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_parent_domain_init_attr_mask_enum {
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS = 1,
    IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT = 2,
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC = 4,
}
c_enum!(ibv_parent_domain_init_attr_mask: u32 = ibv_parent_domain_init_attr_mask_enum {
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS, IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
    IBV_PARENT_DOMAIN_INIT_ATTR_ALLOW_CC_UNPROTECTED_ALLOC,
});
