//! The roots (devices, contexts) by C address, found without a lock.
//!
//! Every verb on a context starts by finding it, so this is the control
//! path's most frequent look-up. A root's record is a slot of a static
//! array (type-stable: reading a stale slot is always safe), picked among a
//! few slots (a window) from the bucket its address hashes to. The slot's
//! `state` counts it as `rec` does for slab records ([`RegCount`]): the
//! registered bit while C holds the root (the registry's own reference),
//! plus one per [`Held`]. A reference is only taken while the root is
//! registered, then the slot's key is read
//! again, so a retired or reused slot is never mistaken for the root asked
//! for; the registry's `Arc` goes with the slot's last reference. A root
//! whose window is full goes to the locked table instead (see `super`).
#![allow(unsafe_code)]

use super::count::RegCount;
use std::any::{Any, TypeId};
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many slots (a power of two) and how many of them one address may use.
const SLOTS: usize = 256;
const WINDOW: usize = 8;

/// What a slot holds: the root (the registry's `Arc`, as a raw pointer)
/// and its type, for the typed look-up.
#[derive(Clone, Copy)]
struct Val {
    ty: TypeId,
    obj: *const (dyn Any + Send + Sync),
}

struct Slot {
    /// The C address (read without a reference: checked again after one).
    key: AtomicUsize,
    state: RegCount,
    /// Written by the slot's claimer while filling (nobody reads
    /// it then), read by holders of a reference (it does not change while
    /// one exists).
    val: UnsafeCell<MaybeUninit<Val>>,
}

// SAFETY: `val` is only written while no reference to the slot can exist
// or be taken (see `Slot::val`), and published by the registration's
// Release store; the other fields are atomics. The roots are Send + Sync.
unsafe impl Sync for Slot {}

static ROOTS: [Slot; SLOTS] = [const {
    Slot {
        key: AtomicUsize::new(0),
        state: RegCount::new(),
        val: UnsafeCell::new(MaybeUninit::uninit()),
    }
}; SLOTS];

/// The first slot of `key`'s window (Fibonacci hashing of the address,
/// whose low 3 bits are always 0).
#[inline(always)]
fn home(key: usize) -> usize {
    ((key as u64 >> 3).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - SLOTS.trailing_zeros()))
        as usize
}

/// A counted reference to a registered root of type `T`: keeps it (and its
/// C struct) alive while a verb uses it, even if another thread retires it.
/// Derefs to the root; [`Held::arc`] when the caller keeps it.
pub(crate) struct Held<T: 'static> {
    obj: NonNull<T>,
    /// The slot counting this reference; None: `obj` is an `Arc` of our
    /// own (a root of the locked table, see [`Held::owned`]).
    slot: Option<&'static Slot>,
}

// SAFETY: a counted shared reference to a `T`, which is Send + Sync.
unsafe impl<T: Send + Sync> Send for Held<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Held<T> {}

impl<T: Send + Sync + 'static> Held<T> {
    /// A reference that is an `Arc` of its own.
    pub(super) fn owned(obj: Arc<T>) -> Held<T> {
        Held {
            // SAFETY: an Arc's pointer is never null.
            obj: unsafe { NonNull::new_unchecked(Arc::into_raw(obj).cast_mut()) },
            slot: None,
        }
    }

    /// A counted `Arc` of the root, for a caller that keeps it.
    pub(crate) fn arc(&self) -> Arc<T> {
        let p = self.obj.as_ptr().cast_const();
        // SAFETY: an Arc's pointer of a `T` (its type id was checked),
        // alive while we hold it: one more strong count for the new Arc.
        unsafe {
            Arc::increment_strong_count(p);
            Arc::from_raw(p)
        }
    }

    /// Clears the registered bit and drops the registry's reference: the
    /// root is no longer found. False if another thread did first (or, for
    /// [`Held::owned`], always: the caller unregisters those).
    pub(super) fn unregister(&self) -> bool {
        self.slot.is_some_and(|s| s.state.unregister())
    }
}

impl<T: 'static> std::ops::Deref for Held<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: as in `arc`: a live T while we hold it.
        unsafe { self.obj.as_ref() }
    }
}

