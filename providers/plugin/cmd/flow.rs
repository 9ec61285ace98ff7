//! Flow actions: ibv_cmd_destroy_flow_action (the ioctl method, as rdma-core 44).

use super::destroy_result;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub unsafe fn destroy_flow_action(action: *mut verbs_flow_action) -> Result<()> {
    // SAFETY: a flow action of the plugin.
    let a = unsafe { action.as_ref() }.ok_or(Errno::EINVAL)?;
    // SAFETY: no link.
    let mut f = unsafe {
        Frame::new(
            UVERBS_OBJECT_FLOW_ACTION,
            UVERBS_METHOD_FLOW_ACTION_DESTROY,
            1,
            std::ptr::null_mut(),
        )?
    };
    f.obj_in(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE, a.handle);
    // SAFETY: the action's context.
    destroy_result(unsafe { f.execute(a.action.context) })
}
