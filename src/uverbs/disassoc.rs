//! Destroys on a disassociated device. After a hot unplug the kernel answers
//! every destroy with EIO; rdma-core (`verbs_is_destroy_err`) then counts the
//! destroy as done, and the provider frees its user-space object, when the
//! application set RDMAV_ALLOW_DISASSOC_DESTROY. Otherwise the EIO is returned
//! and the object stays.

use crate::entry::{Errno, Result};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by rdma-core from RDMAV_ALLOW_DISASSOC_DESTROY; C providers read it.
// Exported under rdma-core's name (IBVERBS_PRIVATE_34), which C providers read.
#[allow(unsafe_code, non_upper_case_globals)]
#[unsafe(no_mangle)]
pub(crate) static verbs_allow_disassociate_destroy: AtomicBool = AtomicBool::new(false);

/// A destroy command's result: EIO is success when the flag allows it, with
/// an empty response (no events reported, so nothing is waited for, as in
/// rdma-core, which skips that wait).
pub(crate) fn destroy_result<T: Default>(r: Result<T>) -> Result<T> {
    match r {
        Err(Errno::EIO) if verbs_allow_disassociate_destroy.load(Ordering::Relaxed) => {
            Ok(T::default())
        }
        r => r,
    }
}
