//! An opened device (ibv_context) and the objects created in it.
//!
//! The C view is `struct verbs_context`, whose last member is the
//! `struct ibv_context` C code holds: inline functions in verbs.h reach the
//! extended ops through negative offsets from it.
#![allow(unsafe_code)]

mod close;
pub(crate) mod dummy;
pub(crate) mod generic;
mod lib_slots;
mod open;
mod ops;
mod stable;

pub(crate) use crate::object::events;
pub(crate) use crate::object::{EventCounts, New};
pub(crate) use close::close;
pub(crate) use lib_slots::{fill_lib_slots, register_lib_slots};
pub(crate) use open::{open, open_hosted};
pub(crate) use ops::ContextOps;

/// The registry's record of an object of a context (see `crate::object`).
pub(crate) type Obj = crate::object::Obj<Context>;
/// A counted reference to a registry record ([`crate::object::get`]).
pub(crate) type ObjRef = crate::object::Ref<Context>;

use crate::abi::ibv_context;
use crate::device::Device;
use crate::object::CObject;
use crate::uverbs::Uverbs;
use std::os::fd::OwnedFd;
use std::sync::Arc;

pub(crate) struct Context {
    /// The verbs_context C holds.
    c: CCtx,
    pub device: Arc<Device>,
    /// The command fd (`ibv_context::cmd_fd`).
    pub uverbs: Uverbs,
    /// Where the kernel reports async events (`ibv_context::async_fd`).
    pub async_fd: OwnedFd,
    /// The provider's half of the context.
    pub ops: Box<dyn ContextOps>,
}

/// Where a context's verbs_context lives.
enum CCtx {
    /// A Rust provider's, in type-stable memory: C may read it after the close.
    Ours(stable::CBlock),
    /// A hosted C plugin's: inside the plugin's own allocation (rdma-core
    /// 44's layout), which lives until the context is closed; it costs no
    /// block of ours.
    Hosted(std::ptr::NonNull<crate::driver_abi::v34::verbs_context>),
}

// SAFETY: the C struct is filled before publication; afterwards only the
// provider writes to it, under its own locks, and C reads it.
unsafe impl Sync for Context {}
// SAFETY: as above.
unsafe impl Send for Context {}
// SAFETY: the library's one owner of registry records.
unsafe impl crate::object::RecordOwner for Context {}

impl CObject for Context {
    type C = ibv_context;
    fn c_ptr(&self) -> *mut ibv_context {
        match &self.c {
            // SAFETY: a field projection inside the hosted plugin's context,
            // which lives until the context is closed.
            CCtx::Hosted(p) => unsafe { &raw mut (*p.as_ptr()).context },
            // SAFETY: a field projection inside our own allocation.
            CCtx::Ours(b) => unsafe { &raw mut (*b.get()).context },
        }
    }
}

impl Context {}
