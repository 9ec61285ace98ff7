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
