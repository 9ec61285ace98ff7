//! Address handles, and building their attributes from a received completion.

use crate::abi::*;
use crate::context::generic::{ah_wc, eth_l2};
use crate::context::{Context, Obj, ObjRef};
use crate::entry::{Errno, arg_mut, arg_ref, set_errno};
use crate::object;
use std::ffi::c_int;

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_ah(pd: *mut ibv_pd, attr: *mut ibv_ah_attr) -> *mut ibv_ah {
    let pd: ObjRef = object::get(pd)?;
    // SAFETY: the caller's input.
    let attr = unsafe { arg_ref(attr)? };
    let new = pd.ctx.ops.create_ah(&pd, attr)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

#[unsafe(no_mangle)]
#[entry(errno)]
pub unsafe extern "C" fn ibv_destroy_ah(ah: *mut ibv_ah) -> c_int {
    object::take_if(ah, |a: &Obj| a.ctx.ops.destroy_ah(a)).map(drop)
}

#[unsafe(no_mangle)]
#[entry(minus_one)]
pub unsafe extern "C" fn ibv_init_ah_from_wc(
    context: *mut ibv_context,
    port_num: u8,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    ah_attr: *mut ibv_ah_attr,
) -> c_int {
    // SAFETY: the caller's completion and out-parameter; a non-NULL grh
    // points to the 40-byte GRH area of the receive buffer.
    let (wc, attr, grh) = unsafe { (arg_ref(wc)?, arg_mut(ah_attr)?, grh.as_ref()) };
    // Without a GRH rdma-core never reads the context: neither do we.
    if wc.wc_flags & IBV_WC_GRH == 0 {
        return ah_wc::init_ah_fields(port_num, wc, grh, attr).map(|()| 0);
    }
    let ctx = object::lookup::<Context>(context)?;
    ah_wc::init_ah_from_wc(&ctx, port_num, wc, grh, attr).map(|()| 0)
}

#[unsafe(no_mangle)]
#[entry(ptr)]
pub unsafe extern "C" fn ibv_create_ah_from_wc(
    pd: *mut ibv_pd,
    wc: *mut ibv_wc,
    grh: *mut ibv_grh,
    port_num: u8,
) -> *mut ibv_ah {
    let pd: ObjRef = object::get(pd)?;
    // SAFETY: the caller's completion and its GRH area (as above).
    let (wc, grh) = unsafe { (arg_ref(wc)?, grh.as_ref()) };
    // SAFETY: plain C data; all-zero is valid.
    let mut attr: ibv_ah_attr = unsafe { std::mem::zeroed() };
    ah_wc::init_ah_from_wc(&pd.ctx, port_num, wc, grh, &mut attr)?;
    let new = pd.ctx.ops.create_ah(&pd, &attr)?;
    Ok(object::adopt(pd.ctx.clone(), new))
}

#[unsafe(no_mangle)]
#[entry(value(-libc::EIO))]
pub unsafe extern "C" fn ibv_resolve_eth_l2_from_gid(
    context: *mut ibv_context,
    attr: *mut ibv_ah_attr,
    eth_mac: *mut u8,
    vid: *mut u16,
) -> c_int {
    let r = (|| {
        let ctx = object::lookup::<Context>(context)?;
        // SAFETY: the caller's input and out-parameters (a 6-byte MAC buffer;
        // the VLAN id is optional, as in rdma-core).
        let (attr, mac, vid) = unsafe {
            (
                arg_ref(attr)?,
                arg_mut(eth_mac.cast::<[u8; 6]>())?,
                vid.as_mut(),
            )
        };
        let l2 = eth_l2::resolve_eth_l2_from_gid(&ctx, attr, vid.is_some());
        if let (Some(v), Some(out)) = (l2.vid, vid) {
            *out = v;
        }
        if l2.ret == 0 {
            mac[..l2.mac.len()].copy_from_slice(&l2.mac);
        }
        if let Some(e) = l2.errno {
            set_errno(e);
        }
        Ok(l2.ret)
    })();
    r.unwrap_or_else(|e: Errno| {
        set_errno(e);
        -1
    })
}
