//! DMA handles (rdma-core 64's ibv_alloc_dmah / ibv_dealloc_dmah): TPH
//! steering hints, from the provider's op (rxe has none: EOPNOTSUPP). A
//! handle is a registry object of the context that made it: a NULL,
//! foreign or freed one is EINVAL (rdma-core would follow `dmah->context`).

use crate::abi::*;
use crate::context::{Context, Obj};
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_alloc_dmah(
    context: *mut ibv_context,
    attr: *mut ibv_dmah_init_attr,
) -> *mut ibv_dmah {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's attributes, if any; read only.
    let attr = unsafe { attr.as_ref() };
    let new = ctx.ops.alloc_dmah(&ctx, attr)?;
    Ok(object::adopt(ctx, new))
}

/// A handle that is not a live one of ours is EINVAL (rdma-core would
/// follow `dmah->context` into its provider's op).
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_dealloc_dmah(dmah: *mut ibv_dmah) -> c_int {
    object::take_if(dmah, |d: &Obj| d.ctx.ops.dealloc_dmah(d)).map(drop)
}
