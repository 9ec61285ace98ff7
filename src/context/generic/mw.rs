//! Memory windows: the kernel's ALLOC_MW / DEALLOC_MW.

use super::read_c;
use crate::abi::*;
use crate::context::{Mw, Pd};
use crate::entry::Result;
use crate::object::CObject;
use std::sync::Arc;

/// ALLOC_MW. The kernel command carries the type in one byte (as rdma-core
/// sends it); the C struct keeps the caller's value.
pub fn alloc(pd: &Arc<Pd>, ty: ibv_mw_type, drv_in: &[u8], drv_out: &mut [u8]) -> Result<Arc<Mw>> {
    let ctx = &pd.ctx;
    let r = ctx
        .uverbs
        .alloc_mw(super::pd::handle(pd), ty.0 as u8, drv_in, drv_out)?;
    let c = ibv_mw {
        context: ctx.c_ptr(),
        pd: pd.c_ptr(),
        rkey: r.rkey,
        handle: r.mw_handle,
        r#type: ty,
    };
    Ok(Arc::new(Mw::new(c, ctx.clone(), Box::new(()))))
}

/// DEALLOC_MW.
pub fn dealloc(mw: &Mw) -> Result<()> {
    mw.ctx.uverbs.dealloc_mw(read_c(mw).handle)
}
