//! Type-stable memory for the objects whose C pointers the data path takes
//! back without a registry lookup (QP, CQ, SRQ, AH, MR, MW, ...).
//!
//! Each object type has one static [`Slab`]: an array of slots in one range
//! of address space reserved at the first create (`mmap(PROT_NONE,
//! MAP_NORESERVE)`), committed from its start as the slab grows (`mprotect`,
//! doubling) and never returned while the library is loaded. A slot is a
//! small header (live bit and count of data-path calls in flight, in one
//! word; the registry's reference count; the registry's record) followed by
//! the object, whose first member is the verbs C struct: the pointer C holds
//! is the object's address.
//!
//! The data-path check [`Slab::pin`] first proves, by address arithmetic
//! alone (one range compare against the committed length, one multiple test
//! of the slot size), that a pointer is the object of one of this slab's
//! slots; only then
//! does it read that slot's header, which is our memory whatever the caller
//! passed. It never reads memory before or around a foreign pointer, and never
//! memory that went back to the allocator: a stale pointer finds a cleared live bit
//! (`None`) or a live object of the same type, which is all C's raw pointers
//! can promise.
//!
//! Guarantee for a thread that uses an object while another destroys it: a
//! data-path call holds a [`Pinned`] for its whole duration. Destroy first
//! clears the live bit, then waits for the pins in flight to go ([`Token::retire`]);
//! only after that are the object's rings unmapped and its slot reused
//! ([`Token::release`]). So a call either completes on the intact object
//! (before the destroy finished) or sees the cleared live bit and returns EINVAL;
//! it never touches unmapped or freed memory and never waits for the
//! destroyer (pins are held for one call, never across calls).
#![allow(unsafe_code)]

use super::slot::{Finder, Header, Home, New, Probe, REC_TO_VAL, Token};
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::mem::{MaybeUninit, offset_of};
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

/// Slots committed by the first growth; each growth doubles the count.
const BASE: usize = 8;
/// Address space reserved per slab (never committed beyond what its slots
/// use): 1 GiB is a million 1 KiB QPs, beyond what rxe's kernel allows.
const RESERVE: usize = 1 << 30;
/// Miri has no mmap: its slabs are one heap block of this many bytes.
#[cfg(miri)]
const HEAP_RESERVE: usize = 1 << 20;

/// Set in a slot's `pins` while it holds a live object.
const LIVE: u32 = 1 << 31;

/// A slot: the header every slab shares ([`Header`]: pin word, reference
/// state, record room), then the object.
#[repr(C)]
struct Slot<T> {
    head: Header,
    val: UnsafeCell<MaybeUninit<T>>,
}

/// The slots of one object type, in one reserved address range. `T` is
/// `#[repr(C)]` with its verbs C struct first, so the address of a slot's
/// `T` is the pointer C holds.
pub(crate) struct Slab<T: 'static> {
    /// Start of the reserved range; NULL until the first slot is taken (a
    /// pointer, not an address: the range stays reachable, with provenance).
    base: AtomicPtr<u8>,
    /// Slots from `base` (committed, zero-filled); the data-path check
    /// accepts the indices below it. Grows, never shrinks.
    len: AtomicUsize,
    /// The released slots: a lock-free stack (Treiber's) whose top is
    /// `head`, each free slot's `state` holding the link to the next (an
    /// index + 1 below 2^31: no `REG` bit, so `Ref::acquire` refuses it). The low
    /// 32 bits of `head` are the top slot's index + 1 (0: empty), the high
    /// 32 a count of changes, so that a pop that read a top which was since
    /// taken and put back (ABA) fails its compare-exchange instead of
    /// installing a stale link.
    head: AtomicU64,
    /// Slots never handed out and the reservation; serialises growth.
    fresh: Mutex<Fresh>,
    _t: std::marker::PhantomData<T>,
}

struct Fresh {
    /// Slots below this index have been handed out at least once; those
    /// above are taken in order without touching them first (their pages
    /// stay untouched until used).
    next: usize,
    /// Bytes reserved at `base`.
    cap: usize,
}

// SAFETY: slots are reached through atomics (header) and, for the object,
// only while the slot is live; T itself must be Sync + Send to be shared.
unsafe impl<T: Send + Sync> Sync for Slab<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Send for Slab<T> {}

const VAL: usize = offset_of!(Slot<u64>, val);

