//! DMA handles (rdma-core 65's ibv_cmd_alloc_dmah / ibv_cmd_free_dmah): the
//! DMAH object's methods, with the CPU, TPH memory type and processing
//! hint the caller's mask selects.

use super::destroy_result;
use crate::abi::*;
use crate::driver_abi::v65::verbs_dmah;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub(crate) unsafe fn alloc_dmah(
    ctx: *mut ibv_context,
    dmah: *mut verbs_dmah,
    attr: *mut ibv_dmah_init_attr,
) -> Result<()> {
    // SAFETY: the caller's attributes and the plugin's new handle.
    let (a, d) = unsafe { (attr.as_ref(), dmah.as_mut()) };
    let (a, d) = (a.ok_or(Errno::EINVAL)?, d.ok_or(Errno::EINVAL)?);
    if ctx.is_null() {
        return Err(Errno::EINVAL);
    }
    use ibv_dmah_init_attr_mask_enum as M;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_DMAH,
            UVERBS_METHOD_DMAH_ALLOC,
            4,
            std::ptr::null_mut(),
        )?
    };
    let h = f.obj_out(UVERBS_ATTR_ALLOC_DMAH_HANDLE);
    if a.comp_mask & M::IBV_DMAH_INIT_ATTR_MASK_CPU_ID as u32 != 0 {
        f.u32_in(UVERBS_ATTR_ALLOC_DMAH_CPU_ID, a.cpu_id);
    }
    if a.comp_mask & M::IBV_DMAH_INIT_ATTR_MASK_TPH_MEM_TYPE as u32 != 0 {
        // fill_attr_in_enum with no data: the element id is the value.
        let s = f.obj_in(UVERBS_ATTR_ALLOC_DMAH_TPH_MEM_TYPE, 0);
        f.set_enum(s, a.tph_mem_type);
    }
    if a.comp_mask & M::IBV_DMAH_INIT_ATTR_MASK_PH as u32 != 0 {
        // SAFETY: the caller's byte, copied inline.
        unsafe { f.ptr_in(UVERBS_ATTR_ALLOC_DMAH_PH, &raw const a.ph, 1) };
    }
    // SAFETY: a hosted context.
    unsafe { f.execute(ctx)? };
    d.handle = f.read_obj(h);
    d.dmah.context = ctx;
    Ok(())
}

pub(crate) unsafe fn free_dmah(dmah: *mut verbs_dmah) -> Result<()> {
    // SAFETY: a handle of the plugin.
    let d = unsafe { dmah.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_DMAH,
            UVERBS_METHOD_DMAH_FREE,
            1,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_FREE_DMA_HANDLE, d.handle);
    // SAFETY: its context.
    destroy_result(unsafe { f.execute(d.dmah.context) })
}
