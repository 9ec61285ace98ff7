//! The NETLINK_RDMA socket: the only system calls of the module, through nix
//! (one raw `setsockopt` remains, see `join_group`).
#![allow(unsafe_code)]

use std::io::IoSliceMut;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::Duration;

use nix::errno::Errno as NixErrno;
use nix::poll::{PollFd, PollFlags, PollTimeout};
use nix::sys::socket::{
    AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, setsockopt, sockopt,
};
use nix::sys::time::TimeVal;

use super::query::Transport;
use crate::entry::{Errno, Result};

/// A datagram socket to the kernel's RDMA netlink family.
pub(super) struct NlSocket {
    fd: OwnedFd,
}

/// The kernel's end of every netlink socket: port 0, no groups.
fn kernel_addr() -> NetlinkAddr {
    NetlinkAddr::new(0, 0)
}

impl NlSocket {
    /// Opens the socket; fails (e.g. `EPROTONOSUPPORT`) where the kernel has no RDMA.
    /// Sends and receives give up after `timeout` with `EAGAIN`.
    pub(super) fn open(timeout: Duration) -> Result<NlSocket> {
        Self::open_proto(SockProtocol::NetlinkRDMA, timeout)
    }

    /// Any netlink family (tests use NETLINK_ROUTE, which every kernel has).
    pub(super) fn open_proto(proto: SockProtocol, timeout: Duration) -> Result<NlSocket> {
        let fd = nix::sys::socket::socket(
            AddressFamily::Netlink,
            SockType::Raw,
            SockFlag::SOCK_CLOEXEC,
            proto,
        )?;
        let tv = TimeVal::new(timeout.as_secs() as _, timeout.subsec_micros() as _);
        setsockopt(&fd, sockopt::ReceiveTimeout, &tv)?;
        setsockopt(&fd, sockopt::SendTimeout, &tv)?;
        Ok(NlSocket { fd })
    }

    /// Subscribes to multicast group `group` (an `RTNLGRP_*` number). A raw
    /// `setsockopt`: nix has no `NETLINK_ADD_MEMBERSHIP` option, and binding
    /// with a group mask reaches only groups 1 to 32 and fails once bound.
    pub(super) fn join_group(&self, group: u32) -> Result<()> {
        // SAFETY: `group` is a live u32 and its exact size is passed.
        let r = unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_NETLINK,
                libc::NETLINK_ADD_MEMBERSHIP,
                (&raw const group).cast(),
                size_of::<u32>() as libc::socklen_t,
            )
        };
        NixErrno::result(r)?;
        Ok(())
    }

    /// Waits up to `timeout` for a datagram; true when one can be read.
    pub(super) fn wait_readable(&self, timeout: Duration) -> Result<bool> {
        let mut p = [PollFd::new(self.fd.as_fd(), PollFlags::POLLIN)];
        let t = PollTimeout::try_from(timeout).unwrap_or(PollTimeout::MAX);
        match nix::poll::poll(&mut p, t) {
            Ok(n) => Ok(n > 0),
            Err(NixErrno::EINTR) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}

impl Transport for NlSocket {
    fn send(&mut self, req: &[u8]) -> Result<()> {
        let sa = kernel_addr();
        loop {
            let fd = self.fd.as_raw_fd();
            match nix::sys::socket::sendto(fd, req, &sa, MsgFlags::empty()) {
                Ok(n) if n == req.len() => return Ok(()),
                Ok(_) => return Err(Errno::EIO),
                Err(NixErrno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// One datagram. With `MSG_TRUNC` the full length is returned even when it
    /// did not fit, so truncation shows. One not sent by the kernel reads as empty.
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize> {
        loop {
            let fd = self.fd.as_raw_fd();
            let mut iov = [IoSliceMut::new(buf)];
            let r =
                nix::sys::socket::recvmsg::<NetlinkAddr>(fd, &mut iov, None, MsgFlags::MSG_TRUNC);
            match r {
                Ok(m) => {
                    let from_kernel = m.address.is_none_or(|a| a.pid() == 0);
                    return Ok(if from_kernel { m.bytes } else { 0 });
                }
                Err(NixErrno::EINTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}
