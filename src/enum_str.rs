//! The names libibverbs gives enum values (ibv_*_str). Values are the C enums'
//! integers; anything outside a table is "unknown".
use std::ffi::CStr;

const UNKNOWN: &CStr = c"unknown";

fn lookup(table: &[&'static CStr], first: i64, value: i64) -> &'static CStr {
    usize::try_from(value - first)
        .ok()
        .and_then(|i| table.get(i).copied())
        .unwrap_or(UNKNOWN)
}

/// enum ibv_node_type starts at IBV_NODE_CA = 1.
pub(crate) fn node_type(v: i32) -> &'static CStr {
    const T: &[&CStr] = &[
        c"InfiniBand channel adapter",
        c"InfiniBand switch",
        c"InfiniBand router",
        c"iWARP NIC",
        c"usNIC",
        c"usNIC UDP",
        c"unspecified",
    ];
    lookup(T, 1, v.into())
}

pub(crate) fn port_state(v: u32) -> &'static CStr {
    const T: &[&CStr] = &[
        c"no state change (NOP)",
        c"down",
        c"init",
        c"armed",
        c"active",
        c"active defer",
    ];
    lookup(T, 0, v.into())
}

pub(crate) fn event_type(v: u32) -> &'static CStr {
    const T: &[&CStr] = &[
        c"CQ error",
        c"local work queue catastrophic error",
        c"invalid request local work queue error",
        c"local access violation work queue error",
        c"communication established",
        c"send queue drained",
        c"path migrated",
        c"path migration request error",
        c"local catastrophic error",
        c"port active",
        c"port error",
        c"LID change",
        c"P_Key change",
        c"SM change",
        c"SRQ catastrophic error",
        c"SRQ limit reached",
        c"last WQE reached",
        c"client reregistration",
        c"GID table change",
        c"WQ fatal",
        // rdma-core 64; 44 said "unknown" (a 44 library never saw the event).
        c"Device link speed change",
    ];
    lookup(T, 0, v.into())
}

/// enum ibv_wr_opcode (rdma-core 64's ibv_wr_opcode_str). 12 and 13 have no
/// opcode: rdma-core's table returns NULL there, we say "unknown".
pub(crate) fn wr_opcode(v: u32) -> &'static CStr {
    const T: &[&CStr] = &[
        c"rdma-write",
        c"rdma-write-with-imm",
        c"send",
        c"send-with-imm",
        c"rdma-read",
        c"atomic-cmp-and-swp",
        c"atomic-fetch-and-add",
        c"local-inv",
        c"bind-mw",
        c"send-with-inv",
        c"tso",
        c"driver1",
        UNKNOWN,
        UNKNOWN,
        c"flush",
        c"atomic-write",
    ];
    lookup(T, 0, v.into())
}

pub(crate) fn wc_status(v: u32) -> &'static CStr {
    const T: &[&CStr] = &[
        c"success",
        c"local length error",
        c"local QP operation error",
        c"local EE context operation error",
        c"local protection error",
        c"Work Request Flushed Error",
        c"memory management operation error",
        c"bad response error",
        c"local access error",
        c"remote invalid request error",
        c"remote access error",
        c"remote operation error",
        c"transport retry counter exceeded",
        c"RNR retry counter exceeded",
        c"local RDD violation error",
        c"remote invalid RD request",
        c"aborted error",
        c"invalid EE context number",
        c"invalid EE context state",
        c"fatal error",
        c"response timeout error",
        c"general error",
        c"TM error",
        c"TM software rendezvous",
    ];
    lookup(T, 0, v.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_and_outside() {
        assert_eq!(node_type(1), c"InfiniBand channel adapter");
        assert_eq!(node_type(7), c"unspecified");
        assert_eq!(node_type(0), UNKNOWN);
        assert_eq!(node_type(-1), UNKNOWN);
        assert_eq!(port_state(5), c"active defer");
        assert_eq!(port_state(6), UNKNOWN);
        assert_eq!(event_type(19), c"WQ fatal");
        assert_eq!(event_type(u32::MAX), UNKNOWN);
        assert_eq!(wc_status(23), c"TM software rendezvous");
        assert_eq!(wc_status(24), UNKNOWN);
    }
}