impl<T: 'static> Drop for Held<T> {
    #[inline]
    fn drop(&mut self) {
        // The last reference of a slot frees it (state 0) and then drops
        // the registry's Arc through its own pointer: typed, it need not
        // read the slot's value, which the slot's next root may overwrite.
        if let Some(s) = self.slot
            && !s.state.release()
        {
            return;
        }
        drop_arc(self.obj);
    }
}

/// Drops the `Arc` whose pointer `obj` is (the registry's once its slot's
/// last reference went, or a [`Held::owned`]'s own).
#[cold]
#[inline(never)]
fn drop_arc<T>(obj: NonNull<T>) {
    // SAFETY: an Arc's pointer whose strong count the caller gives up.
    drop(unsafe { Arc::from_raw(obj.as_ptr().cast_const()) });
}

/// Gives back a reference to `s` that was taken for another root (of
/// unknown type). The last one (kept at state 1: not registered, no other
/// reference, so nobody else can change it) drops the registry's `Arc`
/// through the slot's value before the slot is free for another root.
#[cold]
#[inline(never)]
fn put_back(s: &'static Slot) {
    if s.state.release_unless_last() {
        release(s);
    }
}

/// Drops the registry's `Arc` of a slot whose last reference we hold,
/// then frees the slot.
#[cold]
#[inline(never)]
fn release(s: &'static Slot) {
    // SAFETY: the slot's value is written (it was registered) and does
    // not change until the slot is free (below).
    let v = unsafe { (*s.val.get()).assume_init() };
    // SAFETY: the pointer the registry's Arc was turned into (`put`);
    // not registered and no other reference, so nobody else uses it.
    drop(unsafe { Arc::from_raw(v.obj) });
    s.state.clear();
}

/// Registers `obj` at C address `key`, if its window has a free slot;
/// gives it back otherwise.
pub(super) fn put<T: Any + Send + Sync>(key: usize, obj: Arc<T>) -> Result<(), Arc<T>> {
    let h = home(key);
    for i in 0..WINDOW {
        let s = &ROOTS[(h + i) % SLOTS];
        if !s.state.claim() {
            continue;
        }
        let val = Val {
            ty: TypeId::of::<T>(),
            obj: Arc::into_raw(obj as Arc<dyn Any + Send + Sync>),
        };
        // SAFETY: claimed (being filled): no reference exists or can be
        // taken, so nobody reads the value.
        unsafe { (*s.val.get()).write(val) };
        s.key.store(key, Ordering::Relaxed);
        s.state.register();
        return Ok(());
    }
    Err(obj)
}

/// A reference to the registered root of type `T` at C address `key`.
/// The first slot of the window (where a root mostly is) is tried inline.
#[inline(always)]
pub(super) fn get<T: Send + Sync + 'static>(key: usize) -> Option<Held<T>> {
    let h = home(key);
    let s = &ROOTS[h];
    if s.key.load(Ordering::Relaxed) == key
        && let Some(held) = acquire::<T>(s, key)
    {
        return Some(held);
    }
    get_in_window::<T>(h, key)
}

/// [`get`] in the rest of the window.
#[inline(never)]
fn get_in_window<T: Send + Sync + 'static>(h: usize, key: usize) -> Option<Held<T>> {
    for i in 1..WINDOW {
        let s = &ROOTS[(h + i) % SLOTS];
        if s.key.load(Ordering::Relaxed) != key {
            continue;
        }
        if let Some(held) = acquire::<T>(s, key) {
            return Some(held);
        }
    }
    None
}

/// A reference to `s`'s root if it is registered, of type `T`, at `key`.
#[inline(always)]
fn acquire<T: Send + Sync + 'static>(s: &'static Slot, key: usize) -> Option<Held<T>> {
    if !s.state.acquire() {
        return None;
    }
    // SAFETY: registered when the reference was taken (Acquire of the
    // registration's Release store): the value is written and stays so
    // while the reference is held.
    let val = unsafe { (*s.val.get()).assume_init() };
    // The slot may have been refilled for another root between the key's
    // first read and the reference: give it back then (which releases
    // that root if it was its last).
    if s.key.load(Ordering::Relaxed) != key || val.ty != TypeId::of::<T>() {
        put_back(s);
        return None;
    }
    Some(Held {
        // SAFETY: an Arc's pointer (`put`), of a T (checked just above).
        obj: unsafe { NonNull::new_unchecked(val.obj.cast::<T>().cast_mut()) },
        slot: Some(s),
    })
}
