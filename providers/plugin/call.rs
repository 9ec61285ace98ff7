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
use std::ptr::NonNull;

/// The frame's four words, as call_slot.c declares them (all zero: [`NONE`]).
#[derive(Clone, Copy)]
#[repr(C)]
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

unsafe extern "C" {
    /// This thread's frame (providers/plugin/call_slot.c: an initial-exec
    /// thread-local, where thread_local! here would cost a __tls_get_addr
    /// call per access).
    fn ibverbs_c_call_slot() -> *mut [usize; 4];
}

const _: () = assert!(size_of::<Call>() == size_of::<[usize; 4]>());

/// This thread's frame slot. Only ever read and written whole, by value,
/// through this pointer (no reference into it is kept): the plugin's
/// `ibv_cmd_*` read it while a verb's [`with`] has it set.
#[inline]
fn slot() -> *mut Call {
    // SAFETY: no arguments; returns this thread's slot, valid and aligned
    // for the thread's life.
    unsafe { ibverbs_c_call_slot() }.cast()
}

/// Puts the previous frame back, also when the op unwinds.
struct Restore(*mut Call, Call);

impl Drop for Restore {
    fn drop(&mut self) {
        // SAFETY: this thread's slot (see [`slot`]).
        unsafe { self.0.write(self.1) };
    }
}

/// Runs `f` with `call` as this thread's frame (one slot look-up).
#[inline]
fn with<R>(call: Call, f: impl FnOnce() -> R) -> R {
    let s = slot();
    // SAFETY: this thread's slot (see [`slot`]).
    let _r = Restore(s, unsafe { s.replace(call) });
    f()
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

/// Runs the plugin's destroy op `f` on `o` (see [`CallNow::wait_acked`]).
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

/// The verb this thread is in (the slot, read once for the several uses of
/// one command).
#[derive(Clone, Copy)]
pub(crate) struct CallNow(Call);

/// The call now (one slot look-up).
#[inline]
pub(crate) fn current() -> CallNow {
    // SAFETY: this thread's slot (see [`slot`]).
    CallNow(unsafe { slot().read() })
}

impl CallNow {
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
