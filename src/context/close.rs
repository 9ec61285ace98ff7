//! ibv_close_device: the context and everything still created in it go.

use super::*;
use crate::entry::Result;
use crate::object;

/// Closes a context C has given back (already out of the registry): the
/// provider's cleanup, then every object of the context leaves the registry,
/// so the last references go and with them the command and async fds (as
/// soon as no other thread is inside a verb on them).
pub(crate) fn close(ctx: Arc<Context>) -> Result<()> {
    let r = ctx.ops.close(&ctx);
    let children = object::take_owned_by(&ctx);
    drop(children);
    drop(ctx);
    r
}
