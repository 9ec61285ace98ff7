//! The exported C functions, one file per object they act on. They only check
//! and convert; the logic lives in safe modules.
#![allow(unsafe_code)]

pub mod ah;
pub mod compat;
pub mod cq;
pub mod device;
pub mod event;
pub mod fork;
pub mod kern;
pub mod pd;
pub mod qp;
pub mod query;
pub mod srq;
pub mod strings;
