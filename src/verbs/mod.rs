//! The exported C functions, one file per object they act on. They only check
//! and convert; the logic lives in safe modules.
//!
//! # Safety
//! Each function's contract is its libibverbs man page: non-NULL pointers must
//! be valid for what the verb reads or writes. NULL and pointers to objects
//! that are not (or no longer) ours are checked and give EINVAL.
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

pub(crate) mod ah;
pub(crate) mod buf;
pub(crate) mod comp_cntr;
pub(crate) mod compat;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod dm;
pub(crate) mod dm_export;
/// cbindgen:ignore
pub(crate) mod dmabuf_heap;
pub(crate) mod dmah;
/// cbindgen:ignore
pub(crate) mod driver;
/// cbindgen:ignore
pub(crate) mod driver65;
pub(crate) mod event;
pub(crate) mod fork;
pub(crate) mod kern;
pub(crate) mod mr_ex;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod port_speed;
pub(crate) mod qp;
pub(crate) mod query;
pub(crate) mod srq;
pub(crate) mod strings;
pub(crate) mod vctx;
