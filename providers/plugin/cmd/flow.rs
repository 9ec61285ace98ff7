//! Flow rules, flow actions and RSS tables: ibv_cmd_destroy_flow,
//! ibv_cmd_destroy_flow_action (ioctl only), ibv_cmd_destroy_rwq_ind_table
//! (the ioctl methods; rules and tables fall back to write() as rdma-core 44).

use super::destroy_result;
use crate::abi::*;
use crate::driver_abi::v34::*;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;
use crate::providers::plugin::frame::Frame;
use crate::uverbs::ids::*;

pub(crate) unsafe fn destroy_flow_action(action: *mut verbs_flow_action) -> Result<()> {
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

pub(crate) unsafe fn destroy_flow(flow: *mut ibv_flow) -> Result<()> {
    // SAFETY: a flow rule of the plugin.
    let f = unsafe { flow.as_ref() }.ok_or(Errno::EINVAL)?;
    destroy_result(with_uverbs(f.context, |u| u.destroy_flow(f.handle)))
}

pub(crate) unsafe fn destroy_rwq_ind_table(t: *mut ibv_rwq_ind_table) -> Result<()> {
    // SAFETY: an indirection table of the plugin.
    let t = unsafe { t.as_ref() }.ok_or(Errno::EINVAL)?;
    let h = t.ind_tbl_handle as u32;
    destroy_result(with_uverbs(t.context, |u| u.destroy_rwq_ind_table(h)))
}
