//! Memory regions and access flags.

use super::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mr {
    pub context: *mut ibv_context,
    pub pd: *mut ibv_pd,
    pub addr: *mut c_void,
    pub length: usize,
    pub handle: u32,
    pub lkey: u32,
    pub rkey: u32,
}
layout!(ibv_mr, 48, 8; context: 0, pd: 8, addr: 16, length: 24, handle: 32, lkey: 36, rkey: 40);

#[doc(hidden)]
#[repr(C)]
pub enum ibv_access_flags_enum {
    IBV_ACCESS_LOCAL_WRITE = 0x1,
    IBV_ACCESS_REMOTE_WRITE = 0x2,
    IBV_ACCESS_REMOTE_READ = 0x4,
    IBV_ACCESS_REMOTE_ATOMIC = 0x8,
    IBV_ACCESS_MW_BIND = 0x10,
    IBV_ACCESS_ZERO_BASED = 0x20,
    IBV_ACCESS_ON_DEMAND = 0x40,
    IBV_ACCESS_HUGETLB = 0x80,
    IBV_ACCESS_RELAXED_ORDERING = 0x100000,
}
c_enum!(ibv_access_flags: u32 = ibv_access_flags_enum {
    IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED, IBV_ACCESS_ON_DEMAND,
    IBV_ACCESS_HUGETLB, IBV_ACCESS_RELAXED_ORDERING,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_rereg_mr_flags_enum {
    IBV_REREG_MR_CHANGE_TRANSLATION = 1,
    IBV_REREG_MR_CHANGE_PD = 2,
    IBV_REREG_MR_CHANGE_ACCESS = 4,
    IBV_REREG_MR_FLAGS_SUPPORTED = 7,
}
c_enum!(ibv_rereg_mr_flags: u32 = ibv_rereg_mr_flags_enum {
    IBV_REREG_MR_CHANGE_TRANSLATION, IBV_REREG_MR_CHANGE_PD, IBV_REREG_MR_CHANGE_ACCESS,
    IBV_REREG_MR_FLAGS_SUPPORTED,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_rereg_mr_err_code_enum {
    IBV_REREG_MR_ERR_INPUT = -1,
    IBV_REREG_MR_ERR_DONT_FORK_NEW = -2,
    IBV_REREG_MR_ERR_DO_FORK_OLD = -3,
    IBV_REREG_MR_ERR_CMD = -4,
    IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW = -5,
}
c_enum!(ibv_rereg_mr_err_code: i32 = ibv_rereg_mr_err_code_enum {
    IBV_REREG_MR_ERR_INPUT, IBV_REREG_MR_ERR_DONT_FORK_NEW, IBV_REREG_MR_ERR_DO_FORK_OLD,
    IBV_REREG_MR_ERR_CMD, IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW,
});
