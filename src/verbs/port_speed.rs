//! ibv_query_port_speed (rdma-core 64): a port's effective speed in 100 Mb/s
//! units, from the provider (rdma-core 64's rxe has none: EOPNOTSUPP).

use crate::abi::*;
use crate::context::Context;
use crate::entry::arg_mut;
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_query_port_speed(
    context: *mut ibv_context,
    port_num: u32,
    port_speed: *mut u64,
) -> c_int {
    let ctx = object::lookup::<Context>(context)?;
    let speed = ctx.ops.query_port_speed(&ctx, port_num)?;
    // SAFETY: the caller's out-parameter.
    *unsafe { arg_mut(port_speed)? } = speed;
    Ok(())
}
