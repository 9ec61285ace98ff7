//! The AH commands: ibv_cmd_create_ah, ibv_cmd_destroy_ah.

use super::{drv_out, on, parts, put_resp};
use crate::abi::*;
use crate::context::generic;
use crate::entry::Result;
use crate::providers::plugin::context::with_uverbs;
use std::ffi::c_void;

pub(crate) unsafe fn create_ah(
    pd: *mut ibv_pd,
    ah: *mut ibv_ah,
    attr: *mut ibv_ah_attr,
    resp: *mut c_void,
    resp_size: usize,
) -> Result<()> {
    // SAFETY: a live object of the plugin; the caller's attributes.
    let (ctx, pdh, a) = unsafe { parts(pd, attr)? };
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
        user_handle: ah as u64,
        pd_handle: pdh,
        attr: k,
        ..Default::default()
    };
    // SAFETY: the plugin's response buffer.
    let dout = unsafe { drv_out(resp, resp_size, 4) };
    let h = with_uverbs(ctx, |u| u.create_ah(&req, &[], dout))?;
    // SAFETY: the plugin's new AH and response buffer.
    unsafe {
        (*ah).handle = h;
        (*ah).context = ctx;
        put_resp(resp, resp_size, &h);
    }
    Ok(())
}

pub(crate) unsafe fn destroy_ah(ah: *mut ibv_ah) -> Result<()> {
    // SAFETY: an object of the plugin.
    unsafe {
        on(crate::providers::plugin::call::current(), ah, |u, h| {
            u.destroy_ah(h)
        })
    }
}
