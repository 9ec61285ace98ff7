//! Multicast attachment: the kernel's ATTACH_MCAST / DETACH_MCAST. The kernel
//! itself refuses (EBUSY) to destroy a QP that is still attached.

use super::{gid::raw, read_c};
use crate::abi::*;
use crate::context::Qp;
use crate::entry::Result;

pub fn attach(qp: &Qp, gid: &ibv_gid, lid: u16) -> Result<()> {
    qp.ctx.uverbs.attach_mcast(read_c(qp).handle, raw(gid), lid)
}

pub fn detach(qp: &Qp, gid: &ibv_gid, lid: u16) -> Result<()> {
    qp.ctx.uverbs.detach_mcast(read_c(qp).handle, raw(gid), lid)
}
