//! rdma-core's private provider ABI: the structs and entry points its C
//! provider plugins (`lib<name>-rdmav<N>.so`) are built against. Each
//! version of that ABI is a module of its own (`v34` is rdma-core 34..56's
//! `IBVERBS_PRIVATE_34`, whose structs did not change while it gained
//! functions: where a call changed within it, `providers/plugin/release`
//! tells the releases apart); a later one adds a module beside it, and the
//! host (`providers/plugin`) picks the one a plugin registered with. Not
//! part of verbs.h.

pub mod v34;

/// `VERBS_MATCH_*`: how a `verbs_match_ent` names the devices it drives.
pub const VERBS_MATCH_SENTINEL: u8 = 0;
pub const VERBS_MATCH_PCI: u8 = 1;
pub const VERBS_MATCH_MODALIAS: u8 = 2;
pub const VERBS_MATCH_DRIVER_ID: u8 = 3;

/// `VSYSFS_READ_*`: which lazily read fields of `verbs_sysfs_dev` are valid.
pub const VSYSFS_READ_MODALIAS: u32 = 1 << 0;
pub const VSYSFS_READ_NODE_GUID: u32 = 1 << 1;

/// `VERBS_LOG_*` levels of `__verbs_log`.
pub const VERBS_LOG_ERR: u32 = 1;
pub const VERBS_LOG_WARN: u32 = 2;
pub const VERBS_LOG_INFO: u32 = 3;
pub const VERBS_LOG_DEBUG: u32 = 4;
