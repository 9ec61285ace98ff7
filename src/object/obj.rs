//! The core record the registry keeps for every object a context owns,
//! whatever provider made it: its kind, the C pointer C holds, its owning
//! context, the generic bookkeeping libibverbs does for it (async/completion
//! event acknowledgements and the destroy claim), and the provider's
//! ownership token.
#![allow(unsafe_code)]

use super::events::Events;
use crate::abi::*;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What kind of verbs object a registry entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Pd,
    Mr,
    Mw,
    CompChannel,
    Cq,
    Qp,
    Srq,
    Ah,
    Dm,
    /// Only a hosted plugin's (ibv_create_wq is verbs.h's inline call of its op).
    Wq,
}

/// The C struct types C hands us for each kind (`ibv_cq_ex` and `ibv_qp_ex`
/// start with `ibv_cq`/`ibv_qp`: same objects, same kinds).
pub(crate) trait KindOf {
    const KIND: Kind;
}

macro_rules! kinds {
    ($($c:ty => $k:ident),* $(,)?) => {
        $(impl KindOf for $c { const KIND: Kind = Kind::$k; })*
    };
}
kinds!(ibv_pd => Pd, ibv_mr => Mr, ibv_mw => Mw, ibv_comp_channel => CompChannel,
    ibv_cq => Cq, ibv_cq_ex => Cq, ibv_qp => Qp, ibv_qp_ex => Qp, ibv_srq => Srq,
    ibv_ah => Ah, ibv_dm => Dm, ibv_wq => Wq);

/// How the registry releases a provider's object. Rust providers use their
/// type's [`super::slab::Slab`]; a host of C providers supplies its own (or
/// none, when the C provider's destroy frees the object itself).
///
/// Note for a token-less object: the registry still holds its record from
/// the provider's destroy until [`super::events::destroy`] /
/// [`super::take_if`] removes it, and an event acknowledgement arriving
/// then writes the core's counters into the C struct (as in rdma-core, where
/// the core's destroy waits for acknowledgements before the provider frees).
/// A host whose provider frees inside its destroy op should therefore wait
/// for the acknowledgements itself first, or defer the free to `release`.
pub(crate) trait Token: Sync {
    /// Stops data-path access to the object at `c` (clears its live tag,
    /// waits for calls in flight). Idempotent. Called when a destroy has
    /// succeeded in the kernel, and before [`Token::release`].
    ///
    /// # Safety
    /// `c` is an object this token owns, not yet released.
    unsafe fn retire(&self, c: NonNull<c_void>);
    /// Frees the object at `c`: the registry's last reference to it is gone.
    ///
    /// # Safety
    /// As for `retire`; `c` is not used again.
    unsafe fn release(&self, c: NonNull<c_void>);
}

/// What a provider's create returns: the C pointer (the head of its object,
/// the pointer C will hold, the `user_handle` it gave the kernel) and the
/// token that releases it.
pub(crate) struct New {
    c: NonNull<c_void>,
    token: Option<&'static dyn Token>,
}

// SAFETY: an address and a shared token: whoever holds the New owns the
// object (nobody else has seen it), from any thread.
unsafe impl Send for New {}

impl New {
    /// An object at `c` released through `token` (None: nothing to free).
    pub(crate) fn of(c: NonNull<c_void>, token: Option<&'static dyn Token>) -> New {
        New { c, token }
    }

    pub(crate) fn c(&self) -> NonNull<c_void> {
        self.c
    }

    fn into_parts(self) -> (NonNull<c_void>, Option<&'static dyn Token>) {
        let me = std::mem::ManuallyDrop::new(self);
        (me.c, me.token)
    }
}

impl Drop for New {
    /// A created object that never reached the registry (a later step of
    /// the create failed): released here.
    fn drop(&mut self) {
        if let Some(t) = self.token {
            // SAFETY: the token owns `c`, which nobody else has seen.
            unsafe { t.release(self.c) };
        }
    }
}

/// The registry's record of one object; `O` is the owner (the context).
pub(crate) struct Obj<O> {
    kind: Kind,
    c: NonNull<c_void>,
    /// The context the object belongs to (and whose ops it dispatches to).
    pub ctx: Arc<O>,
    /// Events reported and acknowledged, and the destroy claim.
    pub events: Events,
    token: Option<&'static dyn Token>,
    retired: AtomicBool,
}

// SAFETY: `c` is only an address here; the C struct behind it is accessed
// through raw pointers under the same rules as rdma-core's core (fields the
// core owns, written under the object's event lock or before publication).
unsafe impl<O: Send + Sync> Send for Obj<O> {}
// SAFETY: as above.
unsafe impl<O: Send + Sync> Sync for Obj<O> {}

impl<O> Obj<O> {
    pub(crate) fn new(kind: Kind, ctx: Arc<O>, new: New) -> Obj<O> {
        let (c, token) = new.into_parts();
        Obj {
            kind,
            c,
            ctx,
            events: Events::default(),
            token,
            retired: AtomicBool::new(false),
        }
    }

    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// The C struct, typed by its kind.
    #[inline]
    pub(crate) fn c<C: KindOf>(&self) -> *mut C {
        debug_assert_eq!(self.kind, C::KIND);
        self.c.as_ptr().cast()
    }

    /// The object's address, for the provider's own conversion to its type.
    #[inline]
    pub(crate) fn addr(&self) -> NonNull<c_void> {
        self.c
    }

    /// A value read from the C struct (e.g. its kernel handle).
    #[inline]
    pub(crate) fn read_c<C: KindOf, R>(&self, f: impl FnOnce(&C) -> R) -> R {
        // SAFETY: the C struct is alive while the record is; the reference
        // lives for `f` only. C may write fields concurrently only where
        // rdma-core's own code races the same way (fields the application
        // owns, e.g. a bound MW's rkey).
        f(unsafe { &*self.c::<C>() })
    }

    /// Updates fields of the C struct the core writes (an MR's addr/length
    /// after rereg, a QP's state): callers serialise their own updates.
    #[inline]
    pub(crate) fn update_c<C: KindOf, R>(&self, f: impl FnOnce(&mut C) -> R) -> R {
        // SAFETY: as in read_c; the only Rust reference is `f`'s.
        f(unsafe { &mut *self.c::<C>() })
    }

    /// Fences the data path out of a destroyed object (its memory stays
    /// until the last reference goes).
    pub(crate) fn retire(&self) {
        if let Some(t) = self.token
            && !self.retired.swap(true, Ordering::AcqRel)
        {
            // SAFETY: the token owns `c`; not released before our drop.
            unsafe { t.retire(self.c) };
        }
    }
}

impl<O> Drop for Obj<O> {
    fn drop(&mut self) {
        if let Some(t) = self.token {
            // SAFETY: the token owns `c`; this is the last reference.
            unsafe { t.release(self.c) };
        }
    }
}
