//! ibv_resolve_eth_l2_from_gid: the source GID from the GID table, then the
//! kernel's routing and neighbour tables (`crate::netlink::neigh`).

use super::gid::{GID_ATTR_GID, query_gid_ex, raw};
use crate::abi::*;
use crate::context::Context;
use crate::entry::Errno;
use crate::netlink::{L2, resolve_l2};

/// What the verb returns and leaves in errno: a failed source GID query is
/// -1 with its errno; an empty source slot reads as the zero GID (which no
/// interface holds) with ENODATA left in errno.
pub(crate) fn resolve_eth_l2_from_gid(ctx: &Context, attr: &ibv_ah_attr, want_vid: bool) -> L2 {
    let q = query_gid_ex(
        ctx,
        attr.port_num.into(),
        attr.grh.sgid_index.into(),
        0,
        GID_ATTR_GID,
    );
    let (sgid, gid_errno) = match q {
        Ok(e) => (raw(&e.gid), None),
        Err(Errno(libc::ENODATA)) => ([0; 16], Some(Errno(libc::ENODATA))),
        Err(e) => {
            return L2 {
                ret: -1,
                errno: Some(e),
                mac: Vec::new(),
                vid: None,
            };
        }
    };
    resolve_l2(&sgid, &raw(&attr.grh.dgid), gid_errno, want_vid)
}
