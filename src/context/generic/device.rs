//! ibv_query_device / ibv_query_device_ex over QUERY_DEVICE and EX_QUERY_DEVICE.
#![allow(unsafe_code)]

use crate::abi::*;
use crate::context::Context;
use crate::entry::{Errno, Result};
use crate::uverbs::device::{ExQueryDeviceResp, QueryDeviceResp};
use std::mem::offset_of;

/// Fills `attr` from the kernel as far as `attr_size` (the caller's size of
/// `ibv_device_attr_ex`) reaches: the extended command when the caller wants
/// more than the base attributes (falling back to the base one on kernels
/// without it), the base command otherwise. Fields the caller's size does not
/// cover entirely, or that the kernel did not report, stay zero. `fw_ver` is
/// left to the provider, which gets the raw response in `resp` (zeroed by
/// the caller; written in place: returned, its 248 bytes were copied twice).
pub(crate) fn query_device_any(
    ctx: &Context,
    attr: &mut ibv_device_attr_ex,
    attr_size: usize,
    resp: &mut ExQueryDeviceResp,
) -> Result<()> {
    if attr_size < size_of::<ibv_device_attr>() {
        return Err(Errno::EINVAL);
    }
    *attr = zeroed_attr_ex();
    let mut base_only = attr_size == size_of::<ibv_device_attr>();
    if !base_only {
        match ctx.uverbs.query_device_ex_into(&[], &mut [], resp) {
            Ok(()) => {}
            Err(Errno::EOPNOTSUPP | Errno::ENOSYS) => base_only = true,
            Err(e) => return Err(e),
        }
    }
    if base_only {
        *resp = ExQueryDeviceResp::default();
        resp.base = ctx.uverbs.query_device(&[], &mut [])?;
        resp.response_length = size_of::<QueryDeviceResp>() as u32;
    }
    fill_base(&mut attr.orig_attr, &resp.base);
    fill_ex(attr, attr_size, resp, || num_ports(ctx));
    Ok(())
}

pub(crate) fn fill_base(a: &mut ibv_device_attr, r: &QueryDeviceResp) {
    a.node_guid = r.node_guid;
    a.sys_image_guid = r.sys_image_guid;
    a.max_mr_size = r.max_mr_size;
    a.page_size_cap = r.page_size_cap;
    a.vendor_id = r.vendor_id;
    a.vendor_part_id = r.vendor_part_id;
    a.hw_ver = r.hw_ver;
    a.max_qp = r.max_qp as i32;
    a.max_qp_wr = r.max_qp_wr as i32;
    a.device_cap_flags = r.device_cap_flags;
    a.max_sge = r.max_sge as i32;
    a.max_sge_rd = r.max_sge_rd as i32;
    a.max_cq = r.max_cq as i32;
    a.max_cqe = r.max_cqe as i32;
    a.max_mr = r.max_mr as i32;
    a.max_pd = r.max_pd as i32;
    a.max_qp_rd_atom = r.max_qp_rd_atom as i32;
    a.max_ee_rd_atom = r.max_ee_rd_atom as i32;
    a.max_res_rd_atom = r.max_res_rd_atom as i32;
    a.max_qp_init_rd_atom = r.max_qp_init_rd_atom as i32;
    a.max_ee_init_rd_atom = r.max_ee_init_rd_atom as i32;
    a.atomic_cap = ibv_atomic_cap(r.atomic_cap);
    a.max_ee = r.max_ee as i32;
    a.max_rdd = r.max_rdd as i32;
    a.max_mw = r.max_mw as i32;
    a.max_raw_ipv6_qp = r.max_raw_ipv6_qp as i32;
    a.max_raw_ethy_qp = r.max_raw_ethy_qp as i32;
    a.max_mcast_grp = r.max_mcast_grp as i32;
    a.max_mcast_qp_attach = r.max_mcast_qp_attach as i32;
    a.max_total_mcast_qp_attach = r.max_total_mcast_qp_attach as i32;
    a.max_ah = r.max_ah as i32;
    a.max_fmr = r.max_fmr as i32;
    a.max_map_per_fmr = r.max_map_per_fmr as i32;
    a.max_srq = r.max_srq as i32;
    a.max_srq_wr = r.max_srq_wr as i32;
    a.max_srq_sge = r.max_srq_sge as i32;
    a.max_pkeys = r.max_pkeys;
    a.local_ca_ack_delay = r.local_ca_ack_delay;
    a.phys_port_cnt = r.phys_port_cnt;
}

