//! DMA handles (rdma-core 64's ibv_alloc_dmah / ibv_dealloc_dmah): TPH
//! steering hints for devices that have them. rxe does not (EOPNOTSUPP).

use crate::abi::*;
use crate::context::Context;
use crate::entry::Errno;
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
    ctx.ops.alloc_dmah(&ctx, attr)
}

/// No provider of ours makes DMA handles, so no pointer is a live one of ours:
/// EINVAL (rdma-core would follow `dmah->context` into its provider's op).
#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_dealloc_dmah(dmah: *mut ibv_dmah) -> c_int {
    let _ = dmah;
    Err::<(), _>(Errno::EINVAL)
}
