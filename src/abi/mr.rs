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
    IBV_ACCESS_FLUSH_GLOBAL = 0x100,
    IBV_ACCESS_FLUSH_PERSISTENT = 0x200,
    IBV_ACCESS_RELAXED_ORDERING = 0x100000,
}
c_enum!(ibv_access_flags: u32 = ibv_access_flags_enum {
    IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
    IBV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED, IBV_ACCESS_ON_DEMAND,
    IBV_ACCESS_HUGETLB, IBV_ACCESS_FLUSH_GLOBAL, IBV_ACCESS_FLUSH_PERSISTENT,
    IBV_ACCESS_RELAXED_ORDERING,
});

/// A DMA handle (rdma-core 64; no provider here can make one).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_dmah {
    pub context: *mut ibv_context,
}
layout!(ibv_dmah, 8, 8; context: 0);

/// What `ibv_dmah_init_attr` sets.
#[doc(hidden)]
#[repr(C)]
pub enum ibv_dmah_init_attr_mask_enum {
    IBV_DMAH_INIT_ATTR_MASK_CPU_ID = 0x1,
    IBV_DMAH_INIT_ATTR_MASK_PH = 0x2,
    IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE = 0x4,
}
c_enum!(ibv_dmah_init_attr_mask: u32 = ibv_dmah_init_attr_mask_enum {
    IBV_DMAH_INIT_ATTR_MASK_CPU_ID, IBV_DMAH_INIT_ATTR_MASK_PH,
    IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE,
});

#[doc(hidden)]
#[repr(C)]
pub enum ibv_tph_mem_type_enum {
    IBV_TPH_MEM_TYPE_VM = 0,
    IBV_TPH_MEM_TYPE_PM = 1,
}
c_enum!(ibv_tph_mem_type: u32 = ibv_tph_mem_type_enum {
    IBV_TPH_MEM_TYPE_VM, IBV_TPH_MEM_TYPE_PM,
});

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_dmah_init_attr {
    pub comp_mask: u32,
    pub cpu_id: u32,
    pub ph: u8,
    pub tph_mem_type: u8,
}
layout!(ibv_dmah_init_attr, 12, 4; comp_mask: 0, cpu_id: 4, ph: 8, tph_mem_type: 9);

/// A buffer of `ibv_alloc_buf`; opaque to C (rdma-core 64).
pub struct ibv_buf {
    _private: [u8; 0],
}

/// Which fields of `ibv_mr_init_attr` are set.
#[doc(hidden)]
#[repr(C)]
pub enum ibv_mr_init_attr_mask_enum {
    IBV_REG_MR_MASK_IOVA = 0x1,
    IBV_REG_MR_MASK_ADDR = 0x2,
    IBV_REG_MR_MASK_FD = 0x4,
    IBV_REG_MR_MASK_FD_OFFSET = 0x8,
    IBV_REG_MR_MASK_DMAH = 0x10,
    IBV_REG_MR_MASK_BUF = 0x20,
}
c_enum!(ibv_mr_init_attr_mask: u32 = ibv_mr_init_attr_mask_enum {
    IBV_REG_MR_MASK_IOVA, IBV_REG_MR_MASK_ADDR, IBV_REG_MR_MASK_FD, IBV_REG_MR_MASK_FD_OFFSET,
    IBV_REG_MR_MASK_DMAH, IBV_REG_MR_MASK_BUF,
});

/// The request of `ibv_reg_mr_ex` (rdma-core 64).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ibv_mr_init_attr {
    pub length: usize,
    pub access: c_int,
    pub comp_mask: u64,
    pub iova: u64,
    pub addr: *mut c_void,
    pub fd: c_int,
    pub fd_offset: u64,
    pub dmah: *mut ibv_dmah,
    pub buf: *mut ibv_buf,
}
layout!(ibv_mr_init_attr, 72, 8;
    length: 0, access: 8, comp_mask: 16, iova: 24, addr: 32, fd: 40, fd_offset: 48, dmah: 56,
    buf: 64,
);

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