/// Whether a field ending at `attr_end` in `ibv_device_attr_ex` fits the
/// caller's size and one ending at `resp_end` in the response was reported.
fn can_copy(attr_size: usize, attr_end: usize, resp: &ExQueryDeviceResp, resp_end: usize) -> bool {
    attr_size >= attr_end && resp.response_length as usize >= resp_end
}

// Field ends, spelled out (offset + size) so the table below stays readable.
const fn end_of(off: usize, size: usize) -> usize {
    off + size
}

/// `ports` gives the port count netlink reports (0 if none), asked only
/// when the caller's struct has room for `phys_port_cnt_ex`.
pub(crate) fn fill_ex(
    a: &mut ibv_device_attr_ex,
    attr_size: usize,
    r: &ExQueryDeviceResp,
    ports: impl FnOnce() -> u32,
) {
    type A = ibv_device_attr_ex;
    type R = ExQueryDeviceResp;
    let ok = |ae: usize, re: usize| can_copy(attr_size, ae, r, re);

    if ok(
        end_of(offset_of!(A, odp_caps), size_of::<ibv_odp_caps>()),
        end_of(offset_of!(R, odp_caps), size_of_val(&r.odp_caps)),
    ) {
        a.odp_caps.general_caps = r.odp_caps.general_caps;
        a.odp_caps.per_transport_caps.rc_odp_caps = r.odp_caps.rc_odp_caps;
        a.odp_caps.per_transport_caps.uc_odp_caps = r.odp_caps.uc_odp_caps;
        a.odp_caps.per_transport_caps.ud_odp_caps = r.odp_caps.ud_odp_caps;
    }
    if ok(
        end_of(offset_of!(A, completion_timestamp_mask), 8),
        end_of(offset_of!(R, timestamp_mask), 8),
    ) {
        a.completion_timestamp_mask = r.timestamp_mask;
    }
    if ok(
        end_of(offset_of!(A, hca_core_clock), 8),
        end_of(offset_of!(R, hca_core_clock), 8),
    ) {
        a.hca_core_clock = r.hca_core_clock;
    }
    if ok(
        end_of(offset_of!(A, device_cap_flags_ex), 8),
        end_of(offset_of!(R, device_cap_flags_ex), 8),
    ) {
        a.device_cap_flags_ex = r.device_cap_flags_ex;
    }
    if ok(
        end_of(offset_of!(A, rss_caps), size_of::<ibv_rss_caps>()),
        end_of(offset_of!(R, rss_caps), size_of_val(&r.rss_caps)),
    ) {
        a.rss_caps.supported_qpts = r.rss_caps.supported_qpts;
        a.rss_caps.max_rwq_indirection_tables = r.rss_caps.max_rwq_indirection_tables;
        a.rss_caps.max_rwq_indirection_table_size = r.rss_caps.max_rwq_indirection_table_size;
    }
    if ok(
        end_of(offset_of!(A, max_wq_type_rq), 4),
        end_of(offset_of!(R, max_wq_type_rq), 4),
    ) {
        a.max_wq_type_rq = r.max_wq_type_rq;
    }
    if ok(
        end_of(offset_of!(A, raw_packet_caps), 4),
        end_of(offset_of!(R, raw_packet_caps), 4),
    ) {
        a.raw_packet_caps = r.raw_packet_caps;
    }
    if ok(
        end_of(offset_of!(A, tm_caps), size_of::<ibv_tm_caps>()),
        end_of(offset_of!(R, tm_caps), size_of_val(&r.tm_caps)),
    ) {
        a.tm_caps.max_rndv_hdr_size = r.tm_caps.max_rndv_hdr_size;
        a.tm_caps.max_num_tags = r.tm_caps.max_num_tags;
        a.tm_caps.flags = r.tm_caps.flags;
        a.tm_caps.max_ops = r.tm_caps.max_ops;
        a.tm_caps.max_sge = r.tm_caps.max_sge;
    }
    if ok(
        end_of(
            offset_of!(A, cq_mod_caps),
            size_of::<ibv_cq_moderation_caps>(),
        ),
        end_of(
            offset_of!(R, cq_moderation_caps),
            size_of_val(&r.cq_moderation_caps),
        ),
    ) {
        a.cq_mod_caps.max_cq_count = r.cq_moderation_caps.max_cq_moderation_count;
        a.cq_mod_caps.max_cq_period = r.cq_moderation_caps.max_cq_moderation_period;
    }
    if ok(
        end_of(offset_of!(A, max_dm_size), 8),
        end_of(offset_of!(R, max_dm_size), 8),
    ) {
        a.max_dm_size = r.max_dm_size;
    }
    if ok(
        end_of(offset_of!(A, xrc_odp_caps), 4),
        end_of(offset_of!(R, xrc_odp_caps), 4),
    ) {
        a.xrc_odp_caps = r.xrc_odp_caps;
    }
    if attr_size >= end_of(offset_of!(A, phys_port_cnt_ex), 4) {
        a.phys_port_cnt_ex = match ports() {
            0 => a.orig_attr.phys_port_cnt.into(),
            n => n,
        };
    }
}

