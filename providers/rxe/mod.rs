//! rxe (Soft-RoCE): the kernel exports each CQ, QP and SRQ as a ring buffer the
//! library mmaps from the uverbs fd; work requests and completions are written
//! and read there directly, the kernel is only rung as a doorbell.

pub(crate) mod mmap;
pub(crate) mod queue;
pub(crate) mod wqe;

pub(crate) mod ah;
mod context;
mod cq;
#[doc(hidden)]
pub(crate) mod fuzz_hooks;
mod lock;
mod obj;
mod poll;
mod post;
mod provider;
mod qp;
mod srq;
mod wr;

pub(crate) use provider::RXE;
