//! ibv_cmd_attach_mcast and ibv_cmd_detach_mcast.

use crate::abi::*;
use crate::context::generic;
use crate::entry::{Errno, Result};
use crate::providers::plugin::context::with_uverbs;

pub(crate) unsafe fn mcast(
    qp: *mut ibv_qp,
    gid: *const ibv_gid,
    lid: u16,
    attach: bool,
) -> Result<()> {
    // SAFETY: a QP of the plugin; the caller's GID.
    let (ctx, h, g) = unsafe {
        (
            (*qp).context,
            (*qp).handle,
            gid.as_ref().ok_or(Errno::EINVAL)?,
        )
    };
    let g = generic::gid::raw(g);
    with_uverbs(ctx, |u| {
        if attach {
            u.attach_mcast(h, g, lid)
        } else {
            u.detach_mcast(h, g, lid)
        }
    })
}
