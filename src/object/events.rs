//! Event acknowledgement for CQs, QPs and SRQs, and their destroy protocol
//! (the counters and the wait: `ack`).
//!
//! The kernel counts the completion and async events it reported for an
//! object and returns those counts when the object is destroyed; as in
//! rdma-core, the destroy then waits until the application has acknowledged
//! as many (`ibv_ack_cq_events`, `ibv_ack_async_event`). The object stays
//! registered while it waits, so those acknowledgements can still find it.
#![allow(unsafe_code)]

use super::ack::{EventCounts, ack_comp};
use super::{Kind, KindOf, Obj, Ref};
use crate::abi::*;
use crate::entry::{Errno, Result};
use crate::object;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

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
pub(crate) fn destroy<C: KindOf, O: super::RecordOwner>(
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
