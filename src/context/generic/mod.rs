//! What every uverbs provider does the same way for the context-level verbs
//! (queries, GIDs, P_Keys, async events, completion channels). Providers call
//! these from their `ContextOps` methods.

pub mod async_event;
pub mod channel;
pub mod device;
pub mod gid;
pub mod pkey;
pub mod port;
