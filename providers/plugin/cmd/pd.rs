//! The PD commands: ibv_cmd_alloc_pd, ibv_cmd_dealloc_pd.

use super::{Bufs, Live, on};
use crate::abi::*;
use crate::entry::Result;
use crate::providers::plugin::call::current;
use crate::providers::plugin::context::with_uverbs;

pub(crate) fn alloc_pd(ctx: *mut ibv_context, pd: &mut ibv_pd, mut b: Bufs) -> Result<()> {
    let (di, dout) = b.split(8, 4);
    let h = with_uverbs(ctx, |u| u.alloc_pd(di, dout))?;
    pd.handle = h;
    pd.context = ctx;
    b.put(&h);
    Ok(())
}

pub(crate) fn dealloc_pd(pd: Live<ibv_pd>) -> Result<()> {
    on(current(), pd, |u, h| u.dealloc_pd(h))
}