impl<T: Send + Sync + 'static> Slab<T> {
    /// An empty slab: its range is reserved at the first slot taken. Slots
    /// need no tag: each slab has its own address range, so a live slot of
    /// it holds one of its objects.
    pub(crate) const fn new() -> Self {
        Slab {
            base: AtomicPtr::new(std::ptr::null_mut()),
            len: AtomicUsize::new(0),
            head: AtomicU64::new(0),
            fresh: Mutex::new(Fresh { next: 0, cap: 0 }),
            _t: std::marker::PhantomData,
        }
    }

    const fn val_off() -> usize {
        offset_of!(Slot<T>, val)
    }

    /// The slot whose object is at `p`, if `p` is exactly such an address in
    /// our committed range: one multiplication and one compare (see
    /// [`slot_index`]). Pure address arithmetic: reads no memory at `p`.
    #[inline(always)]
    fn slot_of(&self, p: *const c_void) -> Option<&Slot<T>> {
        // `len` first: a non-zero length was published after `base`.
        let len = self.len.load(Ordering::Acquire);
        let base = self.base.load(Ordering::Relaxed);
        let off = (p as usize)
            .wrapping_sub(Self::val_off())
            .wrapping_sub(base as usize);
        if slot_index::<T>(off) >= len {
            return None;
        }
        let s = base.wrapping_add(off).cast::<Slot<T>>();
        // SAFETY: a slot of our committed range, which is never released
        // (hence not NULL: the hint spares the caller's Option a test).
        unsafe {
            std::hint::assert_unchecked(!s.is_null());
            Some(&*s)
        }
    }

    /// The data-path check: the live object C's pointer `p` names, held for
    /// the caller's call (see the module doc). `None` for NULL, foreign,
    /// misaligned and destroyed pointers. Reads only our own memory.
    #[inline(always)]
    pub(crate) fn pin(&'static self, p: *const c_void) -> Option<Pinned<T>> {
        let s = self.slot_of(p)?;
        if s.head.pins.fetch_add(1, Ordering::SeqCst) & LIVE == 0 {
            s.head.pins.fetch_sub(1, Ordering::Release);
            return None;
        }
        Some(Pinned { slot: s })
    }

    /// The object at `p` for the control path, whose registry entry keeps it
    /// from being released: address check only (a retired object, no longer
    /// live, is still valid until released).
    ///
    /// # Safety
    /// `p` came from [`Vacant::fill`] of this slab and its [`Token::release`]
    /// has not run (its registry entry is alive), for as long as `'a`.
    pub(crate) unsafe fn get<'a>(&'static self, p: *const c_void) -> Option<&'a T> {
        let s = self.slot_of(p)?;
        // SAFETY: per the contract the slot holds an initialised T.
        Some(unsafe { (*s.val.get()).assume_init_ref() })
    }

    /// A free slot, its address known before the object is built (the
    /// kernel's `user_handle`): the last released one, else the next fresh
    /// one.
    pub(crate) fn vacant(&'static self) -> Vacant<T> {
        let k = match self.pop() {
            Some(k) => k,
            None => {
                let mut fresh = self.fresh.lock().unwrap_or_else(|p| p.into_inner());
                if fresh.next == self.len.load(Ordering::Relaxed) {
                    self.grow(&mut fresh);
                }
                fresh.next += 1;
                fresh.next - 1
            }
        };
        Vacant {
            slab: self,
            slot: std::ptr::from_ref(self.slot(k)).cast_mut(),
        }
    }

    /// Slot `k` of the committed range.
    fn slot(&self, k: usize) -> &Slot<T> {
        let base = self.base.load(Ordering::Relaxed);
        debug_assert!(k < self.len.load(Ordering::Relaxed));
        // SAFETY: a committed slot, never unmapped.
        unsafe {
            &*base
                .wrapping_add(k * size_of::<Slot<T>>())
                .cast::<Slot<T>>()
        }
    }

    /// Commits the next slots of the range (the first call reserves it):
    /// twice as many as before, `BASE` at first.
    fn grow(&self, free: &mut Fresh) {
        let sz = size_of::<Slot<T>>();
        if free.cap == 0 {
            let (base, cap) = reserve(RESERVE, align_of::<Slot<T>>());
            self.base.store(base, Ordering::Relaxed);
            free.cap = cap;
        }
        let base = self.base.load(Ordering::Relaxed);
        let old = self.len.load(Ordering::Relaxed);
        let n = (old.max(BASE)).min(free.cap / sz - old);
        assert!(n > 0, "slab exhausted");
        let len = old + n;
        commit(base, len * sz);
        self.len.store(len, Ordering::Release);
    }

    /// Takes the top of the free list, if any.
    fn pop(&self) -> Option<usize> {
        // Acquire: the slot's link, and everything its last owner did to it
        // before `push`, are visible once its index is read here.
        let mut h = self.head.load(Ordering::Acquire);
        loop {
            let top = h as u32;
            if top == 0 {
                return None;
            }
            let k = top as usize - 1;
            // Another thread may have popped this slot meanwhile (its state is
            // then 0 or a record's): the count in `head` has changed, and the
            // compare-exchange below fails, so what was read goes unused.
            let next = self.slot(k).head.state.link();
            let new = (h >> 32).wrapping_add(1) << 32 | u64::from(next);
            match self
                .head
                .compare_exchange_weak(h, new, Ordering::Acquire, Ordering::Acquire)
            {
                // Our slot now: its state back to "no record" for `fill`.
                Ok(_) => {
                    self.slot(k).head.state.set_link(0);
                    return Some(k);
                }
                Err(now) => h = now,
            }
        }
    }

    /// Puts a slot that holds no object back on the free list.
    fn put_back(&self, slot: *mut Slot<T>) {
        let base = self.base.load(Ordering::Relaxed);
        let k = (slot as usize - base as usize) / size_of::<Slot<T>>();
        let s = self.slot(k);
        let mut h = self.head.load(Ordering::Relaxed);
        loop {
            s.head.state.set_link(h as u32);
            let new = (h >> 32).wrapping_add(1) << 32 | (k as u64 + 1);
            // Release: the link above and the object's drop happen before
            // the slot can be popped.
            match self
                .head
                .compare_exchange_weak(h, new, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(now) => h = now,
            }
        }
    }

    /// Drops the object of slot `s` and puts the slot on the free list.
    ///
    /// # Safety
    /// `s` holds an object ([`Vacant::fill`]) that nothing uses any more and
    /// no pin can reach.
    unsafe fn drop_and_put_back(&self, s: &Slot<T>) {
        // SAFETY: per the contract.
        unsafe { (*s.val.get()).assume_init_drop() };
        self.put_back(std::ptr::from_ref(s).cast_mut());
    }

    /// Live objects (for the tests): slots marked live.
    #[cfg(test)]
    pub(crate) fn live(&'static self) -> usize {
        let len = self.len.load(Ordering::Acquire);
        (0..len)
            .filter(|&k| self.slot(k).head.pins.load(Ordering::Relaxed) & LIVE != 0)
            .count()
    }
}

