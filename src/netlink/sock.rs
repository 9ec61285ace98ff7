//! The NETLINK_RDMA socket: the only system calls (and `unsafe`) of the module.
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use super::query::Transport;
use crate::entry::{Errno, Result};

/// A datagram socket to the kernel's RDMA netlink family.
pub struct NlSocket {
    fd: OwnedFd,
}

fn kernel_addr() -> libc::sockaddr_nl {
    // SAFETY: sockaddr_nl is plain integers, for which all-zero is valid.
    let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    sa.nl_family = libc::AF_NETLINK as libc::sa_family_t;
    sa
}

fn set_timeout(fd: &OwnedFd, opt: libc::c_int, t: Duration) -> Result<()> {
    let tv = libc::timeval {
        tv_sec: t.as_secs() as libc::time_t,
        tv_usec: t.subsec_micros() as libc::suseconds_t,
    };
    // SAFETY: `tv` is a live timeval and its exact size is passed.
    let r = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            opt,
            (&raw const tv).cast(),
            size_of::<libc::timeval>() as libc::socklen_t,
        )
    };
    if r < 0 { Err(Errno::last()) } else { Ok(()) }
}

impl NlSocket {
    /// Opens the socket; fails (e.g. `EPROTONOSUPPORT`) where the kernel has no RDMA.
    /// Sends and receives give up after `timeout` with `EAGAIN`.
    pub fn open(timeout: Duration) -> Result<NlSocket> {
        Self::open_proto(libc::NETLINK_RDMA, timeout)
    }

    /// Any netlink family (tests use NETLINK_ROUTE, which every kernel has).
    pub fn open_proto(proto: libc::c_int, timeout: Duration) -> Result<NlSocket> {
        let ty = libc::SOCK_RAW | libc::SOCK_CLOEXEC;
        // SAFETY: plain system call with integer arguments.
        let raw = unsafe { libc::socket(libc::AF_NETLINK, ty, proto) };
        if raw < 0 {
            return Err(Errno::last());
        }
        // SAFETY: `raw` is a fresh descriptor nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        set_timeout(&fd, libc::SO_RCVTIMEO, timeout)?;
        set_timeout(&fd, libc::SO_SNDTIMEO, timeout)?;
        Ok(NlSocket { fd })
    }

    /// Subscribes to multicast group `group` (an `RTNLGRP_*` number).
    pub fn join_group(&self, group: u32) -> Result<()> {
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
        if r < 0 { Err(Errno::last()) } else { Ok(()) }
    }

    /// Waits up to `timeout` for a datagram; true when one can be read.
    pub fn wait_readable(&self, timeout: Duration) -> Result<bool> {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
        // SAFETY: one live pollfd, count 1.
        let r = unsafe { libc::poll(&mut p, 1, ms) };
        match r {
            r if r > 0 => Ok(true),
            0 => Ok(false),
            _ => match Errno::last() {
                e if e.0 == libc::EINTR => Ok(false),
                e => Err(e),
            },
        }
    }
}

impl Transport for NlSocket {
    fn send(&mut self, req: &[u8]) -> Result<()> {
        let sa = kernel_addr();
        loop {
            // SAFETY: `req` and `sa` are live for the call, with their sizes passed.
            let n = unsafe {
                libc::sendto(
                    self.fd.as_raw_fd(),
                    req.as_ptr().cast(),
                    req.len(),
                    0,
                    (&raw const sa).cast(),
                    size_of::<libc::sockaddr_nl>() as libc::socklen_t,
                )
            };
            match n {
                n if n as usize == req.len() => return Ok(()),
                n if n >= 0 => return Err(Errno::EIO),
                _ => match Errno::last() {
                    e if e.0 == libc::EINTR => continue,
                    e => return Err(e),
                },
            }
        }
    }

    /// One datagram. With `MSG_TRUNC` the full length is returned even when it
    /// did not fit, so truncation shows. One not sent by the kernel reads as empty.
    fn recv(&mut self, buf: &mut [u8]) -> Result<usize> {
        loop {
            let mut sa = kernel_addr();
            let mut sa_len = size_of::<libc::sockaddr_nl>() as libc::socklen_t;
            // SAFETY: `buf`, `sa` and `sa_len` are live and exclusively borrowed,
            // their sizes passed; the kernel writes at most those sizes.
            let n = unsafe {
                libc::recvfrom(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    libc::MSG_TRUNC,
                    (&raw mut sa).cast(),
                    &mut sa_len,
                )
            };
            if n < 0 {
                match Errno::last() {
                    e if e.0 == libc::EINTR => continue,
                    e => return Err(e),
                }
            }
            return Ok(if sa.nl_pid == 0 { n as usize } else { 0 });
        }
    }
}
