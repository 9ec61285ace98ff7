//! rxe address handles. The kernel keeps the address vector and gives back an
//! index (`ah_num`) that UD send WQEs carry; kernels too old for that leave it
//! 0, and the library then builds the address vector itself for every WQE.

use super::wqe::{Av, GlobalRoute};
use crate::abi::*;
use crate::context::generic::{eth_l2, gid, pd};
use crate::context::{New, Obj};
use crate::entry::{Errno, Result};
use crate::object::CObject;
use crate::object::slab::{Pinned, Slab};
use crate::uverbs::Pod;
use crate::uverbs::ah::CreateAh;
use crate::uverbs::qp::{AhAttr, GlobalRoute as KGlobalRoute};
use crate::uverbs::rxe::CreateAhResp;

/// An rxe AH: the C struct, then what a UD send needs to address it, in one
/// slab slot (rdma-core's `struct rxe_ah`).
#[repr(C)]
pub(crate) struct RxeAh {
    pub c: ibv_ah,
    /// The kernel's AH index; 0 on old kernels.
    pub ah_num: u32,
    /// The address vector, built only when `ah_num` is 0.
    pub av: Option<Av>,
}

// SAFETY: plain data (the pointers in the C struct are addresses only).
#[allow(unsafe_code)]
unsafe impl Send for RxeAh {}
// SAFETY: as above; nothing changes after creation.
#[allow(unsafe_code)]
unsafe impl Sync for RxeAh {}

static AHS: Slab<RxeAh> = Slab::new();

/// The data path's check of an AH pointer inside a UD work request.
#[inline]
pub(crate) fn pin(p: *const ibv_ah) -> Option<Pinned<RxeAh>> {
    AHS.pin(p.cast())
}

pub(super) fn kernel_attr(a: &ibv_ah_attr) -> AhAttr {
    AhAttr {
        grh: KGlobalRoute {
            dgid: gid::raw(&a.grh.dgid),
            flow_label: a.grh.flow_label,
            sgid_index: a.grh.sgid_index,
            hop_limit: a.grh.hop_limit,
            traffic_class: a.grh.traffic_class,
            reserved: 0,
        },
        dlid: a.dlid,
        sl: a.sl,
        src_path_bits: a.src_path_bits,
        static_rate: a.static_rate,
        is_global: a.is_global,
        port_num: a.port_num,
        reserved: 0,
    }
}

/// The address vector of `attr` (old kernels): source GID from the table,
/// destination MAC from the neighbour tables.
fn make_av(pd: &Obj, attr: &ibv_ah_attr) -> Result<Av> {
    let ctx = &pd.ctx;
    let sgid = gid::query_gid(ctx, attr.port_num.into(), attr.grh.sgid_index.into())?;
    let grh = GlobalRoute {
        dgid: gid::raw(&attr.grh.dgid),
        flow_label: attr.grh.flow_label,
        sgid_index: attr.grh.sgid_index,
        hop_limit: attr.grh.hop_limit,
        traffic_class: attr.grh.traffic_class,
        pad: 0,
    };
    let l2 = eth_l2::resolve_eth_l2_from_gid(ctx, attr, false);
    if l2.ret != 0 {
        return Err(l2.errno.unwrap_or(Errno::EINVAL));
    }
    let mut dmac = [0u8; 6];
    dmac[..l2.mac.len()].copy_from_slice(&l2.mac);
    Ok(Av::new(attr.port_num, grh, sgid, dmac))
}

/// CREATE_AH, keeping the kernel's AH index.
pub(crate) fn create(pd: &Obj, attr: &ibv_ah_attr) -> Result<New> {
    let ctx = &pd.ctx;
    let req = CreateAh {
        pd_handle: pd::handle(pd),
        attr: kernel_attr(attr),
        ..Default::default()
    };
    let mut resp = CreateAhResp::default();
    let handle = ctx.uverbs.create_ah(&req, &[], resp.as_bytes_mut())?;
    let av = if resp.ah_num == 0 {
        match make_av(pd, attr) {
            Ok(av) => Some(av),
            Err(e) => {
                let _ = ctx.uverbs.destroy_ah(handle);
                return Err(e);
            }
        }
    } else {
        None
    };
    let c = ibv_ah {
        context: ctx.c_ptr(),
        pd: pd.c::<ibv_pd>(),
        handle,
    };
    Ok(AHS.vacant().fill(RxeAh {
        c,
        ah_num: resp.ah_num,
        av,
    }))
}

/// DESTROY_AH.
pub(crate) fn destroy(ah: &Obj) -> Result<()> {
    ah.ctx.uverbs.destroy_ah(ah.read_c(|c: &ibv_ah| c.handle))
}
