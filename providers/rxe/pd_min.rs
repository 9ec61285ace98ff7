//! A minimal ibv_alloc_pd/ibv_dealloc_pd so the qp branch can create QPs
//! and SRQs in its tests. TEMPORARY: the pdmr branch's PD replaces this file
//! (drop it and the two methods that call it in context.rs when merging).
#![allow(unsafe_code)]

use std::sync::Arc;

use crate::abi::ibv_pd;
use crate::context::{Context, Pd};
use crate::entry::Result;
use crate::object::CObject;

pub fn alloc(ctx: &Arc<Context>) -> Result<Arc<Pd>> {
    let handle = ctx.uverbs.alloc_pd(&[], &mut [])?;
    // SAFETY: plain C data; all-zero is valid.
    let mut c: ibv_pd = unsafe { std::mem::zeroed() };
    c.context = ctx.c_ptr();
    c.handle = handle;
    Ok(Arc::new(Pd::new(c, ctx.clone(), Box::new(handle))))
}

pub fn dealloc(pd: &Pd) -> Result<()> {
    pd.ctx.uverbs.dealloc_pd(pd.c_get().handle)
}
