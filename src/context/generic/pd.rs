//! Protection domains: the kernel's ALLOC_PD / DEALLOC_PD.

use crate::abi::*;
use crate::context::{Context, New, Obj};
use crate::entry::Result;
use crate::object::CObject;
use crate::object::slab::Slab;
use std::sync::Arc;

/// A PD of a uverbs provider: just the C struct.
#[repr(C)]
pub(crate) struct Pd {
    c: ibv_pd,
}

// SAFETY: plain data; the pointers in it are addresses only.
#[allow(unsafe_code)]
unsafe impl Send for Pd {}
// SAFETY: as above; C and the core write it only before publication.
#[allow(unsafe_code)]
unsafe impl Sync for Pd {}

static PDS: Slab<Pd> = Slab::new();

/// ALLOC_PD; the PD's C struct holds its context and kernel handle.
pub(crate) fn alloc(ctx: &Arc<Context>, drv_in: &[u8], drv_out: &mut [u8]) -> Result<New> {
    let handle = ctx.uverbs.alloc_pd(drv_in, drv_out)?;
    let c = ibv_pd {
        context: ctx.c_ptr(),
        handle,
    };
    Ok(PDS.vacant().fill(Pd { c }))
}

/// The kernel handle of a PD.
pub(crate) fn handle(pd: &Obj) -> u32 {
    pd.read_c(|c: &ibv_pd| c.handle)
}

/// DEALLOC_PD. The kernel refuses (EBUSY) while objects still use the PD.
pub(crate) fn dealloc(pd: &Obj) -> Result<()> {
    pd.ctx.uverbs.dealloc_pd(handle(pd))
}
