//! rtnetlink (NETLINK_ROUTE) requests and replies: one route, one link, the
//! neighbour and address tables. Messages start with a family header
//! (`struct rtmsg`, `ifinfomsg`, `ndmsg`, `ifaddrmsg`) before their attributes;
//! every read is bounds-checked, so a short or malformed reply is `EINVAL`.

use super::msg::{Attrs, Msg, NLM_F_DUMP, align4};
use super::query::{Conn, Transport};
use crate::entry::{Errno, Result};

pub(super) const RTM_NEWLINK: u16 = 16;
pub(super) const RTM_GETLINK: u16 = 18;
pub(super) const RTM_NEWADDR: u16 = 20;
pub(super) const RTM_GETADDR: u16 = 22;
pub(super) const RTM_NEWROUTE: u16 = 24;
pub(super) const RTM_GETROUTE: u16 = 26;
pub(super) const RTM_NEWNEIGH: u16 = 28;
pub(super) const RTM_GETNEIGH: u16 = 30;

const RTA_DST: u16 = 1;
const RTA_OIF: u16 = 4;
const RTA_GATEWAY: u16 = 5;
const IFLA_ADDRESS: u16 = 1;
const IFLA_LINKINFO: u16 = 18;
const IFLA_INFO_KIND: u16 = 1;
const IFLA_INFO_DATA: u16 = 2;
const IFLA_VLAN_ID: u16 = 1;
const IFA_ADDRESS: u16 = 1;
const IFA_LOCAL: u16 = 2;
const NDA_DST: u16 = 1;
const NDA_LLADDR: u16 = 2;

/// The multicast group of neighbour table changes.
pub(super) const RTNLGRP_NEIGH: u32 = 3;

/// `RTN_*` route types.
pub(super) const RTN_LOCAL: u8 = 2;
pub(super) const RTN_BLACKHOLE: u8 = 6;
pub(super) const RTN_UNREACHABLE: u8 = 7;
pub(super) const RTN_PROHIBIT: u8 = 8;
pub(super) const RTN_THROW: u8 = 9;

const RTMSG_LEN: usize = 12;
const IFINFOMSG_LEN: usize = 16;
const NDMSG_LEN: usize = 12;
const IFADDRMSG_LEN: usize = 8;

