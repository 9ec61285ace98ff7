//! ibv_resolve_eth_l2_from_gid's work: the Ethernet address (and VLAN id) a
//! packet from one GID to another would be sent to, found the way libibverbs
//! finds it through the kernel's routing, link and neighbour tables:
//!
//! 1. the interface holding the source address (the source GID as an IP address);
//! 2. the route to the destination through that interface (its gateway, if any,
//!    becomes the address to resolve);
//! 3. a local route answers with the interface's own address, multicast and
//!    IPv6 link-local destinations encode their MAC, otherwise the neighbour
//!    table is read and, if the entry is missing, a UDP datagram to the discard
//!    port makes the kernel resolve it: new entries are awaited for about 3 s
//!    (11 ticks, the datagram re-sent on each of the first 10).
//!
//! The result carries the C return value (0, `-EINVAL`, `-EHOSTUNREACH`) and
//! the errno libibverbs leaves behind on each path.

use std::ffi::c_int;
use std::time::{Duration, Instant};

use super::TIMEOUT;
use super::msg::{Msg, split};
use super::probe::UdpProbe;
use super::query::{Conn, Transport};
use super::route::{
    Neigh, RTM_NEWNEIGH, RTN_BLACKHOLE, RTN_LOCAL, RTN_PROHIBIT, RTN_THROW, RTN_UNREACHABLE,
    RTNLGRP_NEIGH, decode_neigh,
};
use super::sock::NlSocket;
use crate::entry::{Errno, Result};

const AF_INET: u8 = libc::AF_INET as u8;
const AF_INET6: u8 = libc::AF_INET6 as u8;

/// How long the neighbour is awaited in all, and in how many ticks.
const NEIGH_TIMEOUT: Duration = Duration::from_millis(3000);
const TRIES: u32 = 11;

/// What ibv_resolve_eth_l2_from_gid returns and leaves behind.
#[derive(Debug, PartialEq)]
pub(crate) struct L2 {
    /// The C return value.
    pub ret: c_int,
    /// The errno to set (`None`: errno is left alone).
    pub errno: Option<Errno>,
    /// On success, the link-layer address (at most 6 bytes).
    pub mac: Vec<u8>,
    /// The VLAN id (0xffff: none), when it was asked for and a route was found.
    pub vid: Option<u16>,
}

impl L2 {
    fn fail(ret: c_int, errno: Option<Errno>) -> L2 {
        L2 {
            ret,
            errno,
            mac: Vec::new(),
            vid: None,
        }
    }
}

/// IPv4-mapped (`::ffff:a.b.c.d`) or IPv4-encoded multicast (`ff0e::ffff:a.b.c.d`).
pub(super) fn is_v4(gid: &[u8; 16]) -> bool {
    let mapped = gid[..10] == [0; 10] && gid[10..12] == [0xff, 0xff];
    let mcast = gid[..4] == [0xff, 0x0e, 0, 0] && gid[4..10] == [0; 6] && gid[10..12] == [0xff; 2];
    mapped || mcast
}

/// The IP address a GID stands for: (family, address bytes).
pub(super) fn ip_of(gid: &[u8; 16]) -> (u8, &[u8]) {
    if is_v4(gid) {
        (AF_INET, &gid[12..])
    } else {
        (AF_INET6, &gid[..])
    }
}

/// The MAC a multicast or IPv6 link-local address maps to, with no lookup.
pub(super) fn encoded_mac(family: u8, a: &[u8]) -> Option<Vec<u8>> {
    match (family, a) {
        (AF_INET, [b0, b1, b2, b3]) if b0 & 0xf0 == 0xe0 => {
            Some(vec![0x01, 0x00, 0x5e, b1 & 0x7f, *b2, *b3])
        }
        (AF_INET6, [0xff, ..]) if a.len() == 16 => {
            Some(vec![0x33, 0x33, a[12], a[13], a[14], a[15]])
        }
        (AF_INET6, [0xfe, 0x80, 0, 0, 0, 0, 0, 0, ..]) if a.len() == 16 => {
            Some(vec![a[8] ^ 2, a[9], a[10], a[13], a[14], a[15]])
        }
        _ => None,
    }
}

fn lookup(table: &[Neigh], family: u8, oif: u32, dst: &[u8]) -> Option<Vec<u8>> {
    table
        .iter()
        .find(|n| n.is(family, oif, dst))
        .and_then(|n| n.lladdr.clone())
}

/// Resolves `dgid` as seen from `sgid`. `gid_errno` is the errno the source GID
/// query left (ENODATA for an empty slot, which reads as the zero GID).
pub(crate) fn resolve(
    sgid: &[u8; 16],
    dgid: &[u8; 16],
    gid_errno: Option<Errno>,
    want_vid: bool,
) -> L2 {
    let mut c = match NlSocket::open_proto(nix::sys::socket::SockProtocol::NetlinkRoute, TIMEOUT) {
        Ok(s) => Conn::new(s),
        Err(e) => return L2::fail(-1, Some(e)),
    };
    resolve_on(&mut c, sgid, dgid, gid_errno, want_vid)
}

