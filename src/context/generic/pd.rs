//! Protection domains: the kernel's ALLOC_PD / DEALLOC_PD.

use crate::abi::*;
use crate::context::{Context, Pd};
use crate::entry::Result;
use crate::object::CObject;
use std::sync::Arc;

/// ALLOC_PD; the PD's C struct holds its context and kernel handle.
pub fn alloc(ctx: &Arc<Context>, drv_in: &[u8], drv_out: &mut [u8]) -> Result<Arc<Pd>> {
    let handle = ctx.uverbs.alloc_pd(drv_in, drv_out)?;
    let c = ibv_pd {
        context: ctx.c_ptr(),
        handle,
    };
    Ok(Arc::new(Pd::new(c, ctx.clone(), Box::new(()))))
}

/// The kernel handle of a PD.
pub fn handle(pd: &Pd) -> u32 {
    super::read_c(pd).handle
}

/// DEALLOC_PD. The kernel refuses (EBUSY) while objects still use the PD.
pub fn dealloc(pd: &Pd) -> Result<()> {
    pd.ctx.uverbs.dealloc_pd(handle(pd))
}
