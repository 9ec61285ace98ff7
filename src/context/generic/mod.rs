//! What every uverbs provider does the same way: the context-level verbs
//! (device/port/GID/P_Key queries, async events, completion channels) and the
//! control-path objects (PD, MR, MW, multicast, AH attributes from
//! completions): the kernel command plus the C struct rdma-core fills.
//! Providers call these from their `ContextOps`; the verbs layer calls the
//! provider-independent parts.

pub(crate) mod ah_wc;
pub(crate) mod async_event;
pub(crate) mod channel;
pub(crate) mod device;
pub(crate) mod eth_l2;
pub(crate) mod gid;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod pkey;
pub(crate) mod port;
pub(crate) mod qp_attr;