/// The port count netlink reports for the device (0 if it does not).
fn num_ports(ctx: &Context) -> u32 {
    *ctx.device.num_ports.get_or_init(|| {
        crate::netlink::devices()
            .ok()
            .and_then(|ds| {
                ds.into_iter()
                    .find(|d| d.name == ctx.device.sysfs.ibdev_name)
            })
            .map_or(0, |d| d.num_ports)
    })
}

/// rxe and others print the kernel's 64-bit firmware version as
/// "major.minor.sub_minor" from its three low 16-bit groups. Formatted by
/// hand on the stack: a query is a hot control verb.
pub(crate) fn fw_ver_triplet(raw: u64) -> FwVer {
    let mut v = FwVer {
        buf: [0; FwVer::MAX],
        len: 0,
    };
    for (i, shift) in [32, 16, 0].into_iter().enumerate() {
        if i > 0 {
            v.push(b'.');
        }
        v.push_num(((raw >> shift) & 0xffff) as u16);
    }
    v
}

/// A formatted firmware version ("65535.65535.65535" at most).
pub(crate) struct FwVer {
    buf: [u8; FwVer::MAX],
    len: usize,
}

impl FwVer {
    const MAX: usize = 17;

    fn push(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }

    fn push_num(&mut self, n: u16) {
        let mut digits = [0u8; 5];
        let mut i = digits.len();
        let mut n = n;
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for &d in &digits[i..] {
            self.push(d);
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only ASCII digits and dots were pushed.
        std::str::from_utf8(&self.buf[..self.len]).unwrap_or_default()
    }
}

/// An all-zero `ibv_device_attr_ex`.
pub(crate) fn zeroed_attr_ex() -> ibv_device_attr_ex {
    // SAFETY: plain C data; all-zero is valid.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fw_ver_format() {
        assert_eq!(fw_ver_triplet(0).as_str(), "0.0.0");
        assert_eq!(fw_ver_triplet(0x0001_0002_0003).as_str(), "1.2.3");
        assert_eq!(fw_ver_triplet(0xffff_0001_0000_0000).as_str(), "1.0.0");
        assert_eq!(
            fw_ver_triplet(0xffff_ffff_ffff).as_str(),
            "65535.65535.65535"
        );
        assert_eq!(fw_ver_triplet(0x000a_0064_03e8).as_str(), "10.100.1000");
    }
}
