//! The rxe QP object (rdma-core's `struct rxe_qp`) and its data-path check;
//! its verbs are in `qp.rs` (create, modify, query, destroy), `post.rs` and
//! `wr.rs`.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::ffi::c_int;
use std::sync::Arc;

use crate::abi::*;
use crate::context::{Context, Obj};
use crate::entry::{Errno, Result};
use crate::object::slab::{Pinned, Slab};
use crate::providers::rxe::lock::SpinLock;
use crate::providers::rxe::queue::ProducerQueue;

/// An rxe QP: the C struct C holds (`ibv_qp` at the head of an `ibv_qp_ex`),
/// then the provider's state, in one slab slot (rdma-core's `struct rxe_qp`).
#[repr(C)]
pub(crate) struct RxeQp {
    /// Written by the core (`state`, event counters) while C reads it.
    pub c: UnsafeCell<ibv_qp_ex>,
    pub st: QpState,
}

// SAFETY: the C struct is plain data written under the rules above; the
// state is Sync on its own.
unsafe impl Sync for RxeQp {}
// SAFETY: as above.
unsafe impl Send for RxeQp {}

pub(in crate::providers::rxe) static QPS: Slab<RxeQp> = Slab::new();

/// The data path's check of C's QP pointer (see `crate::object::slab`).
#[inline]
pub(crate) fn pin(p: *const ibv_qp) -> Option<Pinned<RxeQp>> {
    QPS.pin(p.cast())
}

impl RxeQp {
    /// `qp->state` as the core keeps it in the C struct.
    #[inline]
    pub(crate) fn c_state(&self) -> ibv_qp_state {
        // SAFETY: a read of a plain field of our C struct (C10-97.2.1 check);
        // the core's writes race with it as in rdma-core.
        unsafe { (*self.c.get()).qp_base.state }
    }
}

/// The send queue's state under its lock.
pub(crate) struct SqInner {
    pub queue: ProducerQueue,
    /// The send sequence number the next WQE gets.
    pub ssn: u32,
    /// `ibv_wr_*` batch: the slot the next builder fills.
    pub cur: u32,
    /// `ibv_wr_*` batch: the first error, returned by `ibv_wr_complete`.
    pub err: c_int,
}

/// The send queue: its ring and batch state under one spin lock (held from
/// `ibv_wr_start` to `ibv_wr_complete`/`ibv_wr_abort`), and its limits.
pub(crate) struct Sq {
    pub lock: SpinLock<SqInner>,
    pub max_sge: u32,
    pub max_inline: u32,
}

/// A receive queue: its ring under its own lock.
pub(crate) struct Rq {
    pub queue: SpinLock<ProducerQueue>,
    /// rxe's limit is 32: a u16 (saturated) packs with `present` in 3 bytes,
    /// so the RQ is 24 bytes (lock word, 16 B ring, these).
    pub max_sge: u16,
    /// A niche for `Option<Rq>` (the lock's cell hides the ring's): 4 bytes
    /// less per QP.
    #[allow(dead_code)]
    pub present: Present,
}

/// A byte with one valid value (see `Rq::present`).
#[repr(u8)]
#[derive(Clone, Copy)]
pub(crate) enum Present {
    Yes = 1,
}

/// rdma-core's `struct rxe_qp` beyond the C struct: 80 bytes (the rings are
/// 4-aligned, so each lock word and the queues' 4-byte fields pack with no
/// padding: send queue 40, receive queue 24).
pub(crate) struct QpState {
    /// The context (the doorbell's command fd).
    pub ctx: Arc<Context>,
    pub handle: u32,
    /// The `ibv_qp_type` (all fit a byte: `qp_type()`).
    pub qp_type: u8,
    pub sq: Sq,
    /// None when the QP receives through an SRQ.
    pub rq: Option<Rq>,
    /// Created with ibv_create_qp_ex (`ibv_qp_to_qp_ex` gives its view).
    pub ex: bool,
    // Not held: the QP's CQs and SRQ (the kernel refuses to destroy them
    // while the QP uses them, EBUSY).
}

impl QpState {
    #[inline(always)]
    pub(crate) fn qp_type(&self) -> ibv_qp_type {
        ibv_qp_type(u32::from(self.qp_type))
    }
}

const _: () = assert!(size_of::<Sq>() == 40 && size_of::<Option<Rq>>() == 24);
const _: () = assert!(size_of::<QpState>() == 80);
// The slab slot (8 B header, 16 B record, then this): 464 B, rdma-core's
// rxe_qp is a 490 B malloc (the mem_qp_heap bench row, which counts whole
// pages of slots: see bench/report.py).
const _: () = assert!(size_of::<RxeQp>() == 360 + 80);

/// The rxe object of a QP of ours (control path: the record keeps it).
pub(crate) fn of(qp: &Obj) -> Result<&RxeQp> {
    // SAFETY: a registered record keeps its object unreleased while `qp` is
    // borrowed; only QPS fills QPS's slots.
    unsafe { QPS.get(qp.addr().as_ptr()) }.ok_or(Errno::EINVAL)
}

pub(crate) fn state(qp: &Obj) -> Result<&QpState> {
    of(qp).map(|q| &q.st)
}
