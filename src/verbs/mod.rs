//! The exported C functions, one file per object they act on. They only check
//! and convert; the logic lives in safe modules.
//!
//! # Safety
//! Each function's contract is its libibverbs man page: non-NULL pointers must
//! be valid for what the verb reads or writes. NULL and pointers to objects
//! that are not (or no longer) ours are checked and give EINVAL.
#![allow(unsafe_code)]
#![allow(clippy::missing_safety_doc)]

pub mod ah;
pub mod buf;
pub mod compat;
pub mod cq;
pub mod device;
pub mod dm_export;
pub mod dmah;
/// cbindgen:ignore
pub mod driver;
pub mod event;
pub mod fork;
pub mod kern;
pub mod mr_ex;
pub mod mw;
pub mod pd;
pub mod port_speed;
pub mod qp;
pub mod query;
pub mod srq;
pub mod strings;
pub mod vctx;