/// The kernel's answer to "how would a packet to this address leave?".
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Route {
    /// `RTN_*`.
    pub ty: u8,
    pub oif: Option<u32>,
    /// The next hop, when the destination is not on link.
    pub gateway: Option<Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub(super) struct Link {
    /// The hardware address (`IFLA_ADDRESS`), any length.
    pub addr: Option<Vec<u8>>,
    /// The VLAN id when the link is a VLAN device.
    pub vlan_id: Option<u16>,
}

#[derive(Clone, Debug, PartialEq)]
pub(super) struct Neigh {
    pub family: u8,
    pub ifindex: i32,
    pub dst: Option<Vec<u8>>,
    pub lladdr: Option<Vec<u8>>,
}

impl Neigh {
    /// Whether this entry is `dst` (of `family`) on interface `oif`.
    pub(super) fn is(&self, family: u8, oif: u32, dst: &[u8]) -> bool {
        self.family == family
            && self.ifindex as i64 == oif as i64
            && self.dst.as_deref() == Some(dst)
    }
}

/// Splits a message payload into its family header (`hdr` bytes) and attributes.
fn header_and_attrs(payload: &[u8], hdr: usize) -> Result<(&[u8], Attrs<'_>)> {
    let h = payload.get(..hdr).ok_or(Errno::EINVAL)?;
    let rest = payload.get(align4(hdr)..).unwrap_or(&[]);
    Ok((h, Attrs::parse(rest)?))
}

fn u32_of(b: &[u8], at: usize) -> Result<u32> {
    let a: [u8; 4] = b
        .get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .ok_or(Errno::EINVAL)?;
    Ok(u32::from_ne_bytes(a))
}

pub(super) fn decode_route(m: &Msg<'_>) -> Result<Route> {
    let (h, a) = header_and_attrs(m.payload, RTMSG_LEN)?;
    Ok(Route {
        ty: h[7],
        oif: a.u32(RTA_OIF),
        gateway: a.get(RTA_GATEWAY).map(<[u8]>::to_vec),
    })
}

pub(super) fn decode_link(m: &Msg<'_>) -> Result<Link> {
    let (_, a) = header_and_attrs(m.payload, IFINFOMSG_LEN)?;
    let mut vlan_id = None;
    if let Some(info) = a.get(IFLA_LINKINFO) {
        let info = Attrs::parse(info)?;
        if let (Some("vlan"), Some(data)) = (info.str(IFLA_INFO_KIND), info.get(IFLA_INFO_DATA)) {
            let data = Attrs::parse(data)?;
            vlan_id = data
                .get(IFLA_VLAN_ID)
                .and_then(|b| b.get(..2))
                .and_then(|b| b.try_into().ok())
                .map(u16::from_ne_bytes);
        }
    }
    Ok(Link {
        addr: a.get(IFLA_ADDRESS).map(<[u8]>::to_vec),
        vlan_id,
    })
}

pub(super) fn decode_neigh(m: &Msg<'_>) -> Result<Neigh> {
    let (h, a) = header_and_attrs(m.payload, NDMSG_LEN)?;
    Ok(Neigh {
        family: h[0],
        ifindex: u32_of(h, 4)? as i32,
        dst: a.get(NDA_DST).map(<[u8]>::to_vec),
        lladdr: a.get(NDA_LLADDR).map(<[u8]>::to_vec),
    })
}

/// (family, interface index, local address) of an address message.
fn decode_addr(m: &Msg<'_>) -> Result<(u8, u32, Option<Vec<u8>>)> {
    let (h, a) = header_and_attrs(m.payload, IFADDRMSG_LEN)?;
    let addr = a.get(IFA_LOCAL).or_else(|| a.get(IFA_ADDRESS));
    Ok((h[0], u32_of(h, 4)?, addr.map(<[u8]>::to_vec)))
}

impl<T: Transport> Conn<T> {
    /// RTM_GETROUTE for `dst` (of `family`, full prefix) leaving through `oif`.
    pub(super) fn get_route(&mut self, family: u8, dst: &[u8], oif: u32) -> Result<Route> {
        let mut hdr = [0u8; RTMSG_LEN];
        hdr[0] = family;
        hdr[1] = (dst.len() * 8) as u8;
        let mut route = None;
        self.exchange_raw(
            "RTM_GETROUTE",
            RTM_GETROUTE,
            0,
            |r| r.header(&hdr).put_bytes(RTA_DST, dst).put_u32(RTA_OIF, oif),
            |m| {
                if m.ty == RTM_NEWROUTE && route.is_none() {
                    route = Some(decode_route(m)?);
                }
                Ok(())
            },
        )?;
        route.ok_or(Errno::EINVAL)
    }

    /// RTM_GETLINK of one interface.
    pub(super) fn get_link(&mut self, index: u32) -> Result<Link> {
        let mut hdr = [0u8; IFINFOMSG_LEN];
        hdr[4..8].copy_from_slice(&index.to_ne_bytes());
        let mut link = None;
        self.exchange_raw(
            "RTM_GETLINK",
            RTM_GETLINK,
            0,
            |r| r.header(&hdr),
            |m| {
                if m.ty == RTM_NEWLINK && link.is_none() {
                    link = Some(decode_link(m)?);
                }
                Ok(())
            },
        )?;
        link.ok_or(Errno::EINVAL)
    }

    /// The whole neighbour table (every family).
    pub(super) fn neighbours(&mut self) -> Result<Vec<Neigh>> {
        let mut v = Vec::new();
        self.exchange_raw(
            "RTM_GETNEIGH",
            RTM_GETNEIGH,
            NLM_F_DUMP,
            |r| r.header(&[0u8; NDMSG_LEN]),
            |m| {
                if m.ty == RTM_NEWNEIGH {
                    v.push(decode_neigh(m)?);
                }
                Ok(())
            },
        )?;
        Ok(v)
    }

    /// The interface holding local address `addr` (of `family`): the first in
    /// the kernel's address dump, as getifaddrs lists them.
    pub(super) fn addr_index(&mut self, family: u8, addr: &[u8]) -> Result<Option<u32>> {
        let mut found = None;
        self.exchange_raw(
            "RTM_GETADDR",
            RTM_GETADDR,
            NLM_F_DUMP,
            |r| r.header(&[0u8; IFADDRMSG_LEN]),
            |m| {
                if m.ty == RTM_NEWADDR && found.is_none() {
                    let (f, index, a) = decode_addr(m)?;
                    if f == family && a.as_deref() == Some(addr) {
                        found = Some(index);
                    }
                }
                Ok(())
            },
        )?;
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(ty: u16, data: &[u8]) -> Vec<u8> {
        let mut v = ((4 + data.len()) as u16).to_ne_bytes().to_vec();
        v.extend_from_slice(&ty.to_ne_bytes());
        v.extend_from_slice(data);
        v.resize(align4(v.len()), 0);
        v
    }

    fn msg(ty: u16, payload: &[u8]) -> Msg<'_> {
        Msg {
            ty,
            flags: 0,
            seq: 1,
            payload,
        }
    }

    #[test]
    fn route_link_neigh_decoding() {
        let mut p = vec![2, 32, 0, 0, 254, 0, 0, 1, 0, 0, 0, 0];
        p.extend(attr(RTA_OIF, &3u32.to_ne_bytes()));
        p.extend(attr(RTA_GATEWAY, &[10, 0, 0, 254]));
        let r = decode_route(&msg(RTM_NEWROUTE, &p)).unwrap();
        assert_eq!(
            (r.ty, r.oif, r.gateway),
            (1, Some(3), Some(vec![10, 0, 0, 254]))
        );
        assert!(decode_route(&msg(RTM_NEWROUTE, &p[..8])).is_err());

        let mut l = vec![0u8; IFINFOMSG_LEN];
        l.extend(attr(IFLA_ADDRESS, &[2, 0, 0, 0, 0, 1]));
        let mut info = attr(IFLA_INFO_KIND, b"vlan\0");
        info.extend(attr(
            IFLA_INFO_DATA,
            &attr(IFLA_VLAN_ID, &7u16.to_ne_bytes()),
        ));
        l.extend(attr(IFLA_LINKINFO | 0x8000, &info));
        let link = decode_link(&msg(RTM_NEWLINK, &l)).unwrap();
        assert_eq!(link.addr, Some(vec![2, 0, 0, 0, 0, 1]));
        assert_eq!(link.vlan_id, Some(7));

        let mut n = vec![2, 0, 0, 0];
        n.extend(5i32.to_ne_bytes());
        n.extend([2, 0, 0, 0]);
        n.extend(attr(NDA_DST, &[10, 0, 0, 9]));
        n.extend(attr(NDA_LLADDR, &[1, 2, 3, 4, 5, 6]));
        let ne = decode_neigh(&msg(RTM_NEWNEIGH, &n)).unwrap();
        assert!(ne.is(2, 5, &[10, 0, 0, 9]));
        assert!(!ne.is(2, 4, &[10, 0, 0, 9]));
        assert_eq!(ne.lladdr, Some(vec![1, 2, 3, 4, 5, 6]));
        // Truncated attributes are errors, never panics.
        for cut in 0..n.len() {
            let _ = decode_neigh(&msg(RTM_NEWNEIGH, &n[..cut]));
        }
    }
}
