//! The state word of one record: whether C holds the object (the
//! registered bit) and how many references the core has, in one atomic.
//!
//! Both kinds of record use it: a root's slot (`roots`) and a slab slot's
//! record (`rec`). The registry's own reference comes with the registered
//! bit; a reference is only taken while the bit is set, so a destroyed
//! object is never found again; the last release ends the record.

use std::sync::atomic::{AtomicU32, Ordering, fence};

/// Set while the object is registered (C holds it).
const REG: u32 = 1 << 31;
/// A claimed slot's state while it is being filled (`roots`): no `REG`, so
/// nobody takes a reference, and not 0, so nobody else claims it.
const FILLING: u32 = 1;

/// A record's registered bit and reference count (see the module doc).
/// 0: no record (a free slot).
pub(crate) struct RegCount(AtomicU32);

impl RegCount {
    pub(crate) const fn new() -> RegCount {
        RegCount(AtomicU32::new(0))
    }

    /// Claims a free slot for filling; false if it is not free.
    pub(super) fn claim(&self) -> bool {
        self.0
            .compare_exchange(0, FILLING, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// Registers the record just written (a claimed or fresh slot): the
    /// registered bit and the registry's reference. Release: the record is
    /// visible to whoever acquires a reference.
    pub(super) fn register(&self) {
        self.0.store(REG | 1, Ordering::Release);
    }

    /// Whether no record is here (a fresh or popped slot).
    pub(super) fn is_free(&self) -> bool {
        self.0.load(Ordering::Relaxed) == 0
    }

    /// Takes a reference if the object is registered.
    #[inline(always)]
    pub(super) fn acquire(&self) -> bool {
        let mut s = self.0.load(Ordering::Relaxed);
        loop {
            if s & REG == 0 {
                return false;
            }
            match self
                .0
                .compare_exchange_weak(s, s + 1, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(v) => s = v,
            }
        }
    }

    /// One more reference, from one the caller holds.
    pub(super) fn add(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// Clears the registered bit and drops the registry's reference (the
    /// caller's keeps the record); false if it was not registered (a racing
    /// unregistration won).
    pub(super) fn unregister(&self) -> bool {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Relaxed, |s| {
                (s & REG != 0).then(|| (s & !REG) - 1)
            })
            .is_ok()
    }

    /// Drops a reference; true if it was the last (the state is then 0 and
    /// the caller ends the record: everything the other holders did is
    /// visible to it).
    #[inline(always)]
    pub(super) fn release(&self) -> bool {
        if self.0.fetch_sub(1, Ordering::Release) != 1 {
            return false;
        }
        fence(Ordering::Acquire);
        true
    }

    /// As [`RegCount::release`], but the last reference is kept (state 1:
    /// nobody else can change it) for the caller to end the record and then
    /// [`RegCount::clear`] it: a slot whose value is read at its end.
    pub(super) fn release_unless_last(&self) -> bool {
        let mut s = self.0.load(Ordering::Relaxed);
        while s != 1 {
            match self
                .0
                .compare_exchange_weak(s, s - 1, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return false,
                Err(v) => s = v,
            }
        }
        fence(Ordering::Acquire);
        true
    }

    /// Frees the slot (state 0) after its record ended.
    pub(super) fn clear(&self) {
        self.0.store(0, Ordering::Release);
    }

    /// A free slab slot's link to the next free one (below 2^31: never
    /// `REG`, so never taken for a record; see `slab`).
    pub(super) fn link(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }

    /// Sets a free slot's link ([`RegCount::link`]); 0 when the slot is
    /// taken off the free list.
    pub(super) fn set_link(&self, next: u32) {
        debug_assert!(next & REG == 0);
        self.0.store(next, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_count() {
        let c = RegCount::new();
        assert!(c.is_free() && !c.acquire());
        assert!(c.claim() && !c.claim() && !c.acquire());
        c.register();
        assert!(c.acquire());
        c.add();
        assert!(!c.release() && !c.release());
        assert!(c.unregister() && !c.unregister());
        assert!(!c.acquire(), "no reference once unregistered");
        assert!(c.is_free(), "the registry's reference went with REG");
        c.register();
        assert!(c.acquire() && c.unregister());
        assert!(c.release(), "the last");
        c.register();
        assert!(c.acquire() && c.unregister());
        assert!(c.release_unless_last(), "kept at 1");
        assert!(!c.is_free());
        c.clear();
        assert!(c.is_free());
    }
}
