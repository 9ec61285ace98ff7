//! The AH commands: ibv_cmd_create_ah, ibv_cmd_destroy_ah.

use super::{Bufs, Live, on};
use crate::abi::*;
use crate::context::generic;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;

pub(crate) fn create_ah(
    pd: Live<ibv_pd>,
    ah: &mut ibv_ah,
    a: &mut ibv_ah_attr,
    mut b: Bufs,
) -> Result<()> {
    let (ctx, pdh) = pd.parts();
    let d = generic::qp_attr::dest(a);
    let k = crate::uverbs::qp::AhAttr {
        grh: crate::uverbs::qp::GlobalRoute {
            dgid: d.dgid,
            flow_label: d.flow_label,
            sgid_index: d.sgid_index,
            hop_limit: d.hop_limit,
            traffic_class: d.traffic_class,
            reserved: 0,
        },
        dlid: d.dlid,
        sl: d.sl,
        src_path_bits: d.src_path_bits,
        static_rate: d.static_rate,
        is_global: d.is_global,
        port_num: d.port_num,
        reserved: 0,
    };
    let req = crate::uverbs::ah::CreateAh {
        user_handle: std::ptr::from_mut(ah) as u64,
        pd_handle: pdh,
        attr: k,
        ..Default::default()
    };
    let (_, dout) = b.split(0, 4);
    let h = with_uverbs(ctx, |u| u.create_ah(&req, &[], dout))?;
    ah.handle = h;
    ah.context = ctx;
    b.put(&h);
    Ok(())
}

pub(crate) fn destroy_ah(ah: Live<ibv_ah>) -> Result<()> {
    on(crate::providers::plugin::call::current(), ah, |u, h| {
        u.destroy_ah(h)
    })
}
