//! fork() protection of registered memory.
#![allow(unsafe_code)]

use crate::abi::ibv_fork_status;
use crate::entry::ret_errno;
use crate::fork::{self, Advice};
use std::ffi::{c_int, c_void};

#[unsafe(no_mangle)]
#[entry(value(libc::EIO))]
pub extern "C" fn ibv_fork_init() -> c_int {
    ret_errno(fork::init(crate::netlink::copy_on_fork))
}

#[unsafe(no_mangle)]
#[entry(value(ibv_fork_status(0)))]
pub extern "C" fn ibv_is_fork_initialized() -> ibv_fork_status {
    ibv_fork_status(fork::status(crate::netlink::copy_on_fork()) as u32)
}

/// Not in verbs.h; providers and librdmacm-era code call it.
#[unsafe(no_mangle)]
#[entry(minus_one)]
pub extern "C" fn ibv_dontfork_range(base: *mut c_void, size: usize) -> c_int {
    fork::range(base as usize, size, Advice::DontFork).map(|()| 0)
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub extern "C" fn ibv_dofork_range(base: *mut c_void, size: usize) -> c_int {
    fork::range(base as usize, size, Advice::DoFork).map(|()| 0)
}
