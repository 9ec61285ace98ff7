//! The PD commands: ibv_cmd_alloc_pd, ibv_cmd_dealloc_pd.

use super::{drv, on, put_resp};
use crate::abi::*;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;
use std::ffi::c_void;

pub(crate) unsafe fn alloc_pd(
    ctx: *mut ibv_context,
    pd: *mut ibv_pd,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, 8, resp, resp_size, 4) };
    let h = with_uverbs(ctx, |u| u.alloc_pd(di, dout))?;
    // SAFETY: the plugin's new PD; its response buffer.
    unsafe {
        (*pd).handle = h;
        (*pd).context = ctx;
        put_resp(resp, resp_size, &h);
    }
    Ok(())
}

pub(crate) unsafe fn dealloc_pd(pd: *mut ibv_pd) -> Result<()> {
    // SAFETY: an object of the plugin.
    unsafe {
        on(crate::providers::plugin::call::current(), pd, |u, h| {
            u.dealloc_pd(h)
        })
    }
}
