//! The core record the registry keeps for every object a context owns,
//! whatever provider made it: its kind, its owning context, the generic
//! bookkeeping libibverbs does for it (async event acknowledgements and the
//! destroy claim), and where its C pointer and ownership token are.
#![allow(unsafe_code)]

use super::ack::Events;
use super::kinds::{Kind, KindOf, OwnerId, slot_token};
use super::slot::{New, REC_TO_VAL, RecSpace, Token};
use crate::entry::{Errno, Result};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

// A record fits its slot's room (an `Obj<O>` has the same layout for every
// owner type `O`: `#[repr(C)]`, `ctx` a thin `Arc`). Its size is heap per
// slab object: a context reference, the async event counter and four flag
// bytes (a CQ's completion events are counted in its C struct, as in
// rdma-core).
const _: () = assert!(size_of::<Obj<()>>() == size_of::<RecSpace>());
const _: () = assert!(align_of::<Obj<()>>() <= align_of::<RecSpace>());

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
    destroying: AtomicBool,
    retired: AtomicBool,
    /// A hosted object's record: its slot's value is a [`Hosted`] (else
    /// the object itself).
    hosted: bool,
}

/// A hosted object's record slot holds this after the record (the slot's
/// value, see [`super::hosted`]): the C provider's object is elsewhere (any
/// C address), so its address and token are kept here, with the owner
/// ([`super::kinds::OwnerId`]: checked in the unit tests only, see
/// [`super::kinds::RecordOwner`]) and the token of the record's own slot.
#[repr(C)]
pub(crate) struct Hosted {
    pub(super) c: NonNull<c_void>,
    pub(super) token: Option<&'static dyn Token>,
    pub(super) owner: OwnerId,
    /// Releases the slot when the record ends.
    pub(super) slot: &'static dyn Token,
}

// SAFETY: an address, a shared token and a type id, written once before the
// record is registered and read-only after.
unsafe impl Send for Hosted {}
// SAFETY: as above.
unsafe impl Sync for Hosted {}

// SAFETY: `c` is only an address here; the C struct behind it is accessed
// through raw pointers under the same rules as rdma-core's core (fields the
// core owns, written under the object's event lock or before publication).
unsafe impl<O: Send + Sync> Send for Obj<O> {}
// SAFETY: as above.
unsafe impl<O: Send + Sync> Sync for Obj<O> {}

impl<O> Obj<O> {
    /// A slot's record for `new`: its object follows the record room, its
    /// token being the kind's slab (see [`slot_token`]), or for a
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
            slot_token(self.kind)
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

    /// Claims the object for destruction: EINVAL if another destroy has it.
    pub(crate) fn claim_destroy(&self) -> Result<()> {
        if self.destroying.swap(true, Ordering::AcqRel) {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// Gives the claim back after a failed destroy.
    pub(crate) fn release_destroy(&self) {
        self.destroying.store(false, Ordering::Release);
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
        let (c, t, slot) = unsafe {
            let r = &*rec;
            let (c, t) = (r.addr(), r.token());
            if let Some(t) = t
                && !r.retired.swap(true, Ordering::AcqRel)
            {
                // SAFETY: the token owns `c`; released below.
                t.retire(c);
            }
            let slot = r.hosted.then(|| {
                (
                    r.hosted_part().slot,
                    rec.cast::<u8>().wrapping_add(REC_TO_VAL),
                )
            });
            (c, t, slot)
        };
        // SAFETY: as above; the slot's room is not read again.
        let moved = unsafe { rec.read() };
        if let Some(t) = t {
            // SAFETY: the token owns `c`, retired above.
            unsafe { t.release(c) };
        }
        if let Some((token, v)) = slot {
            // SAFETY: the hosted record's slot (its value, the Hosted, was
            // read above), whose record just moved out; not used again here.
            // Its token needs no retire (nothing pins a record slot).
            unsafe { token.release(NonNull::new_unchecked(v.cast())) };
        }
        drop(moved);
    }
}
