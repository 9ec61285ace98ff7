//! A UDP datagram to the discard port, sent only to make the kernel resolve a
//! neighbour (ARP / neighbour discovery), as libibverbs does.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddrV4, SocketAddrV6};
use std::os::fd::{AsRawFd, OwnedFd};

use nix::errno::Errno as NixErrno;
use nix::sys::socket::{
    AddressFamily, MsgFlags, SockFlag, SockType, SockaddrIn, SockaddrIn6, SockaddrLike,
};

use crate::entry::{Errno, Result};

const DISCARD_PORT: u16 = 9;
const PAYLOAD: &[u8] = b"H\0";
/// How often a send failing with EADDRNOTAVAIL (a source address still
/// tentative) is retried.
const MAX_SENDS: u32 = 100_000;

/// A socket address, IPv4 or IPv6.
enum SockAddr {
    V4(SockaddrIn),
    V6(SockaddrIn6),
}

impl SockAddr {
    /// `addr` is 4 (IPv4) or 16 (IPv6) bytes.
    fn new(addr: &[u8], port: u16, scope: u32) -> Result<SockAddr> {
        if let Ok(a) = <[u8; 4]>::try_from(addr) {
            let s = SocketAddrV4::new(Ipv4Addr::from(a), port);
            Ok(SockAddr::V4(s.into()))
        } else if let Ok(a) = <[u8; 16]>::try_from(addr) {
            let s = SocketAddrV6::new(Ipv6Addr::from(a), port, 0, scope);
            Ok(SockAddr::V6(s.into()))
        } else {
            Err(Errno(libc::EADDRNOTAVAIL))
        }
    }

    fn family(&self) -> AddressFamily {
        match self {
            SockAddr::V4(_) => AddressFamily::Inet,
            SockAddr::V6(_) => AddressFamily::Inet6,
        }
    }

    fn as_like(&self) -> &dyn SockaddrLike {
        match self {
            SockAddr::V4(s) => s,
            SockAddr::V6(s) => s,
        }
    }
}

pub(super) struct UdpProbe {
    fd: OwnedFd,
    dst: SockAddr,
}

impl UdpProbe {
    /// A socket of `dst`'s family bound to `src` (either 4 or 16 bytes; a family
    /// mismatch fails in bind with the kernel's errno). IPv6 destinations are
    /// scoped to `oif`.
    pub(super) fn new(src: &[u8], dst: &[u8], oif: u32) -> Result<UdpProbe> {
        let src = SockAddr::new(src, 0, 0)?;
        let dst = SockAddr::new(dst, DISCARD_PORT, oif)?;
        let fd = nix::sys::socket::socket(
            dst.family(),
            SockType::Datagram,
            SockFlag::SOCK_CLOEXEC,
            None,
        )?;
        nix::sys::socket::bind(fd.as_raw_fd(), src.as_like())?;
        Ok(UdpProbe { fd, dst })
    }

    pub(super) fn send(&self) -> Result<()> {
        let fd = self.fd.as_raw_fd();
        for _ in 0..MAX_SENDS {
            match nix::sys::socket::sendto(fd, PAYLOAD, self.dst.as_like(), MsgFlags::empty()) {
                Ok(_) => return Ok(()),
                Err(NixErrno::EADDRNOTAVAIL) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(Errno(libc::EADDRNOTAVAIL))
    }
}
