//! Device memory: ibv_cmd_alloc_dm, ibv_cmd_free_dm, ibv_cmd_reg_dm_mr
//! (ioctl methods only, as in rdma-core 44: no write() command exists).

use super::destroy_result;
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub(crate) unsafe fn alloc_dm(
    ctx: *mut ibv_context,
    attr: *const ibv_alloc_dm_attr,
    dm: *mut verbs_dm,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the caller's attributes.
    let a = unsafe { attr.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: the plugin's link chain.
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC, 3, link)? };
    let h = f.obj_out(UVERBS_ATTR_ALLOC_DM_HANDLE);
    f.u64_in(UVERBS_ATTR_ALLOC_DM_LENGTH, a.length as u64);
    f.u32_in(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, a.log_align_req);
    // SAFETY: a hosted context.
    unsafe { f.execute(ctx)? };
    let handle = f.read_obj(h);
    // SAFETY: the plugin's new DM.
    let d = unsafe { dm.as_mut() }.ok_or(Errno::EINVAL)?;
    d.handle = handle;
    d.dm.handle = handle;
    d.dm.comp_mask = IBV_DM_MASK_HANDLE;
    d.dm.context = ctx;
    Ok(())
}

pub(crate) unsafe fn free_dm(dm: *mut verbs_dm) -> Result<()> {
    // SAFETY: a DM of the plugin.
    let d = unsafe { dm.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_DM,
            UVERBS_METHOD_DM_FREE,
            1,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_FREE_DM_HANDLE, d.handle);
    // SAFETY: the DM's context.
    destroy_result(unsafe { f.execute(d.dm.context) })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn reg_dm_mr(
    pd: *mut ibv_pd,
    dm: *mut verbs_dm,
    offset: u64,
    length: usize,
    access: u32,
    vmr: *mut verbs_mr,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    // DM MRs are zero based: the DM's mapping, if any, is the provider's.
    if access & IBV_ACCESS_ZERO_BASED == 0 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: the plugin's PD and DM.
    let (p, d) = unsafe { (pd.as_ref(), dm.as_ref()) };
    let (p, d) = (p.ok_or(Errno::EINVAL)?, d.ok_or(Errno::EINVAL)?);
    let (mut lkey, mut rkey) = (0u32, 0u32);
    // SAFETY: the plugin's link chain.
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_MR, UVERBS_METHOD_DM_MR_REG, 8, link)? };
    let h = f.obj_out(UVERBS_ATTR_REG_DM_MR_HANDLE);
    // SAFETY: our locals, live until execute returns.
    unsafe {
        f.ptr_out(UVERBS_ATTR_REG_DM_MR_RESP_LKEY, (&raw mut lkey).cast(), 4);
        f.ptr_out(UVERBS_ATTR_REG_DM_MR_RESP_RKEY, (&raw mut rkey).cast(), 4);
    }
    f.obj_in(UVERBS_ATTR_REG_DM_MR_PD_HANDLE, p.handle);
    f.obj_in(UVERBS_ATTR_REG_DM_MR_DM_HANDLE, d.handle);
    f.u64_in(UVERBS_ATTR_REG_DM_MR_OFFSET, offset);
    f.u64_in(UVERBS_ATTR_REG_DM_MR_LENGTH, length as u64);
    f.u32_in(UVERBS_ATTR_REG_DM_MR_ACCESS_FLAGS, access);
    // SAFETY: a hosted context; the out pointers are our live locals.
    unsafe { f.execute(p.context)? };
    let handle = f.read_obj(h);
    // SAFETY: the plugin's new MR.
    let m = unsafe { vmr.as_mut() }.ok_or(Errno::EINVAL)?;
    m.ibv_mr.handle = handle;
    m.ibv_mr.context = p.context;
    m.ibv_mr.lkey = lkey;
    m.ibv_mr.rkey = rkey;
    m.ibv_mr.length = length;
    m.ibv_mr.pd = pd;
    m.ibv_mr.addr = std::ptr::null_mut();
    m.mr_type = IBV_MR_TYPE_MR;
    Ok(())
}
