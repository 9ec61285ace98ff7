//! The kernel uverbs ABI as typed, safe commands.
//!
//! [`Uverbs`] is an open `/dev/infiniband/uverbsN`. Each write() command is a type
//! implementing [`WriteCmd`] or [`WriteExCmd`]; ioctl methods are built with
//! [`IoctlCmd`]. The per-object modules hold the kernel structs and the typed
//! calls the provider and verbs layers use. Only `pod` and `sys` contain `unsafe`.

#[macro_use]
pub(crate) mod pod;
pub(crate) mod fallback;
pub(crate) mod ids;
pub(crate) mod ioctl;
pub(crate) mod ioctl_hdr;
mod sys;
pub(crate) use sys::RDMA_VERBS_IOCTL;
#[macro_use]
pub(crate) mod write;

pub(crate) mod ah;
pub(crate) mod cq;
pub(crate) mod device;
pub(crate) mod disassoc;
pub(crate) mod flow;
pub(crate) mod mcast;
pub(crate) mod mr;
pub(crate) mod mw;
pub(crate) mod pd;
pub(crate) mod post;
pub(crate) mod qp;
pub(crate) mod rxe;
pub(crate) mod srq;
pub(crate) mod wq;
pub(crate) mod xrcd;

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use ioctl::IoctlCmd;
pub(crate) use pod::Pod;

use crate::entry::{Errno, Result, trace_level, trace_line};
use ids::{UVERBS_ATTR_WRITE_CMD, UVERBS_METHOD_INVOKE_WRITE, UVERBS_OBJECT_DEVICE};

/// An open uverbs device file and what we learned about its kernel.
#[derive(Debug)]
pub(crate) struct Uverbs {
    fd: OwnedFd,
    driver_id: u32,
    /// Send write() commands through `UVERBS_METHOD_INVOKE_WRITE`.
    ioctl_write: AtomicBool,
    support: fallback::IoctlSupport,
    /// What a doorbell's write(2) returns when it needs no more looking at:
    /// its length, or -2 (no write returns it) when kernel commands are
    /// traced, so that one compare decides (tracing is set at load).
    doorbell_ok: isize,
}

impl Uverbs {
    /// Takes over an already open uverbs fd and probes the transport.
    pub(crate) fn from_fd(fd: OwnedFd, driver_id: u32) -> Uverbs {
        let u = Uverbs {
            fd,
            driver_id,
            ioctl_write: AtomicBool::new(false),
            support: Default::default(),
            doorbell_ok: match trace_level() {
                0 | 1 => size_of::<post::Doorbell>() as isize,
                _ => -2,
            },
        };
        u.ioctl_write
            .store(u.probe_ioctl_write(), Ordering::Relaxed);
        u
    }

    /// Whether the kernel has `INVOKE_WRITE`: asked to run QUERY_DEVICE without a
    /// request, a kernel that has it fails with something other than "no such method".
    fn probe_ioctl_write(&self) -> bool {
        let mut c = IoctlCmd::new(
            "INVOKE_WRITE probe",
            UVERBS_OBJECT_DEVICE,
            UVERBS_METHOD_INVOKE_WRITE,
        );
        c.const_in(
            UVERBS_ATTR_WRITE_CMD,
            write::IB_USER_VERBS_CMD_QUERY_DEVICE as u64,
        );
        !matches!(
            self.ioctl(&mut c),
            Err(Errno(libc::ENOTTY | libc::EPROTONOSUPPORT))
        )
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The fd for `ibv_context::cmd_fd`.
    pub(crate) fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    pub(crate) fn driver_id(&self) -> u32 {
        self.driver_id
    }

    /// Whether write() commands go through the `INVOKE_WRITE` ioctl.
    pub(crate) fn ioctl_write(&self) -> bool {
        self.ioctl_write.load(Ordering::Relaxed)
    }

    // The checks are inlined, the lines out of line and cold: formatting
    // inlined into every command gave each a heavy frame (register saves
    // on every call, tracing or not).
    #[inline(always)]
    fn trace_write<T>(&self, name: &str, cmd: u32, r: &Result<T>) {
        if trace_level() >= 2 {
            trace_write_line(name, cmd, r.as_ref().map(|_| ()).map_err(|e| *e));
        }
    }

    #[inline(always)]
    fn trace_ioctl(&self, c: &IoctlCmd<'_>, r: &Result<()>) {
        if trace_level() >= 2 {
            trace_ioctl_line(c.name, c.object_id, c.method_id, *r);
        }
    }
}

#[cold]
#[inline(never)]
fn trace_write_line(name: &str, cmd: u32, r: Result<()>) {
    trace_line(format_args!(
        "uverbs write {name} (cmd {cmd:#x}) = {}",
        Outcome(&r)
    ));
}

#[cold]
#[inline(never)]
fn trace_ioctl_line(name: &str, o: u16, m: u16, r: Result<()>) {
    trace_line(format_args!(
        "uverbs ioctl {name} (object {o} method {m}) = {}",
        Outcome(&r)
    ));
}

struct Outcome<'a, T>(&'a Result<T>);

impl<T> std::fmt::Display for Outcome<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Ok(_) => f.write_str("0"),
            Err(e) => write!(f, "-1 errno {e:?}"),
        }
    }
}

#[cfg(test)]
mod tests;
