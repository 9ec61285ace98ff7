//! Device memory's `alloc_dm` / `free_dm` slots, which verbs.h's inline
//! ibv_alloc_dm / ibv_free_dm call: the library answers them, so a DM is in
//! the registry (ibv_dm_export_dmabuf_fd and close find it) whatever
//! provider made it. A provider without device memory answers EOPNOTSUPP, as
//! rdma-core's dummies do.

use crate::abi::*;
use crate::context::{Context, Obj};
use crate::entry::arg_mut;
use crate::object;
use std::ffi::c_int;

#[entry(ptr)]
pub(crate) unsafe extern "C" fn alloc_dm(
    context: *mut ibv_context,
    attr: *mut ibv_alloc_dm_attr,
) -> *mut ibv_dm {
    let ctx = object::lookup::<Context>(context)?;
    // SAFETY: the caller's attributes, handed on as rdma-core does.
    let attr = unsafe { arg_mut(attr)? };
    let new = ctx.ops.alloc_dm(&ctx, attr)?;
    Ok(object::adopt(ctx, new))
}

#[entry(errno)]
pub(crate) unsafe extern "C" fn free_dm(dm: *mut ibv_dm) -> c_int {
    object::take_if(dm, |d: &Obj| d.ctx.ops.free_dm(d)).map(drop)
}
