//! Event acknowledgement for CQs, QPs and SRQs, and their destroy protocol.
//!
//! The kernel counts the completion and async events it reported for an
//! object and returns those counts when the object is destroyed; as in
//! rdma-core, the destroy then waits until the application has acknowledged
//! as many (`ibv_ack_cq_events`, `ibv_ack_async_event`). The object stays
//! registered while it waits, so those acknowledgements can still find it.
#![allow(unsafe_code)]

use super::{Kind, KindOf, Obj, Ref};
use crate::abi::*;
use crate::entry::{Errno, Result};
use crate::object;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Event counts of one object: completion events (CQs only) and async events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventCounts {
    pub comp: u32,
    pub async_: u32,
}

/// The async events acknowledged for an object (a CQ's completion events
/// are counted in its C struct's `comp_events_completed`, as in rdma-core,
/// see [`Obj::ack_comp_events`]).
///
/// One atomic counter per object; the rare wait (a destroy that finds events
/// not yet acknowledged) goes through one lock and condition variable shared
/// by all objects, so an object carries no mutex or condvar of its own.
#[derive(Default)]
pub(crate) struct Events {
    async_: AtomicU32,
}

/// Destroys waiting for acknowledgements (any object's), and what they wait on.
static WAITERS: AtomicUsize = AtomicUsize::new(0);
static WAIT_LOCK: Mutex<()> = Mutex::new(());
static WAIT_CV: Condvar = Condvar::new();

/// Wakes the destroys waiting for acknowledgements, if any, after a counter
/// (SeqCst) went up.
fn wake() {
    // Pairs with `wait_for`: either its check sees our count, or we see it
    // waiting and wake it under the lock it sleeps on.
    if WAITERS.load(Ordering::SeqCst) != 0 {
        drop(WAIT_LOCK.lock().unwrap_or_else(|p| p.into_inner()));
        WAIT_CV.notify_all();
    }
}

/// Adds `n` acknowledged completion events to a CQ's counter.
pub(crate) fn ack_comp(counter: &AtomicU32, n: u32) {
    counter.fetch_add(n, Ordering::SeqCst);
    wake();
}

/// Blocks until `acked` is true.
fn wait_for(acked: impl Fn() -> bool) {
    if acked() {
        return;
    }
    let mut g = WAIT_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    WAITERS.fetch_add(1, Ordering::SeqCst);
    while !acked() {
        g = WAIT_CV.wait(g).unwrap_or_else(|p| p.into_inner());
    }
    WAITERS.fetch_sub(1, Ordering::SeqCst);
}

impl Events {
    /// Adds `n` acknowledged async events, then hands the total to `mirror`
    /// (to store it, SeqCst, into the C struct) until it stays put: of
    /// concurrent acknowledgements the last mirror call sees the final
    /// total (the counter and `mirror`'s store are SeqCst).
    pub(crate) fn ack_async(&self, n: u32, mirror: impl Fn(u32)) {
        self.async_.fetch_add(n, Ordering::SeqCst);
        let mut v = self.async_.load(Ordering::SeqCst);
        loop {
            mirror(v);
            let now = self.async_.load(Ordering::SeqCst);
            if now == v {
                break;
            }
            v = now;
        }
        wake();
    }

    /// The async events acknowledged so far.
    pub(crate) fn acked_async(&self) -> u32 {
        self.async_.load(Ordering::SeqCst)
    }

    /// Blocks until at least `reported` events of each kind are
    /// acknowledged; `comp` reads the completion events' counter (called
    /// only if `reported.comp` is not 0).
    pub(crate) fn wait_acked(&self, reported: EventCounts, comp: impl Fn() -> u32) {
        wait_for(|| {
            self.acked_async() >= reported.async_ && (reported.comp == 0 || comp() >= reported.comp)
        })
    }
}

/// Stores an acknowledgement total into a counter field of the C struct
/// which the core owns (C reads it unsynchronised, as with rdma-core).
///
/// # Safety
/// `f` is an aligned u32 field of a live C struct, only written atomically.
unsafe fn store_total(f: *mut u32, t: u32) {
    // SAFETY: the caller's promise.
    unsafe { AtomicU32::from_ptr(f) }.store(t, Ordering::SeqCst);
}

