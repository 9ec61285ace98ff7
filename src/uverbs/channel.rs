//! The command channel: an open `/dev/infiniband/uverbsN` and what we learned
//! about its kernel. The command modules add its calls (`impl Uverbs`) above
//! it; it imports none of them.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::entry::{Errno, Result, trace_level, trace_line};

/// An open uverbs device file and what we learned about its kernel.
#[derive(Debug)]
pub(crate) struct Uverbs {
    pub(super) fd: OwnedFd,
    pub(super) driver_id: u32,
    /// Send write() commands through `UVERBS_METHOD_INVOKE_WRITE`.
    pub(super) ioctl_write: AtomicBool,
    pub(super) support: IoctlSupport,
    /// What a doorbell's write(2) returns when it needs no more looking at:
    /// its length, or -2 (no write returns it) when kernel commands are
    /// traced, so that one compare decides (tracing is set at load).
    pub(super) doorbell_ok: isize,
}

/// The verbs that have both an ioctl method and a write() command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Verb {
    QueryPort,
    CreateCq,
    DestroyCq,
    DestroyQp,
    CreateSrq,
    DestroySrq,
    DestroyAh,
    DeallocPd,
    DeallocMw,
    DeregMr,
    CloseXrcd,
    CreateWq,
    DestroyWq,
}

/// Per-context bitmap of verbs whose ioctl method the kernel lacks.
#[derive(Debug, Default)]
pub(crate) struct IoctlSupport(AtomicU64);

impl IoctlSupport {
    pub(crate) fn known_unsupported(&self, v: Verb) -> bool {
        self.0.load(Ordering::Relaxed) & (1 << v as u8) != 0
    }

    /// Learns from a failed ioctl; returns whether write() may be tried.
    /// ENOTTY: no ioctl interface at all. EPROTONOSUPPORT: this method, or one of
    /// its mandatory attributes, is unknown. Any other error is the verb's answer.
    pub(crate) fn record_failure(&self, v: Verb, e: Errno) -> bool {
        match e.0 {
            libc::ENOTTY => self.0.store(u64::MAX, Ordering::Relaxed),
            libc::EPROTONOSUPPORT => {
                self.0.fetch_or(1 << v as u8, Ordering::Relaxed);
            }
            _ => return false,
        }
        true
    }
}

impl Uverbs {
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
    pub(super) fn trace_write<T>(&self, name: &str, cmd: u32, r: &Result<T>) {
        if trace_level() >= 2 {
            trace_write_line(name, cmd, r.as_ref().map(|_| ()).map_err(|e| *e));
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

/// A command's result as a trace line shows it.
pub(super) struct Outcome<'a, T>(pub(super) &'a Result<T>);

impl<T> std::fmt::Display for Outcome<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Ok(_) => f.write_str("0"),
            Err(e) => write!(f, "-1 errno {e:?}"),
        }
    }
}
