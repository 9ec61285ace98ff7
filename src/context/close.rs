//! ibv_close_device: the context and everything still created in it go.

use super::*;
use crate::entry::Result;
use crate::object;
use std::any::Any;

/// The context an object in the registry belongs to, if it is a context object.
fn owner(e: &(dyn Any + Send + Sync)) -> Option<*const Context> {
    macro_rules! try_types {
        ($($t:ty),*) => {
            $(if let Some(o) = e.downcast_ref::<$t>() {
                return Some(Arc::as_ptr(&o.ctx));
            })*
        };
    }
    try_types!(Pd, Mr, Mw, CompChannel, Cq, Qp, Srq, Ah, Dm);
    None
}

/// Closes a context C has given back (already out of the registry): the
/// provider's cleanup, then every object of the context leaves the registry,
/// so the last references go and with them the command and async fds (as
/// soon as no other thread is inside a verb on them).
pub fn close(ctx: Arc<Context>) -> Result<()> {
    let r = ctx.ops.close(&ctx);
    let me = Arc::as_ptr(&ctx);
    let children = object::retire_where(|e| owner(e) == Some(me));
    drop(children);
    drop(ctx);
    r
}
