//! What every uverbs provider does the same way: the context-level verbs
//! (device/port/GID/P_Key queries, async events, completion channels) and the
//! control-path objects (PD, MR, MW, multicast, AH attributes from
//! completions): the kernel command plus the C struct rdma-core fills.
//! The verbs layer calls the library's own verbs here directly (GID and
//! P_Key tables, async events, completion channels, AH attributes from a
//! completion): they are no provider op. Providers build their `ContextOps`
//! from the rest.

pub(crate) mod ah_wc;
pub(crate) mod async_event;
pub(crate) mod buf;
pub(crate) mod channel;
pub(crate) mod device;
pub(crate) mod eth_l2;
pub(crate) mod gid;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mr_ex;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod pkey;
pub(crate) mod port;
pub(crate) mod qp_attr;
