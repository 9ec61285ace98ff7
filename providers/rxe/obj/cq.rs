//! The rxe CQ object (rdma-core's `struct rxe_cq`) and its data-path check;
//! its verbs are in `cq.rs` (create, resize, destroy) and `poll.rs`.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;

use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::abi::*;
use crate::context::Obj;
use crate::entry::{Errno, Result};
use crate::object::slab::{Pinned, Slab};
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

pub(in crate::providers::rxe) static CQS: Slab<RxeCq> = Slab::new();

/// The data path's check of C's CQ pointer (see `crate::object::slab`).
#[inline]
pub(crate) fn pin(p: *const ibv_cq) -> Option<Pinned<RxeCq>> {
    CQS.pin(p.cast())
}

/// The ring and the `ibv_start_poll` cursor, under the CQ's lock.
pub(crate) struct CqInner {
    pub queue: ConsumerQueue,
    /// The completion `ibv_start_poll`/`ibv_next_poll` stand on, and in
    /// [`SHOWN`] whether the batch showed it (not after a `next_poll` that
    /// found none: `end_poll` then consumes nothing more). A ring's indices
    /// are below 2^31 (its span is below 2^36 bytes, its slots 32 B or more).
    cur: u32,
}

const SHOWN: u32 = 1 << 31;

impl CqInner {
    pub(crate) fn new(queue: ConsumerQueue) -> CqInner {
        CqInner { queue, cur: 0 }
    }

    /// The completion the batch stands on.
    #[inline]
    pub(crate) fn cur(&self) -> u32 {
        self.cur & !SHOWN
    }

    /// Whether the batch showed `cur`.
    #[inline]
    pub(crate) fn shown(&self) -> bool {
        self.cur & SHOWN != 0
    }

    #[inline]
    pub(crate) fn set(&mut self, cur: u32, shown: bool) {
        self.cur = cur & !SHOWN | if shown { SHOWN } else { 0 };
    }
}

/// rdma-core's `struct rxe_cq` beyond the C struct: 32 bytes (the handle
/// and the comp channel are the C struct's, as in rdma-core).
pub(crate) struct CqState {
    /// Under the CQ's lock (poll, resize); held by the polling thread from
    /// `ibv_start_poll` to `ibv_end_poll`, also after a `next_poll` that found
    /// nothing (rdma-core PR #1617), as a batch of that thread.
    pub lock: SpinLock<CqInner>,
    /// The index words of the ring the CQ was created with, for polls that
    /// find it empty without the lock; NULL once a resize began (polls
    /// then take the lock). The ring stays mapped as long as this state
    /// lives: the queue's, or kept in [`KEPT`] once a resize replaced it.
    first: AtomicPtr<u8>,
}

/// A first ring a resize replaced, kept mapped until its CQ's state goes
/// (lock-free readers may still look at it); `span` is 0 while the resize
/// has not yet replaced it (`ConsumerQueue::keep_mapped` once it has).
struct Kept {
    cq: usize,
    words: IndexWords,
    span: u32,
}

// SAFETY: an address, a ring's index words (a pointer into a mapping only
// read atomically) and a number.
unsafe impl Send for Kept {}

/// The first rings of resized CQs (resizes are rare: a short list).
static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

fn kept() -> std::sync::MutexGuard<'static, Vec<Kept>> {
    KEPT.lock().unwrap_or_else(|p| p.into_inner())
}

impl CqState {
    pub(crate) fn new(queue: ConsumerQueue) -> CqState {
        CqState {
            first: AtomicPtr::new(queue.index_words().as_ptr()),
            lock: SpinLock::new(CqInner::new(queue)),
        }
    }

    /// True if the CQ had no completion at some instant during the call,
    /// found without the lock; false means "take the lock and look".
    #[inline]
    pub(crate) fn seen_empty(&self) -> bool {
        let Some(first) = NonNull::new(self.first.load(Ordering::Acquire)) else {
            return false;
        };
        // SAFETY: the first ring stays mapped while `self` lives (see `first`).
        unsafe { IndexWords::from_ptr(first).is_empty() }
    }

    /// A resize, under the CQ's lock, is about to replace the ring: from
    /// now on polls take the lock.
    pub(crate) fn resizing(&self) {
        let first = self.first.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if let Some(first) = NonNull::new(first) {
            kept().push(Kept {
                cq: std::ptr::from_ref(self).addr(),
                words: IndexWords::from_ptr(first),
                span: 0,
            });
        }
    }

    /// A resize (under the CQ's lock) replaced the ring by a new one: keeps
    /// `old` mapped if it is the first ring, else unmaps it.
    pub(crate) fn replaced(&self, old: ConsumerQueue) {
        let me = std::ptr::from_ref(self).addr();
        let mut k = kept();
        match k.iter_mut().find(|e| e.cq == me && e.span == 0) {
            Some(e) => e.span = old.keep_mapped(),
            None => {
                drop(k);
                drop(old);
            }
        }
    }
}

impl Drop for CqState {
    fn drop(&mut self) {
        if !self.first.get_mut().is_null() {
            return;
        }
        let me = std::ptr::from_ref(self).addr();
        let mut k = kept();
        if let Some(i) = k.iter().position(|e| e.cq == me) {
            let e = k.swap_remove(i);
            drop(k);
            if e.span != 0 {
                // SAFETY: the first ring, kept by a resize; nobody reads it
                // any more (the state goes).
                unsafe { unmap_kept(e.words, e.span) };
            }
        }
    }
}

const _: () = assert!(size_of::<CqState>() == 32);
// The slab slot (8 B header, 16 B record, then this): 344 B, rdma-core's
// rxe_cq is a 352 B malloc (the mem_cq_heap bench row, which needs slots of
// at most 344 B to count 8 new pages for its 100 CQs, see bench/report.py).
const _: () = assert!(size_of::<RxeCq>() == 288 + 32);

/// The kernel handle of a CQ of ours (the C struct's, as in rdma-core: the
/// kernel checks it is one of this context's).
pub(crate) fn handle(cq: &Obj) -> Result<u32> {
    state(cq)?;
    Ok(cq.read_c(|c: &ibv_cq| c.handle))
}

/// The rxe state of a CQ of ours (control path: the record keeps it).
pub(crate) fn state(cq: &Obj) -> Result<&CqState> {
    // SAFETY: a registered record keeps its object unreleased while `cq` is
    // borrowed; only CQS fills CQS's slots.
    unsafe { CQS.get(cq.addr().as_ptr()) }
        .map(|c| &c.st)
        .ok_or(Errno::EINVAL)
}
