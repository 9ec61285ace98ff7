//! The per-queue lock of the data path: a spin lock, like rdma-core's
//! `pthread_spin_lock` per queue, with a guard API for one-call critical
//! sections and a raw lock/unlock pair for the ones C spans over several calls
//! (`ibv_wr_start` .. `ibv_wr_complete`, `ibv_start_poll` .. `ibv_end_poll`).
//! Uncontended it costs one compare-exchange and one store.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

pub struct SpinLock<T> {
    locked: AtomicBool,
    data: UnsafeCell<T>,
}

// SAFETY: the data is only reached while the lock is held (guard or raw
// holder), which serialises access across threads.
unsafe impl<T: Send> Sync for SpinLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for SpinLock<T> {}

pub struct Guard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> SpinLock<T> {
    pub const fn new(v: T) -> Self {
        SpinLock {
            locked: AtomicBool::new(false),
            data: UnsafeCell::new(v),
        }
    }

    fn acquire(&self) {
        let mut spins = 0u32;
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // Wait reading only; after a while let the holder run (two cores
            // shared by many threads in the tests).
            while self.locked.load(Ordering::Relaxed) {
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(64) {
                    std::thread::yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }
        }
    }

    pub fn lock(&self) -> Guard<'_, T> {
        self.acquire();
        Guard { lock: self }
    }

    /// Takes the lock without a guard: the caller releases it later with
    /// [`SpinLock::unlock_raw`] (possibly from another C call).
    pub fn lock_raw(&self) {
        self.acquire();
    }

    /// Whether somebody holds the lock now.
    pub fn is_locked(&self) -> bool {
        self.locked.load(Ordering::Relaxed)
    }

    /// The data while the lock is held through [`SpinLock::lock_raw`].
    ///
    /// # Safety
    /// The calling thread holds the lock through `lock_raw` and creates no
    /// other reference to the data until it drops this one.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn raw_data(&self) -> &mut T {
        // SAFETY: per this function's contract, we have exclusive access.
        unsafe { &mut *self.data.get() }
    }

    /// Releases a lock taken with [`SpinLock::lock_raw`].
    ///
    /// # Safety
    /// The calling thread holds the lock through `lock_raw` and keeps no
    /// reference from [`SpinLock::raw_data`].
    pub unsafe fn unlock_raw(&self) {
        self.locked.store(false, Ordering::Release);
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
        self.lock.locked.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

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
        l.lock_raw();
        assert!(l.is_locked());
        // SAFETY: we hold it raw.
        unsafe {
            *l.raw_data() += 1;
            l.unlock_raw();
        }
        assert_eq!(*l.lock(), 4 * N + 1);
    }
}
