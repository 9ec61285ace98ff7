//! ibv_dm_export_dmabuf_fd (rdma-core 64): a dma-buf fd for device memory.
//! rxe has no device memory, so no DM of ours can be exported (EOPNOTSUPP).

use crate::abi::*;
use crate::context::ObjRef;
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_dm_export_dmabuf_fd(dm: *mut ibv_dm) -> c_int {
    let dm: ObjRef = object::get(dm)?;
    dm.ctx.ops.dm_export_dmabuf_fd(&dm)
}
