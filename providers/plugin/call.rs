//! The hosted call in progress on this thread: our verb's context (and the
//! object it is destroying) while the plugin's op runs. The plugin's
//! `ibv_cmd_*` for that context use the verb's own context reference
//! instead of looking the context up again (the hosted list's lock and a
//! `Weak` upgrade per kernel command), and a destroy's wait for event
//! acknowledgements uses the verb's record instead of the registry.
#![allow(unsafe_code)]

use crate::abi::ibv_context;
use crate::context::{Context, Obj};
use crate::object::CObject;
use std::cell::Cell;
use std::ptr::NonNull;

#[derive(Clone, Copy)]
struct Call {
    /// The `ibv_context` address the plugin sees (0: no call).
    ctx: usize,
    context: *const Context,
    /// The C address of the object being destroyed (0: none), its record.
    destroying: usize,
    obj: *const Obj,
}

const NONE: Call = Call {
    ctx: 0,
    context: std::ptr::null(),
    destroying: 0,
    obj: std::ptr::null(),
};

thread_local! {
    static CALL: Cell<Call> = const { Cell::new(NONE) };
}

/// Puts the previous frame back, also when the op unwinds.
struct Restore<'a>(&'a Cell<Call>, Call);

impl Drop for Restore<'_> {
    fn drop(&mut self) {
        self.0.set(self.1);
    }
}

/// Runs `f` with `call` as this thread's frame (one thread-local access).
#[inline]
fn with<R>(call: Call, f: impl FnOnce() -> R) -> R {
    CALL.with(|c| {
        let _r = Restore(c, c.replace(call));
        f()
    })
}

/// Runs the plugin's op `f` for a verb on `ctx` (which the caller holds
/// for the whole call).
#[inline]
pub(crate) fn on<R>(ctx: &Context, f: impl FnOnce() -> R) -> R {
    let call = Call {
        ctx: ctx.c_ptr() as usize,
        context: ctx,
        ..NONE
    };
    with(call, f)
}

/// Runs the plugin's destroy op `f` on `o` (see [`Frame::wait_acked`]).
#[inline]
pub(crate) fn destroying<R>(o: &Obj, f: impl FnOnce() -> R) -> R {
    let call = Call {
        ctx: o.ctx.c_ptr() as usize,
        context: &*o.ctx,
        destroying: o.addr().as_ptr() as usize,
        obj: o,
    };
    with(call, f)
}

/// This thread's frame, read once for the several uses of one command.
#[derive(Clone, Copy)]
pub(crate) struct Frame(Call);

/// The frame now (one thread-local access).
#[inline]
pub(crate) fn current() -> Frame {
    Frame(CALL.get())
}

impl Frame {
    /// Our Context of `ctx` if a verb on it is calling the plugin on this
    /// thread. The pointer is valid until the plugin's op returns to that
    /// verb, so for the whole of an `ibv_cmd_*` the op called.
    #[inline]
    pub(crate) fn context(self, ctx: *const ibv_context) -> Option<NonNull<Context>> {
        if self.0.ctx != ctx as usize {
            return None;
        }
        NonNull::new(self.0.context.cast_mut())
    }

    /// Waits on the events of `p` if it is the object this thread's verb
    /// is destroying; false otherwise.
    #[inline]
    pub(crate) fn wait_acked(self, p: usize, reported: crate::context::EventCounts) -> bool {
        if self.0.destroying != p || self.0.obj.is_null() {
            return false;
        }
        // SAFETY: set by `destroying`, whose caller holds the record (a live
        // reference) until the plugin's op, which called us, returns.
        unsafe { (*self.0.obj).wait_acked(reported) };
        true
    }
}