/// Destroys the object C knows as `p`: `kernel` destroys it in the kernel and
/// returns the events reported for it; then the data path is fenced out, this
/// waits for the events' acknowledgement and takes the object back from C. A
/// second destroy of the same object (concurrent or later) gives EINVAL; a
/// failed one leaves it as it was.
pub(crate) fn destroy<C: KindOf, O: Send + Sync + 'static>(
    p: *const C,
    kernel: impl FnOnce(&Obj<O>) -> Result<EventCounts>,
) -> Result<Ref<O>> {
    let obj = object::get::<C, O>(p)?;
    obj.claim_destroy()?;
    match kernel(&obj) {
        Ok(reported) => {
            obj.retire();
            obj.wait_acked(reported);
            if !object::unregister(&obj) {
                return Err(Errno::EINVAL);
            }
            Ok(obj)
        }
        Err(e) => {
            obj.release_destroy();
            Err(e)
        }
    }
}

impl<O> Obj<O> {
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

    /// A CQ's count of acknowledged completion events: its C struct's
    /// `comp_events_completed`, which only the core writes (atomically).
    fn comp_counter(&self) -> &AtomicU32 {
        let c = self.c::<ibv_cq>();
        // SAFETY: an aligned u32 field of the live CQ's C struct (alive while
        // the record is), which the core owns and only accesses atomically
        // (C reads it unsynchronised, as with rdma-core).
        unsafe { AtomicU32::from_ptr(&raw mut (*c).comp_events_completed) }
    }

    /// `ibv_ack_cq_events`: counted in the C struct, as rdma-core does.
    pub(crate) fn ack_comp_events(&self, n: u32) {
        ack_comp(self.comp_counter(), n);
    }

    /// Blocks until at least `reported` events of each kind are
    /// acknowledged (completion events only for a CQ, whose C struct must
    /// then still be alive: a hosted CQ's destroy reports none once its
    /// plugin freed it).
    #[inline]
    pub(crate) fn wait_acked(&self, reported: EventCounts) {
        // Nothing reported (the usual case, and a hosted destroy's second
        // call after its ibv_cmd_destroy_* waited): no call to make.
        if reported == EventCounts::default() {
            return;
        }
        debug_assert!(reported.comp == 0 || self.kind() == Kind::Cq);
        self.events
            .wait_acked(reported, || self.comp_counter().load(Ordering::SeqCst));
    }

    /// `ibv_ack_async_event` for a CQ, QP, SRQ or WQ event.
    pub(crate) fn ack_async_event(&self) {
        let p = self.addr().as_ptr();
        // SAFETY: as in comp_counter, for the kind's events_completed.
        self.events.ack_async(1, |t| unsafe {
            match self.kind() {
                Kind::Cq => store_total(&raw mut (*p.cast::<ibv_cq>()).async_events_completed, t),
                Kind::Qp => store_total(&raw mut (*p.cast::<ibv_qp>()).events_completed, t),
                Kind::Srq => store_total(&raw mut (*p.cast::<ibv_srq>()).events_completed, t),
                Kind::Wq => store_total(&raw mut (*p.cast::<ibv_wq>()).events_completed, t),
                _ => {}
            }
        });
    }

    /// `ibv_comp_channel::refcnt`: the CQs using a completion channel, which
    /// `ibv_destroy_comp_channel` checks; kept in the C struct, as rdma-core.
    fn refcnt(&self) -> &AtomicI32 {
        let p = self.c::<ibv_comp_channel>();
        // SAFETY: `refcnt` is an aligned c_int inside the live C struct; we
        // only ever access it atomically (C only reads it).
        unsafe { AtomicI32::from_ptr(&raw mut (*p).refcnt) }
    }

    pub(crate) fn add_cq_ref(&self) {
        self.refcnt().fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn drop_cq_ref(&self) {
        self.refcnt().fetch_sub(1, Ordering::AcqRel);
    }

    /// How many CQs use this channel.
    pub(crate) fn cq_refs(&self) -> i32 {
        self.refcnt().load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn destroy_waits_for_acks() {
        let ev = Arc::new(Events::default());
        let comp = Arc::new(AtomicU32::new(0));
        let (e2, c2) = (ev.clone(), comp.clone());
        let t = std::thread::spawn(move || {
            ack_comp(&c2, 2);
            e2.ack_async(1, |_| {});
        });
        ev.wait_acked(EventCounts { comp: 2, async_: 1 }, || {
            comp.load(Ordering::SeqCst)
        });
        t.join().unwrap();
        let seen = AtomicU32::new(0);
        ev.ack_async(3, |t| seen.store(t, Ordering::SeqCst));
        assert_eq!(seen.load(Ordering::SeqCst), 4);
        assert_eq!(ev.acked_async(), 4);
        // No completion events reported: their counter is not read.
        ev.wait_acked(EventCounts { comp: 0, async_: 4 }, || unreachable!());
    }
}
