//! A UDP datagram to the discard port, sent only to make the kernel resolve a
//! neighbour (ARP / neighbour discovery), as libibverbs does.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use crate::entry::{Errno, Result};

const DISCARD_PORT: u16 = 9;
const PAYLOAD: &[u8] = b"H\0";
/// How often a send failing with EADDRNOTAVAIL (a source address still
/// tentative) is retried.
const MAX_SENDS: u32 = 100_000;

/// A socket address, IPv4 or IPv6, as bytes plus its length.
enum SockAddr {
    V4(libc::sockaddr_in),
    V6(libc::sockaddr_in6),
}

impl SockAddr {
    /// `addr` is 4 (IPv4) or 16 (IPv6) bytes.
    fn new(addr: &[u8], port: u16, scope: u32) -> Result<SockAddr> {
        if let Ok(a) = <[u8; 4]>::try_from(addr) {
            // SAFETY: plain integers; all-zero is valid.
            let mut s: libc::sockaddr_in = unsafe { std::mem::zeroed() };
            s.sin_family = libc::AF_INET as libc::sa_family_t;
            s.sin_port = port.to_be();
            s.sin_addr.s_addr = u32::from_ne_bytes(a);
            Ok(SockAddr::V4(s))
        } else if let Ok(a) = <[u8; 16]>::try_from(addr) {
            // SAFETY: as above.
            let mut s: libc::sockaddr_in6 = unsafe { std::mem::zeroed() };
            s.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            s.sin6_port = port.to_be();
            s.sin6_addr.s6_addr = a;
            s.sin6_scope_id = scope;
            Ok(SockAddr::V6(s))
        } else {
            Err(Errno(libc::EADDRNOTAVAIL))
        }
    }

    fn family(&self) -> libc::c_int {
        match self {
            SockAddr::V4(_) => libc::AF_INET,
            SockAddr::V6(_) => libc::AF_INET6,
        }
    }

    fn as_ptr(&self) -> (*const libc::sockaddr, libc::socklen_t) {
        match self {
            SockAddr::V4(s) => (
                (s as *const libc::sockaddr_in).cast(),
                size_of::<libc::sockaddr_in>() as libc::socklen_t,
            ),
            SockAddr::V6(s) => (
                (s as *const libc::sockaddr_in6).cast(),
                size_of::<libc::sockaddr_in6>() as libc::socklen_t,
            ),
        }
    }
}

pub struct UdpProbe {
    fd: OwnedFd,
    dst: SockAddr,
}

impl UdpProbe {
    /// A socket of `dst`'s family bound to `src` (either 4 or 16 bytes; a family
    /// mismatch fails in bind with the kernel's errno). IPv6 destinations are
    /// scoped to `oif`.
    pub fn new(src: &[u8], dst: &[u8], oif: u32) -> Result<UdpProbe> {
        let src = SockAddr::new(src, 0, 0)?;
        let dst = SockAddr::new(dst, DISCARD_PORT, oif)?;
        // SAFETY: plain system call with integer arguments.
        let raw = unsafe { libc::socket(dst.family(), libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(Errno::last());
        }
        // SAFETY: `raw` is a fresh descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let (p, len) = src.as_ptr();
        // SAFETY: `p` points to a live sockaddr of `len` bytes.
        if unsafe { libc::bind(fd.as_raw_fd(), p, len) } < 0 {
            return Err(Errno::last());
        }
        Ok(UdpProbe { fd, dst })
    }

    pub fn send(&self) -> Result<()> {
        let (p, len) = self.dst.as_ptr();
        for _ in 0..MAX_SENDS {
            // SAFETY: the payload and the live sockaddr with their sizes.
            let n = unsafe {
                libc::sendto(
                    self.fd.as_raw_fd(),
                    PAYLOAD.as_ptr().cast(),
                    PAYLOAD.len(),
                    0,
                    p,
                    len,
                )
            };
            if n >= 0 {
                return Ok(());
            }
            match Errno::last() {
                e if e.0 == libc::EADDRNOTAVAIL => continue,
                e => return Err(e),
            }
        }
        Err(Errno(libc::EADDRNOTAVAIL))
    }
}
