//! The per-queue lock of the data path: a spin lock, like rdma-core's
//! `pthread_spin_lock` per queue, with a guard API for one-call critical
//! sections and a raw lock/unlock pair for the ones C spans over several calls
//! (`ibv_wr_start` .. `ibv_wr_complete`, `ibv_start_poll` .. `ibv_end_poll`).
//! Uncontended it costs one compare-exchange and one store.
//!
//! One word is the whole lock (a queue's lock is heap per QP and CQ): 0 when
//! free, [`LOCKED`] while a guard holds it, the holder's thread id while a
//! thread holds it for a batch.
#![allow(unsafe_code)]

use std::cell::{Cell, UnsafeCell};
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU32, Ordering};

pub(crate) struct SpinLock<T> {
    /// Free (0), held by a guard ([`LOCKED`]) or by a batch of the thread
    /// whose id it is (see [`SpinLock::begin_while`]).
    word: AtomicU32,
    data: UnsafeCell<T>,
}

/// The lock word of a lock a guard holds (thread ids are above it).
const LOCKED: u32 = 1;

/// The calling thread's id: above [`LOCKED`], never handed to two threads
/// (ids are not reused); 0 once the ids are used up (such a thread cannot
/// open a batch). Out of line: callers look it up only when a batch owner is
/// set (a call the compiler would otherwise hoist above that test).
#[cold]
#[inline(never)]
pub(crate) fn thread_id() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(LOCKED + 1);
    thread_local! {
        static ID: Cell<u32> = const { Cell::new(0) };
    }
    ID.with(|id| {
        if id.get() == 0 {
            let n = NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_add(1));
            id.set(n.unwrap_or(0));
        }
        id.get()
    })
}

// SAFETY: the data is only reached while the lock is held (guard or raw
// holder), which serialises access across threads.
unsafe impl<T: Send> Sync for SpinLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for SpinLock<T> {}

pub(crate) struct Guard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> SpinLock<T> {
    pub(crate) const fn new(v: T) -> Self {
        SpinLock {
            word: AtomicU32::new(0),
            data: UnsafeCell::new(v),
        }
    }

    fn acquire(&self) {
        self.acquire_while(LOCKED, || true);
    }

    /// Takes the lock, its word set to `holder`, unless `alive` turns false
    /// while waiting for it (checked only while contended): false then,
    /// without the lock.
    #[inline]
    fn acquire_while(&self, holder: u32, alive: impl Fn() -> bool) -> bool {
        let mut spins = 0u32;
        while self
            .word
            .compare_exchange_weak(0, holder, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // Wait reading only; after a while let the holder run (two cores
            // shared by many threads in the tests).
            while self.word.load(Ordering::Relaxed) != 0 {
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(64) {
                    if !alive() {
                        return false;
                    }
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
        true
    }

    pub(crate) fn lock(&self) -> Guard<'_, T> {
        self.acquire();
        Guard { lock: self }
    }

    /// The lock for a data-path call on an object that another thread may
    /// be destroying: `None` once `alive` says the object is going (its
    /// destroy waits for this call, which must not wait for a lock whose
    /// holder may never release it, e.g. a batch left open).
    #[inline]
    pub(crate) fn lock_while(&self, alive: impl Fn() -> bool) -> Option<Guard<'_, T>> {
        self.acquire_while(LOCKED, alive)
            .then(|| Guard { lock: self })
    }

    /// The lock if it is free now (one compare-exchange), else `None`
    /// without waiting: callers look at why (e.g. their own batch) only
    /// then, off the uncontended path.
    #[inline(always)]
    pub(crate) fn try_lock(&self) -> Option<Guard<'_, T>> {
        self.word
            .compare_exchange(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
            .then(|| Guard { lock: self })
    }

    /// Whether the calling thread holds the lock for a batch.
    #[inline]
    pub(crate) fn held_by_me(&self) -> bool {
        // No owner (the common case on the data path) needs no thread-local
        // lookup: thread ids are never 0.
        let w = self.word.load(Ordering::Relaxed);
        w > LOCKED && w == thread_id()
    }

    #[cfg(test)]
    pub(crate) fn begin(&self) -> bool {
        self.begin_while(|| true)
    }

    /// Opens a batch: takes the lock for the calling thread until
    /// [`SpinLock::end`], across C calls (`ibv_start_poll` .. `ibv_end_poll`,
    /// `ibv_wr_start` .. `ibv_wr_complete`). False, without waiting, if this
    /// thread already holds it (where rdma-core would deadlock), and false
    /// when `alive` turns false while waiting (see [`SpinLock::lock_while`]).
    pub(crate) fn begin_while(&self, alive: impl Fn() -> bool) -> bool {
        if self.held_by_me() {
            return false;
        }
        let me = thread_id();
        me != 0 && self.acquire_while(me, alive)
    }

    /// The data of the calling thread's batch; `None` if this thread holds
    /// no batch on this lock (another thread's batch, or none: a stray call).
    ///
    /// # Safety
    /// The caller keeps no other reference from `batch` alive meanwhile (one
    /// per C call): the lock and the owner check make it exclusive otherwise.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) unsafe fn batch(&self) -> Option<&mut T> {
        // SAFETY: only the owner thread gets here, holding the lock; per the
        // contract it has no other reference.
        self.held_by_me().then(|| unsafe { &mut *self.data.get() })
    }

    /// Ends the calling thread's batch; false if it had none.
    ///
    /// # Safety
    /// No reference from [`SpinLock::batch`] is alive.
    pub(crate) unsafe fn end(&self) -> bool {
        if !self.held_by_me() {
            return false;
        }
        self.word.store(0, Ordering::Release);
        true
    }
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the lock.
        unsafe { &*self.lock.data.get() }
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the lock; `&mut self` makes this unique.
        unsafe { &mut *self.lock.data.get() }
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.lock.word.store(0, Ordering::Release);
    }
}

// One word of lock beside the data.
const _: () = assert!(size_of::<SpinLock<u32>>() == 8);

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// A lock refused (held by another, or the object going) leaves the
    /// holder's lock held: no guard is made, so none is dropped.
    #[test]
    fn a_refused_lock_leaves_the_holders_lock() {
        let l = SpinLock::new(0u32);
        let g = l.lock();
        assert!(l.try_lock().is_none());
        assert!(l.lock_while(|| false).is_none());
        assert!(l.try_lock().is_none(), "still the first guard's");
        drop(g);
        assert!(l.try_lock().is_some());
    }

    #[test]
    fn counts_under_contention() {
        // Fewer under Miri, which interprets every step.
        const N: u64 = if cfg!(miri) { 100 } else { 10_000 };
        let l = Arc::new(SpinLock::new(0u64));
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let l = l.clone();
                std::thread::spawn(move || {
                    for _ in 0..N {
                        *l.lock() += 1;
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(*l.lock(), 4 * N);
        assert!(l.begin());
        assert!(
            !l.begin(),
            "a second begin of the same thread does not deadlock"
        );
        // SAFETY: one reference at a time.
        unsafe { *l.batch().unwrap() += 1 };
        let l2 = l.clone();
        // Another thread's stray calls see no batch of theirs.
        // SAFETY: as above.
        std::thread::spawn(move || unsafe {
            assert!(l2.batch().is_none());
            assert!(!l2.end());
        })
        .join()
        .unwrap();
        // SAFETY: no batch reference is alive.
        assert!(unsafe { l.end() });
        assert_eq!(*l.lock(), 4 * N + 1);
    }
}
