//! The MW commands: ibv_cmd_alloc_mw, ibv_cmd_dealloc_mw.

use super::{drv, on, put_resp};
use crate::abi::*;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;
use std::ffi::c_void;

pub(crate) unsafe fn alloc_mw(
    pd: *mut ibv_pd,
    ty: u32,
    mw: *mut ibv_mw,
    cmd: *mut c_void,
    cmd_size: usize,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a PD of the plugin.
    let (ctx, pdh) = unsafe { ((*pd).context, (*pd).handle) };
    let core = size_of::<crate::uverbs::mw::AllocMwResp>();
    // SAFETY: the plugin's buffers of the given sizes.
    let (di, dout) = unsafe { drv(cmd, cmd_size, 8, resp, resp_size, core) };
    let di = di.get(8..).unwrap_or(&[]);
    let r = with_uverbs(ctx, |u| u.alloc_mw(pdh, ty as u8, di, dout))?;
    // SAFETY: the plugin's new MW.
    unsafe {
        (*mw).context = ctx;
        (*mw).pd = pd;
        (*mw).rkey = r.rkey;
        (*mw).handle = r.mw_handle;
        (*mw).r#type = ibv_mw_type(ty);
        put_resp(resp, resp_size, &r);
    }
    Ok(())
}

pub(crate) unsafe fn dealloc_mw(mw: *mut ibv_mw) -> Result<()> {
    // SAFETY: an object of the plugin.
    unsafe {
        on(crate::providers::plugin::call::current(), mw, |u, h| {
            u.dealloc_mw(h)
        })
    }
}
