//! Multicast attachment: the kernel's ATTACH_MCAST / DETACH_MCAST. The kernel
//! itself refuses (EBUSY) to destroy a QP that is still attached.

use super::gid::raw;
use crate::abi::*;
use crate::context::Obj;
use crate::entry::Result;

fn handle(qp: &Obj) -> u32 {
    qp.read_c(|c: &ibv_qp| c.handle)
}

pub(crate) fn attach(qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
    qp.ctx.uverbs.attach_mcast(handle(qp), raw(gid), lid)
}

pub(crate) fn detach(qp: &Obj, gid: &ibv_gid, lid: u16) -> Result<()> {
    qp.ctx.uverbs.detach_mcast(handle(qp), raw(gid), lid)
}
