//! ibv_cmd_attach_mcast and ibv_cmd_detach_mcast.

use super::Live;
use crate::abi::*;
use crate::context::generic;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;

pub(crate) fn attach_mcast(qp: Live<ibv_qp>, gid: &ibv_gid, lid: u16) -> Result<()> {
    let (ctx, h) = qp.parts();
    let g = generic::gid::raw(gid);
    with_uverbs(ctx, |u| u.attach_mcast(h, g, lid))
}

pub(crate) fn detach_mcast(qp: Live<ibv_qp>, gid: &ibv_gid, lid: u16) -> Result<()> {
    let (ctx, h) = qp.parts();
    let g = generic::gid::raw(gid);
    with_uverbs(ctx, |u| u.detach_mcast(h, g, lid))
}
