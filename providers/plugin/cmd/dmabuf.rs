//! ibv_cmd_export_dmabuf_fd (rdma-core 65): a dma-buf fd for the device
//! pages at `pg_off` of the context's mmap space (the DMABUF object's
//! ALLOC method); the caller gets the fd, or -1 with errno.

use crate::abi::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;
use std::ffi::c_int;

pub(crate) unsafe fn export_dmabuf_fd(ctx: *mut ibv_context, pg_off: i64) -> Result<c_int> {
    if ctx.is_null() {
        return Err(Errno::EINVAL);
    }
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_DMABUF,
            UVERBS_METHOD_DMABUF_ALLOC,
            2,
            std::ptr::null_mut(),
        )?
    };
    // fill_attr_out_fd: the kernel puts the new fd in the attribute.
    let h = f.obj_out(UVERBS_ATTR_ALLOC_DMABUF_HANDLE);
    f.u64_in(UVERBS_ATTR_ALLOC_DMABUF_PGOFF, pg_off as u64);
    // SAFETY: a hosted context.
    unsafe { f.execute(ctx)? };
    Ok(f.read_obj(h) as c_int)
}
