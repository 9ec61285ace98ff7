//! The MW commands: ibv_cmd_alloc_mw, ibv_cmd_dealloc_mw.

use super::{Bufs, Live, on};
use crate::abi::*;
use crate::entry::Result;
use crate::providers::plugin::call::current;
use crate::providers::plugin::context::with_uverbs;

pub(crate) fn alloc_mw(pd: Live<ibv_pd>, ty: u32, mw: &mut ibv_mw, mut b: Bufs) -> Result<()> {
    let (ctx, pdh) = pd.parts();
    let core = size_of::<crate::uverbs::mw::AllocMwResp>();
    // The driver data follows the header and ib_uverbs_alloc_mw's 16 bytes.
    let (di, dout) = b.split(16, core);
    let r = with_uverbs(ctx, |u| u.alloc_mw(pdh, ty as u8, di, dout))?;
    mw.context = ctx;
    mw.pd = pd.ptr();
    mw.rkey = r.rkey;
    mw.handle = r.mw_handle;
    mw.r#type = ibv_mw_type(ty);
    b.put(&r);
    Ok(())
}

pub(crate) fn dealloc_mw(mw: Live<ibv_mw>) -> Result<()> {
    on(current(), mw, |u, h| u.dealloc_mw(h))
}