/// Reserves `want` bytes of address space (less if the process cannot map
/// that much: halved down to a page): no memory until [`commit`]. Returns
/// the start (page-aligned) and the size reserved.
#[cfg(not(miri))]
fn reserve(want: usize, _align: usize) -> (*mut u8, usize) {
    let mut len = want;
    loop {
        // SAFETY: a fresh private anonymous mapping, no access yet; never
        // unmapped (type-stable memory).
        let m = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if m != libc::MAP_FAILED {
            // Records reach their objects by address (`Obj::addr`).
            let _ = m.expose_provenance();
            return (m.cast(), len);
        }
        assert!(len > 4096, "slab: no address space");
        len /= 2;
    }
}

/// Makes the first `len` bytes of the range at `base` readable and writable
/// (zero-filled on first touch; committing again what is already is a no-op).
#[cfg(not(miri))]
fn commit(base: *mut u8, len: usize) {
    // SAFETY: a prefix of our own reservation; upgrading its protection
    // touches nothing else.
    let r = unsafe { libc::mprotect(base.cast(), len, libc::PROT_READ | libc::PROT_WRITE) };
    assert_eq!(r, 0, "slab: mprotect failed");
}

/// Miri's stand-in for the reservation: one zeroed heap block, never freed.
#[cfg(miri)]
fn reserve(_want: usize, align: usize) -> (*mut u8, usize) {
    let layout = std::alloc::Layout::from_size_align(HEAP_RESERVE, align).expect("slab layout");
    // SAFETY: a non-zero layout; an all-zero header is a free slot.
    let base = unsafe { std::alloc::alloc_zeroed(layout) };
    if base.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // Records reach their objects by address (`Obj::addr`).
    let _ = base.expose_provenance();
    (base, HEAP_RESERVE)
}

