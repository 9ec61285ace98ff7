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
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Event counts of one object: completion events (CQs only) and async events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventCounts {
    pub comp: u32,
    pub async_: u32,
}

/// What has been acknowledged for an object, and whether a destroy is under way.
///
/// Two atomic counters per object; the rare wait (a destroy that finds events
/// not yet acknowledged) goes through one lock and condition variable shared
/// by all objects, so an object carries no mutex or condvar of its own.
#[derive(Default)]
pub(crate) struct Events {
    comp: AtomicU32,
    async_: AtomicU32,
    destroying: AtomicBool,
}

/// Destroys waiting for acknowledgements (any object's), and what they wait on.
static WAITERS: AtomicUsize = AtomicUsize::new(0);
static WAIT_LOCK: Mutex<()> = Mutex::new(());
static WAIT_CV: Condvar = Condvar::new();

impl Events {
    /// Adds `n` to `counter`, then hands the total to `mirror` until it
    /// stays put: of concurrent acknowledgements the last mirror call sees
    /// the final total (the counter and `mirror`'s store are SeqCst).
    fn ack(counter: &AtomicU32, n: u32, mirror: impl Fn(u32)) {
        counter.fetch_add(n, Ordering::SeqCst);
        let mut v = counter.load(Ordering::SeqCst);
        loop {
            mirror(v);
            let now = counter.load(Ordering::SeqCst);
            if now == v {
                break;
            }
            v = now;
        }
        // Pairs with `wait_acked`: either its check sees our count, or we see
        // it waiting and wake it under the lock it sleeps on.
        if WAITERS.load(Ordering::SeqCst) != 0 {
            drop(WAIT_LOCK.lock().unwrap_or_else(|p| p.into_inner()));
            WAIT_CV.notify_all();
        }
    }

    /// Adds `n` acknowledged completion events; `mirror` gets the new total
    /// (to store it, SeqCst, into the C struct).
    pub(crate) fn ack_comp(&self, n: u32, mirror: impl Fn(u32)) {
        Self::ack(&self.comp, n, mirror)
    }

    /// Adds `n` acknowledged async events; as [`Events::ack_comp`].
    pub(crate) fn ack_async(&self, n: u32, mirror: impl Fn(u32)) {
        Self::ack(&self.async_, n, mirror)
    }

    pub(crate) fn acked(&self) -> EventCounts {
        EventCounts {
            comp: self.comp.load(Ordering::SeqCst),
            async_: self.async_.load(Ordering::SeqCst),
        }
    }

    fn covers(&self, reported: EventCounts) -> bool {
        let a = self.acked();
        a.comp >= reported.comp && a.async_ >= reported.async_
    }

    /// Blocks until at least `reported` events of each kind are acknowledged.
    pub(crate) fn wait_acked(&self, reported: EventCounts) {
        if self.covers(reported) {
            return;
        }
        let mut g = WAIT_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        WAITERS.fetch_add(1, Ordering::SeqCst);
        while !self.covers(reported) {
            g = WAIT_CV.wait(g).unwrap_or_else(|p| p.into_inner());
        }
        WAITERS.fetch_sub(1, Ordering::SeqCst);
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
    obj.events.claim_destroy()?;
    match kernel(&obj) {
        Ok(reported) => {
            obj.retire();
            obj.events.wait_acked(reported);
            if !object::unregister(&obj) {
                return Err(Errno::EINVAL);
            }
            Ok(obj)
        }
        Err(e) => {
            obj.events.release_destroy();
            Err(e)
        }
    }
}

impl<O> Obj<O> {
    /// `ibv_ack_cq_events`.
    pub(crate) fn ack_comp_events(&self, n: u32) {
        let c = self.c::<ibv_cq>();
        // SAFETY: a u32 field of the live CQ's C struct which the core owns.
        self.events.ack_comp(n, |t| unsafe {
            store_total(&raw mut (*c).comp_events_completed, t)
        });
    }

    /// `ibv_ack_async_event` for a CQ, QP, SRQ or WQ event.
    pub(crate) fn ack_async_event(&self) {
        let p = self.addr().as_ptr();
        // SAFETY: as in ack_comp_events, for the kind's events_completed.
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
        assert!(ev.claim_destroy().is_ok());
        assert_eq!(ev.claim_destroy(), Err(Errno::EINVAL));
        ev.release_destroy();
        assert!(ev.claim_destroy().is_ok());
        let e2 = ev.clone();
        let t = std::thread::spawn(move || {
            e2.ack_comp(2, |_| {});
            e2.ack_async(1, |_| {});
        });
        ev.wait_acked(EventCounts { comp: 2, async_: 1 });
        t.join().unwrap();
        let seen = AtomicU32::new(0);
        ev.ack_comp(3, |t| seen.store(t, Ordering::SeqCst));
        assert_eq!(seen.load(Ordering::SeqCst), 5);
        assert_eq!(ev.acked(), EventCounts { comp: 5, async_: 1 });
    }
}
