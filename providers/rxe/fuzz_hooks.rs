//! What `crate::fuzzing` reaches in the rxe provider: its checks and
//! conversions of caller-supplied attr structs, all pure functions.

use std::ffi::c_int;

use super::{ah, cq, qp};
use crate::abi::*;
use crate::context::generic::qp_attr;
use crate::entry::Result;

pub(crate) fn cq_ex_flags(attr: &ibv_cq_init_attr_ex) -> Result<u32> {
    cq::ex_flags(attr)
}

pub(crate) fn qp_check_ex(attr: &ibv_qp_init_attr_ex) -> Result<()> {
    qp::check_ex(attr)
}

pub(crate) fn qp_legacy_mask(mask: c_int) -> Result<u32> {
    qp_attr::legacy_mask(mask)
}

/// A modify's address vector goes to the kernel and comes back from a
/// query unchanged.
pub(crate) fn qp_dest_round_trip(a: &ibv_ah_attr) {
    let b = qp_attr::ah_from(&qp_attr::dest(a));
    assert_eq!(fields(a), fields(&b));
}

/// An AH's attributes reach the kernel's struct unchanged.
pub(crate) fn ah_round_trip(a: &ibv_ah_attr) {
    let k = ah::kernel_attr(a);
    let g = &k.grh;
    let got = (
        g.dgid,
        g.flow_label,
        g.sgid_index,
        g.hop_limit,
        g.traffic_class,
        (
            k.dlid,
            k.sl,
            k.src_path_bits,
            k.static_rate,
            k.is_global,
            k.port_num,
        ),
    );
    assert_eq!(got, fields(a));
}

#[allow(clippy::type_complexity)]
fn fields(a: &ibv_ah_attr) -> ([u8; 16], u32, u8, u8, u8, (u16, u8, u8, u8, u8, u8)) {
    let g = &a.grh;
    (
        crate::context::generic::gid::raw(&g.dgid),
        g.flow_label,
        g.sgid_index,
        g.hop_limit,
        g.traffic_class,
        (
            a.dlid,
            a.sl,
            a.src_path_bits,
            a.static_rate,
            a.is_global,
            a.port_num,
        ),
    )
}
