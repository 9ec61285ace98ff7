//! The core record the registry keeps for every object a context owns,
//! whatever provider made it: its kind, the C pointer C holds, its owning
//! context, the generic bookkeeping libibverbs does for it (async/completion
//! event acknowledgements and the destroy claim), and the provider's
//! ownership token.
#![allow(unsafe_code)]

use super::events::Events;
use crate::abi::*;
use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// What kind of verbs object a registry entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
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
    /// The last variant: [`KINDS`] counts up to it.
    Wq,
}

/// How many kinds there are.
pub(crate) const KINDS: usize = Kind::Wq as usize + 1;

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
    /// As for `retire`, and `retire` has run for `c`; `c` is not used again.
    unsafe fn release(&self, c: NonNull<c_void>);
}

/// Room for one [`Obj`] record in a slab slot's header (an `Obj<O>` has
/// the same layout for every owner type `O`: `#[repr(C)]`, `ctx` a thin
/// `Arc`).
#[repr(C, align(8))]
pub(crate) struct RecSpace(MaybeUninit<[u8; size_of::<Obj<()>>()]>);

const _: () = assert!(align_of::<Obj<()>>() <= align_of::<RecSpace>());

/// Where a slab object's registry record lives: its slot's reference state
/// (see [`super::rec`]) and the room for the record.
#[derive(Clone, Copy)]
pub(crate) struct Home {
    pub(crate) state: &'static AtomicU32,
    pub(crate) rec: NonNull<RecSpace>,
}

/// A slab as the registry sees it: finds the record of an object by the
/// object's address (address arithmetic only), and walks its slots.
pub(crate) trait Probe: Sync {
    /// The home of the slot whose object is at `p`, if `p` is exactly such
    /// an address of this slab's committed range. Reads no memory at `p`.
    fn home(&self, p: *const c_void) -> Option<Home>;
    /// Every committed slot's home, live or not.
    fn each(&self, f: &mut dyn FnMut(Home));
}

/// What a provider's create returns: the C pointer (the head of its object,
/// the pointer C will hold, the `user_handle` it gave the kernel), the
/// token that releases it and, for a slab object, where its record goes.
pub(crate) struct New {
    c: NonNull<c_void>,
    token: Option<&'static dyn Token>,
    home: Option<(Home, &'static dyn Probe)>,
}

// SAFETY: an address and a shared token: whoever holds the New owns the
// object (nobody else has seen it), from any thread.
unsafe impl Send for New {}

impl New {
    /// An object at `c` released through `token` (None: nothing to free).
    pub(crate) fn of(c: NonNull<c_void>, token: Option<&'static dyn Token>) -> New {
        New {
            c,
            token,
            home: None,
        }
    }

    /// A slab's object, whose record goes into its slot.
    pub(crate) fn in_slot(
        c: NonNull<c_void>,
        token: &'static dyn Token,
        home: Home,
        probe: &'static dyn Probe,
    ) -> New {
        New {
            c,
            token: Some(token),
            home: Some((home, probe)),
        }
    }

    pub(crate) fn c(&self) -> NonNull<c_void> {
        self.c
    }

    /// The record's home, if the object is a slab's.
    pub(crate) fn home(&self) -> Option<(Home, &'static dyn Probe)> {
        self.home
    }
}

impl Drop for New {
    /// A created object that never reached the registry (a later step of
    /// the create failed): released here.
    fn drop(&mut self) {
        if let Some(t) = self.token {
            // SAFETY: the token owns `c`, which nobody else has seen.
            unsafe {
                t.retire(self.c);
                t.release(self.c);
            }
        }
    }
}

/// The registry's record of one object; `O` is the owner (the context).
/// `#[repr(C)]`: the same layout for every `O` (see [`RecSpace`]).
#[repr(C)]
pub(crate) struct Obj<O> {
    c: NonNull<c_void>,
    /// The context the object belongs to (and whose ops it dispatches to).
    pub ctx: Arc<O>,
    token: Option<&'static dyn Token>,
    /// Events reported and acknowledged, and the destroy claim.
    pub events: Events,
    kind: Kind,
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
        let new = std::mem::ManuallyDrop::new(new);
        let (c, token) = (new.c, new.token);
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
        // A destroy retired it already; a closed context's objects not yet.
        self.retire();
        if let Some(t) = self.token {
            // SAFETY: the token owns `c`, retired above; this is the last
            // reference.
            unsafe { t.release(self.c) };
        }
    }
}
