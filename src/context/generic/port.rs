//! ibv_query_port: the QUERY_PORT ioctl (which adds port_cap_flags2), else the
//! write() command.

use crate::abi::*;
use crate::context::Context;
use crate::entry::Result;
use crate::uverbs::device::QueryPortRespEx;

pub(crate) fn query_port(ctx: &Context, port: u8, attr: &mut ibv_port_attr) -> Result<()> {
    fill(attr, &ctx.uverbs.query_port(port)?);
    Ok(())
}

/// The kernel's answer into the caller's struct (enums pass as they came).
pub(crate) fn fill(attr: &mut ibv_port_attr, r: &QueryPortRespEx) {
    let l = &r.legacy_resp;
    attr.state = ibv_port_state(l.state.into());
    attr.max_mtu = ibv_mtu(l.max_mtu.into());
    attr.active_mtu = ibv_mtu(l.active_mtu.into());
    attr.gid_tbl_len = l.gid_tbl_len as i32;
    attr.port_cap_flags = l.port_cap_flags;
    attr.max_msg_sz = l.max_msg_sz;
    attr.bad_pkey_cntr = l.bad_pkey_cntr;
    attr.qkey_viol_cntr = l.qkey_viol_cntr;
    attr.pkey_tbl_len = l.pkey_tbl_len;
    attr.lid = l.lid;
    attr.sm_lid = l.sm_lid;
    attr.lmc = l.lmc;
    attr.max_vl_num = l.max_vl_num;
    attr.sm_sl = l.sm_sl;
    attr.subnet_timeout = l.subnet_timeout;
    attr.init_type_reply = l.init_type_reply;
    attr.active_width = l.active_width;
    attr.active_speed = l.active_speed;
    attr.phys_state = l.phys_state;
    attr.link_layer = l.link_layer;
    attr.flags = l.flags;
    // Zero when it came by write(), as rdma-core leaves it.
    attr.port_cap_flags2 = r.port_cap_flags2;
    // rdma-core 64; zero by write() and from kernels before 6.7.
    attr.active_speed_ex = r.active_speed_ex;
}
