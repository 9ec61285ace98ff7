//! The layout every slab slot shares, and the contracts between the slabs
//! below and the records above: a slot's header (pin word, reference state,
//! record room), where a record lives ([`Home`]), a slab's address check
//! without its type ([`Finder`]), how an object is released ([`Token`]),
//! and what a provider's create hands the registry ([`New`]).
#![allow(unsafe_code)]

use super::count::RegCount;
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::mem::{MaybeUninit, offset_of};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};

/// Room for one registry record in a slot's header (`obj::Obj` checks that
/// it fits).
#[repr(C, align(8))]
pub(crate) struct RecSpace(MaybeUninit<[u8; 16]>);

/// Bytes from a slot's record to its object (the record room's size: the
/// slot puts the object right after it).
pub(crate) const REC_TO_VAL: usize = size_of::<RecSpace>();

/// The header of every slot, before its object (`slab::Slot`).
#[repr(C)]
pub(crate) struct Header {
    /// The live bit and the data-path calls in flight (see `slab`).
    pub(crate) pins: AtomicU32,
    /// The control path's hold on the object: whether C holds it and how
    /// many references the core has. On a slab's free list, the link to the
    /// next free slot instead (never registered, so never a record).
    pub(crate) state: RegCount,
    /// The object's registry record while `state` holds one.
    pub(crate) rec: UnsafeCell<MaybeUninit<RecSpace>>,
}

/// Where a slot's reference state and record room are, for every slab.
const STATE: usize = offset_of!(Header, state);
const REC: usize = offset_of!(Header, rec);
const _: () = assert!(size_of::<Header>() == REC + REC_TO_VAL);

/// Where a slab object's registry record lives: its slot's reference state
/// and the room for the record.
#[derive(Clone, Copy)]
pub(crate) struct Home {
    pub(crate) state: &'static RegCount,
    pub(crate) rec: NonNull<RecSpace>,
}

/// A slab's address check without its type (the registry's lookups, by
/// kind): the same arithmetic as the slab's own, with the slot geometry as
/// values. Every slot's header has the same layout ([`Header`]), so the
/// record's home follows from the slot's address alone.
#[derive(Clone, Copy)]
pub(crate) struct Finder {
    pub(super) base: &'static AtomicPtr<u8>,
    pub(super) len: &'static AtomicUsize,
    /// The inverse of the slot size's odd part, and its power of two.
    pub(super) inv: usize,
    pub(super) tz: u32,
    /// Bytes from a slot to its object.
    pub(super) val_off: usize,
}

impl Finder {
    /// The home of the slot whose object is at `p`, if `p` is exactly such
    /// an address of the slab's committed range. Reads no memory at `p`.
    #[inline(always)]
    pub(crate) fn home(&self, p: *const c_void) -> Option<Home> {
        // `len` first: a non-zero length was published after `base`.
        let len = self.len.load(Ordering::Acquire);
        let base = self.base.load(Ordering::Relaxed);
        let off = (p as usize)
            .wrapping_sub(self.val_off)
            .wrapping_sub(base as usize);
        if off.wrapping_mul(self.inv).rotate_right(self.tz) >= len {
            return None;
        }
        // A slot of our committed range (never released), reached from the
        // range's pointer, so the object after the record stays reachable
        // from it (`Obj::addr`).
        let s = base.wrapping_add(off);
        // SAFETY: a slot of the committed range, never released (hence not
        // NULL: spares the caller's Option a test).
        unsafe { std::hint::assert_unchecked(!s.is_null()) };
        // SAFETY: the slot's header words, in our committed range; never
        // unmapped (type-stable memory); atomics only.
        let state = unsafe { &*s.wrapping_add(STATE).cast::<RegCount>() };
        // SAFETY: inside the same committed slot, not NULL.
        let rec = unsafe { NonNull::new_unchecked(s.wrapping_add(REC).cast::<RecSpace>()) };
        Some(Home { state, rec })
    }
}

/// How the registry releases a provider's object. Rust providers use their
/// type's `slab::Slab`; a host of C providers supplies its own (or none,
/// when the C provider's destroy frees the object itself).
///
/// Note for a token-less object: the registry still holds its record from
/// the provider's destroy until the destroy verb removes it, and an event
/// acknowledgement arriving then writes the core's counters into the C
/// struct (as in rdma-core, where the core's destroy waits for
/// acknowledgements before the provider frees). A host whose provider frees
/// inside its destroy op should therefore wait for the acknowledgements
/// itself first, or defer the free to `release`.
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

/// A slab as the registry sees it: finds the record of an object by the
/// object's address (address arithmetic only), and walks its slots.
pub(crate) trait Probe: Sync {
    /// The slab's address check without its type, for the registry's
    /// lookups (inlined there: no call per lookup).
    fn finder(&'static self) -> Finder;
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
