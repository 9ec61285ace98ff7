//! The rxe CQ object (rdma-core's `struct rxe_cq`) and its data-path check;
//! its verbs are in `cq.rs` (create, resize, destroy) and `poll.rs`.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;

use std::sync::atomic::{AtomicU32, Ordering};

use crate::abi::*;
use crate::context::Obj;
use crate::entry::{Errno, Result};
use crate::object::slab::{Pinned, Slab, tag_of};
use crate::providers::rxe::lock::SpinLock;
use crate::providers::rxe::queue::{ConsumerQueue, IndexWords, unmap_kept};

/// An rxe CQ: the C struct C holds (`ibv_cq` at the head of an `ibv_cq_ex`),
/// then the provider's state, in one slab slot (rdma-core's `struct rxe_cq`).
#[repr(C)]
pub(crate) struct RxeCq {
    /// Written by the core (event counters) and by the poller (`wr_id`,
    /// `status` of the current completion) while C reads it.
    pub c: UnsafeCell<ibv_cq_ex>,
    pub st: CqState,
}

// SAFETY: the C struct is plain data written under the rules above; the
// state is Sync on its own.
unsafe impl Sync for RxeCq {}
// SAFETY: as above.
unsafe impl Send for RxeCq {}

pub(in crate::providers::rxe) static CQS: Slab<RxeCq> = Slab::new(tag_of("RxeCq"));

/// The data path's check of C's CQ pointer (see `crate::object::slab`).
#[inline]
pub(crate) fn pin(p: *const ibv_cq) -> Option<Pinned<RxeCq>> {
    CQS.pin(p.cast())
}

/// The ring and the `ibv_start_poll` cursor, under the CQ's lock.
pub(crate) struct CqInner {
    pub queue: ConsumerQueue,
    /// The completion `ibv_start_poll`/`ibv_next_poll` stand on.
    pub cur: u32,
    /// Whether `cur` holds a completion the batch showed (false after a
    /// `next_poll` that found none: `end_poll` then consumes nothing more).
    pub shown: bool,
}

/// In `CqState::first_kept`: the CQ was resized (its first ring is stale).
pub(crate) const RESIZED: u32 = 1 << 31;

/// rdma-core's `struct rxe_cq` beyond the C struct: 48 bytes (the comp
/// channel is the C struct's, as in rdma-core).
pub(crate) struct CqState {
    pub handle: u32,
    /// Under the CQ's lock (poll, resize); held by the polling thread from
    /// `ibv_start_poll` to `ibv_end_poll`, also after a `next_poll` that found
    /// nothing (rdma-core PR #1617), as a batch of that thread.
    pub lock: SpinLock<CqInner>,
    /// The index words of the ring the CQ was created with (mapped as long
    /// as this state lives: the queue's, or kept, see `first_kept`), for
    /// polls that find it empty without the lock; unused once resized.
    pub first: IndexWords,
    /// 0 until a resize begins; then [`RESIZED`], and with the first ring
    /// once a resize replaced it: the ring kept mapped
    /// (`ConsumerQueue::keep_mapped`), unmapped with this state.
    pub first_kept: AtomicU32,
}

impl CqState {
    /// True if the CQ had no completion at some instant during the call,
    /// found without the lock; false means "take the lock and look".
    pub(crate) fn seen_empty(&self) -> bool {
        // SAFETY: the first ring stays mapped while `self` lives (see `first`).
        self.first_kept.load(Ordering::Acquire) == 0 && unsafe { self.first.is_empty() }
    }
}

impl Drop for CqState {
    fn drop(&mut self) {
        let kept = *self.first_kept.get_mut() & !RESIZED;
        if kept != 0 {
            // SAFETY: the first ring, kept by a resize; nobody reads it any
            // more (the state goes).
            unsafe { unmap_kept(self.first, kept) };
        }
    }
}

const _: () = assert!(size_of::<CqState>() == 48);
// The slab slot (8 B header, 16 B record, then this): 360 B, rdma-core's
// rxe_cq is a 352 B malloc (issue #13's mem_cq_heap, which needs slots of
// at most 344 B to count 8 new pages for its 100 CQs, see bench/report.py).
const _: () = assert!(size_of::<RxeCq>() == 288 + 48);

/// The rxe state of a CQ of ours (control path: the record keeps it).
pub(crate) fn state(cq: &Obj) -> Result<&CqState> {
    // SAFETY: a registered record keeps its object unreleased while `cq` is
    // borrowed; only CQS fills CQS's slots.
    unsafe { CQS.get(cq.addr().as_ptr()) }
        .map(|c| &c.st)
        .ok_or(Errno::EINVAL)
}
