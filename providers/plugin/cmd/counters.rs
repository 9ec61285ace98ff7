//! Counters objects: ibv_cmd_create_counters, ibv_cmd_destroy_counters,
//! ibv_cmd_read_counters (ioctl methods only, as in rdma-core 44).

use super::destroy_result;
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub(crate) unsafe fn create_counters(
    ctx: *mut ibv_context,
    attr: *mut ibv_counters_init_attr,
    vc: *mut verbs_counters,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: the caller's attributes.
    let a = unsafe { attr.as_ref() }.ok_or(Errno::EINVAL)?;
    if a.comp_mask != 0 {
        return Err(Errno::EOPNOTSUPP);
    }
    // SAFETY: the plugin's link chain.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_COUNTERS,
            UVERBS_METHOD_COUNTERS_CREATE,
            1,
            link,
        )?
    };
    let h = f.obj_out(UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
    // SAFETY: a hosted context.
    unsafe { f.execute(ctx)? };
    // SAFETY: the plugin's new counters object.
    let c = unsafe { vc.as_mut() }.ok_or(Errno::EINVAL)?;
    c.counters.context = ctx;
    c.handle = f.read_obj(h);
    Ok(())
}

pub(crate) unsafe fn destroy_counters(vc: *mut verbs_counters) -> Result<()> {
    // SAFETY: a counters object of the plugin.
    let c = unsafe { vc.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_COUNTERS,
            UVERBS_METHOD_COUNTERS_DESTROY,
            1,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, c.handle);
    // SAFETY: its context.
    destroy_result(unsafe { f.execute(c.counters.context) })
}

pub(crate) unsafe fn read_counters(
    vc: *mut verbs_counters,
    values: *mut u64,
    n: u32,
    flags: u32,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    // SAFETY: a counters object of the plugin.
    let c = unsafe { vc.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: the plugin's link chain.
    let mut f =
        unsafe { Frame::new(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ, 3, link)? };
    f.obj_in(UVERBS_ATTR_READ_COUNTERS_HANDLE, c.handle);
    // SAFETY: the caller's array of `n` values (fill_attr_out_ptr_array).
    unsafe {
        f.ptr_out(
            UVERBS_ATTR_READ_COUNTERS_BUFF,
            values.cast(),
            n as usize * 8,
        );
    }
    f.u32_in(UVERBS_ATTR_READ_COUNTERS_FLAGS, flags);
    // SAFETY: its context; the caller's array.
    unsafe { f.execute(c.counters.context) }
}
