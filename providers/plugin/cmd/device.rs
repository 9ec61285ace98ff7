//! ibv_cmd_query_context: the QUERY_CONTEXT ioctl method, with the plugin's
//! driver attributes linked in.

use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub(crate) unsafe fn query_context(
    ctx: *mut ibv_context,
    link: *mut ibv_command_buffer,
) -> Result<()> {
    if ctx.is_null() {
        return Err(Errno::EINVAL);
    }
    let mut core_support = 0u64;
    // SAFETY: the plugin's link chain.
    let mut f = unsafe { Frame::new(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT, 2, link)? };
    // SAFETY: the context's field and our local, live until execute returns.
    unsafe {
        f.ptr_out(
            UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
            (&raw mut (*ctx).num_comp_vectors).cast(),
            4,
        );
        f.ptr_out(
            UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT,
            (&raw mut core_support).cast(),
            8,
        );
        f.execute(ctx)?;
        // The device's verbs_device records what the core supports.
        let vdev = (*ctx).device.cast::<verbs_device>();
        if !vdev.is_null() {
            (*vdev).core_support = core_support;
        }
    }
    Ok(())
}
