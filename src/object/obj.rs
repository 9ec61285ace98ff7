//! The core record the registry keeps for every object a context owns,
//! whatever provider made it: its kind, the C pointer C holds, its owning
//! context, the generic bookkeeping libibverbs does for it (async/completion
//! event acknowledgements and the destroy claim), and the provider's
//! ownership token.
#![allow(unsafe_code)]

use super::events::Events;
use crate::abi::*;
use std::any::TypeId;
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
    /// Stops data-path access to the object at `c` (clears its live bit,
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
// The record's size is heap per slab object (issue #13's mem rows): a
// context reference, the async event counter and four flag bytes (a CQ's
// completion events are counted in its C struct, as in rdma-core).
const _: () = assert!(size_of::<RecSpace>() == 16);

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
    /// The slab's address check without its type, for the registry's
    /// lookups (inlined there: no call per lookup).
    fn finder(&'static self) -> super::slab::Finder;
    /// Every committed slot's home, live or not.
    fn each(&self, f: &mut dyn FnMut(Home));
    /// The slab as the token of its objects.
    fn token(&'static self) -> &'static dyn Token;
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

    /// The token that releases the object, if any.
    pub(crate) fn token(&self) -> Option<&'static dyn Token> {
        self.token
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
///
/// Every record lives in a slab slot's header. A slab object's record keeps
/// neither the C pointer nor the token: the object follows the record in
/// the slot, and the token is the kind's slab. A hosted object's slot
/// (in [`super::hosted`]'s slab) holds both in a [`Hosted`] instead.
#[repr(C)]
pub(crate) struct Obj<O> {
    /// The context the object belongs to (and whose ops it dispatches to).
    pub ctx: Arc<O>,
    /// Async events acknowledged.
    pub events: Events,
    kind: Kind,
    /// The destroy claim (see [`Obj::claim_destroy`]).
    pub(super) destroying: AtomicBool,
    retired: AtomicBool,
    /// A hosted object's record: its slot's value is a [`Hosted`] (else
    /// the object itself).
    hosted: bool,
}

/// A hosted object's record slot holds this after the record (the slot's
/// value, see [`super::hosted`]): the C provider's object is elsewhere (any
/// C address), so its address and token are kept here, with the owner type
/// the record was made for (checked before a `Ref<O>` is made of it).
#[repr(C)]
pub(crate) struct Hosted {
    pub(super) c: NonNull<c_void>,
    pub(super) token: Option<&'static dyn Token>,
    pub(super) owner: TypeId,
}

// SAFETY: an address, a shared token and a type id, written once before the
// record is registered and read-only after.
unsafe impl Send for Hosted {}
// SAFETY: as above.
unsafe impl Sync for Hosted {}

/// Bytes from a slot's record to its object (the record room's size: the
/// slot puts the object right after it, see `slab::Slot`).
pub(crate) const REC_TO_VAL: usize = size_of::<RecSpace>();

// SAFETY: `c` is only an address here; the C struct behind it is accessed
// through raw pointers under the same rules as rdma-core's core (fields the
// core owns, written under the object's event lock or before publication).
unsafe impl<O: Send + Sync> Send for Obj<O> {}
// SAFETY: as above.
unsafe impl<O: Send + Sync> Sync for Obj<O> {}

impl<O> Obj<O> {
    /// A slot's record for `new`: its object follows the record room, its
    /// token being the kind's slab (see [`super::slot_token`]), or for a
    /// `hosted` record the slot's value is the object's [`Hosted`].
    pub(crate) fn in_slot(kind: Kind, ctx: Arc<O>, new: New, hosted: bool) -> Obj<O> {
        // The slot's token and address are the record's place; nothing to
        // release here (the record now owns the object).
        std::mem::forget(new);
        Obj {
            kind,
            ctx,
            events: Events::default(),
            destroying: AtomicBool::new(false),
            retired: AtomicBool::new(false),
            hosted,
        }
    }

    /// Whether this is a hosted object's record.
    #[inline]
    pub(crate) fn is_hosted(&self) -> bool {
        self.hosted
    }

    /// The address of the slot's value (the object, or a [`Hosted`]).
    #[inline]
    pub(super) fn slot_val(&self) -> usize {
        std::ptr::from_ref(self).addr() + REC_TO_VAL
    }

    /// A hosted record's [`Hosted`].
    #[inline]
    fn hosted_part(&self) -> &Hosted {
        debug_assert!(self.hosted);
        // SAFETY: a hosted record's slot holds its Hosted after the record
        // room, written before the record was registered and unchanged
        // until the record ends; the slab exposed its range
        // (`slab::reserve`), and the slot is alive while `self` is.
        unsafe { &*std::ptr::with_exposed_provenance::<Hosted>(self.slot_val()) }
    }

    pub(crate) fn kind(&self) -> Kind {
        self.kind
    }

    /// The C struct, typed by its kind.
    #[inline]
    pub(crate) fn c<C: KindOf>(&self) -> *mut C {
        debug_assert_eq!(self.kind, C::KIND);
        self.addr().as_ptr().cast()
    }

    /// The object's address, for the provider's own conversion to its type.
    #[inline]
    pub(crate) fn addr(&self) -> NonNull<c_void> {
        if self.hosted {
            self.hosted_part().c
        } else {
            // A slot's object follows its record room; the slab exposed its
            // range (`slab::reserve`).
            let p = std::ptr::with_exposed_provenance_mut::<c_void>(self.slot_val());
            // SAFETY: a slot address inside the slab's range, not NULL.
            unsafe { NonNull::new_unchecked(p) }
        }
    }

    /// The token that releases the object.
    fn token(&self) -> Option<&'static dyn Token> {
        if self.hosted {
            self.hosted_part().token
        } else {
            super::slot_token(self.kind)
        }
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
        if !self.retired.swap(true, Ordering::AcqRel)
            && let Some(t) = self.token()
        {
            // SAFETY: the token owns `c`; not released before our drop.
            unsafe { t.retire(self.addr()) };
        }
    }
}

impl<O> Obj<O> {
    /// Ends a slot's record, its last reference gone: fences the object
    /// out, moves the record out of the slot, then releases the object and
    /// the slot (which may be reused at once) and drops the record.
    ///
    /// # Safety
    /// `rec` is a slot's record whose last reference went; nobody else can
    /// reach it.
    pub(crate) unsafe fn end_in_slot(rec: *mut Obj<O>) {
        // SAFETY: per the contract, ours alone until released.
        let (c, t) = unsafe {
            let r = &*rec;
            let (c, t) = (r.addr(), r.token());
            if let Some(t) = t
                && !r.retired.swap(true, Ordering::AcqRel)
            {
                // SAFETY: the token owns `c`; released below.
                t.retire(c);
            }
            (c, t)
        };
        // SAFETY: as above; the slot's room is not read again.
        let moved = unsafe { rec.read() };
        if let Some(t) = t {
            // SAFETY: the token owns `c`, retired above.
            unsafe { t.release(c) };
        }
        if moved.hosted {
            // SAFETY: the hosted record's slot, whose record just moved out
            // (its Hosted was read above); not used again here.
            unsafe {
                super::hosted::release_slot(rec.cast::<u8>().wrapping_add(REC_TO_VAL).cast())
            };
        }
        drop(moved);
    }
}