#[cfg(miri)]
fn commit(_base: *mut u8, _len: usize) {}

/// The inverse of the odd part of `Slot<T>`'s size (see [`slot_index`]).
const fn slot_inv<T>() -> usize {
    let sz = size_of::<Slot<T>>();
    inverse(sz >> sz.trailing_zeros())
}

/// `off / size_of::<Slot<T>>()` if `off` is a multiple of the slot size,
/// else a number above `usize::MAX / size` (so above any slot count): the
/// product with the inverse of the size's odd part, rotated right by its
/// power of two (Granlund and Montgomery), no division on the data path.
#[inline(always)]
fn slot_index<T>(off: usize) -> usize {
    struct K<T>(std::marker::PhantomData<T>);
    impl<T> K<T> {
        const SZ: usize = size_of::<Slot<T>>();
        const TZ: u32 = Self::SZ.trailing_zeros();
        const INV: usize = slot_inv::<T>();
    }
    off.wrapping_mul(K::<T>::INV).rotate_right(K::<T>::TZ)
}

/// The inverse of odd `d` modulo 2^64 (Newton's iteration; each step
/// doubles the correct low bits, from 3 with `d` itself).
const fn inverse(d: usize) -> usize {
    assert!(d % 2 == 1);
    let mut x = d;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2usize.wrapping_sub(d.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// A slot taken from the free list, not yet holding an object; goes back
/// if dropped unfilled (a failed create).
pub(crate) struct Vacant<T: Send + Sync + 'static> {
    slab: &'static Slab<T>,
    slot: *mut Slot<T>,
}

impl<T: Send + Sync + 'static> Vacant<T> {
    /// Where the object will be: its C pointer.
    pub(crate) fn addr(&self) -> NonNull<c_void> {
        // SAFETY: a slot of a live chunk; projection only.
        let p = unsafe { (*self.slot).val.get() };
        NonNull::new(p.cast()).expect("slot address")
    }

    /// Builds the object in the slot and makes it live: `pin` finds it from
    /// now on. Returns what the registry owns ([`New`]).
    pub(crate) fn fill(self, v: T) -> New {
        // SAFETY: a plain write of a whole value, which cannot unwind.
        unsafe { self.fill_in_place(|p| p.write(v)) }
    }

    /// As [`Vacant::fill`], with `init` writing the value in the slot
    /// before it is live: a large C struct is set there, not built on the
    /// stack and copied twice (the QP's: the qp_lifecycle bench row).
    ///
    /// # Safety
    /// `init` initialises the whole value at the pointer it gets (valid for
    /// writes, aligned, uninitialised) and does not unwind.
    #[inline]
    pub(crate) unsafe fn fill_in_place(self, init: impl FnOnce(*mut T)) -> New {
        let () = Slot::<T>::VAL_AFTER_REC;
        let slot = self.slot;
        let slab = self.slab;
        std::mem::forget(self);
        // SAFETY: the slot is ours (taken from the free list, no pins can
        // hold a non-live slot past their live check); `init` initialises
        // the value (the caller's contract) before it goes live.
        unsafe {
            init((*(*slot).val.get()).as_mut_ptr());
            // Calls that failed their pin may still be backing out.
            (*slot).head.pins.fetch_or(LIVE, Ordering::SeqCst);
        }
        // SAFETY: projection inside our chunk.
        let p = unsafe { (*slot).val.get() }.cast::<c_void>();
        // SAFETY: our slot, never unmapped.
        let home = Slot::home(unsafe { &*slot });
        New::in_slot(NonNull::new(p).expect("slot address"), slab, home, slab)
    }
}

impl<T: Send + Sync + 'static> Drop for Vacant<T> {
    fn drop(&mut self) {
        self.slab.put_back(self.slot);
    }
}

