//! What every uverbs provider does the same way: the context-level verbs
//! (device/port/GID/P_Key queries, async events, completion channels) and the
//! control-path objects (PD, MR, MW, multicast, AH attributes from
//! completions): the kernel command plus the C struct rdma-core fills.
//! Providers call these from their `ContextOps`; the verbs layer calls the
//! provider-independent parts.

pub mod ah_wc;
pub mod async_event;
pub mod channel;
pub mod device;
pub mod eth_l2;
pub mod gid;
pub mod mcast;
pub mod mr;
pub mod mw;
pub mod pd;
pub mod pkey;
pub mod port;
pub mod qp_attr;

use crate::object::CObject;

/// A copy of an object's C struct as it is now.
pub fn read_c<T: CObject>(o: &T) -> T::C
where
    T::C: Copy,
{
    // SAFETY: c_ptr points into `o`, alive and aligned while we hold it. C may
    // write the struct concurrently only where rdma-core's own code would race
    // the same way (fields the application owns, e.g. a bound MW's rkey).
    #[allow(unsafe_code)]
    unsafe {
        o.c_ptr().read()
    }
}

/// Changes an object's C struct in place (the fields a verb updates, e.g.
/// ibv_rereg_mr's addr/length/pd). Callers serialize their own updates.
pub fn update_c<T: CObject>(o: &T, f: impl FnOnce(&mut T::C)) {
    // SAFETY: as in read_c; the mutable reference lives only for `f`, and no
    // other Rust reference to the C struct exists (we only ever copy it).
    #[allow(unsafe_code)]
    unsafe {
        f(&mut *o.c_ptr())
    }
}