fn resolve_on<T: Transport>(
    c: &mut Conn<T>,
    sgid: &[u8; 16],
    dgid: &[u8; 16],
    gid_errno: Option<Errno>,
    want_vid: bool,
) -> L2 {
    let (dfam, dst) = ip_of(dgid);
    let (sfam, src) = ip_of(sgid);
    let oif = match c.addr_index(sfam, src) {
        Ok(Some(i)) if i > 0 && i <= i32::MAX as u32 => i,
        _ => return L2::fail(-libc::EINVAL, gid_errno),
    };
    let unreach = |e: Option<Errno>| L2::fail(-libc::EHOSTUNREACH, e.or(gid_errno));
    // An error answer (no route at all) leaves errno alone.
    let Ok(route) = c.get_route(dfam, dst, oif) else {
        return unreach(None);
    };
    let dst = route.gateway.unwrap_or_else(|| dst.to_vec());
    let ll = match route.ty {
        RTN_BLACKHOLE | RTN_UNREACHABLE | RTN_PROHIBIT | RTN_THROW => {
            return unreach(Some(Errno::EINVAL));
        }
        RTN_LOCAL => match c.get_link(oif).ok().and_then(|l| l.addr) {
            Some(a) => a,
            None => return unreach(Some(Errno::EINVAL)),
        },
        _ => match encoded_mac(dfam, &dst) {
            Some(m) => m,
            None => match neigh_mac(c, dfam, &dst, src, oif) {
                Ok(m) => m,
                Err(e) => return unreach(Some(e)),
            },
        },
    };
    let mut errno = None;
    let vid = want_vid.then(|| match c.get_link(oif) {
        Ok(l) => l.vlan_id.filter(|v| *v <= 0xfff).unwrap_or(0xffff),
        Err(_) => {
            errno = Some(Errno::EINVAL);
            0xffff
        }
    });
    if ll.is_empty() || ll.len() > 6 {
        return L2 {
            ret: -libc::EHOSTUNREACH,
            errno,
            mac: Vec::new(),
            vid,
        };
    }
    L2 {
        ret: 0,
        errno,
        mac: ll,
        vid,
    }
}

/// The link-layer address a neighbour table change announces for `dst` on `oif`.
fn event_lladdr(m: &Msg<'_>, family: u8, oif: u32, dst: &[u8]) -> Option<Vec<u8>> {
    if m.ty != RTM_NEWNEIGH {
        return None;
    }
    let n = decode_neigh(m).ok()?;
    if n.is(family, oif, dst) {
        n.lladdr
    } else {
        None
    }
}

/// The neighbour entry of `dst` on `oif`, triggering resolution if there is none.
fn neigh_mac<T: Transport>(
    c: &mut Conn<T>,
    family: u8,
    dst: &[u8],
    src: &[u8],
    oif: u32,
) -> Result<Vec<u8>> {
    if let Some(ll) = c
        .neighbours()
        .ok()
        .and_then(|t| lookup(&t, family, oif, dst))
    {
        return Ok(ll);
    }
    let events = NlSocket::open_proto(nix::sys::socket::SockProtocol::NetlinkRoute, TIMEOUT)?;
    events.join_group(RTNLGRP_NEIGH)?;
    let probe = UdpProbe::new(src, dst, oif)?;
    probe.send()?;
    let tick = NEIGH_TIMEOUT / TRIES;
    let mut next = Instant::now() + tick;
    let mut buf = vec![0u8; 64 * 1024];
    let mut events = events;
    let mut ticks = 0;
    loop {
        let wait = next.saturating_duration_since(Instant::now());
        if !wait.is_zero() && events.wait_readable(wait)? {
            let n = events.recv(&mut buf)?;
            let dgram = buf.get(..n).unwrap_or(&buf[..]);
            for m in split(dgram).unwrap_or_default() {
                if let Some(ll) = event_lladdr(&m, family, oif, dst) {
                    return Ok(ll);
                }
            }
            continue;
        }
        next += tick;
        if let Some(ll) = c
            .neighbours()
            .ok()
            .and_then(|t| lookup(&t, family, oif, dst))
        {
            return Ok(ll);
        }
        if ticks < TRIES - 1 {
            let _ = probe.send();
        }
        ticks += 1;
        if ticks >= TRIES {
            return Err(Errno(libc::EDESTADDRREQ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(a: [u8; 4]) -> [u8; 16] {
        let mut g = [0u8; 16];
        g[10] = 0xff;
        g[11] = 0xff;
        g[12..].copy_from_slice(&a);
        g
    }

    #[test]
    fn gid_families() {
        assert_eq!(ip_of(&v4([10, 0, 0, 1])), (AF_INET, &[10u8, 0, 0, 1][..]));
        let mut m = v4([224, 0, 0, 1]);
        m[0] = 0xff;
        m[1] = 0x0e;
        assert!(is_v4(&m));
        let ll: [u8; 16] = [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(ip_of(&ll).0, AF_INET6);
        assert_eq!(ip_of(&[0; 16]).0, AF_INET6);
    }

    #[test]
    fn encoded_macs() {
        assert_eq!(
            encoded_mac(AF_INET, &[224, 0, 0, 5]),
            Some(vec![1, 0, 0x5e, 0, 0, 5])
        );
        assert_eq!(
            encoded_mac(AF_INET, &[239, 200, 1, 2]),
            Some(vec![1, 0, 0x5e, 0x48, 1, 2])
        );
        assert_eq!(encoded_mac(AF_INET, &[10, 0, 0, 1]), None);
        assert_eq!(encoded_mac(AF_INET, &[240, 0, 0, 1]), None);
        let mut a = [0u8; 16];
        a[0] = 0xff;
        a[1] = 0x02;
        a[15] = 1;
        assert_eq!(
            encoded_mac(AF_INET6, &a),
            Some(vec![0x33, 0x33, 0, 0, 0, 1])
        );
        let ll: [u8; 16] = [
            0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x74, 0x59, 0x1a, 0xff, 0xfe, 0x46, 0xad, 0x40,
        ];
        assert_eq!(
            encoded_mac(AF_INET6, &ll),
            Some(vec![0x76, 0x59, 0x1a, 0x46, 0xad, 0x40])
        );
        let mut not_ll = ll;
        not_ll[7] = 1;
        assert_eq!(encoded_mac(AF_INET6, &not_ll), None);
        assert_eq!(encoded_mac(AF_INET6, &[0xff, 2]), None);
    }
}