impl<T: Send + Sync + 'static> Token for Slab<T> {
    unsafe fn retire(&self, c: NonNull<c_void>) {
        let Some(s) = self.slot_of(c.as_ptr()) else {
            return;
        };
        s.head.pins.fetch_and(!LIVE, Ordering::SeqCst);
        let mut spins = 0u32;
        while s.head.pins.load(Ordering::SeqCst) != 0 {
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(64) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    unsafe fn release(&self, c: NonNull<c_void>) {
        // Per the trait contract, `retire` has run: not live, pins drained.
        let Some(s) = self.slot_of(c.as_ptr()) else {
            return;
        };
        // SAFETY: the slot held a live T (filled); no pin can reach it any
        // more (not live, pins drained) and the registry's last reference
        // is going: nobody else uses the T.
        unsafe { self.drop_and_put_back(s) };
    }
}

/// A slab whose objects nothing pins: it has no [`Slab::pin`], so no
/// data-path call is ever in flight on its slots, and a slot goes back
/// without the fence a [`Token`] puts up first ([`Token::retire`]: clear
/// the live bit, wait for the pins). For records counted by their slot's
/// state word alone (the hosted objects' records, `super::hosted`).
pub(crate) struct Unpinned<T: 'static>(Slab<T>);

impl<T: Send + Sync + 'static> Unpinned<T> {
    /// As [`Slab::new`].
    pub(crate) const fn new() -> Self {
        Unpinned(Slab::new())
    }

    /// As [`Slab::vacant`].
    pub(crate) fn vacant(&'static self) -> Vacant<T> {
        self.0.vacant()
    }

    /// As [`Probe::finder`]: the address check (reads no slot).
    pub(crate) fn finder(&'static self) -> Finder {
        self.0.finder()
    }
}

/// The token of the slots themselves (a hosted record's slot, which its
/// record releases when it ends).
impl<T: Send + Sync + 'static> Token for Unpinned<T> {
    /// Nothing to fence: no pin can reach the slot.
    unsafe fn retire(&self, _c: NonNull<c_void>) {}

    /// Drops the object at `c` and puts its slot back on the free list,
    /// at once: nothing can pin it (see the type).
    unsafe fn release(&self, c: NonNull<c_void>) {
        let Some(s) = self.0.slot_of(c.as_ptr()) else {
            return;
        };
        // Never pinned: the pin word holds the live bit `fill` set and no
        // count. The bit stays (only `pin` reads it; `fill` sets it again).
        debug_assert_eq!(s.head.pins.load(Ordering::Relaxed), LIVE, "pinned");
        // SAFETY: per the trait's contract (a filled slot of this slab that
        // nobody refers to any more); no pin exists (the type has no `pin`).
        unsafe { self.0.drop_and_put_back(s) };
    }
}

impl<T> Slot<T> {
    fn home(&'static self) -> Home {
        // The record room through a pointer to the whole slot, so that the
        // object after it stays reachable from the record (`Obj::addr`).
        let p = std::ptr::from_ref(self).cast_mut();
        Home {
            state: &self.head.state,
            // SAFETY: a projection inside our slot.
            rec: unsafe { NonNull::new_unchecked(&raw mut (*p).head.rec) }.cast(),
        }
    }

    /// The object follows the header, whose record room ends it
    /// ([`REC_TO_VAL`]): the same place for every `T` ([`Finder`]).
    const VAL_AFTER_REC: () = assert!(offset_of!(Slot<T>, val) == size_of::<Header>());
}

impl<T: Send + Sync + 'static> Probe for Slab<T> {
    fn finder(&'static self) -> Finder {
        Finder {
            base: &self.base,
            len: &self.len,
            inv: slot_inv::<T>(),
            tz: size_of::<Slot<T>>().trailing_zeros(),
            val_off: Self::val_off(),
        }
    }

    fn each(&self, f: &mut dyn FnMut(Home)) {
        let len = self.len.load(Ordering::Acquire);
        let base = self.base.load(Ordering::Relaxed);
        for k in 0..len {
            let s = base
                .wrapping_add(k * size_of::<Slot<T>>())
                .cast::<Slot<T>>();
            // SAFETY: a committed slot, never unmapped.
            f(unsafe { &*s }.home());
        }
    }

    fn token(&'static self) -> &'static dyn Token {
        self
    }
}

/// One data-path call's hold on a live object: the object cannot be
/// released until it goes (see the module doc).
pub(crate) struct Pinned<T: 'static> {
    slot: &'static Slot<T>,
}

impl<T> std::ops::Deref for Pinned<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: the slot was live at our pin, so the T is initialised and
        // is not dropped before the pin goes.
        unsafe { (*self.slot.val.get()).assume_init_ref() }
    }
}

impl<T> Pinned<T> {
    /// Whether the object is still live: false once a destroy has begun to
    /// fence it out (the call holding this pin should then give up instead
    /// of waiting, e.g. for a lock; the destroy waits for it).
    #[inline]
    pub(crate) fn alive(&self) -> bool {
        self.slot.head.pins.load(Ordering::Relaxed) & LIVE != 0
    }
}

