//! Choosing between the ioctl method and the write() command of a verb, the way
//! rdma-core does, remembering per context what the kernel lacks.

use std::sync::atomic::{AtomicU64, Ordering};

use super::Uverbs;
use super::ids::{UVERBS_ATTR_UHW_IN, UVERBS_ATTR_UHW_OUT};
use super::ioctl::IoctlCmd;
use super::ioctl_hdr::UVERBS_ATTR_F_MANDATORY;
use crate::entry::{Errno, Result};

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

/// What to do after trying the ioctl method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fallback {
    /// The ioctl ran and succeeded.
    Done,
    /// Send the legacy write() command instead.
    TryWrite,
    /// Send the `_ex` write() command instead.
    TryWriteEx,
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

/// Whether the request can be expressed as a write() command, and which.
/// Driver attributes other than UHW cannot be, if the kernel must understand them.
pub(crate) fn check_legacy(cmd: &IoctlCmd<'_>) -> Result<Fallback> {
    if cmd.ioctl_only {
        return Err(Errno::EOPNOTSUPP);
    }
    if let Some(start) = cmd.driver_start {
        let blocked = cmd.buf.attrs()[start.min(cmd.buf.attrs().len())..]
            .iter()
            .any(|a| {
                a.attr_id != UVERBS_ATTR_UHW_IN
                    && a.attr_id != UVERBS_ATTR_UHW_OUT
                    && a.flags & UVERBS_ATTR_F_MANDATORY != 0
            });
        if blocked {
            return Err(Errno::EOPNOTSUPP);
        }
    }
    Ok(if cmd.require_ex {
        Fallback::TryWriteEx
    } else {
        Fallback::TryWrite
    })
}

impl Uverbs {
    /// Tries the ioctl method of `verb` unless this context already learned the
    /// kernel lacks it; on `Ok(TryWrite*)` the caller sends the write() command.
    #[inline(always)]
    pub(crate) fn ioctl_fallback(&self, verb: Verb, cmd: &mut IoctlCmd<'_>) -> Result<Fallback> {
        if self.support.known_unsupported(verb) {
            return check_legacy(cmd);
        }
        match self.ioctl(cmd) {
            Ok(()) => Ok(Fallback::Done),
            Err(e) if self.support.record_failure(verb, e) => check_legacy(cmd),
            Err(e) => Err(e),
        }
    }
}

impl Uverbs {
    /// Destroys an object by handle with its `*_DESTROY` method, or with the
    /// write() command `write` on kernels without it.
    #[inline(always)]
    pub(super) fn destroy(
        &self,
        verb: Verb,
        name: &'static str,
        (object, method, attr): (u16, u16, u16),
        handle: u32,
        write: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut c = IoctlCmd::new(name, object, method);
        c.idr_in(attr, handle);
        super::disassoc::destroy_result(match self.ioctl_fallback(verb, &mut c) {
            Ok(Fallback::Done) => Ok(()),
            Ok(Fallback::TryWrite | Fallback::TryWriteEx) => write(),
            Err(e) => Err(e),
        })
    }
}
