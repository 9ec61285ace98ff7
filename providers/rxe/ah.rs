//! rxe address handles. The kernel keeps the address vector and gives back an
//! index (`ah_num`) that UD send WQEs carry; kernels too old for that leave it
//! 0, and the library then builds the address vector itself for every WQE.

use super::wqe::{Av, GlobalRoute};
use crate::abi::*;
use crate::context::generic::{eth_l2, gid, read_c};
use crate::context::{Ah, Pd};
use crate::entry::{Errno, Result};
use crate::object::CObject;
use crate::uverbs::Pod;
use crate::uverbs::ah::CreateAh;
use crate::uverbs::qp::{AhAttr, GlobalRoute as KGlobalRoute};
use crate::uverbs::rxe::CreateAhResp;
use std::sync::Arc;

/// What a UD send needs to address this AH.
#[derive(Debug)]
pub struct RxeAh {
    /// The kernel's AH index; 0 on old kernels.
    pub ah_num: u32,
    /// The address vector, built only when `ah_num` is 0.
    pub av: Option<Av>,
}

/// The rxe state of an AH created here.
pub fn rxe_ah(ah: &Ah) -> Option<&RxeAh> {
    ah.hw.downcast_ref::<RxeAh>()
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
fn make_av(pd: &Pd, attr: &ibv_ah_attr) -> Result<Av> {
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
pub fn create(pd: &Arc<Pd>, attr: &ibv_ah_attr) -> Result<Arc<Ah>> {
    let ctx = &pd.ctx;
    let req = CreateAh {
        pd_handle: read_c(&**pd).handle,
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
        pd: pd.c_ptr(),
        handle,
    };
    let hw = RxeAh {
        ah_num: resp.ah_num,
        av,
    };
    Ok(Arc::new(Ah::new(c, ctx.clone(), Box::new(hw))))
}

/// DESTROY_AH.
pub fn destroy(ah: &Ah) -> Result<()> {
    ah.ctx.uverbs.destroy_ah(read_c(ah).handle)
}