impl<T> Drop for Pinned<T> {
    #[inline]
    fn drop(&mut self) {
        self.slot.head.pins.fetch_sub(1, Ordering::Release);
    }
}

// The slot's header: the pin word, the reference state and the record.
const _: () = assert!(VAL == 8 + REC_TO_VAL);
const _: () = assert!(VAL == size_of::<Header>());

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C)]
    struct Thing {
        c: u64,
        v: std::sync::Arc<()>,
    }

    static THINGS: Slab<Thing> = Slab::new();
    static OTHERS: Slab<Thing> = Slab::new();

    fn make(s: &'static Slab<Thing>, c: u64) -> (New, std::sync::Arc<()>) {
        let v = std::sync::Arc::new(());
        let n = s.vacant().fill(Thing { c, v: v.clone() });
        (n, v)
    }

    #[test]
    fn pin_live_stale_foreign_wrong_type() {
        let (n, v) = make(&THINGS, 7);
        let p = n.c().as_ptr();
        assert_eq!(THINGS.pin(p).map(|t| t.c), Some(7));
        // Wrong type: another slab's address check fails.
        assert!(OTHERS.pin(p).is_none());
        // Inside the object, not at its start.
        assert!(THINGS.pin(p.cast::<u8>().wrapping_add(8).cast()).is_none());
        // Foreign and NULL.
        let x = 5u64;
        assert!(THINGS.pin((&raw const x).cast()).is_none());
        assert!(THINGS.pin(std::ptr::null()).is_none());
        drop(n); // retire + release
        assert_eq!(std::sync::Arc::strong_count(&v), 1, "dropped in place");
        // Stale: not live any more, the memory still ours.
        assert!(THINGS.pin(p).is_none());
        // Reused: a live object of the same type.
        let (n2, _) = make(&THINGS, 9);
        if n2.c().as_ptr() == p {
            assert_eq!(THINGS.pin(p).map(|t| t.c), Some(9));
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // a partial munmap: Miri models mmap as one allocation
    fn handle_after_unmapped_page() {
        // A pointer at the start of a page whose preceding page is unmapped:
        // the check must not read before it (or at it).
        // SAFETY: plain anonymous mappings of our own.
        unsafe {
            let pg = 4096usize;
            let m = libc::mmap(
                std::ptr::null_mut(),
                2 * pg,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(m, libc::MAP_FAILED);
            assert_eq!(libc::munmap(m, pg), 0);
            let p = m.cast::<u8>().add(pg).cast::<c_void>();
            assert!(THINGS.pin(p).is_none());
            libc::munmap(p, pg);
            // And an unmapped page itself.
            assert!(THINGS.pin(m).is_none());
        }
    }

    #[test]
    fn range_edges() {
        // Reserved but not committed, and just before the range: refused
        // without reading there (PROT_NONE pages would fault).
        let (n, _) = make(&THINGS, 3);
        let sz = size_of::<Slot<Thing>>();
        let len = THINGS.len.load(Ordering::Relaxed) * sz;
        let first = THINGS.base.load(Ordering::Relaxed) as usize + VAL;
        assert!(THINGS.pin((first + len) as *const c_void).is_none());
        assert!(THINGS.pin((first + len + 4096) as *const c_void).is_none());
        assert!(THINGS.pin((first - sz) as *const c_void).is_none());
        assert!(THINGS.pin((first - VAL) as *const c_void).is_none());
        assert!(THINGS.pin(usize::MAX as *const c_void).is_none());
        drop(n);
    }

    #[test]
    fn finder_agrees_with_the_slab() {
        let (n, _) = make(&THINGS, 4);
        let p = n.c().as_ptr();
        let f = THINGS.finder();
        let h = f.home(p).expect("a slot's object");
        let s = THINGS.slot_of(p).expect("a slot's object");
        assert!(std::ptr::eq(h.state, &s.head.state));
        assert_eq!(h.rec.as_ptr().cast::<u8>(), s.head.rec.get().cast::<u8>());
        for q in [
            p.cast::<u8>().wrapping_add(8).cast(),
            std::ptr::null(),
            std::ptr::without_provenance(usize::MAX),
        ] {
            assert!(f.home(q).is_none());
        }
        assert!(OTHERS.finder().home(p).is_none());
        drop(n);
    }

    #[test]
    fn empty_slab_refuses_all() {
        static NONE: Slab<Thing> = Slab::new();
        for p in [0usize, VAL, 4096, usize::MAX - VAL + 1] {
            assert!(NONE.pin(p as *const c_void).is_none());
            assert!(
                NONE.finder()
                    .home(std::ptr::without_provenance(p))
                    .is_none()
            );
        }
    }

    #[test]
    fn retire_waits_for_pins() {
        let (n, _) = make(&THINGS, 1);
        let p = n.c().as_ptr() as usize;
        let pin = THINGS.pin(p as *const c_void).expect("live");
        let t = std::thread::spawn(move || drop(n));
        std::thread::sleep(std::time::Duration::from_millis(20));
        // The destroyer waits for our call; the object is intact meanwhile.
        assert!(!t.is_finished());
        assert_eq!(pin.c, 1);
        drop(pin);
        t.join().unwrap();
        assert!(THINGS.pin(p as *const c_void).is_none());
    }

    #[test]
    fn slot_index_without_division() {
        fn check<T>() {
            let sz = size_of::<Slot<T>>();
            let max = usize::MAX / sz;
            for off in (0..sz * 40).chain([usize::MAX, usize::MAX - sz + 1, sz.wrapping_neg()]) {
                let i = slot_index::<T>(off);
                if off % sz == 0 {
                    assert_eq!(i, off / sz, "{off} / {sz}");
                } else {
                    assert!(i > max, "{off} / {sz}: {i}");
                }
            }
        }
        check::<Thing>();
        check::<[u8; 440]>();
        check::<[u64; 71]>();
        check::<u8>();
    }

    #[test]
    fn concurrent_take_and_give_back() {
        // Threads take and release slots of one slab at once: no slot is
        // ever handed to two owners (each object keeps its own value), and
        // none is lost (all come back to the free list, then are reused).
        static RACE: Slab<Thing> = Slab::new();
        let (threads, rounds) = if cfg!(miri) { (3, 30) } else { (4, 3000) };
        let ts: Vec<_> = (0..threads)
            .map(|t| {
                std::thread::spawn(move || {
                    let mut held = Vec::new();
                    for i in 0..rounds {
                        let c = (t << 32 | i) as u64;
                        held.push((make(&RACE, c).0, c));
                        if i % 3 == 2 {
                            for (n, c) in held.drain(..) {
                                assert_eq!(RACE.pin(n.c().as_ptr()).map(|t| t.c), Some(c));
                            }
                        }
                    }
                })
            })
            .collect();
        for t in ts {
            t.join().unwrap();
        }
        assert_eq!(RACE.live(), 0);
        // At most 3 per thread were held at once: the slab never needed more.
        let len = RACE.len.load(Ordering::Relaxed);
        assert!(len <= (3 * threads).max(BASE).next_power_of_two(), "{len}");
        let again: Vec<_> = (0..len).map(|i| make(&RACE, i as u64).0).collect();
        assert_eq!(RACE.len.load(Ordering::Relaxed), len, "every slot reused");
        drop(again);
    }

    #[test]
    fn unpinned_release_without_retire() {
        // A slab nothing pins gives a slot back at once: its object dropped
        // in place, the slot the next one taken.
        static FREE: Unpinned<Thing> = Unpinned::new();
        let v = std::sync::Arc::new(());
        let n = FREE.vacant().fill(Thing { c: 5, v: v.clone() });
        let p = std::mem::ManuallyDrop::new(n).c();
        assert!(FREE.finder().home(p.as_ptr()).is_some());
        assert_eq!(std::sync::Arc::strong_count(&v), 2);
        // SAFETY: filled above, released once; the New was forgotten.
        unsafe { FREE.release(p) };
        assert_eq!(std::sync::Arc::strong_count(&v), 1, "dropped in place");
        assert_eq!(FREE.vacant().addr(), p, "slot reused");
    }

    #[test]
    fn grows_and_reuses() {
        let v: Vec<_> = (0..100).map(|i| make(&OTHERS, i).0).collect();
        for (i, n) in v.iter().enumerate() {
            assert_eq!(OTHERS.pin(n.c().as_ptr()).map(|t| t.c), Some(i as u64));
        }
        let live = OTHERS.live();
        drop(v);
        assert_eq!(OTHERS.live(), live - 100);
    }
}
