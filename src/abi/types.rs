//! Scalar and libc types that verbs.h uses by name. They are not exported by
//! cbindgen: the header refers to them and gets them from its system includes.

pub use libc::{pthread_cond_t, pthread_mutex_t, timespec};

/// Big-endian integers of `linux/types.h`; the header keeps these names.
pub type __be16 = u16;
pub type __be32 = u32;
pub type __be64 = u64;

layout!(pthread_mutex_t, 40, 8;);
layout!(pthread_cond_t, 48, 8;);
layout!(timespec, 16, 8;);
