//! How many of an object's events the application acknowledged.
//!
//! The kernel counts the completion and async events it reported on a CQ, QP,
//! SRQ or WQ; destroying the object returns those counts, and the destroy verb
//! must wait until the application acknowledged as many
//! (ibv_ack_cq_events / ibv_ack_async_event) so that no event it still holds
//! names a freed object. Every context object carries one [`EventCounts`]
//! (`obj.events`).
//!
//! For the destroy verbs of CQ/QP/SRQ/WQ providers:
//! `obj.events.wait_acked(resp.comp_events_reported, resp.async_events_reported)`
//! (QP/SRQ/WQ: `wait_acked(0, resp.events_reported)`).

use std::sync::{Condvar, Mutex, MutexGuard};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Completion events (CQs only), from ibv_ack_cq_events.
    pub comp: u32,
    /// Async events, from ibv_ack_async_event.
    pub async_: u32,
}

#[derive(Default)]
pub struct EventCounts {
    acked: Mutex<Acked>,
    cond: Condvar,
}

impl EventCounts {
    fn lock(&self) -> MutexGuard<'_, Acked> {
        self.acked.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// ibv_ack_cq_events: `n` more completion events acknowledged.
    pub fn ack_comp(&self, n: u32) {
        let mut a = self.lock();
        a.comp = a.comp.wrapping_add(n);
        self.cond.notify_all();
    }

    /// ibv_ack_async_event: one more async event acknowledged.
    pub fn ack_async(&self) {
        let mut a = self.lock();
        a.async_ = a.async_.wrapping_add(1);
        self.cond.notify_all();
    }

    pub fn acked(&self) -> Acked {
        *self.lock()
    }

    /// Blocks until exactly `comp` completion and `async_` async events were
    /// acknowledged (the counts the kernel's destroy reply reports).
    pub fn wait_acked(&self, comp: u32, async_: u32) {
        let mut a = self.lock();
        while a.comp != comp || a.async_ != async_ {
            a = self.cond.wait(a).unwrap_or_else(|p| p.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn wait_until_acked() {
        let e = Arc::new(EventCounts::default());
        let e2 = e.clone();
        let t = std::thread::spawn(move || e2.wait_acked(3, 1));
        e.ack_comp(2);
        e.ack_async();
        e.ack_comp(1);
        t.join().unwrap();
        assert_eq!(e.acked(), Acked { comp: 3, async_: 1 });
    }
}
