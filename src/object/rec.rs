//! A reference to a registry record, in its slab slot (a Rust provider's
//! object's own slot, or a hosted C provider's record slot, see `hosted`).
//!
//! A slot's record is counted by the slot's state ([`RegCount`]): the
//! registered bit while C holds the object (the registry's own reference),
//! plus one per [`Ref`]. A reference is only taken while the object is
//! registered, so a destroyed object is never found again; the record and
//! the object go when the count reaches 0, as with an `Arc`. The slot's
//! memory is type-stable, so reading the state of a stale slot is always
//! safe.
#![allow(unsafe_code)]

use super::count::RegCount;
use super::kinds::Kind;
use super::obj::Obj;
use super::slot::{Home, New};
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

/// A counted reference to a live (or just destroyed) object's record: what
/// [`super::get`] returns; derefs to the [`Obj`].
pub(crate) struct Ref<O: 'static> {
    obj: NonNull<Obj<O>>,
    /// The slot's state.
    state: &'static RegCount,
}

// SAFETY: a shared reference to an `Obj<O>`, which is Send + Sync for
// Send + Sync `O`; the count is atomic.
unsafe impl<O: Send + Sync> Send for Ref<O> {}
// SAFETY: as above.
unsafe impl<O: Send + Sync> Sync for Ref<O> {}

impl<O> Ref<O> {
    /// A new reference to the record in `home`, if its object is
    /// registered.
    #[inline]
    pub(crate) fn acquire(home: Home) -> Option<Ref<O>> {
        home.state.acquire().then(|| Ref {
            obj: home.rec.cast(),
            state: home.state,
        })
    }

    /// Registers a slab's new object (`new` has a home): its record goes
    /// into the slot, with the registry's reference, which
    /// [`Ref::unregister`] gives up. Returns the object's address (for a
    /// `hosted` record, the one its slot's `Hosted` names).
    pub(crate) fn register(kind: Kind, ctx: Arc<O>, new: New, hosted: bool) -> NonNull<c_void> {
        let (home, _) = new.home().expect("a slab's object");
        let obj = Obj::in_slot(kind, ctx, new, hosted);
        // Only Vacant::fill makes a New with a home, for its vacant slot
        // (state 0: no reference can be taken, nobody reads the record);
        // the New is consumed here, so this happens once per fill.
        debug_assert!(home.state.is_free());
        // SAFETY: room for an Obj<O> (RecSpace), unread at state 0.
        unsafe { home.rec.cast::<Obj<O>>().write(obj) };
        home.state.register();
        // SAFETY: just written; the object follows its record.
        unsafe { home.rec.cast::<Obj<O>>().as_ref() }.addr()
    }

    /// Clears the registered bit and drops the registry's reference (the
    /// caller's keeps the record). False if it was not registered (a racing
    /// unregistration won). A hosted record's address also leaves the
    /// table: see `hosted::unregister`, which calls this.
    pub(crate) fn unregister(&self) -> bool {
        self.state.unregister()
    }
}

impl<O> std::ops::Deref for Ref<O> {
    type Target = Obj<O>;
    #[inline]
    fn deref(&self) -> &Obj<O> {
        // SAFETY: our counted reference keeps the record alive.
        unsafe { self.obj.as_ref() }
    }
}

impl<O> Clone for Ref<O> {
    fn clone(&self) -> Ref<O> {
        self.state.add();
        Ref {
            obj: self.obj,
            state: self.state,
        }
    }
}

impl<O> Drop for Ref<O> {
    /// Inlined: a reference that is not the last (a verb's) costs its
    /// decrement only; the end of the record is out of line.
    #[inline(always)]
    fn drop(&mut self) {
        if self.state.release() {
            end(self.obj);
        }
    }
}

/// Ends the record at `obj` once its last reference went (see [`Ref`]'s drop).
#[cold]
#[inline(never)]
fn end<O>(obj: NonNull<Obj<O>>) {
    // SAFETY: the last reference (state 0, not registered: nobody can take
    // another) of a slot's record.
    unsafe { Obj::end_in_slot(obj.as_ptr()) };
}
