//! ibv_init_ah_from_wc: the address handle attributes that reply to a received
//! completion, from its GRH (RoCE v1/v2: IPv6 header, or the IPv4 header in
//! its last 20 bytes) and the local GID table.

use super::gid::{query_gid, query_gid_type_sysfs, raw};
use crate::abi::*;
use crate::context::Context;
use crate::entry::{Errno, Result};

const GID_TYPE_SYSFS_IB_ROCE_V1: u32 = 0;
const GID_TYPE_SYSFS_ROCE_V2: u32 = 1;
const IPPROTO_UDP: u8 = 17;
/// The IB transport header's next-header value (RoCE v1).
const IB_NEXT_HDR: u8 = 0x1b;

/// The 40 bytes of a GRH as received.
fn grh_bytes(g: &ibv_grh) -> [u8; 40] {
    let mut b = [0u8; 40];
    b[0..4].copy_from_slice(&g.version_tclass_flow.to_ne_bytes());
    b[4..6].copy_from_slice(&g.paylen.to_ne_bytes());
    b[6] = g.next_hdr;
    b[7] = g.hop_limit;
    b[8..24].copy_from_slice(&raw(&g.sgid));
    b[24..40].copy_from_slice(&raw(&g.dgid));
    b
}

/// The IPv4 header that RoCE v2 over IPv4 puts in the last 20 bytes.
struct Ip4<'a>(&'a [u8]);

impl Ip4<'_> {
    fn version(&self) -> u8 {
        self.0[0] >> 4
    }
    fn ihl(&self) -> u8 {
        self.0[0] & 0xf
    }
    fn tos(&self) -> u8 {
        self.0[1]
    }
    fn ttl(&self) -> u8 {
        self.0[8]
    }
    fn check(&self) -> u16 {
        u16::from_ne_bytes([self.0[10], self.0[11]])
    }
    fn saddr(&self) -> [u8; 4] {
        self.0[12..16].try_into().unwrap_or_default()
    }
    fn daddr(&self) -> [u8; 4] {
        self.0[16..20].try_into().unwrap_or_default()
    }
    /// The header checksum with the stored one taken as 0 (one fold, as
    /// libibverbs computes it).
    fn computed_check(&self) -> u16 {
        let mut sum: u32 = 0;
        for i in 0..10 {
            let w = if i == 5 {
                0
            } else {
                u16::from_ne_bytes([self.0[2 * i], self.0[2 * i + 1]])
            };
            sum += u32::from(w);
        }
        sum = (sum & 0xffff) + (sum >> 16);
        !(sum as u16)
    }
}

/// 4 or 6: which IP version the GRH carries.
fn grh_version(b: &[u8; 40]) -> Result<u8> {
    let ip4 = Ip4(&b[20..]);
    if b[0] >> 4 != 6 {
        return if ip4.version() == 4 {
            Ok(4)
        } else {
            Err(Errno::EPROTONOSUPPORT)
        };
    }
    if ip4.ihl() != 5 {
        return Ok(6);
    }
    Ok(if ip4.check() == ip4.computed_check() {
        4
    } else {
        6
    })
}

fn v4_mapped(a: [u8; 4]) -> [u8; 16] {
    let mut g = [0u8; 16];
    g[10] = 0xff;
    g[11] = 0xff;
    g[12..].copy_from_slice(&a);
    g
}

/// The index of `gid` with `ty` in the port's table (searching from 0 until
/// the table ends, which is the error).
fn find_gid_index(ctx: &Context, port: u8, gid: &[u8; 16], ty: u32) -> Result<u8> {
    let mut i: u32 = 0;
    loop {
        let g = query_gid(ctx, port.into(), i)?;
        let t = query_gid_type_sysfs(ctx, port.into(), i)?;
        if &g == gid && t == ty {
            return Ok(i as u8);
        }
        i += 1;
    }
}

/// Fills `attr` (zeroed first) with the fields that need no context: all of
/// them for a completion without IBV_WC_GRH (rdma-core reads no context then,
/// so any context, even NULL, gives this result).
pub(crate) fn init_ah_fields(
    port: u8,
    wc: &ibv_wc,
    grh: Option<&ibv_grh>,
    attr: &mut ibv_ah_attr,
) -> Result<()> {
    // SAFETY: plain C data; all-zero is valid.
    #[allow(unsafe_code)]
    let zero: ibv_ah_attr = unsafe { std::mem::zeroed() };
    *attr = zero;
    // libibverbs reads the GRH even without IBV_WC_GRH; without one there is
    // nothing to read.
    let grh = grh.ok_or(Errno::EINVAL)?;
    let flow = u32::from_be(grh.version_tclass_flow);
    attr.grh.flow_label = flow & 0xfffff;
    attr.dlid = wc.slid;
    attr.sl = wc.sl;
    attr.src_path_bits = wc.dlid_path_bits;
    attr.port_num = port;
    Ok(())
}

/// Fills `attr` (zeroed first) from a completion and its GRH.
pub(crate) fn init_ah_from_wc(
    ctx: &Context,
    port: u8,
    wc: &ibv_wc,
    grh: Option<&ibv_grh>,
    attr: &mut ibv_ah_attr,
) -> Result<()> {
    init_ah_fields(port, wc, grh, attr)?;
    let Some(grh) = grh.filter(|_| wc.wc_flags & IBV_WC_GRH != 0) else {
        return Ok(());
    };
    let b = grh_bytes(grh);
    let flow = u32::from_be(grh.version_tclass_flow);
    attr.is_global = 1;
    match grh_version(&b)? {
        4 => {
            let ip4 = Ip4(&b[20..]);
            if ip4.daddr()[0] & 0xf0 == 0xe0 {
                return Err(Errno::EINVAL);
            }
            let idx = find_gid_index(ctx, port, &v4_mapped(ip4.daddr()), GID_TYPE_SYSFS_ROCE_V2)?;
            attr.grh.dgid = ibv_gid {
                raw: v4_mapped(ip4.saddr()),
            };
            attr.grh.sgid_index = idx;
            attr.grh.hop_limit = ip4.ttl();
            attr.grh.traffic_class = ip4.tos();
        }
        _ => {
            let dgid = raw(&grh.dgid);
            if dgid[0] == 0xff {
                return Err(Errno::EINVAL);
            }
            attr.grh.dgid = grh.sgid;
            let ty = match grh.next_hdr {
                IPPROTO_UDP => GID_TYPE_SYSFS_ROCE_V2,
                IB_NEXT_HDR => GID_TYPE_SYSFS_IB_ROCE_V1,
                _ => return Err(Errno::EPROTONOSUPPORT),
            };
            attr.grh.sgid_index = find_gid_index(ctx, port, &dgid, ty)?;
            attr.grh.hop_limit = grh.hop_limit;
            attr.grh.traffic_class = (flow >> 20) as u8;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_checksum_decides_version() {
        let mut b = [0u8; 40];
        b[0] = 0x60;
        // A valid IPv4 header: 45 00 0014 0000 0000 40 11 csum 0a000002 0a000001
        let h = [
            0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1,
        ];
        b[20..].copy_from_slice(&h);
        let c = Ip4(&b[20..]).computed_check();
        b[30..32].copy_from_slice(&c.to_ne_bytes());
        assert_eq!(grh_version(&b), Ok(4));
        b[31] ^= 1;
        assert_eq!(grh_version(&b), Ok(6));
        b[0] = 0;
        b[20] = 0;
        assert_eq!(grh_version(&b), Err(Errno::EPROTONOSUPPORT));
    }
}
