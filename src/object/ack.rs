//! The acknowledgement counters of events (a CQ's completion events, an
//! object's async events) and the wait of a destroy for them: the kernel
//! counts the events it reported and returns those counts at destroy, and as
//! in rdma-core the destroy waits until the application has acknowledged as
//! many (`ibv_ack_cq_events`, `ibv_ack_async_event`).

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// Event counts of one object: completion events (CQs only) and async events.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct EventCounts {
    pub comp: u32,
    pub async_: u32,
}

/// The async events acknowledged for an object (a CQ's completion events
/// are counted in its C struct's `comp_events_completed`, as in rdma-core,
/// see `Obj::ack_comp_events`).
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
